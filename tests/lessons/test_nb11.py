"""The checks of notebook 11 (speed lab), beyond what their declarations say (tests/lessons/test_declared.py runs every
declared slip): right answers written another way pass, a changed input is named, the references are the library's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from sbertlib.workbook.lessons import ExerciseError, nb11
from lesson_helpers import IN_PLACE, not_done


def padding_share(lengths, batch_size, sort):
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))
    batches = [[lengths[i] for i in order[s:s + batch_size]] for s in range(0, len(order), batch_size)]
    return 1 - sum(map(sum, batches)) / sum(max(b) * len(b) for b in batches)


def token_budget_batches(lengths, max_tokens, order=None):
    batches, batch = [], []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]) if order is None else order:
        if batch and (len(batch) + 1) * lengths[batch[0]] > max_tokens:
            batches.append(batch)
            batch = []
        batch.append(i)
    return batches + [batch] if batch else batches


def bf16_round(x):
    bits = x.view(torch.int32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & -65536).view(torch.float32)


def pick_precision(rows, tolerance):
    return max((k for k in rows if abs(rows[k][1] - rows["fp32"][1]) <= tolerance), key=lambda k: rows[k][0])


@pytest.mark.parametrize("check, right", [
    (nb11.check_padding_share, padding_share),
    (nb11.check_padding_share, lambda l, b, s: torch.tensor(padding_share(l, b, s), dtype=torch.float32)),  # float32
    (nb11.check_padding_share, lambda l, b, s: np.float64(padding_share(np.array(l), b, s))),
    (nb11.check_token_budget_batches, token_budget_batches),
    (nb11.check_token_budget_batches, lambda l, m: [np.array(b) for b in token_budget_batches(l, m)]),   # arrays
    (nb11.check_token_budget_batches, lambda l, m: token_budget_batches(l, m, np.argsort(-np.asarray(l), kind="stable"))),
    (nb11.check_bf16_round, bf16_round),
    (nb11.check_bf16_round, lambda x: bf16_round(x).numpy()),              # numpy, not a tensor
    (nb11.check_bf16_round, lambda x: bf16_round(x).double()),             # float64 holding the same values
    (nb11.check_bf16_round, lambda x: x.to(torch.bfloat16).float()),       # PyTorch's own rounding: not policed
    (nb11.check_pick_precision, pick_precision),
    (nb11.check_pick_precision, lambda r, t: sorted((k for k in r if abs(r[k][1] - r["fp32"][1]) <= t + 1e-12),
                                                    key=lambda k: r[k][0])[-1]),
])
def test_a_right_answer_written_another_way_passes(check, right, capsys):
    check(right)
    assert "[OK]" in capsys.readouterr().out


def test_the_references_are_the_librarys():
    from sbertlib.model.encoder import SentenceEncoder
    from sbertlib.model.precision import pick_precision as library_pick
    enc = SentenceEncoder.from_pretrained("tiny-random-bert")
    sents = ["a", "a much longer sentence than the first one", "two words", "three short words", "x y"]
    lengths = [len(x) for x in enc.tokenizer(sents, add_special_tokens=True)["input_ids"]]
    got = [sorted(p.tolist()) for p, _ in enc.batches(sents, 32, smart_batching=True, max_tokens=20)]
    assert got == [sorted(b) for b in nb11.token_budget_truth(lengths, 20)]
    for rows, tol in nb11.PICK.inputs():
        table = [{"precision": k, "sent_per_s": s, "spearman": sp} for k, (s, sp) in rows.items()]
        assert library_pick(table, tol) == nb11.pick_truth(rows, tol)


def bf16_round_in_place(x):
    """Right values, but rounds the caller's tensor: the view shares x's memory."""
    bits = x.view(torch.int32)
    bits.add_(0x7FFF + ((bits >> 16) & 1)).bitwise_and_(-65536)
    return bits.view(torch.float32).clone()


def test_bf16_round_that_changes_its_input_is_told_the_view_shares_its_memory():
    with pytest.raises(ExerciseError, match=IN_PLACE) as err:
        nb11.check_bf16_round(bf16_round_in_place)
    assert "shares x's memory" in str(err.value)


def test_a_wrong_answer_is_named_without_the_hidden_expected_value():
    with pytest.raises(ExerciseError) as err:
        nb11.check_padding_share(lambda l, b, s: 1 - padding_share(l, b, s))
    message = str(err.value)
    assert "share of the slots holding real tokens" in message and "[5, 12, 3, 9, 7, 2, 11]" in message
    assert f"{padding_share([5, 12, 3, 9, 7, 2, 11], 3, False):.4f}"[:5] not in message
    with pytest.raises(ExerciseError) as err:
        nb11.check_bf16_round(lambda x: ((x.view(torch.int32) + 0x8000) & -65536).view(torch.float32))
    assert "always round up" in str(err.value) and "0x7FFF" not in str(err.value)


@pytest.mark.parametrize("check, fn, says", [
    (nb11.check_padding_share, lambda l, b, s: max(l[i:i + b] for i in range(0, len(l), b)).sum(), "AttributeError"),
    (nb11.check_token_budget_batches, lambda l, m: sorted(l)[len(l)], "IndexError"),
    (nb11.check_bf16_round, lambda x: x.view(torch.int32) + 0x7FFF + (x.view(torch.int32) >> 16) & 1 + x,
     "NotImplementedError: .*not implemented for 'Float'"),   # PyTorch's, not the stub's
    (nb11.check_pick_precision, lambda rows, tol: rows["int2"], "KeyError"),
])
def test_a_function_that_raises_is_told_as_the_students_error_with_their_line(check, fn, says):
    with pytest.raises(ExerciseError, match=f"raised {says}") as err:
        check(fn)
    shown = "\n".join(err.value._render_traceback_())
    assert "In your code:" in shown and Path(__file__).name in shown and "sbertlib/workbook/lessons" not in shown


def test_a_table_changed_in_place_a_stub_and_a_non_function_are_named():
    def pops(rows, tolerance):
        base = rows.pop("fp32")             # the caller's table loses its fp32 row
        return max([k for k, (_, sp) in rows.items() if abs(sp - base[1]) <= tolerance] or ["fp32"],
                   key=lambda k: rows.get(k, base)[0])
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb11.check_pick_precision(pops)
    for check in (nb11.check_padding_share, nb11.check_token_budget_batches, nb11.check_bf16_round,
                  nb11.check_pick_precision):
        with pytest.raises(ExerciseError, match="not written yet"):
            check(not_done)
        with pytest.raises(ExerciseError, match="pass your function itself"):
            check(None)
