"""The first notebooks' bookkeeping: the tables, figures and printed verdicts of ``00_setup_and_tour`` and
``01_broken_baselines``, kept out of their cells (they teach nothing; the student's functions do the work and are
passed in where a table is computed with them)."""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import paper
from . import plots
from ..errors import SettingError


# ----------------------------------------------------------------------------- 00: the tour
def profile_card(profile, available_offline: Sequence[str] = ()) -> str:
    """Notebook 00's profile card: name, why it was chosen, the network it trains (a stand-in said so),
    its NLI lesson, its reference encoder and the backbones that load without a download."""
    from .profiles import backbone_label
    lesson = ("(MNRL, in-batch negatives)" if profile.nli_objective == "mnrl"
              else "(the paper's classification objective)")
    reference = (backbone_label(profile.reference_backbone) if profile.reference_backbone
                 else "— (none on this profile)")
    rows = [("profile", profile.name), ("why", profile.reason),
            ("starts from", backbone_label(profile.backbone) + ("   [stand-in]" if profile.stand_in else "")),
            ("NLI lesson", f"{profile.nli_objective} {lesson}"), ("reference encoder", reference),
            ("loadable offline", ", ".join(available_offline))]
    return "\n".join(f"{k + ':':19s} {v}" for k, v in rows)


def device_report(device) -> str:
    """Notebook 00's device lines: torch's version and the device the workbook runs on (a GPU named), the CPU
    threads torch uses and whether the Hugging Face Hub answers."""
    import torch

    from .. import config
    gpu = f" ({torch.cuda.get_device_name(0)})" if getattr(device, "type", str(device)) == "cuda" else ""
    return (f"[OK] torch {torch.__version__}, device: {device}{gpu}\n"
            f"     CPU threads torch uses: {torch.get_num_threads()}\n"
            f"     Hugging Face hub reachable: {config.hub_reachable()}")


def tour_models(encoder, reference=None) -> dict:
    """The tour's models by label: the profile's untrained network (a stand-in said so) and, where the
    profile has one, the fully trained reference encoder."""
    models = {f"{encoder.name} [untrained{', stand-in' if encoder.info.get('stand_in') else ''}]": encoder}
    if reference is not None:
        models[f"{reference.name} [reference: fully trained]"] = reference
    return models


def similarity_heatmaps(sentences: Sequence[str], matrices: Mapping[str, object], title: str = "",
                        max_label_len: int = 40):
    """One similarity heatmap per model, side by side, on one colour scale (from 0, or the lowest
    value where one is negative, to 1) so that the panels compare. ``matrices``: model label → its
    square matrix (array or tensor). Returns the figure."""
    values = {label: np.asarray(plots._to_numpy(m), dtype=float) for label, m in matrices.items()}
    if not values:
        raise SettingError("no matrices to draw")
    low = min(0.0, min(float(m.min()) for m in values.values()))
    n = len(sentences)
    fig, axes = plt.subplots(1, len(values), figsize=(max(5.5, 3 + 0.8 * n) * len(values), max(4.6, 2.5 + 0.6 * n)),
                             squeeze=False)
    for ax, (label, m) in zip(axes[0], values.items()):
        plots.similarity_heatmap(sentences, m, ax=ax, title=f"{label}\n{title}" if title else label, vmin=low, vmax=1.0,
                                 max_label_len=max_label_len)
    fig.tight_layout()
    return fig


GAP = "gap: related − unrelated"


def gap_table(matrices: Mapping[str, object], names: Sequence[str] = ("guitar", "instrument", "market"),
              related: tuple[int, int] = (0, 1)) -> pd.DataFrame:
    """The tour's table: per model, the cosine of the ``related`` pair, of each pair with the third
    sentence, and the gap between the related cosine and the mean of the unrelated ones (3 decimals)."""
    i, j = related
    k = next(x for x in range(3) if x not in related)
    rows = {}
    for label, m in matrices.items():
        m = np.asarray(plots._to_numpy(m), dtype=float)
        near, far_i, far_j = float(m[i, j]), float(m[i, k]), float(m[j, k])
        rows[label] = {f"cos({names[i]}, {names[j]})": near, f"cos({names[i]}, {names[k]})": far_i,
                       f"cos({names[j]}, {names[k]})": far_j, GAP: near - (far_i + far_j) / 2}
    return pd.DataFrame.from_dict(rows, orient="index").round(3)


def gap_verdicts(table: pd.DataFrame, clear: float = 0.2, small: float = 0.02, high: float = 0.6) -> list[str]:
    """One line per row of :func:`gap_table`: does the model separate the related pair from the
    unrelated ones clearly (gap > ``clear``), barely (> ``small``) or not at all; and are even the
    unrelated cosines high (all > ``high``)?"""
    lines = []
    unrelated = [c for c in table.columns if c != GAP][1:]
    for label, row in table.iterrows():
        gap, base = row[GAP], min(row[c] for c in unrelated)
        verdict = ("separates the related pair clearly from the unrelated ones" if gap > clear else
                   "ranks the related pair first, but by a small margin" if gap > small else
                   "does not separate related from unrelated")
        lines.append(f"- {label}: {verdict} (gap {gap:.3f});"
                     + (" every cosine is high, even for unrelated sentences" if base > high else ""))
    return lines


def tour_summary(models: Mapping[str, object], sentences: Sequence[str], paraphrases: set,
                 cosine_matrix: Callable, most_similar_pair: Callable, nearest_neighbour_hits: Callable) -> pd.DataFrame:
    """The tour's last table, computed with the student's three functions: per model, the most similar pair of
    ``sentences`` and its cosine, whether it is a written paraphrase, and the nearest-neighbour hits (of n)."""
    rows = {}
    for label, enc in models.items():
        e = enc.encode(list(sentences))
        m = cosine_matrix(e, e)
        i, j = (int(x) for x in most_similar_pair(m))
        rows[label] = {"most similar pair": f"{i} ↔ {j}", "cosine": round(float(m[i, j]), 3),
                       "a written paraphrase?": tuple(sorted((i, j))) in paraphrases,
                       f"nearest-neighbour hits (of {len(sentences)})": int(nearest_neighbour_hits(m, paraphrases))}
    return pd.DataFrame.from_dict(rows, orient="index")


def pair_verdict(model_name: str, sentences: Sequence[str], pair: tuple[int, int], paraphrases: set) -> str:
    """One sentence on a model's most similar pair: a written paraphrase, or surface form matched instead."""
    i, j = (int(x) for x in pair)
    return (f"With {model_name} (the profile's backbone): '{sentences[i]}' ↔ '{sentences[j]}' — "
            + ("one of the paraphrase pairs we wrote." if tuple(sorted((i, j))) in paraphrases else
               "NOT one of the paraphrase pairs we wrote: this model matches surface form (shared words,\n"
               "similar length and structure), not meaning."))


# ----------------------------------------------------------------------------- 01: the cross-encoder's hours
CROSS_HOURS = "cross-encoder hours for 10,000 (extrapolated)"


def cross_vs_bi_table(encoders: Sequence, sentences: Sequence[str], cross_encoder_hours: Callable[[int, float], float],
                      bi_encoder_seconds: Callable[[int, float], float], cross_pairs: int = 32, bi_sentences: int = 500,
                      repeats: int = 3, n: int = 10_000) -> pd.DataFrame:
    """The introduction's comparison on this machine, one row per encoder plus the paper's (Section 1):
    cross-encoder pairs/s (the encoder's network reading concatenated pairs, median of ``repeats``
    timed runs) and the hours for all pairs among ``n`` sentences, extrapolated with ``cross_encoder_hours``;
    the bi-encoder's speed (embed ``bi_sentences`` sentences plus one cosine matrix, median of ``repeats``)
    and its seconds for ``n`` sentences, extrapolated with ``bi_encoder_seconds`` — both the student's
    functions, ``(n, per second) -> time``."""
    import torch

    from ..evaluation import speed
    bi = f"bi-encoder s for {n:,} (extrapolated from {bi_sentences})"
    bi_speed = "bi-encoder sentences/s (measured)"
    rows = {}
    for enc in encoders:
        pps = speed.cross_encoder_pairs_per_s(enc, sentences, n_pairs=cross_pairs, batch_size=16, repeats=repeats)
        seconds = float(np.median([speed.bi_encoder_most_similar_pair(enc, sentences[:bi_sentences])[0]
                                   for _ in range(repeats)]))
        params = sum(p.numel() for p in enc.parameters()) / 1e6
        device = str(enc.device) + (f" ({torch.cuda.get_device_name(0)})" if enc.device.type == "cuda" else " (CPU)")
        rows[f"ours: {enc.name} ({params:.1f}M parameters), {device}"] = {
            "cross-encoder pairs/s (measured)": round(pps, 1),
            CROSS_HOURS: round(float(cross_encoder_hours(n, pps)), 2),
            bi_speed: round(bi_sentences / seconds, 1),
            bi: round(float(bi_encoder_seconds(n, bi_sentences / seconds)), 2)}
    rows["paper (Section 1): BERT cross-encoder on a V100 / SBERT"] = {
        "cross-encoder pairs/s (measured)": round(speed.pair_count(10_000) / (paper.CROSS_ENCODER_HOURS_10K * 3600), 1),
        CROSS_HOURS: paper.CROSS_ENCODER_HOURS_10K, bi_speed: round(10_000 / paper.SBERT_SECONDS_10K, 1),
        bi: paper.SBERT_SECONDS_10K}
    return pd.DataFrame.from_dict(rows, orient="index")


# ----------------------------------------------------------------------------- 01: Table 1
def table1_bars(table: pd.DataFrame, ours: Sequence[str], paper_rows: Sequence[str], columns: Sequence[str],
                profile_name: str):
    """Table 1 as bars: the paper's rows (``paper: …``) in the top panel, ours in the bottom one, one
    group of bars per data set, the same y scale. Returns the figure."""
    paper_part = table.loc[[f"paper: {r}" for r in paper_rows], list(columns)]
    ours_part = table.loc[list(ours), list(columns)]
    fig, (ax_paper, ax_ours) = plt.subplots(2, 1, figsize=(max(7.0, 1.5 * len(columns) + 3), 8.5), sharey=True)
    plots.results_bars(paper_part, ax=ax_paper, title="paper, Table 1", annotate=len(columns) <= 3)
    plots.results_bars(ours_part, ax=ax_ours, title=f"ours — profile {profile_name}", annotate=len(columns) <= 3)
    for ax in (ax_paper, ax_ours):
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        ax.axhline(0, color="black", linewidth=0.6)
    fig.tight_layout()
    return fig


def baseline_verdicts(stsb: Mapping[str, float], glove: str, mean: str, cls: str, reference: str | None,
                      backbone: str, reference_name: str = "", n_pairs: int = 0, profile_name: str = "") -> list[str]:
    """Notebook 01's reading of Table 1 on STSb test: our CLS, mean-pooled and averaged-GloVe rows beside
    the paper's, then whether the paper's two claims hold here (mean pooling beats CLS; averaged GloVe
    beats averaged BERT). ``stsb``: row label → Spearman ×100; ``glove``/``mean``/``cls``/``reference``:
    the labels of those rows (``reference`` None where the profile has none)."""
    s = stsb
    paper_stsb = {k: v[paper.TABLE1_COLUMNS.index("stsb-test")] for k, v in paper.TABLE1.items()}
    p_glove, p_mean, p_cls = (paper_stsb["Avg. GloVe embeddings"], paper_stsb["Avg. BERT embeddings"],
                              paper_stsb["BERT CLS-vector"])
    lines = [f"STS benchmark test, {n_pairs:,} pairs, profile {profile_name}:",
             f"  ours : CLS {s[cls]:.2f} · mean {s[mean]:.2f} ({backbone}) · avg GloVe 6B 50d {s[glove]:.2f}"
             + (f" · reference {reference_name} {s[reference]:.2f}" if reference else ""),
             f"  paper: CLS {p_cls:.2f} · mean BERT {p_mean:.2f} (a pre-trained BERT, size not named) · avg GloVe {p_glove:.2f} · "
             f"SBERT-NLI-base {paper_stsb['SBERT-NLI-base']:.2f}",
             f"- Mean pooling beats the CLS vector here: {'yes' if s[mean] > s[cls] else 'no'} "
             f"({s[mean] - s[cls]:+.2f}); in the paper: yes ({p_mean - p_cls:+.2f}).",
             f"- Averaged GloVe beats the untrained network's mean pooling here: {'yes' if s[glove] > s[mean] else 'no'} "
             f"({s[glove] - s[mean]:+.2f}); in the paper: yes ({p_glove - p_mean:+.2f})."
             + ("" if s[glove] > s[mean] else " (Our GloVe is the small 6B-50d release; the paper does not name its release.)")]
    if reference:
        lines.append(f"- The fully trained reference scores {s[reference]:.2f} on these pairs: how far training for "
                     "similarity can take a sentence encoder. It is unsupervised in Table 1's sense (no STS training "
                     "data), but it learnt from about 1.17 billion pairs — over a thousand times the paper's NLI pairs — "
                     "from the kinds of source these sets come from, their overlap not measured: not comparable in "
                     "training data, so beside no paper row.")
    return lines


def save_table1_rows(ours: Mapping[str, Mapping[str, float]], eval_sets: Mapping[str, Sequence], profile_name: str):
    """Write notebook 01's rows of Table 1 (with the profile and the pairs per data set) to
    ``runs.output_dir("01_broken_baselines")/table1_rows.json``; returns the path."""
    import json

    from . import runs
    out = runs.output_dir("01_broken_baselines") / "table1_rows.json"
    out.write_text(json.dumps({"profile": profile_name, "pairs": {k: len(v) for k, v in eval_sets.items()},
                               "ours": {k: dict(v) for k, v in ours.items()}}, indent=2))
    return out


# ----------------------------------------------------------------------------- 01: anisotropy
def centring_histograms(vectors: Mapping[str, np.ndarray], centre: Callable | None = None, n_pairs: int = 2000,
                        seed: int = 0, title: str = ""):
    """Two panels of unrelated-pair cosines per model (:func:`plots.unrelated_pair_cosines`): as the
    vectors are (left) and centred (right) by ``centre`` (the student's; default: minus the mean vector).
    The same random pairs in both panels. Returns the figure."""
    centre = centre or (lambda v: np.asarray(v) - np.asarray(v).mean(axis=0))
    raw = {name: plots.unrelated_pair_cosines(v, n_pairs=n_pairs, seed=seed) for name, v in vectors.items()}
    centred = {name: plots.unrelated_pair_cosines(np.asarray(centre(v)), n_pairs=n_pairs, seed=seed)
               for name, v in vectors.items()}
    fig, (ax_raw, ax_centred) = plt.subplots(1, 2, figsize=(15, 4.8))
    plots.similarity_histogram(raw, ax=ax_raw, title=title)
    plots.similarity_histogram(centred, ax=ax_centred, title="the same pairs after subtracting the mean vector")
    fig.tight_layout()
    return fig
