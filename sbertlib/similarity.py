"""Similarity measures between sentence embeddings, as full matrices or row-wise pairs.

All functions accept numpy arrays or torch tensors of shape ``(n, dim)`` (a 1-D vector is
treated as one row) and return torch tensors. Larger means more similar for every measure,
which is why the distances come negated.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import torch



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


def pairwise(a, b, measure: str = "cosine") -> torch.Tensor:
    """Similarity of row i of ``a`` with row i of ``b`` (the diagonal, without building the matrix)."""
    a, b = _as_2d(a), _as_2d(b)
    if a.shape != b.shape:
        raise ValueError(f"pairwise similarity needs equal shapes, got {tuple(a.shape)} and {tuple(b.shape)}")
    if measure == "cosine":
        return (normalize(a) * normalize(b)).sum(dim=1)
    if measure == "dot":
        return (a * b).sum(dim=1)
    if measure == "manhattan":
        return -(a - b).abs().sum(dim=1)
    if measure == "euclidean":
        return -(a - b).pow(2).sum(dim=1).sqrt()
    raise ValueError(f"unknown measure {measure!r}; choose one of {tuple(MEASURES)}")


MEASURES: dict[str, Callable] = {
    "cosine": cos_sim,
    "dot": dot_score,
    "manhattan": neg_manhattan,
    "euclidean": neg_euclidean,
}


def similarity_matrix(a, b=None, measure: str = "cosine") -> torch.Tensor:
    """The ``measure`` matrix between ``a`` and ``b`` (``b`` defaults to ``a``)."""
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}; choose one of {tuple(MEASURES)}")
    return MEASURES[measure](a, a if b is None else b)
