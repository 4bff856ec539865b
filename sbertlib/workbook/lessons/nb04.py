"""Self-checks for ``04_sts_evaluation``: Spearman's ρ, the STS evaluation, a year's two scores, the worst pairs."""
from dataclasses import replace

import numpy as np
from scipy.stats import kendalltau, pearsonr, rankdata, spearmanr

from . import (Exercise, ExerciseError, _brief, as_array as _np, call, guard, one_number, require, two_items,
               unit as _unit)

AVG = "ties share the *average* of the ranks they span (tied for ranks 4, 5, 6: all get 5)"
TIES = {"ordinal": "tied values got different ranks (argsort of argsort, method='ordinal' or 'first'): ",
        "min": "tied values got the lowest (method='min') or the highest (method='max') of their ranks: ",
        "dense": "tied values got dense ranks (1, 2, 2, 3: method='dense'): "}
RANKINGS = {"ordinal": (lambda a: rankdata(a, "ordinal"), lambda a: np.argsort(np.argsort(a)),  # TIES' rankings
                        lambda a: np.argsort(np.argsort(a)) + 1),
            "min": (lambda a: rankdata(a, "min"), lambda a: rankdata(a, "max")), "dense": (lambda a: rankdata(a, "dense"),)}
ALL, WORST, OVER = GENRE_COLUMNS = ("share of all", "share of the worst", "over-representation")


def _dot(u, v): return (u * v).sum(1)  # noqa: E704
def _pearson(x, y) -> float: return float(pearsonr(x, y)[0])  # noqa: E704


def _num(got, what: str) -> float:
    return one_number(got, what, "return one float: of np.corrcoef's 2 × 2 matrix or of scipy's result, the one entry "
                      "you need")


def _two(first, second, hint: str):
    return lambda got, what: tuple(f(x, what) for f, x in zip((first, second), two_items(got, f"{what} returned", hint)))


def _any(*values):
    """A slip's value that stands for each of ``values``: it is the first, and an exercise's ``compare`` reads all."""
    out = type("AnyOf", (type(values[0]),), {})(values[0])
    object.__setattr__(out, "alternatives", values)
    return out


def _either(same):
    """``compare`` from ``same(got, want)``: true where the student's value is any of a slip's :func:`_any` values."""
    return lambda got, want: any(same(got, w) for w in getattr(want, "alternatives", [want]))


def _r(x, y, rank=rankdata, rank_y=None) -> float:
    """Pearson's r of ``rank(x)`` and ``rank_y(y)``: ρ with average ranks, a slip with another ranking."""
    return _pearson(rank(_np(x)), (rank_y or rank)(_np(y)))


def spearman_truth(x, y) -> float:
    """Spearman's ρ (−1 … 1) as scipy computes it: Pearson's r of the average ranks."""
    return float(spearmanr(x, y).statistic)


def hidden_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """(x, y): no ties, a monotone non-linear relation, ties on one side, on both, a reversed order, STS-like gold."""
    rng = np.random.default_rng(2019)
    x, g, t = rng.normal(size=40), rng.integers(0, 11, 60) / 2, np.array([0, .5, 2, 2.5, 4, 7])[rng.integers(0, 6, (3, 30))]
    return [(x, 0.6 * x + rng.normal(size=40)), (np.arange(1.0, 13), np.exp(np.arange(1.0, 13))),
            (t[0], rng.normal(size=30)), (t[1], t[2] // 2), (np.arange(8.0), -np.arange(8.0) ** 3),
            (g, np.tanh(g / 5 + rng.normal(0, 0.3, 60)))]


SPEARMAN = Exercise("spearman", reference=spearman_truth, kept=True, inputs=hidden_cases, slips={
    "the sign is flipped: rank both lists the same way (1 = the smallest), and keep ρ's sign (no abs())":
        lambda x, y: -spearman_truth(x, y),
    "that is Pearson's r of the raw values: rank each list first": lambda x, y: _r(x, y, np.asarray),
    "you ranked only one of the two lists: rank x and y, each on its own":
        lambda x, y: _any(_r(x, y, rank_y=np.asarray), _r(x, y, np.asarray, rankdata)),
    "np.argsort(a) is the order of the values, not their ranks: a value's rank is np.argsort(np.argsort(a)) + 1, "
    "then " + AVG: lambda x, y: _r(x, y, np.argsort),
    "sorting loses which x goes with which y: replace each value by its rank instead": lambda x, y: _r(x, y, np.sort),
    "you ranked x and y together, as one joined list: rank each list on its own":
        lambda x, y: (lambda r: _pearson(r[:len(x)], r[len(x):]))(rankdata(np.r_[x, y])),
    **{TIES[m] + AVG: (lambda ranks: lambda x, y: _any(*(v for r in ranks for v in (  # both lists, or one of them
        _r(x, y, r), _r(x, y, rankdata, r), _r(x, y, r, rankdata)))))(ranks) for m, ranks in RANKINGS.items()},
    "the shortcut 1 − 6·Σd²/(n(n²−1)) is exact only without ties: take Pearson's r of the ranks":
        lambda x, y: 1 - 6 * np.sum((rankdata(x) - rankdata(y)) ** 2) / (len(x) * (len(x) ** 2 - 1)),
    "that is the cosine of the rank lists: Pearson's r subtracts each list's mean first":
        lambda x, y: rankdata(x) @ rankdata(y) / np.linalg.norm(rankdata(x)) / np.linalg.norm(rankdata(y)),
    "np.cov divides by n − 1 (ddof=1), np.std by n: use one ddof, or np.corrcoef":
        lambda x, y: spearman_truth(x, y) * len(x) / (len(x) - 1),
    "that is the covariance of the ranks: divide it by both lists' standard deviations":
        lambda x, y: _any(*(np.cov(rankdata(x), rankdata(y), ddof=d)[0, 1] for d in (1, 0))),
    "that is the p-value, the second value scipy returns: take the statistic, the first":
        lambda x, y: _any(spearmanr(x, y).pvalue, pearsonr(rankdata(x), rankdata(y)).pvalue),
    "that is Kendall's τ, another rank correlation: Spearman's ρ is Pearson's r of the ranks":
        lambda x, y: kendalltau(x, y).statistic,
    "np.corrcoef(...)[0, 0] is a list's correlation with itself (always 1): take [0, 1]": lambda x, y: 1.0},
    hint="rank each list on its own (1 = the smallest; " + AVG + "), then take Pearson's r of the two rank lists",
    ok="spearman is right, ties included: Spearman's ρ is Pearson's r of the (average) ranks",
    compare=_either(lambda got, want: abs(got - want) <= 1e-5), returns=_num,
    probe="""
            _rng = _np.random.default_rng(2026)
            _result = [spearman([1, 2, 2, 3, 5, 5, 5], [2, 1, 4, 4, 3, 7, 0]),
                       spearman(_rng.normal(size=30), _rng.normal(size=30))]
            """)


# ----------------------------------------------------------------------------- your STS evaluation
def sts_evaluate_truth(model, pairs) -> tuple[float, np.ndarray]:
    """``(Spearman ×100, cosine of every pair)`` as :func:`sbertlib.evaluation.evaluate_sts` computes them."""
    from ...evaluation import evaluate_sts
    result = evaluate_sts(model, pairs, ("cosine",), show_progress_bar=False)
    return result.main, result.predictions["cosine"]


class HiddenEncoder:
    """An encoder with known vectors, one per sentence (``encode`` as the library's); its copies share ``users``."""

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors, self.name, self.users = vectors, "hidden", []

    def __repr__(self) -> str:
        return f"<the check's encoder of {len(self.vectors)} sentences>"

    def unused(self, name: str) -> str:
        """A diagnosis where one copy alone encoded (the check's first call; the student's never did), else ""."""
        return (f"your {name} never encoded with the `model` it was given: the check passes its own model — encode "
                f"with the argument, not a model of the notebook") if len(set(map(id, self.users))) == 1 else ""

    def misaligned(self, values, measure, what: str) -> str:
        """A diagnosis where each of the student's ``values`` is ``measure`` between two of the check's sentences (so not
        always the right two: the vectors lost their alignment with the items), else ""."""
        vectors = np.stack(list(self.vectors.values()))
        between = measure(vectors[:, None], vectors[None]).ravel()
        mine = np.concatenate([np.ravel(_np(x)) for x in values])
        return f"each of your {what} is one between two of the check's sentences, but not always the right two: your " \
               f"vectors lost their alignment with the items — encode each column in its order, then row i of one with " \
               f"row i of the other" if mine.size and all(np.isclose(between, x, 1e-4, 1e-6).any() for x in mine) else ""

    def tokenize(self, texts) -> dict:   # model(model.tokenize(texts)) gives the vectors too, as the library's
        return {"texts": list(texts)}

    def __call__(self, features: dict):
        return self.encode(features["texts"], convert_to="torch")

    def encode(self, sentences, *args, convert_to="numpy", normalize=None, **kwargs):
        self.users.append(self)
        one = isinstance(sentences, str)
        out = np.stack([self.vectors[s] for s in ([sentences] if one else list(sentences))])
        out = (_unit(out) if normalize else out).astype(np.float32)
        out = __import__("torch").from_numpy(out) if convert_to == "torch" else out
        return out[0] if one else out


def hidden_sts(seed: int = 4) -> tuple[HiddenEncoder, list]:
    """The check's encoder and 48 pairs: gold in halves (many ties), cosines that follow it with noise, vector lengths
    from about 0.1 to 10 that do not, and one all-zero vector (pair 0's first sentence: its cosine is 0)."""
    from ...data import STSPair
    rng = np.random.default_rng(seed)
    gold, a = rng.integers(0, 11, 48) / 2, rng.normal(size=(48, 12))
    vectors = _unit(np.r_[a, gold[:, None] / 5 * a + rng.normal(0, .9, (48, 12))]) * np.exp(rng.uniform(-2.3, 2.3, (96, 1)))
    names, vectors[0] = [f"hidden sentence {i}{side}" for side in "ab" for i in range(48)], 0
    return HiddenEncoder(dict(zip(names, vectors))), [STSPair(names[i], names[48 + i], g) for i, g in enumerate(gold)]


def _sts(model, pairs, sim=lambda u, v: _dot(_unit(u), _unit(v)), corr=spearman_truth, times=100, halves=False):
    """The evaluation, one part a slip's (``sim``, ``corr``, ``times``; ``halves``: one interleaved list cut in two)."""
    order = [s for p in pairs for s in (p.sentence1, p.sentence2)] if halves else \
        [p.sentence1 for p in pairs] + [p.sentence2 for p in pairs]
    u, v = np.split(_np(model.encode(order, show_progress_bar=False)), 2)
    return times * corr(sim(u, v), [p.score for p in pairs]), sim(u, v)


_Cosines = type("Cosines", (tuple,), {"cosines_only": True})   # a slip's (score, cosines) known by its cosines alone


def _score_and_cosines(got, what: str) -> tuple[float, np.ndarray]:
    score, cos = two_items(got, f"{what} returned", "return two things: the score (Spearman × 100), then the cosines")
    require(np.size(_np(score)) == 1 or np.size(_np(cos)) != 1, f"{what} returned the cosines first", "the score first")
    cos = _np(cos).ravel() if _np(cos).ndim == 2 and 1 in _np(cos).shape else _np(cos)
    require(cos.ndim > 0, f"{what}: the cosines are one number", "one cosine per pair, not their mean")
    require(cos.ndim == 1, f"{what}: the cosines have shape {cos.shape}", "one cosine per pair, row i of u with row i "
            "of v (dim=1), not every sentence against every other")
    require(not np.isnan(cos).any(), f"{what}: a cosine is NaN: one vector is all zeros, and 0 / 0 is not a number",
            "an all-zero vector's cosine with anything is 0, as the exercise says: F.cosine_similarity gives that in "
            "float32 (in float16 it gives NaN too)")
    return _num(score, what), cos


STS_EVALUATE = Exercise("sts_evaluate", reference=sts_evaluate_truth, kept=True, inputs=lambda: [hidden_sts()], slips={
    "that is Pearson's r × 100: STS is scored by rank order, Spearman's ρ": lambda m, p: _sts(m, p, corr=_pearson),
    "that is Pearson's r, and not × 100: use Spearman's ρ × 100": lambda m, p: _sts(m, p, corr=_pearson, times=1),
    "you ranked by the dot product u·v: these vectors are not normalised, so a long vector looks similar to "
    "everything; the cosine divides by both lengths (then × 100)":
        lambda m, p: _any(_sts(m, p, _dot), _sts(m, p, _dot, times=1)),
    "only one side was normalised: the cosine divides u·v by |u| and by |v|":
        lambda m, p: _sts(m, p, lambda u, v: _dot(_unit(u), v)),
    "np.linalg.norm without axis=1 is one norm of the whole matrix: each row needs its own (axis=1, keepdims=True)":
        lambda m, p: _sts(m, p, lambda u, v: _dot(u, v) / np.linalg.norm(u) / np.linalg.norm(v)),
    "you divided by each column's norm (axis=0): a vector's length is its row's norm (axis=1, keepdims=True)":
        lambda m, p: _sts(m, p, lambda u, v: _dot(_unit(u.T).T, _unit(v.T).T)),
    "that is a distance between the vectors (Euclidean or Manhattan, or minus it): it sees their lengths, the cosine "
    "only their directions": lambda m, p: _any(*(_sts(m, p, lambda u, v: sign * np.linalg.norm(u - v, ord=o, axis=1))
                                               for sign in (-1, 1) for o in (2, 1))),
    "the sign is flipped: you correlated a distance (1 − cos), not a similarity":
        lambda m, p: _sts(m, p, lambda u, v: 1 - _dot(_unit(u), _unit(v))),
    "pairs with the same gold score got different ranks: " + AVG:
        lambda m, p: _sts(m, p, corr=lambda x, y: _r(x, y, lambda a: rankdata(a, "ordinal"))),
    "negative cosines are cosines too: keep each as it is (no abs(), no clamp at 0)": lambda m, p: _any(*(_Cosines(_sts(
        m, p, lambda u, v, f=f: f(_dot(_unit(u), _unit(v))))) for f in (np.abs, lambda c: np.maximum(c, 0)))),
    "the gold scores must stay with their pairs: sorted (or reordered) alone, they no longer belong to them":
        lambda m, p: _sts(m, p, corr=lambda x, y: spearman_truth(x, sorted(y))),
    "you subtracted the mean vector first (notebook 01's anisotropy): the cosine here is of the vectors as they are":
        lambda m, p: _any(*(_sts(m, p, lambda u, v, c=c: _dot(_unit(u - c(u, v)), _unit(v - c(v, u)))) for c in (
            lambda x, y: np.r_[x, y].mean(0), lambda x, y: x.mean(0)))),
    "the second thing you returned is the gold scores: return the cosines":
        lambda m, p: (_sts(m, p)[0], np.array([q.score for q in p])),
    "each cosine must pair a sentence with its own partner: of one interleaved list the sides are [::2] and [1::2], "
    "not its halves": lambda m, p: _sts(m, p, halves=True),
    "each cosine must pair a sentence with its own partner, row i of u with row i of v: one side was reversed or "
    "shifted": lambda m, p: _any(*(_sts(m, p, lambda u, v, f=f: _dot(_unit(u), _unit(f(v)))) for f in (
        lambda v: v[::-1], lambda v: np.roll(v, 1, 0), lambda v: np.roll(v, -1, 0)))),
    "your cosines are per column (dim=0): one cosine per pair, over its row's numbers (dim=1)":
        lambda m, p: _Cosines(_sts(m, p, lambda u, v: _dot(_unit(u.T), _unit(v.T)), corr=lambda x, y: spearman_truth(
            x, y[:len(x)]))),
    "both sides are the same sentences (each cosine a sentence with itself): encode sentence1 for one side, "
    "sentence2 for the other": lambda m, p: _any(*(_Cosines(_sts(m, [replace(q, sentence1=getattr(q, s),
        sentence2=getattr(q, s)) for q in p])) for s in ("sentence1", "sentence2"))),
    "your cosines are in another order than the pairs (you sorted them): one cosine per pair, in the order given":
        lambda m, p: _any(*(_sts(m, sorted(p, key=lambda q: q.score, reverse=r)) for r in (False, True))),
    "1 − sklearn's paired_cosine_distances gives 0.5 where a vector is all zeros: its cosine is 0, as the exercise "
    "says (F.cosine_similarity gives that)": lambda m, p: _sts(m, p, lambda u, v: 1 - ((_unit(u) - _unit(v)) ** 2).sum(
        1) / 2)},
    diagnose=lambda fn, got, m, p: m.misaligned([got[1]], lambda u, v: (_unit(u, -1) * _unit(v, -1)).sum(-1),
                                                "cosines") or m.unused("sts_evaluate"),
    hint="encode the first and the second sentences, one cosine per pair (row i with row i), then 100 × your spearman "
         "of the cosines and the gold scores",
    ok="sts_evaluate is evaluate_sts: cosine of each pair, Spearman's ρ × 100 against the gold scores, ties averaged",
    compare=_either(lambda a, b: (getattr(b, "cosines_only", False) or abs(a[0] - b[0]) <= 1e-3) and
                    a[1].shape == b[1].shape and np.allclose(a[1], b[1], atol=1e-5)),
    returns=_score_and_cosines, parts=("score", "cosines"), probe="""
            from sbertlib import data as _data
            from sbertlib.workbook.profiles import load_encoder as _load_encoder
            _result = sts_evaluate(_load_encoder(profile), _data.load_stsb("test")[:40])
            """)


# ----------------------------------------------------------------------------- the two conventions of an STS year
def _year(pairs, cosines, mean=lambda s, n: s @ n / n.sum(), corr=spearman_truth, blocks=False, sub=None):
    """(all, wmean) ×100, one part a slip's (``mean``, ``corr``, ``sub``: the subsets' own; ``blocks``: each subset's
    cosines the next block)."""
    gold, src, cos = np.array([p.score for p in pairs]), np.array([p.source for p in pairs]), _np(cosines)
    names = list(dict.fromkeys(src))
    n = np.array([np.sum(src == s) for s in names])
    s = np.array([100 * (sub or corr)(cos[c:c + k] if blocks else cos[src == name], gold[src == name])
                  for name, c, k in zip(names, np.cumsum(n) - n, n)])
    return 100 * corr(cos, gold), float(mean(s, n))


def pooled_and_wmean_truth(pairs, cosines) -> tuple[float, float]:
    """``(all, wmean)`` ×100 as evaluate_sts_subsets scores a year: one Spearman over every pair pooled, and the
    subsets' (``pair.source``) Spearmans weighted by their sizes."""
    return _year(pairs, cosines)


def hidden_year(seed: int = 12) -> tuple[list, np.ndarray]:
    """Three subsets of 30, 12 and 6 pairs at different gold levels, interleaved, and a model's cosines for them."""
    from ...data import STSPair
    rng = np.random.default_rng(seed)
    src = rng.permutation(["news"] * 30 + ["captions"] * 12 + ["forums"] * 6)
    gold = np.clip(np.select([src == "news", src == "captions"], [1.0, 3.5], 2.0) + rng.normal(0, 1.2, 48), 0, 5)
    return ([STSPair(f"{s} {i}a", f"{s} {i}b", g, source=f"STS99/{s}") for i, (s, g) in enumerate(zip(src, gold.round(1)))],
            np.tanh(gold / 5 + rng.normal(0, .3, 48) + .6 * (src == "news")))


def _weights_or_scores(fn, got, pairs, cosines) -> str:
    """Where only wmean is wrong, the student's function on small years says which part: the year as one subset (wmean
    must be the pooled score), then its first half twice as two subsets — in blocks, interleaved, and with the second's
    cosines cubed (each subset's score is the same, so any weights summing to 1 give it back)."""
    def wmean(year, cos) -> float:
        return _num(two_items(call(fn, year, cos), "", "")[1], "")
    right = lambda year, cos: bool(np.isclose(wmean(year, cos), _year(year, cos)[1], atol=1e-3))  # noqa: E731
    half, cos, one = pairs[:len(pairs) // 2], _np(cosines)[:len(pairs) // 2], [replace(p, source="STS99/1") for p in pairs]
    twice = [replace(p, source=f"STS99/{s}") for s in "ab" for p in half]
    try:
        if not np.isclose(_num(got[0], ""), _year(pairs, cosines)[0], atol=1e-3):
            return ""
        if np.isclose(abs(_num(got[1], "")), 100):
            return "your wmean is a perfect correlation (±100): does each subset correlate a list with itself (the gold " \
                   "with the gold, the cosines with the cosines)?"
        if np.isclose(wmean(one, cosines), _num(got[1], "")):
            return "your wmean stays the same when every pair is given one source: it never reads pair.source — group " \
                   "the pairs by it"
        if not right(one, cosines):
            return "with the whole year as one subset your wmean is not the pooled score: one subset's score itself is " \
                   "wrong — its own pairs' cosines and gold scores (one mask for both), one Spearman × 100"
        if not right(twice, np.r_[cos, cos]):
            return "with two subsets that are copies of each other your wmean is not their score: a weighted mean's " \
                   "weights sum to 1 — Σ size × score / Σ size, nothing more divided or multiplied"
        if not right([p for ab in zip(twice[:len(half)], twice[len(half):]) for p in ab], np.repeat(cos, 2)):
            return "with two subsets whose pairs alternate your wmean is wrong, in blocks right: take each subset's " \
                   "cosines and gold scores by its pairs' mask (…[sources == s]), not by position"
        if not right(twice, np.r_[cos, cos ** 3]):   # the same ranks in b, so the same score: not the same pooled ranks
            return "two subsets with the same ranks within each got different scores from you: rank each subset's " \
                   "cosines and gold scores within that subset, not once over the whole year"
    except ExerciseError:
        return ""
    return "where every subset scores the same your wmean is right, so the weights are wrong: each subset weighs its " \
           "number of pairs (Σ size × score / Σ size), every subset counted"


POOLED_AND_WMEAN = Exercise("pooled_and_wmean", reference=pooled_and_wmean_truth, inputs=lambda: [hidden_year()], slips={
    "that is the plain mean of the subsets' scores: weigh each by its number of pairs":
        lambda p, c: _year(p, c, lambda s, n: s.mean()),
    "the weights are not normalised: divide Σ size × score by Σ size, the number of pairs":
        lambda p, c: _year(p, c, lambda s, n: s @ n),
    "you averaged the weighted scores over the subsets: Σ size × score / Σ size is already the mean":
        lambda p, c: _any(_year(p, c, lambda s, n: s @ n / len(n)), _year(p, c, lambda s, n: s @ n / n.sum() / len(n))),
    "wmean is the pooled score again: score each subset (pair.source) on its own": lambda p, c: (_year(p, c)[0],) * 2,
    "all is one Spearman over every pair pooled, not a mean of the subsets' scores":
        lambda p, c: _any((_year(p, c)[1],) * 2, (_year(p, c, lambda s, n: s.mean())[1], _year(p, c)[1])),
    "that is Pearson's r (of all and the subsets, or of the subsets): both conventions use Spearman's ρ":
        lambda p, c: _any(_year(p, c, corr=_pearson), _year(p, c, sub=_pearson)),
    "each subset's cosines must be its own pairs' (cosines[i] is pairs[i]'s): take them with the gold's mask "
    "(cosines[sources == s]), not by position, and never sort the pairs alone": lambda p, c: _any(
        _year(p, c, blocks=True), _year(sorted(p, key=lambda q: q.source), c)),
    "the weights are the sizes minus one: weigh each subset by its number of pairs":
        lambda p, c: _year(p, c, lambda s, n: s @ (n - 1) / (n - 1).sum())},
    diagnose=_weights_or_scores, parts=("pooled score (all)", "wmean"),
    hint="all: 100 × one Spearman over every pair; wmean: each subset's (pair.source) Spearman × 100, weighted by its "
         "number of pairs",
    ok="pooled_and_wmean is right: one Spearman over every pair pooled, and the subsets' Spearmans weighted by size",
    compare=_either(lambda a, b: np.allclose(a, b, rtol=0, atol=1e-3)), returns=_two(_num, _num, "all, then wmean"),
    probe="""
            import types as _types
            _rng = _np.random.default_rng(2033)
            _pairs = [_types.SimpleNamespace(sentence1=f"a{i}", sentence2=f"b{i}", score=float(s), source=src)
                      for i, (s, src) in enumerate(zip(_rng.uniform(0, 5, 30).round(1), ["news", "forum", "images"] * 10))]
            _result = pooled_and_wmean(_pairs, _rng.normal(size=30))
            """)


# ----------------------------------------------------------------------------- the largest rank errors
def _worst(gold, predicted, k=10, rank=rankdata, size=np.abs, diff=None):
    e = (diff or (lambda p, g: rank(p) - rank(g)))(_np(predicted), _np(gold))
    top = np.argsort(-size(e), kind="stable")[:k]
    return top, e[top]


def worst_k_truth(gold, predicted, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, rank errors)`` of the k pairs :func:`sbertlib.evaluation.worst_pairs` lists: error = predicted rank
    − gold rank (ranks 1..n, ties averaged), largest |error| first, equally large ones in data order."""
    return _worst(gold, predicted, k)


class _TiesReordered(tuple):
    """worst_k with equally large errors in reverse data order. As a slip's value it stands for any answer with the
    right pairs and errors whose ties are out of data order (an unstable sort's order depends on the machine)."""

    def __new__(cls, gold, predicted, k):
        out = super().__new__(cls, _worst(gold, predicted, k, size=lambda e: abs(e) + 1e-6 * np.arange(len(e))))
        out.errors = rankdata(_np(predicted)) - rankdata(_np(gold))
        return out


def _same_worst(got, want) -> bool:
    (i, e), (wi, we) = got, want
    if isinstance(want, _TiesReordered):
        return len(i) == len(wi) == len(set(i)) and np.allclose(want.errors[i], e) and np.allclose(abs(e), abs(we))
    return len(i) == len(wi) and (i == wi).all() and np.allclose(e, we)


def _indices(got, what: str) -> np.ndarray:
    require(np.array_equal(_np(got), np.round(_np(got))), f"{what}: the indices {_brief(got)} are not whole numbers",
            "return the pairs' positions first (np.argsort gives them), then their rank errors")
    return _np(got).ravel().astype(int)


def hidden_ranking(seed: int = 21) -> tuple[np.ndarray, np.ndarray]:
    """STS-like gold scores (many ties) and predictions with a few pairs badly misplaced both ways, three others tied
    at 0 (as all-zero vectors' cosines are)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 11, 40) / 2
    predicted = np.tanh(gold / 5 + rng.normal(0, .15, 40)) + .9 * np.isin(range(40), [3, 17]) - .9 * np.isin(
        range(40), [8, 30, 31])
    return gold, np.where(np.isin(range(40), [14, 18, 29]), 0.0, predicted)


WORST_K = Exercise("worst_k", reference=worst_k_truth, inputs=lambda: [(*hidden_ranking(), 12)], slips={
    "the sign is flipped: error = predicted rank − gold rank (> 0: the model put the pair higher), each list ranked "
    "from its smallest value (rank 1)":
        lambda g, p, k: _worst(g, p, k, diff=lambda p, g: rankdata(g) - rankdata(p)),
    "you took the largest errors, not the largest in size: far too low is as wrong as far too high":
        lambda g, p, k: _worst(g, p, k, size=lambda e: e),
    "those are the k largest, but the smallest of them first (the end of an ascending sort): largest |error| first":
        lambda g, p, k: (lambda e: (lambda i: (i, e[i]))(np.argsort(abs(e), kind="stable")[-k:]))(
            rankdata(_np(p)) - rankdata(_np(g))),
    "those are differences of the scores (predicted − gold, on one scale or another: a cosine, × 5, gold / 5): an "
    "error compares ranks, predicted rank − gold rank": lambda g, p, k: _any(*(_worst(
        g, p, k, diff=lambda p, g, a=a, b=b: a * p - b * g) for a, b in ((1, 1), (5, 1), (1, .2)))),
    "one list was ranked from the largest (rankdata(-x)): rank both from the smallest, then predicted − gold":
        lambda g, p, k: _any(*(_worst(g, p, k, diff=lambda p, g, s=s: rankdata(s * p) - rankdata(-s * g))
                               for s in (-1, 1))),
    "those are the smallest errors: sort by |error|, largest first": lambda g, p, k: _worst(g, p, k, size=lambda e: -abs(e)),
    "you returned the sizes |error|: return the signed errors": lambda g, p, k: (lambda i, e: (i, abs(e)))(*_worst(g, p, k)),
    "those errors are the list's first k, not those of the pairs you picked: errors[order]":
        lambda g, p, k: (_worst(g, p, k)[0], rankdata(p)[:k] - rankdata(g)[:k]),
    "return as many pairs as k asks for: k is the argument (not off by one, not a default of 10)":
        lambda g, p, k: _any(*(_worst(g, p, n) for n in (10, k + 1, k - 1))),
    "indices count from 0: return the positions np.argsort gives": lambda g, p, k: (lambda i, e: (i + 1, e))(*_worst(g, p, k)),
    **{TIES[m] + AVG: (lambda ranks: lambda g, p, k: _any(*(x for r in ranks for x in (_worst(g, p, k, r), _worst(
        g, p, k, diff=lambda p, g: r(p) - rankdata(g))))))(ranks) for m, ranks in RANKINGS.items()},  # both, or one
    "np.argsort(a) is the order of the values, not their ranks: rank each list (scipy.stats.rankdata)":
        lambda g, p, k: _worst(g, p, k, np.argsort),
    "equally large errors must keep their data order: a stable sort (np.argsort(-abs(e), kind='stable')); an "
    "unstable one, or an ascending one reversed, reorders them": _TiesReordered},
    hint="rank the gold and the predictions each on its own, subtract (predicted − gold), then the k largest in size",
    ok="worst_k is right: the pairs furthest from their gold rank (ties averaged), largest first, ties in data order",
    compare=_either(_same_worst), returns=_two(_indices, lambda e, what: _np(e).ravel(), "return the indices, then the errors"),
    parts=("indices", "errors"),
    probe="""
            _gold, _pred = [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10], [10.0, 1, 2, 3, 4, 9, 5, 6, 7, 8]
            _ids, _errors = worst_k(_gold, _pred, 2)
            _all = worst_k(_gold, _pred, 10)
            _result = {"k=2": [_ids, _errors],            # ties among the rest: every pair compared as a set
                       "all": sorted([int(i), float(e)] for i, e in zip(*(_np.asarray(x).tolist() for x in _all)))}
            """)


# ----------------------------------------------------------------------------- which genres the errors come from
def genre_shares_truth(all_sources, worst_sources, of_all=None, of_worst=None, over=None):
    """Each genre's share of all pairs and of the worst, and the second over the first (1 = as often as anywhere);
    a genre absent from the worst has share 0. Each keyword is a slip's."""
    import pandas as pd
    counts = pd.Series(list(all_sources)).value_counts()
    every = (of_all or (lambda c: c / c.sum()))(counts)
    worst = (of_worst or (lambda c, n: c / c.sum()))(pd.Series(list(worst_sources)).value_counts().reindex(
        counts.index, fill_value=0), len(all_sources))
    return pd.DataFrame({ALL: every, WORST: worst, OVER: (over or (lambda w, a: w / a))(worst, every)})


def _table(got, what: str):
    import pandas as pd
    require(isinstance(got, pd.DataFrame), f"{what} returned a {type(got).__name__}", "return a pandas DataFrame")
    require(set(GENRE_COLUMNS) <= set(got.columns), f"{what}: its columns are {list(got.columns)}",
            f"one row per genre, the columns {', '.join(GENRE_COLUMNS)}")
    require(not got[list(GENRE_COLUMNS)].isna().any().any(), f"{what}: a share is missing (NaN)",
            "a genre never among the worst has share 0 there, not NaN: .reindex(every genre, fill_value=0.0)")
    return got[list(GENRE_COLUMNS)].astype(float)


_shares = lambda **slip: lambda a, w: genre_shares_truth(a, w, **slip)  # noqa: E731 - one part a slip's
GENRE_SHARES = Exercise("genre_shares", reference=genre_shares_truth, inputs=lambda: [(
    ["main-captions"] * 30 + ["main-news"] * 18 + ["main-forums"] * 8 + ["main-headlines"] * 4,
    ["main-forums"] * 6 + ["main-captions"] * 4 + ["main-news"] * 2)], slips={
    "those are counts: a share is a genre's count over the number of pairs": _shares(of_all=lambda c: c),
    "those are counts among the worst: divide by the number of worst pairs": _shares(of_worst=lambda c, n: c),
    "those are counts in both columns: a share is a genre's count over the number of pairs (all, or the worst)":
        _shares(of_all=lambda c: c, of_worst=lambda c, n: c),
    "the worst's shares are over the number of worst pairs given, len(worst_sources): not over all pairs, not a fixed "
    "100": lambda a, w: _any(*(genre_shares_truth(a, w, of_worst=lambda c, n, d=d: c / (d or n)) for d in (100, 0))),
    "the ratio is upside down: share of the worst / share of all": _shares(over=lambda w, a: a / w),
    "that is a difference: over-representation is the shares' ratio": _shares(over=lambda w, a: w - a),
    "every genre of all pairs gets a row, share 0 where it is never among the worst":
        lambda a, w: genre_shares_truth(a, w).loc[lambda t: t[WORST] > 0],
    "index the rows by genre (the source), not by number": lambda a, w: genre_shares_truth(a, w).reset_index(drop=True)},
    hint="share of all: a genre's count / all pairs; of the worst: its count among the worst / the worst pairs; "
         "over-representation: the second / the first",
    ok="genre_shares is right: each genre's share of all and of the worst (0 where never among them), and their ratio",
    compare=_either(lambda a, b: sorted(map(str, a.index)) == sorted(map(str, b.index)) and np.allclose(a.loc[b.index], b)),
    returns=_table)

EXERCISES = (SPEARMAN, STS_EVALUATE, WORST_K, POOLED_AND_WMEAN, GENRE_SHARES)


def check_spearman(spearman): SPEARMAN.check(spearman)  # noqa: E704 - each check is its declaration's
def check_sts_evaluate(sts_evaluate): STS_EVALUATE.check(sts_evaluate)  # noqa: E704
def check_pooled_and_wmean(pooled_and_wmean): POOLED_AND_WMEAN.check(pooled_and_wmean)  # noqa: E704
def check_worst_k(worst_k): WORST_K.check(worst_k)  # noqa: E704
def check_genre_shares(genre_shares): GENRE_SHARES.check(genre_shares)  # noqa: E704


guard(globals())   # last: every check above shows its own failures as an ExerciseError
