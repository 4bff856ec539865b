"""Self-checks for ``08_transfer_with_senteval``: the majority-class warm-up and standardising the
dimensions before a cosine (the paper's Section 5 point: a classifier can re-weight dimensions, cosine cannot)."""
from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

import numpy as np

from ...data import SentEvalTask
from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_majority_baseline", "majority_accuracies", "check_standardise", "standardise_truth"]


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
        got = _call(majority_baseline, task)
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
    same dimension has in ``reference`` (statistics of the reference sample, never of ``vectors``)."""
    ref = np.asarray(reference, dtype=np.float64)
    x = np.asarray(vectors, dtype=np.float64)
    return (x - ref.mean(axis=0)) / np.clip(ref.std(axis=0, ddof=ddof), 1e-12, None)


def _standardise_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(8)
    cases = []
    for n_ref, n, dim in ((40, 7, 5), (200, 30, 16), (25, 25, 3)):
        scale = rng.uniform(0.05, 20.0, size=dim)                 # dimensions on very different scales
        shift = rng.normal(0, 5.0, size=dim)                      # and a shared offset
        ref = rng.standard_normal((n_ref, dim)) * scale + shift
        x = rng.standard_normal((n, dim)) * scale * 1.7 + shift + 3.0   # test vectors drawn a bit differently
        cases.append((f"{n} vectors of dimension {dim}, statistics from {n_ref} reference vectors", ref, x))
    return cases


def _standardise_hint(got: np.ndarray, ref: np.ndarray, x: np.ndarray) -> str:
    def close(a):
        return a.shape == got.shape and np.allclose(got, a, atol=1e-6)
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
    return "(vectors − reference.mean(axis=0)) / reference.std(axis=0)"


def check_standardise(standardise: Callable) -> None:
    """Check ``standardise(reference, vectors) -> array``: each dimension of ``vectors`` centred and
    scaled with the mean and standard deviation of that dimension in ``reference`` (either ``ddof``)."""
    require(callable(standardise), f"pass your function itself, not {type(standardise).__name__}",
            "check_standardise(standardise)")
    for name, ref, x in _standardise_cases():
        got = _call(standardise, ref.copy(), x.copy())
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
