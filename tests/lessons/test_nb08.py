"""The checks of notebook 08 (transfer with senteval): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb08)."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch
from collections import Counter
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

matplotlib.use("Agg")

from sbertlib.evaluation import transfer  # noqa: E402
from sbertlib.workbook.lessons import ExerciseError, nb08  # noqa: E402
from lesson_helpers import not_done


def good_majority(task):
    if task.splits:
        train, test = task.split("train")[1], task.split("test")[1]
        top = Counter(train).most_common(1)[0][0]
        return 100.0 * sum(y == top for y in test) / len(test)
    return 100.0 * Counter(task.labels).most_common(1)[0][1] / len(task.labels)


def test_nb08_right_answer_passes(capsys, shared_data):
    nb08.check_majority_baseline(good_majority)
    from sbertlib.evaluation import transfer as senteval
    tasks = senteval.load_tasks(["MR", "TREC"], data_dir=shared_data, max_examples=60)
    nb08.check_majority_baseline(good_majority, tasks)
    assert capsys.readouterr().out.count("[OK]") == 2


def _test_majority(task):  # majority of the test split: peeking
    labels = task.split("test")[1] if task.splits else task.labels
    return 100.0 * Counter(labels).most_common(1)[0][1] / len(labels)


def _all_labels_majority(task):  # majority over every split
    top = Counter(task.labels).most_common(1)[0][0]
    test = task.split("test")[1] if task.splits else task.labels
    return 100.0 * sum(y == top for y in test) / len(test)


@pytest.mark.parametrize("wrong, hint", [
    (lambda task: good_majority(task) / 100, "fraction"),
    (_test_majority, "test"),
    (_all_labels_majority, "every split"),
    (lambda task: 50.0, None),
    (lambda task: None, None),
    (lambda task: "majority", None),
])
def test_nb08_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_majority_baseline(wrong)


def good_standardise(reference, vectors, ddof=0):
    reference, vectors = np.asarray(reference, dtype=np.float64), np.asarray(vectors, dtype=np.float64)
    std = reference.std(axis=0, ddof=ddof)
    return (vectors - reference.mean(axis=0)) / np.where(std > 0, std, 1.0)


def test_nb08_standardise_right(capsys):
    nb08.check_standardise(good_standardise)
    nb08.check_standardise(lambda r, x: good_standardise(r, x, ddof=1))                 # either ddof
    nb08.check_standardise(lambda r, x: torch.from_numpy(good_standardise(r, x)))      # a tensor is fine
    assert capsys.readouterr().out.count("[OK]") == 3


def test_nb08_standardise_truth_centres_and_scales_with_the_reference():
    ref = np.array([[0.0, 10.0], [2.0, 30.0]])
    assert np.allclose(nb08.standardise_truth(ref, np.array([[1.0, 20.0], [3.0, 40.0]])), [[0, 0], [2, 2]])


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, x: (x - x.mean(axis=0)) / x.std(axis=0), "vectors"),          # statistics of the scored vectors
    (lambda r, x: x / r.std(axis=0), "subtract"),                             # not centred
    (lambda r, x: (x - r.mean(axis=0)) / r.var(axis=0), "variance"),
    (lambda r, x: (x - r.mean()) / r.std(), "per dimension"),                 # one number for all dimensions
    (lambda r, x: x - r.mean(axis=0), "scale"),
    (lambda r, x: good_standardise(r, x).mean(axis=0), "shape"),
    (lambda r, x: None, None),
    # issue 29: these passed before
    (lambda r, x: (x - r.mean(axis=0)) / r.std(axis=0), "no spread"),                 # divides by zero: nan, inf
    (lambda r, x: (x - r.mean(axis=0)) / np.clip(r.std(axis=0), 1e-12, None), "no spread"),  # huge, not centred
    (lambda r, x: (x - r.mean(axis=0)) / np.where(r.std(axis=0) > 0, r.std(axis=0), 1.0), "float64"),  # float32 kept
])
def test_nb08_standardise_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_standardise(wrong)


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


SLOW = pytest.mark.slow  # each wrong cv_accuracy runs the check's cross-validations (~9 s): three stay in the default run


@pytest.mark.parametrize("slip, hint", [
    ("fraction", "a fraction"), pytest.param("C once on all", "chosen once, on all examples", marks=SLOW),
    pytest.param("unstratified", "not stratified", marks=SLOW), ("per fold", "return one number"),
    ("own seed", "must follow the `seed` argument"),  # issue 29: passed before (every call used seed 0)
    # the student trial: rejected, but with the general recipe hint
    pytest.param("swapped", "train and test are swapped", marks=SLOW),
    pytest.param("last fold skipped", "one fold is missing", marks=SLOW),
    pytest.param("own Cs", "chosen from the Cs you are given", marks=SLOW),
    pytest.param("own folds", "the `folds` argument", marks=SLOW),
])
def test_cv_accuracy_wrong(slip, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb08.check_cv_accuracy(cv_slip(slip))


@pytest.mark.parametrize("check", [nb08.check_fit_and_score, nb08.check_cv_accuracy])
def test_08_stubs_and_non_functions(check):
    with pytest.raises(ExerciseError, match="not written yet"):
        check(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        check("cv")


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
        nb08.check_score_task(not_done)
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
