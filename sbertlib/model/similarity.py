"""Similarity measures between sentence embeddings, as full matrices or row-wise pairs.

All functions accept numpy arrays or torch tensors of shape ``(n, dim)`` (a 1-D vector is
treated as one row) and return torch tensors. Larger means more similar for every measure,
which is why the distances come negated.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import torch
from ..errors import SettingError


def _as_2d(x) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(x) if not isinstance(x, torch.Tensor) else x)
    if not t.is_floating_point():
        t = t.float()
    return t.unsqueeze(0) if t.dim() == 1 else t


def normalize(x) -> torch.Tensor:
    """L2-normalise each row (zero rows stay zero)."""
    return torch.nn.functional.normalize(_as_2d(x), p=2, dim=1)


def cos_sim(a, b) -> torch.Tensor:
    """Cosine similarity matrix: ``out[i, j] = cos(a[i], b[j])``."""
    return normalize(a) @ normalize(b).T


def dot_score(a, b) -> torch.Tensor:
    """Dot-product matrix: ``out[i, j] = a[i] · b[j]``."""
    return _as_2d(a) @ _as_2d(b).T


def neg_manhattan(a, b) -> torch.Tensor:
    """Negative Manhattan (L1) distance matrix."""
    return -torch.cdist(_as_2d(a), _as_2d(b), p=1)


def neg_euclidean(a, b) -> torch.Tensor:
    """Negative Euclidean (L2) distance matrix."""
    return -torch.cdist(_as_2d(a), _as_2d(b), p=2)


def _cos_pairs(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (normalize(a) * normalize(b)).sum(dim=-1)


def _l1(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(a - b, ord=1, dim=-1)


def _l2(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:  # vector_norm: a zero gradient at a == b, not NaN
    return torch.linalg.vector_norm(a - b, dim=-1)


class Measure(NamedTuple):
    """One way of comparing sentence vectors, in the three forms the library needs."""

    matrix: Callable  # (n, d), (m, d) -> (n, m); larger = more similar
    pairwise: Callable  # (n, d), (n, d) -> (n,): row i with row i; larger = more similar
    distance: Callable  # (n, d), (n, d) -> (n,); smaller = closer (the triplet objective's view)


# The one table of similarities and distances: search, evaluation, widgets and losses read it.
MEASURES: dict[str, Measure] = {
    "cosine": Measure(cos_sim, _cos_pairs, lambda a, b: 1 - _cos_pairs(a, b)),
    "dot": Measure(dot_score, lambda a, b: (a * b).sum(dim=-1), lambda a, b: -(a * b).sum(dim=-1)),
    "manhattan": Measure(neg_manhattan, lambda a, b: -_l1(a, b), _l1),
    "euclidean": Measure(neg_euclidean, lambda a, b: -_l2(a, b), _l2),
}


def get_measure(name: str) -> Measure:
    """The :class:`Measure` called ``name``; ValueError naming the choices otherwise."""
    if name not in MEASURES:
        raise SettingError(f"unknown measure {name!r}; choose one of {tuple(MEASURES)}")
    return MEASURES[name]


def pairwise(a, b, measure: str = "cosine") -> torch.Tensor:
    """Similarity of row i of ``a`` with row i of ``b`` (the diagonal, without building the matrix)."""
    a, b = _as_2d(a), _as_2d(b)
    if a.shape != b.shape:
        raise SettingError(f"pairwise similarity needs equal shapes, got {tuple(a.shape)} and {tuple(b.shape)}")
    return get_measure(measure).pairwise(a, b)


def similarity_matrix(a, b=None, measure: str = "cosine") -> torch.Tensor:
    """The ``measure`` matrix between ``a`` and ``b`` (``b`` defaults to ``a``)."""
    return get_measure(measure).matrix(a, a if b is None else b)
