"""Self-checks for ``02_the_siamese_network``."""
from __future__ import annotations

from typing import Callable, Sequence

import torch

from ...losses import CONCAT_PARTS, pair_features
from ...paper import TABLE6_CONCATS
from . import ExerciseError, ok, require
from .nb00 import _call

__all__ = ["check_concat_features", "reference_features", "TABLE6_CONCATS"]

PARTS = CONCAT_PARTS


def reference_features(u: torch.Tensor, v: torch.Tensor, parts: Sequence[str]) -> torch.Tensor:
    """The library's answer: :func:`sbertlib.losses.pair_features`."""
    return pair_features(u, v, parts)


def _diagnose(got: torch.Tensor, u: torch.Tensor, v: torch.Tensor, parts: tuple[str, ...]) -> str:
    n = u.shape[1]
    want = reference_features(u, v, parts)
    for k, p in enumerate(parts):
        block = got[:, k * n:(k + 1) * n]
        if torch.allclose(block, want[:, k * n:(k + 1) * n], atol=1e-5):
            continue
        if p == "|u-v|" and torch.allclose(block, u - v, atol=1e-5):
            return f"block {k} ('|u-v|') is u − v without the absolute value: use (u - v).abs()"
        if p == "|u-v|" and torch.allclose(block, v - u, atol=1e-5):
            return f"block {k} ('|u-v|') is v − u without the absolute value: use (u - v).abs()"
        others = [q for q in PARTS if q != p and torch.allclose(block, reference_features(u, v, (q,)), atol=1e-5)]
        if others:
            return (f"block {k} should be {p!r} but holds {others[0]!r}: put the parts in the order "
                    f"they are named in {parts}")
        return f"block {k} (the part {p!r}) has the wrong values"
    return "the values are wrong"


def check_concat_features(concat_features: Callable, u: torch.Tensor | None = None,
                          v: torch.Tensor | None = None) -> None:
    """Check ``concat_features(u, v, parts)`` for every concatenation of the paper's Table 6.

    Tested on random ``u, v`` of a few shapes (and on the notebook's ``u, v`` if given) against a
    reference computed here: shape ``(B, len(parts)·n)`` and the values of each block in order.
    """
    require(callable(concat_features), "pass your function itself: check_concat_features(concat_features, u, v)")
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)),
              (torch.randn(1, 6, generator=g), torch.randn(1, 6, generator=g))]
    if u is not None and v is not None:
        inputs.append((u.detach().float().cpu(), v.detach().float().cpu()))
    for a, b in inputs:
        for parts in TABLE6_CONCATS:
            got = _call(concat_features, a.clone(), b.clone(), parts)
            require(got is not None and got is not NotImplemented, f"concat_features(u, v, {parts}) returned {got!r}",
                    "return the concatenated tensor")
            require(isinstance(got, torch.Tensor), f"concat_features returned a {type(got).__name__}, not a torch tensor",
                    "use torch.cat([...], dim=1)")
            got = got.detach().float().cpu()
            want = reference_features(a, b, parts)
            require(tuple(got.shape) == tuple(want.shape),
                    f"for u, v of shape {tuple(a.shape)} and parts {parts} you returned shape {tuple(got.shape)}, "
                    f"expected {tuple(want.shape)} = (batch, {len(parts)}·n)",
                    "concatenate along the feature axis: torch.cat(list_of_parts, dim=1)")
            if not torch.allclose(got, want, atol=1e-5):
                raise ExerciseError(f"concat_features(u, v, {parts}) has the right shape but wrong values\n"
                                    f"Hint: {_diagnose(got, a, b, parts)}")
    ok("concat_features is right for all seven concatenations of Table 6")
