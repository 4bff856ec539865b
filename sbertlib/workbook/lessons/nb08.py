"""Self-checks for notebook 08 (SentEval transfer): the majority-class warm-up, SentEval's classifier on one split,
its k-fold protocol, which protocol for which task and standardising the dimensions (the paper's Section 5)."""
import warnings
from collections import Counter
from dataclasses import replace

import numpy as np

from ...data import SentEvalTask
from ...evaluation import transfer
from . import Exercise, ExerciseError, call, guard, ok, one_number, require, within
from .kinds import close as _close   # an accuracy computed in float32 is right too

_number = lambda got, what: one_number(got, what, "return one number, the accuracy ×100")  # noqa: E731


def _labels(task: SentEvalTask, split: str) -> list:
    return task.split(split)[1] if task.splits and split != "all" else task.labels


def _majority(task: SentEvalTask, learn: str = "train", score: str = "test", times: float = 100, top=None) -> float:
    """Accuracy ×100 on ``score``'s labels of always answering ``top`` (default: ``learn``'s most frequent label)."""
    top = Counter(_labels(task, learn)).most_common(1)[0][0] if top is None else top
    return times * float(np.mean(np.asarray(_labels(task, score)) == top))


def _task(name: str, train: list[int], test: list[int] | None = None, dev: list[int] | None = None,
          first: int | None = None) -> SentEvalTask:
    """Splits where ``test`` is given; from ``first`` on, texts ``"<label>|<id>"`` for :class:`_SignalEncoder`."""
    parts = {k: v for k, v in (("train", train), ("dev", dev), ("test", test)) if v is not None and test is not None}
    labels = [y for ys in (parts.values() if parts else [train]) for y in ys]
    bounds = np.cumsum([0] + [len(v) for v in parts.values()])
    texts = [f"{name} {i}" if first is None else f"{y}|{first + i}" for i, y in enumerate(labels)]
    return SentEvalTask(name, texts, labels, tuple(f"c{i}" for i in range(6)),
                        {k: range(bounds[i], bounds[i + 1]) for i, k in enumerate(parts)})


def _majority_tasks() -> list[tuple[SentEvalTask]]:
    rng = np.random.default_rng(5)
    six = [rng.choice(6, size=n, p=p).tolist() for n, p in ((300, [.02, .2, .23, .22, .15, .18]),
                                                            (100, [.02, .27, .19, .13, .16, .23]))]
    return [(t,) for t in (_task("CV-70/30", [0] * 70 + [1] * 30), _task("CV-minority-first", [1] * 20 + [0] * 55),
                           _task("THREE-WAY", [0] * 50 + [1] * 10 + [2] * 45, [0] * 5 + [1] * 60 + [2] * 50),
                           _task("SPLIT", [1] * 60 + [0] * 40, [0] * 70 + [1] * 30),
                           _task("WITH-DEV", [0] * 55 + [1] * 45, [0] * 40 + [1] * 60, dev=[1] * 80 + [0] * 20),
                           _task("SIX-CLASSES", *six))]


MAJORITY = Exercise('majority_baseline', probe="_result = {name: majority_baseline(task) for name, task in tasks.items()}",
                    reference=_majority, inputs=_majority_tasks, returns=_number, compare=_close, slips={
    "that is the majority label itself: return how often it is right on test, ×100":
        lambda t: Counter(_labels(t, "train")).most_common(1)[0][0],
    "that is a count of examples: divide by the number of labels (and ×100)":
        lambda t: _majority(t, times=1.0) * len(_labels(t, "test")),
    "you took the majority class of the *test* split — a classifier never sees test labels; take train's majority":
        lambda t: _majority(t, "test"),
    "you counted the labels of every split; the classifier learns from train only": lambda t: _majority(t, "all"),
    "that is the accuracy on the train split: score train's majority on the test split":
        lambda t: _majority(t, score="train")},
    hint="with a split: the most common label of task.split('train'), scored on task.split('test'); without one: "
         "the share of the most common label in task.labels")


def check_majority_baseline(majority_baseline, tasks=None) -> None:
    """:data:`MAJORITY`, then on the notebook's ``tasks`` (a tie for the most frequent class: any tied one is right)."""
    MAJORITY.check(majority_baseline)
    for task in (tasks.values() if isinstance(tasks, dict) else tasks or []):
        got = MAJORITY.returns(call(majority_baseline, task, what="your majority_baseline"), task.name)
        counts = Counter(_labels(task, "train"))   # any class tied as the most frequent is right
        require(any(_close(got, _majority(task, top=c)) for c in counts if counts[c] == max(counts.values())),
                f"majority_baseline({task.name}) returned {got:.2f}, which is not the majority class's accuracy",
                MAJORITY.hint)
    if tasks:
        ok(f"majority_baseline is right on the notebook's {len(tasks)} tasks too")


def _fit_score(Xtr, ytr, Xte, yte, Cs=transfer.DEFAULT_CS, seed=0, dev=None, slip: str = "") -> float:
    """fit_and_score written with one ``slip`` (see FIT_AND_SCORE), step by step as the notebook asks."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    seed = 0 if slip == "own seed" else seed
    scale = (lambda X: X) if slip == "no scaler" else StandardScaler().fit(
        np.vstack([Xtr, Xte]) if slip == "scaler on all" else Xtr).transform
    scale_test = StandardScaler().fit(Xte).transform if slip == "test scaled alone" else scale
    X_eval, y_eval = (scale(Xtr), ytr) if slip == "on train" else (scale_test(Xte), yte)

    def score(C: float) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(scale(Xtr), ytr)
        return 100 * clf.score(X_eval, y_eval) / (100 if slip == "fraction" else 1)
    C = {"C = 1": 1.0, "first C": Cs[0]}.get(slip) or (max(Cs, key=score) if slip == "C on test" else transfer.select_C(
        Xtr, ytr, Cs, seed=seed, dev=None if slip == "dev ignored" else dev))
    return score(C)


def _split_cases() -> list[tuple]:
    """Hidden splits (train, test[, dev]) whose test part is drawn a little apart; the first again with seed 12."""
    rng, cases = np.random.default_rng(41), []
    for n_train, n_test, n_dev, dim, k in ((300, 200, 0, 6, 2), (240, 150, 120, 5, 3), (200, 250, 150, 8, 2)):
        y = rng.choice(k, size=n_train + n_test + n_dev, p=np.linspace(1, 2, k) / np.linspace(1, 2, k).sum())
        X = (rng.normal(size=(k, dim))[y] * 0.5 + rng.standard_t(2, size=(len(y), dim))) * rng.uniform(0.01, 30.0, dim) \
            + rng.normal(0, 5, size=dim)
        X[n_train:n_train + n_test] += rng.normal(0, 3, size=dim)
        tr, te, dv = np.split(np.arange(len(y)), [n_train, n_train + n_test])
        cases.append((X[tr], y[tr], X[te], y[te], (0.001, 0.01, 0.1, 1.0), 0, (X[dv], y[dv]) if n_dev else None))
    return cases + [cases[0][:5] + (12, None)]   # seed 12's inner folds choose another C than seed 0's


_FIT_SLIPS = {
    "dev ignored": "when a dev split is given, C is chosen on it: pass dev on to transfer.select_C",
    "own seed": "that is what seed=0 gives: choosing C must follow the `seed` argument",
    "fraction": "that is a fraction; give the accuracy ×100, like the table",
    "scaler on all": "the scaler saw the test part: fit the StandardScaler on the training part only",
    "test scaled alone": "the test part standardised with its own statistics: transform it with the training part's scaler",
    "no scaler": "standardise the features (a StandardScaler fitted on the training part) before the classifier",
    "C on test": "C was chosen by its accuracy on the test part: that peeks at the test labels",
    "C = 1": "C is not fixed: choose it from Cs, on the training part (transfer.select_C)",
    "first C": "C is not always the first of Cs: choose it on the training part (transfer.select_C)",
    "on train": "that is the accuracy on the training part: score on the test part"}
FIT_AND_SCORE = Exercise(   # the library's fit_score takes the exercise's arguments, in its order
    "fit_and_score", reference=transfer.fit_score, inputs=_split_cases, returns=_number, compare=_close,
    slips={hint: (lambda *a, slip=slip: _fit_score(*a, slip=slip)) for slip, hint in _FIT_SLIPS.items()},
    hint="the exercise's three steps, each learnt from the training part only (C: on dev when one is given), each "
         "following `seed`; then the accuracy ×100 on the test part",
    ok="fit_and_score is SentEval's classifier on 4 hidden splits (C chosen on train, or on dev)")


def check_fit_and_score(fit_and_score): FIT_AND_SCORE.check(fit_and_score)  # noqa: E704


def _cv(X, y, folds=10, seed=0, Cs=transfer.DEFAULT_CS, slip: str = "") -> float:
    """cv_accuracy written with one ``slip`` (see CV_ACCURACY), or with a slip of each fold's fit_and_score."""
    from sklearn.model_selection import KFold
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    folds, seed = (10 if slip == "own folds" else folds), (0 if slip == "own seed" else seed)
    splits = (list(KFold(folds, shuffle=True, random_state=seed).split(X)) if slip == "unstratified" else
              list(KFold(folds).split(X)) if slip == "in order" else transfer.kfold_indices(y, folds, seed))
    scores = [_fit_score(*((X[te], y[te], X[tr], y[tr]) if slip == "swapped" else (X[tr], y[tr], X[te], y[te])), Cs,
                         seed, slip=slip if slip in _FIT_SLIPS else "") for tr, te in splits[:-1 if slip == "last" else None]]
    return float(np.sum(scores) if slip == "sum" else np.mean(scores))


def _cv_cases() -> list[tuple]:
    """Heavy-tailed features on very different scales, unequal classes, a weak signal; another seed for each."""
    rng, cases = np.random.default_rng(23), []
    for n, dim, k, folds in ((420, 6, 2, 3), (360, 5, 3, 4)):
        y = rng.choice(k, size=n, p=np.linspace(1, 2, k) / np.linspace(1, 2, k).sum())
        X = (rng.normal(size=(k, dim))[y] * 1.2 + rng.standard_t(2, size=(n, dim))) * rng.uniform(0.01, 30.0, dim) \
            + rng.normal(0, 5, size=dim)
        cases.append((X, y, folds, 7 * len(cases), (0.001, 0.03, 3.0)))
    return cases


_CV_SLIPS = {
    "own folds": "that is 10-fold CV: the number of folds is the `folds` argument",
    "own seed": "the folds and the classifier must follow the `seed` argument, not a seed of their own",
    "unstratified": "your folds are not stratified: transfer.kfold_indices keeps each class's share in every fold",
    "in order": "folds cut in order: use transfer.kfold_indices(y, folds, seed), shuffled with that seed",
    "swapped": "train and test are swapped: each fold is held out and scored, the other folds train",
    "last": "one fold is missing from the mean: every fold is held out once",
    "sum": "that is the sum of the fold accuracies: return their mean",
    "fraction": _FIT_SLIPS["fraction"]}
CV_ACCURACY = Exercise(   # as fit_score, cross_val_accuracy takes the exercise's arguments, in its order
    "cv_accuracy", reference=transfer.cross_val_accuracy, inputs=_cv_cases, returns=_number, compare=_close,
    slips={hint: (lambda *a, slip=slip: _cv(*a, slip=slip)) for slip, hint in _CV_SLIPS.items()},
    hint="every fold of the stratified folds that `folds` and `seed` give is held out once and scored by your "
         "fit_and_score, trained on the other folds only; the result is the mean of those accuracies (×100)",
    ok="cv_accuracy is SentEval's protocol on 2 hidden tasks")


def check_cv_accuracy(cv_accuracy, X=None, y=None, folds: int = 10, seed: int = 0, Cs=transfer.DEFAULT_CS):
    """:data:`CV_ACCURACY`, then on the notebook's ``(X, y)`` if given; returns the protocol's accuracy there."""
    if X is None:
        return CV_ACCURACY.check(cv_accuracy)
    mine = (np.asarray(X, dtype=np.float64), np.asarray(y), folds, seed, tuple(Cs))
    want = transfer.cross_val_accuracy(*mine)
    replace(CV_ACCURACY, inputs=lambda: [*_cv_cases(), mine],
            ok=f"{CV_ACCURACY.ok} and on the notebook's ({want:.2f})").check(cv_accuracy)
    return want


class _SignalEncoder:
    """A stand-in encoder: text ``"<label>|<id>"`` → a fixed noisy vector around its class's centre."""

    def __init__(self, dim: int = 6, seed: int = 0):
        self.centres, self.dim, self.seed = np.random.default_rng(seed).normal(size=(6, dim)) * 0.7, dim, seed

    def encode(self, texts, batch_size: int = 64, show_progress_bar: bool = False):
        def one(label, ident):
            return self.centres[int(label)] + np.random.default_rng([self.seed, int(ident)]).standard_t(
                3, size=self.dim) * np.linspace(0.5, 3.0, self.dim)
        return np.stack([one(*str(t).split("|")) for t in texts])


def _protocol_tasks() -> list[SentEvalTask]:
    """No split; train/test; train/dev/test twice (the second: dev moves C)."""
    rest, tasks = np.random.default_rng(47), []
    for name, (train, dev, test), k, first in (("CV-TASK", (90, 0, 0), 2, 0), ("TRAIN-TEST", (120, 0, 80), 3, 90),
                                               ("WITH-DEV", (100, 60, 90), 2, 290),
                                               ("DEV-MOVES-C", (100, 60, 90), 2, 10_000)):
        y = (np.random.default_rng(40) if name == "DEV-MOVES-C" else rest).choice(k, size=train + dev + test).tolist()
        tasks.append(_task(name, y[:train], y[train + dev:] or None, y[train:train + dev] or None, first))
    return tasks


def _score_task(encoder, task, folds=10, seed=0, slip: str = "") -> float:
    seed, per = (0 if slip == "own seed" else seed), (100 if slip == "fraction" else 1)
    if not task.splits or slip == "as CV":
        k = {"own folds": 10, "folds written in": 5}.get(slip, folds)
        return transfer.evaluate_task(encoder, replace(task, splits={}), k, seed) / per
    p = transfer.split_features(encoder, task)
    dev = p.get("dev")
    train = (np.vstack([p["train"][0], dev[0]]), np.concatenate([p["train"][1], dev[1]])) \
        if slip == "dev merged" and dev else p["train"]
    test = dev if slip.startswith("on dev") and dev else p["test"]
    train, test = (test, train) if slip == "swapped" else (train, test)
    return transfer.fit_score(*train, *test, seed=seed, dev=None if slip in ("dev ignored", "dev merged") else dev) / per


SCORE_TASK = Exercise(
    "score_task", reference=lambda encoder, task, folds=10, seed=0: transfer.evaluate_task(encoder, task, folds, seed),
    inputs=lambda folds=5: [(_SignalEncoder(), t, folds, 0) for t in _protocol_tasks()] + [
        (_SignalEncoder(), _protocol_tasks()[0], 3 if folds != 3 else 4, 0), (_SignalEncoder(), _protocol_tasks()[0], folds, 1)],
    returns=_number, compare=_close, slips={hint: (lambda *a, slip=slip: _score_task(*a, slip=slip)) for slip, hint in {
        "as CV": "that is k-fold CV over every example of every split: a task with a split trains on train, scores on test",
        "dev ignored": "this task has a dev split: choose C on it — pass its features and labels to fit_and_score as dev",
        "dev merged": "you trained on train and dev together: dev only chooses C — pass it as dev, train on train alone",
        "swapped": "train and test are swapped: train on the train split, score on the test split",
        "on dev": "that is the accuracy on the dev split: dev only chooses C; the score is the test split's",
        "fraction": "give the accuracy ×100",
        "own folds": "that is 10-fold CV, cv_accuracy's default: pass the `folds` argument on to cv_accuracy",
        "folds written in": "that is 5-fold CV: a number of folds written in — pass the `folds` argument on",
        "own seed": "that is what seed=0 gives: the folds must follow the `seed` argument"}.items()},
    hint="no split: stratified k-fold CV (your cv_accuracy on the task's features); a split: your fit_and_score trained "
         "on train, scored on test, C chosen on dev where the task has one",
    ok="score_task picks SentEval's protocol for each kind of task (k-fold CV; train → test; C on dev)")


def check_score_task(score_task, folds: int = 5) -> None:
    replace(SCORE_TASK, inputs=lambda: SCORE_TASK.inputs(folds)).check(score_task)


def standardise_truth(reference, vectors, ddof: int = 0) -> np.ndarray:
    """``vectors`` standardised per dimension by ``reference``'s statistics, in float64 (one with no spread centred)."""
    ref, x = np.asarray(reference, dtype=np.float64), np.asarray(vectors, dtype=np.float64)
    std = ref.std(axis=0, ddof=ddof)
    return (x - ref.mean(axis=0)) / np.where(std > 0, std, 1.0)


def _standardise_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """Dimensions on very different scales; a dimension with no spread; float32 vectors far from 0."""
    rng, cases = np.random.default_rng(8), []
    for n_ref, n, dim in ((40, 7, 5), (200, 30, 16), (25, 25, 3)):
        scale, shift = rng.uniform(0.05, 20.0, size=dim), rng.normal(0, 5.0, size=dim)
        cases.append((rng.standard_normal((n_ref, dim)) * scale + shift,
                      rng.standard_normal((n, dim)) * scale * 1.7 + shift + 3.0))
    ref = rng.standard_normal((30, 4))
    ref[:, 2] = 0.25
    cases.append((ref, rng.standard_normal((6, 4))))
    return cases + [tuple((rng.standard_normal((n, 5)) * 0.01 + 300.0).astype(np.float32) for n in (50, 8))]


def _standardise_slips(ddof: int) -> dict:
    def stats(r):
        r = np.asarray(r, dtype=np.float64)
        return r.mean(axis=0), r.std(axis=0, ddof=ddof)
    return {k: np.errstate(divide="ignore", invalid="ignore")(f) for k, f in {
        "you took the mean and standard deviation of `vectors`; take them from `reference` (the training sentences)":
            lambda r, x: standardise_truth(x, x, ddof),
        "subtract the reference mean of each dimension before dividing by its standard deviation":
            lambda r, x: np.asarray(x, dtype=np.float64) / stats(r)[1],
        "divide by the standard deviation (np.std), not the variance":
            lambda r, x: (x - stats(r)[0]) / stats(r)[1] ** 2,
        "one mean and one standard deviation *per dimension*: use axis=0":
            lambda r, x: (x - np.mean(r)) / np.std(r, ddof=ddof),
        "you centred but did not scale: divide each dimension by its reference standard deviation":
            lambda r, x: x - stats(r)[0],
        "a dimension of `reference` has no spread (standard deviation 0) and you divided by it: centre it only":
            lambda r, x: (x - stats(r)[0]) / stats(r)[1],
        "a dimension with no spread divided by a tiny number: leave it centred only (divide by 1 there)":
            lambda r, x: (x - stats(r)[0]) / np.clip(stats(r)[1], 1e-12, None),
        "the inputs are float32: compute the mean, the standard deviation and the result in float64 — in float32 the "
        "small differences from a large mean lose their digits":
            lambda r, x: (x - r.mean(axis=0)) / np.where(r.std(axis=0, ddof=ddof) > 0, r.std(axis=0, ddof=ddof), 1.0)
    }.items()}


STANDARDISE = Exercise('standardise', probe="""
            _rng = _np.random.default_rng(2029)
            _result = standardise(_rng.normal(2.0, 3.0, size=(12, 4)), _rng.normal(size=(5, 4)))
            """, reference=standardise_truth, inputs=_standardise_cases, compare=within(1e-6, 1e-6, nan=True),
    slips=_standardise_slips(0), hint="each dimension: minus the reference's mean of that dimension, divided by the "
                                      "reference's spread of it (statistics per dimension, from `reference` only, in "
                                      "float64)",
    ok="standardise is right: every dimension centred and scaled with the reference sample's statistics")


def check_standardise(standardise) -> None:
    """Either standard deviation is right: ddof=0 (numpy, scikit-learn) or ddof=1 (pandas)."""
    errors = []
    for ddof in (0, 1):
        try:
            return replace(STANDARDISE, reference=lambda r, x: standardise_truth(r, x, ddof),
                           slips=_standardise_slips(ddof)).check(standardise)
        except ExerciseError as error:
            errors.append(error)
    raise min(errors, key=lambda e: STANDARDISE.hint in str(e))   # a named slip before the general hint


EXERCISES = (MAJORITY, STANDARDISE, FIT_AND_SCORE, CV_ACCURACY, SCORE_TASK)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
