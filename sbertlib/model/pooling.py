"""Pooling: turn BERT's token vectors into one fixed-size sentence vector (paper, Section 3)."""
from __future__ import annotations

import torch
from ..errors import SettingError

POOLING_MODES = ("mean", "max", "cls")


def pool(token_embeddings: torch.Tensor, attention_mask: torch.Tensor, mode: str = "mean") -> torch.Tensor:
    """Pool ``(batch, seq, dim)`` token vectors into ``(batch, dim)`` sentence vectors.

    * ``mean`` — average of the real (non-padding) tokens, the paper's default;
    * ``max``  — element-wise maximum over the real tokens;
    * ``cls``  — the vector of the first token, ``[CLS]``.
    Padding positions (``attention_mask == 0``) never influence the result.
    """
    if mode == "cls":
        return token_embeddings[:, 0]
    mask = attention_mask.unsqueeze(-1).to(token_embeddings.dtype)
    if mode == "mean":
        summed = (token_embeddings * mask).sum(dim=1)
        counts = mask.sum(dim=1).clamp(min=1e-9)
        return summed / counts
    if mode == "max":
        masked = token_embeddings.masked_fill(mask == 0, torch.finfo(token_embeddings.dtype).min)
        return masked.max(dim=1).values
    raise SettingError(f"unknown pooling mode {mode!r}; choose one of {POOLING_MODES}")
