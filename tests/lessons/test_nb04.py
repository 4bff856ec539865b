"""The checks of notebook 04 (sts evaluation): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb04)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch.nn.functional as F
from scipy.stats import pearsonr, rankdata
from sbertlib.workbook.lessons import ExerciseError, nb04
from lesson_helpers import not_done


def good_spearman(x, y):
    return float(pearsonr(rankdata(x), rankdata(y))[0])


def good_spearman_numpy(x, y):
    def ranks(a):
        a = np.asarray(a)
        order = np.argsort(a, kind="stable")
        r = np.empty(len(a))
        r[order] = np.arange(1, len(a) + 1)
        for value in np.unique(a):  # average the ranks of tied values
            r[a == value] = r[a == value].mean()
        return r
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def test_nb04_spearman_right_answers_pass(capsys):
    nb04.check_spearman(good_spearman)
    nb04.check_spearman(good_spearman_numpy)
    assert capsys.readouterr().out.count("[OK]") == 2


def _ordinal(a):
    return np.argsort(np.argsort(a, kind="stable"), kind="stable")


@pytest.mark.parametrize("wrong, hint", [
    (lambda x, y: float(pearsonr(x, y)[0]), "Pearson"),
    (lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0]), "average"),
    (lambda x, y: 100 * good_spearman(x, y), "100"),
    (lambda x, y: 1 - 6 * np.sum((rankdata(x) - rankdata(y)) ** 2) / (len(x) * (len(x) ** 2 - 1)), "shortcut"),
    (lambda x, y: np.corrcoef(rankdata(x), rankdata(y)), "single number"),
    (lambda x, y: None, None),
    (lambda x, y: ..., None),
    (not_done, "not done"),
])
def test_nb04_spearman_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_spearman(wrong)


def test_nb04_hidden_cases_have_ties():
    assert any(len(np.unique(x)) < len(x) for _, x, _ in nb04.hidden_cases())


def _sides(model, pairs, **kw):
    return (np.asarray(model.encode([p.sentence1 for p in pairs], **kw), dtype=float),
            np.asarray(model.encode([p.sentence2 for p in pairs], **kw), dtype=float))


def make_sts_evaluate(similarity="cosine", correlate=good_spearman, times=100.0, zero_guard=True):
    """The notebook's answer, with switches for the usual mistakes."""
    def sts_evaluate(model, pairs):
        u, v = _sides(model, pairs, show_progress_bar=False)
        dot = (u * v).sum(axis=1)
        norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = dot / (np.maximum(norms, 1e-8) if zero_guard else norms)   # an all-zero vector: cosine 0, not NaN
        sim = {"cosine": cos, "dot": dot}[similarity]
        return times * correlate(sim, [p.score for p in pairs]), sim
    return sts_evaluate


def torch_sts_evaluate(model, pairs):
    u = model.encode([p.sentence1 for p in pairs], convert_to="torch")
    v = model.encode([p.sentence2 for p in pairs], convert_to="torch")
    cos = F.cosine_similarity(u, v, dim=1)
    return 100 * good_spearman_numpy(cos.numpy(), [p.score for p in pairs]), cos


def test_nb04_sts_evaluate_right_answers_pass(capsys):
    nb04.check_sts_evaluate(make_sts_evaluate())
    nb04.check_sts_evaluate(torch_sts_evaluate)
    assert capsys.readouterr().out.count("[OK]") == 2


def test_nb04_sts_evaluate_truth_is_evaluate_sts():
    from sbertlib import evaluation
    model, pairs = nb04.hidden_sts()
    score, cos = nb04.sts_evaluate_truth(model, pairs)
    assert score == evaluation.evaluate_sts(model, pairs, ("cosine",)).main
    assert score == pytest.approx(make_sts_evaluate()(model, pairs)[0], abs=1e-9)


@pytest.mark.parametrize("wrong, hint", [
    (make_sts_evaluate(correlate=lambda x, y: float(pearsonr(x, y)[0])), "Pearson's r of the cosines"),
    (make_sts_evaluate(times=1.0), r"Spearman × 100 \(77.03, not 0.7703\)"),
    (make_sts_evaluate(similarity="dot"), "dot product u·v: these vectors are not normalised"),
    (make_sts_evaluate(zero_guard=False), r"cosine of hidden pair 7 is NaN: one of its sentence vectors is all zeros"),
    (make_sts_evaluate(correlate=lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0])),
     "same gold score got different ranks"),
    (make_sts_evaluate(correlate=lambda x, y: -good_spearman(x, y)), "distance"),
    (lambda model, pairs: make_sts_evaluate()(model, pairs)[0], "two things"),          # the score alone
    (lambda model, pairs: (42.0, np.zeros(len(pairs))), "never called model.encode"),
    (not_done, "not done"),
])
def test_nb04_sts_evaluate_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_sts_evaluate(wrong)


def test_nb04_sts_evaluate_hidden_data_tell_the_mistakes_apart():
    """Each wrong answer's score is more than a point away from the truth and from the others."""
    model, pairs = nb04.hidden_sts()
    scores = [make_sts_evaluate(**kw)(model, pairs)[0] for kw in (
        {}, {"similarity": "dot"}, {"correlate": lambda x, y: float(pearsonr(x, y)[0])},
        {"correlate": lambda x, y: float(pearsonr(_ordinal(x), _ordinal(y))[0])})]
    assert min(abs(a - b) for i, a in enumerate(scores) for b in scores[i + 1:]) > 0.5, scores
    assert len({p.score for p in pairs}) < len(pairs) / 3  # many ties


def good_pooled_and_wmean(pairs, cosines):
    gold, cos = np.array([p.score for p in pairs]), np.asarray(cosines)
    sources = np.array([p.source for p in pairs])
    pooled = 100 * good_spearman(cos, gold)
    wmean = sum(100 * good_spearman(cos[sources == s], gold[sources == s]) * np.sum(sources == s)
                for s in np.unique(sources)) / len(pairs)
    return pooled, wmean


def _subset_scores(pairs, cosines):
    gold, cos, sources = np.array([p.score for p in pairs]), np.asarray(cosines), np.array([p.source for p in pairs])
    return [100 * good_spearman(cos[sources == s], gold[sources == s]) for s in np.unique(sources)]


def test_nb04_pooled_and_wmean_right_passes(capsys):
    nb04.check_pooled_and_wmean(good_pooled_and_wmean)
    assert "[OK] pooled_and_wmean is right" in capsys.readouterr().out


def test_nb04_pooled_and_wmean_truth_is_the_librarys():
    from sbertlib import evaluation
    pairs, cos = nb04.hidden_year()
    model = nb04.HiddenEncoder({})
    for i, p in enumerate(pairs):  # vectors whose cosine is the hidden cosine: (1, 0) and (c, sqrt(1 - c²))
        model.vectors[p.sentence1] = np.array([1.0, 0.0])
        model.vectors[p.sentence2] = np.array([cos[i], np.sqrt(1 - cos[i] ** 2)])
    subsets = {}
    for p in pairs:
        subsets.setdefault(p.source, []).append(p)
    lib = evaluation.evaluate_sts_subsets(model, subsets)
    assert nb04.pooled_and_wmean_truth(pairs, cos) == pytest.approx((lib["all"], lib["wmean"]), abs=1e-3)


@pytest.mark.parametrize("wrong, hint", [
    (lambda pairs, cos: good_pooled_and_wmean(pairs, cos)[::-1], "other order"),
    (lambda pairs, cos: (good_pooled_and_wmean(pairs, cos)[0], float(np.mean(_subset_scores(pairs, cos)))),
     "plain mean of the subsets' scores: each subset must count by its number of pairs"),
    (lambda pairs, cos: (good_pooled_and_wmean(pairs, cos)[0],) * 2, "pooled score again"),
    (lambda pairs, cos: tuple(x / 100 for x in good_pooled_and_wmean(pairs, cos)), "× 100"),
    (lambda pairs, cos: good_pooled_and_wmean(pairs, cos)[0], "two numbers"),
])
def test_nb04_pooled_and_wmean_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_pooled_and_wmean(wrong)


def make_worst_k(rank=rankdata, size=np.abs, sign=1, stable=True):
    def worst_k(gold, predicted, k=10):
        errors = sign * (rank(predicted) - rank(gold))
        order = np.argsort(-size(errors), kind="stable" if stable else "quicksort")[:k]
        return order, errors[order]
    return worst_k


def test_nb04_worst_k_right_passes_and_is_worst_pairs(capsys):
    from sbertlib import data, evaluation
    nb04.check_worst_k(make_worst_k())
    assert "[OK] worst_k is right" in capsys.readouterr().out
    gold, pred = nb04.hidden_ranking()
    pairs = [data.STSPair(f"a{i}", f"b{i}", float(g)) for i, g in enumerate(gold)]
    table = evaluation.worst_pairs(pairs, pred, k=6)
    idx, err = nb04.worst_k_truth(gold, pred, 6)
    assert list(table.index) == list(idx) and np.allclose(table["rank_diff"], err)


@pytest.mark.parametrize("wrong, hint", [
    (make_worst_k(sign=-1), "sign is flipped"),
    (make_worst_k(size=lambda e: e), "not the largest in size"),
    (make_worst_k(rank=lambda a: _ordinal(a) + 1.0), "same gold score got different ranks"),
    (lambda gold, pred, k=10: (np.argsort(-np.abs(pred - gold / 5), kind="stable")[:k],
                               (pred - gold / 5)[np.argsort(-np.abs(pred - gold / 5), kind="stable")[:k]]),
     "differences of the scores themselves"),
    (lambda gold, pred, k=10: make_worst_k()(gold, pred, k)[0], "two things"),
    (lambda gold, pred, k=10: make_worst_k()(gold, pred, k + 2), "for k = 6 you returned 8"),
])
def test_nb04_worst_k_wrong_fails(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb04.check_worst_k(wrong)


def test_the_reference_is_not_labelled_a_stand_in():
    """04 and 05 labelled the packaged all-MiniLM-L6-v2 — the published model's own weights — "[offline, stand-in]"."""
    from sbertlib import evaluation
    from sbertlib.model.encoder import SentenceEncoder
    reference = SentenceEncoder.from_pretrained("minilm", device="cpu")
    label = evaluation.label_for(reference, "offline", "reference: fully trained, not fine-tuned here")
    assert label.endswith("all-MiniLM-L6-v2 (packaged) [offline]") and "stand-in" not in label
    tiny = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    assert evaluation.label_for(tiny, "smoke", "untrained").endswith("[smoke, stand-in]")


def right(all_sources, worst_sources):
    every = pd.Series(list(all_sources)).value_counts(normalize=True)
    worst = pd.Series(list(worst_sources)).value_counts(normalize=True).reindex(every.index, fill_value=0.0)
    return pd.DataFrame({"share of all": every, "share of the worst": worst, "over-representation": worst / every})


def right_by_counting(all_sources, worst_sources):
    genres = sorted(set(all_sources))                       # another row order, computed by hand
    a = {g: list(all_sources).count(g) / len(all_sources) for g in genres}
    w = {g: list(worst_sources).count(g) / len(worst_sources) for g in genres}
    return pd.DataFrame({"share of all": a, "share of the worst": w,
                         "over-representation": {g: w[g] / a[g] for g in genres}})


def with_column(column, values):
    def wrong(all_sources, worst_sources):
        table = right(all_sources, worst_sources)
        table[column] = values(table, pd.Series(list(all_sources)), pd.Series(list(worst_sources)))
        return table
    return wrong


def no_reindex(all_sources, worst_sources):
    return pd.DataFrame({"share of all": pd.Series(list(all_sources)).value_counts(normalize=True),
                         "share of the worst": pd.Series(list(worst_sources)).value_counts(normalize=True)}).assign(
        **{"over-representation": lambda t: t["share of the worst"] / t["share of all"]})


def test_right_answers_pass(capsys):
    for fn in (right, right_by_counting, nb04.genre_shares_truth):
        nb04.check_genre_shares(fn)
    assert capsys.readouterr().out.count("[OK]") == 3


@pytest.mark.parametrize("wrong, hint", [
    (with_column("share of all", lambda t, a, w: a.value_counts()), "counts of pairs"),
    (with_column("share of the worst", lambda t, a, w: w.value_counts().reindex(t.index, fill_value=0)), "counts of pairs"),
    (with_column("share of the worst", lambda t, a, w: w.value_counts().reindex(t.index, fill_value=0) / len(a)),
     "number of WORST pairs"),
    (with_column("over-representation", lambda t, a, w: t["share of all"] / t["share of the worst"]), "upside down"),
    (with_column("over-representation", lambda t, a, w: t["share of the worst"] - t["share of all"]), "difference"),
    (no_reindex, "share 0 there, not NaN"),
    (lambda a, w: right(a, w).iloc[:-1], "has no row for"),
    (lambda a, w: right(a, w).reset_index(drop=True), "no row for"),
    (lambda a, w: right(a, w).drop(columns="over-representation"), "lacks the column"),
    (lambda a, w: right(a, w).to_dict(), "not a DataFrame"),
])
def test_usual_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb04.check_genre_shares(wrong)
    assert "value_counts(normalize" not in str(err.value)


def test_stub_and_non_functions():
    def stub(a, w):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb04.check_genre_shares(stub)
    with pytest.raises(ExerciseError, match="function itself"):
        nb04.check_genre_shares(right(["a", "b"], ["a"]))
