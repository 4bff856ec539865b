"""Self-checks for notebook 11 (the speed lab)."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import ok, require


def _reference_padding(lengths: Sequence[int], batch_size: int, sort: bool) -> float:
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))
    slots = real = 0
    for s in range(0, len(order), batch_size):
        batch = [lengths[i] for i in order[s:s + batch_size]]
        slots += max(batch) * len(batch)
        real += sum(batch)
    return 1 - real / slots


def check_padding_share(fn: Callable[[Sequence[int], int, bool], float]) -> None:
    """``fn(lengths, batch_size, sort)`` must return the padding share of the padded batches."""
    require(callable(fn), "Pass your function itself, e.g. check_padding_share(padding_share_by_hand).")
    rng = np.random.default_rng(11)
    for trial in range(6):
        lengths = [int(x) for x in rng.integers(3, 60, size=int(rng.integers(5, 40)))]
        bs = int(rng.integers(1, 9))
        for sort in (False, True):
            want = _reference_padding(lengths, bs, sort)
            try:
                got = fn(lengths, bs, sort)
            except NotImplementedError:
                require(False, "The function is not written yet.")
            require(got is not None and np.isfinite(got) and abs(float(got) - want) < 1e-9,
                    f"For lengths {lengths[:6]}…, batch size {bs}, sort={sort}: expected {want:.4f}, got {got}.",
                    "Each batch is padded to its own longest member; padding share = 1 − real tokens / slots.")
    ok("your padding share matches on random batches, sorted and unsorted")


def check_cross_encoder_hours(fn: Callable[[int, float], float]) -> None:
    """``fn(n, pairs_per_s)`` must return the hours a cross-encoder needs for all n(n−1)/2 pairs."""
    require(callable(fn), "Pass your function itself.")
    for n, rate in ((10_000, 213.6), (2, 1.0), (1, 5.0), (1234, 77.0)):
        want = n * (n - 1) / 2 / rate / 3600
        try:
            got = fn(n, rate)
        except NotImplementedError:
            require(False, "The function is not written yet.")
        require(got is not None and abs(float(got) - want) <= 1e-9 * max(1.0, want),
                f"n={n}, {rate} pairs/s: expected {want:.6g} h, got {got}.",
                "Every unordered pair once: n(n−1)/2 pairs; seconds → hours is / 3600.")
    ok("n(n−1)/2 pairs, divided by the rate, in hours — right")
