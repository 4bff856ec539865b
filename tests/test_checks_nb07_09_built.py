"""The build-it exercises of 07 (train_and_score, run_ablation), 08 (fit_and_score, cv_accuracy) and 09
(cosine_by_label, pca, chance): each check passes a right answer, says when the stub is not done, rejects
the usual wrong answers with the hint that names them, and refuses what is not a function; the plumbing
moved to sbertlib.workbook.figures draws and tabulates what the notebooks computed."""
from __future__ import annotations

import copy
import math

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from sbertlib.evaluation import ablation, transfer
from sbertlib.workbook.lessons import ExerciseError, nb07, nb08, nb09

matplotlib.use("Agg")


def stub(*args, **kwargs):
    raise NotImplementedError


# ============================================================================= 07: run_ablation
def good_run_ablation(configs, seeds, train_and_score):
    rows = {}
    for config in configs:
        scores = pd.Series([train_and_score(config, seed) for seed in seeds], index=seeds, dtype=float)
        rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": len(scores),
                              "mean": scores.mean(), "std": scores.std(ddof=1)}
    return pd.DataFrame.from_dict(rows, orient="index")


def _with(**change):
    def run(configs, seeds, train_and_score):
        table = good_run_ablation(configs, seeds, train_and_score)
        for column, fn in change.items():
            table[column] = fn(table, configs, seeds, train_and_score)
        return table
    return run


def test_run_ablation_right(capsys):
    nb07.check_run_ablation(good_run_ablation)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (_with(std=lambda t, c, s, f: [np.std([nb07._fake_scores(x, y) for y in s]) for x in c]), "population std"),
    (_with(std=lambda t, c, s, f: t["std"].fillna(0.0)), "NaN"),
    (_with(concat=lambda t, c, s, f: [str(x.concat) for x in c]), "concat_label"),
    (_with(mean=lambda t, c, s, f: t["mean"] + 1), "average of one configuration"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds[:1], f), "once for every configuration"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds, f).drop(columns="n_seeds"), "no column"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds, f).reset_index(drop=True), "indexed by config.label"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds, f).to_dict(), "DataFrame"),
    (stub, "not written yet"),
])
def test_run_ablation_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_run_ablation(wrong)


def test_run_ablation_truth_is_run_grids_summary():
    configs, seeds = ablation.table6_configs()[:4], (3, 1)
    truth = nb07.run_ablation_truth(configs, seeds, nb07._fake_scores)
    assert list(truth.index) == [c.label for c in configs]
    assert truth["std"].iloc[0] == pytest.approx(np.std([nb07._fake_scores(configs[0], s) for s in seeds], ddof=1))
    assert math.isnan(nb07.run_ablation_truth(configs, (1,), nb07._fake_scores)["std"].iloc[0])


def test_run_ablation_and_train_and_score_refuse_non_functions():
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb07.check_run_ablation(3)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb07.check_train_and_score(None, None, None, [], [])


# ============================================================================= 07: train_and_score
@pytest.fixture(scope="module")
def grid_world(shared_data):
    from sbertlib import data, evaluation
    from sbertlib.model.encoder import SentenceEncoder
    start = SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)
    return (start, evaluation.STSEvaluator(split="dev", max_pairs=80), data.load_snli("dev")[:48],
            data.load_stsb("train")[:48])


def make_train_and_score(start, evaluator, fresh=True, set_pooling=True, seed_first=True, use_concat=True,
                         train=True, use_epochs=True):
    from sbertlib.losses import CosineSimilarityLoss, SoftmaxLoss
    from sbertlib.training import prepare_examples, seed_everything
    from sbertlib.workbook.lessons.nb03 import fit_loop

    def train_and_score(config, seed, pairs, objective, batch_size, lr, epochs=1):
        encoder = copy.deepcopy(start) if fresh else start
        if set_pooling:
            encoder.pooling = config.pooling
        if seed_first:
            seed_everything(seed)
        concat = config.concat if use_concat else ablation.AblationConfig().concat
        loss = (SoftmaxLoss(encoder, num_labels=3, concat=concat) if objective == "classification"
                else CosineSimilarityLoss(encoder))
        if not seed_first:
            seed_everything(seed)
        if train:
            fit_loop(loss, prepare_examples(pairs, loss), epochs=epochs if use_epochs else 1, batch_size=batch_size,
                     lr=lr, seed=seed)
        return evaluator(encoder)
    return train_and_score


def test_train_and_score_right(grid_world, capsys):
    start, evaluator, nli, stsb = grid_world
    nb07.check_train_and_score(make_train_and_score(start, evaluator), start, evaluator, nli, stsb)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("mistake, hint", [
    (dict(set_pooling=False), "set the copy's pooling"),
    (dict(use_concat=False), "concat=config.concat"),
    (dict(train=False), "untrained network's score"),
    (dict(fresh=False), "changed the weights of `start`"),
    (dict(use_epochs=False), "the score of one epoch: pass `epochs`"),  # issue 29: passed before
])
def test_train_and_score_wrong(grid_world, mistake, hint):
    start, evaluator, nli, stsb = grid_world
    start = copy.deepcopy(start)  # a wrong answer may train it
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_train_and_score(make_train_and_score(start, evaluator, **mistake), start, evaluator, nli, stsb)


def test_train_and_score_stub_is_not_done(grid_world):
    start, evaluator, nli, stsb = grid_world
    with pytest.raises(ExerciseError, match="not written yet"):
        nb07.check_train_and_score(stub, start, evaluator, nli, stsb)


# ============================================================================= 08: fit_and_score, cv_accuracy
def good_fit_and_score(X_train, y_train, X_test, y_test, Cs=transfer.DEFAULT_CS, seed=0, dev=None):
    C = transfer.select_C(X_train, y_train, Cs, seed=seed, dev=dev)
    scaler = StandardScaler().fit(X_train)
    clf = LogisticRegression(C=C, max_iter=2000, random_state=seed).fit(scaler.transform(X_train), y_train)
    return 100 * clf.score(scaler.transform(X_test), y_test)


def split_slip(slip):
    def fit_and_score(X_train, y_train, X_test, y_test, Cs=transfer.DEFAULT_CS, seed=0, dev=None):
        if slip == "own seed":
            seed = 0
        C = transfer.select_C(X_train, y_train, Cs, seed=seed, dev=None if slip == "dev ignored" else dev)
        C = {"C = 1": 1.0, "first C": Cs[0]}.get(slip, C)
        scale_on = np.vstack([X_train, X_test]) if slip == "scaler on all" else X_train
        scaler = StandardScaler().fit(scale_on)

        def score(c):
            clf = LogisticRegression(C=c, max_iter=2000, random_state=seed)
            if slip == "no scaler":
                return clf.fit(X_train, y_train).score(X_test, y_test)
            return clf.fit(scaler.transform(X_train), y_train).score(scaler.transform(X_test), y_test)
        accuracy = max(score(c) for c in Cs) if slip == "C on test" else score(C)
        return accuracy if slip == "fraction" else 100 * accuracy
    return fit_and_score


def test_fit_and_score_right(capsys):
    nb08.check_fit_and_score(good_fit_and_score)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("slip, hint", [
    ("fraction", "a fraction"), ("scaler on all", "the scaler saw the test part"), ("no scaler", "standardise"),
    ("C on test", "peeks at the test labels"), ("C = 1", "C is not fixed"), ("first C", "not always the first"),
    ("dev ignored", "dev=dev"),
    ("own seed", "must follow the `seed` argument"),  # the student trial: passed (every call used seed 0)
])
def test_fit_and_score_wrong(slip, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_fit_and_score(split_slip(slip))


def good_cv_accuracy(X, y, folds=10, seed=0, Cs=transfer.DEFAULT_CS):
    X, y = np.asarray(X), np.asarray(y)
    return float(np.mean([good_fit_and_score(X[tr], y[tr], X[te], y[te], Cs, seed)
                          for tr, te in transfer.kfold_indices(y, folds, seed)]))


def cv_slip(slip):
    from sklearn.model_selection import KFold

    def cv_accuracy(X, y, folds=10, seed=0, Cs=transfer.DEFAULT_CS):
        X, y = np.asarray(X), np.asarray(y)
        if slip == "own seed":
            seed = 0
        splits = (list(KFold(folds, shuffle=True, random_state=seed).split(X)) if slip == "unstratified"
                  else transfer.kfold_indices(y, folds, seed))
        if slip == "C once on all":
            once = transfer.select_C(X, y, Cs, seed=seed)
            return float(np.mean([good_fit_and_score(X[tr], y[tr], X[te], y[te], (once,), seed) for tr, te in splits]))
        if slip == "per fold":
            return [good_fit_and_score(X[tr], y[tr], X[te], y[te], Cs, seed) for tr, te in splits]
        if slip == "swapped":
            return float(np.mean([good_fit_and_score(X[te], y[te], X[tr], y[tr], Cs, seed) for tr, te in splits]))
        if slip == "last fold skipped":
            splits = splits[:-1]
        if slip == "own Cs":
            Cs = transfer.DEFAULT_CS
        if slip == "own folds":
            splits = transfer.kfold_indices(y, 10, seed)
        accuracy = float(np.mean([good_fit_and_score(X[tr], y[tr], X[te], y[te], Cs, seed) for tr, te in splits]))
        return accuracy / 100 if slip == "fraction" else accuracy
    return cv_accuracy


def test_cv_accuracy_right_and_equals_the_library(capsys):
    X, y = nb08._cv_cases()[0][1:3]
    value = nb08.check_cv_accuracy(good_cv_accuracy, X, y, folds=5)
    assert value == pytest.approx(transfer.cross_val_accuracy(X, y, 5, 0, C=transfer.DEFAULT_CS))
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("slip, hint", [
    ("fraction", "a fraction"), ("C once on all", "chosen once, on all examples"),
    ("unstratified", "not stratified"), ("per fold", "return one number"),
    ("own seed", "must follow the `seed` argument"),  # issue 29: passed before (every call used seed 0)
    # the student trial: rejected, but with the general recipe hint
    ("swapped", "train and test are swapped"), ("last fold skipped", "one fold is missing"),
    ("own Cs", "chosen from the Cs you are given"), ("own folds", "the `folds` argument"),
])
def test_cv_accuracy_wrong(slip, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_cv_accuracy(cv_slip(slip))


@pytest.mark.parametrize("check", [nb08.check_fit_and_score, nb08.check_cv_accuracy])
def test_08_stubs_and_non_functions(check):
    with pytest.raises(ExerciseError, match="not written yet"):
        check(stub)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        check("cv")


# ============================================================================= 09: cosine_by_label, pca, chance
def good_cosine_by_label(premise, hypothesis, gold, labels):
    p = premise / np.linalg.norm(premise, axis=1, keepdims=True)
    h = hypothesis / np.linalg.norm(hypothesis, axis=1, keepdims=True)
    cos, gold = np.sum(p * h, axis=1), np.asarray(gold)
    return {label: float(cos[gold == label].mean()) for label in labels}


def test_cosine_by_label_right(capsys):
    nb09.check_cosine_by_label(good_cosine_by_label)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda p, h, g, labels: {lab: float(np.sum(p * h, axis=1)[np.asarray(g) == lab].mean()) for lab in labels},
     "dot product"),
    (lambda p, h, g, labels: {lab: float((nb09._unit(p)[np.asarray(g) == lab] @ nb09._unit(h)[np.asarray(g) == lab].T)
                                         .mean()) for lab in labels}, "row i with row i"),
    (lambda p, h, g, labels: {lab: float(np.sum(nb09._unit(p) * nb09._unit(h), axis=1).mean()) for lab in labels},
     "only over the pairs"),
    (lambda p, h, g, labels: [0.1, 0.2, 0.3], "return a dict"),
    (stub, "not done yet"),
])
def test_cosine_by_label_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_cosine_by_label(wrong)


def good_pca(emb, k=2):
    x = np.asarray(emb, dtype=np.float64)
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T, (s ** 2 / np.sum(s ** 2))[:k]


def _svd(emb, centre=True):
    x = np.asarray(emb, dtype=np.float64)
    x = x - x.mean(axis=0) if centre else x
    return (x, *np.linalg.svd(x, full_matrices=False))


def test_pca_right_either_sign(capsys):
    x = np.random.default_rng(0).normal(size=(20, 5))
    nb09.check_pca(good_pca, x)
    nb09.check_pca(lambda e, k=2: (-good_pca(e, k)[0], good_pca(e, k)[1]))
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda e, k=2: (lambda x, u, s, vt: (x @ vt[:k].T, (s ** 2 / np.sum(s ** 2))[:k]))(*_svd(e, False)), "centre"),
    (lambda e, k=2: (lambda x, u, s, vt: (u[:, :k], (s ** 2 / np.sum(s ** 2))[:k]))(*_svd(e)), "unit length"),
    (lambda e, k=2: (lambda x, u, s, vt: (x @ vt[:, :k], (s ** 2 / np.sum(s ** 2))[:k]))(*_svd(e)), "rows, not its columns"),
    (lambda e, k=2: (good_pca(e, k)[0], (lambda x, u, s, vt: (s / s.sum())[:k])(*_svd(e))), "square"),
    (lambda e, k=2: (good_pca(e, k)[0], (lambda x, u, s, vt: s[:k] ** 2 / np.sum(s[:k] ** 2))(*_svd(e))), "all"),
    (lambda e, k=2: good_pca((np.asarray(e) - np.mean(e, 0)) / np.std(e, 0), k), "centres only"),
    (lambda e, k=2: good_pca(e, k)[0], "pair"),
    (stub, "not written yet"),
])
def test_pca_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_pca(wrong)


def good_chance(labels):
    shares = np.unique(labels, return_counts=True)[1] / len(labels)
    return float((shares ** 2).sum())


def test_chance_right_with_or_without_replacement(capsys):
    nb09.check_chance(good_chance)
    assert "Σ share² — a random neighbour drawn with replacement" in capsys.readouterr().out
    nb09.check_chance(nb09._chance_other)  # issue 29: its OK named the other formula
    out = capsys.readouterr().out
    assert "Σ n_c(n_c − 1) / (n(n − 1)) — a random *other* sentence" in out and "[OK] chance is right: Σ share²" not in out


def test_chance_mixing_the_two_formulas_is_refused():
    calls = []

    def mixed(labels):
        calls.append(1)
        return good_chance(labels) if len(calls) == 1 else nb09._chance_other(labels)
    with pytest.raises(ExerciseError, match="one formula on some labellings and the other"):
        nb09.check_chance(mixed)


def test_chance_fallback_hint_does_not_give_the_formula():
    with pytest.raises(ExerciseError) as err:
        nb09.check_chance(lambda labels: 0.123)
    assert "share²" not in str(err.value) and "sum share" not in str(err.value)


@pytest.mark.parametrize("wrong, hint", [
    (lambda labels: 1 / len(set(labels)), "equal classes"),
    (lambda labels: max(np.unique(labels, return_counts=True)[1]) / len(labels), "majority class"),
    (lambda labels: 100 * good_chance(labels), "not a percentage"),
    (lambda labels: 1.0, "square each share"),
    (stub, "not done yet"),
])
def test_chance_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb09.check_chance(wrong)


@pytest.mark.parametrize("check", [nb09.check_pca, nb09.check_chance, nb09.check_cosine_by_label])
def test_09_non_functions_refused(check):
    with pytest.raises(ExerciseError, match="pass your function itself"):
        check(42)


# ============================================================================= the moved plumbing
def test_figures_draw_and_tabulate():
    from sbertlib.workbook import figures
    rng = np.random.default_rng(1)
    emb = {"before": rng.normal(size=(12, 4)), "after": rng.normal(size=(12, 4))}
    labels = ["a", "b", "c"] * 4
    titles = {"before": "before", "after": "after"}
    fig = figures.projection_panels(emb, labels, titles, "pca", project=lambda x: good_pca(x)[0])
    assert len(fig.axes) == 2
    fig = figures.heatmap_panels([f"s{i}" for i in range(3)], {k: np.eye(3) for k in emb}, titles, "sims")
    assert len(fig.axes) >= 2
    gold = np.array(["entailment", "neutral", "contradiction"] * 4)
    _, table = figures.nli_cosine_panels({k: rng.uniform(-1, 1, 12) for k in emb}, gold, titles, "nli")
    assert list(table.columns)[-1] == "entailment − contradiction"
    scores = figures.label_scores({"set": ("part", labels)}, {k: {"part": v} for k, v in emb.items()},
                                  {"1-NN label agreement": nb09.nn_agreement_truth}, good_chance)
    assert scores.loc[("set", "after"), "chance agreement"] == pytest.approx(1 / 3)
    assert "1-NN agreement before" in figures.agreement_verdicts(scores, {"set": 12})[0]
    import matplotlib.pyplot as plt
    plt.close("all")


def test_table6_figures():
    from sbertlib.evaluation import reports
    from sbertlib.workbook import figures
    configs = ablation.table6_configs()
    overview = figures.table6_overview(configs)
    assert len(overview) == 9 and overview.loc[1, "paper: NLI (classification)"] == 80.78
    nli = nb07.run_ablation_truth(configs, (1, 2), nb07._fake_scores)
    reg = nb07.run_ablation_truth(ablation.pooling_configs(), (1, 2), nb07._fake_scores)
    pooling = ablation.pooling_table(nli, reg, "test")
    _, concat = reports.table6(nli, "test")
    assert len(figures.table6_bars(pooling, concat, "test").axes) == 2
    lines = figures.grid_findings(nli, reg, {"mean": 10.0, "max": 90.0, "cls": 50.0})
    assert lines[0].startswith("NLI : 9 configurations") and "rank agreement" in lines[-2]
    import matplotlib.pyplot as plt
    plt.close("all")


# ============================================================================= 08: score_task
def make_score_task(use_dev=True, split_as_cv=False, swapped=False, dev_merged=False, own_seed=False,
                    own_folds=None, on_dev=None):
    from dataclasses import replace

    def score_task(encoder, task, folds=10, seed=0):
        if own_seed:
            seed = 0
        if not task.splits or split_as_cv:
            flat = replace(task, splits={})
            if own_folds == "default":   # folds not passed on: cv_accuracy's default, 10
                return good_cv_accuracy(transfer.embed_task(encoder, flat), flat.labels, seed=seed)
            return good_cv_accuracy(transfer.embed_task(encoder, flat), flat.labels, own_folds or folds, seed)
        parts = transfer.split_features(encoder, task)
        if on_dev and "dev" in parts:    # scored on dev (C chosen there too, or by inner CV)
            return good_fit_and_score(*parts["train"], *parts["dev"], seed=seed,
                                      dev=parts["dev"] if on_dev == "C on dev" else None)
        if dev_merged and "dev" in parts:
            merged = (np.vstack([parts["train"][0], parts["dev"][0]]), np.concatenate([parts["train"][1], parts["dev"][1]]))
            return good_fit_and_score(*merged, *parts["test"], seed=seed)
        train, test = (parts["test"], parts["train"]) if swapped else (parts["train"], parts["test"])
        return good_fit_and_score(*train, *test, seed=seed, dev=parts.get("dev") if use_dev else None)
    return score_task


def test_score_task_right(capsys):
    nb08.check_score_task(make_score_task())
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("mistake, hint", [
    (dict(use_dev=False), "dev split"), (dict(split_as_cv=True), "every example of every split"),
    (dict(swapped=True), "swapped"),
    (dict(dev_merged=True), "train and dev together"),  # issue 29: passed before
    (dict(own_seed=True), "must follow the `seed` argument"),  # the student trial: passed
])
def test_score_task_wrong(mistake, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_score_task(make_score_task(**mistake))


@pytest.mark.parametrize("mistake, says", [
    (dict(own_folds="default"), "that is 10-fold CV, asked for with folds=5: the `folds` argument was not passed on "
                                "to cv_accuracy (10 is its default)"),
    (dict(own_folds=5), "score_task on CV-TASK with folds=3 gives"),           # the check's 5, written in
    (dict(on_dev="C on dev"), "that is the accuracy on the dev split (60 examples): dev only chooses C"),
    (dict(on_dev="C by inner CV"), "that is the accuracy on the dev split (60 examples): dev only chooses C"),
])
def test_score_task_folds_ignored_and_scored_on_dev_are_named(mistake, says):
    """Issue 29: these two got the generic hint (the whole recipe) before."""
    with pytest.raises(ExerciseError) as err:
        nb08.check_score_task(make_score_task(**mistake))
    message = str(err.value)
    assert says in message
    assert "no split: stratified k-fold CV" not in message   # not the generic recipe
    if mistake.get("own_folds") == 5:
        assert "that is 5-fold CV, asked for with folds=3: the `folds` argument was not passed on" in message


def test_score_task_stub_and_non_function():
    with pytest.raises(ExerciseError, match="not written yet"):
        nb08.check_score_task(stub)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb08.check_score_task(None)


def test_split_features_keeps_each_split_and_refuses_a_cv_task():
    enc = nb08._SignalEncoder()
    cv_task, split_task, dev_task = nb08._protocol_tasks()[:3]
    parts = transfer.split_features(enc, dev_task)
    assert set(parts) == {"train", "dev", "test"} and len(parts["dev"][1]) == 60
    assert np.allclose(parts["test"][0], enc.encode(dev_task.split("test")[0]))
    with pytest.raises(ValueError, match="no splits"):
        transfer.split_features(enc, cv_task)


@pytest.mark.parametrize("check, wrong", [
    (nb08.check_fit_and_score, lambda X_train, y_train, X_test, y_test, Cs=(1.0,), seed=0, dev=None: 42.0),
    (nb08.check_cv_accuracy, lambda X, y, folds=10, seed=0, Cs=(1.0,): 42.0),
])
def test_nb08_generic_hints_hold_no_code_that_passes(check, wrong):
    """Issue 29: the fallback hint spelt out select_C(...), LogisticRegression(C=C, max_iter=2000, random_state=seed)
    and kfold_indices(y, folds, seed) — pasted, they were the answer."""
    with pytest.raises(ExerciseError) as err:
        check(wrong)
    message = str(err.value)
    for code in ("select_C(", "LogisticRegression(", "max_iter=", "random_state=", "kfold_indices(", "StandardScaler("):
        assert code not in message
