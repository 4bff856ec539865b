"""Self-checks for ``01_broken_baselines``."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_pair_count", "check_cross_encoder_hours", "check_mean_pooling"]

PAPER_HOURS_10K = 65.0  # paper, Section 1: 10,000 sentences with a BERT cross-encoder on a V100
_PAIR_NS = (0, 1, 2, 3, 4, 10, 100, 10_000, 123_457)


def _reference_pairs(n: int) -> int:
    return n * (n - 1) // 2


def _number(x, what: str) -> float:
    require(x is not None and x is not NotImplemented, f"{what} is {x!r}", "return a number")
    if isinstance(x, (torch.Tensor, np.ndarray)):
        require(np.size(x) == 1, f"{what} has shape {tuple(np.shape(x))}, not a single number")
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


def _cases(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    for batch, seq, dim, lengths in ((4, 7, 5, (7, 3, 1, 5)), (2, 6, 3, (6, 2)), (3, 4, 8, (4, 4, 4))):
        tokens = torch.randn(batch, seq, dim, generator=g)
        mask = torch.zeros(batch, seq, dtype=torch.long)
        for row, n in enumerate(lengths):
            mask[row, :n] = 1
            tokens[row, n:] += 100.0  # padding vectors far away: including them shows at once
        yield tokens, mask


def check_mean_pooling(mean_pooling: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """Check ``mean_pooling(token_embeddings, attention_mask)``: ``(batch, seq, dim)`` → ``(batch, dim)``,
    the average over the real tokens only (``attention_mask == 1``), as ``sbertlib.model.pooling.pool(…, "mean")``."""
    from ...model.pooling import pool

    require(callable(mean_pooling), "pass your function itself: check_mean_pooling(mean_pooling)")
    for tokens, mask in _cases():
        got = _call(mean_pooling, tokens.clone(), mask.clone())
        require(got is not None and got is not NotImplemented, f"your function returned {got!r}",
                "return the pooled (batch, dim) tensor")
        try:
            got = got.detach().cpu().to(tokens.dtype) if isinstance(got, torch.Tensor) \
                else torch.as_tensor(np.asarray(got, dtype=np.float32))
        except (TypeError, ValueError) as exc:
            raise ExerciseError(f"your function returned a {type(got).__name__} that is not an array of numbers "
                                f"({exc})\nHint: return a torch tensor of shape (batch, dim)") from None
        want = pool(tokens, mask, "mean")
        require(tuple(got.shape) == tuple(want.shape),
                f"for token vectors of shape {tuple(tokens.shape)} you returned shape {tuple(got.shape)}, "
                f"expected {tuple(want.shape)} (batch, dim)",
                "average over the sequence axis, dim=1")
        if torch.allclose(got, want, atol=1e-5):
            continue
        if torch.allclose(got, tokens.mean(dim=1), atol=1e-4):
            raise ExerciseError("your result equals the plain mean over all positions: padding was included\n"
                                "Hint: multiply by the mask (unsqueezed to (batch, seq, 1)) before summing, "
                                "and divide by the number of real tokens, not by seq")
        if torch.allclose(got, (tokens * mask.unsqueeze(-1)).sum(1), atol=1e-4):
            raise ExerciseError("your result is the masked sum, not the mean\n"
                                "Hint: divide by the number of real tokens per sentence: mask.sum(dim=1)")
        if torch.allclose(got, (tokens * mask.unsqueeze(-1)).sum(1) / tokens.shape[1], atol=1e-4):
            raise ExerciseError("you divided by the padded length seq, not by each sentence's own token count\n"
                                "Hint: divide by mask.sum(dim=1, keepdim=True)")
        worst = float((got - want).abs().max())
        raise ExerciseError(f"your pooled vectors differ from the reference by up to {worst:.4g}\n"
                            "Hint: sum(token vectors × mask) / sum(mask), per sentence")
    ok("mean_pooling is right: it averages the real tokens and ignores padding")
