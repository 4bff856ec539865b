"""Self-checks for ``04_sts_evaluation``."""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.stats import pearsonr, rankdata, spearmanr

from . import guard, Exercise, ExerciseError, _brief, call, ok, require
from .questions import choice

__all__ = ["check_spearman", "check_sts_evaluate", "check_pooled_and_wmean", "check_worst_k", "hidden_cases",
           "spearman_truth", "sts_evaluate_truth", "pooled_and_wmean_truth", "worst_k_truth",
           "check_genre_shares", "genre_shares_truth"]


def hidden_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(description, x, y)`` pairs the check compares with ``scipy.stats.spearmanr`` — ties included."""
    rng = np.random.default_rng(2019)
    x = rng.normal(size=40)
    cases = [
        ("40 continuous values, no ties", x, 0.6 * x + rng.normal(size=40)),
        ("a monotone but non-linear relation (exp)", np.arange(1.0, 13.0), np.exp(np.arange(1.0, 13.0))),
        ("gold scores with many ties (0–5 in steps of 1)", rng.integers(0, 6, 30).astype(float),
         rng.normal(size=30)),
        ("ties on both sides", rng.integers(0, 4, 25).astype(float), rng.integers(0, 5, 25).astype(float)),
        ("a perfectly reversed order", np.arange(8.0), -np.arange(8.0) ** 3),
    ]
    g = rng.integers(0, 11, 60) / 2  # STS-like gold: 0, 0.5, …, 5
    cases.append(("STS-like gold (0–5 in halves) vs noisy cosines", g, np.tanh(g / 5 + rng.normal(0, 0.3, 60))))
    return cases


def _ordinal_ranks(a: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(a, kind="stable"), kind="stable").astype(float)


def _shortcut(rx: np.ndarray, ry: np.ndarray) -> float:
    """1 − 6·Σd²/(n(n²−1)) of two rank vectors: Spearman's ρ only when there are no ties."""
    n = len(rx)
    return float(1 - 6 * np.sum((np.asarray(rx) - np.asarray(ry)) ** 2) / (n * (n ** 2 - 1)))


def spearman_truth(x, y) -> float:
    """Spearman's ρ (−1 … 1) as scipy computes it: Pearson's r of the average ranks."""
    return float(spearmanr(x, y).statistic)


def _one_float(got, what: str) -> float:
    """The student's ρ as a float, or an ExerciseError saying what came back instead."""
    require(got is not None and got is not NotImplemented and got is not Ellipsis, f"{what} returned {got!r}",
            "return ρ as a float")
    try:
        return float(np.asarray(got, dtype=float).reshape(()))
    except (TypeError, ValueError):
        raise ExerciseError(f"{what} returned {_brief(got)}, not a single number\n"
                            "Hint: return one float (if you called scipy/np.corrcoef, pick the right entry "
                            "of its result)") from None


SPEARMAN = Exercise(
    "spearman",
    probe="""
            _rng = _np.random.default_rng(2026)
            _result = [spearman([1, 2, 2, 3, 5, 5, 5], [2, 1, 4, 4, 3, 7, 0]),
                       spearman(_rng.normal(size=30), _rng.normal(size=30))]
            """,
    reference=spearman_truth, kept=True,
    # the hidden data include ties (as STS gold scores have: many pairs share a score), a monotone non-linear
    # relation and a reversed order
    inputs=lambda: [(x, y) for _, x, y in hidden_cases()],
    slips={"you returned Spearman × 100; return ρ itself, between −1 and 1 (tables multiply by 100)":
               lambda x, y: 100 * spearman_truth(x, y),
           "that is Pearson's r of the raw values: rank both lists first, then take Pearson of the ranks":
               lambda x, y: float(pearsonr(x, y)[0]),
           "tied values got different ranks (argsort of argsort); tied values must share the *average* "
           "of the ranks they span, e.g. scipy.stats.rankdata":
               lambda x, y: float(pearsonr(_ordinal_ranks(x), _ordinal_ranks(y))[0]),
           "the shortcut 1 − 6·Σd²/(n(n²−1)) is exact only without ties; "
           "compute Pearson's r of the (average) ranks instead":
               lambda x, y: _shortcut(rankdata(x), rankdata(y))},  # with argsort ranks it is their Pearson r
    hint="rank x and y separately (average ranks for ties), then Pearson's r of the two rank vectors",
    ok="spearman is right, ties included: Spearman's ρ is Pearson's r of the (average) ranks",
    compare=lambda got, want: abs(got - want) <= 1e-6, returns=_one_float)


def check_spearman(spearman: Callable) -> None:
    """Check ``spearman(x, y) -> ρ`` (a float in [−1, 1]) against ``scipy.stats.spearmanr`` on hidden data.

    The hidden data include ties (as STS gold scores have: many pairs share a score), a monotone
    non-linear relation and a reversed order.
    """
    SPEARMAN.check(spearman)


# ----------------------------------------------------------------------------- your STS evaluation
def sts_evaluate_truth(model, pairs) -> tuple[float, np.ndarray]:
    """``(Spearman ×100, cosine of every pair)`` as :func:`sbertlib.evaluation.evaluate_sts` computes them —
    what ``sts_evaluate(model, pairs)`` returns."""
    from ...evaluation import evaluate_sts
    result = evaluate_sts(model, pairs, ("cosine",), show_progress_bar=False)
    return result.main, result.predictions["cosine"]


class HiddenEncoder:
    """An encoder with known vectors, one per sentence, of lengths from about 0.1 to 10 — so ranking
    pairs by the dot product differs from ranking them by the cosine. Counts its ``encode`` calls."""

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors, self.calls = vectors, 0
        self.info = {"backbone": "the check's hidden encoder", "stand_in": True}
        self.name = "hidden"

    def encode(self, sentences, batch_size: int = 32, show_progress_bar=None, convert_to: str = "numpy", **kwargs):
        self.calls += 1
        single = isinstance(sentences, str)
        out = np.stack([self.vectors[s] for s in ([sentences] if single else list(sentences))]).astype(np.float32)
        if convert_to == "torch":
            import torch
            out = torch.from_numpy(out)
        return out[0] if single else out


def hidden_sts(seed: int = 4) -> tuple[HiddenEncoder, list]:
    """The check's encoder and 48 scored pairs: STS-like gold scores in halves (many ties), cosines that
    follow the gold with noise, vector lengths that do not, and one all-zero vector (pair ``ZERO_PAIR``)."""
    from ...data import STSPair
    rng = np.random.default_rng(seed)
    vectors, pairs = {}, []
    gold = rng.integers(0, 11, 48) / 2
    for i, g in enumerate(gold):
        a = rng.normal(size=12)
        b = (g / 5) * a + rng.normal(scale=0.9, size=12)           # more alike for higher gold
        s1, s2 = f"hidden sentence {i}a", f"hidden sentence {i}b"
        vectors[s1] = a / np.linalg.norm(a) * np.exp(rng.uniform(-2.3, 2.3))
        vectors[s2] = b / np.linalg.norm(b) * np.exp(rng.uniform(-2.3, 2.3))
        pairs.append(STSPair(s1, s2, float(g), source="hidden/check"))
    vectors[pairs[ZERO_PAIR].sentence1] = np.zeros(12)              # an all-zero vector: its cosine must be 0, not NaN
    return HiddenEncoder(vectors), pairs


ZERO_PAIR = 7  # the hidden pair whose first sentence the hidden encoder maps to an all-zero vector


def _sts_hint(score: float, cos_given: np.ndarray | None, model: HiddenEncoder, pairs) -> str:
    gold = np.array([p.score for p in pairs])
    a = np.stack([model.vectors[p.sentence1] for p in pairs]).astype(np.float64)
    b = np.stack([model.vectors[p.sentence2] for p in pairs]).astype(np.float64)
    cos = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1), 1e-8) / np.maximum(np.linalg.norm(b, axis=1), 1e-8)
    dot = (a * b).sum(1)
    truth = 100 * spearman_truth(cos, gold)
    known = [
        (truth / 100, "that is ρ itself: the tables print Spearman × 100 (77.03, not 0.7703)"),
        (100 * float(pearsonr(cos, gold)[0]), "that is Pearson's r of the cosines with the gold scores: STS is "
                                              "scored by rank order, Spearman's ρ"),
        (float(pearsonr(cos, gold)[0]), "that is Pearson's r (and not × 100): STS is scored by rank order, "
                                        "Spearman's ρ × 100"),
        (100 * spearman_truth(dot, gold), "you ranked the pairs by the dot product u·v: these vectors are not "
                                          "normalised, so a long vector looks similar to everything — compare "
                                          "directions only (the cosine)"),
        (spearman_truth(dot, gold), "you ranked by the dot product u·v (these vectors are not normalised: "
                                    "use the cosine), and the tables print ρ × 100"),
        (100 * float(pearsonr(_ordinal_ranks(cos), _ordinal_ranks(gold))[0]),
         "pairs with the same gold score got different ranks: tied scores must share the average of the "
         "ranks they span (your spearman of Exercise 1 does that)"),
        (-truth, "the sign is flipped: did you correlate a distance (1 − cos) rather than a similarity?"),
    ]
    for value, hint in known:
        if abs(score - value) < 1e-4:
            return hint
    if cos_given is not None and len(cos_given) == len(pairs) and np.allclose(cos_given, dot, atol=1e-4):
        return "the similarities you returned are dot products u·v: these vectors are not normalised, use the cosine"
    return ("encode the first and the second sentences of the pairs with `model`, take each pair's cosine, "
            "then Spearman's ρ × 100 of the cosines against the gold scores")


def check_sts_evaluate(sts_evaluate: Callable) -> None:
    """Check ``sts_evaluate(model, pairs) -> (Spearman ×100, cosines)`` against
    :func:`sbertlib.evaluation.evaluate_sts` on a hidden encoder with unnormalised vectors and
    STS-like gold scores with many ties."""
    from . import two_items
    require(callable(sts_evaluate), f"pass your function itself, not {type(sts_evaluate).__name__}",
            "check_sts_evaluate(sts_evaluate) — no parentheses after the name")
    model, pairs = hidden_sts()
    got = call(sts_evaluate, model, list(pairs))
    score, cosines = two_items(got, "your function returned",
                               "return two things: the score (Spearman × 100) and the cosine of every pair")
    require(model.calls > 0, "your function never called model.encode",
            "encode with the `model` it is given, not with a model of the notebook")
    try:
        score = float(np.asarray(score, dtype=float).reshape(()))
    except (TypeError, ValueError):
        raise ExerciseError(f"the score you returned is {score!r}, not one number\n"
                            "Hint: return the score first, then the cosines") from None
    try:
        cos = np.asarray(cosines.detach().cpu() if hasattr(cosines, "detach") else cosines, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ExerciseError(f"the cosines you returned are {type(cosines).__name__}, not a list of numbers") from None
    if len(cos) == len(pairs) and np.isnan(cos).any():
        k = int(np.flatnonzero(np.isnan(cos))[0])
        raise ExerciseError(f"the cosine of hidden pair {k} is NaN: one of its sentence vectors is all zeros, and "
                            "0 / 0 is not a number\nHint: an all-zero vector's cosine with anything is 0, as the "
                            "exercise says — F.cosine_similarity gives that")
    want_score, want_cos = sts_evaluate_truth(model, pairs)
    if abs(score - want_score) > 1e-4:
        raise ExerciseError(f"on {len(pairs)} hidden pairs you scored {score:.4f}; evaluate_sts scores "
                            f"{want_score:.4f}\nHint: {_sts_hint(score, cos, model, pairs)}")
    require(len(cos) == len(pairs), f"you returned {len(cos)} cosines for {len(pairs)} pairs",
            "one cosine per pair, in the order of the pairs")
    if not np.allclose(cos, want_cos, atol=1e-5):
        k = int(np.argmax(np.abs(cos - want_cos)))
        raise ExerciseError(f"the score is right but the similarity of pair {k} is {cos[k]:.5f}, its cosine "
                            f"{want_cos[k]:.5f}\nHint: {_sts_hint(float('nan'), cos, model, pairs)}")
    ok("sts_evaluate is evaluate_sts: cosine of each pair, Spearman's ρ × 100 against the gold scores, ties averaged")


# ----------------------------------------------------------------------------- the two conventions
def pooled_and_wmean_truth(pairs, cosines) -> tuple[float, float]:
    """``(all, wmean)`` ×100 of one STS year as :func:`sbertlib.evaluation.evaluate_sts_subsets` scores it:
    one Spearman over every pair pooled, and the subsets' Spearmans (subset = ``pair.source``) weighted by size."""
    gold = np.array([p.score for p in pairs], dtype=float)
    cos = np.asarray(cosines, dtype=float)
    sources = np.array([p.source for p in pairs])
    pooled = 100 * spearman_truth(cos, gold)
    wmean = sum(100 * spearman_truth(cos[sources == s], gold[sources == s]) * int(np.sum(sources == s))
                for s in dict.fromkeys(sources)) / len(pairs)
    return pooled, wmean


def hidden_year(seed: int = 12) -> tuple[list, np.ndarray]:
    """Pairs of three subsets of different sizes and gold levels (so pooled, weighted and unweighted
    means all differ) and a model's cosines for them."""
    from ...data import STSPair
    rng = np.random.default_rng(seed)
    pairs, cos = [], []
    for subset, n, level, noise in (("STS99/news", 30, 1.0, 0.15), ("STS99/captions", 12, 3.5, 0.4),
                                    ("STS99/forums", 6, 2.0, 0.05)):
        gold = np.clip(level + rng.normal(0, 1.2, n), 0, 5).round(1)
        gold[: 3] = gold[0]                                     # a few ties
        pairs += [STSPair(f"{subset} {i}a", f"{subset} {i}b", float(g), source=subset) for i, g in enumerate(gold)]
        cos += list(np.tanh(gold / 5 + rng.normal(0, noise, n) + (0.6 if subset.endswith("news") else 0.0)))
    return pairs, np.array(cos)


def check_pooled_and_wmean(pooled_and_wmean: Callable) -> None:
    """Check ``pooled_and_wmean(pairs, cosines) -> (all, wmean)`` (both Spearman × 100) on a hidden STS year
    of three subsets of different sizes."""
    from . import two_items
    require(callable(pooled_and_wmean), f"pass your function itself, not {type(pooled_and_wmean).__name__}",
            "check_pooled_and_wmean(pooled_and_wmean) — no parentheses after the name")
    pairs, cos = hidden_year()
    got = two_items(call(pooled_and_wmean, list(pairs), cos.copy()), "your function returned",
                    "return two numbers: the pooled score (all), then the subset-weighted one (wmean)")
    try:
        pooled, wmean = (float(np.asarray(x, dtype=float).reshape(())) for x in got)
    except (TypeError, ValueError):
        raise ExerciseError(f"your function returned {got!r}: two numbers, please") from None
    want_all, want_wmean = pooled_and_wmean_truth(pairs, cos)
    gold, sources = np.array([p.score for p in pairs]), np.array([p.source for p in pairs])
    per = {s: 100 * spearman_truth(cos[sources == s], gold[sources == s]) for s in dict.fromkeys(sources)}
    sizes = {s: int(np.sum(sources == s)) for s in per}
    detail = ", ".join(f"{s.split('/')[-1]} {sizes[s]} pairs" for s in per)
    if abs(pooled - want_all) > 1e-4:
        hint = ("you returned them in the other order: the pooled score first, then wmean"
                if abs(pooled - want_wmean) < 1e-4 and abs(wmean - want_all) < 1e-4 else
                "that is ρ itself: × 100, as the tables print" if abs(pooled - want_all / 100) < 1e-6 else
                "the pooled score is one Spearman over every pair of the year, whatever subset it comes from")
        raise ExerciseError(f"all: you returned {pooled:.4f}, the pooled Spearman × 100 is {want_all:.4f}\nHint: {hint}")
    if abs(wmean - want_wmean) > 1e-4:
        unweighted = float(np.mean(list(per.values())))
        if abs(wmean - unweighted) < 1e-4:
            hint = (f"that is the plain mean of the subsets' scores: each subset must count by its number of pairs "
                    f"({detail})")
        elif abs(wmean - want_all) < 1e-4:
            hint = "that is the pooled score again: score each subset (pair.source) on its own, then average"
        elif abs(wmean - want_wmean / 100) < 1e-6:
            hint = "that is the weighted mean of ρ itself: × 100, as the tables print"
        else:
            hint = f"score each subset (pair.source) on its own, then average the scores weighted by size ({detail})"
        raise ExerciseError(f"wmean: you returned {wmean:.4f}, the subsets' scores weighted by size give "
                            f"{want_wmean:.4f}\nHint: {hint}")
    ok(f"pooled_and_wmean is right: all {want_all:.2f} (one Spearman over the {len(pairs)} pairs), wmean "
       f"{want_wmean:.2f} ({detail}, weighted by size)")


# ----------------------------------------------------------------------------- the largest rank errors
def worst_k_truth(gold, predicted, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, rank errors)`` of the ``k`` pairs :func:`sbertlib.evaluation.worst_pairs` lists: rank error =
    predicted rank − gold rank (ranks 1..n, ties averaged), largest ``|error|`` first, ties in data order."""
    from scipy.stats import rankdata
    errors = rankdata(np.asarray(predicted, dtype=float)) - rankdata(np.asarray(gold, dtype=float))
    order = np.argsort(-np.abs(errors), kind="stable")[:k]
    return order, errors[order]


def hidden_ranking(seed: int = 21) -> tuple[np.ndarray, np.ndarray]:
    """STS-like gold scores (many ties) and predictions with a few pairs badly misplaced both ways."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 11, 40) / 2
    pred = np.tanh(gold / 5 + rng.normal(0, 0.15, 40))
    pred[[3, 17]] += 0.9                                   # two pairs the model finds far too similar
    pred[[8, 30, 31]] -= 0.9                               # three it finds far too dissimilar
    return gold, pred


def check_worst_k(worst_k: Callable) -> None:
    """Check ``worst_k(gold, predicted, k) -> (indices, rank errors)`` against
    :func:`sbertlib.evaluation.worst_pairs` on hidden scores with ties."""
    from . import two_items
    require(callable(worst_k), f"pass your function itself, not {type(worst_k).__name__}",
            "check_worst_k(worst_k) — no parentheses after the name")
    gold, pred = hidden_ranking()
    k = 6
    got = two_items(call(worst_k, gold.copy(), pred.copy(), k), "your function returned",
                    "return two things: the pairs' indices, then their rank errors")
    try:
        idx = [int(i) for i in np.asarray(got[0]).ravel()]
        err = np.asarray(got[1], dtype=float).ravel()
    except (TypeError, ValueError):
        raise ExerciseError(f"your function returned {got!r}: indices (whole numbers), then rank errors") from None
    want_idx, want_err = worst_k_truth(gold, pred, k)
    require(len(idx) == k and len(err) == k, f"for k = {k} you returned {len(idx)} indices and {len(err)} errors",
            "the k pairs with the largest rank errors, no more")
    all_err = worst_k_truth(gold, pred, len(gold))
    full = dict(zip(all_err[0].tolist(), all_err[1].tolist()))
    if idx == list(want_idx) and np.allclose(err, want_err):
        ok(f"worst_k is right: the {k} pairs furthest from their gold rank (ranks with ties averaged), largest first")
        return
    from scipy.stats import rankdata
    ordinal = lambda a: np.argsort(np.argsort(a, kind="stable"), kind="stable") + 1.0  # noqa: E731
    known = [
        ((want_idx, -want_err), "the sign is flipped: the error is the predicted rank minus the gold rank "
                                         "(positive = the model put the pair higher, more similar, than the annotators)"),
        ((lambda e: (np.argsort(-e, kind="stable")[:k], np.sort(e)[::-1][:k]))(rankdata(pred) - rankdata(gold)),
         "you took the largest errors, not the largest in size: a pair the model puts far too low (a large negative "
         "error) is as wrong as one it puts far too high"),
        ((lambda e: (np.argsort(-np.abs(e), kind="stable")[:k], e[np.argsort(-np.abs(e), kind="stable")[:k]]))(
            ordinal(pred) - ordinal(gold)),
         "pairs with the same gold score got different ranks: tied scores share the average of their ranks"),
        ((lambda e: (np.argsort(-np.abs(e), kind="stable")[:k], e[np.argsort(-np.abs(e), kind="stable")[:k]]))(
            pred - gold / 5), "those are differences of the scores themselves: Spearman's view of an error compares "
                              "ranks (a cosine and a 0–5 score are not on one scale)"),
    ]
    for (kidx, kerr), hint in known:
        if idx == [int(i) for i in kidx] and np.allclose(err, kerr):
            said = (f"the right pairs, but their rank errors are {np.round(err, 1).tolist()}, not "
                    f"{np.round(want_err, 1).tolist()}" if idx == list(want_idx) else
                    f"you picked pairs {idx}; the largest rank errors are pairs {list(map(int, want_idx))}")
            raise ExerciseError(f"{said}\nHint: {hint}")
    if sorted(idx) == sorted(want_idx.tolist()) and np.allclose(sorted(err), sorted(want_err)):
        raise ExerciseError(f"the right pairs in another order: {idx}, expected {list(map(int, want_idx))}\nHint: "
                            "largest |rank error| first; pairs with equally large errors keep their order in the data")
    if set(idx) <= set(full) and not np.allclose(err, [full[i] for i in idx]):
        raise ExerciseError(f"the rank errors you returned for pairs {idx} are {np.round(err, 2).tolist()}; they are "
                            f"{np.round([full[i] for i in idx], 2).tolist()}\nHint: predicted rank − gold rank, each "
                            "list ranked on its own (1 = smallest, ties averaged)")
    raise ExerciseError(f"you picked pairs {idx}; the largest rank errors are pairs {list(map(int, want_idx))}\n"
                        "Hint: rank the gold scores and the predictions each on their own, subtract, then take the "
                        "k largest in size")


# ----------------------------------------------------------------------------- which genres the errors come from
GENRE_COLUMNS = ("share of all", "share of the worst", "over-representation")


def genre_shares_truth(all_sources, worst_sources):
    """Each genre's share of all pairs and of the worst, and the second over the first (1 = as often as
    anywhere, 2 = twice as often among the worst); a genre absent from the worst has share 0."""
    import pandas as pd
    every = pd.Series(list(all_sources)).value_counts(normalize=True)
    worst = pd.Series(list(worst_sources)).value_counts(normalize=True).reindex(every.index, fill_value=0.0)
    return pd.DataFrame({GENRE_COLUMNS[0]: every, GENRE_COLUMNS[1]: worst, GENRE_COLUMNS[2]: worst / every})


def _genre_case() -> tuple[list[str], list[str]]:
    """60 pairs of four genres (one never among the worst) and 12 worst pairs, forums over-represented."""
    every = ["main-captions"] * 30 + ["main-news"] * 18 + ["main-forums"] * 8 + ["main-headlines"] * 4
    worst = ["main-forums"] * 6 + ["main-captions"] * 4 + ["main-news"] * 2
    return every, worst


def _genre_hint(column: str, got, want, every, worst) -> str:
    import pandas as pd
    counts = pd.Series(every).value_counts()
    worst_counts = pd.Series(worst).value_counts().reindex(counts.index, fill_value=0)
    known = {
        GENRE_COLUMNS[0]: {"those are counts of pairs: a share is a count divided by the number of pairs": counts},
        GENRE_COLUMNS[1]: {"those are counts of pairs: a share is a count divided by the number of pairs": worst_counts,
                           "the worst pairs' shares are counts among the worst divided by the number of WORST pairs, "
                           "not of all pairs": worst_counts / len(every)},
        GENRE_COLUMNS[2]: {"the ratio is upside down: share of the worst divided by share of all (above 1: more "
                           "frequent among the worst)": want[GENRE_COLUMNS[0]] / want[GENRE_COLUMNS[1]],
                           "that is a difference of shares; over-representation is their ratio, worst / all":
                               want[GENRE_COLUMNS[1]] - want[GENRE_COLUMNS[0]]},
    }[column]
    for hint, wrong in known.items():
        wrong = wrong.reindex(got.index).astype(float)
        if np.allclose(got.to_numpy(dtype=float), wrong.to_numpy(dtype=float), rtol=1e-6, equal_nan=True):
            return hint
    return {GENRE_COLUMNS[0]: "each genre's number of pairs over all pairs",
            GENRE_COLUMNS[1]: "each genre's number among the worst over the number of worst pairs",
            GENRE_COLUMNS[2]: "share of the worst divided by share of all"}[column]


def check_genre_shares(genre_shares: Callable) -> None:
    """Pass when ``genre_shares(all_sources, worst_sources)`` returns :func:`genre_shares_truth`'s table
    (any row order) on hidden genres, one of which never appears among the worst."""
    import pandas as pd
    require(callable(genre_shares), f"pass your function itself, not {type(genre_shares).__name__}",
            "check_genre_shares(genre_shares) — no parentheses after the name")
    every, worst = _genre_case()
    want = genre_shares_truth(every, worst)
    got = call(genre_shares, list(every), list(worst))
    require(isinstance(got, pd.DataFrame), f"your function returned a {type(got).__name__}, not a DataFrame",
            f"return a pandas DataFrame, one row per genre, with the columns {', '.join(repr(c) for c in GENRE_COLUMNS)}")
    missing = [c for c in GENRE_COLUMNS if c not in got.columns]
    require(not missing, f"your table lacks the column(s) {', '.join(repr(c) for c in missing)}",
            f"the cells below read {', '.join(repr(c) for c in GENRE_COLUMNS)}")
    absent = sorted(set(want.index) - set(got.index))
    require(not absent, f"your table has no row for {', '.join(absent)}",
            "every genre of all pairs gets a row — one that never appears among the worst has share 0 there")
    require(not set(got.index) - set(want.index), f"your table has rows {sorted(set(got.index) - set(want.index))} "
            "that are not genres", "index the rows by genre (the source names)")
    got = got.loc[want.index]
    for column in GENRE_COLUMNS:
        values = got[column]
        if values.isna().any():
            raise ExerciseError(f"{column!r} has missing values (NaN) for {', '.join(values.index[values.isna()])}\n"
                                "Hint: a genre that never appears among the worst has share 0 there, not NaN")
        if not np.allclose(values.to_numpy(dtype=float), want[column].to_numpy(dtype=float), rtol=1e-6):
            raise ExerciseError(f"{column!r} is not right on hidden genres\n"
                                f"Hint: {_genre_hint(column, values, want, every, worst)}")
    top = want[GENRE_COLUMNS[2]].idxmax()
    ok(f"genre shares on {len(every)} hidden pairs and {len(worst)} worst: {top!r} is "
       f"{want.loc[top, GENRE_COLUMNS[2]]:.1f}× over-represented among the worst; a genre never among them has share 0")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    SPEARMAN,
    Exercise('sts_evaluate', probe="""
            from sbertlib import data as _data
            from sbertlib.workbook.profiles import load_encoder as _load_encoder
            _result = sts_evaluate(_load_encoder(profile), _data.load_stsb("test")[:40])
            """, reference=sts_evaluate_truth, kept=True),
    Exercise('worst_k', probe="""
            _gold, _pred = [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10], [10.0, 1, 2, 3, 4, 9, 5, 6, 7, 8]
            _ids, _errors = worst_k(_gold, _pred, 2)
            _all = worst_k(_gold, _pred, 10)
            _result = {"k=2": [_ids, _errors],            # ties among the rest: every pair compared as a set
                       "all": sorted([int(i), float(e)] for i, e in zip(*(_np.asarray(x).tolist() for x in _all)))}
            """),
    Exercise('pooled_and_wmean', probe="""
            import types as _types
            _rng = _np.random.default_rng(2033)
            _pairs = [_types.SimpleNamespace(sentence1=f"a{i}", sentence2=f"b{i}", score=float(s), source=src)
                      for i, (s, src) in enumerate(zip(_rng.uniform(0, 5, 30).round(1), ["news", "forum", "images"] * 10))]
            _result = pooled_and_wmean(_pairs, _rng.normal(size=30))
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "04.1a": choice(
        "What makes the evaluation of Table 1 'unsupervised'?",
        "No parameter is fitted to STS data",
        {"No labels of any kind were used in training":
            "The NLI model was trained with NLI labels. Which data is 'unsupervised' about?",
         "Spearman's ρ needs no gold scores":
            "Spearman compares the cosines with the gold human scores."}),
    "04.1b": choice(
        "Why is the offline NLI model's SICK-R score not unsupervised?",
        "Its NLI training data includes SICK train",
        {"SICK-R is harder than the other sets":
            "Hard or easy, what matters is what the model has seen.",
         "SICK scores run from 1 to 5, not 0 to 5":
            "Spearman ignores the scale.",
         "SICK-R was used to pick the learning rate":
            "Where did the offline NLI triplets come from? Notebook 00 lists the offline data."}),
    "04.2a": choice(
        "Why can the pooled `all` score reward a model just for telling the subsets of a year apart?",
        "Knowing the subset already orders many pooled pairs",
        {"It averages subsets, so a small one counts as much":
            "That describes an average over subsets. `all` computes one Spearman over every pair pooled.",
         "It uses Pearson's r where wmean uses Spearman":
            "Both conventions use Spearman.",
         "It drops the pairs whose gold scores are tied":
            "Ties get average ranks in both conventions."}),
    "04.2b": choice(
        "Which convention (all or wmean) does the paper state for STS12–16?",
        "Neither: the paper does not say",
        {"all, pooling every pair of a year":
            "all is sentence-transformers' and MTEB's convention, and ours. What does the paper itself say?",
         "wmean, averaging subsets by size":
            "wmean is one of SentEval's aggregates. What does the paper itself say?"}),
    "04.3": choice(
        "Why must tied gold scores share the average of their ranks?",
        "Otherwise file order would rank pairs the annotators tied",
        {"Spearman is undefined for tied values without average ranks":
            "Ordinal ranks are defined; what do they add that the annotators did not say?",
         "Average ranks always give a higher, more flattering score":
            "They can move the score either way; the reason is what the gold scores mean."}),
    "04.4": choice(
        "Why read 'untrained' against 'after the NLI lesson' rather than our NLI row against SBERT-NLI-base?",
        "Only the training differs between our two rows",
        {"The paper's numbers cannot be trusted":
            "They are the paper's own measurements. What differs between our model and the paper's?",
         "Our NLI row is always higher than the paper's":
            "It is not (offline it is a random 2-layer BERT on 6.5k triplets). What can our own two rows show?",
         "The paper used a different STSb test set":
            "The test set is the same. What else differs between our model and the paper's?"}),
    "04.5": choice(
        "Which pairs does a bi-encoder tend to rate too similar?",
        "Shared words, but one word changes the meaning",
        {"Paraphrases written in entirely different words":
            "Those tend to be rated too dissimilar: which way does word overlap push a cosine?",
         "Pairs about unrelated topics":
            "Unrelated pairs share little; which pairs share a lot yet differ in meaning?",
         "Very long pairs, whatever words they use":
            "Length alone is not it. It compresses each sentence alone: what can it not look for in the other?"}),
    "04.6": choice(
        "STS12–16 are samples of 500 pairs offline. How much would you trust a difference of half a point?",
        "Hardly: sampling (2–3 points) and seeds (up to 0.81) move more",
        {"Fully: Spearman is exact on the sample":
            "Exact on this sample; how much does the score move from one sample of 500 pairs to another?",
         "Fully: both rows were scored on the same pairs":
            "The same pairs take away some sampling noise. How much does one training run vary with its seed "
            "(Table 2, Section 4.2)?",
         "Somewhat: it is about one standard error":
            "Section 1 says how big one standard error is on 500 pairs."}),
    "04.7": choice(
        "For which encoder does ranking pairs by u·v give exactly the same Spearman as ranking by cosine?",
        "One whose vectors all have length 1",
        {"Any encoder that pools by the mean":
            "The untrained network of this notebook pools by the mean, and its vectors have different lengths.",
         "Any encoder trained for similarity":
            "Training alone does not fix lengths. When is u·v equal to cos(u, v)?",
         "None: the two always rank differently":
            "cos(u, v) = u·v / (|u| |v|): when are the two the same?"}),
    "04.8": choice(
        "A model fine-tuned on STSb train scores well on STS13. Why can it not stand beside Table 1's SBERT-NLI-base?",
        "STSb train holds ~40% of STS13's pairs, with scores",
        {"STS13's scores use another scale than STSb's":
            "Spearman compares ranks: the scale does not matter. What did section 5's table count?",
         "STSb train shares STS13's topics, not its pairs":
            "Section 5 counted pairs held as pairs, not topics: how many of STS13's did it find?",
         "Our model is far smaller than the paper's BERT-base":
            "Size changes the score, not what the model saw. What does Table 1 ask of its models?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
