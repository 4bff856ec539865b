"""The exercise checks of notebooks 03–05: each passes a right answer and rejects wrong ones."""
from __future__ import annotations


import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.stats import pearsonr, rankdata

from sbertlib.workbook.checks import ExerciseError, nb04, nb05


def _unfinished(*args):
    raise NotImplementedError


# ----------------------------------------------------------------------------- nb04: spearman
def good_spearman(x, y):
    return float(pearsonr(rankdata(x), rankdata(y))[0])


def good_spearman_numpy(x, y):
    def ranks(a):
        a = np.asarray(a)
        order = np.argsort(a, kind="stable")
        r = np.empty(len(a))
        r[order] = np.arange(1, len(a) + 1)
        for value in np.unique(a):  # average the ranks of tied values
            r[a == value] = r[a == value].mean()
        return r
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def test_nb04_spearman_right_answers_pass(capsys):
    nb04.check_spearman(good_spearman)
    nb04.check_spearman(good_spearman_numpy)
    assert capsys.readouterr().out.count("[OK]") == 2


def _ordinal(a):
    return np.argsort(np.argsort(a, kind="stable"), kind="stable")


@pytest.mark.parametrize("wrong, hint", [
    (lambda x, y: float(pearsonr(x, y)[0]), "Pearson"),
    (lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0]), "average"),
    (lambda x, y: 100 * good_spearman(x, y), "100"),
    (lambda x, y: 1 - 6 * np.sum((rankdata(x) - rankdata(y)) ** 2) / (len(x) * (len(x) ** 2 - 1)), "shortcut"),
    (lambda x, y: np.corrcoef(rankdata(x), rankdata(y)), "single number"),
    (lambda x, y: None, None),
    (lambda x, y: ..., None),
    (_unfinished, "not done"),
])
def test_nb04_spearman_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_spearman(wrong)


def test_nb04_hidden_cases_have_ties():
    assert any(len(np.unique(x)) < len(x) for _, x, _ in nb04.hidden_cases())


# ----------------------------------------------------------------------------- nb05: regression loss
def good_loss(u, v, scores):
    return ((F.cosine_similarity(u, v, dim=1) - scores / 5) ** 2).mean()


def test_nb05_regression_loss_right_answer_passes(capsys):
    nb05.check_regression_loss(good_loss)
    nb05.check_regression_loss(lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / 5.0))
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s), "divide"),
    (lambda u, v, s: ((F.cosine_similarity(u, v) - s / 5) ** 2).sum(), "sum"),
    (lambda u, v, s: torch.sqrt(good_loss(u, v, s)), "RMSE"),
    (lambda u, v, s: F.mse_loss((u * v).sum(dim=1), s / 5), "dot"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5).abs().mean(), "absolute"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5) ** 2, "scalar"),
    (lambda u, v, s: ((F.cosine_similarity(u, v).unsqueeze(1) - s / 5) ** 2).mean(), None),  # (B, B) broadcast
    (lambda u, v, s: good_loss(u, v, s).item(), "tensor"),
    (lambda u, v, s: good_loss(u, v, s).detach(), "detached"),
    (lambda u, v, s: None, None),
    (_unfinished, "not done"),
])
def test_nb05_regression_loss_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_loss(wrong)


def test_nb05_truth_is_the_library_loss():
    from sbertlib.losses import CosineSimilarityLoss
    g = torch.Generator().manual_seed(0)
    u, v = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
    s = torch.tensor([0.0, 2.5, 4.0, 5.0])
    lib = CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], s / 5)
    assert torch.allclose(nb05.regression_loss_truth(u, v, s), lib)
