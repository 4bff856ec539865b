"""Applications of sentence embeddings: semantic search, paraphrase mining, re-ranking, clustering, and ANN indexes.

These follow the recipes of the sentence-transformers ``util`` module (the paper's companion library),
written here from scratch so each step can be read. One module an idea; every public name is also
importable from ``sbertlib.search`` itself:

* :mod:`.semantic` — :func:`semantic_search`: top-k corpus entries for every query, computed chunk by
  chunk so that the full query × corpus score matrix never has to exist at once; :func:`as_hits` turns
  ``(scores, ids)`` arrays into its hit lists;
* :mod:`.paraphrase` — :func:`paraphrase_mining_embeddings`: the most similar pairs inside one collection;
* :mod:`.reranking` — :func:`rerank` / :func:`retrieve_and_rerank`: the bi-encoder retrieves the top-k
  candidates fast, a cross-encoder (:class:`sbertlib.model.cross_encoder.CrossEncoder`) re-scores only
  those, reading query and candidate together; :func:`rank_metrics` scores a ranking against known
  targets (MRR, recall@k);
* :mod:`.clustering` — :func:`community_detection` ("fast clustering": groups of sentences that are all
  within a cosine threshold of a centre sentence) and :func:`kmeans_clusters`, plain k-means, for comparison;
* :mod:`.ann` — FAISS helpers (:func:`build_faiss_index`, :func:`faiss_search`, :func:`sharded_search`,
  :func:`compare_indexes`, :func:`recall_at_k`, :func:`synthetic_corpus`): exact and approximate
  nearest-neighbour indexes over L2-normalised vectors, where inner product = cosine.

All functions accept numpy arrays or torch tensors of shape ``(n, dim)``.
"""
from __future__ import annotations

from .ann import (INDEX_KINDS, build_faiss_index, compare_indexes, faiss_search, recall_at_k, sharded_search,
                  synthetic_corpus)
from .clustering import community_detection, kmeans_clusters
from .paraphrase import paraphrase_mining_embeddings
from .reranking import rank_metrics, rerank, retrieve_and_rerank
from .semantic import as_hits, semantic_search

__all__ = ["INDEX_KINDS", "as_hits", "build_faiss_index", "compare_indexes", "community_detection", "faiss_search",
           "kmeans_clusters", "paraphrase_mining_embeddings", "rank_metrics", "recall_at_k", "rerank",
           "retrieve_and_rerank", "semantic_search", "sharded_search", "synthetic_corpus"]
