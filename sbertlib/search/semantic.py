"""Semantic search: the top-k corpus entries for every query, computed chunk by chunk so that the full
query × corpus score matrix never has to exist at once (sentence-transformers' ``util.semantic_search``,
written out). The chunked top-k here also serves paraphrase mining and the ANN indexes' exact baseline."""
from __future__ import annotations

import torch

from ..model.similarity import _as_2d, normalize, similarity_matrix
from ..errors import SettingError


def _prepare(x, measure: str) -> torch.Tensor:
    """As a float tensor; for cosine, normalised once here so each chunk only needs a dot product."""
    t = _as_2d(x).detach().float().cpu()
    return normalize(t) if measure == "cosine" else t


def _scores(q: torch.Tensor, c: torch.Tensor, measure: str) -> torch.Tensor:
    # Inputs were normalised by _prepare for cosine, so the dot product is the cosine.
    return q @ c.T if measure in ("cosine", "dot") else similarity_matrix(q, c, measure)


def _chunked_topk(queries: torch.Tensor, corpus: torch.Tensor, k: int, query_chunk_size: int,
                  corpus_chunk_size: int, measure: str, exclude_self: bool = False):
    """Top-``k`` (scores, ids) of every query row over the corpus, sorted best first.

    For each block of queries we walk through the corpus in chunks, keep the best ``k`` of each chunk,
    then take the best ``k`` of those candidates: the true top-``k`` is always among them, because each
    of its members is in the top-``k`` of its own chunk. ``exclude_self`` skips ``corpus[i]`` for query
    ``i`` (the two being the same collection).
    """
    if query_chunk_size < 1 or corpus_chunk_size < 1:
        raise SettingError("chunk sizes must be positive")
    n_q, n_c = len(queries), len(corpus)
    k = min(k, n_c - 1 if exclude_self else n_c)
    all_scores = torch.empty(n_q, max(k, 0))
    all_ids = torch.empty(n_q, max(k, 0), dtype=torch.long)
    if k <= 0 or n_q == 0:
        return all_scores, all_ids
    for q0 in range(0, n_q, query_chunk_size):
        q = queries[q0:q0 + query_chunk_size]
        cand_scores, cand_ids = [], []
        for c0 in range(0, n_c, corpus_chunk_size):
            s = _scores(q, corpus[c0:c0 + corpus_chunk_size], measure)
            if exclude_self:  # query row q0+r is corpus row q0+r: mask it if it falls in this chunk
                rows = torch.arange(len(q))
                cols = rows + q0 - c0
                inside = (cols >= 0) & (cols < s.shape[1])
                s[rows[inside], cols[inside]] = float("-inf")
            top_s, top_i = s.topk(min(k, s.shape[1]), dim=1)
            cand_scores.append(top_s)
            cand_ids.append(top_i + c0)
        cand_scores, cand_ids = torch.cat(cand_scores, dim=1), torch.cat(cand_ids, dim=1)
        best_s, pos = cand_scores.topk(k, dim=1)  # merge the chunks' candidates
        all_scores[q0:q0 + len(q)] = best_s
        all_ids[q0:q0 + len(q)] = cand_ids.gather(1, pos)
    return all_scores, all_ids


def semantic_search(query_emb, corpus_emb, top_k: int = 10, query_chunk_size: int = 100,
                    corpus_chunk_size: int = 50000, measure: str = "cosine") -> list[list[dict]]:
    """For each query, the ``top_k`` most similar corpus entries, best first.

    Returns one list per query of ``{"corpus_id": int, "score": float}`` dicts. ``measure`` is any of
    :data:`sbertlib.model.similarity.MEASURES` ("cosine", "dot", "manhattan", "euclidean").
    """
    q, c = _prepare(query_emb, measure), _prepare(corpus_emb, measure)
    if q.shape[1] != c.shape[1]:
        raise SettingError(f"query dim {q.shape[1]} != corpus dim {c.shape[1]}")
    scores, ids = _chunked_topk(q, c, top_k, query_chunk_size, corpus_chunk_size, measure)
    return [[{"corpus_id": int(i), "score": float(s)} for s, i in zip(srow, irow)]
            for srow, irow in zip(scores.tolist(), ids.tolist())]


def as_hits(scores, ids) -> list[list[dict]]:
    """``(scores, ids)`` arrays of shape ``(q, k)`` (a top-k search's result, best first) as
    :func:`semantic_search`'s hit lists: one list per query of ``{"corpus_id": int, "score": float}``."""
    scores = (_as_2d(scores).detach().cpu().double().tolist() if hasattr(scores, "detach")
              else [list(map(float, row)) for row in scores])
    ids = ids.tolist() if hasattr(ids, "tolist") else [list(row) for row in ids]
    if len(scores) != len(ids) or any(len(s) != len(i) for s, i in zip(scores, ids)):
        raise SettingError("scores and ids must have the same shape (queries, k)")
    return [[{"corpus_id": int(i), "score": float(s)} for s, i in zip(srow, irow)] for srow, irow in zip(scores, ids)]
