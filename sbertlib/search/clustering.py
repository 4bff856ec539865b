"""Clustering: community detection ("fast clustering", groups of sentences all within a cosine threshold
of a centre sentence) and plain k-means, for comparison."""
from __future__ import annotations

import numpy as np
import torch

from ..model.similarity import _as_2d, normalize
from .semantic import _prepare
from ..errors import SettingError


def community_detection(emb, threshold: float = 0.75, min_community_size: int = 10,
                        batch_size: int = 1024) -> list[list[int]]:
    """Fast clustering: communities of sentences whose cosine to a centre is ``>= threshold``.

    1. Every sentence with at least ``min_community_size`` neighbours (itself included) above the
       threshold proposes a community: those neighbours, most similar first (the centre leads).
    2. Proposals are taken largest first; members already claimed are dropped, and what is left is
       kept if it still has ``min_community_size`` members. Communities do not overlap, and
       sentences in no community are left out.
    Rows are scored ``batch_size`` at a time, so the full ``n × n`` matrix is never built.
    """
    x = _prepare(emb, "cosine")
    n = len(x)
    min_community_size = max(1, min(min_community_size, n))
    proposals = []
    for b0 in range(0, n, batch_size):
        s = x[b0:b0 + batch_size] @ x.T
        counts = (s >= threshold).sum(dim=1)
        for r in torch.nonzero(counts >= min_community_size).flatten().tolist():
            members = torch.nonzero(s[r] >= threshold).flatten()
            order = torch.argsort(s[r, members], descending=True, stable=True)
            proposals.append(members[order].tolist())
    proposals.sort(key=len, reverse=True)  # stable: equal sizes keep row order
    communities, taken = [], set()
    for proposal in proposals:
        rest = [m for m in proposal if m not in taken]
        if len(rest) >= min_community_size:
            communities.append(rest)
            taken.update(rest)
    communities.sort(key=len, reverse=True)
    return communities


def kmeans_clusters(emb, k: int, seed: int = 0, normalize_first: bool = True) -> np.ndarray:
    """k-means cluster labels, shape ``(n,)`` (scikit-learn, ``n_init=10``, fixed ``seed``).

    With ``normalize_first`` (default) the vectors are L2-normalised first, so Euclidean k-means
    groups by cosine similarity, the measure the embeddings were trained for.
    """
    from sklearn.cluster import KMeans

    x = _as_2d(emb).detach().cpu().double()
    x = (normalize(x) if normalize_first else x).numpy()
    if not 1 <= k <= len(x):
        raise SettingError(f"k must be between 1 and the number of rows ({len(x)}), got {k}")
    return KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(x)
