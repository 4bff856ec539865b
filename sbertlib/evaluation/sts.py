"""STS evaluation — the one implementation (paper, §4): Spearman's ρ ×100 between the cosine
similarity of the two sentence vectors and the gold score.

Everything that scores STS calls :func:`evaluate_sts`: the training-time :class:`STSEvaluator`,
the STS12–16 conventions, a whole suite of Table 1's data sets, the notebooks and the command line.

For STS12–16 two conventions exist, and we report both, labelled:

* ``all`` — one Spearman over every pair of the year pooled: the sentence-transformers/MTEB
  convention, and our choice for our Table 1 rows (the paper does not say how it pooled STS12–16);
* ``wmean`` — the mean of the per-subset Spearmans weighted by subset size (SentEval's).

Sampling (:func:`sample_pairs`, :func:`sample_subsets`) takes a seeded, order-preserving subset for
CPU profiles that cannot afford every pair; scores on a sample are *estimates* and are labelled so.
"""
from __future__ import annotations

import os
import random
import warnings
from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence

import numpy as np
from scipy.stats import pearsonr, rankdata, spearmanr

from .. import data
from ..data import STSPair
from ..model.similarity import MEASURES, pairwise
from ..util import optional_import
from ..errors import SettingError

STS_YEARS = ("sts12", "sts13", "sts14", "sts15", "sts16")


class Encoder(Protocol):
    info: dict

    def encode(self, sentences: Sequence[str], batch_size: int = ..., **kw) -> np.ndarray: ...


@dataclass
class STSResult:
    """Spearman and Pearson ×100 for each similarity measure, on ``n`` pairs."""
    n: int
    spearman: dict[str, float]
    pearson: dict[str, float]
    predictions: dict[str, np.ndarray] = field(repr=False, default_factory=dict)

    @property
    def main(self) -> float:
        """The paper's figure: Spearman ×100 of cosine similarity."""
        return self.spearman["cosine"]


def embed_pairs(encoder: Encoder, pairs: Sequence[STSPair], batch_size: int = 64,
                show_progress_bar: bool | None = None):
    """Embed both sides of every pair, encoding each distinct sentence once."""
    unique = list(dict.fromkeys([p.sentence1 for p in pairs] + [p.sentence2 for p in pairs]))
    emb = encoder.encode(unique, batch_size=batch_size, show_progress_bar=show_progress_bar)
    index = {s: i for i, s in enumerate(unique)}
    a = emb[[index[p.sentence1] for p in pairs]]
    b = emb[[index[p.sentence2] for p in pairs]]
    return a, b


def correlations(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    """(Spearman ×100, Pearson ×100)."""
    return 100 * float(spearmanr(pred, gold)[0]), 100 * float(pearsonr(pred, gold)[0])


def _dataset_name(pairs: Sequence[STSPair]) -> str:
    """The data set ``pairs`` come from, for messages: their ``source`` names, or "the pairs"."""
    sources = list(dict.fromkeys(p.source for p in pairs if getattr(p, "source", "")))
    more = f" and {len(sources) - 3} more" if len(sources) > 3 else ""
    return ", ".join(sources[:3]) + more if sources else "the pairs"


def check_gold_varies(pairs: Sequence[STSPair], name: str | None = None) -> None:
    """Raise ``ValueError`` naming the data set (``name``, else the pairs' sources) when every gold
    score is the same: Spearman's and Pearson's correlations are undefined (NaN) then."""
    scores = {p.score for p in pairs}
    if len(scores) == 1:
        raise SettingError(f"{name or _dataset_name(pairs)}: all {len(pairs)} gold scores are {scores.pop():g}: "
                           "Spearman's correlation is undefined when the gold scores are constant; evaluate on "
                           "pairs whose scores differ (if these are a sample, take more pairs)")


def _warn_if_constant(pred: np.ndarray, measure: str, pairs: Sequence[STSPair]) -> None:
    """Warn when a measure gives every pair the same similarity: its correlations are NaN."""
    if len(pred) and np.ptp(pred) == 0:
        warnings.warn(f"{_dataset_name(pairs)}: the {measure} similarity is {pred[0]:g} for every pair (does the "
                      "model give every sentence the same vector?): its Spearman and Pearson are undefined, "
                      "reported as NaN", stacklevel=3)


def evaluate_sts(encoder: Encoder, pairs: Sequence[STSPair], measures: Sequence[str] = tuple(MEASURES),
                 batch_size: int = 64, show_progress_bar: bool | None = None) -> STSResult:
    """Correlate each similarity measure with the gold scores of ``pairs`` (the one STS evaluation)."""
    if len(pairs) < 2:
        raise SettingError(f"need at least 2 pairs to correlate, got {len(pairs)}")
    check_gold_varies(pairs)
    a, b = embed_pairs(encoder, pairs, batch_size, show_progress_bar)
    gold = np.array([p.score for p in pairs], dtype=np.float64)
    result = STSResult(len(pairs), {}, {})
    for m in measures:
        pred = pairwise(a, b, m).double().numpy()
        _warn_if_constant(pred, m, pairs)
        result.spearman[m], result.pearson[m] = correlations(pred, gold)
        result.predictions[m] = pred
    return result


# ----------------------------------------------------------------------------- the evaluator fit() calls
class STSEvaluator:
    """``evaluator(encoder) -> Spearman × 100`` of cosine similarity against gold STS scores.

    The pairs are loaded on the first call (so building the evaluator is free):
    ``pairs`` if given, else STS benchmark ``split`` from ``data_dir``. With ``max_pairs`` it scores a
    fixed random sample (seed 0) of that many pairs — not the first ones: STSb dev opens with 500
    easy video and image captions, which would flatter every model.
    """

    def __init__(self, pairs: Sequence[STSPair] | None = None, split: str = "dev",
                 data_dir: str | os.PathLike | None = None, batch_size: int = 64, max_pairs: int | None = None):
        self.pairs, self.split, self.data_dir = (list(pairs) if pairs is not None else None), split, data_dir
        self.batch_size, self.max_pairs = batch_size, max_pairs

    def _load(self) -> list[STSPair]:
        if self.pairs is None:
            self.pairs = data.load_stsb(self.split, self.data_dir)
        return sample_pairs(self.pairs, self.max_pairs)

    @property
    def n_pairs(self) -> int:
        """How many pairs a call scores (loads them if needed)."""
        return len(self._load())

    def __call__(self, encoder) -> float:
        return evaluate_sts(encoder, self._load(), ("cosine",), self.batch_size, show_progress_bar=False).main

    def __repr__(self) -> str:
        what = f"{len(self.pairs)} pairs" if self.pairs is not None else f"stsb-{self.split} (not loaded yet)"
        return f"STSEvaluator({what}, cosine Spearman x100)"


def stsb_dev_evaluator(data_dir: str | os.PathLike | None = None, batch_size: int = 64,
                       max_pairs: int | None = None) -> STSEvaluator:
    """The default dev evaluator: cosine Spearman × 100 on STS benchmark dev (loaded lazily)."""
    return STSEvaluator(split="dev", data_dir=data_dir, batch_size=batch_size, max_pairs=max_pairs)


# ----------------------------------------------------------------------------- sampling
def sample_pairs(pairs: Sequence, max_pairs: int | None, seed: int = 0) -> list:
    """At most ``max_pairs`` items of ``pairs``, drawn at random with ``seed``, in their original order.

    ``None`` (or a cap at least ``len(pairs)``) returns every item.
    """
    pairs = list(pairs)
    if max_pairs is None or max_pairs >= len(pairs):
        return pairs
    if max_pairs < 2:
        raise SettingError(f"max_pairs must be at least 2 (a correlation needs two pairs), got {max_pairs}")
    keep = sorted(random.Random(seed).sample(range(len(pairs)), max_pairs))
    return [pairs[i] for i in keep]


def sample_subsets(subsets: Mapping[str, Sequence], max_pairs: int | None,
                   seed: int = 0) -> dict[str, list]:
    """A stratified sample of ``{subset: pairs}`` holding at most about ``max_pairs`` pairs in all.

    Each subset keeps its share of the total (at least 2 pairs, so each has a Spearman), drawn with
    :func:`sample_pairs`. ``None`` (or a cap at least the total) returns every pair.
    """
    total = sum(len(v) for v in subsets.values())
    if max_pairs is None or max_pairs >= total:
        return {k: list(v) for k, v in subsets.items()}
    return {k: sample_pairs(v, max(2, round(max_pairs * len(v) / total)), seed + i)
            for i, (k, v) in enumerate(subsets.items())}


# ----------------------------------------------------------------------------- STS12–16
def evaluate_sts_subsets(encoder, subsets: Mapping[str, Sequence[STSPair]], batch_size: int = 64,
                         show_progress_bar: bool | None = None) -> dict:
    """``{"all", "wmean", "subsets", "n", "pairs", "predictions"}`` for the subsets of one STS year.

    ``all``: one Spearman ×100 of cosine over every pair pooled (our Table 1 convention, sentence-transformers'
    and MTEB's; the paper does not say which it used);
    ``wmean``: the per-subset Spearmans weighted by subset size (SentEval's convention).
    """
    pooled = [p for ps in subsets.values() for p in ps]
    for name, ps in subsets.items():
        check_gold_varies(ps, f"subset {name!r}")
    result = evaluate_sts(encoder, pooled, ("cosine",), batch_size, show_progress_bar=show_progress_bar)
    pred, gold = result.predictions["cosine"], np.array([p.score for p in pooled])
    per, start = {}, 0
    for name, ps in subsets.items():
        sl = slice(start, start + len(ps))
        per[name] = correlations(pred[sl], gold[sl])[0]
        start += len(ps)
    n = len(pooled)
    wmean = sum(per[k] * len(subsets[k]) for k in subsets) / n
    return {"all": result.main, "wmean": wmean, "subsets": per, "n": n, "pairs": pooled, "predictions": pred}


def evaluate_sts_year(encoder: Encoder, year: int | str, data_dir=None, batch_size: int = 64) -> dict:
    """One whole STS year (12..16): :func:`evaluate_sts_subsets` of all its subsets."""
    return evaluate_sts_subsets(encoder, data.load_sts_year(year, data_dir), batch_size)


# ----------------------------------------------------------------------------- a whole suite
@dataclass
class SuiteResult:
    """One encoder on several STS datasets (Spearman ×100 of cosine)."""

    scores: dict[str, float] = field(default_factory=dict)  # our Table 1 convention ('all' for STS12–16)
    wmean: dict[str, float] = field(default_factory=dict)  # STS12–16 only: weighted mean of subsets
    n: dict[str, int] = field(default_factory=dict)  # pairs evaluated
    pairs: dict[str, list[STSPair]] = field(default_factory=dict, repr=False)
    predictions: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # cosine, aligned with pairs


def _cap(max_pairs, name: str) -> int | None:
    return max_pairs.get(name) if isinstance(max_pairs, Mapping) else max_pairs


def evaluate_suite(encoder, datasets: Sequence[str] = data.STS_DATASETS,
                   max_pairs: int | None | Mapping[str, int | None] = None, seed: int = 0,
                   data_dir=None, batch_size: int = 64, show_progress_bar: bool = False) -> SuiteResult:
    """Evaluate ``encoder`` on each named dataset (``sts12``..``sts16``, ``stsb-test``, ``sick-r`` …).

    No progress bar by default: a suite encodes seven sets, and seven bars per model fill a notebook
    (``show_progress_bar=True`` shows them).

    ``max_pairs`` caps the pairs per dataset (an int for all, or ``{name: cap}``; ``None`` = all),
    sampled with :func:`sample_pairs` / :func:`sample_subsets` — the same pairs for every encoder
    given the same ``seed``. STS13's licensed SMT subset is skipped silently (its input is LDC-only).
    """
    out = SuiteResult()
    for name in datasets:
        drawn = _drawn(name, _cap(max_pairs, name), seed, data_dir)
        if isinstance(drawn, dict):
            r = evaluate_sts_subsets(encoder, drawn, batch_size, show_progress_bar)
            out.scores[name], out.wmean[name] = r["all"], r["wmean"]
            out.pairs[name], out.predictions[name] = r["pairs"], r["predictions"]
        else:
            r = evaluate_sts(encoder, drawn, ("cosine",), batch_size, show_progress_bar=show_progress_bar)
            out.scores[name], out.pairs[name], out.predictions[name] = r.main, drawn, r.predictions["cosine"]
        out.n[name] = len(out.pairs[name])
    return out


def _drawn(name: str, cap: int | None, seed: int, data_dir) -> dict[str, list[STSPair]] | list[STSPair]:
    """The pairs of one dataset a suite evaluates: an STS year's sampled subsets (its licensed SMT subset
    skipped silently), or another dataset's sampled pairs."""
    if name.lower() in STS_YEARS:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*licensed.*")
            return sample_subsets(data.load_sts_year(name, data_dir), cap, seed)
    return sample_pairs(data.load_sts_dataset(name, data_dir), cap, seed)


def suite_pairs(datasets: Sequence[str] = data.STS_DATASETS, max_pairs: int | None | Mapping[str, int | None] = None,
                seed: int = 0, data_dir=None) -> dict[str, list[STSPair]]:
    """``{dataset: pairs}``: the pairs :func:`evaluate_suite` evaluates with the same arguments — an STS
    year's sampled subsets pooled in subset order — for an evaluation of one's own on the same pairs."""
    out = {}
    for name in datasets:
        drawn = _drawn(name, _cap(max_pairs, name), seed, data_dir)
        out[name] = [p for subset in drawn.values() for p in subset] if isinstance(drawn, dict) else drawn
    return out


# ----------------------------------------------------------------------------- error analysis
def worst_pairs(pairs: Sequence[STSPair], predictions, k: int = 10) -> "pd.DataFrame":
    """The ``k`` pairs whose predicted rank is furthest from their gold rank (Spearman's view of an error).

    Both the gold scores and the predictions are ranked 1..n (ties share their average rank, as in
    Spearman's ρ). ``rank_diff = predicted_rank − gold_rank``: positive means the model put the pair
    higher (more similar) than the annotators did, negative lower. Sorted by ``|rank_diff|``, largest
    first (ties in ``|rank_diff|`` keep the data order). Columns: ``sentence1, sentence2, gold,
    predicted, gold_rank, predicted_rank, rank_diff, model says, source``; the index is the pair's position.
    """
    pred = np.asarray(predictions, dtype=np.float64).ravel()
    if len(pred) != len(pairs):
        raise SettingError(f"{len(pairs)} pairs but {len(pred)} predictions")
    if len(pairs) < 2:
        raise SettingError(f"need at least 2 pairs to rank, got {len(pairs)}")
    if k < 1:
        raise SettingError(f"k must be at least 1, got {k}")
    pd = optional_import("pandas", "workbook")
    gold = np.array([p.score for p in pairs], dtype=np.float64)
    gold_rank, pred_rank = rankdata(gold), rankdata(pred)
    diff = pred_rank - gold_rank
    order = np.argsort(-np.abs(diff), kind="stable")[:k]
    return pd.DataFrame({
        "sentence1": [pairs[i].sentence1 for i in order],
        "sentence2": [pairs[i].sentence2 for i in order],
        "gold": gold[order],
        "predicted": pred[order],
        "gold_rank": gold_rank[order],
        "predicted_rank": pred_rank[order],
        "rank_diff": diff[order],
        "model says": np.where(diff[order] > 0, "too similar", "too dissimilar"),
        "source": [pairs[i].source for i in order],
    }, index=pd.Index(order, name="pair"))
