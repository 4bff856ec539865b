"""sbertlib.workbook.applications: notebook 12's sizes, tables and reports, built from the functions given."""
from __future__ import annotations

import numpy as np
import pytest
from sbertlib import data, search
from sbertlib.workbook import applications


def _pair(a, b, score):
    return data.STSPair(a, b, score)


def test_stsb_corpus_keeps_pairs_gold_and_held_out_queries_apart():
    pairs = [_pair(f"s{i}", f"t{i}", i % 5) for i in range(20)] + [_pair("s0", "x", 1.0)]
    corpus = applications.stsb_corpus(pairs, corpus_pairs=8, held_out_queries=10, seed=3)
    assert corpus.pairs == 8 and len(corpus.corpus) == len(set(corpus.corpus)) <= 16
    assert not set(corpus.held_out) & set(corpus.corpus)
    i, j = corpus.corpus.index(next(s for s in corpus.corpus if s.startswith("s"))), None
    partner = "t" + corpus.corpus[i][1:]
    if partner in corpus.corpus:
        j = corpus.corpus.index(partner)
        assert corpus.gold_of(i, j) == corpus.gold_of(j, i) == int(corpus.corpus[i][1:]) % 5


def test_mined_quality_and_report_count_stsb_pairs():
    corpus = applications.StsbCorpus(["a", "b", "c", "d"], [], {frozenset(("a", "b")): 4.0, frozenset(("c", "d")): 2.0}, 2)
    mined = [(0.9, 0, 1), (0.8, 0, 2), (0.7, 2, 3)]
    assert applications.mined_quality(mined, corpus, 2) == (1, 4.0)
    assert applications.mined_quality(mined, corpus, 3) == (2, 3.0)
    assert np.isnan(applications.mined_quality([(0.8, 0, 2)], corpus, 1)[1])
    table = applications.mined_table(mined, corpus, top=2)
    assert list(table["STSb gold (0–5)"]) == [4.0, "—"]
    assert "top   2 mined pairs: 1 are STSb pairs, mean gold score 4.00" in applications.mined_report(mined, corpus, (2,))


def test_cost_table_extrapolates_encoding_linearly_and_mining_quadratically():
    table = applications.cost_table(1000, encode_s=2.0, mine_s=0.5, cross_pairs_per_s=100.0, ns=(1000, 2000))
    assert table.loc["2,000 sentences", "bi-encoder: encode + mine (s)"] == pytest.approx(2.0 * 2 + 0.5 * 4)
    assert table.loc["1,000 sentences", "cross-encoder: all pairs (h)"] == pytest.approx(1000 * 999 / 2 / 100 / 3600)


def test_rerank_task_targets_and_table():
    pairs = [_pair("q1", "c1", 4.5), _pair("q2", "c2", 1.0), _pair("q3", "c1", 4.0), _pair("c2", "c3", 5.0)]
    task = applications.rerank_task(pairs)
    assert task.candidates == ["c1", "c2", "c3"]
    assert task.queries == ["q1", "q3"] and task.target_ids == [0, 0]     # c2 is a candidate: not a query
    hits = [[{"corpus_id": 1, "score": 0.9}, {"corpus_id": 0, "score": 0.8}], [{"corpus_id": 0, "score": 0.7}]]
    table = applications.rerank_table({"x": (hits, 1.0)}, task.target_ids, ks=(1, 2))
    assert table.loc["x", "recall@1"] == 0.5 and table.loc["x", "recall@2"] == 1.0
    assert table.loc["x", "MRR@2"] == pytest.approx(0.75)


def test_kmeans_table_and_community_sweep_use_the_functions_given():
    rng = np.random.default_rng(0)
    emb = np.concatenate([rng.normal(size=(10, 4)) + 8 * np.eye(4)[0], rng.normal(size=(10, 4)) + 8 * np.eye(4)[1]])
    labels = np.array(["a"] * 10 + ["b"] * 10)
    table = applications.kmeans_table({"m": emb}, labels, 2, seed=0)
    assert table.loc["m", "k-means purity"] == 1.0 and table.loc["m", "k-means ARI"] == pytest.approx(1.0)
    calls = []

    def detect(e, th, size):
        calls.append((th, size))
        return [list(range(10)), list(range(10, 20))] if th < 0.9 else []
    sweep, found = applications.community_sweep({"m": emb}, labels, (0.5, 0.95), 3, detect)
    assert calls == [(0.5, 3), (0.95, 3)]
    assert sweep.loc[("m", 0.5), "communities"] == 2 and sweep.loc[("m", 0.5), "purity (covered)"] == 1.0
    assert sweep.loc[("m", 0.95), "communities"] == 0 and np.isnan(sweep.loc[("m", 0.95), "purity (covered)"])
    assert "threshold 0.5: 2 communities" in applications.community_report(sweep, found, [str(i) for i in range(20)],
                                                                           labels, model="m")


def test_nprobe_sweep_measures_with_the_recall_given_and_restores_nprobe():
    pytest.importorskip("faiss")
    x = search.synthetic_corpus(600, dim=16, seed=1)
    ivf = search.build_faiss_index(x[:500], "ivf", nlist=8)
    ivf.nprobe = 3
    _, exact = search.faiss_search(search.build_faiss_index(x[:500], "flat"), x[500:], 5)
    sweep = applications.nprobe_sweep(ivf, x[500:], exact, 5, recall=search.recall_at_k, extra=(3,), timing_queries=5)
    assert list(sweep.index) == [1, 2, 3, 4, 8] and ivf.nprobe == 3
    assert sweep.loc[8, "recall@5"] == pytest.approx(1.0)


def test_scale_table_and_brute_force_report():
    table = applications.scale_table(per_vector_ns=100.0, bytes_per_vector=1536, ram_gb=64, ns=(10_000, 100_000_000))
    assert table.loc["10,000", "flat ms / query"] == pytest.approx(1.0)
    assert table.loc["100,000,000", "machines of 64 GB"] == 3
    assert applications.brute_force_limit(100.0, 10.0) == pytest.approx(100_000)
    assert "within it" in applications.brute_force_report(100.0, 1536, 10.0, 5_000, "here")
    assert "past it" in applications.brute_force_report(100.0, 1536, 10.0, 500_000, "here")


def test_index_report_names_speedups_and_recall():
    import pandas as pd
    synth = pd.DataFrame({"latency_ms": [1.0, 0.1, 0.2], "recall@10": [1.0, 0.99, 0.98], "params": ["", "a", "b"]},
                         index=["flat", "ivf", "hnsw"])
    real = synth.assign(**{"recall@10": [1.0, 0.9, 0.97]})
    text = applications.index_report(synth, real, 10, 1000, 100)
    assert "IVF 10× and HNSW 5× faster" in text and "IVF recall is higher on the synthetic corpus" in text
