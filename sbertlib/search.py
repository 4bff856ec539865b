"""Applications of sentence embeddings: semantic search, paraphrase mining, clustering, and ANN indexes.

These follow the recipes of the sentence-transformers ``util`` module (the paper's companion library),
written here from scratch so each step can be read:

* :func:`semantic_search` — top-k corpus entries for every query, computed chunk by chunk so that the
  full query × corpus score matrix never has to exist at once;
* :func:`paraphrase_mining_embeddings` — the most similar pairs inside one collection;
* :func:`community_detection` — "fast clustering": groups of sentences that are all within a cosine
  threshold of a centre sentence;
* :func:`kmeans_clusters` — plain k-means, for comparison;
* :func:`rerank` / :func:`retrieve_and_rerank` — the bi-encoder retrieves the top-k candidates fast, a
  cross-encoder (:class:`sbertlib.model.cross_encoder.CrossEncoder`) re-scores only those, reading query
  and candidate together; :func:`rank_metrics` scores a ranking against known targets (MRR, recall@k);
* FAISS helpers (:func:`build_faiss_index`, :func:`faiss_search`, :func:`compare_indexes`) — exact and
  approximate nearest-neighbour indexes over L2-normalised vectors, where inner product = cosine.

All functions accept numpy arrays or torch tensors of shape ``(n, dim)``.
"""
from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import torch

from .model.similarity import _as_2d, normalize, similarity_matrix
from .util import optional_import

INDEX_KINDS = ("flat", "ivf", "hnsw")


# --------------------------------------------------------------------------- chunked top-k

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
        raise ValueError("chunk sizes must be positive")
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


# --------------------------------------------------------------------------- semantic search

def semantic_search(query_emb, corpus_emb, top_k: int = 10, query_chunk_size: int = 100,
                    corpus_chunk_size: int = 50000, measure: str = "cosine") -> list[list[dict]]:
    """For each query, the ``top_k`` most similar corpus entries, best first.

    Returns one list per query of ``{"corpus_id": int, "score": float}`` dicts. ``measure`` is any of
    :data:`sbertlib.model.similarity.MEASURES` ("cosine", "dot", "manhattan", "euclidean").
    """
    q, c = _prepare(query_emb, measure), _prepare(corpus_emb, measure)
    if q.shape[1] != c.shape[1]:
        raise ValueError(f"query dim {q.shape[1]} != corpus dim {c.shape[1]}")
    scores, ids = _chunked_topk(q, c, top_k, query_chunk_size, corpus_chunk_size, measure)
    return [[{"corpus_id": int(i), "score": float(s)} for s, i in zip(srow, irow)]
            for srow, irow in zip(scores.tolist(), ids.tolist())]


# --------------------------------------------------------------------------- paraphrase mining

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


# --------------------------------------------------------------------------- retrieve and re-rank

def rerank(hits: list[list[dict]], queries: Sequence[str], corpus: Sequence[str], cross_encoder,
           batch_size: int = 64) -> list[list[dict]]:
    """Re-score every query's hits with ``cross_encoder.predict((query, corpus[id]))`` and sort them by
    that score, best first. Each hit keeps its retrieval score as ``"bi_score"``; ``"score"`` becomes the
    cross-encoder's. All (query, candidate) pairs go through ``predict`` in one call (batched)."""
    if len(hits) != len(queries):
        raise ValueError(f"{len(hits)} hit lists for {len(queries)} queries")
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
        raise ValueError(f"corpus_emb has {len(corpus_emb)} rows for {len(corpus)} corpus texts")
    query_emb = bi_encoder.encode(list(queries), batch_size=batch_size, show_progress_bar=False)
    return rerank(semantic_search(query_emb, corpus_emb, top_k=top_k), queries, corpus, cross_encoder, batch_size)


def rank_metrics(hits: list[list[dict]], target_ids: Sequence[int], ks: Sequence[int] = (1, 10)) -> dict:
    """How well ranked lists find each query's one known target: ``recall@k`` (share of queries whose
    target is in the top k) for each ``k`` in ``ks``, and ``MRR@K`` (mean of 1/rank of the target, 0
    when it is not in the list; ``K`` = the longest list)."""
    if len(hits) != len(target_ids):
        raise ValueError(f"{len(hits)} hit lists for {len(target_ids)} targets")
    if not hits:
        raise ValueError("no queries to score")
    ranks = []
    for row, target in zip(hits, target_ids):
        ids = [h["corpus_id"] for h in row]
        ranks.append(ids.index(target) + 1 if target in ids else None)
    depth = max(len(row) for row in hits)
    out = {f"recall@{k}": float(np.mean([r is not None and r <= k for r in ranks])) for k in ks}
    out[f"MRR@{depth}"] = float(np.mean([1.0 / r if r else 0.0 for r in ranks]))
    return out


# --------------------------------------------------------------------------- clustering

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
        raise ValueError(f"k must be between 1 and the number of rows ({len(x)}), got {k}")
    return KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(x)


# --------------------------------------------------------------------------- FAISS

def _unit_float32(x) -> np.ndarray:
    """L2-normalised, contiguous float32 numpy copy (what FAISS wants)."""
    return np.ascontiguousarray(normalize(_as_2d(x).detach().cpu()).float().numpy(), dtype=np.float32)


def synthetic_corpus(n: int, dim: int = 384, n_clusters: int = 100, seed: int = 0,
                     noise: float = 1.0) -> np.ndarray:
    """``n`` unit vectors drawn around ``n_clusters`` random unit centres (float32, shape ``(n, dim)``).

    A stand-in for a large embedded corpus: topical clusters, normalised like sentence embeddings.
    ``noise`` is the noise's norm relative to the centre's. For queries from the same distribution,
    draw ``n + n_queries`` rows and split them: ``corpus, queries = emb[:n], emb[n:]``.
    """
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_clusters, dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    points = centres[rng.integers(0, n_clusters, size=n)]
    points = points + noise * rng.standard_normal((n, dim)) / np.sqrt(dim)
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def build_faiss_index(emb, kind: str = "flat", nlist: int | None = None, nprobe: int = 8,
                      M: int = 32, ef_search: int = 64, ef_construction: int = 64, seed: int = 0):
    """A FAISS inner-product index over the L2-normalised ``emb`` (so scores are cosines).

    * ``"flat"`` — exact brute force (``IndexFlatIP``);
    * ``"ivf"`` — inverted file: k-means into ``nlist`` cells (default ≈ 4·√n, at most n/39 so each
      cell has training points), search visits the ``nprobe`` nearest cells;
    * ``"hnsw"`` — graph index, ``M`` links per node, ``ef_search`` candidates kept while searching.
    """
    faiss = optional_import("faiss", "search")

    x = _unit_float32(emb)
    n, dim = x.shape
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "ivf":
        if nlist is None:
            nlist = int(np.clip(round(4 * np.sqrt(n)), 1, max(1, n // 39)))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)  # keeps a reference
        index.cp.seed = seed
        index.train(x)
        index.nprobe = min(nprobe, nlist)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
        index.hnsw.efSearch = ef_search
    else:
        raise ValueError(f"unknown index kind {kind!r}; choose one of {INDEX_KINDS}")
    index.add(x)
    return index


def faiss_search(index, queries, top_k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, ids)``, each ``(n_queries, top_k)``, best first; queries are L2-normalised first."""
    return index.search(_unit_float32(queries), top_k)


def sharded_search(indexes: Sequence, queries, top_k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Search a corpus split over several indexes — as over several machines — and merge.

    Shard ``s`` holds the corpus rows that follow shard ``s−1``'s (its ids are offset by the rows
    before it). Every shard returns its own top-k; the merger keeps the best ``top_k`` of the
    ``shards × top_k`` candidates. With exact (flat) shards this *is* the exact top-k — the global
    best k are each among their own shard's best k; approximate shards keep their own recall.
    """
    if not indexes:
        raise ValueError("sharded_search needs at least one index")
    scores, ids, offset = [], [], 0
    for index in indexes:
        s, i = faiss_search(index, queries, top_k)
        scores.append(s)
        ids.append(np.where(i >= 0, i + offset, -1))  # FAISS pads a short result with -1
        offset += index.ntotal
    s, i = np.concatenate(scores, axis=1), np.concatenate(ids, axis=1)
    best = np.argsort(-s, axis=1, kind="stable")[:, :top_k]
    return np.take_along_axis(s, best, axis=1), np.take_along_axis(i, best, axis=1)


def recall_at_k(approx_ids, exact_ids, k: int) -> float:
    """Mean over queries of |approx top-k ∩ exact top-k| / k."""
    approx, exact = np.asarray(approx_ids)[:, :k], np.asarray(exact_ids)[:, :k]
    if len(approx) != len(exact):
        raise ValueError(f"{len(approx)} approximate rows vs {len(exact)} exact rows")
    hits = [len(set(a.tolist()) & set(e.tolist())) for a, e in zip(approx, exact)]
    return float(np.mean(hits) / k) if hits else float("nan")


def _index_params(index, kind: str) -> str:
    if kind == "ivf":
        return f"nlist={index.nlist}, nprobe={index.nprobe}"
    if kind == "hnsw":
        return f"M={index.hnsw.nb_neighbors(1)}, efSearch={index.hnsw.efSearch}"
    return "exact"


def compare_indexes(corpus_emb, query_emb, top_k: int = 10, kinds: Sequence[str] = INDEX_KINDS,
                    **index_kwargs):
    """Build each index kind and measure it against exact (torch brute-force) search.

    One row per kind: ``build_s`` (seconds to train and add), ``latency_ms`` (median over the queries
    of searching one query at a time), ``recall@{top_k}`` (vs the exact top-k) and the index
    ``params``. Extra keyword arguments (``nlist``, ``nprobe``, ``M``, ``ef_search``) go to
    :func:`build_faiss_index`.
    """
    queries = _unit_float32(query_emb)
    _, exact = _chunked_topk(torch.from_numpy(queries), torch.from_numpy(_unit_float32(corpus_emb)),
                             top_k, 100, 50_000, "dot")
    rows = []
    for kind in kinds:
        t0 = time.perf_counter()
        index = build_faiss_index(corpus_emb, kind, **index_kwargs)
        build_s = time.perf_counter() - t0
        latencies = []
        for q in queries:
            t0 = time.perf_counter()
            index.search(q[None, :], top_k)
            latencies.append(time.perf_counter() - t0)
        _, ids = index.search(queries, top_k)
        rows.append({"index": kind, "build_s": build_s, "latency_ms": 1000 * float(np.median(latencies)),
                     f"recall@{top_k}": recall_at_k(ids, exact.numpy(), top_k),
                     "params": _index_params(index, kind)})
    pd = optional_import("pandas", "workbook")
    return pd.DataFrame(rows).set_index("index")
