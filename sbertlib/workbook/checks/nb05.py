"""Self-checks for ``05_regression_and_two_stage``."""
from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_regression_loss", "regression_loss_truth"]

MAX_SCORE = 5.0  # STSb gold scores run from 0 to 5


def regression_loss_truth(u: torch.Tensor, v: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """``CosineSimilarityLoss.loss_from_embeddings([u, v], scores / 5)``: mean of (cos(u, v) − score/5)²."""
    from ...losses import CosineSimilarityLoss
    return CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], scores / MAX_SCORE)


def _hidden_batches():
    g = torch.Generator().manual_seed(5)
    for batch, dim in ((6, 8), (1, 5), (11, 3)):
        u, v = torch.randn(batch, dim, generator=g), torch.randn(batch, dim, generator=g)
        v[0] = 2.5 * u[0] + 0.05 * v[0]  # one near-duplicate pair, with a different vector length
        scores = torch.randint(0, 11, (batch,), generator=g).float() / 2  # 0, 0.5, …, 5
        yield u, v, scores


def _hint(got: float, u, v, scores) -> str:
    cos = F.cosine_similarity(u, v, dim=1)
    dot = (u * v).sum(dim=1)
    gold = scores / MAX_SCORE
    candidates = {
        "you compared with the raw 0–5 score: divide the gold score by 5 first (STSPair.label does)":
            F.mse_loss(cos, scores),
        "that is the *sum* of squared errors: the loss is their mean over the batch": ((cos - gold) ** 2).sum(),
        "that is the square root (RMSE): the loss is the mean squared error itself":
            torch.sqrt(F.mse_loss(cos, gold)),
        "you used the dot product u·v; the objective uses the cosine, u·v / (‖u‖‖v‖)": F.mse_loss(dot, gold),
        "that is the mean absolute error: square the differences": (cos - gold).abs().mean(),
    }
    for hint, value in candidates.items():
        if abs(got - float(value)) < 1e-5:
            return hint
    return "cos = F.cosine_similarity(u, v, dim=1); loss = mean((cos − score/5)²)"


def check_regression_loss(regression_loss: Callable) -> None:
    """Check ``regression_loss(u, v, scores) -> scalar tensor`` on hidden batches.

    ``u, v``: ``(B, n)`` embeddings; ``scores``: ``(B,)`` gold scores on STSb's 0–5 scale. The truth is
    :class:`sbertlib.losses.CosineSimilarityLoss` on ``scores / 5``. The result must be a
    differentiable scalar tensor (a loss that training can back-propagate through).
    """
    require(callable(regression_loss), f"pass your function itself, not {type(regression_loss).__name__}",
            "check_regression_loss(regression_loss) — no parentheses after the name")
    for u, v, scores in _hidden_batches():
        ug, vg = u.clone().requires_grad_(True), v.clone().requires_grad_(True)
        got = _call(regression_loss, ug, vg, scores.clone())
        require(got is not None and got is not NotImplemented and got is not Ellipsis,
                f"your function returned {got!r}", "return the loss: a scalar tensor")
        require(isinstance(got, torch.Tensor),
                f"your function returned a {type(got).__name__}, not a torch tensor",
                "compute with torch operations and return the tensor (no .item(), no numpy): "
                "training back-propagates through it")
        require(got.numel() == 1, f"for a batch of {len(u)} pairs you returned a tensor of shape "
                f"{tuple(got.shape)}, not a scalar",
                "average the squared errors over the batch (.mean()); if the shape is (B, B), "
                "the gold scores broadcast against a (B, 1) column — keep both (B,)")
        want = float(regression_loss_truth(u, v, scores))
        value = float(got.detach())
        if abs(value - want) > 1e-5:
            raise ExerciseError(f"for a batch of {len(u)} pairs you returned {value:.6f}; "
                                f"CosineSimilarityLoss gives {want:.6f}\nHint: {_hint(value, u, v, scores)}")
        require(got.requires_grad, "the value is right but it is detached from u and v (no gradient)",
                "stay in torch end to end: no .item(), .detach() or numpy inside the loss")
        got.backward()
        require(ug.grad is not None and torch.isfinite(ug.grad).all(),
                "the loss does not back-propagate into u", "use torch operations on u and v")
    ok("regression_loss equals CosineSimilarityLoss: mean over the batch of (cos(u, v) − score/5)²")
