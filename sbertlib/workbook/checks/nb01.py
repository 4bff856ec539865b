"""Self-checks for ``01_broken_baselines``: the pair-count warm-up and the anisotropy measure.

(Mean pooling is built once, in notebook 02: its check lives in ``nb02``.)
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_pair_count", "check_cross_encoder_hours", "check_anisotropy", "anisotropy_truth"]

PAPER_HOURS_10K = 65.0  # paper, Section 1: 10,000 sentences with a BERT cross-encoder on a V100
_PAIR_NS = (0, 1, 2, 3, 4, 10, 100, 10_000, 123_457)


def _reference_pairs(n: int) -> int:
    return n * (n - 1) // 2


def _number(x, what: str) -> float:
    require(x is not None and x is not NotImplemented, f"{what} is {x!r}", "return a number")
    if isinstance(x, (torch.Tensor, np.ndarray)):
        size = x.numel() if isinstance(x, torch.Tensor) else np.size(x)
        require(size == 1, f"{what} has shape {tuple(x.shape)}, not a single number")
        x = float(x.item() if hasattr(x, "item") else x)
    require(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool),
            f"{what} is a {type(x).__name__}, not a number")
    return float(x)


def check_pair_count(pair_count: Callable[[int], int]) -> None:
    """Check ``pair_count(n)``: the number of unordered pairs of distinct sentences among ``n``."""
    require(callable(pair_count), "pass your function itself: check_pair_count(pair_count)")
    for n in _PAIR_NS:
        got = _number(_call(pair_count, n), f"pair_count({n})")
        want = _reference_pairs(n)
        if got == want:
            continue
        hint = "each unordered pair once, no sentence with itself: n·(n−1)/2"
        if got == n * n:
            hint = "n² counts every ordered pair and each sentence with itself"
        elif got == n * (n - 1):
            hint = "n·(n−1) counts (a, b) and (b, a) separately — a similarity is symmetric"
        elif got == n * (n + 1) // 2:
            hint = "n·(n+1)/2 includes each sentence paired with itself"
        raise ExerciseError(f"pair_count({n}) = {got:g}, expected {want:,}\nHint: {hint}")
    ok(f"pair_count is right: 10,000 sentences give {_reference_pairs(10_000):,} pairs")


def check_cross_encoder_hours(cross_encoder_hours: Callable[[int, float], float]) -> None:
    """Check ``cross_encoder_hours(n, pairs_per_second)``: hours to score every pair among ``n`` sentences."""
    require(callable(cross_encoder_hours), "pass your function itself: check_cross_encoder_hours(cross_encoder_hours)")
    cases = [(10_000, 213.65), (10_000, 50.0), (1_000, 10.0), (2, 1.0), (40_000, 2_000.0), (1, 5.0)]
    for n, pps in cases:
        got = _number(_call(cross_encoder_hours, n, pps), f"cross_encoder_hours({n}, {pps})")
        want = _reference_pairs(n) / pps / 3600
        if math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-12):
            continue
        hint = "hours = pairs / (pairs per second) / 3600"
        if want and math.isclose(got, want * 3600, rel_tol=1e-6):
            hint = "that is in seconds: divide by 3600 for hours"
        elif want and math.isclose(got, want * 60, rel_tol=1e-6):
            hint = "that is in minutes: divide by 60 once more"
        elif math.isclose(got, n * n / pps / 3600, rel_tol=1e-6):
            hint = "use the number of unordered pairs n·(n−1)/2, not n²"
        elif math.isclose(got, n * (n - 1) / pps / 3600, rel_tol=1e-6):
            hint = "n·(n−1) counts each pair twice"
        raise ExerciseError(f"cross_encoder_hours({n}, {pps}) = {got:.6g}, expected {want:.6g}\nHint: {hint}")
    implied = _reference_pairs(10_000) / (PAPER_HOURS_10K * 3600)
    ok(f"cross_encoder_hours is right: the paper's 65 h for 10,000 sentences means about "
       f"{implied:.0f} pairs per second on a V100")


def anisotropy_truth(vectors) -> float:
    """Mean cosine over all pairs of *different* rows (i ≠ j): Ethayarajh's (2019) anisotropy measure,
    applied to sentence vectors. Near 0 for directions spread out evenly; near 1 inside a narrow cone."""
    x = np.asarray(vectors.detach().cpu().numpy() if isinstance(vectors, torch.Tensor) else vectors, dtype=np.float64)
    require(x.ndim == 2 and len(x) >= 2, f"need an (n, dim) matrix with n ≥ 2 rows, got shape {x.shape}")
    x = x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
    n = len(x)
    total = x.sum(axis=0)
    return float((total @ total - n) / (n * (n - 1)))  # Σ_ij cos − Σ_i cos(i, i), over n(n−1) ordered pairs


def _anisotropy_cases():
    rng = np.random.default_rng(2019)
    cases = []
    for n, dim, offset in ((12, 6, 2.0), (30, 16, 0.0), (5, 3, -1.0), (50, 8, 5.0)):
        x = rng.standard_normal((n, dim)) + offset                 # a shared direction when offset != 0
        x *= rng.uniform(0.1, 8.0, size=(n, 1))                    # very different norms
        cases.append((f"{n} random vectors of dimension {dim}" + (f" around a shared offset {offset:+g}" if offset else ""), x))
    return cases


def _anisotropy_hint(got: float, x: np.ndarray) -> str:
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = unit @ unit.T
    raw = x @ x.T
    n = len(x)
    if abs(got - cos.mean()) < 1e-6:
        return "you included the diagonal (each sentence with itself, cosine 1): average over pairs i ≠ j only"
    if abs(got - raw[~np.eye(n, dtype=bool)].mean()) < 1e-6 or abs(got - raw.mean()) < 1e-6:
        return "that is the mean dot product: normalise the rows first, so that dot products are cosines"
    centred = x - x.mean(axis=0)
    if abs(got - anisotropy_truth(centred)) < 1e-6:
        return "you centred the vectors first: measure the vectors as they are (centring is what removes anisotropy)"
    return "normalise each row, take all pairwise cosines, leave out the diagonal and average the rest"


def check_anisotropy(anisotropy: Callable) -> None:
    """Check ``anisotropy(vectors) -> float``: the mean cosine over all pairs of different rows of an
    ``(n, dim)`` array, on hidden data whose rows have very different norms and a shared offset."""
    require(callable(anisotropy), f"pass your function itself, not {type(anisotropy).__name__}",
            "check_anisotropy(anisotropy) — no parentheses after the name")
    for name, x in _anisotropy_cases():
        got = _number(_call(anisotropy, x.copy()), f"anisotropy on {name}")
        want = anisotropy_truth(x)
        require(abs(got - want) < 1e-6, f"on {name} you returned {got:.6f}, the mean cosine over pairs i ≠ j is {want:.6f}",
                _anisotropy_hint(got, x))
    ok("anisotropy is right: the mean cosine over all pairs of different sentences")
