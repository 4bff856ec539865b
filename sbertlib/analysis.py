"""Evaluation helpers for the results notebooks: sampled STS suites and error analysis.

* :func:`sample_pairs` / :func:`sample_subsets` — a seeded, order-preserving subset of an
  evaluation set (stratified over the subsets of an STS year), for CPU profiles that cannot
  afford every pair. Scores on a sample are *estimates* and must be labelled as such.
* :func:`evaluate_sts_subsets` — the two STS12–16 conventions (``all`` pooled, ``wmean``) for any
  ``{subset: pairs}``; on a whole year it equals :func:`sbertlib.evaluation.evaluate_sts_year`.
* :func:`evaluate_suite` — Table 1's datasets for one encoder, keeping the cosine predictions.
* :func:`worst_pairs` — the pairs whose predicted rank is furthest from their gold rank.
"""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from . import data
from .data import STSPair
from .evaluation import correlations, evaluate_sts

STS_YEARS = ("sts12", "sts13", "sts14", "sts15", "sts16")


# ----------------------------------------------------------------------------- sampling
def sample_pairs(pairs: Sequence, max_pairs: int | None, seed: int = 0) -> list:
    """At most ``max_pairs`` items of ``pairs``, drawn at random with ``seed``, in their original order.

    ``None`` (or a cap at least ``len(pairs)``) returns every item.
    """
    pairs = list(pairs)
    if max_pairs is None or max_pairs >= len(pairs):
        return pairs
    if max_pairs < 2:
        raise ValueError(f"max_pairs must be at least 2 (a correlation needs two pairs), got {max_pairs}")
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


# ----------------------------------------------------------------------------- STS years
def evaluate_sts_subsets(encoder, subsets: Mapping[str, Sequence[STSPair]], batch_size: int = 64) -> dict:
    """``{"all", "wmean", "subsets", "n", "pairs", "predictions"}`` for the subsets of one STS year.

    ``all``: one Spearman ×100 of cosine over every pair pooled (the paper's Table 1);
    ``wmean``: the per-subset Spearmans weighted by subset size (SentEval's convention).
    """
    pooled = [p for ps in subsets.values() for p in ps]
    result = evaluate_sts(encoder, pooled, ("cosine",), batch_size)
    pred, gold = result.predictions["cosine"], np.array([p.score for p in pooled])
    per, start = {}, 0
    for name, ps in subsets.items():
        sl = slice(start, start + len(ps))
        per[name] = correlations(pred[sl], gold[sl])[0]
        start += len(ps)
    n = len(pooled)
    wmean = sum(per[k] * len(subsets[k]) for k in subsets) / n
    return {"all": result.main, "wmean": wmean, "subsets": per, "n": n, "pairs": pooled, "predictions": pred}


# ----------------------------------------------------------------------------- a whole suite
@dataclass
class SuiteResult:
    """One encoder on several STS datasets (Spearman ×100 of cosine)."""

    scores: dict[str, float] = field(default_factory=dict)  # Table 1 convention ('all' for STS12–16)
    wmean: dict[str, float] = field(default_factory=dict)  # STS12–16 only: weighted mean of subsets
    n: dict[str, int] = field(default_factory=dict)  # pairs evaluated
    pairs: dict[str, list[STSPair]] = field(default_factory=dict, repr=False)
    predictions: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # cosine, aligned with pairs


def _cap(max_pairs, name: str) -> int | None:
    return max_pairs.get(name) if isinstance(max_pairs, Mapping) else max_pairs


def evaluate_suite(encoder, datasets: Sequence[str] = data.STS_DATASETS,
                   max_pairs: int | None | Mapping[str, int | None] = None, seed: int = 0,
                   data_dir=None, batch_size: int = 64) -> SuiteResult:
    """Evaluate ``encoder`` on each named dataset (``sts12``..``sts16``, ``stsb-test``, ``sick-r`` …).

    ``max_pairs`` caps the pairs per dataset (an int for all, or ``{name: cap}``; ``None`` = all),
    sampled with :func:`sample_pairs` / :func:`sample_subsets` — the same pairs for every encoder
    given the same ``seed``. STS13's licensed SMT subset is skipped silently (its input is LDC-only).
    """
    out = SuiteResult()
    for name in datasets:
        cap = _cap(max_pairs, name)
        if name.lower() in STS_YEARS:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*licensed.*")
                subsets = data.load_sts_year(name, data_dir)
            r = evaluate_sts_subsets(encoder, sample_subsets(subsets, cap, seed), batch_size)
            out.scores[name], out.wmean[name] = r["all"], r["wmean"]
            out.pairs[name], out.predictions[name] = r["pairs"], r["predictions"]
        else:
            pairs = sample_pairs(data.load_sts_dataset(name, data_dir), cap, seed)
            r = evaluate_sts(encoder, pairs, ("cosine",), batch_size)
            out.scores[name], out.pairs[name], out.predictions[name] = r.main, pairs, r.predictions["cosine"]
        out.n[name] = len(out.pairs[name])
    return out


# ----------------------------------------------------------------------------- error analysis
def worst_pairs(pairs: Sequence[STSPair], predictions, k: int = 10) -> pd.DataFrame:
    """The ``k`` pairs whose predicted rank is furthest from their gold rank (Spearman's view of an error).

    Both the gold scores and the predictions are ranked 1..n (ties share their average rank, as in
    Spearman's ρ). ``rank_diff = predicted_rank − gold_rank``: positive means the model put the pair
    higher (more similar) than the annotators did, negative lower. Sorted by ``|rank_diff|``, largest
    first (ties in ``|rank_diff|`` keep the data order). Columns: ``sentence1, sentence2, gold,
    predicted, gold_rank, predicted_rank, rank_diff, model says, source``; the index is the pair's position.
    """
    pred = np.asarray(predictions, dtype=np.float64).ravel()
    if len(pred) != len(pairs):
        raise ValueError(f"{len(pairs)} pairs but {len(pred)} predictions")
    if len(pairs) < 2:
        raise ValueError(f"need at least 2 pairs to rank, got {len(pairs)}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
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
