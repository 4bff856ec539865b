"""sbertlib.workbook.plots: check what is plotted (data, titles, labels, legends), not pixels."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from sbertlib.workbook import plots as viz  # noqa: E402
from sbertlib.model.similarity import cos_sim  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def clustered(rng, n_per=20, k=3, dim=16):
    centres = 5 * rng.standard_normal((k, dim))
    x = np.concatenate([c + rng.standard_normal((n_per, dim)) for c in centres])
    labels = [f"topic {i}" for i in range(k) for _ in range(n_per)]
    return x.astype(np.float32), labels


# --------------------------------------------------------------------------- projections

def test_plot_projection_data_and_legend(rng):
    pts = rng.standard_normal((30, 2))
    labels = ["b"] * 10 + ["a"] * 15 + ["c"] * 5
    fig = viz.plot_projection(pts, labels, title="proj")
    ax = fig.axes[0]
    assert isinstance(fig, Figure)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), pts)
    assert legend_texts(ax) == ["b", "a", "c"]  # order of first appearance
    assert ax.get_title() == "proj"
    colours = ax.collections[0].get_facecolors()
    assert len({tuple(c) for c in colours}) == 3


def test_plot_projection_on_given_ax(rng):
    fig, (a, b) = plt.subplots(1, 2)
    out = viz.plot_projection(rng.standard_normal((5, 2)), None, ax=b)
    assert out is fig and len(b.collections) == 1 and len(a.collections) == 0
    assert b.get_legend() is None
    with pytest.raises(ValueError):
        viz.plot_projection(rng.standard_normal((5, 2)), ["x"] * 4)


def test_umap_rejects_tiny_inputs_and_clamps_neighbors():
    with pytest.raises(ValueError, match="at least 4"):
        viz.umap_2d(np.zeros((3, 8)))
    assert viz._clamped_neighbors(6, 15) == 5
    assert viz._clamped_neighbors(100, 15) == 15


@pytest.mark.slow
def test_umap_deterministic_and_separates_clusters(rng):
    x, labels = clustered(rng)  # 60 points
    p1, p2 = viz.umap_2d(x, seed=42), viz.umap_2d(torch.from_numpy(x), seed=42)
    assert p1.shape == (60, 2)
    np.testing.assert_allclose(p1, p2)
    # the three planted clusters stay apart: each point's nearest neighbour has its label
    d = np.linalg.norm(p1[:, None] - p1[None], axis=-1) + np.eye(60) * 1e9
    assert (np.array(labels)[d.argmin(1)] == np.array(labels)).mean() > 0.95
    assert viz.umap_2d(x[:6], seed=0).shape == (6, 2)  # n_neighbors clamped to 5


# --------------------------------------------------------------------------- similarities

def test_similarity_heatmap(rng):
    sentences = ["A man is playing a guitar on a stage in front of many people.", "Short one.",
                 "A dog runs.", "Kids play football in the park after school every day."]
    emb = torch.tensor(rng.standard_normal((4, 8)))
    m = cos_sim(emb, emb)
    fig = viz.similarity_heatmap(sentences, m, title="cosines", max_label_len=20)
    ax = fig.axes[0]
    np.testing.assert_allclose(np.asarray(ax.collections[0].get_array()).reshape(4, 4), m.numpy())
    ylabels = [t.get_text() for t in ax.get_yticklabels()]
    assert ylabels[1] == "Short one."
    assert ylabels[0] == sentences[0][:19] + "…" and len(ylabels[0]) == 20
    assert [t.get_text() for t in ax.get_xticklabels()] == ylabels
    assert len(ax.texts) == 16 and ax.texts[1].get_text() == f"{m[0, 1].item():.2f}"
    assert ax.get_title() == "cosines"


def test_similarity_heatmap_no_annotations_when_large_and_rectangular(rng):
    fig, ax = plt.subplots()
    rows, cols = [f"q{i}" for i in range(13)], [f"c{i}" for i in range(3)]
    viz.similarity_heatmap(rows, rng.random((13, 3)), ax=ax, col_sentences=cols)
    assert len(ax.texts) == 0
    assert [t.get_text() for t in ax.get_xticklabels()] == cols
    with pytest.raises(ValueError):
        viz.similarity_heatmap(rows, rng.random((3, 3)))


def test_sts_scatter_title_and_data(rng):
    gold = rng.uniform(0, 5, 50)
    pred = gold / 5 + 0.3 * rng.standard_normal(50)
    fig = viz.sts_scatter(gold, torch.tensor(pred), title="STSb test")
    ax = fig.axes[0]
    rho = 100 * spearmanr(gold, pred)[0]
    assert ax.get_title() == f"STSb test (Spearman {rho:.2f})"
    np.testing.assert_allclose(ax.collections[0].get_offsets(), np.c_[gold, pred])
    assert ax.get_xlabel() == "gold similarity"
    fig2, ax2 = plt.subplots()
    assert viz.sts_scatter(gold, pred, ax=ax2) is fig2
    assert ax2.get_title() == f"Spearman {rho:.2f}"


# --------------------------------------------------------------------------- training

class FakeHistory:
    profile, backbone = "smoke", "tiny-bert"
    steps, losses, lrs = [1, 2, 3, 4, 5], [1.0, 0.8, 0.9, 0.5, 0.4], [1e-5] * 5
    dev_steps, dev_scores = [2, 4], [60.0, 70.0]


def test_training_curves_history_object():
    fig = viz.training_curves(FakeHistory())
    loss_ax, dev_ax = fig.axes
    raw, smooth = loss_ax.lines
    np.testing.assert_allclose(raw.get_xydata(), np.c_[FakeHistory.steps, FakeHistory.losses])
    assert smooth.get_ydata()[0] == pytest.approx(1.0)  # bias-corrected EMA starts at the first value
    assert "smoke" in loss_ax.get_title() and "tiny-bert" in loss_ax.get_title()
    np.testing.assert_allclose(dev_ax.lines[0].get_xydata(), [[2, 60.0], [4, 70.0]])
    assert loss_ax.get_xlabel() == "step" and dev_ax.get_ylabel() == "dev score"


def test_training_curves_dict_without_dev_on_given_ax():
    fig, ax = plt.subplots()
    h = {"steps": np.arange(10), "losses": np.linspace(2, 1, 10), "dev_steps": [], "dev_scores": []}
    assert viz.training_curves(h, axes=ax) is fig
    assert len(fig.axes) == 1 and len(ax.lines) == 2
    assert ax.get_title() == "training loss"
    # one Axes given and dev scores present: they go on a twin axis
    fig2, ax2 = plt.subplots()
    viz.training_curves({**h, "dev_steps": [5, 9], "dev_scores": [1.0, 2.0], "profile": "p"}, axes=ax2)
    assert len(fig2.axes) == 2 and "profile: p" in ax2.get_title()
    assert legend_texts(ax2) == ["loss", "smoothed", "dev score"]


# --------------------------------------------------------------------------- anisotropy

def test_unrelated_pair_cosines(rng):
    x = rng.standard_normal((10, 4))
    c = viz.unrelated_pair_cosines(x, n_pairs=500, seed=3)
    assert c.shape == (500,)
    np.testing.assert_array_equal(c, viz.unrelated_pair_cosines(x, n_pairs=500, seed=3))
    sims = cos_sim(x, x).numpy()
    off_diag = sims[~np.eye(10, dtype=bool)]
    # every value is the cosine of two distinct rows (never the diagonal's 1.0)
    assert all(np.isclose(off_diag, v, atol=1e-6).any() for v in c)
    assert c.max() < 0.999999
    # anisotropic vectors (a shared offset) give large cosines
    shifted = viz.unrelated_pair_cosines(x + 10, n_pairs=200)
    assert shifted.mean() > 0.9 > abs(c.mean())
    with pytest.raises(ValueError):
        viz.unrelated_pair_cosines(x[:1])


def test_similarity_histogram(rng):
    data = {"BERT CLS": rng.uniform(0.8, 1.0, 300), "SBERT": rng.normal(0.1, 0.1, 300)}
    fig, ax = plt.subplots()
    assert viz.similarity_histogram(data, ax=ax) is fig
    assert legend_texts(ax) == [f"{k} (mean {v.mean():.2f})" for k, v in data.items()]
    assert ax.get_xlabel() == "cosine similarity of unrelated sentence pairs"
    counts = [sum(p.get_height() for p in c) for c in ax.containers]
    assert counts == [300, 300]


# --------------------------------------------------------------------------- results

def test_results_bars():
    table = pd.DataFrame({"STS12": [70.1, 70.97], "STS13": [75.0, np.nan], "STSb": [84.2, 84.67]},
                         index=["ours", "paper"])
    fig = viz.results_bars(table, title="SBERT-NLI-base")
    ax = fig.axes[0]
    assert legend_texts(ax) == ["ours", "paper"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["STS12", "STS13", "STSb"]
    heights = [[p.get_height() for p in c.patches] for c in ax.containers]
    np.testing.assert_allclose(heights, [[70.1, 75.0, 84.2], [70.97, 0.0, 84.67]])
    assert not ax.containers[1].patches[1].get_visible()  # the missing value leaves a gap
    assert ax.get_title() == "SBERT-NLI-base" and ax.get_ylabel() == "Spearman ×100"
    assert "84.7" in [t.get_text() for t in ax.texts]


def test_speed_bars():
    from sbertlib.workbook import plots as viz
    rows = [{"label": "input order", "sent_per_s": 40.0, "padding_share": 0.6},
            {"label": "smart batching", "sent_per_s": 80.0, "padding_share": 0.1}]
    fig = viz.speed_bars(rows)
    a, b = fig.axes
    assert [p.get_height() for p in a.patches] == [40.0, 80.0]
    assert [round(p.get_height()) for p in b.patches] == [60, 10]
