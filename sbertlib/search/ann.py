"""Approximate nearest-neighbour (ANN) indexes with FAISS: exact and approximate inner-product indexes over
L2-normalised vectors (where inner product = cosine), sharded search, recall against exact search, and a
synthetic corpus to measure them on."""
from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import torch

from ..model.similarity import _as_2d, normalize
from ..util import optional_import
from .semantic import _chunked_topk
from ..errors import SettingError

INDEX_KINDS = ("flat", "ivf", "hnsw")


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
        raise SettingError(f"unknown index kind {kind!r}; choose one of {INDEX_KINDS}")
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
        raise SettingError("sharded_search needs at least one index")
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
        raise SettingError(f"{len(approx)} approximate rows vs {len(exact)} exact rows")
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
