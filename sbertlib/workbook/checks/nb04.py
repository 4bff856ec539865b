"""Self-checks for ``04_sts_evaluation``."""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.stats import pearsonr, spearmanr

from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_spearman", "hidden_cases"]


def hidden_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(description, x, y)`` pairs the check compares with ``scipy.stats.spearmanr`` — ties included."""
    rng = np.random.default_rng(2019)
    x = rng.normal(size=40)
    cases = [
        ("40 continuous values, no ties", x, 0.6 * x + rng.normal(size=40)),
        ("a monotone but non-linear relation (exp)", np.arange(1.0, 13.0), np.exp(np.arange(1.0, 13.0))),
        ("gold scores with many ties (0–5 in steps of 1)", rng.integers(0, 6, 30).astype(float),
         rng.normal(size=30)),
        ("ties on both sides", rng.integers(0, 4, 25).astype(float), rng.integers(0, 5, 25).astype(float)),
        ("a perfectly reversed order", np.arange(8.0), -np.arange(8.0) ** 3),
    ]
    g = rng.integers(0, 11, 60) / 2  # STS-like gold: 0, 0.5, …, 5
    cases.append(("STS-like gold (0–5 in halves) vs noisy cosines", g, np.tanh(g / 5 + rng.normal(0, 0.3, 60))))
    return cases


def _ordinal_ranks(a: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(a, kind="stable"), kind="stable").astype(float)


def _hint(got: float, x: np.ndarray, y: np.ndarray) -> str:
    want = float(spearmanr(x, y).statistic)
    if abs(got - 100 * want) < 1e-6:
        return "you returned Spearman × 100; return ρ itself, between −1 and 1 (tables multiply by 100)"
    if abs(got - float(pearsonr(x, y)[0])) < 1e-6:
        return "that is Pearson's r of the raw values: rank both lists first, then take Pearson of the ranks"
    if abs(got - float(pearsonr(_ordinal_ranks(x), _ordinal_ranks(y))[0])) < 1e-6:
        return ("tied values got different ranks (argsort of argsort); tied values must share the *average* "
                "of the ranks they span, e.g. scipy.stats.rankdata")
    n = len(x)
    rx, ry = _ordinal_ranks(x), _ordinal_ranks(y)
    shortcut = 1 - 6 * np.sum((rx - ry) ** 2) / (n * (n ** 2 - 1))
    from scipy.stats import rankdata
    shortcut_avg = 1 - 6 * np.sum((rankdata(x) - rankdata(y)) ** 2) / (n * (n ** 2 - 1))
    if abs(got - shortcut) < 1e-6 or abs(got - shortcut_avg) < 1e-6:
        return ("the shortcut 1 − 6·Σd²/(n(n²−1)) is exact only without ties; "
                "compute Pearson's r of the (average) ranks instead")
    return "rank x and y separately (average ranks for ties), then Pearson's r of the two rank vectors"


def check_spearman(spearman: Callable) -> None:
    """Check ``spearman(x, y) -> ρ`` (a float in [−1, 1]) against ``scipy.stats.spearmanr`` on hidden data.

    The hidden data include ties (as STS gold scores have: many pairs share a score), a monotone
    non-linear relation and a reversed order.
    """
    require(callable(spearman), f"pass your function itself, not {type(spearman).__name__}",
            "check_spearman(spearman) — no parentheses after the name")
    for name, x, y in hidden_cases():
        got = _call(spearman, x.copy(), y.copy())
        require(got is not None and got is not NotImplemented and got is not Ellipsis,
                f"on {name} your function returned {got!r}", "return ρ as a float")
        try:
            value = float(np.asarray(got, dtype=float).reshape(()))
        except (TypeError, ValueError):
            raise ExerciseError(f"on {name} your function returned {got!r}, not a single number\n"
                                "Hint: return one float (if you called scipy/np.corrcoef, pick the right entry "
                                "of its result)") from None
        want = float(spearmanr(x, y).statistic)
        if abs(value - want) > 1e-6:
            raise ExerciseError(f"on {name}: you returned {value:.6f}, Spearman's ρ is {want:.6f}\n"
                                f"Hint: {_hint(value, x, y)}")
    ok("spearman is right, ties included: Spearman's ρ is Pearson's r of the (average) ranks")
