"""Self-checks for ``08_transfer_with_senteval``: the majority-class warm-up and standardising the
dimensions before a cosine (the paper's Section 5 point: a classifier can re-weight dimensions, cosine cannot)."""
from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

import numpy as np

from ...data import SentEvalTask
from . import guard, Exercise, ExerciseError, call, ok, require
from .questions import choice

__all__ = ["check_majority_baseline", "majority_accuracies", "check_standardise", "standardise_truth",
           "check_fit_and_score", "fit_and_score_truth", "check_cv_accuracy", "cv_accuracy_truth"]


def majority_accuracies(task: SentEvalTask) -> set[float]:
    """Accuracy ×100 of always predicting the most frequent class, for each class tied as most
    frequent (usually one value): on ``test`` with the majority of ``train`` for a task with a
    split, else the share of the most frequent class in the whole task."""
    if task.splits:
        train, test = task.split("train")[1], task.split("test")[1]
        counts = Counter(train)
        top = max(counts.values())
        return {100.0 * float(np.mean(np.asarray(test) == c)) for c, m in counts.items() if m == top}
    counts = Counter(task.labels)
    return {100.0 * max(counts.values()) / len(task.labels)}


def _task(name: str, train: list[int], test: list[int] | None = None, dev: list[int] | None = None,
          classes: int = 2) -> SentEvalTask:
    names = tuple(f"class{i}" for i in range(classes))
    if test is None:
        return SentEvalTask(name, [f"{name} {i}" for i in range(len(train))], train, names)
    parts = {"train": train, "dev": dev, "test": test} if dev is not None else {"train": train, "test": test}
    labels, splits = [], {}
    for split, ys in parts.items():
        splits[split] = range(len(labels), len(labels) + len(ys))
        labels += ys
    return SentEvalTask(name, [f"{name} {i}" for i in range(len(labels))], labels, names, splits)


def _hidden_tasks() -> list[SentEvalTask]:
    rng = np.random.default_rng(5)
    trec_train = rng.choice(6, size=300, p=[0.02, 0.2, 0.23, 0.22, 0.15, 0.18]).tolist()
    trec_test = rng.choice(6, size=100, p=[0.02, 0.27, 0.19, 0.13, 0.16, 0.23]).tolist()
    return [
        _task("CV-70/30", [0] * 70 + [1] * 30),
        _task("CV-minority-first", [1] * 20 + [0] * 55),
        # three different "majorities": train's (0), test's (1) and the whole task's (2)
        _task("THREE-WAY", [0] * 50 + [1] * 10 + [2] * 45, test=[0] * 5 + [1] * 60 + [2] * 50, classes=3),
        # train says "1", test mostly "0", and the whole task mostly "0": only the train majority is right
        _task("SPLIT", [1] * 60 + [0] * 40, test=[0] * 70 + [1] * 30),
        # a dev split whose majority differs from train's
        _task("WITH-DEV", [0] * 55 + [1] * 45, dev=[1] * 80 + [0] * 20, test=[0] * 40 + [1] * 60),
        _task("SIX-CLASSES", trec_train, test=trec_test, classes=6),
    ]


def _diagnose(got: float, task: SentEvalTask) -> str:
    want = sorted(majority_accuracies(task))[0]
    if any(abs(got * 100 - w) < 1e-6 for w in majority_accuracies(task)):
        return "that is a fraction; give the accuracy ×100 (a percentage, like the table)"
    if task.splits:
        test = np.asarray(task.split("test")[1])
        test_major = 100.0 * max(Counter(test.tolist()).values()) / len(test)
        whole = Counter(task.labels).most_common(1)[0][0]
        if abs(got - test_major) < 1e-6 and abs(got - want) > 1e-6:
            return ("you took the majority class of the *test* split — a classifier never sees test labels; "
                    "take the majority of the train split and measure how often it is right on test")
        if abs(got - 100.0 * float(np.mean(test == whole))) < 1e-6:
            return "you counted the labels of every split; the classifier learns from train only"
        return "majority class = most common label of task.split('train'); accuracy on task.split('test')"
    return "without a split, the baseline is the share of the most common label in task.labels"


def check_majority_baseline(majority_baseline: Callable, tasks: Iterable[SentEvalTask] | dict | None = None) -> None:
    """Check ``majority_baseline(task) -> accuracy ×100`` of always predicting the most frequent
    training class: on hidden tasks (with and without a split, two and six classes) and on the
    notebook's ``tasks`` if given."""
    require(callable(majority_baseline), f"pass your function itself, not {type(majority_baseline).__name__}",
            "check_majority_baseline(majority_baseline, tasks)")
    given = list(tasks.values()) if isinstance(tasks, dict) else list(tasks or [])
    for task in _hidden_tasks() + given:
        got = call(majority_baseline, task)
        require(got is not None and got is not Ellipsis, f"majority_baseline({task.name}) returned {got!r}",
                "return the accuracy ×100, a number")
        try:
            value = float(got)
        except (TypeError, ValueError):
            raise ExerciseError(f"majority_baseline({task.name}) returned a {type(got).__name__}, not a number\n"
                                "Hint: return one accuracy ×100") from None
        if not any(abs(value - w) < 1e-6 for w in majority_accuracies(task)):
            want = sorted(majority_accuracies(task))[0]
            raise ExerciseError(f"majority_baseline on task {task.name!r} ({'train/test' if task.splits else 'no split'}, "
                                f"{len(task)} examples) returned {value:.2f}, expected {want:.2f}\n"
                                f"Hint: {_diagnose(value, task)}")
    ok(f"majority_baseline is right on {len(_hidden_tasks())} hidden tasks"
       + (f" and the notebook's {len(given)} tasks" if given else ""))


# ----------------------------------------------------------------------------- re-weighting dimensions (§5)
def standardise_truth(reference, vectors, ddof: int = 0) -> np.ndarray:
    """``vectors`` with each dimension centred and scaled by the mean and standard deviation that the
    same dimension has in ``reference`` (statistics of the reference sample, never of ``vectors``),
    computed in float64. A dimension with no spread in ``reference`` (standard deviation 0) is only
    centred — divided by 1, as scikit-learn's ``StandardScaler`` does — never divided by zero."""
    ref = np.asarray(reference, dtype=np.float64)
    x = np.asarray(vectors, dtype=np.float64)
    std = ref.std(axis=0, ddof=ddof)
    return (x - ref.mean(axis=0)) / np.where(std > 0, std, 1.0)


def _standardise_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(8)
    cases = []
    for n_ref, n, dim in ((40, 7, 5), (200, 30, 16), (25, 25, 3)):
        scale = rng.uniform(0.05, 20.0, size=dim)                 # dimensions on very different scales
        shift = rng.normal(0, 5.0, size=dim)                      # and a shared offset
        ref = rng.standard_normal((n_ref, dim)) * scale + shift
        x = rng.standard_normal((n, dim)) * scale * 1.7 + shift + 3.0   # test vectors drawn a bit differently
        cases.append((f"{n} vectors of dimension {dim}, statistics from {n_ref} reference vectors", ref, x))
    ref = rng.standard_normal((30, 4))
    ref[:, 2] = 0.25                                              # a dimension with no spread at all
    cases.append(("reference vectors with one constant dimension (standard deviation 0)", ref,
                  rng.standard_normal((6, 4))))
    # float32 vectors as encode() returns them, far from 0 with a small spread: float32 arithmetic loses digits
    ref32 = (rng.standard_normal((50, 5)) * 0.01 + 300.0).astype(np.float32)
    x32 = (rng.standard_normal((8, 5)) * 0.01 + 300.0).astype(np.float32)
    cases.append(("float32 vectors far from 0 with a small spread (as an encoder's may be)", ref32, x32))
    return cases


def _standardise_hint(got: np.ndarray, ref: np.ndarray, x: np.ndarray) -> str:
    def close(a):
        return a.shape == got.shape and np.allclose(got, a, atol=1e-6)
    flat = np.asarray(ref, dtype=np.float64).std(axis=0) == 0
    if flat.any() and (not np.all(np.isfinite(got)) or not np.allclose(got[:, flat], standardise_truth(ref, x)[:, flat])):
        return ("a dimension of `reference` has no spread (standard deviation 0) and you divided by it: leave such a "
                "dimension centred only (divide by 1 there), as scikit-learn's StandardScaler does")
    if x.dtype == np.float32 and not np.allclose(got, standardise_truth(ref, x), atol=1e-6):
        return ("the inputs are float32: compute the mean, the standard deviation and the result in float64 "
                "(np.asarray(..., dtype=np.float64)) — in float32 the small differences from a large mean lose their digits")
    if close(standardise_truth(x, x)) or close(standardise_truth(x, x, ddof=1)):
        return ("you took the mean and standard deviation of `vectors`; take them from `reference` (e.g. the "
                "training sentences) — the vectors being scored must not set their own statistics")
    if close(x / ref.std(axis=0)) or close(x / ref.std(axis=0, ddof=1)):
        return "subtract the reference mean of each dimension before dividing by its standard deviation"
    if close((x - ref.mean(axis=0)) / ref.var(axis=0)) or close((x - ref.mean(axis=0)) / ref.var(axis=0, ddof=1)):
        return "divide by the standard deviation (np.std), not the variance"
    if close((x - ref.mean()) / ref.std()) or close((x - ref.mean(axis=0)) / ref.std()):
        return "one mean and one standard deviation *per dimension*: use axis=0"
    if close(x - ref.mean(axis=0)):
        return "you centred but did not scale: divide each dimension by its reference standard deviation"
    return ("each dimension: minus the reference's mean of that dimension, divided by the reference's spread of it "
            "(statistics per dimension, from `reference` only)")


def check_standardise(standardise: Callable) -> None:
    """Check ``standardise(reference, vectors) -> array``: each dimension of ``vectors`` centred and
    scaled with the mean and standard deviation of that dimension in ``reference`` (either ``ddof``)."""
    require(callable(standardise), f"pass your function itself, not {type(standardise).__name__}",
            "check_standardise(standardise)")
    for name, ref, x in _standardise_cases():
        got = call(standardise, ref.copy(), x.copy())
        require(got is not None and got is not Ellipsis, f"on {name} your function returned {got!r}",
                "return the standardised vectors, an array of the same shape as `vectors`")
        try:
            arr = np.asarray(got.detach().cpu().numpy() if hasattr(got, "detach") else got, dtype=np.float64)
        except (TypeError, ValueError):
            raise ExerciseError(f"on {name} your function returned a {type(got).__name__}, not an array\n"
                                "Hint: return a numpy array of shape (n, dim)") from None
        require(arr.shape == x.shape, f"on {name} you returned shape {arr.shape}, expected {x.shape}",
                "standardise every vector; do not average over them")
        if not any(np.allclose(arr, standardise_truth(ref, x, ddof=d), atol=1e-6) for d in (0, 1)):
            raise ExerciseError(f"on {name} your vectors differ from the expected ones\n"
                                f"Hint: {_standardise_hint(arr, ref, x)}")
    ok("standardise is right: every dimension centred and scaled with the reference sample's statistics")


# ----------------------------------------------------------------------------- SentEval's k-fold protocol
def cv_accuracy_truth(X, y, folds: int = 10, seed: int = 0, Cs=(0.01, 0.1, 1.0)) -> float:
    """SentEval's protocol for a task without a split, as :func:`sbertlib.evaluation.transfer.cross_val_accuracy`
    runs it: stratified ``folds``-fold CV; in each fold ``C`` picked from ``Cs`` on the training folds only,
    the features standardised with the training folds' statistics, a logistic regression fitted there and
    scored on the held-out fold; the mean accuracy ×100."""
    from ...evaluation import transfer
    return transfer.cross_val_accuracy(np.asarray(X, dtype=np.float64), np.asarray(y), folds, seed, C=tuple(Cs))


def _cv_variants(X: np.ndarray, y: np.ndarray, folds: int, seed: int, Cs) -> dict[str, float]:
    """What the usual slips give on (X, y): each name is the slip, each value its mean accuracy ×100."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold
    from sklearn.preprocessing import StandardScaler

    from ...evaluation import transfer

    def fit_score(Xtr, ytr, Xte, yte, C, scale_on=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if scale_on is False:
                clf = LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(Xtr, ytr)
                return 100 * clf.score(Xte, yte)
            scaler = StandardScaler().fit(Xtr if scale_on is None else scale_on)
            clf = LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(scaler.transform(Xtr), ytr)
            return 100 * clf.score(scaler.transform(Xte), yte)

    def mean_over(splits, pick, **kw):
        return float(np.mean([fit_score(X[tr], y[tr], X[te], y[te], pick(tr, te), **kw) for tr, te in splits]))

    splits = transfer.kfold_indices(y, folds, seed)
    inner = lambda tr, te: transfer.select_C(X[tr], y[tr], Cs, seed=seed)  # noqa: E731
    once = transfer.select_C(X, y, Cs, seed=seed)
    out = {
        "the accuracy as a fraction instead of ×100": cv_accuracy_truth(X, y, folds, seed, Cs) / 100,
        "the scaler fitted on all examples, the test part among them": mean_over(splits, inner, scale_on=X),
        "the features not standardised before the classifier": mean_over(splits, inner, scale_on=False),
        "C chosen once on all examples, the held-out folds among them": mean_over(splits, lambda tr, te: once),
        "C chosen by its accuracy on the held-out fold": float(np.mean([max(fit_score(X[tr], y[tr], X[te], y[te], C) for C in Cs) for tr, te in splits])),
        "C fixed at 1 instead of chosen from Cs": mean_over(splits, lambda tr, te: 1.0),
        "C fixed at the first of Cs instead of chosen": mean_over(splits, lambda tr, te: Cs[0]),
        "folds that are not stratified by class": mean_over(list(KFold(folds, shuffle=True, random_state=seed).split(X)), inner),
        "folds cut in order, not shuffled with the seed": mean_over(list(KFold(folds).split(X)), inner),
        "train and test swapped": float(np.mean([fit_score(X[te], y[te], X[tr], y[tr],
                                                           transfer.select_C(X[te], y[te], Cs, seed=seed))
                                                 for tr, te in splits])),
        "the last fold skipped": mean_over(splits[:-1], inner),
        "the Cs argument ignored": mean_over(splits, lambda tr, te: transfer.select_C(X[tr], y[tr], transfer.DEFAULT_CS,
                                                                                      seed=seed)),
        "the folds argument ignored": mean_over(transfer.kfold_indices(y, 10, seed), inner),
    }
    return out


CV_HINTS = {
    "the accuracy as a fraction instead of ×100": "that is a fraction; give the accuracy ×100, like the table",
    "the scaler fitted on all examples, the test part among them": ("the scaler saw the held-out fold: fit the StandardScaler on the training folds only, then "
                      "transform both parts with it"),
    "the features not standardised before the classifier": "standardise the features (a StandardScaler fitted on the training folds) before the classifier",
    "C chosen once on all examples, the held-out folds among them": ("C was chosen once, on all examples — the held-out folds among them; choose it inside each "
                      "fold, from the training folds only (transfer.select_C on them)"),
    "C chosen by its accuracy on the held-out fold": ("C was chosen by its accuracy on the held-out fold: that peeks at the test labels; choose it "
                       "on the training folds only (transfer.select_C on them)"),
    "C fixed at 1 instead of chosen from Cs": "C is not fixed: choose it from Cs in each fold (transfer.select_C on the training folds)",
    "C fixed at the first of Cs instead of chosen": "C is not always the first of Cs: choose it in each fold (transfer.select_C on the training folds)",
    "folds that are not stratified by class": ("your folds are not stratified: use transfer.kfold_indices(y, folds, seed), which keeps each "
                     "class's share in every fold"),
    "folds cut in order, not shuffled with the seed": "use transfer.kfold_indices(y, folds, seed): stratified, shuffled folds with that seed",
    "train and test swapped": ("train and test are swapped: each fold's training part is the other folds; the fold "
                               "itself is held out and scored"),
    "the last fold skipped": "one fold is missing from the mean: every fold is held out once",
    "the Cs argument ignored": "C must be chosen from the Cs you are given, not from a list of your own",
    "the folds argument ignored": "the number of folds is the `folds` argument, not a number of your own",
}


def _cv_cases() -> list[tuple[str, np.ndarray, np.ndarray, int, tuple]]:
    """Hidden data where each slip above gives another number than the protocol on at least one task:
    heavy-tailed dimensions on very different scales, classes of unequal size, a weak signal that C and
    scaling change."""
    rng = np.random.default_rng(23)
    cases = []
    for n, dim, k, folds in ((240, 6, 2, 5), (200, 5, 3, 4), (300, 8, 2, 6)):
        y = rng.choice(k, size=n, p=np.linspace(1, 2, k) / np.linspace(1, 2, k).sum())
        signal = rng.normal(size=(k, dim)) * 0.5
        X = (signal[y] + rng.standard_t(2, size=(n, dim))) * rng.uniform(0.01, 30.0, size=dim) + rng.normal(0, 5, size=dim)
        cases.append((f"hidden task {len(cases) + 1} ({n} examples, {dim} features, {k} classes, {folds} folds)",
                      X, y, folds, (0.001, 0.01, 0.1, 1.0)))
    return cases


def _as_accuracy(got, name: str, what: str = "cv_accuracy") -> float:
    if isinstance(got, (list, tuple, np.ndarray)) and np.size(got) > 1:
        raise ExerciseError(f"on {name} {what} returned {np.size(got)} numbers\n"
                            "Hint: return one number" + (": the mean of the fold accuracies" if what == "cv_accuracy"
                                                         else ": the accuracy ×100 on the test part"))
    require(got is not None and got is not Ellipsis, f"on {name} {what} returned {got!r}",
            "return the accuracy ×100, a number")
    try:
        return float(np.asarray(got, dtype=np.float64).item())
    except (TypeError, ValueError):
        raise ExerciseError(f"on {name} {what} returned a {type(got).__name__}, not a number\n"
                            "Hint: return the accuracy ×100") from None


def check_cv_accuracy(cv_accuracy: Callable, X=None, y=None, folds: int = 10, seed: int = 0,
                      Cs=(0.01, 0.1, 1.0)) -> float | None:
    """Check ``cv_accuracy(X, y, folds, seed, Cs) -> accuracy ×100``: SentEval's k-fold protocol
    (:func:`cv_accuracy_truth`, the library's :func:`~sbertlib.evaluation.transfer.cross_val_accuracy`) on
    hidden tasks, then on the notebook's ``(X, y)`` if given (its value is returned). A wrong answer is
    told which slip gives the student's numbers on every hidden task."""
    require(callable(cv_accuracy), f"pass your function itself, not {type(cv_accuracy).__name__}",
            "check_cv_accuracy(cv_accuracy, X, y)")
    cases = _cv_cases()
    seeds = [seed + 7 * i for i in range(len(cases))]  # another seed per hidden task: an answer must follow it
    if X is not None:
        cases.append(("the notebook's task", np.asarray(X, dtype=np.float64), np.asarray(y), folds, tuple(Cs)))
        seeds.append(seed)
    got, want = [], []
    for (name, Xc, yc, k, cs), s in zip(cases, seeds):
        value = call(cv_accuracy, Xc.copy(), yc.copy(), k, s, cs,
                     what=f"cv_accuracy on {name}")
        got.append(_as_accuracy(value, name))
        want.append(cv_accuracy_truth(Xc, yc, k, s, cs))
    wrong = [i for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > 1e-6]
    if wrong:
        hidden = [i for i in range(len(_cv_cases()))]
        if all(abs(got[i] - cv_accuracy_truth(cases[i][1], cases[i][2], cases[i][3], seed, cases[i][4])) <= 1e-6
               for i in hidden):
            i = next(i for i in wrong if seeds[i] != seed)
            raise ExerciseError(f"on {cases[i][0]}, called with seed={seeds[i]}, cv_accuracy gives what seed={seed} "
                                f"gives ({got[i]:.2f}, not {want[i]:.2f})\nHint: the folds and the classifier must "
                                "follow the `seed` argument, not a seed of their own")
        variants = [_cv_variants(cases[i][1], cases[i][2], cases[i][3], seeds[i], cases[i][4]) for i in hidden]
        slip = next((s for s in CV_HINTS if all(abs(got[i] - variants[i][s]) <= 1e-6 for i in hidden)), None)
        hint = CV_HINTS[slip] if slip else ("every fold of the stratified folds that `folds` and `seed` give is "
                                            "held out once and scored by your fit_and_score, trained on the other "
                                            "folds only; the result is the mean of those accuracies (×100)")
        i = wrong[0]
        raise ExerciseError(f"on {cases[i][0]} cv_accuracy gives {got[i]:.2f}, SentEval's protocol "
                            f"{want[i]:.2f}\nHint: {hint}")
    ok(f"cv_accuracy is SentEval's protocol on {len(_cv_cases())} hidden tasks"
       + (f" and on the notebook's ({want[-1]:.2f})" if X is not None else ""))
    return want[-1] if X is not None else None


# ----------------------------------------------------------------------------- one train/test split
def fit_and_score_truth(X_train, y_train, X_test, y_test, Cs=(0.01, 0.1, 1.0), seed: int = 0, dev=None) -> float:
    """SentEval's classifier on one split, as :func:`sbertlib.evaluation.transfer.fit_score` runs it: ``C``
    picked from ``Cs`` on the training part (by inner 3-fold CV, or on ``dev`` = ``(X_dev, y_dev)`` when
    given), features standardised with the training part's statistics, a logistic regression fitted
    there; its accuracy ×100 on the test part."""
    from ...evaluation import transfer
    return transfer.fit_score(np.asarray(X_train, dtype=np.float64), np.asarray(y_train),
                              np.asarray(X_test, dtype=np.float64), np.asarray(y_test), C=tuple(Cs), seed=seed, dev=dev)


def _split_variants(Xtr, ytr, Xte, yte, Cs, seed, dev) -> dict[str, float]:
    """What the usual slips give on one split: each name is the slip, each value its accuracy ×100."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from ...evaluation import transfer

    def score(C, scale_on=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if scale_on is False:
                return 100 * LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(Xtr, ytr).score(Xte, yte)
            scaler = StandardScaler().fit(Xtr if scale_on is None else scale_on)
            clf = LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(scaler.transform(Xtr), ytr)
            return 100 * clf.score(scaler.transform(Xte), yte)

    C = transfer.select_C(Xtr, ytr, Cs, seed=seed, dev=dev)
    out = {"the accuracy as a fraction instead of ×100": score(C) / 100,
           "the scaler fitted on all examples, the test part among them": score(C, scale_on=np.vstack([Xtr, Xte])),
           "the features not standardised before the classifier": score(C, scale_on=False),
           "C chosen by its accuracy on the test part": max(score(c) for c in Cs),
           "C fixed at 1 instead of chosen from Cs": score(1.0),
           "C fixed at the first of Cs instead of chosen": score(Cs[0])}
    if dev is not None:
        out["C chosen by inner CV although the task has a dev split"] = score(transfer.select_C(Xtr, ytr, Cs, seed=seed))
    return out


SPLIT_HINTS = {
    "the accuracy as a fraction instead of ×100": "that is a fraction; give the accuracy ×100, like the table",
    "the scaler fitted on all examples, the test part among them": ("the scaler saw the test part: fit the StandardScaler on the training part only, then "
                      "transform both parts with it"),
    "the features not standardised before the classifier": "standardise the features (a StandardScaler fitted on the training part) before the classifier",
    "C chosen by its accuracy on the test part": ("C was chosen by its accuracy on the test part: that peeks at the test labels; choose it with "
                  "transfer.select_C on the training part (or on dev when given)"),
    "C fixed at 1 instead of chosen from Cs": "C is not fixed: choose it from Cs with transfer.select_C on the training part",
    "C fixed at the first of Cs instead of chosen": "C is not always the first of Cs: choose it with transfer.select_C on the training part",
    "C chosen by inner CV although the task has a dev split": "when a dev split is given, C is chosen on it: pass dev=dev to transfer.select_C",
}


def _split_cases() -> list[tuple[str, tuple, tuple]]:
    """Hidden splits (train, test[, dev]) where each slip above changes the accuracy on at least one."""
    rng = np.random.default_rng(41)
    cases = []
    for n_train, n_test, n_dev, dim, k in ((300, 200, 0, 6, 2), (240, 150, 120, 5, 3), (200, 250, 150, 8, 2)):
        y = rng.choice(k, size=n_train + n_test + n_dev, p=np.linspace(1, 2, k) / np.linspace(1, 2, k).sum())
        signal = rng.normal(size=(k, dim)) * 0.5
        X = (signal[y] + rng.standard_t(2, size=(len(y), dim))) * rng.uniform(0.01, 30.0, size=dim) \
            + rng.normal(0, 5, size=dim)
        X[n_train:n_train + n_test] += rng.normal(0, 3, size=dim)       # the test part drawn a little apart
        parts = np.split(np.arange(len(y)), [n_train, n_train + n_test])
        tr, te, dv = parts
        dev = (X[dv], y[dv]) if n_dev else None
        name = f"hidden split {len(cases) + 1} ({n_train} train, {n_test} test{f', {n_dev} dev' if n_dev else ''})"
        cases.append((name, (X[tr], y[tr], X[te], y[te]), dev))
    return cases


SEED_MOVES_C = 12  # on the first hidden split, seed 12's inner folds choose another C than seed 0's
SEED_MOVES_FOLDS = 1  # on the task without a split, seed 1's folds give another accuracy than seed 0's


def check_fit_and_score(fit_and_score: Callable) -> None:
    """Check ``fit_and_score(X_train, y_train, X_test, y_test, Cs, seed, dev) -> accuracy ×100`` against
    :func:`fit_and_score_truth` on hidden splits, with and without a dev split; a wrong answer is told which
    slip gives the student's accuracies on every split."""
    require(callable(fit_and_score), f"pass your function itself, not {type(fit_and_score).__name__}",
            "check_fit_and_score(fit_and_score)")
    Cs, seed = (0.001, 0.01, 0.1, 1.0), 0
    got, want = [], []
    for name, (Xtr, ytr, Xte, yte), dev in _split_cases():
        value = call(fit_and_score, Xtr.copy(), ytr.copy(), Xte.copy(), yte.copy(), Cs, seed, dev,
                     what=f"fit_and_score on {name}")
        got.append(_as_accuracy(value, name, "fit_and_score"))
        want.append(fit_and_score_truth(Xtr, ytr, Xte, yte, Cs, seed, dev))
    wrong = [i for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > 1e-6]
    if not wrong:  # and with another seed, on a split where it changes the C chosen: the answer must follow it
        name, (Xtr, ytr, Xte, yte), dev = _split_cases()[0]
        other = _as_accuracy(call(fit_and_score, Xtr.copy(), ytr.copy(), Xte.copy(), yte.copy(), Cs, SEED_MOVES_C, dev,
                                  what=f"fit_and_score on {name}, seed={SEED_MOVES_C}"), name, "fit_and_score")
        if abs(other - fit_and_score_truth(Xtr, ytr, Xte, yte, Cs, SEED_MOVES_C, dev)) > 1e-6:
            hint = ("that is what seed=0 gives: choosing C and the classifier must follow the `seed` argument"
                    if abs(other - want[0]) <= 1e-6 else "pass `seed` on to transfer.select_C and the classifier")
            raise ExerciseError(f"on {name} with seed={SEED_MOVES_C} fit_and_score gives {other:.2f}, SentEval's "
                                f"classifier {fit_and_score_truth(Xtr, ytr, Xte, yte, Cs, SEED_MOVES_C, dev):.2f}\n"
                                f"Hint: {hint}")
    if wrong:
        variants = [_split_variants(*parts, Cs, seed, dev) for _, parts, dev in _split_cases()]
        slip = next((s for s in SPLIT_HINTS if all(abs(g - v.get(s, w)) <= 1e-6 for g, v, w in zip(got, variants, want))
                     and any(s in v for v in variants)), None)
        hint = SPLIT_HINTS[slip] if slip else ("the exercise's three steps, each learnt from the training part only "
                                               "(C: on dev when one is given), each following `seed`; then the "
                                               "accuracy ×100 on the test part")
        i = wrong[0]
        raise ExerciseError(f"on {_split_cases()[i][0]} fit_and_score gives {got[i]:.2f}, SentEval's classifier "
                            f"{want[i]:.2f}\nHint: {hint}")
    ok(f"fit_and_score is SentEval's classifier on {len(want)} hidden splits (C chosen on train, or on dev)")


# ----------------------------------------------------------------------------- which protocol for which task
class _SignalEncoder:
    """A frozen stand-in encoder for hidden tasks: text ``"<label>|<id>"`` → a fixed noisy vector around its
    class's centre, so a classifier learns something and the protocols give different accuracies."""

    def __init__(self, dim: int = 6, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.centres, self.dim, self.seed = rng.normal(size=(6, dim)) * 0.7, dim, seed

    def encode(self, texts, batch_size: int = 64, show_progress_bar: bool = False):
        out = []
        for t in texts:
            label, ident = str(t).split("|")
            noise = np.random.default_rng([self.seed, int(ident)]).standard_t(3, size=self.dim)
            out.append(self.centres[int(label)] + noise * np.linspace(0.5, 3.0, self.dim))
        return np.stack(out)


def _protocol_tasks() -> list:
    """A task without a split, one with train/test, one with train/dev/test (SST's) whose dev split moves C."""
    rng = np.random.default_rng(47)
    tasks = []
    for name, sizes, k in (("CV-TASK", {"": 90}, 2), ("TRAIN-TEST", {"train": 120, "test": 80}, 3),
                           ("WITH-DEV", {"train": 100, "dev": 60, "test": 90}, 2)):
        texts, labels, splits, ident = [], [], {}, 0
        for split, n in sizes.items():
            ys = rng.choice(k, size=n).tolist()
            if split:
                splits[split] = range(len(labels), len(labels) + n)
            for y in ys:
                texts.append(f"{y}|{ident}")
                ident += 1
            labels += ys
        tasks.append(SentEvalTask(name, texts, labels, tuple(f"c{i}" for i in range(k)), splits))
    tasks.append(_task_with_dev(40, 10_000))
    return tasks


def _task_with_dev(seed: int, first_id: int) -> SentEvalTask:
    """A train/dev/test task on which training on train and dev together (C then chosen by cross-validation)
    scores otherwise than the protocol (C chosen on dev, trained on train) and than ignoring dev."""
    rng = np.random.default_rng(seed)
    texts, labels, splits, ident = [], [], {}, first_id
    for split, n in (("train", 100), ("dev", 60), ("test", 90)):
        ys = rng.choice(2, size=n).tolist()
        splits[split] = range(len(labels), len(labels) + n)
        texts += [f"{y}|{ident + k}" for k, y in enumerate(ys)]
        ident += n
        labels += ys
    return SentEvalTask("DEV-MOVES-C", texts, labels, ("c0", "c1"), splits)


OTHER_FOLDS = 3  # check_score_task also asks for 3 folds: a number of folds written into the function shows


def _folds_slip(got: float, encoder, task: SentEvalTask, folds: int, seed: int) -> str | None:
    """The hint for a CV score made with another number of folds than ``folds`` (the `folds` argument not passed
    on: cv_accuracy's default, 10, or a number written in), else None."""
    from ...evaluation import transfer
    for other in sorted({10, 5, OTHER_FOLDS} - {folds}):
        if abs(got - transfer.evaluate_task(encoder, task, other, seed)) <= 1e-6:
            return (f"that is {other}-fold CV, asked for with folds={folds}: the `folds` argument was not passed on "
                    "to cv_accuracy" + (" (10 is its default)" if other == 10 else ""))
    return None


def check_score_task(score_task: Callable, folds: int = 5) -> None:
    """Check ``score_task(encoder, task, folds, seed) -> accuracy ×100`` against
    :func:`sbertlib.evaluation.transfer.evaluate_task` on hidden tasks (no split; train/test; train/dev/test)
    with a stand-in encoder: k-fold CV without a split, else train → test with C chosen on dev where there is one."""
    from dataclasses import replace

    from ...evaluation import transfer
    require(callable(score_task), f"pass your function itself, not {type(score_task).__name__}",
            "check_score_task(score_task)")
    encoder = _SignalEncoder()
    for task in _protocol_tasks():
        got = call(score_task, encoder, task, folds, 0,
                   what=f"score_task on {task.name}")
        got = _as_accuracy(got, f"task {task.name}", "score_task")
        want = transfer.evaluate_task(encoder, task, folds, 0)
        if abs(got - want) <= 1e-6:
            continue
        hint = ("no split: stratified k-fold CV (your cv_accuracy on the task's features); a split: your fit_and_score "
                "trained on train, scored on test, C chosen on dev where the task has one")
        if task.splits:
            flat = replace(task, splits={})
            parts = transfer.split_features(encoder, task)
            if abs(got - transfer.evaluate_task(encoder, flat, folds, 0)) <= 1e-6:
                hint = ("that is k-fold CV over every example of every split: a task with a split is trained on "
                        "train and scored on test")
            elif "dev" in parts and abs(got - transfer.fit_score(*parts["train"], *parts["test"])) <= 1e-6:
                hint = "this task has a dev split: choose C on it: pass its features and labels to fit_and_score as dev"
            elif "dev" in parts and abs(got - transfer.fit_score(
                    np.vstack([parts["train"][0], parts["dev"][0]]), np.concatenate([parts["train"][1], parts["dev"][1]]),
                    *parts["test"])) <= 1e-6:
                hint = ("you trained on train and dev together (C then chosen by cross-validation): the dev split is "
                        "only for choosing C — pass it to fit_and_score as dev and train on the train split alone")
            elif abs(got - transfer.fit_score(*parts["test"], *parts["train"], dev=parts.get("dev"))) <= 1e-6:
                hint = "train and test are swapped: train on the train split, score on the test split"
            elif "dev" in parts and any(abs(got - transfer.fit_score(*parts["train"], *parts["dev"], dev=d)) <= 1e-6
                                        for d in (parts["dev"], None)):
                hint = (f"that is the accuracy on the dev split ({len(parts['dev'][1])} examples): dev only chooses C; "
                        f"the score is the one on the test split ({len(parts['test'][1])} examples), which nothing "
                        "was chosen on")
        elif abs(got - want / 100) <= 1e-6:
            hint = "give the accuracy ×100"
        else:
            hint = _folds_slip(got, encoder, task, folds, 0) or hint
        raise ExerciseError(f"score_task on {task.name} ({'splits ' + ', '.join(task.splits) if task.splits else 'no split'}) "
                            f"gives {got:.2f}, SentEval's protocol {want:.2f}\nHint: {hint}")
    cv_task = _protocol_tasks()[0]  # and with another number of folds, another seed: the folds must follow them
    got = _as_accuracy(call(score_task, encoder, cv_task, OTHER_FOLDS, 0,
                            what=f"score_task on {cv_task.name}, folds={OTHER_FOLDS}"), cv_task.name, "score_task")
    want = transfer.evaluate_task(encoder, cv_task, OTHER_FOLDS, 0)
    if abs(got - want) > 1e-6:
        raise ExerciseError(f"score_task on {cv_task.name} with folds={OTHER_FOLDS} gives {got:.2f}, SentEval's protocol "
                            f"{want:.2f}\nHint: " + (_folds_slip(got, encoder, cv_task, OTHER_FOLDS, 0) or
                                                     "a task without a split is scored by k-fold CV with k = `folds`"))
    got = _as_accuracy(call(score_task, encoder, cv_task, folds, SEED_MOVES_FOLDS,
                            what=f"score_task on {cv_task.name}, seed={SEED_MOVES_FOLDS}"), cv_task.name, "score_task")
    want = transfer.evaluate_task(encoder, cv_task, folds, SEED_MOVES_FOLDS)
    if abs(got - want) > 1e-6:
        same = abs(got - transfer.evaluate_task(encoder, cv_task, folds, 0)) <= 1e-6
        raise ExerciseError(f"score_task on {cv_task.name} with seed={SEED_MOVES_FOLDS} gives {got:.2f}, SentEval's "
                            f"protocol {want:.2f}\nHint: " + ("that is what seed=0 gives: the folds must follow the "
                                                              "`seed` argument" if same else
                                                              "pass `seed` on to the folds and the classifier"))
    ok("score_task picks SentEval's protocol for each kind of task (k-fold CV; train → test; C on dev)")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('majority_baseline', probe="_result = {name: majority_baseline(task) for name, task in tasks.items()}"),
    Exercise('standardise', probe="""
            _rng = _np.random.default_rng(2029)
            _result = standardise(_rng.normal(2.0, 3.0, size=(12, 4)), _rng.normal(size=(5, 4)))
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "08.1": choice(
        "In SentEval, what is trained?",
        "A logistic regression on the frozen vectors",
        {"The encoder, fine-tuned on each task":
            "SentEval measures what the vectors already carry: the encoder stays fixed.",
         "Nothing: cosine to each class's centroid":
            "Something is trained, on the vectors."}),
    "08.2": choice(
        "Averaged BERT loses to averaged GloVe in Table 1 but wins in Table 5. The paper's explanation?",
        "A classifier can weight dimensions; cosine cannot",
        {"Table 5 uses a larger BERT than Table 1 does":
            "The same averaged BERT vectors go into both tables.",
         "SentEval's tasks are easier than STS for any model":
            "Easier for GloVe too. What differs in how the vectors are used?",
         "GloVe was trained on less text than BERT":
            "That holds in both tables. What differs in how the vectors are used?"}),
    "08.3": choice(
        "Why must the majority label come from the train split?",
        "Taking it from test labels would peek at the answers",
        {"The test split is too small to count labels reliably":
            "Size is not the point. What may a baseline know about the test labels?",
         "The train split is always balanced between the labels":
            "It need not be. What may a baseline know about the test labels?"}),
    "08.4": choice(
        "How does the paper explain SBERT-NLI-base trailing USE on TREC?",
        "USE was pre-trained on question-answering data",
        {"Similarity training discards question words":
            "The paper claims no such thing; an experiment (probing the vectors for wh-words) would be needed.",
         "TREC is too small to train a classifier on":
            "All rows train on the same TREC data.",
         "SBERT cannot encode questions well":
            "It encodes any sentence. What did USE see in pre-training?"}),
    "08.5": choice(
        "Why is 'the trained network against its own starting point, same subsets and folds' the fair comparison?",
        "Only the training differs between the two",
        {"Our network is better than the paper's":
            "It is not; that is why we do not compare levels with the paper.",
         "Fixed folds make each accuracy exact":
            "Subsets of 500 examples move accuracies by a point or two; what does keeping them fixed buy?"}),
    "08.6": choice(
        "MRPC's pair features are (|u−v|, u*v). How do they relate to SBERT's classification objective?",
        "The same idea as its (u, v, |u−v|), without raw u and v",
        {"They are exactly the features SBERT's classifier reads":
            "Compare the tuples item by item.",
         "Unrelated: SBERT's classifier reads a cosine":
            "The classification objective never computes a cosine: what does its classifier read?"}),
    "08.7a": choice(
        "Why must the standardising statistics come from training sentences, not the test pairs being scored?",
        "Test data would shape the model: a leak",
        {"Test pairs are too few to estimate a mean":
            "Even with many test pairs, should the test data set the model's parameters?",
         "Training sentences give larger deviations":
            "Size of the numbers is not the point. Who may the evaluation data influence?"}),
    "08.7b": choice(
        "Why can standardising change a cosine's Spearman at all?",
        "It re-weights the dimensions inside the cosine",
        {"It cannot: Spearman ignores any change of scale":
            "Scaling every dimension by its own factor is not one global scale: does it keep the angles?",
         "It changes the gold scores as well as the vectors":
            "The gold scores are untouched. What happens to the vectors?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
