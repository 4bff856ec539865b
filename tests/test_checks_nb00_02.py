"""The exercise checks of notebooks 00–02: each passes a right answer and rejects wrong ones."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbertlib.workbook.checks import ExerciseError, nb00, nb01, nb02


# ----------------------------------------------------------------------------- nb00
def _sim(n: int = 4, seed: int = 1) -> torch.Tensor:
    x = torch.nn.functional.normalize(torch.randn(n, 8, generator=torch.Generator().manual_seed(seed)), dim=1)
    return x @ x.T


def good_pair(sim):
    m = torch.as_tensor(np.asarray(sim)).clone().double()
    m.fill_diagonal_(-float("inf"))
    i, j = divmod(int(torch.argmax(m)), m.shape[1])
    return j, i  # order must not matter


def test_nb00_right_answer_passes_on_torch_and_numpy(capsys):
    nb00.check_most_similar_pair(good_pair, _sim())
    nb00.check_most_similar_pair(good_pair, _sim(6, seed=3).numpy())
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb00_truth_ignores_the_diagonal():
    m = np.array([[1.0, 0.2, 0.7], [0.2, 1.0, 0.1], [0.7, 0.1, 1.0]])
    assert nb00.most_similar_pair_truth(m) == (0, 2)


@pytest.mark.parametrize("wrong", [
    lambda sim: divmod(int(np.argmax(np.asarray(sim))), np.asarray(sim).shape[1]),  # diagonal included
    lambda sim: good_pair(-np.asarray(sim) + 2 * np.eye(len(sim))),  # least similar pair
    lambda sim: (0, 1),  # hard-coded
    lambda sim: None,
    lambda sim: 3,
    lambda sim: (0, 99),
])
def test_nb00_wrong_answers_fail(wrong):
    with pytest.raises(ExerciseError):
        nb00.check_most_similar_pair(wrong, _sim())


def test_nb00_unfinished_stub_and_non_callable_fail():
    def stub(sim):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb00.check_most_similar_pair(stub, _sim())
    with pytest.raises(ExerciseError):
        nb00.check_most_similar_pair((0, 1), _sim())


def test_nb00_diagonal_mistake_gets_a_hint():
    with pytest.raises(ExerciseError, match="itself"):
        nb00.check_most_similar_pair(lambda s: divmod(int(np.argmax(np.asarray(s))), len(s)), _sim())


# ----------------------------------------------------------------------------- nb01: pair count
def test_nb01_pair_count_right(capsys):
    nb01.check_pair_count(lambda n: n * (n - 1) // 2)
    nb01.check_pair_count(lambda n: n * (n - 1) / 2)  # a float with the right value is fine
    assert "49,995,000" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n: n * n, "ordered"),
    (lambda n: n * (n - 1), "symmetric"),
    (lambda n: n * (n + 1) // 2, "itself"),
    (lambda n: 49_995_000, None),  # the one number, hard-coded
    (lambda n: None, None),
])
def test_nb01_pair_count_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_pair_count(wrong)


def test_nb01_hours_right(capsys):
    nb01.check_cross_encoder_hours(lambda n, pps: n * (n - 1) / 2 / pps / 3600)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, pps: n * (n - 1) / 2 / pps, "seconds"),
    (lambda n, pps: n * (n - 1) / 2 / pps / 60, "minutes"),
    (lambda n, pps: n * n / pps / 3600, "n²"),
    (lambda n, pps: 65.0, None),
    (lambda n, pps: NotImplemented, None),
])
def test_nb01_hours_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_cross_encoder_hours(wrong)


# ----------------------------------------------------------------------------- nb01: anisotropy
def good_anisotropy(v):
    x = np.asarray(v, dtype=float)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = x @ x.T
    n = len(x)
    return (cos.sum() - n) / (n * (n - 1))


def test_nb01_anisotropy_right(capsys):
    nb01.check_anisotropy(good_anisotropy)
    nb01.check_anisotropy(lambda v: torch.tensor(good_anisotropy(v)))  # a 0-d tensor is accepted too
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb01_anisotropy_truth():
    assert nb01.anisotropy_truth(np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0]])) == pytest.approx(1 / 3)
    assert nb01.anisotropy_truth(np.eye(4)) == pytest.approx(0.0)


def _unit(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("wrong, hint", [
    (lambda v: (_unit(v) @ _unit(v).T).mean(), "diagonal"),                      # each sentence with itself
    (lambda v: (v @ v.T)[~np.eye(len(v), dtype=bool)].mean(), "dot product"),    # not normalised
    (lambda v: good_anisotropy(v - v.mean(axis=0)), "centred"),                  # measures the fixed vectors
    (lambda v: 0.9, None),
    (lambda v: None, None),
])
def test_nb01_anisotropy_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb01.check_anisotropy(wrong)


# ----------------------------------------------------------------------------- nb02
def good_concat(u, v, parts):
    table = {"u": u, "v": v, "|u-v|": torch.abs(u - v), "u*v": u * v}
    return torch.cat([table[p] for p in parts], dim=1)


def test_nb02_concat_right(capsys):
    u, v = torch.randn(2, 5), torch.randn(2, 5)
    nb02.check_concat_features(good_concat, u, v)
    nb02.check_concat_features(good_concat)
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb02_reference_matches_the_softmax_loss_features():
    from sbertlib.losses import SoftmaxLoss
    from sbertlib.paper import TABLE6_CONCATS

    class Stub(torch.nn.Module):
        dim = 5

    u, v = torch.randn(3, 5), torch.randn(3, 5)
    assert [tuple(c) for c in TABLE6_CONCATS] == list(nb02.TABLE6_CONCATS)
    for parts in TABLE6_CONCATS:
        loss = SoftmaxLoss(Stub(), concat=parts)
        assert torch.equal(loss.features(u, v), nb02.reference_features(u, v, parts))


@pytest.mark.parametrize("wrong, hint", [
    (lambda u, v, parts: torch.cat([{"u": u, "v": v, "|u-v|": u - v, "u*v": u * v}[p] for p in parts], 1),
     "absolute value"),
    (lambda u, v, parts: torch.cat([good_concat(u, v, (p,)) for p in reversed(parts)], 1), "order"),
    (lambda u, v, parts: torch.stack([good_concat(u, v, (p,)) for p in parts], 1), "shape"),
    (lambda u, v, parts: good_concat(u, v, parts).T, "shape"),
    (lambda u, v, parts: torch.cat([u, v, (u - v).abs()], 1), "shape"),  # always the paper's three
    (lambda u, v, parts: good_concat(u, v, parts).numpy(), "torch tensor"),
    (lambda u, v, parts: None, None),
])
def test_nb02_concat_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb02.check_concat_features(wrong)


@pytest.mark.parametrize("value, says", [(5, "returned 5, not a pair"), ((1, 2, 3), "3 values, not a pair"),
                                         (None, "returned None"), (NotImplemented, "NotImplemented"),
                                         (..., "Ellipsis")])
def test_two_items_says_what_came_back(value, says):
    from sbertlib.workbook.checks import ExerciseError, two_items
    with pytest.raises(ExerciseError, match=says) as err:
        two_items(value, "f() returned", "return (a, b)")
    assert "Hint: return (a, b)" in str(err.value)
    assert two_items((7, 8), "f() returned", "") == [7, 8]
