"""Notebook 14's checks beyond their declarations (their slips: test_declared.py): the notebook's answers and right
answers written another way pass; what a value cannot show (a gradient, the layer's kind, an error filling it, a
stub); the notebook's own PCA start; the run check on tiny recipes, the notebook's run and checks.checked."""
from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from sbertlib import losses
from sbertlib.training import TrainingArguments, distillation, fit, prepare_examples
from sbertlib.workbook.lessons import ExerciseError, nb14

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "14_distillation.ipynb"
RECIPE = TrainingArguments(epochs=1, batch_size=8, lr=1e-3, length_grouping=True)   # the profiles' distill, shorter


def train_loop(loss, examples, *, epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0, seed=42,
               length_grouping=False):
    """Notebook 03's loop, as the library runs it."""
    return fit(loss.model, loss, examples, epochs=epochs, batch_size=batch_size, lr=lr, warmup_ratio=warmup_ratio,
               max_grad_norm=max_grad_norm, seed=seed, length_grouping=length_grouping, show_progress_bar=False).losses


def solution(name: str, stub: bool = False):
    """``name`` as notebook 14's solution cell (or its stub) defines it, run with the names the notebook gives it."""
    cells = [c for c in json.loads(NOTEBOOK.read_text())["cells"] if "solution" in c["metadata"].get("tags", [])]
    found = [c["metadata"]["stub"] if stub else "".join(c["source"]) for c in cells
             if f"def {name}(" in "".join(c["source"]) or f"class {name}(" in "".join(c["source"])]
    space = {"torch": torch, "F": F, "losses": losses, "copy": copy, "time": time, "train_loop": train_loop,
             "training": SimpleNamespace(prepare_examples=prepare_examples), "DistillationObjective": Distillation}
    exec(found[0], space)
    return space[name]


class Distillation(losses.SBERTLoss):
    """The student's DistillationObjective, as the notebook writes it."""
    n_texts, label_kind = (1,), "vector"

    def loss_from_embeddings(self, embeddings, labels):
        return ((embeddings[0] - labels.to(embeddings[0].dtype)) ** 2).mean()


@pytest.fixture(scope="module")
def student():
    from sbertlib.model.encoder import SentenceEncoder
    encoder = SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32, device="cpu")
    encoder.projection = torch.nn.Linear(encoder.backbone.config.hidden_size, 24)
    return encoder


@pytest.fixture(scope="module")
def teacher_data():
    rng = np.random.default_rng(0)
    return [(("a " * (k % 7 + 1) + f"sentence {k}").strip(), rng.normal(size=24).astype(np.float32)) for k in range(24)]


# ----------------------------------------------------------------------------- the objective
def test_the_objective_written_other_ways_passes(student, capsys):
    nb14.check_distillation_objective(solution("DistillationObjective"), student)
    nb14.check_distillation_objective(Distillation, student)
    as_float64 = type("DistillationObjective", (Distillation,), dict(loss_from_embeddings=lambda self, e, t: F.mse_loss(
        e[0].double(), t.double())))
    nb14.check_distillation_objective(as_float64, student)
    assert capsys.readouterr().out.count("[OK]") == 3


@pytest.mark.parametrize("cls, says", [
    (solution("DistillationObjective", stub=True), "label_kind is None"),
    (type("DistillationObjective", (Distillation,), dict(label_kind="score")), "label_kind is 'score'"),
    (type("DistillationObjective", (Distillation,), dict(n_texts=1)), "n_texts is 1"),
    (losses.DistillationLoss, "is \\(or extends\\) the library's DistillationLoss"),
    (type("DistillationObjective", (Distillation,), dict(loss_from_embeddings=lambda self, e, t: F.mse_loss(e, t))),
     "`embeddings` is a list, one tensor per text column"),
    (type("DistillationObjective", (Distillation,), dict(loss_from_embeddings=lambda self, e, t: F.mse_loss(
        e[0], t).detach())), "no gradient|detached"),
], ids=["stub", "label_kind", "n_texts", "the library's", "the list", "detached"])
def test_the_objectives_mistakes_beyond_its_value_are_named(student, cls, says):
    with pytest.raises(ExerciseError, match=says):
        nb14.check_distillation_objective(cls, student)


# ----------------------------------------------------------------------------- the PCA and its inverse
def pca_by_eigh(table, width):   # float64, the covariance's eigenvectors, U·S for reduced's sign: another route
    x = table.double() - table.double().mean(0)
    vectors = torch.linalg.eigh(x.T @ x)[1].flip(1)[:, :width].T
    return (x @ vectors.T).float(), vectors.float(), table.mean(0)


def pca_in_numpy(table, width):
    t = np.asarray(table, dtype=np.float64)
    u, s, vt = np.linalg.svd(t - t.mean(0), full_matrices=False)
    return -u[:, :width] * s[:width], -vt[:width], t.mean(0)   # U·S, every direction's sign flipped


def pca_by_numpy_eigh(table, width):   # eigh's columns reversed as views ([:, ::-1]): arrays of negative strides
    t = np.asarray(table, dtype=np.float64)
    vectors = np.linalg.eigh(np.cov(t.T))[1][:, ::-1][:, :width].T
    return (t - t.mean(0)) @ vectors.T, vectors, t.mean(0)


def test_pca_written_other_ways_passes(capsys):
    nb14.check_pca_word_pieces(solution("pca_word_pieces"))
    for fn in (pca_by_eigh, pca_in_numpy, pca_by_numpy_eigh, lambda t, w: (lambda r, c, m: (
            *distillation.sign_fixed(r, c), m))(*solution("pca_word_pieces")(t, w))):
        nb14.check_pca_word_pieces(fn)
    assert capsys.readouterr().out.count("[OK]") == 5


def centred_in_place(table, width):
    table -= table.mean(dim=0)
    return solution("pca_word_pieces")(table, width)


@pytest.mark.parametrize("fn, says", [
    (solution("pca_word_pieces", stub=True), "not done yet"),
    (centred_in_place, r"changed its first argument \(a Tensor\) in place"),
    (lambda t, w: solution("pca_word_pieces")(t, w)[:2], "return three things"),
])
def test_pca_mistakes_beyond_its_value_are_named(fn, says):
    with pytest.raises(ExerciseError, match=says):
        nb14.check_pca_word_pieces(fn)


def test_inverse_projection_written_other_ways_passes(capsys):
    nb14.check_inverse_projection(solution("inverse_projection"))

    def as_parameters(components, mean):   # sharing the notebook's tensors' memory: harmless, training copies
        layer = torch.nn.Linear(*components.shape)
        layer.weight, layer.bias = torch.nn.Parameter(components.T), torch.nn.Parameter(mean)
        return layer
    nb14.check_inverse_projection(as_parameters)
    assert capsys.readouterr().out.count("[OK]") == 2


def linear(swap=False, bias=True, frozen=False, no_grad=True, transposed=True, dtype=torch.float32):
    def inverse_projection(components, mean):
        layer = torch.nn.Linear(*(components.shape[::-1] if swap else components.shape), bias=bias).to(dtype)
        with torch.no_grad() if no_grad else torch.enable_grad():
            if not swap:
                layer.weight.copy_(components.T if transposed else components)
            if bias and not swap:
                layer.bias.copy_(mean)
        return layer.requires_grad_(not frozen)
    return inverse_projection


@pytest.mark.parametrize("fn, says", [
    (linear(swap=True), r"your Linear maps 10 → 4 numbers: the projection goes from the student's width up"),
    (linear(bias=False), "your Linear has no bias"),
    (linear(frozen=True), "the projection is frozen"),
    (linear(no_grad=False), r"inside `with torch.no_grad\(\):`"),
    (linear(transposed=False), "the weight is its transpose"),
    (linear(dtype=torch.float64), "holds torch.float64 numbers, not float32"),
    (lambda components, mean: components.T, "not an nn.Linear"),
    (solution("inverse_projection", stub=True), "not done yet"),
], ids=["Linear(H, width)", "no bias", "frozen", "no no_grad", "not transposed", "float64", "a tensor", "stub"])
def test_inverse_projection_mistakes_are_named(fn, says):
    with pytest.raises(ExerciseError, match=says):
        nb14.check_inverse_projection(fn)


@pytest.fixture(scope="module")
def wide_table():
    g = torch.Generator().manual_seed(7)
    rotation = torch.linalg.qr(torch.randn(384, 384, generator=g))[0]
    return torch.randn(3000, 384, generator=g) * torch.linspace(2.0, 0.05, 384) @ rotation + 0.5


def test_the_notebooks_pca_start_passes_and_one_wrong_at_its_size_is_named(wide_table, capsys):
    reduced, components, mean = (torch.as_tensor(x).float() for x in solution("pca_word_pieces")(wide_table, 64))
    reduced, components = distillation.sign_fixed(reduced, components)
    layer = solution("inverse_projection")(components, mean)
    nb14.check_pca_start(wide_table, 64, reduced, components, mean, layer)
    assert "[OK] your PCA start on the teacher's table (3,000 × 384) at width 64" in capsys.readouterr().out
    low_rank = torch.pca_lowrank(wide_table, q=64, center=True, niter=1)[2].T   # an approximate SVD
    with pytest.raises(ExerciseError, match="not the table's first principal directions"):
        nb14.check_pca_start(wide_table, 64, (wide_table - mean) @ low_rank.T, low_rank, mean, layer)
    with pytest.raises(ExerciseError, match="reduced is not the table projected"):
        nb14.check_pca_start(wide_table, 64, reduced + 1e-2, components, mean, layer)


# ----------------------------------------------------------------------------- train_distillation and the run
def distil(leave_out=(), data_instead=None):
    """train_distillation as the notebook writes it, or with one slip (a setting left out, other data)."""
    fn = solution("train_distillation")
    if not leave_out and data_instead is None:
        return fn

    def train_distillation(start, data, recipe):
        objective = Distillation(copy.deepcopy(start))
        examples = prepare_examples(data if data_instead is None else data_instead, objective)
        t0 = time.perf_counter()
        settings = {k: getattr(recipe, k) for k in ("epochs", "batch_size", "lr", "warmup_ratio", "max_grad_norm",
                                                    "seed", "length_grouping") if k not in leave_out}
        return objective, train_loop(objective, examples, **settings), time.perf_counter() - t0
    return train_distillation


def test_the_notebooks_run_and_function_pass_and_only_a_checked_run_is_saved(student, teacher_data, capsys):
    start = copy.deepcopy(student)
    before, run = nb14.fingerprint(start), distil()(start, teacher_data, RECIPE)
    with pytest.raises(ExerciseError, match="has not passed its check"):
        nb14.checked(run)
    nb14.check_distillation_run(distil(), run, start, before, teacher_data, RECIPE)
    nb14.check_distillation_run(distil(), None, student, nb14.fingerprint(student), teacher_data, RECIPE)  # loaded
    assert nb14.checked(run) is run and "distill: 3 steps" in capsys.readouterr().out


@pytest.mark.parametrize("fn, says", [
    (distil(leave_out=("warmup_ratio",)), "trained with warmup_ratio=0.1, not the warmup_ratio=0.25 it was given"),
    (distil(leave_out=("seed",)), "trained with seed=42, not the seed=7 it was given"),
], ids=["warm-up", "seed"])
def test_a_setting_not_passed_on_is_named(student, teacher_data, fn, says):
    with pytest.raises(ExerciseError, match=says):
        nb14.check_distillation_run(fn, None, student, nb14.fingerprint(student), teacher_data, RECIPE)


def test_the_notebooks_data_or_a_short_run_is_named(student, teacher_data):
    with pytest.raises(ExerciseError, match="trained on the notebook's teacher_data, not on the `data` it was given"):
        nb14.check_distillation_run(distil(data_instead=teacher_data), None, student, nb14.fingerprint(student),
                                    teacher_data, RECIPE)
    start = copy.deepcopy(student)
    before, twice = nb14.fingerprint(start), distil()(start, teacher_data, TrainingArguments(epochs=2, batch_size=8))
    with pytest.raises(ExerciseError, match=r"returned 6 step losses; the recipe is 1 epoch\(s\) of 3 batches"):
        nb14.check_distillation_run(distil(), twice, start, before, teacher_data, RECIPE)
