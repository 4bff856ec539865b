"""The checks of notebook 12 (applications search and clustering): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb12)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sbertlib import search
from sbertlib.workbook import applications
from sbertlib.workbook.lessons import ExerciseError, nb12
from lesson_helpers import not_done


def good_recall(approx_ids, exact_ids, k):
    hits = [len(set(a[:k].tolist()) & set(e[:k].tolist())) for a, e in zip(approx_ids, exact_ids)]
    return float(np.mean(hits) / k)


def test_nb12_recall_right_answer_passes(capsys):
    nb12.check_recall_at_k(good_recall)
    nb12.check_recall_at_k(search.recall_at_k)  # the library's own
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong", [
    lambda a, e, k: float((np.asarray(a)[:, :k] == np.asarray(e)[:, :k]).mean()),  # position by position
    lambda a, e, k: float(np.mean([len(set(x) & set(y)) for x, y in zip(a, e)]) / k),  # ignores the [:k] cut
    lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)])),  # a count, not a share
    lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)]) / np.shape(a)[1]),
    lambda a, e, k: None,
    lambda a, e, k: 1.0,
])
def test_nb12_recall_wrong_answers_fail(wrong):
    with pytest.raises(ExerciseError):
        nb12.check_recall_at_k(wrong)


@pytest.mark.parametrize("not_a_function", [None, Ellipsis, 0.9])
def test_nb12_recall_non_functions_fail(not_a_function):
    with pytest.raises(ExerciseError, match="function"):
        nb12.check_recall_at_k(not_a_function)


def test_nb12_recall_stub_says_not_done():
    def stub(a, e, k):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb12.check_recall_at_k(stub)


@pytest.fixture(scope="module")
def ivf_setup():
    x = search.synthetic_corpus(3_100, dim=32, n_clusters=50, noise=3.0, seed=1)
    corpus, queries = x[:3_000], x[3_000:]
    _, exact = search.faiss_search(search.build_faiss_index(corpus, "flat"), queries, 10)
    index = search.build_faiss_index(corpus, "ivf", nlist=32, nprobe=1)
    recalls = {}
    for p in range(1, 32):
        index.nprobe = p
        recalls[p] = search.recall_at_k(search.faiss_search(index, queries, 10)[1], exact, 10)
    index.nprobe = 1
    return index, queries, exact, recalls


def test_nb12_nprobe_right_answer_passes_and_restores_the_index(ivf_setup, capsys):
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    assert good < 32 and recalls[1] < 0.95  # the fixture makes a real trade-off
    recall = nb12.check_nprobe(good, index, queries, exact, k=10, target=0.95)
    assert recall == pytest.approx(recalls[good])
    assert index.nprobe == 1
    nb12.check_nprobe(np.int64(good), index, queries, exact)  # a numpy integer is fine
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb12_nprobe_wrong_answers_fail(ivf_setup):
    index, queries, exact, recalls = ivf_setup
    too_small = max(p for p, r in recalls.items() if r < 0.95)
    for wrong in (too_small, 1, index.nlist, index.nlist + 5, 0, -3, None, ..., 8.0, "8", True):
        with pytest.raises(ExerciseError):
            nb12.check_nprobe(wrong, index, queries, exact, k=10, target=0.95)
    assert index.nprobe == 1


def test_nb12_nprobe_larger_than_the_smallest_fails_with_a_not_the_smallest_hint(ivf_setup):
    """Any nprobe above the smallest one reaching the target (e.g. the next power of two) is rejected."""
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    for wrong in sorted({good + 1, good + 2, 1 << good.bit_length(), index.nlist - 1} - {good}):
        if wrong < index.nlist and recalls[wrong] >= 0.95:
            with pytest.raises(ExerciseError, match="not the smallest"):
                nb12.check_nprobe(wrong, index, queries, exact, k=10, target=0.95)
    assert index.nprobe == 1


def test_nb12_nprobe_smallest_is_judged_on_every_smaller_value_not_only_the_next(ivf_setup):
    """Recall need not grow with every extra cell: the check looks at all smaller nprobe, so an
    answer whose neighbour below happens to dip under the target still fails if an even smaller one
    reaches it."""
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    lower_target = recalls[good] - 1e-9   # `good` reaches it, and maybe smaller ones too
    smallest = min(p for p, r in recalls.items() if r >= lower_target)
    for p in range(smallest + 1, index.nlist):
        with pytest.raises(ExerciseError, match="not the smallest"):
            nb12.check_nprobe(p, index, queries, exact, k=10, target=lower_target)
    nb12.check_nprobe(smallest, index, queries, exact, k=10, target=lower_target)


def test_nb12_nprobe_all_cells_gets_a_brute_force_hint(ivf_setup):
    index, queries, exact, _ = ivf_setup
    with pytest.raises(ExerciseError, match="brute force"):
        nb12.check_nprobe(index.nlist, index, queries, exact)


def test_nb12_nprobe_rejects_exact_ids_of_the_wrong_shape(ivf_setup):
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    with pytest.raises(ExerciseError):
        nb12.check_nprobe(good, index, queries, exact[:, :5], k=10)
    with pytest.raises(ExerciseError):
        nb12.check_nprobe(good, index, queries, exact[:-1], k=10)


def _cosines(q, c):
    return torch.nn.functional.normalize(torch.as_tensor(q), dim=1) @ torch.nn.functional.normalize(
        torch.as_tensor(c), dim=1).T


def good_top_k(q, c, k):
    best = torch.topk(_cosines(q, c), k, dim=1)
    return best.values, best.indices


def test_nb12_top_k_right(capsys):
    nb12.check_top_k(good_top_k)
    nb12.check_top_k(lambda q, c, k: tuple(x.numpy() for x in good_top_k(q, c, k)))  # numpy is fine too
    assert "[OK]" in capsys.readouterr().out


def _flipped(q, c, k):
    v, i = good_top_k(q, c, k)
    return v.flip(1), i.flip(1)


@pytest.mark.parametrize("wrong, hint", [
    (lambda q, c, k: torch.topk(torch.as_tensor(q) @ torch.as_tensor(c).T, k, dim=1), "dot product"),
    (lambda q, c, k: torch.topk(_cosines(q, c), k, dim=1, largest=False), "LEAST similar"),
    (lambda q, c, k: (lambda d: (-d.values, d.indices))(torch.topk(torch.cdist(torch.as_tensor(q), torch.as_tensor(c)),
                                                                   k, dim=1, largest=False)), "Euclidean"),
    (_flipped, "wrong order"),
    (lambda q, c, k: (1 - good_top_k(q, c, k)[0], good_top_k(q, c, k)[1]), "cosine similarities themselves"),
    (lambda q, c, k: good_top_k(q, c, k)[1], "not a pair"),
    (lambda q, c, k: good_top_k(q, c, k + 1), "expected"),
])
def test_nb12_top_k_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb12.check_top_k(wrong)


def test_nb12_top_k_swapped_pair_is_named():
    with pytest.raises(ExerciseError, match=r"returned the row ids first and the scores second") as err:
        nb12.check_top_k(lambda q, c, k: tuple(reversed(good_top_k(q, c, k))))
    assert "normalise" not in str(err.value) and "topk" not in str(err.value)


def test_nb12_top_k_stub_does_not_name_the_method():
    import json
    from pathlib import Path
    nb = json.loads(next(Path(__file__).resolve().parents[2].glob("notebooks/12_*.ipynb")).read_text())
    stub = next(c["metadata"]["stub"] for c in nb["cells"] if "def top_k" in "".join(c["source"])
                and "stub" in c.get("metadata", {}))
    assert "YOUR CODE HERE" in stub
    for method in ("normalis", "topk", "matrix product", "argsort"):
        assert method not in stub.split('"""')[-1]   # the comment after the docstring


@pytest.mark.parametrize("wrong, says", [
    (lambda a, e, k: float((np.asarray(a)[:, :k] == np.asarray(e)[:, :k]).mean()), "position by position"),
    (lambda a, e, k: float(np.mean([len(set(x) & set(y)) for x, y in zip(a, e)]) / k), "the whole lists (10 ids each)"),
    (lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)])), "a count of ids found"),
    (lambda a, e, k: float(np.mean([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)]) / np.shape(a)[1]),
     "divided by the length of the lists (10), not by k = 5"),
    (lambda a, e, k: float(np.sum([len(set(x[:k]) & set(y[:k])) for x, y in zip(a, e)]) / k), "a sum over the queries"),
])
def test_nb12_recall_slips_are_told_apart(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb12.check_recall_at_k(wrong)
    message = str(err.value)
    assert says in message
    assert "use sets" not in message and "divide by k, then average" not in message   # not the whole recipe


def test_nb12_nprobe_not_the_smallest_does_not_print_the_answer(ivf_setup):
    index, queries, exact, recalls = ivf_setup
    good = min(p for p, r in recalls.items() if r >= 0.95)
    wrong = next(p for p in range(good + 1, index.nlist) if recalls[p] >= 0.95)
    with pytest.raises(ExerciseError, match="not the smallest") as err:
        nb12.check_nprobe(wrong, index, queries, exact, k=10, target=0.95)
    message = str(err.value)
    assert f"nprobe={good}" not in message and f"nprobe = {good}" not in message
    assert not any(int(n) == good for n in __import__("re").findall(r"\b\d+\b", message.replace(str(wrong), "")))


def test_nb12_recall_out_of_the_distinct_ids_found_is_named():
    """The student trial: dividing by the distinct ids of each list passed (no hidden case had -1 fillers)."""
    def per_distinct(a, e, k):
        return float(np.mean([len(set(x[:k].tolist()) & set(y[:k].tolist())) / max(1, len(set(x[:k].tolist())))
                              for x, y in zip(a, e)]))
    with pytest.raises(ExerciseError, match="divided by the number of distinct ids"):
        nb12.check_recall_at_k(per_distinct)


def _skips_the_best(q, c, k):
    best = torch.topk(_cosines(q, c), k + 1, dim=1)   # "the first hit is the query itself"
    return best.values[:, 1:], best.indices[:, 1:]


def _ranks_along_axis_0_torch(q, c, k):
    best = torch.topk(_cosines(q, c), k, dim=0)       # each corpus row's best queries
    return best.values, best.indices


def _ranks_along_axis_0_numpy(q, c, k):
    sim = _cosines(q, c).numpy()
    return -np.sort(-sim, axis=0)[:, :k], np.argsort(-sim, axis=0)[:, :k]   # the right shape, the wrong axis


@pytest.mark.parametrize("wrong, says", [
    (lambda q, c, k: good_top_k(q, c, k + 1), "off by one: 2 columns where k = 1 were asked for"),
    (lambda q, c, k: good_top_k(q, c, k - 1), "off by one: 0 columns where k = 1 were asked for"),
    (_skips_the_best, "off by one: you skipped the best hit (column 0)"),
    (_ranks_along_axis_0_torch, "you ranked along axis 0, over the queries"),
    (_ranks_along_axis_0_numpy, "you ranked along axis 0, over the queries"),
])
def test_nb12_top_k_off_by_one_and_axis_0_are_named(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb12.check_top_k(wrong)
    message = str(err.value)
    assert says in message
    assert "one row per query, k columns" not in message and "cosine of every query" not in message  # not generic


def _pooled_isin(a, e, k):
    return float(np.isin(np.asarray(a)[:, :k], np.asarray(e)[:, :k]).mean())   # any query's neighbour counts


def _pooled_sets(a, e, k):
    found = set(np.asarray(a)[:, :k].ravel().tolist()) & set(np.asarray(e)[:, :k].ravel().tolist())
    return len(found) / (len(a) * k)


@pytest.mark.parametrize("wrong, says", [
    (lambda a, e, k: float(np.mean([len(set(x[:k - 1].tolist()) & set(y[:k - 1].tolist())) for x, y in zip(a, e)]) / k),
     "off by one: you counted the first k − 1 = 9 ids of each list, out of k;"),
    (lambda a, e, k: float(np.mean([len(set(x[:k - 1].tolist()) & set(y[:k - 1].tolist())) for x, y in zip(a, e)])
                           / (k - 1)), "off by one: you counted the first k − 1 = 9 ids of each list, out of k − 1;"),
    (_pooled_isin, "you pooled the queries: an id counts only when it is in the exact top-k of the *same* query"),
    (_pooled_sets, "you pooled the queries: an id counts only when it is in the exact top-k of the *same* query"),
])
def test_nb12_recall_k_minus_1_and_pooled_are_named(wrong, says):
    with pytest.raises(ExerciseError) as err:
        nb12.check_recall_at_k(wrong)
    message = str(err.value)
    assert says in message
    assert "per query, the share of the exact top-k ids" not in message   # not the generic hint


def test_nb12_recall_has_a_case_where_pooling_the_queries_shows():
    """Pooled over the queries, the last hidden case's every id is found (it is the next query's neighbour)."""
    approx, exact, k = nb12._hidden_id_lists()[-1]
    assert search.recall_at_k(approx, exact, k) == pytest.approx(0.5) and _pooled_isin(approx, exact, k) == 1.0


def _unit(x):
    return torch.nn.functional.normalize(torch.as_tensor(x, dtype=torch.float32), dim=1)


def mine_pairs(emb, top):
    x = _unit(emb)
    scores = x @ x.T
    above = torch.ones_like(scores, dtype=torch.bool).triu(diagonal=1)
    best = torch.topk(scores.masked_fill(~above, float("-inf")).flatten(), top)
    n = len(x)
    return [(s, t // n, t % n) for s, t in zip(best.values.tolist(), best.indices.tolist())]


def _mine_from(scores, top, keep):
    n = len(scores)
    best = torch.topk(scores.masked_fill(~keep, float("-inf")).flatten(), top)
    return [(s, t // n, t % n) for s, t in zip(best.values.tolist(), best.indices.tolist())]


def mine_with_self(emb, top):                     # the diagonal left in
    x = _unit(emb)
    return _mine_from(x @ x.T, top, torch.ones(len(x), len(x), dtype=torch.bool).triu(diagonal=0))


def mine_twice(emb, top):                         # both triangles: (i, j) and (j, i)
    x = _unit(emb)
    return _mine_from(x @ x.T, top, ~torch.eye(len(x), dtype=torch.bool))


def mine_dot(emb, top):                           # no normalising
    x = torch.as_tensor(emb, dtype=torch.float32)
    return _mine_from(x @ x.T, top, torch.ones(len(x), len(x), dtype=torch.bool).triu(diagonal=1))


def mine_lowest(emb, top):
    x = _unit(emb)
    return _mine_from(-(x @ x.T), top, torch.ones(len(x), len(x), dtype=torch.bool).triu(diagonal=1))


def mine_zeroed(emb, top):                        # triu() zeroes the rest: zeros beat negative cosines
    x = _unit(emb)
    scores = (x @ x.T).triu(diagonal=1)
    n = len(x)
    best = torch.topk(scores.flatten(), top)
    return [(s, t // n, t % n) for s, t in zip(best.values.tolist(), best.indices.tolist())]


def mine_j_first(emb, top):
    return [(s, j, i) for s, i, j in mine_pairs(emb, top)]


def mine_unsorted(emb, top):
    return sorted(mine_pairs(emb, top), key=lambda t: (t[1], t[2]))


def mine_id_first(emb, top):
    return [(i, j, s) for s, i, j in mine_pairs(emb, top)]


def test_nb12_mine_pairs_right_answer_passes(capsys):
    nb12.check_mine_pairs(mine_pairs)
    assert "[OK]" in capsys.readouterr().out


def test_nb12_mine_pairs_truth_agrees_with_the_library():
    emb = nb12._mining_case()
    lib = search.paraphrase_mining_embeddings(emb, top_k=19, max_pairs=50)
    truth = nb12.mine_pairs_truth(emb, 50)
    assert [(i, j) for _, i, j in lib] == [(i, j) for _, i, j in truth]


@pytest.mark.parametrize("wrong, hint", [
    (mine_with_self, "with itself"),
    (mine_twice, "twice"),
    (mine_dot, "dot product"),
    (mine_lowest, "LEAST similar"),
    (mine_zeroed, "-inf"),
    (mine_j_first, "smaller row id first"),
    (mine_unsorted, "wrong order"),
    (mine_id_first, "cosine first"),
    (lambda emb, top: mine_pairs(emb, top)[:-1] if top > 1 else [], "expected"),
])
def test_nb12_mine_pairs_wrong_answers_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb12.check_mine_pairs(wrong)


def test_nb12_mine_pairs_stub_and_non_functions():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb12.check_mine_pairs(not_done)
    for value in (None, ..., [(0.9, 0, 1)]):
        with pytest.raises(ExerciseError, match="must be a function"):
            nb12.check_mine_pairs(value)


def test_nb12_mine_pairs_student_error_is_reported_as_theirs():
    def broken(emb, top):
        return emb.nonexistent
    with pytest.raises(ExerciseError, match="raised AttributeError"):
        nb12.check_mine_pairs(broken)


def top_k(query_emb, corpus_emb, k):
    best = torch.topk(_unit(query_emb) @ _unit(corpus_emb).T, k, dim=1)
    return best.values, best.indices


def rerank(queries, query_emb, corpus, corpus_emb, cross_encoder, k, *, order=True, descending=True,
           reorder_ids=True, swap=False, scores_from="cross"):
    cos, ids = top_k(query_emb, corpus_emb, k)
    pairs = [((corpus[i], q) if swap else (q, corpus[i])) for q, row in zip(queries, ids.tolist()) for i in row]
    scores = torch.as_tensor(cross_encoder.predict(pairs), dtype=torch.float32).reshape(len(queries), k)
    if not order:
        return scores, ids
    new = torch.argsort(scores, dim=1, descending=descending)
    shown = cos if scores_from == "bi" else scores
    return shown.gather(1, new), (ids.gather(1, new) if reorder_ids else ids)


def rerank_whole_corpus(queries, query_emb, corpus, corpus_emb, cross_encoder, k):
    pairs = [(q, c) for q in queries for c in corpus]
    scores = torch.as_tensor(cross_encoder.predict(pairs), dtype=torch.float32).reshape(len(queries), len(corpus))
    best = torch.topk(scores, k, dim=1)
    return best.values, best.indices


def test_nb12_rerank_right_answer_passes(capsys):
    nb12.check_rerank(rerank)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda *a: rerank(*a, order=False), "retriever's order"),
    (lambda *a: rerank(*a, descending=False), "lowest cross-encoder score comes first"),
    (lambda *a: rerank(*a, reorder_ids=False), "ids are still in the retriever's"),
    (lambda *a: rerank(*a, scores_from="bi"), "retriever's cosines"),
    (lambda *a: rerank(*a, swap=True), r"\(candidate, query\)"),
    (rerank_whole_corpus, "only each query's k retrieved candidates"),
    (lambda *a: tuple(reversed(rerank(*a))), "shape|other candidates|not an array|fractions"),
])
def test_nb12_rerank_wrong_answers_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb12.check_rerank(wrong)


def test_nb12_rerank_stub_and_non_functions():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb12.check_rerank(not_done)
    with pytest.raises(ExerciseError, match="must be a function"):
        nb12.check_rerank("retrieve_and_rerank")


def test_nb12_rerank_truth_matches_the_library_pipeline():
    queries, q_emb, corpus, c_emb = nb12._rerank_case()
    judge = nb12._Judge(queries, corpus)
    hits = search.retrieve_and_rerank(queries, corpus, _Enc({tuple(queries): q_emb}), judge, top_k=4, corpus_emb=c_emb)
    _, ids = nb12.rerank_truth(queries, q_emb, corpus, c_emb, nb12._Judge(queries, corpus), 4)
    assert [[h["corpus_id"] for h in row] for row in hits] == ids.tolist()


class _Enc:
    def __init__(self, table):
        self.table = table

    def encode(self, texts, **_):
        return self.table[tuple(texts)]


def purity(labels, clusters):
    labels, clusters = np.asarray(labels), np.asarray(clusters)
    return sum(np.unique(labels[clusters == c], return_counts=True)[1].max() for c in np.unique(clusters)) / len(labels)


def purity_per_type(labels, clusters):
    return purity(clusters, labels)


def purity_unweighted(labels, clusters):
    labels, clusters = np.asarray(labels), np.asarray(clusters)
    return float(np.mean([np.unique(labels[clusters == c], return_counts=True)[1].max() / np.sum(clusters == c)
                          for c in np.unique(clusters)]))


def purity_count(labels, clusters):
    return purity(labels, clusters) * len(labels)


def purity_contiguous_ids(labels, clusters):    # assumes ids 0..k-1
    labels, clusters = np.asarray(labels), np.asarray(clusters)
    return sum(np.unique(labels[clusters == c], return_counts=True)[1].max()
               for c in range(len(np.unique(clusters))) if np.any(clusters == c)) / len(labels)


def test_nb12_purity_right_answer_passes(capsys):
    nb12.check_purity(purity)
    nb12.check_purity(applications.purity)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (purity_per_type, "each TYPE's largest cluster"),
    (purity_unweighted, "plain mean"),
    (purity_count, "count of items"),
    (lambda labels, clusters: purity(labels, np.zeros(len(labels))), "largest type overall"),
    (purity_contiguous_ids, "cluster ids are labels, not positions"),    # the student trial: a general hint
    (lambda labels, clusters: 100 * purity(labels, clusters), "a percentage"),
    (lambda labels, clusters: True, "one number"),
])
def test_nb12_purity_wrong_answers_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb12.check_purity(wrong)


def test_nb12_purity_stub_and_non_functions():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb12.check_purity(not_done)
    with pytest.raises(ExerciseError, match="must be a function"):
        nb12.check_purity(0.5)


def communities(emb, threshold, min_size, *, largest_first=True, drop_taken=True, keep_small=False, normalise=True,
                count_self=True, resort=True, by_id=False):
    x = _unit(emb) if normalise else torch.as_tensor(emb, dtype=torch.float32)
    sim = x @ x.T
    proposals = []
    for r, row in enumerate(sim):
        members = torch.nonzero(row >= threshold).flatten()
        if not count_self:
            members = members[members != r]
        if len(members) >= min_size:
            proposals.append(members[torch.argsort(row[members], descending=True)].tolist())
    if largest_first:
        proposals.sort(key=len, reverse=True)
    found, taken = [], set()
    for proposal in proposals:
        rest = [i for i in proposal if i not in taken] if drop_taken else proposal
        if rest and (keep_small or len(rest) >= min_size):
            found.append(sorted(rest) if by_id else rest)
            taken.update(rest)
    return sorted(found, key=len, reverse=True) if resort else found


def test_nb12_communities_right_answer_passes(capsys):
    nb12.check_communities(communities)
    nb12.check_communities(lambda e, t, m: search.community_detection(e, threshold=t, min_community_size=m))
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda e, t, m: communities(e, t, m, drop_taken=False), "in two communities"),
    (lambda e, t, m: communities(e, t, m, keep_small=True), "fewer than min_size"),
    (lambda e, t, m: communities(e, t, m, normalise=False), "dot product"),
    (lambda e, t, m: communities(e, t, m, largest_first=False), "row order"),
    (lambda e, t, m: communities(e, t, m, count_self=False), "its own neighbour"),
    (lambda e, t, m: communities(e, t, m)[::-1], "largest first"),
    # issue 29: these two passed before
    (lambda e, t, m: communities(e, t, m, resort=False), "sort the communities you keep by size"),
    (lambda e, t, m: communities(e, t, m, by_id=True), "by row id"),
])
def test_nb12_communities_wrong_answers_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb12.check_communities(wrong)


def test_nb12_communities_stub_and_non_functions():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb12.check_communities(not_done)
    with pytest.raises(ExerciseError, match="must be a function"):
        nb12.check_communities(None)


def test_as_hits_matches_semantic_search():
    rng = np.random.default_rng(2)
    q, c = rng.normal(size=(3, 6)), rng.normal(size=(12, 6))
    scores, ids = top_k(q, c, 4)
    assert [[h["corpus_id"] for h in row] for row in search.as_hits(scores, ids)] == \
        [[h["corpus_id"] for h in row] for row in search.semantic_search(q, c, top_k=4)]
    with pytest.raises(ValueError, match="same shape"):
        search.as_hits(np.zeros((2, 3)), np.zeros((2, 2), dtype=int))


def test_index_comparison_and_nprobe_curve_draw_what_they_are_given():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from sbertlib.workbook import plots
    table = pd.DataFrame({"latency_ms": [1.0, 0.1, 0.2], "recall@10": [1.0, 0.9, 0.95]}, index=["flat", "ivf", "hnsw"])
    fig = plots.index_comparison({"synthetic": table, "real": table}, 10, title="t")
    lat, rec = fig.axes
    assert lat.get_yscale() == "log" and len(lat.patches) == 6 and [t.get_text() for t in rec.get_xticklabels()] == \
        ["flat", "ivf", "hnsw"]
    sweep = pd.DataFrame({"recall@10": [0.5, 0.9, 0.97]}, index=pd.Index([1, 2, 4], name="nprobe"))
    fig2 = plots.nprobe_curve(sweep, chosen=4, nlist=16, k=10, title="IVF")
    ax = fig2.axes[0]
    assert list(ax.lines[0].get_xdata()) == [1, 2, 4] and "your nprobe = 4" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")


def test_nb12_rerank_that_normalises_the_query_vectors_in_place_is_refused():
    """Issue 29: the check passed copies, so the notebook's query vectors could change behind its back."""
    def normalising(queries, query_emb, corpus, corpus_emb, cross_encoder, k):
        query_emb /= np.linalg.norm(query_emb, axis=1, keepdims=True)
        return rerank(queries, query_emb, corpus, corpus_emb, cross_encoder, k)
    with pytest.raises(ExerciseError, match="changed its second argument .* in place"):
        nb12.check_rerank(normalising)
