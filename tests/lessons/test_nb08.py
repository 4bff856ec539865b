"""The checks of notebook 08 (transfer with SentEval), beyond what their declarations say (test_declared.py runs every
declared slip): right answers written another way pass, the checks read the notebook's own data, a changed input is
named, and no message holds the hidden expected value or code that passes."""
from __future__ import annotations

from collections import Counter
import numpy as np
import pytest
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sbertlib.evaluation import transfer
from sbertlib.workbook.lessons import ExerciseError, nb08
from lesson_helpers import not_done


def majority_baseline(task):
    if task.splits:
        train, test = task.split("train")[1], task.split("test")[1]
        top = Counter(train).most_common(1)[0][0]
        return 100 * sum(y == top for y in test) / len(test)
    return 100 * Counter(task.labels).most_common(1)[0][1] / len(task.labels)


def fit_and_score(X_train, y_train, X_test, y_test, Cs=transfer.DEFAULT_CS, seed=0, dev=None):
    C = transfer.select_C(X_train, y_train, Cs, seed=seed, dev=dev)
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=2000, random_state=seed))
    return torch.tensor(100 * clf.fit(X_train, y_train).score(X_test, y_test))     # a 0-d tensor is one number too


def cv_accuracy(X, y, folds=10, seed=0, Cs=transfer.DEFAULT_CS):
    X, y = np.asarray(X), np.asarray(y)
    return np.mean([fit_and_score(X[tr], y[tr], X[te], y[te], Cs, seed) for tr, te in transfer.kfold_indices(y, folds, seed)])


def score_task(encoder, task, folds=10, seed=0):
    if not task.splits:
        return cv_accuracy(transfer.embed_task(encoder, task), task.labels, folds, seed)
    parts = transfer.split_features(encoder, task)
    return fit_and_score(*parts["train"], *parts["test"], seed=seed, dev=parts.get("dev"))


def standardise(reference, vectors, ddof=0):
    reference, vectors = np.asarray(reference, dtype=np.float64), np.asarray(vectors, dtype=np.float64)
    std = reference.std(axis=0, ddof=ddof)
    return (vectors - reference.mean(axis=0)) / np.where(std > 0, std, 1.0)


def standardise_in_torch(reference, vectors):
    std = reference.std(dim=0, unbiased=False)
    return (vectors - reference.mean(dim=0)) / torch.where(std > 0, std, torch.ones_like(std))


def test_the_notebooks_answers_pass_and_read_its_data(capsys, shared_data):
    tasks = transfer.load_tasks(["MR", "TREC"], data_dir=shared_data, max_examples=60)
    nb08.check_majority_baseline(majority_baseline, tasks)
    nb08.check_fit_and_score(fit_and_score)
    X, y = nb08._cv_cases()[0][:2]
    assert nb08.check_cv_accuracy(cv_accuracy, X, y, folds=5) == pytest.approx(
        transfer.cross_val_accuracy(X, y, 5, 0, C=transfer.DEFAULT_CS))
    nb08.check_score_task(score_task)
    nb08.check_score_task(score_task, folds=3)
    nb08.check_standardise(standardise)
    assert capsys.readouterr().out.count("[OK]") == 7


@pytest.mark.parametrize("right", [
    lambda r, x: standardise(r, x, ddof=1),                                       # pandas' .std(): ddof=1
    lambda r, x: torch.from_numpy(standardise(r, x)),                             # a float64 tensor
    lambda r, x: StandardScaler().fit(np.asarray(r, dtype=np.float64)).transform(np.asarray(x, dtype=np.float64)),
    lambda r, x: standardise_in_torch(torch.as_tensor(r, dtype=torch.float64), torch.as_tensor(x, dtype=torch.float64)),
])
def test_standardise_written_another_way_passes(right, capsys):
    nb08.check_standardise(right)
    assert "[OK]" in capsys.readouterr().out


def test_a_slip_with_the_sample_standard_deviation_is_named_too():
    with pytest.raises(ExerciseError, match="of `vectors`; take them from `reference`"):
        nb08.check_standardise(lambda r, x: standardise(x, x, ddof=1))


def test_standardise_that_centres_the_callers_vectors_in_place_is_named():
    def centres_in_place(reference, vectors):
        vectors -= reference.mean(axis=0)
        return vectors / np.where(reference.std(axis=0) > 0, reference.std(axis=0), 1.0)
    with pytest.raises(ExerciseError, match="changed its second argument .* in place"):
        nb08.check_standardise(centres_in_place)


@pytest.mark.parametrize("right", [
    lambda task: np.float32(majority_baseline(task)),
    lambda task: 100 * float(np.mean(np.asarray(task.split("test")[1] if task.splits else task.labels)
                                     == np.bincount(task.split("train")[1] if task.splits else task.labels).argmax())),
])
def test_majority_baseline_written_another_way_passes(right, capsys):
    nb08.check_majority_baseline(right)
    assert "[OK]" in capsys.readouterr().out


def test_a_tie_in_the_notebooks_task_accepts_either_class(capsys):
    tied = nb08._task("TIED", [0, 0, 1, 1], [0, 0, 0, 1])
    nb08.check_majority_baseline(majority_baseline, {"TIED": tied})
    nb08.check_majority_baseline(lambda t: majority_baseline(t) if t.name != "TIED" else 25.0, {"TIED": tied})
    assert capsys.readouterr().out.count("[OK]") == 4


def test_a_wrong_answer_is_named_without_the_hidden_expected_value():
    with pytest.raises(ExerciseError) as err:
        nb08.check_majority_baseline(lambda task: majority_baseline(task) / 100)
    assert "a share where a percentage is asked" in str(err.value) and "70.0" not in str(err.value)


@pytest.mark.parametrize("check, wrong", [
    (nb08.check_fit_and_score, lambda X_train, y_train, X_test, y_test, Cs=(1.0,), seed=0, dev=None: 42.0),
    (nb08.check_cv_accuracy, lambda X, y, folds=10, seed=0, Cs=(1.0,): 42.0),
    (nb08.check_score_task, lambda encoder, task, folds=10, seed=0: 42.0),
])
def test_the_general_hints_hold_no_code_that_passes(check, wrong):
    with pytest.raises(ExerciseError) as err:
        check(wrong)
    for code in ("select_C(", "LogisticRegression(", "max_iter=", "random_state=", "kfold_indices(", "StandardScaler("):
        assert code not in str(err.value)


@pytest.mark.parametrize("check", [nb08.check_majority_baseline, nb08.check_fit_and_score, nb08.check_cv_accuracy,
                                   nb08.check_score_task, nb08.check_standardise])
def test_stubs_and_non_functions(check):
    with pytest.raises(ExerciseError, match="not written yet"):
        check(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        check("cv")


def test_split_features_keeps_each_split_and_refuses_a_cv_task():
    enc = nb08._SignalEncoder()
    cv_task, _, dev_task = nb08._protocol_tasks()[:3]
    parts = transfer.split_features(enc, dev_task)
    assert set(parts) == {"train", "dev", "test"} and len(parts["dev"][1]) == 60
    assert np.allclose(parts["test"][0], enc.encode(dev_task.split("test")[0]))
    with pytest.raises(ValueError, match="no splits"):
        transfer.split_features(enc, cv_task)
