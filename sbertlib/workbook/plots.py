"""Plots for the workbook: projections, similarity heatmaps, STS scatter, training curves, anisotropy.

Every plotting function returns the matplotlib ``Figure`` it drew on and takes ``ax=`` (or ``axes=``
for several panels), so a notebook can place several plots in one figure::

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 5))
    sts_scatter(gold, pred_before, ax=a, title="before")
    sts_scatter(gold, pred_after, ax=b, title="after")
"""
from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from scipy.stats import spearmanr

from ..model.similarity import pairwise
from ..errors import SettingError


def _to_numpy(x) -> np.ndarray:
    """numpy copy of an array, list or (possibly grad-tracking) torch tensor."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def _new_ax(ax, figsize=(6, 5)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _new_axes(axes, n: int, figsize):
    if axes is None:  # a figure of our own: laid out so that no label runs into the next panel
        _, axes = plt.subplots(1, n, figsize=figsize, squeeze=False, layout="constrained")
        axes = axes[0]
    axes = list(np.ravel(axes))
    if len(axes) < n:
        raise SettingError(f"need {n} axes, got {len(axes)}")
    return axes


def fit_title(ax, text: str, fontsize=None, **kwargs):
    """``ax.set_title(text)``, wrapped onto several lines where one line would be wider than the panel
    (a long title on a panel of a multi-panel figure otherwise runs over its neighbour's)."""
    import textwrap
    fig = ax.figure
    size = plt.matplotlib.font_manager.FontProperties(size=fontsize or plt.rcParams["axes.titlesize"]).get_size_in_points()
    width_pt = ax.get_position().width * fig.get_figwidth() * 72
    chars = max(12, int(width_pt / (0.55 * size)))  # an average character is about 0.55 em wide
    wrapped = "\n".join(textwrap.wrap(text, chars, break_long_words=False)) if len(text) > chars else text
    return ax.set_title(wrapped, fontsize=fontsize, **kwargs)


# --------------------------------------------------------------------------- projections

def _clamped_neighbors(n: int, n_neighbors: int) -> int:
    """UMAP needs at least 4 points and ``2 <= n_neighbors <= n - 1``."""
    if n < 4:
        raise SettingError(f"UMAP needs at least 4 points, got {n}")
    return max(2, min(n_neighbors, n - 1))


def umap_2d(embeddings, seed: int = 42, n_neighbors: int = 15, min_dist: float = 0.1,
            metric: str = "cosine") -> np.ndarray:
    """Project ``(n, dim)`` embeddings to ``(n, 2)`` with UMAP (deterministic for a fixed ``seed``).

    The first call in a Python process takes ~15 s while numba compiles UMAP; later calls are fast.
    """
    x = _to_numpy(embeddings).astype(np.float32)
    n_neighbors = _clamped_neighbors(len(x), n_neighbors)
    import umap  # imported here: it is slow to import and only this function needs it

    reducer = umap.UMAP(n_components=2, n_neighbors=n_neighbors, min_dist=min_dist, metric=metric,
                        random_state=seed, n_jobs=1, init="spectral" if len(x) > n_neighbors + 1 else "random")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*n_jobs value.*")
        warnings.filterwarnings("ignore", message=".*[Gg]raph is not fully connected.*")
        return reducer.fit_transform(x)


def _palette(labels: Sequence) -> dict:
    classes = list(dict.fromkeys(labels))  # order of first appearance
    colours = sns.color_palette("tab10" if len(classes) <= 10 else "husl", len(classes))
    return dict(zip(classes, colours))


def plot_projection(points_2d, labels=None, ax=None, title: str = "", s: float = 25, legend: bool = True):
    """Scatter of 2-D points, coloured by ``labels`` (one colour per label, with a legend)."""
    pts = _to_numpy(points_2d)
    ax = _new_ax(ax)
    if labels is None:
        ax.scatter(pts[:, 0], pts[:, 1], s=s, alpha=0.8)
    else:
        labels = [str(label) for label in labels]
        if len(labels) != len(pts):
            raise SettingError(f"{len(labels)} labels for {len(pts)} points")
        palette = _palette(labels)
        ax.scatter(pts[:, 0], pts[:, 1], s=s, alpha=0.8, c=[palette[label] for label in labels])
        if legend:
            handles = [Line2D([], [], marker="o", linestyle="", color=col, label=lab)
                       for lab, col in palette.items()]
            ax.legend(handles=handles, fontsize="small", loc="best", frameon=True)
    ax.set(title=title, xticks=[], yticks=[])
    return ax.figure


# --------------------------------------------------------------------------- similarities

def _truncate(text: str, max_len: int) -> str:
    return text if len(text) <= max_len else text[:max_len - 1] + "…"


def similarity_heatmap(sentences: Sequence[str], matrix, ax=None, title: str = "", max_label_len: int = 40,
                       col_sentences: Sequence[str] | None = None, cmap: str = "rocket_r",
                       vmin: float | None = None, vmax: float | None = None):
    """Heatmap of a sentence × sentence similarity matrix, values written in the cells when n ≤ 12.

    ``col_sentences`` labels the columns when they differ from the rows (e.g. queries × corpus).
    """
    m = _to_numpy(matrix).astype(float)
    cols = sentences if col_sentences is None else col_sentences
    if m.shape != (len(sentences), len(cols)):
        raise SettingError(f"matrix shape {m.shape} does not match {len(sentences)} × {len(cols)} sentences")
    ax = _new_ax(ax, figsize=(2 + 0.6 * len(cols), 1.5 + 0.5 * len(sentences)))
    sns.heatmap(m, ax=ax, cmap=cmap, vmin=vmin, vmax=vmax, square=m.shape[0] == m.shape[1],
                annot=max(m.shape) <= 12, fmt=".2f", annot_kws={"fontsize": 8},
                xticklabels=[_truncate(t, max_label_len) for t in cols],
                yticklabels=[_truncate(t, max_label_len) for t in sentences])
    ax.tick_params(axis="x", labelrotation=90)
    ax.tick_params(axis="y", labelrotation=0)
    ax.set_title(title)
    return ax.figure


def sts_scatter(gold, predicted, ax=None, title: str = "", xlabel: str = "gold similarity",
                ylabel: str = "predicted cosine similarity"):
    """Gold score vs predicted similarity, one dot per pair; Spearman ×100 in the title."""
    gold, predicted = _to_numpy(gold).ravel(), _to_numpy(predicted).ravel()
    if len(gold) != len(predicted):
        raise SettingError(f"{len(gold)} gold scores vs {len(predicted)} predictions")
    rho = 100 * spearmanr(gold, predicted)[0]
    ax = _new_ax(ax)
    ax.scatter(gold, predicted, s=8, alpha=0.35)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=f"{title} (Spearman {rho:.2f})" if title else f"Spearman {rho:.2f}")
    return ax.figure


# --------------------------------------------------------------------------- training

def _history_get(history, key: str, default=None):
    if isinstance(history, Mapping):
        return history.get(key, default)
    return getattr(history, key, default)


def _ema(values: np.ndarray, weight: float) -> np.ndarray:
    """Exponential moving average with bias correction (TensorBoard-style smoothing)."""
    out, acc = np.empty(len(values)), 0.0
    for i, v in enumerate(values):
        acc = weight * acc + (1 - weight) * v
        out[i] = acc / (1 - weight ** (i + 1))
    return out


def training_curves(history, axes=None, smoothing: float = 0.9):
    """Loss vs step (raw and smoothed) and, if the run was evaluated, dev score vs step. ``history``: a
    :class:`sbertlib.training.History` or a dict of its fields; ``axes``: two Axes, or one (the dev score then on
    a twin y-axis). A run evaluated only once (at the end) has no dev *curve*: its panel states the score (on one
    Axes, the legend does); a single training step is drawn as a marker."""
    def series(key):
        v = _history_get(history, key)
        return np.asarray([] if v is None else v, dtype=float)

    steps, losses = series("steps"), series("losses")
    dev_steps, dev_scores = series("dev_steps"), series("dev_scores")
    has_dev = len(dev_scores) > 0
    once = len(dev_scores) == 1  # evaluated at the end only: a score, not a curve

    if axes is None:
        axes = _new_axes(None, 2 if has_dev else 1, figsize=(12 if has_dev else 6.5, 4.5))
    axes = list(np.ravel(axes))
    loss_ax = axes[0]
    own_panel = len(axes) > 1
    dev_ax = (axes[1] if own_panel else (None if once else loss_ax.twinx())) if has_dev else None

    marker = "o" if len(steps) == 1 else None
    loss_ax.plot(steps, losses, color="C0", alpha=0.3, linewidth=1, label="loss", marker=marker)
    if len(losses):
        loss_ax.plot(steps, _ema(losses, smoothing), color="C0", linewidth=2, label="smoothed", marker=marker)
    loss_ax.set(xlabel="step", ylabel="training loss")
    about = [f"{k}: {v}" for k in ("profile", "backbone") if (v := _history_get(history, k))]
    fit_title(loss_ax, "training loss" + (" — " + ", ".join(about) if about else ""))

    extra = []
    if once:
        said = f"dev score {dev_scores[0]:.2f}, evaluated once (after step {dev_steps[0]:.0f})"
        if own_panel:
            dev_ax.set(xticks=[], yticks=[])
            for spine in dev_ax.spines.values():
                spine.set_visible(False)
            dev_ax.text(0.5, 0.55, f"{dev_scores[0]:.2f}", ha="center", va="center", fontsize=28, color="C1",
                        transform=dev_ax.transAxes)
            dev_ax.text(0.5, 0.35, f"dev score, evaluated once\n(after step {dev_steps[0]:.0f}, the end of training)",
                        ha="center", va="center", fontsize="small", transform=dev_ax.transAxes)
            dev_ax.set_title("dev score after training")
        else:
            extra.append(Line2D([], [], color="C1", marker="o", linestyle="", label=said))
    elif has_dev:
        dev_ax.plot(dev_steps, dev_scores, color="C1", marker="o", label="dev score")
        best = int(np.argmax(dev_scores))
        dev_ax.annotate(f"best {dev_scores[best]:.2f}", (dev_steps[best], dev_scores[best]),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize="small")
        dev_ax.margins(y=0.15)  # room for the annotation
        dev_ax.set_ylabel("dev score")
        if own_panel:
            dev_ax.set(xlabel="step", title="dev score during training")
    # one legend per panel; on a shared (twin) panel it lists the dev curve (or the one dev score) too
    handles = loss_ax.get_legend_handles_labels()[0] + extra
    if has_dev and not own_panel and not once:
        handles += dev_ax.get_legend_handles_labels()[0]
    loss_ax.legend(handles=handles, loc="best", fontsize="small")
    return loss_ax.figure


# --------------------------------------------------------------------------- anisotropy

def unrelated_pair_cosines(embeddings, n_pairs: int = 2000, seed: int = 0) -> np.ndarray:
    """Cosines of ``n_pairs`` random pairs of distinct rows (row i ≠ row j).

    Random sentences are mostly unrelated, so a healthy embedding space gives cosines around 0;
    raw BERT vectors all point one way ("anisotropy") and give large cosines for any pair.
    """
    x = _to_numpy(embeddings)
    n = len(x)
    if n < 2:
        raise SettingError(f"need at least 2 embeddings, got {n}")
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, size=n_pairs)
    j = rng.integers(0, n - 1, size=n_pairs)
    j = j + (j >= i)  # skip i itself: j is uniform over the other n - 1 rows
    return pairwise(x[i], x[j], "cosine").double().numpy()


def similarity_histogram(cosines_by_model: Mapping[str, np.ndarray], ax=None, bins: int = 50, title: str = ""):
    """Overlaid histograms of unrelated-pair cosines, one per model, the mean in the legend."""
    ax = _new_ax(ax, figsize=(7, 4.5))
    values = {name: _to_numpy(v).ravel() for name, v in cosines_by_model.items()}
    lo = min([v.min() for v in values.values()] + [-0.2])
    hi = max([v.max() for v in values.values()] + [1.0])
    edges = np.linspace(lo, hi, bins + 1)
    for k, (name, v) in enumerate(values.items()):
        ax.hist(v, bins=edges, alpha=0.45, color=f"C{k}", label=f"{name} (mean {v.mean():.2f})")
        ax.axvline(v.mean(), color=f"C{k}", linestyle="--", linewidth=1)
    ax.set(xlabel="cosine similarity of unrelated sentence pairs", ylabel="number of pairs", title=title)
    ax.legend(fontsize="small")
    return ax.figure


# --------------------------------------------------------------------------- results

def results_bars(table: pd.DataFrame, ax=None, title: str = "", ylabel: str = "Spearman ×100",
                 annotate: bool = True, hatched: Sequence[str] = (), legend_below: bool = False):
    """Grouped bars: one group per column (dataset), one bar per row (e.g. "ours", "paper").

    Missing values (NaN) leave a gap. The rows named in ``hatched`` (ours, say) are drawn hatched;
    ``legend_below`` puts the legend under the axes, out of the bars' way.
    """
    ax = _new_ax(ax, figsize=(max(6.0, 1.1 * len(table.columns) + 2), 4.5))
    x = np.arange(len(table.columns))
    width = 0.8 / max(1, len(table.index))
    for k, (row_label, row) in enumerate(table.iterrows()):
        heights = row.to_numpy(dtype=float)
        bars = ax.bar(x + (k - (len(table.index) - 1) / 2) * width, np.nan_to_num(heights), width,
                      label=str(row_label), color=f"C{k}", hatch="//" if row_label in hatched else None)
        for bar, h in zip(bars, heights):
            if np.isnan(h):
                bar.set_visible(False)
        if annotate:
            ax.bar_label(bars, labels=["" if np.isnan(h) else f"{h:.1f}" for h in heights],
                         fontsize=7, padding=1)
    ax.set_xticks(x, [str(c) for c in table.columns])
    ax.set(ylabel=ylabel, title=title)
    if legend_below:
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2 if len(table.index) > 4 else 1)
    else:
        ax.legend(fontsize="small")
    return ax.figure


# --------------------------------------------------------------------------- speed

def speed_bars(rows: Sequence[Mapping], axes=None, title: str = ""):
    """Two panels from :func:`sbertlib.evaluation.speed.compare_modes` rows: sentences/s and padding share."""
    a, b = _new_axes(axes, 2, (10, 3.8))
    labels = [r["label"] for r in rows]
    speeds = [r["sent_per_s"] for r in rows]
    pads = [100 * r["padding_share"] for r in rows]
    colors = [f"C{k}" for k in range(len(rows))]
    a.bar_label(a.bar(labels, speeds, color=colors), labels=[f"{s:.0f}" for s in speeds], fontsize=8)
    a.set(ylabel="sentences / second", title=title or "encode throughput")
    b.bar_label(b.bar(labels, pads, color=colors), labels=[f"{p:.0f}%" for p in pads], fontsize=8)
    b.set(ylabel="padding share of token slots (%)", ylim=(0, 100), title="work wasted on padding")
    return a.figure


def triplet_runs(histories: Mapping[str, Sequence[float]], gaps: Mapping[str, np.ndarray], before: str, after: str,
                 margins: Sequence[float], title: str = "", after_label: str = "after training with ε = 1"):
    """Notebook 06's figure: each run's training loss per step (left) and the held-out gaps
    ``d(a,n) − d(a,p)`` before and after training (right), a dotted line at each margin ε on the chart;
    margins beyond every gap are named in the panel's title instead. ``histories``: run name → loss of
    each step (a run named ``"MNRL"`` is labelled as on another scale); ``gaps``: model name → gaps.
    Returns the figure."""
    fig, (loss_ax, gap_ax) = plt.subplots(1, 2, figsize=(14, 4))
    for label, step_losses in histories.items():
        loss_ax.plot(range(1, len(step_losses) + 1), step_losses, marker="." if len(step_losses) < 30 else None,
                     label=label if label != "MNRL" else "MNRL (cross-entropy, other scale)")
    loss_ax.set(xlabel="step", ylabel="training loss")
    fit_title(loss_ax, "training loss" + (f" ({title})" if title else ""), fontsize="small")
    loss_ax.legend(fontsize="small")

    hi = max(float(np.max(g)) for g in gaps.values())
    bins = np.linspace(min(float(np.min(g)) for g in gaps.values()), hi, 40)
    gap_ax.hist(gaps[before], bins=bins, alpha=0.5, label="untrained")
    gap_ax.hist(gaps[after], bins=bins, alpha=0.5, label=after_label)
    gap_ax.axvline(0, color="black", linewidth=0.8)
    top = gap_ax.get_ylim()[1]
    for m in margins:
        if m <= hi:
            gap_ax.axvline(m, color="grey", linestyle=":")
            gap_ax.text(m, top * 0.92, f" ε={m:g}", fontsize="small")
    beyond = [f"{m:g}" for m in margins if m > hi]
    if beyond:
        fit_title(gap_ax, f"ε = {', '.join(beyond)}: beyond every held-out triplet's gap (off the chart →)",
                  fontsize="small")
    gap_ax.set(xlabel="d(a,n) − d(a,p) on held-out triplets  (right of ε: zero loss)", ylabel="triplets")
    gap_ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def index_comparison(tables: Mapping[str, pd.DataFrame], k: int, title: str = ""):
    """Notebook 12's FAISS comparison: median latency per query (log scale, left) and recall@k against exact
    search (right) of each index kind, one bar group per corpus. ``tables``: corpus label → the table of
    :func:`sbertlib.search.compare_indexes` (rows: index kinds; columns ``latency_ms``, ``recall@k``).
    Returns the figure."""
    fig, (ax_lat, ax_rec) = plt.subplots(1, 2, figsize=(13, 4.5))
    kinds = list(next(iter(tables.values())).index)
    x = np.arange(len(kinds))
    width = 0.8 / len(tables)
    for n, (label, table) in enumerate(tables.items()):
        off = (n - (len(tables) - 1) / 2) * width
        bars = ax_lat.bar(x + off, table.loc[kinds, "latency_ms"], width, label=label, color=f"C{n}")
        ax_lat.bar_label(bars, fmt="%.3g", fontsize=8)
        bars = ax_rec.bar(x + off, table.loc[kinds, f"recall@{k}"], width, label=label, color=f"C{n}")
        ax_rec.bar_label(bars, fmt="%.3f", fontsize=8)
    ax_lat.set(yscale="log", ylabel="median latency per query (ms, log scale)")
    ax_lat.legend(fontsize="small", loc="best")
    ax_rec.set(ylabel=f"recall@{k} vs exact search", ylim=(0, 1.35))
    ax_rec.legend(fontsize="small", loc="upper center", ncol=2)
    for ax in (ax_lat, ax_rec):
        ax.set_xticks(x, kinds)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def nprobe_curve(sweep: pd.DataFrame, chosen: int, nlist: int, k: int, target: float = 0.95, ax=None,
                 title: str = ""):
    """recall@k against IVF's ``nprobe`` (log scale) from a sweep table (index ``nprobe``, column
    ``recall@k``), the ``target`` as a dashed line and the ``chosen`` nprobe as a dotted one. Returns the figure."""
    ax = _new_ax(ax, figsize=(6.5, 4))
    ax.plot(sweep.index, sweep[f"recall@{k}"], marker="o")
    ax.axhline(target, color="grey", linestyle="--", linewidth=1)
    ax.axvline(chosen, color="C1", linestyle=":", label=f"your nprobe = {chosen}")
    ax.set_xscale("log", base=2)
    ax.set(xlabel=f"nprobe (of nlist = {nlist})", ylabel=f"recall@{k}")
    if title:
        fit_title(ax, title, fontsize="medium")
    ax.legend()
    return ax.figure
