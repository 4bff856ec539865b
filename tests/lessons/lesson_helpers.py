"""Helpers the lessons' check tests share: stubs, a right answer used by several notebooks' tests."""
from __future__ import annotations

import numpy as np


def not_done(*_args, **_kwargs):
    """A student's untouched stub: raises the bare NotImplementedError the checks call "not done yet"."""
    raise NotImplementedError


# ============================================================================= 00 · cosine_matrix
def unit_rows(x, axis=1):
    x = np.asarray(x, dtype=np.float64)
    return x / np.linalg.norm(x, axis=axis, keepdims=True)


# ============================================================================= 10 · similarity
def good_similarity(a, b, measure="cosine"):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if measure == "cosine":
        return unit_rows(a) @ unit_rows(b).T
    if measure == "dot":
        return a @ b.T
    diff = a[:, None, :] - b[None, :, :]
    if measure == "euclidean":
        return -np.sqrt((diff ** 2).sum(axis=-1))
    if measure == "manhattan":
        return -np.abs(diff).sum(axis=-1)
    raise ValueError(measure)





IN_PLACE = "changed its first argument .* in place"
