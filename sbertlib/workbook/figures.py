"""Figures, result tables and verdicts of notebooks 07–09 and 14, moved out of their cells: plumbing that teaches
nothing. Each function draws or tabulates what a notebook computed (the student's functions passed in where the
numbers come from them) and returns a ``Figure``, a ``DataFrame`` or text lines; nothing here trains a model."""
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
    ax.set(ylim=(40, 100), ylabel="accuracy ×100")
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
    """Notebook 00's :func:`sbertlib.workbook.intro.similarity_heatmaps` (one panel per model, one colour scale), each
    panel titled ``titles[key]`` (``sims``: key → square matrix), ``suptitle`` above them."""
    from .intro import similarity_heatmaps
    fig = similarity_heatmaps(sentences, {titles[key]: sim for key, sim in sims.items()}, max_label_len=max_label_len)
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


# ============================================================================= 07 · ablations
def table6_overview(configs: Sequence) -> pd.DataFrame:
    """The distinct configurations of Table 6 (``AblationConfig`` items), numbered from 1, with the paper's
    figure for each: the NLI (classification) column, and the STSb (regression) column for the poolings."""
    from .. import paper
    from ..losses import DEFAULT_CONCAT
    rows = []
    for c in configs:
        pooling_row = tuple(c.concat) == DEFAULT_CONCAT
        rows.append({"pooling": c.pooling, "concatenation": c.concat_label,
                     "paper: NLI (classification)": (paper.TABLE6_POOLING[c.pooling][0] if pooling_row
                                                     else paper.TABLE6_CONCAT[tuple(c.concat)]),
                     "paper: STSb (regression)": paper.TABLE6_POOLING[c.pooling][1] if pooling_row else "–"})
    return pd.DataFrame(rows, index=range(1, len(rows) + 1))


def table6_bars(pooling_table: pd.DataFrame, concat_table: pd.DataFrame, who: str):
    """Table 6 as bars, ours (± seed std) beside the paper's: the poolings under both objectives (a
    :func:`sbertlib.evaluation.ablation.pooling_table`) and the concatenations (the second table of
    :func:`sbertlib.evaluation.table6`); ``who`` names what produced our rows."""
    fig, axes = plt.subplots(1, 2, figsize=(15, 4.6), gridspec_kw={"width_ratios": [4, 6]}, layout="constrained")
    x = np.arange(len(pooling_table))
    for i, (col, colour) in enumerate((("NLI", "C0"), ("STSb", "C1"))):
        axes[0].bar(x + (2 * i - 1.5) * 0.2, pooling_table.get(f"ours: {col} mean", np.nan), 0.2, color=colour,
                    yerr=pooling_table.get(f"ours: {col} std", pd.Series(0, index=pooling_table.index)).fillna(0),
                    capsize=3, label=f"ours, {col}")
        axes[0].bar(x + (2 * i - 0.5) * 0.2, pooling_table[f"paper: {col}"], 0.2, color=colour, alpha=0.35,
                    label=f"paper, {col}")
    axes[0].set_xticks(x, pooling_table.index)
    c = np.arange(len(concat_table))
    axes[1].bar(c - 0.2, concat_table.filter(like="ours: mean").iloc[:, 0], 0.4, yerr=concat_table["ours: std"].fillna(0),
                capsize=3, label="ours")
    axes[1].bar(c + 0.2, concat_table["paper: SBERT-base, NLI"], 0.4, color="lightgrey", label="paper")
    axes[1].set_xticks(c, concat_table.index, rotation=20, fontsize="small")
    for ax, title in zip(axes, ("pooling, both objectives", "concatenation (NLI, mean pooling)")):
        ax.set_title(title, fontsize="small")
        ax.set_ylim(0, 100)
        ax.legend(fontsize="x-small", ncol=2, loc="upper right")
    fig.suptitle(f"Table 6 (STSb dev, Spearman ×100) — {who}", fontsize="medium")
    return fig


def grid_findings(nli_results: pd.DataFrame, reg_results: pd.DataFrame, untrained: Mapping[str, float],
                  default_concat_label: str = "(u, v, |u-v|)") -> list[str]:
    """What two ablation tables say, as lines: per column the best row, the spread of the means against the
    median seed std, how many rows end below (and which above) the untrained network with the same pooling;
    the rank agreement (Spearman) of our concatenations with the paper's; the order of the poolings."""
    from scipy.stats import spearmanr

    from .. import paper
    lines = []
    for name, res in (("NLI", nli_results), ("STSb", reg_results)):
        noise, spread = float(np.nanmedian(res["std"])), res["mean"].max() - res["mean"].min()
        below = sum(row["mean"] < untrained[row["pooling"]] for _, row in res.iterrows())
        lines.append(f"{name:4}: {len(res)} configurations, best {res['mean'].idxmax()} ({res['mean'].max():.2f}); spread "
                     f"of the means {spread:.2f} vs median seed std {noise:.2f}; {below} of {len(res)} end below the "
                     "untrained network's score with the same pooling")
        rose = [label for label, row in res.iterrows() if row["mean"] > untrained[row["pooling"]]]
        lines.append(f"      above it: {'; '.join(rose) if rose else 'none'}")
    concat_rows = nli_results[nli_results["pooling"] == "mean"]
    rho = spearmanr(concat_rows["mean"], [paper.TABLE6_CONCAT[tuple(c.strip("()").split(", "))]
                                          for c in concat_rows["concat"]]).statistic
    lines.append(f"rank agreement of our {len(concat_rows)} concatenations with the paper's order: Spearman {rho:+.2f}")
    order = lambda res: " > ".join(res.sort_values("mean", ascending=False)["pooling"])  # noqa: E731
    lines.append(f"pooling order — NLI: {order(nli_results[nli_results['concat'] == default_concat_label])}; "
                 f"STSb: {order(reg_results)}; untrained: {' > '.join(sorted(untrained, key=untrained.get, reverse=True))}")
    return lines


def grid_cost_report(plan: Mapping, full: Mapping, n_configs: int, n_all_configs: int, n_nli: int, n_stsb: int,
                     n_all_nli: int, n_all_stsb: int, nli_batch: int, profile, full_grid: bool) -> tuple[list[str], dict, dict]:
    """What a Table 6 grid costs before it runs, as lines, and the two columns' costs
    (:func:`sbertlib.evaluation.ablation.grid_cost` dicts): ``plan``/``full`` hold the seeds (``nli_seeds``,
    ``stsb_seeds``) and ``stsb_epochs`` of this profile's grid and of the full one; the NLI column trains
    ``n_configs`` configurations on ``n_nli`` pairs (batch ``nli_batch``, one epoch), the STSb column the three
    poolings on ``n_stsb`` pairs; unless ``full_grid``, a last line says what the full grid would cost."""
    from ..evaluation import ablation

    def cost(p, configs, nli, stsb):
        a = ablation.grid_cost(configs, p["nli_seeds"], nli, nli_batch, 1)
        b = ablation.grid_cost(3, p["stsb_seeds"], stsb, profile.stsb.batch_size, p["stsb_epochs"])
        return a, b, a["steps"] + b["steps"]
    from .profiles import backbone_label
    nli_cost, stsb_cost, steps = cost(plan, n_configs, n_nli, n_stsb)
    lines = [f"{'FULL grid (opted in)' if full_grid else 'default grid'} on {profile.name}, {backbone_label(profile.backbone)}:",
             f"  NLI column:  {n_configs} configurations × {len(plan['nli_seeds'])} seeds = {nli_cost['runs']} runs × "
             f"{nli_cost['steps_per_run']:,} steps ({n_nli:,} NLI pairs, batch {nli_batch}, lr {profile.nli.lr:g})",
             f"  STSb column: 3 poolings × {len(plan['stsb_seeds'])} seeds = {stsb_cost['runs']} runs × "
             f"{stsb_cost['steps_per_run']:,} steps ({n_stsb:,} STSb train pairs × {plan['stsb_epochs']} epoch(s), "
             f"batch {profile.stsb.batch_size}, lr {profile.stsb.lr:g})",
             f"  in all {nli_cost['runs'] + stsb_cost['runs']} runs, {steps:,} optimizer steps"]
    if not full_grid:
        *_, full_steps = cost(full, n_all_configs, n_all_nli, n_all_stsb)
        lines.append(f"the full grid (SBERTLIB_FULL_GRID=1): {n_all_configs * 10 + 30} runs, {full_steps:,} steps "
                     f"({full_steps / steps:.0f}× this one)")
    return lines, nli_cost, stsb_cost


def labelled_sentences(size: Mapping[str, int], seed: int) -> dict:
    """Notebook 09's sentences, sampled with ``random.Random(seed)``: TREC test questions with their
    question type (``size["trec_questions"]``), unique STSb test sentences per genre (``size["stsb_per_genre"]``,
    genres sorted) and SICK NLI test pairs (``size["nli_pairs"]``); keys ``trec_texts``, ``trec_labels``,
    ``trec_classes``, ``stsb_texts``, ``stsb_labels``, ``genres``, ``nli_pairs`` and ``summary`` (lines to print)."""
    import random

    from .. import data
    rng = random.Random(seed)
    trec = data.load_senteval("TREC")
    trec_all, trec_ids = trec.split("test")
    pick = sorted(rng.sample(range(len(trec_all)), min(size["trec_questions"], len(trec_all))))
    out = {"trec_texts": [trec_all[i] for i in pick], "trec_labels": [trec.label_names[trec_ids[i]] for i in pick],
           "trec_classes": list(trec.label_names)}
    by_genre: dict[str, dict] = {}
    for p in data.load_stsb("test"):
        by_genre.setdefault(p.source.split("/")[-1].removeprefix("main-"), {})[p.sentence1] = None  # unique, in order
    out["stsb_texts"], out["stsb_labels"] = [], []
    for genre, sents in sorted(by_genre.items()):
        chosen = rng.sample(list(sents), min(size["stsb_per_genre"], len(sents)))
        out["stsb_texts"] += chosen
        out["stsb_labels"] += [genre] * len(chosen)
    out["genres"] = sorted(by_genre)
    nli = data.load_sick_nli("test")
    out["nli_pairs"] = rng.sample(nli, min(size["nli_pairs"], len(nli)))
    out["summary"] = [
        f"TREC: {len(out['trec_texts'])} questions, " + ", ".join(f"{l} {out['trec_labels'].count(l)}" for l in trec.label_names),
        f"STSb: {len(out['stsb_texts'])} sentences, " + ", ".join(f"{g} {out['stsb_labels'].count(g)}" for g in out["genres"]),
        f"SICK NLI test: {len(out['nli_pairs'])} pairs, " + ", ".join(
            f"{l} {sum(p.label == l for p in out['nli_pairs'])}" for l in ("entailment", "neutral", "contradiction")),
        f"e.g. {out['trec_texts'][0]} → {out['trec_labels'][0]}"]
    return out


def trec_context(table: pd.DataFrame) -> list[str]:
    """Lines putting a :func:`label_scores` table's TREC row beside the paper's Table 5 TREC figures, and — where the
    untrained network's 1-NN type agreement is over twice chance — why that is no sign of understanding."""
    from .. import paper
    col = paper.TABLE5_COLUMNS.index("TREC")
    lines = ["", "Context from the paper (Table 5, SentEval TREC accuracy of a logistic regression trained on the "
             f"vectors): avg. BERT {paper.TABLE5['Avg. BERT embeddings'][col]}, SBERT-NLI-base "
             f"{paper.TABLE5['SBERT-NLI-base'][col]} (notebook 08)."]
    b = float(table.loc[("TREC question type", "before"), "1-NN label agreement"])
    c = float(table.loc[("TREC question type", "before"), "chance agreement"])
    if b > 2 * c:
        lines += [f"Even the untrained network's neighbours share the question type {b:.0%} of the time (chance {c:.0%}): "
                  "the type is", "largely spelled out by the first words (who → HUM, where → LOC, how many → NUM), so "
                  "averaging token vectors already keeps it."]
    return lines


MARGIN_PREDICTION = ("highest accuracy", "meets ε=5 after ε=5 training, %")


def _guess(predict: dict, key: str) -> float:
    """``predict[key]`` as a number (text such as '5%' read), else an ExerciseError naming it."""
    from .lessons import ExerciseError
    value = predict[key]
    text = value.strip().rstrip("%").strip() if isinstance(value, str) else None
    try:
        return float(text if text is not None else value)
    except (TypeError, ValueError):
        raise ExerciseError(f"predict[{key!r}] is {value!r}: write one number (5, not '5%' or a list)") from None


def tell_margin_prediction(predict: dict, margins, best: float, best_accuracy: float, meets5: float) -> None:
    """Notebook 06's prediction beside what training gave: the margin with the highest held-out accuracy (``best``,
    ``best_accuracy`` %) and the % of held-out triplets meeting ε = 5 after ε = 5 training. Told, never failed; an
    entry that is not a prediction of the kind asked is named."""
    from .lessons import require
    require(set(MARGIN_PREDICTION) <= set(predict), f"predict has the keys {list(predict)}", f"keep the cell's {MARGIN_PREDICTION}")
    if all(predict[k] is ... for k in MARGIN_PREDICTION):
        return print("No prediction made (predict, above §4's runs).")
    require(not any(predict[k] is ... for k in MARGIN_PREDICTION), "only one of the two predictions is made",
            f"fill both: {', '.join(repr(k) for k in MARGIN_PREDICTION if predict[k] is ...)} is still ...")
    margin, share = _guess(predict, MARGIN_PREDICTION[0]), _guess(predict, MARGIN_PREDICTION[1])
    require(margin in margins, f"predict['highest accuracy'] is {margin:g}, not one of the margins trained, "
            f"{', '.join(f'{m:g}' for m in margins)}", "write the margin itself, not its place in MARGINS")
    require(0 <= share <= 100, f"predict[{MARGIN_PREDICTION[1]!r}] is {share:g}: a percentage lies between 0 and 100")
    print(f"You predicted the highest held-out accuracy for ε = {margin:g}: it was ε = {best:g} ({best_accuracy:.1f}%)"
          + (" — right." if margin == best else ".") + f"\nYou predicted {share:g}% of held-out triplets meeting ε = 5 "
          f"after ε = 5 training: {meets5:.1f}% did ({meets5 - share:+.1f} points)." + (
              f" (Your {share:g} reads as a percentage; if you meant a share, that is {100 * share:g}%.)"
              if 0 < share <= 1 else ""))


PCA_PREDICTIONS = ("below the random start", "about the random start", "above the random start")


def _prediction_refused(predicted: object) -> str:
    """Why notebook 14's ``predict_pca_start`` is not one of :data:`PCA_PREDICTIONS`: a near miss (case, spaces,
    a full stop) is named with the option it is close to; anything else is told to pick one."""
    options = ', '.join(map(repr, PCA_PREDICTIONS))
    near = (" ".join(predicted.lower().strip().rstrip(".!").split()) if isinstance(predicted, str) else None)
    if near in PCA_PREDICTIONS:
        return (f"predict_pca_start is {predicted!r}, close to {near!r} but not written as it: copy one of "
                f"{options} exactly as the comment gives it")
    return (f"predict_pca_start is {predicted!r}: write your prediction before the ladder is measured — "
            f"one of {options} (any of them is an answer)")


def distillation_ladder(stsb: Mapping[str, float], n_pairs: int, profile,
                        predicted: str) -> tuple[pd.DataFrame, list[str]]:
    """Notebook 14's ladder (STSb test per ingredient, in the order measured: random start, 05's two stages,
    PCA start, distilled, distilled + STSb, teacher) with the paper's rows that saw as much as each of ours
    (:func:`~sbertlib.workbook.prose.ladder_paper_rows` says which), and its verdict lines, every sentence of
    teacher, start and data written from ``profile`` (a :class:`~sbertlib.workbook.profiles.Profile`, or its
    name) by :mod:`sbertlib.workbook.prose`."""
    from . import prose
    from .lessons import ExerciseError
    from .profiles import PROFILES
    if predicted not in PCA_PREDICTIONS:
        raise ExerciseError(_prediction_refused(predicted))
    profile = PROFILES[profile] if isinstance(profile, str) else profile
    column = f"STSb test Spearman ×100 ({n_pairs:,} pairs, {profile.name})"
    table = pd.DataFrame({column: dict(stsb)}).round(2)
    rows = prose.ladder_paper_rows(profile)
    if rows["distilled"] is not None:
        table.loc[f"paper: {rows['distilled'][0]} (Table 2; no STS labels)"] = rows["distilled"][1]
    name_stsb, nli_stsb_base = rows["distilled, then STSb"]
    table.loc[f"paper: {name_stsb} (Table 2; trained on STSb train)"] = nli_stsb_base
    s_random, s_two, s_pca, s_dist, s_small, s_teacher = stsb.values()
    said = "above" if s_pca > s_random + 1 else "below" if s_pca < s_random - 1 else "about"

    def beside(ours: float, theirs: float) -> str:
        return f"{'above' if ours > theirs else 'below'} it by {abs(ours - theirs):.2f}"
    lines = [f"The PCA start is {said} the random start ({s_pca:.2f} vs {s_random:.2f}); you predicted {predicted!r}."]
    lines.append(f"Distillation adds {s_dist - s_pca:+.2f}, STSb then {s_small - s_dist:+.2f}: {s_small:.2f}, against "
                 + (f"the teacher's {s_teacher:.2f} — notebook 05's two-stage model, which is the teacher here "
                    f"(its own row: {s_two:.2f})." if profile.distill_teacher == "two-stage" else
                    f"notebook 05's {s_two:.2f} without a teacher and the teacher's {s_teacher:.2f}."))
    if rows["distilled"] is not None:
        name_base, nli_base = rows["distilled"]
        lines.append(f"Distilled only (no STS score in its own training, no evaluation sentence; its teacher's knowledge "
                     f"borrowed): {s_dist:.2f} beside the paper's {name_base} {nli_base:.2f}, {beside(s_dist, nli_base)}"
                     + (f"; its teacher saw no STS data either, but about {prose.pairs_ratio():,.0f} times the paper's "
                        "NLI pairs: not comparable in training data." if prose.teacher_is_minilm(profile) else "."))
    else:
        lines.append(f"Distilled only (no STS score in its own training, no evaluation sentence — but its teacher was "
                     f"trained on STSb train: {prose.stsb_pairs_seen(profile)}): "
                     f"{s_dist:.2f}, beside no unsupervised paper row; the paper's row nearest in training data, {name_stsb}, "
                     f"has {nli_stsb_base:.2f}: {beside(s_dist, nli_stsb_base)}.")
    lines.append(f"Then trained on STSb train: {s_small:.2f} beside {name_stsb} {nli_stsb_base:.2f}, "
                 f"{beside(s_small, nli_stsb_base)} — {prose.teacher_knowledge(profile)}.")
    return table, lines


def distillation_table1(suite_rows: Mapping[str, Mapping[str, float]], saw: Sequence[str], profile,
                        caps: Mapping[str, int | None]) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Notebook 14's Table 1: our rows (the distilled student, then its teacher: ``suite_rows``, each ``saw`` what
    it says) over the sets of ``caps``, beside the paper's unsupervised rows where the student may stand there
    (:func:`~sbertlib.workbook.prose.table1_paper_rows`), with an avg column. Returns ``(table, the table as shown,
    with what each row saw, notes to print)``; SICK-R is marked † where the student was distilled on SICK train."""
    from .. import evaluation
    from . import prose
    datasets = list(caps)
    table = evaluation.table1(dict(suite_rows), prose.table1_paper_rows(profile))[datasets]
    table["avg"] = table.mean(axis=1).round(2)
    sick_seen = profile.nli_source == "offline-nli" and "sick-r" in datasets
    shown = evaluation.with_seen(table.rename(columns={"sick-r": "sick-r †"} if sick_seen else {}),
                                 dict(zip(suite_rows, saw)), datasets)
    pairs = ", ".join(f"{name} {cap or 'all'}" for name, cap in caps.items())
    notes = [prose.teacher_in_table1(profile),
             f"Pairs per set: {pairs} (seeded samples, as notebook 04). avg: the mean of the columns shown, the paper's "
             "rows recomputed over the same columns."]
    if sick_seen:
        notes.append("† the student was distilled on SICK train's sentences (in the offline NLI triplets), none of "
                     "SICK-R's test sentences: it saw the data set's kind of sentence, which the paper's rows did not.")
    return table, shown, notes
