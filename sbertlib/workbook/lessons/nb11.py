"""Self-checks for notebook 11 (the speed lab): padding share, token-budget batches, bf16 rounding
by hand, and the rule that picks a precision."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from . import guard, Exercise, ExerciseError, call, ok, require
from .questions import choice, number


def _reference_padding(lengths: Sequence[int], batch_size: int, sort: bool) -> float:
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))
    slots = real = 0
    for s in range(0, len(order), batch_size):
        batch = [lengths[i] for i in order[s:s + batch_size]]
        slots += max(batch) * len(batch)
        real += sum(batch)
    return 1 - real / slots


# A small case where every usual slip gives its own number (the last batch is smaller, lengths spread),
# so the first failure already tells which slip it is; random cases follow.
PADDING_CASE = ([5, 12, 3, 9, 7, 2, 11], 3)


def _padding_slips(lengths: Sequence[int], batch_size: int, sort: bool) -> dict[str, float]:
    """hint -> the share a usual slip gives for this case."""
    n, bs = len(lengths), batch_size
    full = n - n % bs
    slips = {
        f"you padded every sentence to the longest of all the sentences ({max(lengths)} tokens): a batch is "
        "padded only to the longest member of that batch, so each batch has its own padded length":
            1 - sum(lengths) / (max(lengths) * n),
        "you sorted shortest first: sort=True means longest first — the batches then fall differently, since "
        "only the last one can be smaller":
            _reference_padding(sorted(lengths), bs, False) if sort else float("nan"),
        f"you left out the last batch ({n % bs} sentence(s), fewer than batch_size = {bs}): it is padded to its "
        "own longest member, and its slots count like any other batch's":
            _reference_padding([lengths[i] for i in _order(lengths, sort)[:full]], bs, False) if full else 0.0,
        "with sort=True you kept the input order: sort the sentences by length, longest first, before cutting "
        "the batches": _reference_padding(lengths, bs, False) if sort else float("nan"),
        "with sort=False you sorted anyway: keep the input order there": _reference_padding(lengths, bs, True)
        if not sort else float("nan"),
    }
    want = _reference_padding(lengths, bs, sort)
    slips["that is the share of the slots holding real tokens; the padding share is the rest"] = 1 - want
    slips["that is a percentage: return a share between 0 and 1"] = 100 * want
    return slips


def _order(lengths: Sequence[int], sort: bool) -> list[int]:
    return sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))


def check_padding_share(fn: Callable[[Sequence[int], int, bool], float]) -> None:
    """``fn(lengths, batch_size, sort)`` must return the padding share of the padded batches. A wrong
    number is matched against the usual slips (padding to the corpus's longest, sorting shortest first,
    dropping the last batch, ignoring ``sort``, the real-token share, a percentage), each named."""
    require(callable(fn), "Pass your function itself, e.g. check_padding_share(padding_share_by_hand).")
    rng = np.random.default_rng(11)
    cases = [PADDING_CASE]
    for trial in range(6):
        cases.append(([int(x) for x in rng.integers(3, 60, size=int(rng.integers(5, 40)))], int(rng.integers(1, 9))))
    for lengths, bs in cases:
        for sort in (False, True):
            want = _reference_padding(lengths, bs, sort)
            got = call(fn, list(lengths), bs, sort,
                       what=f"`padding_share_by_hand` (lengths {list(lengths)}, batch size {bs}, sort={sort})")
            try:
                got = float(got.item() if hasattr(got, "item") else got)
            except (TypeError, ValueError):
                raise ExerciseError(f"`padding_share_by_hand` returned {got!r}, not a number\n"
                                    "Hint: return one number: the share of the token slots that are padding") from None
            if np.isfinite(got) and abs(got - want) < 1e-9:
                continue
            hint = next((h for h, value in _padding_slips(lengths, bs, sort).items()
                         if np.isfinite(value) and abs(got - value) < 1e-9),
                        "each batch is padded to its own longest member; the padding share is the share of all "
                        "the batches' slots that hold no real token")
            raise ExerciseError(f"For lengths {list(lengths)}, batch size {bs}, sort={sort}: expected {want:.4f}, "
                                f"got {got:.4f}.\nHint: {hint}")
    ok("your padding share matches on random batches, sorted and unsorted")


def token_budget_truth(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Batches of sentence indices, as ``SentenceEncoder.batches(..., max_tokens=...)`` cuts them:
    longest first (stable among equal lengths); a batch grows while ``rows × its longest member`` stays
    within ``max_tokens``; a sentence longer than the budget travels alone."""
    from ...model.tokenising import length_batches
    return [[int(i) for i in batch] for batch in length_batches([int(n) for n in lengths], 1, True, max_tokens)]


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
    seen = [lengths[i] for i in flat]
    if seen == sorted(seen) and seen != sorted(seen, reverse=True):
        return "you sorted shortest first: longest first, so that a batch's first member is its longest"
    if seen != sorted(seen, reverse=True):
        return "sort the sentences by length, longest first (a stable sort keeps equal lengths in input order)"
    stable = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    if flat != stable:
        k = next(k for k, (a, b) in enumerate(zip(flat, stable)) if a != b)
        i, j = stable[k], flat[k]
        return (f"the lengths are in the right order, but not the sentences of equal length: sentences {i} and {j} "
                f"both have {lengths[i]} tokens and {i} comes first in the input, yet your order puts {j} first. Equal "
                "lengths keep their input order (a stable sort); reversing an ascending sort, or numpy's default "
                "argsort, turns ties around")
    if got == _budget_batches(lengths, max_tokens, strict=True):
        return ("a batch that costs exactly max_tokens fits: you started a new batch when rows × longest would "
                "*reach* max_tokens; start one only when it would go past it")
    return ("the order is right; the cuts differ: a new batch starts only when adding the next sentence would push "
            "rows × longest past max_tokens, and a sentence longer than the budget travels alone")


def _budget_batches(lengths: Sequence[int], max_tokens: int, strict: bool) -> list[list[int]]:
    """Token-budget batches in the library's order, cut when rows × longest would reach (``strict``) the budget."""
    batches, batch = [], []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        cost = (len(batch) + 1) * (lengths[batch[0]] if batch else lengths[i])
        if batch and (cost >= max_tokens if strict else cost > max_tokens):
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch] if batch else batches


def check_token_budget_batches(fn: Callable[[Sequence[int], int], list]) -> None:
    """``fn(lengths, max_tokens)`` must cut the sentences into token-budget batches exactly as the library does."""
    require(callable(fn), "Pass your function itself, e.g. check_token_budget_batches(token_budget_batches).")
    rng = np.random.default_rng(12)
    cases = [([5, 9, 9, 3, 12, 4], 24), ([10, 10, 10], 30), ([50, 3, 3, 3], 20), ([7], 5)]
    for _ in range(6):
        lengths = [int(x) for x in rng.integers(2, 70, size=int(rng.integers(5, 60)))]
        cases.append((lengths, int(rng.integers(60, 400))))
    for lengths, budget in cases:
        got = call(fn, list(lengths), budget,
                   what=f"`token_budget_batches` (lengths {list(lengths)}, max_tokens {budget})")
        got = _as_batches(got)
        want = token_budget_truth(lengths, budget)
        if got != want:
            raise ExerciseError(f"For lengths {lengths[:8]}{'…' if len(lengths) > 8 else ''} and max_tokens {budget}: "
                                f"expected {want[:4]}{'…' if len(want) > 4 else ''}, got {got[:4]}{'…' if len(got) > 4 else ''}.\n"
                                f"Hint: {_budget_hint(got, lengths, budget)}")
    ok("token-budget batches match the library's on sorted, tied and over-long inputs")



# ----------------------------------------------------------------------------- precision
def _bf16_cases() -> torch.Tensor:
    """Float32 values whose rounding to bfloat16 tells the usual slips apart: exact ties with an even
    and an odd kept part, values just above and below a tie, negatives, tiny and huge magnitudes."""
    rng = np.random.default_rng(11)
    normal = rng.normal(scale=rng.choice([1e-3, 1.0, 50.0, 1e6], size=200), size=200).astype(np.float32)
    base = np.array([1.0, -1.0, 3.0, -7.5, 0.15625, 1e-20], dtype=np.float32).view(np.int32)
    ties = np.concatenate([base | 0x8000, (base + 0x10000) | 0x8000, base | 0x8001, base | 0x7FFF])
    return torch.from_numpy(np.concatenate([normal, ties.astype(np.int32).view(np.float32)]))


class _Bf16Watch(TorchFunctionMode):
    """Notes whether any torch operation run inside it produced a bfloat16 tensor."""

    def __init__(self):
        super().__init__()
        self.made_bf16 = False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if isinstance(result, torch.Tensor) and result.dtype == torch.bfloat16:
            self.made_bf16 = True
        return result


def check_bf16_round(fn: Callable[[torch.Tensor], torch.Tensor]) -> None:
    """``fn(x)`` must round a float32 tensor to the nearest bfloat16 (ties to even), returned as float32,
    by hand — without PyTorch's bfloat16 conversion — and without changing ``x``."""
    require(callable(fn), "Pass your function itself, e.g. check_bf16_round(bf16_round).")
    x = _bf16_cases()
    want = x.to(torch.bfloat16).float()
    given = x.clone()                      # what the function receives; ``x`` stays the untouched original
    try:
        with _Bf16Watch() as watch:
            got = call(fn, given, what="`bf16_round`")
    except ExerciseError:
        # call's own verdict (the stub, the student's error, a changed input), with what a changed input means here
        changed = int((given.view(torch.int32) != x.view(torch.int32)).sum())
        require(changed == 0, f"`bf16_round` changed its input: {changed} of {len(x)} values of the tensor passed in "
                "were overwritten",
                "x.view(torch.int32) shares x's memory, so in-place operations on it (bits += …, bits &= …, "
                "bits.add_(…)) round the caller's tensor too; compute new tensors (bits + …, … & -65536) instead")
        raise
    require(not watch.made_bf16, "`bf16_round` converts to torch.bfloat16: PyTorch rounds for you, and the "
            "exercise is to round by hand",
            "work on the bit pattern: x.view(torch.int32) shows it as integers; round there to a pattern whose "
            "low 16 bits are zero, and view the result back as float32")
    require(isinstance(got, torch.Tensor), f"`bf16_round` returned {type(got).__name__}, not a tensor",
            "return a float32 tensor of the same shape")
    require(got.dtype == torch.float32 and got.shape == x.shape,
            f"`bf16_round` returned dtype {got.dtype}, shape {tuple(got.shape)}; expected float32, {tuple(x.shape)}",
            "keep the value in float32: bf16 is float32 with the low 16 bits of the pattern zeroed")
    if torch.equal(got, want):
        ok("your bf16 rounding matches PyTorch's bit for bit, ties included")
        return
    bits = x.view(torch.int32)
    tie = (bits & 0xFFFF) == 0x8000           # the dropped 16 bits are exactly half a step
    even = ((bits >> 16) & 1) == 0             # … and the last kept bit is 0: ties-to-even rounds these down
    tie_rule = ("on a tie the result is the neighbour whose last kept bit is 0 (ties to even): down when that bit "
                "is 0, up when it is 1")
    slips = {  # hint, the slip's result, which values to show an example of
        "the value came back unchanged: zero the low 16 bits of the pattern after rounding": (x, None),
        "that truncates (rounds toward zero): round to the *nearest* pattern with 16 zero low bits, and clear "
        "the low bits only after that": ((bits & -65536).view(torch.float32), None),
        f"on an exact tie (the dropped 16 bits are exactly 0x8000) you always round up; {tie_rule}":
            (((bits + 0x8000) & -65536).view(torch.float32), tie & even),
        f"on an exact tie (the dropped 16 bits are exactly 0x8000) you always round down; {tie_rule}":
            (((bits + 0x7FFF) & -65536).view(torch.float32), tie & ~even),
        "that is float16 (5 exponent bits, 10 mantissa bits); bfloat16 keeps float32's 8 exponent bits":
            (x.half().float(), None),
    }
    differ = got != want
    for hint, (wrong, where) in slips.items():
        if torch.equal(got, wrong):
            i = int((differ & where if where is not None else differ).nonzero()[0])
            raise ExerciseError(f"{int(differ.sum())} of {len(x)} values differ from bfloat16, e.g. {float(x[i])!r} "
                                f"(bits {int(bits[i]) & 0xFFFFFFFF:#010x}) -> {float(got[i])!r}, bfloat16 gives "
                                f"{float(want[i])!r}\nHint: {hint}")
    i = int(differ.nonzero()[0])
    raise ExerciseError(f"{int(differ.sum())} of {len(x)} values differ, e.g. {float(x[i])!r} "
                        f"(bits {int(bits[i]) & 0xFFFFFFFF:#010x}) -> {float(got[i])!r}, bfloat16 gives "
                        f"{float(want[i])!r}\nHint: round to the nearest float32 whose low 16 bits are zero; "
                        f"{tie_rule}")


def _choice_cases() -> list[tuple[dict, float, str]]:
    """(rows, tolerance, answer): precision -> (sent/s, Spearman) tables built so that each slip picks
    another answer."""
    return [
        ({"fp32": (600.0, 82.03), "bf16": (1300.0, 82.01), "int8": (1500.0, 80.95)}, 0.05, "bf16"),
        ({"fp32": (600.0, 82.03), "bf16": (1300.0, 82.10), "int8": (1500.0, 80.95)}, 0.05, "fp32"),
        ({"fp32": (600.0, 82.03), "bf16": (300.0, 82.03), "int8": (900.0, 82.00)}, 0.05, "int8"),
        ({"fp32": (600.0, 82.03), "bf16": (1300.0, 82.03), "int8": (1500.0, 80.95)}, 2.0, "int8"),
        ({"fp32": (600.0, 82.03), "bf16": (500.0, 82.03)}, 0.05, "fp32"),
        ({"fp32": (600.0, 82.03), "bf16": (1300.0, 82.03), "int8": (1500.0, 82.60)}, 0.05, "bf16"),
        ({"fp32": (600.0, 82.0), "bf16": (1300.0, 82.25)}, 0.25, "bf16"),  # exactly at the tolerance
    ]


def _fastest(rows: dict, allowed) -> str:
    return max((k for k in rows if allowed(k)), key=lambda k: rows[k][0])


PICK_SLIPS = {  # hint: the slip's rule (rows, tolerance) -> precision
    "the fastest is not always allowed: its Spearman must be within the tolerance of fp32's":
        lambda r, t: _fastest(r, lambda k: True),
    "a loss counts as much as a gain: compare the absolute difference |Spearman − fp32's| with the tolerance":
        lambda r, t: _fastest(r, lambda k: r[k][1] - r["fp32"][1] <= t),
    "a gain beyond the tolerance is a change too: compare the absolute difference with the tolerance":
        lambda r, t: _fastest(r, lambda k: r["fp32"][1] - r[k][1] <= t),
    "we want speed at equal quality, not the highest score: the fastest precision that qualifies":
        lambda r, t: max(r, key=lambda k: r[k][1]),
    "within the tolerance includes the tolerance itself: |difference| <= tolerance, not <":
        lambda r, t: _fastest(r, lambda k: abs(r[k][1] - r["fp32"][1]) < t),
}


def check_pick_precision(fn: Callable[[dict, float], str]) -> None:
    """``fn(rows, tolerance)``: the fastest precision whose Spearman is within ``tolerance`` of fp32's,
    either way (fp32 itself always qualifies)."""
    require(callable(fn), "Pass your function itself, e.g. check_pick_precision(pick_precision).")
    cases = _choice_cases()
    got = []
    for rows, tol, _ in cases:
        got.append(call(fn, dict(rows), tol, what=f"`pick_precision` (rows {rows}, tolerance {tol})"))
    wrong = [i for i, (case, answer) in enumerate(zip(cases, got)) if answer != case[2]]
    if not wrong:
        ok(f"your rule picks the fastest precision that leaves the Spearman unchanged, on {len(cases)} tables")
        return
    rows, tol, answer = cases[wrong[0]]
    table = ", ".join(f"{k}: {speed:.0f} sent/s, Spearman {sp:.2f}" for k, (speed, sp) in rows.items())
    hint = next((h for h, slip in PICK_SLIPS.items() if [slip(dict(r), t) for r, t, _ in cases] == got),
                "keep the precisions with |Spearman − fp32's| ≤ tolerance (fp32 always qualifies), then take the fastest")
    raise ExerciseError(f"for {table} and tolerance {tol}: you chose {got[wrong[0]]!r}, expected {answer!r}\n"
                        f"Hint: {hint}")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('padding_share_by_hand', probe="""
            _lengths = [5, 17, 3, 9, 12, 12, 4, 30, 8, 8, 21]
            _result = [padding_share_by_hand(_lengths, b, s) for b in (1, 3, 4) for s in (False, True)]
            """),
    Exercise('token_budget_batches', probe="""
            _lengths = [5, 17, 3, 9, 12, 12, 4, 30, 8, 8, 21, 12]
            _result = [token_budget_batches(_lengths, m) for m in (30, 48, 100)]
            """),
    Exercise('bf16_round', probe="""
            _x = _torch.tensor([1.0, 1.00390625, 1.01171875, -3.14159265, 1e-40, 65504.0, 3.3e38, -0.0,
                                float("inf"), float("-inf"), 123.456, -0.0001234], dtype=_torch.float32)
            _result = bf16_round(_x.clone())
            """),
    Exercise('pick_precision', probe="""
            _rows = {"fp32": (100.0, 80.0), "fp16": (180.0, 80.03), "bf16": (210.0, 79.5), "int8": (250.0, 71.0)}
            _result = [pick_precision(_rows, t) for t in (0.01, 0.05, 0.6, 10.0)]
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "11.1": choice(
        "The attention mask keeps padding out of the sentence vector. Why does padding still cost time?",
        "The network computes every padded position anyway",
        {"It does not: masked positions are skipped by the network":
            "The mask is applied to what the network computed. What did it compute?",
         "Tokenising the padding tokens is slow on a CPU":
            "Padding is added after tokenising. What does the network do with a (batch, longest) tensor?"}),
    "11.2": choice(
        "What decides how much smart batching gains on a corpus?",
        "How widely the sentence lengths vary",
        {"The average sentence length of the corpus":
            "A corpus of equally long sentences has no padding to remove, however long they are.",
         "The batch size, whatever the corpus":
            "With every sentence the same length, would any batch size gain?"}),
    "11.3": choice(
        "Why is a single timing of encode on a shared machine not a result?",
        "Timings vary: warm up, repeat, report the median",
        {"encode is not deterministic, so its work varies":
            "The vectors are the same each time; the seconds are not. Why?",
         "Python's clock is too coarse for short timings":
            "The clock is fine; what it measures varies."}),
    "11.4": choice(
        "Why does token-budget batching sort longest first?",
        "A batch's first row is then its longest: its cost is known",
        {"Long sentences matter more, so they are encoded first":
            "Every sentence is encoded once whatever the order. What does the budget cap?",
         "So that the last batch is the largest and fastest":
            "What does the budget need to know about each batch while filling it?"}),
    "11.5a": number(
        "The paper's smart batching on a CPU: 44 → 83 sentences/s. What is its speed-up ratio?",
        83 / 44, 0.02,
        "Divide the new speed by the old.",
        "Divide the new speed by the old.",
        {44 / 83: "Divide the new speed by the old, not the other way round.",
         39: "A ratio, not a difference."}),
    "11.5b": choice(
        "Why compare our speed-up ratio with the paper's, not our sentences/s with 83?",
        "A ratio on one machine cancels most differences",
        {"The paper's 83 is a misprint for a lower figure":
            "It is the paper's measurement on its machine. What else was different there?",
         "Our timer counts differently from the paper's":
            "Seconds are seconds. What else differs between the two machines and networks?"}),
    "11.6": choice(
        "Why is bf16 the safer choice for running a whole network, and what does it give up?",
        "float32's range, so no new overflow; it gives up precision",
        {"It is more precise than float16; it gives up range":
            "Count the bits: float16 keeps 3 more mantissa bits than bf16.",
         "It uses fewer bytes than float16; it gives up speed":
            "Both are 16 bits.",
         "It is exact for integers; it gives up range":
            "The difference is in exponent and mantissa bits."}),
    "11.7": choice(
        "Why does int8 usually move the Spearman and the vectors more than bf16?",
        "One scale per tensor: outliers coarsen every small value",
        {"int8 has fewer bits in total than bf16, so it is coarser":
            "bf16 keeps only 8 significant bits too. What sets the size of int8's steps?",
         "int8 rounds every value to a whole number, without a scale":
            "There is a scale. Whose value sets it?"}),
    "11.8": choice(
        "On a CPU without AMX or AVX512-BF16, why is bf16 slower than fp32?",
        "Every bf16 product is converted to float32 and back",
        {"bf16 moves more bytes than fp32 through memory":
            "It moves half the bytes. What does the CPU do with each bf16 number?",
         "bf16 needs more iterations to converge to the result":
            "This is inference, not training. What does the hardware do with each product?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
