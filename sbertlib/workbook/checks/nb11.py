"""Self-checks for notebook 11 (the speed lab)."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import ExerciseError, ok, require


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


def token_budget_truth(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Batches of sentence indices, as ``SentenceEncoder.batches(..., max_tokens=...)`` cuts them:
    longest first (stable among equal lengths); a batch grows while ``rows × its longest member`` stays
    within ``max_tokens``; a sentence longer than the budget travels alone."""
    from ...model.encoder import _group
    order = np.argsort([-int(n) for n in lengths], kind="stable")
    return [[int(i) for i in batch] for batch in _group(order, [int(n) for n in lengths], 1, max_tokens)]


def _as_batches(got) -> list[list[int]]:
    require(got is not None and got is not Ellipsis, f"your function returned {got!r}",
            "return a list of batches, each a list of sentence indices")
    try:
        return [[int(i) for i in batch] for batch in got]
    except (TypeError, ValueError):
        raise ExerciseError(f"your function returned {type(got).__name__} that is not a list of lists of indices\n"
                            "Hint: return e.g. [[4, 0], [2, 1, 3]]") from None


def _budget_hint(got: list[list[int]], lengths: Sequence[int], max_tokens: int) -> str:
    flat = [i for b in got for i in b]
    if sorted(flat) != list(range(len(lengths))):
        return "every sentence must appear in exactly one batch — did you forget the last, unfinished batch?"
    for b in got:
        if len(b) > 1 and len(b) * max(lengths[i] for i in b) > max_tokens:
            return ("a batch is padded to its *longest* member: rows × longest must stay within max_tokens "
                    f"(a batch of {len(b)} with longest {max(lengths[i] for i in b)} costs "
                    f"{len(b) * max(lengths[i] for i in b)} > {max_tokens})")
    if flat != sorted(flat, key=lambda i: -lengths[i]):
        return "sort the sentences by length, longest first (a stable sort keeps equal lengths in input order)"
    return "start a new batch only when adding the next sentence would push rows × longest past max_tokens (≤ is fine)"


def check_token_budget_batches(fn: Callable[[Sequence[int], int], list]) -> None:
    """``fn(lengths, max_tokens)`` must cut the sentences into token-budget batches exactly as the library does."""
    require(callable(fn), "Pass your function itself, e.g. check_token_budget_batches(token_budget_batches).")
    rng = np.random.default_rng(12)
    cases = [([5, 9, 9, 3, 12, 4], 24), ([10, 10, 10], 30), ([50, 3, 3, 3], 20), ([7], 5)]
    for _ in range(6):
        lengths = [int(x) for x in rng.integers(2, 70, size=int(rng.integers(5, 60)))]
        cases.append((lengths, int(rng.integers(60, 400))))
    for lengths, budget in cases:
        try:
            got = fn(list(lengths), budget)
        except NotImplementedError:
            raise ExerciseError("The function is not written yet (it raised NotImplementedError).") from None
        got = _as_batches(got)
        want = token_budget_truth(lengths, budget)
        if got != want:
            raise ExerciseError(f"For lengths {lengths[:8]}{'…' if len(lengths) > 8 else ''} and max_tokens {budget}: "
                                f"expected {want[:4]}{'…' if len(want) > 4 else ''}, got {got[:4]}{'…' if len(got) > 4 else ''}.\n"
                                f"Hint: {_budget_hint(got, lengths, budget)}")
    ok("token-budget batches match the library's on sorted, tied and over-long inputs")


# The cross-encoder extrapolation exercise lives in notebook 01 (the paper's "65 hours" is told there once);
# the name stays importable here for code written against earlier versions.
from .nb01 import check_cross_encoder_hours  # noqa: E402,F401
