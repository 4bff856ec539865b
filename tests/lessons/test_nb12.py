"""Notebook 12's checks on what their declarations cannot say (test_declared.py runs every declared slip): right answers
written another way pass, an input changed in place is named, and check_nprobe, which re-measures an index."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import torch
from sbertlib import search
from sbertlib.workbook import applications
from sbertlib.workbook.lessons import ExerciseError, nb12
from lesson_helpers import not_done

F = torch.nn.functional


def top_k(query_emb, corpus_emb, k):   # the notebook's answer
    q = F.normalize(torch.as_tensor(query_emb, dtype=torch.float32), dim=1)
    best = torch.topk(q @ F.normalize(torch.as_tensor(corpus_emb, dtype=torch.float32), dim=1).T, k, dim=1)
    return best.values, best.indices


def _np_cos(a, b):
    a, b = (np.asarray(x, dtype=np.float64) for x in (a, b))
    return (a / np.linalg.norm(a, axis=1, keepdims=True)) @ (b / np.linalg.norm(b, axis=1, keepdims=True)).T


def top_k_ties_the_other_way(q, c, k):   # corpus rows 3 and 5 tie (one is the other, longer): either may come first
    assert abs(_np_cos(q, c)[0, 3] - _np_cos(q, c)[0, 5]) < 1e-6
    scores, ids = top_k(q, c, k)
    ids[0] = torch.where(ids[0] == 3, 5, torch.where(ids[0] == 5, 3, ids[0]))
    return scores, ids


def top_k_float64_lists(q, c, k):   # argsort ascending, then reversed
    sim = _np_cos(q, c)
    ids = np.argsort(sim, axis=1)[:, ::-1][:, :k]
    return np.take_along_axis(sim, ids, 1).tolist(), ids.tolist()


def top_k_sklearn(q, c, k):
    from sklearn.metrics.pairwise import cosine_similarity
    ids = np.argsort(-cosine_similarity(q, c), axis=1)[:, :k]
    return np.take_along_axis(cosine_similarity(q, c), ids, 1), ids


def top_k_library(q, c, k):
    hits = search.semantic_search(q, c, top_k=k)
    return [[h["score"] for h in row] for row in hits], [[h["corpus_id"] for h in row] for row in hits]


def mine_pairs(emb, top):   # the notebook's answer
    x = F.normalize(torch.as_tensor(emb, dtype=torch.float32), dim=1)
    scores = x @ x.T
    above = torch.ones_like(scores, dtype=torch.bool).triu(diagonal=1)
    best = torch.topk(scores.masked_fill(~above, float("-inf")).flatten(), top)
    return [(s, t // len(x), t % len(x)) for s, t in zip(best.values.tolist(), best.indices.tolist())]


def mine_pairs_float64_tensors(emb, top):   # float64, each item's values 0-d tensors
    sim = torch.as_tensor(_np_cos(emb, emb))
    i, j = torch.triu_indices(len(sim), len(sim), 1)
    return [(sim[i[t], j[t]], i[t], j[t]) for t in torch.argsort(sim[i, j], descending=True)[:top]]


def retrieve_and_rerank(queries, query_emb, corpus, corpus_emb, cross_encoder, k):   # the notebook's answer
    _, ids = top_k(query_emb, corpus_emb, k)
    pairs = [(q, corpus[i]) for q, row in zip(queries, ids.tolist()) for i in row]
    scores = torch.as_tensor(cross_encoder.predict(pairs), dtype=torch.float32).reshape(len(queries), k)
    order = torch.argsort(scores, dim=1, descending=True)
    return scores.gather(1, order), ids.gather(1, order)


def rerank_library(queries, query_emb, corpus, corpus_emb, cross_encoder, k):
    hits = search.rerank(search.semantic_search(query_emb, corpus_emb, top_k=k), queries, corpus, cross_encoder)
    return [[h["score"] for h in row] for row in hits], np.array([[h["corpus_id"] for h in row] for row in hits])


def test_nb12_rerank_that_normalises_the_query_vectors_in_place_is_named():
    def normalising(queries, query_emb, corpus, corpus_emb, cross_encoder, k):
        query_emb /= np.linalg.norm(query_emb, axis=1, keepdims=True)
        return retrieve_and_rerank(queries, query_emb, corpus, corpus_emb, cross_encoder, k)
    with pytest.raises(ExerciseError, match="changed its second argument .* in place"):
        nb12.check_rerank(normalising)


def purity(labels, clusters):   # the notebook's answer
    labels, clusters = np.asarray(labels), np.asarray(clusters)
    return sum(np.unique(labels[clusters == c], return_counts=True)[1].max() for c in np.unique(clusters)) / len(labels)


def communities(emb, threshold, min_size):   # the notebook's answer (torch.argsort: not a stable sort)
    x = F.normalize(torch.as_tensor(emb, dtype=torch.float32), dim=1)
    sim, proposals = x @ x.T, []
    for row in sim:
        members = torch.nonzero(row >= threshold).flatten()
        if len(members) >= min_size:
            proposals.append(members[torch.argsort(row[members], descending=True)].tolist())
    found, taken = [], set()
    for proposal in sorted(proposals, key=len, reverse=True):
        rest = [i for i in proposal if i not in taken]
        if len(rest) >= min_size:
            found.append(rest)
            taken.update(rest)
    return sorted(found, key=len, reverse=True)


RIGHT = {nb12.check_top_k: [top_k, top_k_ties_the_other_way, top_k_float64_lists, top_k_sklearn, top_k_library],
         nb12.check_mine_pairs: [mine_pairs, mine_pairs_float64_tensors,
                                 lambda e, t: search.paraphrase_mining_embeddings(e, top_k=len(e), max_pairs=t)],
         nb12.check_rerank: [retrieve_and_rerank, rerank_library],
         nb12.check_purity: [purity, applications.purity,   # and pandas, returning a numpy float32
                             lambda l, c: np.float32(pd.crosstab(l, c).max().sum() / len(l))],
         nb12.check_communities: [communities, lambda e, t, m: search.community_detection(e, t, m),
                                  lambda e, t, m: [np.array(g) for g in nb12._detect(np.float64(e), t, m)]],
         nb12.check_recall_at_k: [search.recall_at_k, lambda a, e, k: torch.tensor(   # a 0-d float32 tensor
             [len(set(x[:k].tolist()) & set(y[:k].tolist())) / k for x, y in zip(a, e)]).mean()]}


@pytest.mark.parametrize("check, right", [(c, r) for c, rights in RIGHT.items() for r in rights])
def test_nb12_right_answers_written_another_way_pass(check, right, capsys):
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")     # a GPU tutorial's advice, in an earlier cell
    try:
        check(right)
    finally:
        torch.set_float32_matmul_precision(before)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("check", [nb12.check_top_k, nb12.check_recall_at_k, nb12.check_mine_pairs,
                                   nb12.check_rerank, nb12.check_purity, nb12.check_communities])
def test_nb12_stubs_and_non_functions_are_named(check):
    with pytest.raises(ExerciseError, match="not done yet"):
        check(not_done)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        check(None)


class Unshowable:   # a result the check's own code cannot even show: its message fails, not the student's code
    def __repr__(self):
        raise RuntimeError("no repr")


@pytest.mark.parametrize("check", [nb12.check_top_k, nb12.check_recall_at_k, nb12.check_mine_pairs,
                                   nb12.check_rerank, nb12.check_purity, nb12.check_communities])
def test_nb12_a_checks_own_failure_shows_as_an_exercise_error_as_the_other_lessons(check):
    with pytest.raises(ExerciseError, match="the check could not finish: RuntimeError: no repr") as err:
        check(lambda *args: Unshowable())
    assert err.value.__cause__ is None and hasattr(check, "__wrapped__")


@pytest.fixture(scope="module")
def ivf():
    x = search.synthetic_corpus(3_100, dim=32, n_clusters=50, noise=3.0, seed=1)
    _, exact = search.faiss_search(search.build_faiss_index(x[:3_000], "flat"), x[3_000:], 10)
    index, recalls = search.build_faiss_index(x[:3_000], "ivf", nlist=32, nprobe=1), {}
    for p in range(1, 32):
        index.nprobe = p
        recalls[p] = search.recall_at_k(search.faiss_search(index, x[3_000:], 10)[1], exact, 10)
    index.nprobe = 1
    return index, x[3_000:], exact, recalls, min(p for p, r in recalls.items() if r >= 0.95)


def test_nb12_nprobe_the_smallest_passes_and_the_index_keeps_its_nprobe(ivf, capsys):
    index, queries, exact, recalls, good = ivf
    assert recalls[1] < 0.95 and good < 32                    # the fixture makes a real trade-off
    assert nb12.check_nprobe(np.int64(good), index, queries, exact) == pytest.approx(recalls[good])
    assert index.nprobe == 1 and "[OK]" in capsys.readouterr().out


def test_nb12_nprobe_wrong_answers_are_named_without_the_smallest(ivf):
    index, queries, exact, recalls, good = ivf
    larger = next(p for p in range(good + 1, 32) if recalls[p] >= 0.95)
    for wrong, says in [(good - 1, "below the target"), (32, "brute force"), (0, "1 to 31"), (8.0, "whole number"),
                        (None, "whole number"), (True, "whole number"), (larger, "not the smallest")]:
        with pytest.raises(ExerciseError, match=says) as err:
            nb12.check_nprobe(wrong, index, queries, exact)
        said = re.findall(r"\b\d+\b", re.sub(rf"=\s*{wrong}\b|recall@10|1 to 31|all 32|\d\.\d+", "", str(err.value)))
        assert str(good) not in said, said                    # the smallest nprobe is the student's to find
    with pytest.raises(ExerciseError, match="a recall equal to it counts"):   # reaching is ≥, not >
        nb12.check_nprobe(larger, index, queries, exact, target=recalls[good])
    assert index.nprobe == 1


def test_as_hits_matches_semantic_search():
    rng = np.random.default_rng(2)
    q, c = rng.normal(size=(3, 6)), rng.normal(size=(12, 6))
    assert [[h["corpus_id"] for h in row] for row in search.as_hits(*top_k(q, c, 4))] == \
        [[h["corpus_id"] for h in row] for row in search.semantic_search(q, c, top_k=4)]
    with pytest.raises(ValueError, match="same shape"):
        search.as_hits(np.zeros((2, 3)), np.zeros((2, 2), dtype=int))


def test_index_comparison_and_nprobe_curve_draw_what_they_are_given():
    import matplotlib.pyplot as plt
    from sbertlib.workbook import plots
    table = pd.DataFrame({"latency_ms": [1.0, 0.1, 0.2], "recall@10": [1.0, 0.9, 0.95]}, index=["flat", "ivf", "hnsw"])
    lat, rec = plots.index_comparison({"synthetic": table, "real": table}, 10, title="t").axes
    assert lat.get_yscale() == "log" and len(lat.patches) == 6 and [t.get_text() for t in rec.get_xticklabels()] == \
        ["flat", "ivf", "hnsw"]
    sweep = pd.DataFrame({"recall@10": [0.5, 0.9, 0.97]}, index=pd.Index([1, 2, 4], name="nprobe"))
    ax = plots.nprobe_curve(sweep, chosen=4, nlist=16, k=10, title="IVF").axes[0]
    assert list(ax.lines[0].get_xdata()) == [1, 2, 4]
    assert "your nprobe = 4" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")
