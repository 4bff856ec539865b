"""Paraphrase mining: the most similar pairs inside one collection, each row's top-k neighbours at a time."""
from __future__ import annotations

import numpy as np
import torch

from .semantic import _chunked_topk, _prepare


def paraphrase_mining_embeddings(emb, top_k: int = 100, max_pairs: int = 500_000, chunk_size: int = 5000,
                                 corpus_chunk_size: int = 100_000, measure: str = "cosine"
                                 ) -> list[tuple[float, int, int]]:
    """The most similar pairs ``(score, i, j)`` with ``i < j``, best first (at most ``max_pairs``).

    Only each row's ``top_k`` neighbours are considered, so memory stays at ``chunk_size × corpus_chunk_size``
    scores rather than ``n × n``. The result is exactly the global top ``max_pairs`` whenever
    ``max_pairs <= top_k`` (a pair in the global top m is in the top m of its own row); otherwise it
    is a very good approximation, as in sentence-transformers.
    """
    x = _prepare(emb, measure)
    n = len(x)
    scores, ids = _chunked_topk(x, x, top_k, chunk_size, corpus_chunk_size, measure, exclude_self=True)
    if scores.numel() == 0:
        return []
    rows = torch.arange(n).unsqueeze(1).expand_as(ids)
    i, j = torch.minimum(rows, ids).flatten(), torch.maximum(rows, ids).flatten()
    s = scores.flatten()
    # (i, j) and (j, i) are the same pair, found from both ends: keep one (their scores agree).
    key = i * n + j
    key, first = np.unique(key.numpy(), return_index=True)
    i, j, s = i.numpy()[first], j.numpy()[first], s.numpy()[first]
    order = np.lexsort((j, i, -s))[:max_pairs]  # score descending, ties by (i, j)
    return [(float(s[t]), int(i[t]), int(j[t])) for t in order]
