"""Notebook 09's checks, for what their declarations cannot say (each declared slip is refused with its own message in
test_declared.py): the notebook's answers and right answers written another way pass, the notebook's own embeddings
are checked, inputs changed in place are named, and the figures the notebook draws from the answers."""
from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from sbertlib.workbook.lessons import ExerciseError, nb09  # noqa: E402
from lesson_helpers import IN_PLACE  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "09_visualising_embeddings.ipynb"


def solutions() -> dict:
    space = {"np": np}
    for cell in json.loads(NOTEBOOK.read_text())["cells"]:
        if "solution" in cell["metadata"].get("tags", []) and cell["source"] and "def " in "".join(cell["source"]):
            exec("".join(cell["source"]), space)
    return space


def _data(seed: int = 0, n: int = 40):
    rng = np.random.default_rng(seed)
    labels = rng.choice(["a", "b", "c"], size=n).tolist()
    centres = {k: rng.standard_normal(16) for k in "abc"}
    return (np.stack([centres[la] for la in labels]) + rng.standard_normal((n, 16)) + 2.0).astype(np.float32), labels


def test_the_notebooks_answers_pass_on_hidden_data_and_on_the_notebooks_own(capsys):
    s, (x, labels) = solutions(), _data()
    assert nb09.check_separation(s["separation"], x, labels) == pytest.approx(nb09.separation_truth(x, labels))
    assert nb09.check_nn_agreement(s["nn_agreement"], x, labels) == pytest.approx(nb09.nn_agreement_truth(x, labels))
    nb09.check_separation(s["separation"])
    nb09.check_pca(s["pca"], x)
    nb09.check_chance(s["chance"])
    nb09.check_cosine_by_label(s["cosine_by_label"])
    out = capsys.readouterr().out
    assert out.count("[OK]") == 6 and "and on your data" in out and "and on your embeddings" in out


def pca_by_eigh(emb, k=2):                  # the covariance's eigenvectors, float32, directions negated
    x = torch.as_tensor(np.asarray(emb), dtype=torch.float32)
    x = x - x.mean(0)
    values, vectors = torch.linalg.eigh(x.T @ x)
    return -(x @ vectors.flip(1)[:, :k]), values.flip(0)[:k] / values.sum()


def test_right_answers_written_another_way_pass(capsys):
    x, labels = _data()
    s = solutions()
    nb09.check_separation(s["separation"], torch.from_numpy(x), labels)             # a tensor of the notebook's
    nb09.check_pca(pca_by_eigh, x)
    nb09.check_cosine_by_label(lambda p, h, g, labels: {lab: torch.nn.functional.cosine_similarity(
        torch.tensor(p), torch.tensor(h))[torch.tensor([x == lab for x in g])].mean() for lab in labels})
    assert capsys.readouterr().out.count("[OK]") == 3
    nb09.check_chance(nb09._chance_other)   # a random *other* sentence: also right (issue 29: its OK named the other)
    out = capsys.readouterr().out
    assert "Σ n_c(n_c − 1) / (n(n − 1)) — a random *other* sentence" in out and "Σ share²" in out


def test_the_references_on_tiny_cases():
    x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    assert nb09.separation_truth(x, ["p", "p", "q", "q"]) == pytest.approx(1.0)
    assert nb09.separation_truth(x, [0, 1, 0, 1]) == pytest.approx(-0.5)
    y = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    assert nb09.nn_agreement_truth(y, ["a", "a", "b", "b"]) == 1.0 and nb09.nn_agreement_truth(y, "abab") == 0.0


@pytest.mark.parametrize("check, wrong, says", [
    (nb09.check_separation, lambda emb, labels: None, "one finite number"),
    (nb09.check_nn_agreement, lambda emb, labels: "0.5", "one finite number"),
    (nb09.check_pca, lambda e, k=2: nb09.pca_truth(e, k)[0], "not a pair"),
    (nb09.check_cosine_by_label, lambda p, h, g, labels: [0.1, 0.2, 0.3], "return a dict"),
    (nb09.check_pca, lambda emb, k=2: nb09.pca_truth(emb.__isub__(emb.mean(0)), k), IN_PLACE),
    (nb09.check_cosine_by_label, lambda p, h, g, labels: nb09.cosine_by_label_truth(p.__itruediv__(
        np.linalg.norm(p, axis=1, keepdims=True)), h, g, labels), IN_PLACE),
    (nb09.check_chance, 42, "pass your function itself"),
])
def test_what_came_back_is_named(check, wrong, says):
    with pytest.raises(ExerciseError, match=says):
        check(wrong)


def test_the_notebooks_data_must_fit():
    x, labels = _data()
    with pytest.raises(ExerciseError, match="labels for"):
        nb09.check_separation(solutions()["separation"], x, labels[:-3])
    with pytest.raises(ExerciseError, match="shape"):
        nb09.check_separation(solutions()["separation"], x[0], labels)


def test_figures_draw_and_tabulate():
    from sbertlib.workbook import figures
    rng = np.random.default_rng(1)
    emb = {"before": rng.normal(size=(12, 4)), "after": rng.normal(size=(12, 4))}
    labels, titles = ["a", "b", "c"] * 4, {"before": "before", "after": "after"}
    assert len(figures.projection_panels(emb, labels, titles, "pca", project=lambda x: nb09.pca_truth(x)[0]).axes) == 2
    assert len(figures.heatmap_panels([f"s{i}" for i in range(3)], {k: np.eye(3) for k in emb}, titles, "s").axes) >= 2
    gold = np.array(["entailment", "neutral", "contradiction"] * 4)
    _, table = figures.nli_cosine_panels({k: rng.uniform(-1, 1, 12) for k in emb}, gold, titles, "nli")
    assert list(table.columns)[-1] == "entailment − contradiction"
    scores = figures.label_scores({"set": ("part", labels)}, {k: {"part": v} for k, v in emb.items()},
                                  {"1-NN label agreement": nb09.nn_agreement_truth}, nb09.chance_truth)
    assert scores.loc[("set", "after"), "chance agreement"] == pytest.approx(1 / 3)
    assert "1-NN agreement before" in figures.agreement_verdicts(scores, {"set": 12})[0]
    import matplotlib.pyplot as plt
    plt.close("all")
