"""sbertlib.search against brute force on random data."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from sbertlib import search
from sbertlib.model.similarity import similarity_matrix


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(0)


def brute_topk(q, c, k, measure="cosine"):
    s = similarity_matrix(q, c, measure).numpy()
    ids = np.argsort(-s, axis=1, kind="stable")[:, :k]
    return ids, np.take_along_axis(s, ids, axis=1)


# --------------------------------------------------------------------------- semantic_search

@pytest.mark.parametrize("q_chunk,c_chunk", [(100, 50000), (7, 13), (1, 3), (3, 1), (50, 64)])
def test_semantic_search_matches_brute_force(rng, q_chunk, c_chunk):
    q, c = rng.standard_normal((23, 16)), rng.standard_normal((200, 16))
    hits = search.semantic_search(q, c, top_k=5, query_chunk_size=q_chunk, corpus_chunk_size=c_chunk)
    ids, scores = brute_topk(q, c, 5)
    assert len(hits) == 23 and all(len(h) == 5 for h in hits)
    assert [[h["corpus_id"] for h in row] for row in hits] == ids.tolist()
    np.testing.assert_allclose([[h["score"] for h in row] for row in hits], scores, atol=1e-5)
    assert all(isinstance(h["corpus_id"], int) and isinstance(h["score"], float) for h in hits[0])


@pytest.mark.parametrize("measure", ["dot", "manhattan", "euclidean"])
def test_semantic_search_other_measures(rng, measure):
    q, c = torch.randn(4, 8), torch.randn(60, 8)
    hits = search.semantic_search(q, c, top_k=4, corpus_chunk_size=7, measure=measure)
    ids, _ = brute_topk(q, c, 4, measure)
    assert [[h["corpus_id"] for h in row] for row in hits] == ids.tolist()


def test_accepts_tensors_that_track_gradients():
    x = torch.randn(12, 4, requires_grad=True)
    assert len(search.semantic_search(x[:2], x, top_k=3)[0]) == 3
    assert len(search.paraphrase_mining_embeddings(x, top_k=2, max_pairs=5)) == 5
    assert search.kmeans_clusters(x, 2).shape == (12,)
    assert search.build_faiss_index(x).ntotal == 12


def test_semantic_search_top_k_larger_than_corpus(rng):
    hits = search.semantic_search(rng.standard_normal((2, 4)), rng.standard_normal((3, 4)), top_k=10,
                                  corpus_chunk_size=2)
    assert [sorted(h["corpus_id"] for h in row) for row in hits] == [[0, 1, 2], [0, 1, 2]]


# --------------------------------------------------------------------------- paraphrase mining

def brute_pairs(x):
    s = similarity_matrix(x).numpy()
    n = len(x)
    pairs = [(float(s[i, j]), i, j) for i in range(n) for j in range(i + 1, n)]
    return sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))


@pytest.mark.parametrize("chunk,c_chunk", [(5000, 100000), (7, 11), (1, 2)])
def test_paraphrase_mining_matches_brute_force(rng, chunk, c_chunk):
    x = rng.standard_normal((40, 8))
    expected = brute_pairs(x)
    got = search.paraphrase_mining_embeddings(x, top_k=20, max_pairs=20, chunk_size=chunk,
                                              corpus_chunk_size=c_chunk)
    assert [(i, j) for _, i, j in got] == [(i, j) for _, i, j in expected[:20]]
    np.testing.assert_allclose([s for s, _, _ in got], [s for s, _, _ in expected[:20]], atol=1e-5)
    # With every neighbour kept, all n(n-1)/2 pairs come back, each once, i < j.
    full = search.paraphrase_mining_embeddings(x, top_k=39, max_pairs=10**6, chunk_size=chunk,
                                               corpus_chunk_size=c_chunk)
    assert [(i, j) for _, i, j in full] == [(i, j) for _, i, j in expected]


def test_paraphrase_mining_finds_planted_duplicates(rng):
    x = rng.standard_normal((50, 32))
    x[10], x[33] = x[3] + 0.01, x[20] + 0.01  # two near-duplicates
    got = search.paraphrase_mining_embeddings(x, top_k=3, max_pairs=2, chunk_size=16)
    assert {(i, j) for _, i, j in got} == {(3, 10), (20, 33)}
    assert all(s > 0.99 for s, _, _ in got)


# --------------------------------------------------------------------------- clustering

def planted_clusters(rng, sizes, dim=32, noise=0.15, n_noise=20):
    centres = rng.standard_normal((len(sizes), dim))
    rows, labels = [], []
    for c, size in enumerate(sizes):
        rows.append(centres[c] + noise * rng.standard_normal((size, dim)))
        labels += [c] * size
    rows.append(rng.standard_normal((n_noise, dim)))  # unrelated points: no community
    labels += [-1] * n_noise
    x, labels = np.concatenate(rows), np.array(labels)
    perm = rng.permutation(len(x))
    return x[perm], labels[perm]


def test_community_detection_finds_planted_clusters(rng):
    x, labels = planted_clusters(rng, [30, 20, 12])
    communities = search.community_detection(x, threshold=0.8, min_community_size=10, batch_size=16)
    found = [set(c) for c in communities]
    assert found == [set(np.flatnonzero(labels == k)) for k in range(3)]  # largest first
    assert [len(c) for c in communities] == [30, 20, 12]
    assert len(set().union(*found)) == sum(len(c) for c in communities)  # no overlap


def star(cosines: list[float], centre_at: int, dim: int = 32) -> np.ndarray:
    """A centre ``e0`` and one leaf per cosine: ``cos·e0 + sin·e_i`` with its own orthogonal direction
    ``e_i``, so leaf i has cosine ``cos_i`` to the centre and ``cos_i·cos_j`` to leaf j. The centre is
    row ``centre_at``, the leaves fill the other rows in the order given."""
    leaves = [c * np.eye(dim)[0] + np.sqrt(1 - c * c) * np.eye(dim)[i + 1] for i, c in enumerate(cosines)]
    return np.array(leaves[:centre_at] + [np.eye(dim)[0]] + leaves[centre_at:])


def test_community_detection_min_size_and_order(rng):
    x, labels = planted_clusters(rng, [15, 8])
    communities = search.community_detection(torch.tensor(x), threshold=0.8, min_community_size=10)
    assert [set(c) for c in communities] == [set(np.flatnonzero(labels == 0))]   # the 8 are too few
    # A star: the centre (row 5) is above the threshold with all 10 leaves; four tight leaves (cosine
    # 0.94-0.97 to it, rows 0-3) with each other too, the six loose ones (0.81-0.822) with the centre only.
    # Each tight leaf proposes a community of 5 (itself, the centre, the other three), which comes first
    # if proposals were taken in row order; members in row order would put row 0 first, by least
    # similarity the loosest leaf. Largest proposal first, centre first, then by cosine to it:
    cosines = [0.95, 0.97, 0.94, 0.96, 0.815, 0.81, 0.822, 0.818, 0.812, 0.82]
    x = star(cosines, centre_at=5)
    sims = similarity_matrix(x).numpy()
    degree = (sims >= 0.8 - 1e-6).sum(1)
    assert degree.tolist() == [5, 5, 5, 5, 2, 11, 2, 2, 2, 2, 2]   # the tight leaves propose too
    communities = search.community_detection(x, threshold=0.8 - 1e-6, min_community_size=5, batch_size=4)
    leaves_by_cosine = sorted(range(len(cosines)), key=lambda i: -cosines[i])
    assert communities == [[5] + [i if i < 5 else i + 1 for i in leaves_by_cosine]]
    assert communities[0][0] == int(np.argmax(degree))    # the highest-degree node leads


def test_kmeans_clusters_recovers_planted_clusters(rng):
    x, labels = planted_clusters(rng, [20, 20, 20], n_noise=0)
    pred = search.kmeans_clusters(x, 3, seed=0)
    assert pred.shape == (60,)
    # same partition up to renaming
    assert len({(a, b) for a, b in zip(labels, pred)}) == 3
    np.testing.assert_array_equal(pred, search.kmeans_clusters(x, 3, seed=0))
    with pytest.raises(ValueError):
        search.kmeans_clusters(x, 0)


# --------------------------------------------------------------------------- FAISS

def test_recall_at_k_hand_example():
    approx = [[1, 2, 3], [4, 5, 6]]
    exact = [[3, 2, 9], [7, 8, 4]]
    assert search.recall_at_k(approx, exact, 2) == pytest.approx((1 / 2 + 0 / 2) / 2)  # {1,2}∩{3,2}; {4,5}∩{7,8}
    assert search.recall_at_k(approx, exact, 3) == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert search.recall_at_k(exact, exact, 3) == 1.0


def test_synthetic_corpus():
    x = search.synthetic_corpus(300, 16, 5, seed=1)
    assert x.shape == (300, 16) and x.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(x, search.synthetic_corpus(300, 16, 5, seed=1))


def test_faiss_flat_equals_exact(rng):
    c, q = rng.standard_normal((500, 16)), rng.standard_normal((10, 16))
    index = search.build_faiss_index(c, "flat")
    scores, ids = search.faiss_search(index, q, 5)
    exact_ids, exact_scores = brute_topk(q, c, 5)
    np.testing.assert_array_equal(ids, exact_ids)
    np.testing.assert_allclose(scores, exact_scores, atol=1e-5)
    with pytest.raises(ValueError):
        search.build_faiss_index(c, "lsh")


def test_compare_indexes_recall():
    emb = search.synthetic_corpus(5100, 32, 50, seed=0)
    table = search.compare_indexes(emb[:5000], emb[5000:], top_k=10)
    assert isinstance(table, pd.DataFrame)
    assert list(table.index) == ["flat", "ivf", "hnsw"]
    assert {"build_s", "latency_ms", "recall@10", "params"} <= set(table.columns)
    assert table.loc["flat", "recall@10"] == 1.0
    assert table.loc["ivf", "recall@10"] > 0.8
    assert table.loc["hnsw", "recall@10"] > 0.8
    assert (table["latency_ms"] > 0).all() and (table["build_s"] > 0).all()


# --------------------------------------------------------------------------- retrieve and re-rank

class _LengthCrossEncoder:
    """A stand-in cross-encoder: scores a pair by how close the two texts' lengths are."""

    def __init__(self):
        self.calls = []

    def predict(self, pairs, batch_size=32):
        self.calls.append(len(pairs))
        return np.array([-abs(len(a) - len(b)) for a, b in pairs], dtype=np.float32)


class _CharEncoder:
    """A stand-in bi-encoder: a bag of letters."""

    def encode(self, texts, batch_size=32, show_progress_bar=False):
        return np.array([[t.count(ch) + 1e-3 for ch in "abcdefghijklmnopqrstuvwxyz"] for t in texts], dtype=np.float32)


CORPUS = ["a cat sat", "a cat sat on the mat today", "dogs bark", "a bird sings loudly", "cats sat"]


def test_rerank_sorts_by_the_cross_encoder_and_keeps_the_retrieval_score():
    hits = [[{"corpus_id": 0, "score": 0.9}, {"corpus_id": 1, "score": 0.8}, {"corpus_id": 4, "score": 0.1}]]
    ce = _LengthCrossEncoder()
    out = search.rerank(hits, ["a cat sat on the mat!"], CORPUS, ce)
    assert [h["corpus_id"] for h in out[0]] == [1, 0, 4]
    assert [h["bi_score"] for h in out[0]] == [0.8, 0.9, 0.1]
    assert out[0][0]["score"] == -5.0 and ce.calls == [3]  # one batched predict for all pairs
    assert search.rerank([[]], ["q"], CORPUS, ce) == [[]]
    with pytest.raises(ValueError, match="hit lists"):
        search.rerank(hits, ["q1", "q2"], CORPUS, ce)


def test_retrieve_and_rerank_only_rescores_the_retrieved_candidates():
    ce = _LengthCrossEncoder()
    bi = _CharEncoder()
    out = search.retrieve_and_rerank(["a cat sat on a mat", "dogs"], CORPUS, bi, ce, top_k=2)
    assert ce.calls == [4] and all(len(row) == 2 for row in out)
    retrieved = search.semantic_search(bi.encode(["a cat sat on a mat", "dogs"]), bi.encode(CORPUS), top_k=2)
    assert [sorted(h["corpus_id"] for h in row) for row in out] == [sorted(h["corpus_id"] for h in row)
                                                                    for row in retrieved]
    with pytest.raises(ValueError, match="rows"):
        search.retrieve_and_rerank(["q"], CORPUS, bi, ce, corpus_emb=bi.encode(CORPUS[:2]))


def test_rank_metrics_by_hand():
    hits = [[{"corpus_id": i} for i in row] for row in ([3, 1, 2], [1, 2, 3], [5, 6, 7], [2, 9, 9])]
    m = search.rank_metrics(hits, [3, 3, 1, 9], ks=(1, 2, 3))
    assert m == {"recall@1": 0.25, "recall@2": 0.5, "recall@3": 0.75, "MRR@3": pytest.approx((1 + 1 / 3 + 0 + 1 / 2) / 4)}
    with pytest.raises(ValueError):
        search.rank_metrics(hits, [3])
    with pytest.raises(ValueError):
        search.rank_metrics([], [])


def test_sharded_search_over_flat_shards_is_exact():
    from sbertlib.search import build_faiss_index, faiss_search, sharded_search, synthetic_corpus
    x = synthetic_corpus(2_000, dim=32, seed=1)
    corpus, queries = x[:1_900], x[1_900:]
    _, exact = faiss_search(build_faiss_index(corpus, "flat"), queries, 10)
    shards = [build_faiss_index(part, "flat") for part in np.array_split(corpus, 4)]  # unequal parts
    scores, ids = sharded_search(shards, queries, 10)
    np.testing.assert_array_equal(ids, exact)
    assert (np.diff(scores, axis=1) <= 1e-6).all()  # best first
    with pytest.raises(ValueError, match="at least one index"):
        sharded_search([], queries, 10)
