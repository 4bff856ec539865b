"""Self-checks for ``00_setup_and_tour``."""
from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from . import ExerciseError, ok, require, two_items

__all__ = ["check_most_similar_pair", "most_similar_pair_truth"]


def _as_numpy(matrix) -> np.ndarray:
    if isinstance(matrix, torch.Tensor):
        return matrix.detach().cpu().double().numpy()
    return np.asarray(matrix, dtype=np.float64)


def most_similar_pair_truth(matrix) -> tuple[int, int]:
    """The ``(i, j)``, ``i < j``, of the largest off-diagonal entry of a symmetric matrix."""
    m = _as_numpy(matrix).copy()
    require(m.ndim == 2 and m.shape[0] == m.shape[1] and m.shape[0] >= 2,
            f"need a square matrix of at least 2 × 2, got shape {m.shape}")
    np.fill_diagonal(m, -np.inf)
    i, j = divmod(int(np.argmax(m)), m.shape[1])
    return (min(i, j), max(i, j))


def _like(template, array: np.ndarray):
    """``array`` as the same kind of object as ``template`` (torch tensor or numpy array)."""
    if isinstance(template, torch.Tensor):
        return torch.as_tensor(array, dtype=template.dtype)
    return array.astype(np.asarray(template).dtype, copy=False)


def _pair_from(answer, n: int) -> tuple[int, int]:
    items = two_items(answer, "your function returned", "return the pair as a tuple (i, j) of two row indices")
    pair = []
    for x in items:
        if isinstance(x, torch.Tensor):
            x = x.item()
        require(isinstance(x, (int, np.integer)) and not isinstance(x, bool),
                f"index {x!r} is a {type(x).__name__}, not an integer",
                "turn tensor/array indices into Python ints with int(...)")
        require(0 <= int(x) < n, f"index {int(x)} is outside 0..{n - 1}")
        pair.append(int(x))
    return (min(pair), max(pair))


def _call(fn: Callable, *args):
    try:
        return fn(*args)
    except NotImplementedError:
        raise ExerciseError("the exercise is not done yet (your function raised NotImplementedError)\n"
                            "Hint: replace the `raise NotImplementedError` line with your code") from None
    except ExerciseError:
        raise
    except Exception as exc:  # noqa: BLE001 - report what went wrong inside the student's code
        raise ExerciseError(f"your function raised {type(exc).__name__}: {exc}") from exc


def check_most_similar_pair(most_similar_pair: Callable, sim) -> None:
    """Check ``most_similar_pair(sim) -> (i, j)``: the two *different* sentences with the highest similarity.

    Tested on ``sim`` (the notebook's matrix) and on random symmetric matrices with a unit diagonal,
    against the truth computed here from each input. The order of ``i`` and ``j`` does not matter.
    """
    require(callable(most_similar_pair), f"pass your function itself, not {type(most_similar_pair).__name__}",
            "check_most_similar_pair(most_similar_pair, sim) — no parentheses after the name")
    rng = np.random.default_rng(7)
    cases = [("the notebook's matrix", sim)]
    for n in (2, 5, 9):
        a = rng.uniform(-1, 0.95, size=(n, n))
        m = (a + a.T) / 2
        np.fill_diagonal(m, 1.0)
        cases.append((f"a random {n}×{n} similarity matrix", _like(sim, m)))
    neg = -np.ones((4, 4)) + 0.1 * np.eye(4)[::-1]  # all negative off the diagonal: max is the least negative
    neg = (neg + neg.T) / 2
    np.fill_diagonal(neg, 1.0)
    cases.append(("a matrix whose off-diagonal entries are all negative", _like(sim, neg)))
    for name, m in cases:
        truth = most_similar_pair_truth(m)
        n = _as_numpy(m).shape[0]
        got = _pair_from(_call(most_similar_pair, m), n)
        require(got[0] != got[1], f"on {name} you returned ({got[0]}, {got[1]}): a sentence paired with itself",
                "the diagonal holds each sentence's similarity with itself (always the largest); "
                "ignore it, e.g. copy the matrix and fill the diagonal with -inf first")
        require(got == truth, f"on {name} you returned {got}, but the most similar pair is {truth} "
                f"(similarity {_as_numpy(m)[truth]:.3f} vs your pair's {_as_numpy(m)[got]:.3f})",
                "look for the largest entry off the diagonal (argmax, then divmod by the row length)")
    i, j = most_similar_pair_truth(sim)
    ok(f"most_similar_pair is right: in the notebook's matrix, sentences {i} and {j} are the most similar "
       f"(cosine {_as_numpy(sim)[i, j]:.3f})")
