"""The checks of notebook 11 (speed smart batching): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb11)."""
from __future__ import annotations

from pathlib import Path
import numpy as np
import pytest
import torch
from sbertlib.workbook.lessons import ExerciseError, nb11, nb12
from lesson_helpers import IN_PLACE


def good_budget(lengths, max_tokens):
    return cut_by_budget(sorted(range(len(lengths)), key=lambda i: -lengths[i]), lengths, max_tokens)


def cut_by_budget(order, lengths, max_tokens):
    """Batches of ``order`` (longest first), each cut before it would pass ``max_tokens`` padded tokens."""
    batches, batch = [], []
    for i in order:
        if batch and (len(batch) + 1) * lengths[batch[0]] > max_tokens:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch] if batch else batches


def test_nb11_token_budget_right(capsys):
    nb11.check_token_budget_batches(good_budget)
    nb11.check_token_budget_batches(lambda l, m: [np.array(b) for b in good_budget(l, m)])  # arrays are fine
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb11_token_budget_truth_is_what_the_encoder_does(tmp_path):
    from sbertlib.model.encoder import SentenceEncoder
    enc = SentenceEncoder.from_pretrained("tiny-random-bert")
    sents = ["a", "a much longer sentence than the first one", "two words", "three short words", "x y"]
    lengths = [len(x) for x in enc.tokenizer(sents, add_special_tokens=True)["input_ids"]]
    got = [sorted(p.tolist()) for p, _ in enc.batches(sents, 32, smart_batching=True, max_tokens=20)]
    assert got == [sorted(b) for b in nb11.token_budget_truth(lengths, 20)]


def _unsorted(lengths, m):
    batches, batch = [], []
    for i in range(len(lengths)):
        if batch and (len(batch) + 1) * max(lengths[j] for j in batch + [i]) > m:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch]


def _new_length(lengths, m):  # rows × the *new* sentence's length: batches overflow the budget
    order, batches, batch = sorted(range(len(lengths)), key=lambda i: -lengths[i]), [], []
    for i in order:
        if batch and (len(batch) + 1) * lengths[i] > m:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch]


@pytest.mark.parametrize("wrong, hint", [
    (_unsorted, "longest first"),
    (lambda l, m: good_budget(l, m)[:-1], "last"),
    (_new_length, "longest"),
    (lambda l, m: [list(range(len(l)))], None),
    (lambda l, m: None, None),
])
def test_nb11_token_budget_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb11.check_token_budget_batches(wrong)


def good_bf16_round(x):
    bits = x.view(torch.int32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).view(torch.float32)


def test_nb11_bf16_round_right(capsys):
    nb11.check_bf16_round(good_bf16_round)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda x: (x.view(torch.int32) & -65536).view(torch.float32), "truncates"),
    (lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32), "always round up"),
    (lambda x: ((x.view(torch.int32) + 0x7FFF) & -65536).view(torch.float32), "always round down"),
    (lambda x: x.half().float(), "float16"),
    (lambda x: x, "unchanged"),
    (lambda x: (x.view(torch.int32) + 0x7FFF + ((x.view(torch.int32) >> 16) & 1)) & -65536,   # int32 bits
     "keep the value in float32"),
    (lambda x: x.numpy(), "not a tensor"),
    (lambda x: x.to(torch.bfloat16).float(), "converts to torch.bfloat16"),
    (lambda x: x.bfloat16().to(torch.float32), "converts to torch.bfloat16"),
    (lambda x: x.to(torch.bfloat16), "converts to torch.bfloat16"),
    (lambda x: x.type(torch.bfloat16).float(), "converts to torch.bfloat16"),
])
def test_nb11_bf16_round_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb11.check_bf16_round(wrong)


def bf16_round_in_place(x):
    """Right values, but rounds the caller's tensor: the view shares x's memory."""
    bits = x.view(torch.int32)
    bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= -65536
    return x


def bf16_round_in_place_copy_out(x):
    """Rounds x in place, then hands back a copy: the result is right, the input is not kept."""
    bits = x.view(torch.int32)
    bits.add_(0x7FFF + ((bits >> 16) & 1)).bitwise_and_(-65536)
    return bits.view(torch.float32).clone()


@pytest.mark.parametrize("wrong", [bf16_round_in_place, bf16_round_in_place_copy_out])
def test_nb11_bf16_round_that_changes_its_input_is_rejected(wrong):
    x = torch.tensor([1.00390625, 3.14159, -2.71828])
    before = x.clone()
    assert torch.equal(wrong(x), before.to(torch.bfloat16).float())   # the values are right ...
    assert not torch.equal(x, before)                                 # ... but the caller's tensor is rounded
    with pytest.raises(ExerciseError, match="changed its input") as err:
        nb11.check_bf16_round(wrong)
    assert "shares x's memory" in str(err.value)


def test_nb11_bf16_round_leaves_the_notebooks_tensor_alone():
    """What cell 21 relies on: after the check, rounding a tensor keeps the original to compare with."""
    x = torch.randn(64) * 3
    before = x.clone()
    nb11.check_bf16_round(good_bf16_round)
    rounded = good_bf16_round(x)
    assert torch.equal(x, before) and (rounded - x).abs().max() > 0


def good_pick(rows, tol):
    return max((k for k in rows if abs(rows[k][1] - rows["fp32"][1]) <= tol), key=lambda k: rows[k][0])


def test_nb11_pick_precision_right_and_agrees_with_the_library(capsys):
    from sbertlib.model.precision import pick_precision
    nb11.check_pick_precision(good_pick)
    assert "[OK]" in capsys.readouterr().out
    for rows, tol, answer in nb11._choice_cases():
        table = [{"precision": k, "sent_per_s": s, "spearman": sp} for k, (s, sp) in rows.items()]
        assert pick_precision(table, tol) == answer


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, t: max(r, key=lambda k: r[k][0]), "fastest is not always allowed"),
    (lambda r, t: max((k for k in r if r[k][1] - r["fp32"][1] <= t), key=lambda k: r[k][0]), "a loss counts"),
    (lambda r, t: max((k for k in r if r["fp32"][1] - r[k][1] <= t), key=lambda k: r[k][0]), "a gain beyond"),
    (lambda r, t: max(r, key=lambda k: r[k][1]), "not the highest score"),
    (lambda r, t: max((k for k in r if abs(r[k][1] - r["fp32"][1]) < t), key=lambda k: r[k][0]), "not <"),
    (lambda r, t: "fp32", "then take the fastest"),
])
def test_nb11_pick_precision_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb11.check_pick_precision(wrong)


def _padding(lengths, bs, sort, order=None, pad_to=None, drop_last=False):
    """The right padding share, or a usual slip: another order, one padded length, the last batch dropped."""
    idx = (order or (lambda l: sorted(range(len(l)), key=lambda i: -l[i])))(lengths) if sort else list(range(len(lengths)))
    slots = real = 0
    for s in range(0, len(idx), bs):
        batch = [lengths[i] for i in idx[s:s + bs]]
        if drop_last and len(batch) < bs:
            continue
        slots += (pad_to(lengths) if pad_to else max(batch)) * len(batch)
        real += sum(batch)
    return 1 - real / slots


@pytest.mark.parametrize("wrong, says", [
    (lambda l, b, s: _padding(l, b, s, pad_to=max), "longest of all the sentences (12 tokens)"),
    (lambda l, b, s: _padding(l, b, s, order=lambda x: sorted(range(len(x)), key=lambda i: x[i])),
     "you sorted shortest first"),
    (lambda l, b, s: _padding(l, b, s, drop_last=True), "you left out the last batch (1 sentence(s)"),
    (lambda l, b, s: _padding(l, b, False), "with sort=True you kept the input order"),
    (lambda l, b, s: 1 - _padding(l, b, s), "share of the slots holding real tokens"),
    (lambda l, b, s: 100 * _padding(l, b, s), "percentage"),
])
def test_nb11_padding_share_names_each_slip(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb11.check_padding_share(wrong)
    message = str(err.value)
    assert says in message
    assert f"lengths {nb11.PADDING_CASE[0]}" in message   # every length of the failing case, not the first six
    assert "1 − real tokens / slots" not in message and "real / slots" not in message


def test_nb11_padding_share_right_answer_still_passes(capsys):
    nb11.check_padding_share(lambda l, b, s: _padding(l, b, s))
    assert "[OK]" in capsys.readouterr().out


def _reversed_ties(lengths, max_tokens):  # an ascending sort, reversed: equal lengths come out last-first
    return cut_by_budget(sorted(range(len(lengths)), key=lambda i: lengths[i])[::-1], lengths, max_tokens)


def _shortest_first(lengths, max_tokens):  # ascending, costed by each batch's true longest member
    batches, batch = [], []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if batch and (len(batch) + 1) * max(lengths[j] for j in batch + [i]) > max_tokens:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch]


def _cut_at_budget(lengths, max_tokens):  # a batch that would cost exactly max_tokens is cut too early
    return nb11._budget_batches(lengths, max_tokens, strict=True)


@pytest.mark.parametrize("wrong, says, never", [
    (_reversed_ties, "not the sentences of equal length: sentences 1 and 2 both have 9 tokens", "≤ is fine"),
    (_cut_at_budget, "a batch that costs exactly max_tokens fits", "≤ is fine"),
    (_shortest_first, "you sorted shortest first", "≤ is fine"),
])
def test_nb11_token_budget_tie_order_and_cut_are_told_apart(wrong, says, never):
    with pytest.raises(ExerciseError) as err:
        nb11.check_token_budget_batches(wrong)
    assert says in str(err.value) and never not in str(err.value)


def test_nb11_bf16_tie_hint_gives_no_formula():
    for wrong in (lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32),
                  lambda x: x.to(torch.bfloat16).float()):
        with pytest.raises(ExerciseError) as err:
            nb11.check_bf16_round(wrong)
        message = str(err.value)
        assert "0x7FFF" not in message and ">> 16" not in message and "lowest kept bit" not in message
    with pytest.raises(ExerciseError, match=r"1\.00390625 \(bits 0x3f808000\)"):   # a tie is the example shown
        nb11.check_bf16_round(lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32))


def test_nb11_bf16_other_mistake_fallback_gives_no_formula():
    def off(x):  # nearest, ties to even — but on the negative values' magnitude rounded the wrong way
        r = good_bf16_round(x)
        return torch.where(x < 0, (x.view(torch.int32) & -65536).view(torch.float32), r)
    with pytest.raises(ExerciseError) as err:
        nb11.check_bf16_round(off)
    assert "0x7FFF" not in str(err.value) and "ties to even" in str(err.value)


@pytest.mark.parametrize("check, fn, says", [
    (nb11.check_padding_share, lambda l, b, s: max(l[i:i + b] for i in range(0, len(l), b)).sum(),
     r"`padding_share_by_hand` \(lengths \[5, 12, 3, 9, 7, 2, 11\], batch size 3, sort=False\) raised AttributeError"),
    (nb11.check_token_budget_batches, lambda l, m: sorted(l)[len(l)], r"`token_budget_batches` \(lengths .*raised IndexError"),
    (nb11.check_bf16_round, lambda x: x.view(torch.int32) + 0x7FFF + (x.view(torch.int32) >> 16) & 1 + x,
     r"`bf16_round` raised NotImplementedError: .*not implemented for 'Float'"),   # PyTorch's, not the stub's
    (nb11.check_pick_precision, lambda rows, tol: rows["fp16"], r"`pick_precision` \(rows .*raised KeyError"),
    (nb12.check_top_k, lambda q, c, k: torch.topk(torch.as_tensor(q) @ torch.as_tensor(c), k),
     r"`top_k` \(queries \(6, 16\), corpus \(40, 16\), k=1\) raised RuntimeError"),
])
def test_a_function_that_raises_is_told_as_the_students_error_with_their_line(check, fn, says):
    with pytest.raises(ExerciseError, match=says) as err:
        check(fn)
    shown = "\n".join(err.value._render_traceback_())
    assert "In your code:" in shown and Path(__file__).name in shown
    assert "sbertlib/workbook/lessons" not in shown


def test_nb11_pick_precision_that_changes_the_table_it_was_given_is_refused():
    from sbertlib.workbook.lessons import nb11

    def pick_precision(rows, tolerance):
        base = rows.pop("fp32")             # the caller's table loses its fp32 row
        ok = [k for k, (_, sp) in rows.items() if abs(sp - base[1]) <= tolerance]
        return max(ok, key=lambda k: rows[k][0]) if ok else "fp32"
    with pytest.raises(ExerciseError, match=r"`pick_precision` \(rows .*" + IN_PLACE):
        nb11.check_pick_precision(pick_precision)


def test_nb11_stubs_are_reported_as_everywhere():
    from sbertlib.workbook.lessons import nb11

    def stub(*args):
        raise NotImplementedError
    for check in (nb11.check_pick_precision, nb11.check_bf16_round):
        with pytest.raises(ExerciseError, match="the exercise is not done yet"):
            check(stub)
