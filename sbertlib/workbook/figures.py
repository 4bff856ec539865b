"""Figures and result tables of notebooks 07–09, moved out of their cells: plumbing that teaches nothing.

Each function draws or tabulates what a notebook computed (its results, the student's functions passed
in where the numbers come from them) and returns a matplotlib ``Figure``, a pandas ``DataFrame`` or text
lines; the notebook shows them. Nothing here trains or evaluates a model on its own.

* 07 (ablations): :func:`table6_overview`, :func:`table6_bars`, :func:`grid_findings`;
* 08 (SentEval): :func:`task_overview`, :func:`transfer_bars`, :func:`standardised_sts`;
* 09 (visualising): :func:`heatmap_panels`, :func:`nli_cosine_panels`, :func:`projection_panels`,
  :func:`label_scores`, :func:`agreement_verdicts`.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


# ============================================================================= 08 · SentEval transfer
def task_overview(tasks: Mapping, folds: int) -> pd.DataFrame:
    """One row per loaded SentEval task: examples used (per split), classes, class shares, how it is
    scored (``folds``-fold CV or train → test) and its first example (cut to 70 characters)."""
    rows = []
    for name, task in tasks.items():
        share = pd.Series(task.labels).value_counts(normalize=True).sort_index()
        rows.append({"task": name,
                     "examples used": ", ".join(f"{s} {len(r)}" for s, r in task.splits.items()) or f"{len(task)} (all)",
                     "classes": len(task.label_names), "class shares": " / ".join(f"{v:.2f}" for v in share),
                     "scored with": f"{folds}-fold CV" if not task.splits else "train → test",
                     "example": str(task.texts[0])[:70]})
    return pd.DataFrame(rows).set_index("task")


def transfer_bars(table: pd.DataFrame, paper_rows: Sequence[str] = ("Avg. GloVe embeddings", "Avg. BERT embeddings",
                                                                    "SBERT-NLI-base"), ax=None):
    """Grouped bars of a :func:`sbertlib.evaluation.table5` table: our rows and the majority class beside the
    paper's ``paper_rows`` (hatched grey), one group per Table 5 column; accuracy ×100 from 40."""
    from .. import paper
    show = [r for r in table.index if r.startswith(("ours", "majority"))] + [f"paper: {r}" for r in paper_rows]
    cols = [c for c in paper.TABLE5_COLUMNS if c in table.columns]
    if ax is None:
        _, ax = plt.subplots(figsize=(15, 4.5))
    width = 0.8 / max(1, len(show))
    for i, row in enumerate(show):
        style = {"color": "lightgrey", "hatch": "//"} if row.startswith("paper") else {}
        if row.startswith("majority"):
            style = {"color": "black", "alpha": 0.25}
        ax.bar(np.arange(len(cols)) + i * width - 0.4 + width / 2, table.loc[row, cols].to_numpy(dtype=float), width,
               label=row if len(row) < 80 else row[:77] + "…", edgecolor="grey", **style)
    ax.set_xticks(np.arange(len(cols)), cols)
    ax.set_ylim(40, 100)
    ax.set_ylabel("accuracy ×100")
    ax.set_title("SentEval transfer (Table 5): our encoders beside the paper's rows", fontsize="small")
    ax.legend(fontsize="x-small", ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    return ax.figure


def standardised_sts(models: Mapping[str, object], fit_sentences: Sequence[str], pairs: Sequence,
                     standardise: Callable) -> pd.DataFrame:
    """STS Spearman ×100 of each model's cosine before and after ``standardise(reference, vectors)`` (the
    student's), the statistics taken from the embeddings of ``fit_sentences``; one row per model with
    columns ``cosine``, ``cosine after standardising`` and ``change``."""
    from scipy.stats import spearmanr

    from ..model import similarity
    gold = [p.score for p in pairs]
    rows = {}
    for label, model in models.items():
        fit = model.encode(list(fit_sentences), batch_size=64)
        a, b = model.encode([p.sentence1 for p in pairs]), model.encode([p.sentence2 for p in pairs])
        plain = similarity.pairwise(a, b).numpy()
        std = similarity.pairwise(np.asarray(standardise(fit, a)), np.asarray(standardise(fit, b))).numpy()
        rows[label] = {"cosine": 100 * spearmanr(plain, gold).statistic,
                       "cosine after standardising": 100 * spearmanr(std, gold).statistic}
    table = pd.DataFrame(rows).T
    table["change"] = table["cosine after standardising"] - table["cosine"]
    return table


def transfer_deltas(ours: Mapping[str, Mapping[str, float]], before: str, after: str, majority: Mapping[str, float],
                    label: str) -> list[str]:
    """Lines comparing the trained network (row ``after``) with its own starting point (row ``before``) task by
    task, each row's mean distance above the majority class, and the paper's matching figures (Table 5:
    SBERT-NLI-base minus averaged BERT; TREC against the Universal Sentence Encoder). ``label`` names the network."""
    from .. import paper
    tasks = list(majority)
    delta = {t: ours[after][t] - ours[before][t] for t in tasks}
    lines = [f"after the NLI lesson minus before, {label}:",
             "   " + ", ".join(f"{t} {d:+.1f}" for t, d in delta.items()) + f"; mean {np.mean(list(delta.values())):+.2f}"]
    for row, scores in ours.items():
        if row is not majority and not row.startswith("majority"):
            lines.append(f"   {row}: {np.mean([scores[t] - majority[t] for t in tasks]):+.1f} points above the "
                         "majority class on average")
    trec = paper.TABLE5_COLUMNS.index("TREC")
    paper_delta = np.mean(np.subtract(paper.TABLE5["SBERT-NLI-base"], paper.TABLE5["Avg. BERT embeddings"]))
    lines.append(f"paper: SBERT-NLI-base minus average BERT embeddings, mean over the 7 tasks {paper_delta:+.2f}; "
                 f"TREC: SBERT-NLI-base {paper.TABLE5['SBERT-NLI-base'][trec]}, Universal Sentence Encoder "
                 f"{paper.TABLE5['Universal Sentence Encoder'][trec]}, avg. BERT {paper.TABLE5['Avg. BERT embeddings'][trec]}")
    return lines


# ============================================================================= 09 · visualising embeddings
def heatmap_panels(sentences: Sequence[str], sims: Mapping[str, np.ndarray], titles: Mapping[str, str], suptitle: str,
                   max_label_len: int = 28):
    """One cosine-similarity heatmap per model (``sims``: key → square matrix), side by side on one colour
    scale (from min(0, the lowest cosine) to 1)."""
    from . import plots
    low = min(float(np.min(s)) for s in sims.values())
    fig, axes = plt.subplots(1, len(sims), figsize=(7 * len(sims), 6.5), squeeze=False)
    for ax, (key, sim) in zip(axes[0], sims.items()):
        plots.similarity_heatmap(sentences, sim, ax=ax, title=titles[key], max_label_len=max_label_len,
                                 vmin=min(0.0, low), vmax=1.0)
        ax.title.set_fontsize("small")
    fig.suptitle(suptitle, y=1.02)
    fig.tight_layout()
    return fig


def nli_cosine_panels(pair_cos: Mapping[str, np.ndarray], gold: Sequence[str], titles: Mapping[str, str],
                      suptitle: str, labels: Sequence[str] = ("entailment", "neutral", "contradiction")):
    """Box plots of cosine(premise, hypothesis) by gold NLI label, one panel per model; returns
    ``(figure, table)`` with the table's mean cosine per label and ``entailment − contradiction``."""
    gold = np.asarray(gold)
    fig, axes = plt.subplots(1, len(pair_cos), figsize=(5.7 * len(pair_cos), 4.5), squeeze=False)
    for ax, (key, cos) in zip(axes[0], pair_cos.items()):
        ax.boxplot([cos[gold == lab] for lab in labels], showmeans=True)
        ax.set_xticks(range(1, len(labels) + 1), labels)
        ax.set_title(titles[key], fontsize="small")
        ax.set_ylabel("cosine(premise, hypothesis)")
    fig.suptitle(suptitle)
    fig.tight_layout()
    table = pd.DataFrame({key: {lab: cos[gold == lab].mean() for lab in labels} for key, cos in pair_cos.items()}).T
    table["entailment − contradiction"] = table["entailment"] - table["contradiction"]
    return fig, table


def projection_panels(embeddings: Mapping[str, np.ndarray], labels: Sequence, titles: Mapping[str, str], suptitle: str,
                      project: Callable | None = None, seed: int = 42):
    """2-D pictures of the same sentences from several models, one panel each, coloured by ``labels`` (legend on
    the last panel). ``project(emb) -> (n, 2)``: the projection (e.g. the student's PCA); default UMAP with
    ``seed`` (:func:`sbertlib.workbook.plots.umap_2d`)."""
    from . import plots
    project = project or (lambda x: plots.umap_2d(x, seed=seed))
    fig, axes = plt.subplots(1, len(embeddings), figsize=(6.7 * len(embeddings), 6), squeeze=False)
    for i, (ax, (key, emb)) in enumerate(zip(axes[0], embeddings.items())):
        plots.plot_projection(np.asarray(project(emb))[:, :2], labels, ax=ax, title=titles[key],
                              legend=i == len(embeddings) - 1)
        ax.title.set_fontsize("small")
    fig.suptitle(suptitle)
    fig.tight_layout()
    return fig


def label_scores(sets: Mapping[str, tuple[str, Sequence]], embeddings: Mapping[str, Mapping[str, np.ndarray]],
                 scores: Mapping[str, Callable], chance: Callable) -> pd.DataFrame:
    """A table indexed by (labelling, model) with one column per score function (``scores``: column name →
    ``fn(emb, labels)``, the student's) and ``chance agreement`` (``chance(labels)``). ``sets``: labelling
    name → (part of each model's embeddings, labels)."""
    rows = {}
    for set_name, (part, labels) in sets.items():
        for key, emb in embeddings.items():
            rows[(set_name, key)] = {**{col: fn(emb[part], labels) for col, fn in scores.items()},
                                     "chance agreement": chance(labels)}
    return pd.DataFrame(rows).T


def agreement_verdicts(table: pd.DataFrame, sizes: Mapping[str, int], column: str = "1-NN label agreement") -> list[str]:
    """For each labelling of a :func:`label_scores` table: the 1-NN agreement before → after (and the
    reference where there is one) against chance, and whether the change is beyond two binomial standard
    errors of a difference of two shares over ``sizes[labelling]`` sentences."""
    lines = []
    models = list(dict.fromkeys(k for _, k in table.index))
    for set_name, n in sizes.items():
        b, a = (float(table.loc[(set_name, k), column]) for k in ("before", "after"))
        c = float(table.loc[(set_name, "before"), "chance agreement"])
        se = float(np.sqrt((b * (1 - b) + a * (1 - a)) / n))
        ref = f", reference {float(table.loc[(set_name, 'reference'), column]):.2f}" if "reference" in models else ""
        verdict = "above" if a - b >= 2 * se else "below" if b - a >= 2 * se else "about level with"
        lines.append(f"{set_name}: 1-NN agreement before {b:.2f} → after {a:.2f}{ref} (chance {c:.2f}); the trained "
                     f"network {verdict} its untrained self ({a - b:+.3f}; 2 standard errors on {n} sentences: "
                     f"{2 * se:.3f}).")
    return lines
