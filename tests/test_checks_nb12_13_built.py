"""Checks of the exercises that make notebooks 12 and 13 the student's own (issue 20, item 1), and the
bookkeeping notebook 12 moved into sbertlib.workbook.applications: each check passes the right answer,
says an unfinished stub is not done, refuses what is not a function, and names each usual slip."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbertlib import data, search
from sbertlib.workbook import applications
from sbertlib.workbook.lessons import ExerciseError, nb12, nb13


def _stub(*_args, **_kwargs):
    raise NotImplementedError


def _unit(x):
    return torch.nn.functional.normalize(torch.as_tensor(x, dtype=torch.float32), dim=1)


# ----------------------------------------------------------------------------- nb12: mine_pairs
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
        nb12.check_mine_pairs(_stub)
    for value in (None, ..., [(0.9, 0, 1)]):
        with pytest.raises(ExerciseError, match="must be a function"):
            nb12.check_mine_pairs(value)


def test_nb12_mine_pairs_student_error_is_reported_as_theirs():
    def broken(emb, top):
        return emb.nonexistent
    with pytest.raises(ExerciseError, match="raised AttributeError"):
        nb12.check_mine_pairs(broken)


# ----------------------------------------------------------------------------- nb12: retrieve_and_rerank
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
        nb12.check_rerank(_stub)
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


# ----------------------------------------------------------------------------- nb12: purity
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
        nb12.check_purity(_stub)
    with pytest.raises(ExerciseError, match="must be a function"):
        nb12.check_purity(0.5)


# ----------------------------------------------------------------------------- nb12: communities
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
        nb12.check_communities(_stub)
    with pytest.raises(ExerciseError, match="must be a function"):
        nb12.check_communities(None)


# ----------------------------------------------------------------------------- nb13: examples_from_rows
def examples_from_rows(rows, columns, score_range, *, scale="right", check_range=True, error=data.DataFormatError,
                       line_of=None, name_column=True, swap=False, check_empty=True):
    first, second, score = columns
    low, high = score_range
    out = []
    for position, (line, row) in enumerate(rows):
        line = line_of(position) if line_of else line
        where = f"line {line}" + (f", column {{}}" if name_column else "")
        if check_empty:
            for column in (first, second):
                if not row[column]:
                    raise error(where.format(repr(column)) + ": empty")
        try:
            value = float(row[score])
        except ValueError:
            raise error(where.format(repr(score)) + ": not a number") from None
        if check_range and not low <= value <= high:
            raise error(where.format(repr(score)) + ": outside the range")
        label = {"right": (value - low) / (high - low), "raw": value, "over high": value / high,
                 "minus low over high": (value - low) / high, "reversed": (high - value) / (high - low)}[scale]
        out.append((row[second], row[first], label) if swap else (row[first], row[second], label))
    return out


def test_nb13_examples_right_answer_passes(capsys):
    nb13.check_examples_from_rows(examples_from_rows)
    assert "[OK]" in capsys.readouterr().out


def test_nb13_examples_truth_agrees_with_the_library_loader(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("question\tother\tscore\nA cat sits.\tA cat is sitting.\t4.5\nA dog runs.\tStocks fell.\t0.2\n")
    columns = ("question", "other", "score")
    ours = nb13.examples_from_rows_truth(data.own.read_table(path, columns), columns, (0, 5))
    theirs = data.load_scored_pairs(path, *columns, score_range=(0, 5))
    assert ours == [(p.sentence1, p.sentence2, p.label) for p in theirs]
    assert examples_from_rows(data.own.read_table(path, columns), columns, (0, 5)) == ours


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, c, s: examples_from_rows(r, c, s, scale="raw"), "scores as written"),
    (lambda r, c, s: examples_from_rows(r, c, s, scale="over high"), "score / high"),
    (lambda r, c, s: examples_from_rows(r, c, s, scale="minus low over high"), "width of the range"),
    (lambda r, c, s: examples_from_rows(r, c, s, scale="reversed"), "wrong way"),
    (lambda r, c, s: examples_from_rows(r, c, s, swap=True), "swapped"),
    (lambda r, c, s: examples_from_rows(r, c, s, check_range=False), "was accepted"),
    (lambda r, c, s: examples_from_rows(r, c, s, check_empty=False), "empty sentence cannot be trained on"),
    (lambda r, c, s: examples_from_rows(r, c, s, error=ValueError), "raise data.DataFormatError"),
    (lambda r, c, s: examples_from_rows(r, c, s, line_of=lambda i: i + 2), "not its position"),
    (lambda r, c, s: examples_from_rows(r, c, s, line_of=lambda i: "?"), "does not name its line"),
    (lambda r, c, s: examples_from_rows(r, c, s, name_column=False), "does not name the column"),
    (lambda r, c, s: [(row[c[0]], row[c[1]], float(row[c[2]]) / 10) for _, row in r], "refused|was accepted|score / high"),
])
def test_nb13_examples_wrong_answers_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb13.check_examples_from_rows(wrong)


def test_nb13_examples_nan_slip_is_named():
    def no_nan_check(rows, columns, score_range):          # compares with > and <: nan slips through
        low, high = score_range
        out = []
        for line, row in rows:
            for col in columns[:2]:
                if not row[col]:
                    raise data.DataFormatError(f"line {line}: column {col!r} is empty")
            try:
                value = float(row[columns[2]])
            except ValueError:
                raise data.DataFormatError(f"line {line}: column {columns[2]!r} not a number") from None
            if value < low or value > high:
                raise data.DataFormatError(f"line {line}: column {columns[2]!r} outside the range")
            out.append((row[columns[0]], row[columns[1]], (value - low) / (high - low)))
        return out
    with pytest.raises(ExerciseError, match="nan fails every comparison"):
        nb13.check_examples_from_rows(no_nan_check)


def test_nb13_examples_stub_and_non_functions():
    with pytest.raises(ExerciseError, match="not written yet"):
        nb13.check_examples_from_rows(_stub)
    with pytest.raises(ExerciseError, match="must be a function"):
        nb13.check_examples_from_rows(["not", "a", "function"])


# ----------------------------------------------------------------------------- notebook 12's bookkeeping
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


def test_as_hits_matches_semantic_search():
    rng = np.random.default_rng(2)
    q, c = rng.normal(size=(3, 6)), rng.normal(size=(12, 6))
    scores, ids = top_k(q, c, 4)
    assert [[h["corpus_id"] for h in row] for row in search.as_hits(scores, ids)] == \
        [[h["corpus_id"] for h in row] for row in search.semantic_search(q, c, top_k=4)]
    with pytest.raises(ValueError, match="same shape"):
        search.as_hits(np.zeros((2, 3)), np.zeros((2, 2), dtype=int))


def test_index_report_names_speedups_and_recall():
    import pandas as pd
    synth = pd.DataFrame({"latency_ms": [1.0, 0.1, 0.2], "recall@10": [1.0, 0.99, 0.98], "params": ["", "a", "b"]},
                         index=["flat", "ivf", "hnsw"])
    real = synth.assign(**{"recall@10": [1.0, 0.9, 0.97]})
    text = applications.index_report(synth, real, 10, 1000, 100)
    assert "IVF 10× and HNSW 5× faster" in text and "IVF recall is higher on the synthetic corpus" in text


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
