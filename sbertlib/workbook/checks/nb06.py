"""Self-checks for ``06_triplet_objective``."""
from __future__ import annotations

from typing import Callable

import torch

from ...losses import TripletLoss
from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_triplet_loss", "reference_triplet_loss"]

MARGINS = (1.0, 0.1, 0.5, 5.0)


def reference_triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor,
                           margin: float = 1.0) -> torch.Tensor:
    """The library's triplet loss (Euclidean, mean over the batch) — what the answer must equal."""
    return TripletLoss(torch.nn.Identity(), distance="euclidean", margin=margin).loss_from_embeddings(
        [anchor, positive, negative])


def _hidden_cases() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Random triplets of a few shapes; in the last one most negatives are far away, so that many
    triplets already satisfy the margin (zero loss) and the hinge matters."""
    g = torch.Generator().manual_seed(2019)
    cases = []
    for b, n in ((8, 5), (3, 16), (16, 4)):
        cases.append((torch.randn(b, n, generator=g), torch.randn(b, n, generator=g), torch.randn(b, n, generator=g)))
    a = torch.randn(12, 6, generator=g)
    p = a + 0.3 * torch.randn(12, 6, generator=g)
    neg = a + torch.where(torch.arange(12).unsqueeze(1) % 3 == 0, 0.2, 4.0) * torch.randn(12, 6, generator=g)
    cases.append((a, p, neg))
    return cases


def _diagnose(value: float, a, p, n, margin: float) -> str:
    d_ap, d_an = torch.linalg.vector_norm(a - p, dim=1), torch.linalg.vector_norm(a - n, dim=1)
    close = lambda x: abs(value - float(x)) <= 1e-4 * max(1.0, abs(float(x)))  # noqa: E731
    candidates = [
        ((d_ap - d_an + margin).mean(), "you are missing the hinge max(·, 0): triplets that already satisfy the "
                                        "margin must contribute 0, not a negative number (use torch.relu or clamp(min=0))"),
        (torch.relu(d_an - d_ap + margin).mean(), "positive and negative are swapped: the loss is "
                                                  "max(‖a−p‖ − ‖a−n‖ + ε, 0)"),
        (torch.relu(d_ap ** 2 - d_an ** 2 + margin).mean(), "you used squared distances; the paper uses the "
                                                            "Euclidean distance itself, ‖a−p‖ (torch.linalg.vector_norm)"),
        (torch.relu(d_ap - d_an + margin).sum(), "you summed over the batch; take the mean"),
        (torch.relu(d_ap - d_an).mean(), "the margin ε is missing: add it inside the max"),
        (torch.relu(d_ap - d_an - margin).mean(), "the margin has the wrong sign: max(‖a−p‖ − ‖a−n‖ + ε, 0)"),
    ]
    for fixed in (1.0, 5.0, 0.0):
        if fixed != margin:
            candidates.append((torch.relu(d_ap - d_an + fixed).mean(),
                               f"this is the loss for margin {fixed:g}, but the margin passed was {margin:g}: "
                               "use the `margin` argument, do not hard-code it"))
    for want, hint in candidates:
        if close(want):
            return hint
    return "compare step by step: d(a,p) = ‖a−p‖ per row, d(a,n) likewise, then max(d(a,p) − d(a,n) + ε, 0), then the mean"


def check_triplet_loss(triplet_loss: Callable) -> None:
    """Check ``triplet_loss(anchor, positive, negative, margin) -> scalar`` against the library.

    Hidden random batches of several shapes and margins ε ∈ {1, 0.1, 0.5, 5}; the answer must be
    ``mean(max(‖a−p‖ − ‖a−n‖ + ε, 0))`` with Euclidean distances, as
    :class:`sbertlib.losses.TripletLoss` computes it.
    """
    require(callable(triplet_loss), f"pass your function itself, not {type(triplet_loss).__name__}",
            "check_triplet_loss(triplet_loss) — no parentheses after the name")
    for a, p, n in _hidden_cases():
        for margin in MARGINS:
            got = _call(triplet_loss, a.clone(), p.clone(), n.clone(), margin)
            require(got is not None and got is not Ellipsis and got is not NotImplemented,
                    f"triplet_loss returned {got!r}", "return the loss, a scalar tensor")
            if isinstance(got, (int, float)) and not isinstance(got, bool):
                got = torch.tensor(float(got))
            require(isinstance(got, torch.Tensor), f"triplet_loss returned a {type(got).__name__}, not a tensor",
                    "compute it with torch operations on the input tensors")
            require(got.numel() == 1,
                    f"for a batch of {a.shape[0]} triplets you returned shape {tuple(got.shape)}, not a scalar",
                    "the loss is the *mean* over the batch of the per-triplet hinge: add .mean()")
            want = reference_triplet_loss(a, p, n, margin)
            value = float(got.detach().reshape(()))
            if abs(value - float(want)) > 1e-4 * max(1.0, abs(float(want))):
                raise ExerciseError(f"for a batch of {a.shape[0]} triplets of size {a.shape[1]} and margin {margin:g} "
                                    f"you returned {value:.5f}, expected {float(want):.5f}\n"
                                    f"Hint: {_diagnose(value, a, p, n, margin)}")
    ok("triplet_loss equals sbertlib.losses.TripletLoss (Euclidean, hinge, margin) on every hidden batch")
