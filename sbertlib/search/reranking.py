"""Retrieve and re-rank, and rank metrics: the bi-encoder retrieves the top-k candidates fast, a
cross-encoder (:class:`sbertlib.model.cross_encoder.CrossEncoder`) re-scores only those, reading query and
candidate together; :func:`rank_metrics` scores a ranking against known targets (MRR, recall@k)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .semantic import semantic_search
from ..errors import SettingError


def rerank(hits: list[list[dict]], queries: Sequence[str], corpus: Sequence[str], cross_encoder,
           batch_size: int = 64) -> list[list[dict]]:
    """Re-score every query's hits with ``cross_encoder.predict((query, corpus[id]))`` and sort them by
    that score, best first. Each hit keeps its retrieval score as ``"bi_score"``; ``"score"`` becomes the
    cross-encoder's. All (query, candidate) pairs go through ``predict`` in one call (batched)."""
    if len(hits) != len(queries):
        raise SettingError(f"{len(hits)} hit lists for {len(queries)} queries")
    pairs = [(q, corpus[h["corpus_id"]]) for q, row in zip(queries, hits) for h in row]
    scores = iter(np.asarray(cross_encoder.predict(pairs, batch_size=batch_size), dtype=float).tolist()
                  if pairs else [])
    out = []
    for row in hits:
        rescored = [{"corpus_id": h["corpus_id"], "score": next(scores), "bi_score": h["score"]} for h in row]
        out.append(sorted(rescored, key=lambda h: -h["score"]))
    return out


def retrieve_and_rerank(queries: Sequence[str], corpus: Sequence[str], bi_encoder, cross_encoder,
                        top_k: int = 20, corpus_emb=None, batch_size: int = 64) -> list[list[dict]]:
    """Retrieve-and-re-rank: ``bi_encoder`` embeds the queries (and the corpus, unless ``corpus_emb``
    is given) and keeps each query's ``top_k`` by cosine (:func:`semantic_search`); ``cross_encoder``
    then re-scores those ``top_k`` candidates (:func:`rerank`). Cost: one encoding per query plus
    ``top_k`` cross-encoder passes, instead of one cross-encoder pass per corpus entry."""
    if corpus_emb is None:
        corpus_emb = bi_encoder.encode(list(corpus), batch_size=batch_size, show_progress_bar=False)
    if len(corpus_emb) != len(corpus):
        raise SettingError(f"corpus_emb has {len(corpus_emb)} rows for {len(corpus)} corpus texts")
    query_emb = bi_encoder.encode(list(queries), batch_size=batch_size, show_progress_bar=False)
    return rerank(semantic_search(query_emb, corpus_emb, top_k=top_k), queries, corpus, cross_encoder, batch_size)


def rank_metrics(hits: list[list[dict]], target_ids: Sequence[int], ks: Sequence[int] = (1, 10)) -> dict:
    """How well ranked lists find each query's one known target: ``recall@k`` (share of queries whose
    target is in the top k) for each ``k`` in ``ks``, and ``MRR@K`` (mean of 1/rank of the target, 0
    when it is not in the list; ``K`` = the longest list)."""
    if len(hits) != len(target_ids):
        raise SettingError(f"{len(hits)} hit lists for {len(target_ids)} targets")
    if not hits:
        raise SettingError("no queries to score")
    ranks = []
    for row, target in zip(hits, target_ids):
        ids = [h["corpus_id"] for h in row]
        ranks.append(ids.index(target) + 1 if target in ids else None)
    depth = max(len(row) for row in hits)
    out = {f"recall@{k}": float(np.mean([r is not None and r <= k for r in ranks])) for k in ks}
    out[f"MRR@{depth}"] = float(np.mean([1.0 / r if r else 0.0 for r in ranks]))
    return out
