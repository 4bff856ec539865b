"""Self-checks for notebook 11 (speed): padding share, token-budget batches, bf16 by hand, picking a precision."""
import numpy as np
import torch

from . import Exercise, ExerciseError, _guarded, guard, hinted, one_number


def _batches(lengths, batch_size: int, sort: bool, ascending: bool = False) -> list[list[int]]:
    ls = sorted(lengths, reverse=not ascending) if sort else list(lengths)
    return [ls[s:s + batch_size] for s in range(0, len(ls), batch_size)]


def _share(batches, pad_to=None) -> float:
    return 1 - sum(map(sum, batches)) / sum((pad_to or max(b)) * len(b) for b in batches)


def padding_truth(lengths, batch_size: int, sort: bool) -> float:
    return _share(_batches(lengths, batch_size, sort))


def _padding_cases() -> list[tuple]:
    """A small case where every slip gives its own number (the last batch smaller), then random ones; both sorts."""
    rng = np.random.default_rng(11)
    cases = [([5, 12, 3, 9, 7, 2, 11], 3)] + [(rng.integers(3, 60, size=rng.integers(5, 40)).tolist(),
                                               int(rng.integers(2, 9))) for _ in range(6)]
    return [(lengths, b, sort) for lengths, b in cases for sort in (False, True)]


PADDING = Exercise('padding_share_by_hand', probe="""
            _lengths = [5, 17, 3, 9, 12, 12, 4, 30, 8, 8, 21]
            _result = [padding_share_by_hand(_lengths, b, s) for b in (1, 3, 4) for s in (False, True)]
            """, reference=padding_truth, inputs=_padding_cases, returns=one_number, slips={
    "every sentence padded to the longest of all the sentences: a batch is padded only to its own longest member":
        lambda l, b, s: _share(_batches(l, b, s), pad_to=max(l)),
    "sorted shortest first: sort=True means longest first (the batches then fall differently)":
        lambda l, b, s: _share(_batches(l, b, s, ascending=True)),
    "the last, smaller batch left out: it is padded to its own longest member and its slots count too":
        lambda l, b, s: _share([x for x in _batches(l, b, s) if len(x) == b]),
    "with sort=True you kept the input order: sort by length, longest first, before cutting the batches":
        lambda l, b, s: padding_truth(l, b, False),
    "with sort=False you sorted anyway: keep the input order there": lambda l, b, s: padding_truth(l, b, True),
    "the batches' own shares averaged: take the share of all the slots together (a longer batch weighs more)":
        lambda l, b, s: float(np.mean([_share([x]) for x in _batches(l, b, s)])),
    "padding divided by the real tokens: the share is padding over all the slots, real ones and padding":
        lambda l, b, s: 1 / (1 - padding_truth(l, b, s)) - 1,
    "that is the share of the slots holding real tokens; the padding share is the rest":
        lambda l, b, s: 1 - padding_truth(l, b, s)},
    hint="each batch is padded to its own longest member; the padding share is the share of all the batches' slots "
         "that hold no real token",
    ok="your padding share matches on random batches, sorted and unsorted")


def token_budget_truth(lengths, max_tokens: int) -> list[list[int]]:
    """Sentence indices cut as ``SentenceEncoder.batches(..., max_tokens=...)`` cuts them (the library's own)."""
    from ...model.tokenising import length_batches
    return [[int(i) for i in batch] for batch in length_batches([int(n) for n in lengths], 1, True, max_tokens)]


def _cut(order, lengths, max_tokens: int, cost: str = "rows × longest", at: bool = False) -> list[list[int]]:
    """Batches of ``order``, each cut before one more sentence would cost more than (``at``: as much as) the budget."""
    batches, batch = [], []
    for i in order:
        ls = [lengths[j] for j in batch + [i]]
        paid = {"rows × longest": len(ls) * max(ls), "rows × newest": len(ls) * ls[-1], "real tokens": sum(ls)}[cost]
        if batch and (paid >= max_tokens if at else paid > max_tokens):
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch] if batch else batches


def _longest_first(lengths) -> list[int]:
    return sorted(range(len(lengths)), key=lambda i: -lengths[i])


def _lists(got, what: str) -> list[list[int]]:
    try:
        return [[int(i) for i in batch] for batch in got]
    except (TypeError, ValueError):
        raise ExerciseError(f"{what} returned {got!r}, not a list of batches of sentence indices\n"
                            "Hint: return e.g. [[4, 0], [2, 1, 3]]") from None


BUDGET = Exercise('token_budget_batches', probe="""
            _lengths = [5, 17, 3, 9, 12, 12, 4, 30, 8, 8, 21, 12]
            _result = [token_budget_batches(_lengths, m) for m in (30, 48, 100)]
            """, reference=token_budget_truth, slips={
    "not sorted: sort the sentences by length, longest first, so that a batch's first member is its longest":
        lambda l, m: _cut(range(len(l)), l, m),
    "you sorted shortest first: longest first, so that a batch's first member is its longest":
        lambda l, m: _cut(sorted(range(len(l)), key=l.__getitem__), l, m),
    "sentences of equal length turned around (a reversed ascending sort): equal lengths keep their input order":
        lambda l, m: _cut(np.argsort(l, kind="stable")[::-1], l, m),
    "numpy's default argsort is not stable: equal lengths must keep their input order (kind='stable')":
        lambda l, m: _cut(np.argsort(-np.asarray(l)), l, m),
    "the last, unfinished batch is missing: every sentence belongs to exactly one batch":
        lambda l, m: token_budget_truth(l, m)[:-1],
    "a sentence longer than the budget was dropped: it travels alone, in a batch of its own":
        lambda l, m: _cut([i for i in _longest_first(l) if l[i] <= m], l, m),
    "a batch costs rows × its longest member, not rows × the newest sentence's length":
        lambda l, m: _cut(_longest_first(l), l, m, cost="rows × newest"),
    "you counted the real tokens: a batch costs rows × its longest member, padding included":
        lambda l, m: _cut(_longest_first(l), l, m, cost="real tokens"),
    "a batch that costs exactly max_tokens fits: start a new one only when the cost would go past it":
        lambda l, m: _cut(_longest_first(l), l, m, at=True),
    "batches of lengths: return the sentences' indices":
        lambda l, m: [[l[i] for i in b] for b in token_budget_truth(l, m)]},
    inputs=lambda: [([10, 6, 6, 6], 24), ([5, 9, 9, 3, 12, 4], 24), ([10, 10, 10], 30), ([50, 3, 3, 3], 20),
                    ([7], 5)] + [(rng.integers(2, 70, size=rng.integers(20, 60)).tolist(), int(rng.integers(60, 400)))
                                 for rng in [np.random.default_rng(12)] for _ in range(6)],
    returns=_lists, compare=lambda got, want: got == want,
    hint="each sentence once, longest first (equal lengths in input order); a new batch starts only when one more "
         "sentence would push rows × longest past max_tokens",
    ok="token-budget batches match the library's on sorted, tied and over-long inputs")


def _bf16_cases() -> list[tuple[torch.Tensor]]:
    """Float32 values whose rounding tells the slips apart: exact ties with an even and an odd kept part, values
    just above and below a tie, negatives, tiny and huge magnitudes."""
    rng = np.random.default_rng(11)
    normal = rng.normal(scale=rng.choice([1e-3, 1.0, 50.0, 1e6], size=200), size=200).astype(np.float32)
    base = np.array([1.0, -1.0, 3.0, -7.5, 0.15625, 1e-20], dtype=np.float32).view(np.int32)
    ties = np.concatenate([base | 0x8000, (base + 0x10000) | 0x8000, base | 0x8001, base | 0x7FFF])
    return [(torch.from_numpy(np.concatenate([normal, ties.astype(np.int32).view(np.float32)])),)]


def bf16_truth(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def _bits(x: torch.Tensor, add: int | torch.Tensor) -> torch.Tensor:
    """The float32 whose bit pattern is x's plus ``add``, its low 16 bits then cleared."""
    return ((x.view(torch.int32) + add) & -65536).view(torch.float32)


_TIES = "on a tie the result is the neighbour whose last kept bit is 0 (ties to even)"
BF16 = Exercise('bf16_round', probe="""
            _x = _torch.tensor([1.0, 1.00390625, 1.01171875, -3.14159265, 1e-40, 65504.0, 3.3e38, -0.0,
                                float("inf"), float("-inf"), 123.456, -0.0001234], dtype=_torch.float32)
            _result = bf16_round(_x.clone())
            """, reference=bf16_truth, inputs=_bf16_cases, slips={
    "the value came back unchanged: zero the low 16 bits of the pattern after rounding": lambda x: x,
    "that truncates (rounds toward zero): round to the nearest pattern with 16 zero low bits, then clear them":
        lambda x: _bits(x, 0),
    f"on an exact tie (the dropped 16 bits are exactly 0x8000) you always round up; {_TIES}":
        lambda x: _bits(x, 0x8000),
    f"on an exact tie (the dropped 16 bits are exactly 0x8000) you always round down; {_TIES}":
        lambda x: _bits(x, 0x7FFF),
    "that is float16 (5 exponent bits, 10 mantissa bits); bfloat16 keeps float32's 8 exponent bits":
        lambda x: x.half().float(),
    "that is the bit pattern, as integers: view the result back as float32 (.view(torch.float32))":
        lambda x: bf16_truth(x).view(torch.int32)},
    hint=f"round to the nearest float32 whose low 16 bits are zero; {_TIES}",
    returns=lambda got, what: torch.as_tensor(got) if got is not None else got,
    compare=lambda got, want: isinstance(got, torch.Tensor) and got.shape == want.shape and got.is_floating_point() ==
    want.is_floating_point() and torch.equal(got.double(), want.double()),
    ok="your bf16 rounding matches PyTorch's bit for bit, ties included")


def pick_truth(rows: dict, tolerance: float, keep=lambda d, t: abs(d) <= t, best=max) -> str:
    """The fastest precision whose Spearman is within ``tolerance`` of fp32's, either way (fp32 always qualifies); the
    keywords are slips' (which difference from fp32's is kept, which of the kept is taken)."""
    return best((k for k in rows if keep(rows[k][1] - rows["fp32"][1], tolerance)), key=lambda k: rows[k][0])


PICK = Exercise('pick_precision', probe="""
            _rows = {"fp32": (100.0, 80.0), "fp16": (180.0, 80.03), "bf16": (210.0, 79.5), "int8": (250.0, 71.0)}
            _result = [pick_precision(_rows, t) for t in (0.01, 0.05, 0.6, 10.0)]
            """, reference=pick_truth, compare=lambda got, want: got == want, slips={
    "a loss beyond the tolerance disqualifies too (the fastest is not always allowed): |Spearman − fp32's| ≤ tolerance":
        lambda r, t: pick_truth(r, t, lambda d, t: d <= t),
    "a gain beyond the tolerance is a change too (the fastest is not always allowed): |Spearman − fp32's| ≤ tolerance":
        lambda r, t: pick_truth(r, t, lambda d, t: -d <= t),
    "we want speed at equal quality, not the highest score: the fastest precision that qualifies":
        lambda r, t: max(r, key=lambda k: r[k][1]),
    "within the tolerance includes the tolerance itself: |difference| <= tolerance, not <":
        lambda r, t: pick_truth(r, t, lambda d, t: abs(d) < t),
    "that is the slowest that qualifies: take the fastest (the most sentences per second)":
        lambda r, t: pick_truth(r, t, best=min),
    "return the precision's name (a key of rows), not its row": lambda r, t: r[pick_truth(r, t)]},
    inputs=lambda: [({"fp32": (600.0, 82.0), "fp16": (700.0, 82.25), "bf16": (900.0, 81.0), "int8": (1000.0, 83.0),
                      "int4": (1100.0, 82.9), "fp64": (500.0, 82.1)}, 0.25)] + [(rows, 0.05) for rows in (
        {"fp32": (600.0, 82.03), "bf16": (1300.0, 82.01), "int8": (1500.0, 80.95)},
        {"fp32": (600.0, 82.03), "bf16": (1300.0, 82.10), "int8": (1500.0, 80.95)},
        {"fp32": (600.0, 82.03), "bf16": (300.0, 82.03), "int8": (900.0, 82.00)},
        {"fp32": (600.0, 82.03), "bf16": (500.0, 82.03)},
        {"fp32": (600.0, 82.03), "bf16": (1300.0, 82.03), "int8": (1500.0, 82.60)})] + [
        ({"fp32": (600.0, 82.03), "bf16": (1300.0, 82.03), "int8": (1500.0, 80.95)}, 2.0),
        ({"fp32": (600.0, 82.0), "bf16": (1300.0, 82.25)}, 0.25)],   # exactly at the tolerance
    hint="keep the precisions with |Spearman − fp32's| ≤ tolerance (fp32 always qualifies), then take the fastest",
    ok="your rule picks the fastest precision that leaves the Spearman unchanged, on 8 tables")

EXERCISES = (PADDING, BUDGET, BF16, PICK)
check_padding_share, check_token_budget_batches, check_pick_precision = map(
    _guarded, (PADDING.check, BUDGET.check, PICK.check))


def check_bf16_round(fn) -> None:
    hinted(BF16.check, {"in place": "x.view(torch.int32) shares x's memory: in-place operations on it (bits += …, "
                        "bits &= …) round the caller's tensor too; compute new tensors (bits + …, … & -65536)"}, fn)


guard(globals())   # last: every check above shows its own failures as an ExerciseError
