"""STS evaluation: rank correlation between predicted similarity and gold (paper, Section 4).

The paper reports Spearman's ρ ×100 between the cosine similarity of the two sentence vectors
and the gold score. For STS12–16 two conventions exist, and we report both, labelled:

* ``all`` — one Spearman over every pair of the year pooled (the paper's Table 1, and MTEB's);
* ``wmean`` — the mean of the per-subset Spearmans weighted by subset size (SentEval's).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from . import data, paper
from .similarity import pairwise

MEASURES = ("cosine", "dot", "manhattan", "euclidean")


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


def embed_pairs(encoder: Encoder, pairs: Sequence[data.STSPair], batch_size: int = 64):
    """Embed both sides of every pair, encoding each distinct sentence once."""
    unique = list(dict.fromkeys([p.sentence1 for p in pairs] + [p.sentence2 for p in pairs]))
    emb = encoder.encode(unique, batch_size=batch_size)
    index = {s: i for i, s in enumerate(unique)}
    a = emb[[index[p.sentence1] for p in pairs]]
    b = emb[[index[p.sentence2] for p in pairs]]
    return a, b


def correlations(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    """(Spearman ×100, Pearson ×100)."""
    return 100 * float(spearmanr(pred, gold)[0]), 100 * float(pearsonr(pred, gold)[0])


def evaluate_sts(encoder: Encoder, pairs: Sequence[data.STSPair], measures: Sequence[str] = MEASURES,
                 batch_size: int = 64) -> STSResult:
    """Correlate each similarity measure with the gold scores of ``pairs``."""
    if len(pairs) < 2:
        raise ValueError(f"need at least 2 pairs to correlate, got {len(pairs)}")
    a, b = embed_pairs(encoder, pairs, batch_size)
    gold = np.array([p.score for p in pairs], dtype=np.float64)
    result = STSResult(len(pairs), {}, {})
    for m in measures:
        pred = pairwise(a, b, m).double().numpy()
        result.spearman[m], result.pearson[m] = correlations(pred, gold)
        result.predictions[m] = pred
    return result


def evaluate_sts_year(encoder: Encoder, year: int | str, data_dir=None, batch_size: int = 64) -> dict:
    """STS12–16: ``{"all": pooled Spearman, "wmean": weighted mean, "subsets": {name: Spearman}}``."""
    subsets = data.load_sts_year(year, data_dir)
    pooled = [p for ps in subsets.values() for p in ps]
    result = evaluate_sts(encoder, pooled, ("cosine",), batch_size)
    per = {}
    start = 0
    gold = np.array([p.score for p in pooled])
    for name, ps in subsets.items():
        sl = slice(start, start + len(ps))
        per[name] = correlations(result.predictions["cosine"][sl], gold[sl])[0]
        start += len(ps)
    n = sum(len(ps) for ps in subsets.values())
    wmean = sum(per[k] * len(subsets[k]) for k in subsets) / n
    return {"all": result.main, "wmean": wmean, "subsets": per, "n": n}


def evaluate_datasets(encoder: Encoder, names: Sequence[str] = data.STS_DATASETS, data_dir=None,
                      batch_size: int = 64) -> dict[str, float]:
    """Spearman ×100 (cosine, pooled-pairs convention) for each named STS dataset."""
    return {name: evaluate_sts(encoder, data.load_sts_dataset(name, data_dir), ("cosine",), batch_size).main
            for name in names}


def results_table(ours: dict[str, dict[str, float]], paper_rows: Sequence[str] | None = None) -> pd.DataFrame:
    """Our rows beside the paper's Table 1 rows.

    ``ours`` maps a row label — which must name the backbone and profile that produced it,
    e.g. ``"ours: mean pooling, tiny-random-bert [smoke, stand-in]"`` — to ``{dataset: score}``.
    """
    return beside_paper(ours, paper.TABLE1, paper.TABLE1_COLUMNS, paper_rows)


def beside_paper(ours: dict[str, dict[str, float]], paper_table: dict, columns: Sequence[str],
                 paper_rows: Sequence[str] | None = None) -> pd.DataFrame:
    """A table of the paper's rows (``paper: …``) followed by ours, the paper's column order first,
    plus an ``avg`` column (NaN when a row lacks a column)."""
    rows = {f"paper: {name}": dict(zip(columns, paper_table[name]))
            for name in (paper_rows if paper_rows is not None else paper_table)}
    rows.update(ours)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table = table[[c for c in columns if c in table.columns] + [c for c in table.columns if c not in columns]]
    table["avg"] = table.mean(axis=1, skipna=False)
    return table.round(2)


def label_for(encoder: Encoder, profile: str | None = None, what: str = "") -> str:
    """A row label naming backbone, pooling and profile, marked when the backbone is a stand-in."""
    info = getattr(encoder, "info", {})
    tags = [t for t in (profile, "stand-in" if info.get("stand_in") else None) if t]
    pooling = getattr(encoder, "pooling", None)
    parts = [what or (f"{pooling} pooling" if pooling else ""), info.get("backbone", "?")]
    return "ours: " + ", ".join(p for p in parts if p) + (f" [{', '.join(tags)}]" if tags else "")
