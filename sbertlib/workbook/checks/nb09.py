"""Self-checks for notebook 09 (visualising embeddings): two scores of how well labels group in a space.

* :func:`separation_truth` — mean cosine of same-label pairs minus mean cosine of different-label pairs
  (a global score, in cosine units);
* :func:`nn_agreement_truth` — share of sentences whose nearest neighbour (by cosine, itself excluded)
  has the same label (a local score: what a UMAP picture mostly shows).

The checks run the student's function on small hidden data sets built so that the usual slips give
different numbers, then on the notebook's own embeddings.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import ExerciseError, ok, require

TOLERANCE = 1e-4


# ----------------------------------------------------------------------------- reference computations
def _unit(emb) -> np.ndarray:
    x = np.asarray(emb.detach().cpu().numpy() if hasattr(emb, "detach") else emb, dtype=np.float64)
    require(x.ndim == 2 and len(x) >= 2, f"Embeddings must have shape (n, dim) with n ≥ 2, got {x.shape}.")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.clip(norms, 1e-12, None)


def _labels(labels: Sequence, n: int) -> np.ndarray:
    lab = np.asarray([str(v) for v in labels])
    require(len(lab) == n, f"{len(lab)} labels for {n} embeddings.")
    return lab


def separation_truth(emb, labels: Sequence) -> float:
    """Mean cosine over pairs (i ≠ j) with the same label minus mean cosine over pairs with different labels."""
    x = _unit(emb)
    lab = _labels(labels, len(x))
    cos = x @ x.T
    same = lab[:, None] == lab[None, :]
    off_diag = ~np.eye(len(x), dtype=bool)
    require((same & off_diag).any() and (~same).any(),
            "Need at least one same-label pair and one different-label pair.")
    return float(cos[same & off_diag].mean() - cos[~same].mean())


def nn_agreement_truth(emb, labels: Sequence) -> float:
    """Fraction of rows whose nearest other row (highest cosine, itself excluded) has the same label."""
    x = _unit(emb)
    lab = _labels(labels, len(x))
    cos = x @ x.T
    np.fill_diagonal(cos, -np.inf)
    return float(np.mean(lab[cos.argmax(axis=1)] == lab))


# ----------------------------------------------------------------------------- hidden test data
def _hidden_cases() -> list[tuple[np.ndarray, list]]:
    """Small data sets where the usual mistakes change the answer.

    Rows have very different norms (so skipping normalisation shows), a common offset (so cosines are
    not centred at 0), unequal class sizes (so averaging per class differs from averaging per pair),
    and string as well as integer labels.
    """
    rng = np.random.default_rng(9)
    cases = []
    for n, dim, k, labels_as in ((30, 8, 3, "str"), (41, 16, 4, "int"), (12, 5, 2, "str")):
        centres = rng.standard_normal((k, dim))
        sizes = np.maximum(1, (rng.dirichlet(np.ones(k) * 0.7) * n).astype(int))
        sizes[0] += n - sizes.sum() if n > sizes.sum() else 0
        lab = np.repeat(np.arange(k), sizes)[:n]
        x = centres[lab] + 0.9 * rng.standard_normal((len(lab), dim)) + 1.5  # shared offset
        x *= rng.uniform(0.2, 5.0, size=(len(lab), 1))  # very different norms
        perm = rng.permutation(len(lab))
        labels = [f"class-{v}" for v in lab[perm]] if labels_as == "str" else lab[perm].tolist()
        cases.append((x[perm], labels))
    return cases


def _call(fn: Callable, emb, labels, what: str) -> float:
    require(fn is not None and fn is not Ellipsis and callable(fn),
            f"`{what}` must be a function (emb, labels) -> float; got {type(fn).__name__}.",
            "Define it with `def` in the solution cell and run that cell first.")
    try:
        value = fn(emb, labels)
    except NotImplementedError as err:
        raise ExerciseError(f"`{what}` is not done yet (it raised NotImplementedError).") from err
    except ExerciseError:
        raise
    except Exception as err:  # a crash in the student's code is a wrong answer, with its reason
        raise ExerciseError(f"`{what}` raised {type(err).__name__}: {err}") from err
    if hasattr(value, "item") and np.size(value) == 1:
        value = value.item()
    require(isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value),
            f"`{what}` must return one finite number, got {value!r}.")
    return float(value)


def _compare(fn: Callable, truth: Callable, what: str, hint: str, emb=None, labels=None) -> float:
    cases = _hidden_cases() + ([(emb, labels)] if emb is not None else [])
    for idx, (x, lab) in enumerate(cases):
        got, want = _call(fn, x, lab, what), truth(x, lab)
        where = "the notebook's embeddings" if emb is not None and idx == len(cases) - 1 else f"hidden test set {idx + 1}"
        require(abs(got - want) <= TOLERANCE, f"On {where} `{what}` gives {got:.4f}, expected {want:.4f}.", hint)
    return truth(emb, labels) if emb is not None else truth(*cases[0])


# ----------------------------------------------------------------------------- checks
SEPARATION_HINT = ("Normalise the rows first (cosine, not dot product); leave out the diagonal (a sentence "
                   "with itself) from the same-label pairs; average over all pairs, not per label.")
NN_HINT = ("Use cosine (normalise the rows), set each row's similarity with itself to -inf before the "
           "argmax, then compare the neighbour's label with the row's own label.")


def check_separation(separation: Callable, emb=None, labels: Sequence | None = None) -> float:
    """Pass when ``separation(emb, labels)`` equals :func:`separation_truth` on hidden data (and on ``emb``)."""
    value = _compare(separation, separation_truth, "separation", SEPARATION_HINT, emb, labels)
    ok(f"separation matches the reference on {len(_hidden_cases())} hidden sets"
       + (f" and on your data ({value:+.4f})" if emb is not None else ""))
    return value


def check_nn_agreement(nn_agreement: Callable, emb=None, labels: Sequence | None = None) -> float:
    """Pass when ``nn_agreement(emb, labels)`` equals :func:`nn_agreement_truth` on hidden data (and on ``emb``)."""
    value = _compare(nn_agreement, nn_agreement_truth, "nn_agreement", NN_HINT, emb, labels)
    ok(f"nn_agreement matches the reference on {len(_hidden_cases())} hidden sets"
       + (f" and on your data ({value:.3f})" if emb is not None else ""))
    return value
