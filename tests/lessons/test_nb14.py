"""The checks of notebook 14 (distillation): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb14)."""
from __future__ import annotations

import copy
import json
import pytest
import torch
import torch.nn.functional as F
from pathlib import Path
from sbertlib import losses
from sbertlib.workbook.lessons import ExerciseError, nb14


NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "14_distillation.ipynb"


def solution(name: str, stub: bool = False):
    """``name`` as notebook 14's solution cell (or its stub) defines it."""
    nb = json.loads(NOTEBOOK.read_text())
    cells = [c for c in nb["cells"] if "solution" in c.get("metadata", {}).get("tags", [])]
    sources = [c["metadata"]["stub"] if stub else "".join(c["source"]) for c in cells]
    found = [s for s in sources if f"def {name}(" in s or f"class {name}(" in s]
    assert len(found) == 1, name
    namespace = {"torch": torch, "F": F, "losses": losses, "copy": copy}
    exec(found[0], namespace)
    return namespace[name]


@pytest.fixture(scope="module")
def student():
    from sbertlib.model.encoder import SentenceEncoder
    encoder = SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
    encoder.projection = torch.nn.Linear(encoder.backbone.config.hidden_size, 24)
    return encoder


def objective(loss_fn, label_kind="vector"):
    class Objective(losses.SBERTLoss):
        n_texts = (1,)

        def loss_from_embeddings(self, embeddings, labels):
            return loss_fn(embeddings[0], labels)
    Objective.label_kind = label_kind
    return Objective


def test_the_notebooks_objective_passes(student, capsys):
    nb14.check_distillation_objective(solution("DistillationObjective"), student)
    assert "[OK]" in capsys.readouterr().out
    nb14.check_distillation_objective(losses.DistillationLoss, student)


def test_the_stub_is_not_done(student):
    with pytest.raises(ExerciseError, match="not done yet"):
        nb14.check_distillation_objective(solution("DistillationObjective", stub=True), student)


@pytest.mark.parametrize("loss_fn, hint", [
    (lambda s, t: ((s - t) ** 2).sum(), r"\*sum\* of the squared differences"),
    (lambda s, t: ((s - t) ** 2).sum(1).mean(), "averages over every number"),
    (lambda s, t: ((s - t) ** 2).mean(1), "not averaged yet"),
    (lambda s, t: (1 - F.cosine_similarity(s, t, dim=1)).mean(), "1 − cosine"),
    (lambda s, t: F.mse_loss(F.normalize(s, dim=1), F.normalize(t, dim=1)), "normalised both vectors"),
    (lambda s, t: F.mse_loss(F.normalize(s, dim=1), t), "normalised the student's vectors but not the teacher's"),
    (lambda s, t: F.mse_loss(s, F.normalize(t, dim=1)), "normalised the teacher's vectors but not the student's"),
    (lambda s, t: torch.sqrt(F.mse_loss(s, t)), "RMSE"),
    (lambda s, t: (s - t).abs().mean(), "mean absolute error"),
    (lambda s, t: torch.tensor(float(F.mse_loss(s, t))), "detached"),
])
def test_usual_mistakes_are_named(student, loss_fn, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb14.check_distillation_objective(objective(loss_fn), student)


def test_wrong_label_kind_is_named(student):
    with pytest.raises(ExerciseError, match="label_kind"):
        nb14.check_distillation_objective(objective(F.mse_loss, label_kind="score"), student)


def test_the_objective_check_refuses_what_is_not_a_class(student):
    with pytest.raises(ExerciseError, match="pass your class itself"):
        nb14.check_distillation_objective(solution("DistillationObjective")(student), student)
    with pytest.raises(ExerciseError, match="pass your class itself"):
        nb14.check_distillation_objective(lambda s, t: F.mse_loss(s, t), student)


def pca(centre=True, use_u=False, last=False, extra=0, columns=False, mean_dim=0, project_raw=False, transpose=False):
    def fn(table, width):
        mean = table.mean(dim=mean_dim)
        centred = table - table.mean(dim=0) if centre else table
        u, s, vh = torch.linalg.svd(centred, full_matrices=False)
        if columns:
            comps = vh[:, :width].T
        elif last:
            comps = vh[-width:]
        else:
            comps = vh[:width + extra]
        reduced = u[:, :width] if use_u else (table if project_raw else table - table.mean(dim=0)) @ comps.T
        return reduced, (comps.T if transpose else comps), mean
    return fn


def test_the_notebooks_pca_passes_and_equals_the_librarys(capsys):
    fn = solution("pca_word_pieces")
    nb14.check_pca_word_pieces(fn)
    assert "[OK]" in capsys.readouterr().out
    table = torch.randn(30, 8) + 3
    for got, want in zip(fn(table, 5), nb14.pca_truth(table, 5)):
        assert got.shape == want.shape


def test_a_flipped_direction_still_passes():
    def flipped(table, width):
        reduced, comps, mean = pca()(table, width)
        return -reduced, -comps, mean
    nb14.check_pca_word_pieces(flipped)


def test_the_pca_stub_is_not_done():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb14.check_pca_word_pieces(solution("pca_word_pieces", stub=True))


@pytest.mark.parametrize("fn, hint", [
    (pca(centre=False), "not centred"),
    (pca(use_u=True), "U of the SVD"),
    (pca(last=True), "last directions"),
    (pca(columns=True), "columns of Vh"),
    (pca(extra=1), "directions, not width"),
    (pca(transpose=True), "one direction per row"),
    (pca(mean_dim=1), "average the table over its rows"),
    (pca(project_raw=True), "projected: not centred"),
    (lambda table, width: pca()(table, width)[:2], "return three things"),
    # issue 29: these got a shape message that did not say the three were swapped
    (lambda table, width: tuple(pca()(table, width)[i] for i in (1, 0, 2)), "another order: components, reduced, mean"),
    (lambda table, width: tuple(pca()(table, width)[::-1]), "another order: mean, components, reduced"),
])
def test_pca_mistakes_are_named(fn, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb14.check_pca_word_pieces(fn)


def test_the_pca_check_refuses_a_non_function():
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb14.check_pca_word_pieces(pca()(torch.randn(10, 4), 2))


def projection(swap=False, no_bias=False, zero_bias=False, random_weight=False, plain_components=False, frozen=False):
    def fn(components, mean):
        width, hidden = components.shape
        lin = torch.nn.Linear(hidden, width) if swap else torch.nn.Linear(width, hidden, bias=not no_bias)
        with torch.no_grad():
            if not swap and not random_weight:
                lin.weight.copy_(components if plain_components else components.T)
            if lin.bias is not None and not swap:
                lin.bias.copy_(torch.zeros_like(mean) if zero_bias else mean)
        if frozen:
            lin.requires_grad_(False)
        return lin
    return fn


def test_the_notebooks_projection_passes(capsys):
    nb14.check_inverse_projection(solution("inverse_projection"))
    assert "[OK]" in capsys.readouterr().out


def test_the_projection_stub_is_not_done():
    with pytest.raises(ExerciseError, match="not done yet"):
        nb14.check_inverse_projection(solution("inverse_projection", stub=True))


@pytest.mark.parametrize("fn, hint", [
    (projection(swap=True), "from the student's width"),
    (projection(no_bias=True), "has no bias"),
    (projection(zero_bias=True), "bias is not the mean word piece"),
    (projection(random_weight=True), "weight is not the inverse"),
    (projection(frozen=True), "frozen"),
    (lambda components, mean: components.T, "not an nn.Linear"),
    # issue 29: torch's size mismatch came bare; with a weight transposed the wrong way it now says so
    (lambda components, mean: torch.nn.Linear(components.shape[0], components.shape[1]).weight.data.copy_(components),
     r"a Linear's weight has shape \(out_features, in_features\)"),
])
def test_projection_mistakes_are_named(fn, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb14.check_inverse_projection(fn)


def test_the_projection_check_refuses_a_non_function():
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb14.check_inverse_projection(torch.nn.Linear(2, 3))


def run_of(student, steps=4, train=True, same=False):
    model = student if same else copy.deepcopy(student)
    if train:
        with torch.no_grad():
            next(model.parameters()).add_(0.01)
    return losses.DistillationLoss(model), [0.5 - 0.01 * k for k in range(steps)], 1.5


def test_a_right_run_passes(student, capsys):
    before = nb14.fingerprint(student)
    nb14.check_distillation_run(run_of(student), student, before, epochs=2, batch_size=10, n_examples=20)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs, hint", [
    (dict(steps=3), "the loop ran 3 steps"),
    (dict(train=False), "nothing was trained"),
    (dict(same=True), "changed the student you started from"),
])
def test_run_mistakes_are_named(student, kwargs, hint):
    start = copy.deepcopy(student)
    before = nb14.fingerprint(start)
    with pytest.raises(ExerciseError, match=hint):
        nb14.check_distillation_run(run_of(start, **kwargs), start, before, epochs=2, batch_size=10, n_examples=20)


def test_a_loaded_run_is_not_checked(student, capsys):
    nb14.check_distillation_run(None, student, nb14.fingerprint(student), 1, 10, 20)
    assert "[OK]" not in capsys.readouterr().out


def test_a_run_that_is_not_three_things_is_refused(student):
    with pytest.raises(ExerciseError, match="return three things"):
        nb14.check_distillation_run([0.5, 0.4], student, nb14.fingerprint(student), 1, 10, 20)


@pytest.fixture(scope="module")
def recipe_world(student):
    from sbertlib.training import TrainingArguments
    gen = torch.Generator().manual_seed(0)
    sentences = [("a " * (k % 7 + 1) + f"sentence {k}").strip() for k in range(48)]
    teacher_data = [(s, torch.randn(24, generator=gen).tolist()) for s in sentences]
    recipe = TrainingArguments(epochs=1, batch_size=8, lr=1e-3, length_grouping=True)
    return teacher_data, recipe


def loop_run(start, teacher_data, **settings):
    """A run of the student's loop (notebook 03's, as the library runs it) with ``settings``."""
    from sbertlib.training import prepare_examples
    from sbertlib.workbook.lessons.nb03 import fit_loop
    objective = losses.DistillationLoss(copy.deepcopy(start))
    step_losses = fit_loop(objective, prepare_examples(teacher_data, objective), **settings)
    return objective, step_losses, 1.0


def test_a_run_that_follows_the_recipe_passes(student, recipe_world, capsys):
    teacher_data, recipe = recipe_world
    result = loop_run(student, teacher_data, epochs=1, batch_size=8, lr=1e-3, length_grouping=True)
    nb14.check_distillation_run(result, student, nb14.fingerprint(student), 1, 8, len(teacher_data), teacher_data, recipe)
    assert "its first 6 losses are the recipe's" in capsys.readouterr().out


@pytest.mark.parametrize("settings, hint", [
    (dict(lr=2e-5, length_grouping=True), "the learning rate"),        # the loop's default rate: passed before
    (dict(lr=1e-3, length_grouping=False), "your batches are not the recipe's"),
])
def test_a_run_off_the_recipe_is_refused_though_its_step_count_is_right(student, recipe_world, settings, hint):
    teacher_data, recipe = recipe_world
    result = loop_run(student, teacher_data, epochs=1, batch_size=8, **settings)
    assert len(result[1]) == 6  # the right number of steps
    with pytest.raises(ExerciseError, match=hint):
        nb14.check_distillation_run(result, student, nb14.fingerprint(student), 1, 8, len(teacher_data),
                                    teacher_data, recipe)


def test_no_hint_of_the_objective_check_names_the_one_line_answer(student):
    """Issue 29: the per-sentence-sum hint named F.mse_loss, an answer that passes verbatim."""
    for loss_fn in (lambda s, t: ((s - t) ** 2).sum(1).mean(), lambda s, t: (s * 0).sum() + 123.0):
        with pytest.raises(ExerciseError) as err:
            nb14.check_distillation_objective(objective(loss_fn), student)
        assert "mse_loss" not in str(err.value) and "MSELoss" not in str(err.value)


@pytest.mark.parametrize("fn, check", [(f, "pca") for f in (pca(centre=False), pca(use_u=True), pca(last=True),
                                                             pca(columns=True), pca(project_raw=True), pca(transpose=True))]
                         + [(f, "projection") for f in (projection(zero_bias=True), projection(random_weight=True),
                                                        projection(plain_components=True))])
def test_no_hint_of_exercises_2_and_3_writes_the_formula(fn, check):
    """Issue 29: the hints repeated the formula (`(table − mean) @ components.T`, `weight = components.T`,
    `bias = mean`, `Vh[:width]`), an answer to copy."""
    with pytest.raises(ExerciseError) as err:
        (nb14.check_pca_word_pieces if check == "pca" else nb14.check_inverse_projection)(fn)
    hint = str(err.value).split("Hint:", 1)[-1]
    for formula in ("components.T", "@ components", "bias = mean", "Vh[:", "weight = "):
        assert formula not in hint, (formula, hint)


@pytest.mark.parametrize("settings", [dict(lr=5.0), dict(lr=2e-5)], ids=["lr 5.0", "the loop's default lr"])
def test_a_short_run_at_another_learning_rate_is_refused_by_its_weights(student, recipe_world, settings):
    """The trial of 2026-11-27: on smoke the run has 2 steps, the first at the warm-up's learning rate 0, so both
    losses were the recipe's whatever the rate; the trained weights tell."""
    teacher_data, recipe = recipe_world
    short = teacher_data[:16]   # 2 batches of 8: 2 steps, as on smoke
    result = loop_run(student, short, epochs=1, batch_size=8, length_grouping=True, **settings)
    assert len(result[1]) == 2
    with pytest.raises(ExerciseError, match="trained weights are not"):
        nb14.check_distillation_run(result, student, nb14.fingerprint(student), 1, 8, len(short), short, recipe)
    right = loop_run(student, short, epochs=1, batch_size=8, length_grouping=True, lr=1e-3)
    nb14.check_distillation_run(right, student, nb14.fingerprint(student), 1, 8, len(short), short, recipe)


def test_inverse_projection_that_shares_memory_with_components_is_named():
    def sharing(components, mean):
        lin = torch.nn.Linear(components.shape[0], components.shape[1])
        lin.weight = torch.nn.Parameter(components.T)
        lin.bias = torch.nn.Parameter(mean)
        return lin
    with pytest.raises(ExerciseError, match="shares its memory with `components`"):
        nb14.check_inverse_projection(sharing)


def test_inverse_projection_without_no_grad_is_told_to_use_it():
    def no_no_grad(components, mean):
        lin = torch.nn.Linear(components.shape[0], components.shape[1])
        lin.weight.copy_(components.T)
        lin.bias.copy_(mean)
        return lin
    with pytest.raises(ExerciseError, match="torch.no_grad"):
        nb14.check_inverse_projection(no_no_grad)


def test_an_objective_that_takes_the_list_as_a_tensor_is_told_what_the_list_holds(student):
    class ListAsTensor(losses.SBERTLoss):
        n_texts = (1,)
        label_kind = "vector"

        def loss_from_embeddings(self, embeddings, labels):
            return F.mse_loss(embeddings, labels)   # the list itself, not its one tensor
    with pytest.raises(ExerciseError, match="one tensor per text column"):
        nb14.check_distillation_objective(ListAsTensor, student)


def test_a_run_on_part_of_the_data_or_returning_the_mean_loss_is_named(student, recipe_world):
    """The third trial (2026-11-27): a run on a subset was told 'nothing was trained', a mean loss 'ran None steps'."""
    teacher_data, recipe = recipe_world
    part = loop_run(student, teacher_data[:8], epochs=1, batch_size=8, lr=1e-3, length_grouping=True)
    with pytest.raises(ExerciseError, match="the loop ran 1 steps"):
        nb14.check_distillation_run(part, student, nb14.fingerprint(student), 1, 8, len(teacher_data), teacher_data,
                                    recipe)
    objective_, step_losses, seconds = loop_run(student, teacher_data, epochs=1, batch_size=8, lr=1e-3,
                                                length_grouping=True)
    with pytest.raises(ExerciseError, match="the second thing returned is a float, not the loss of every step"):
        nb14.check_distillation_run((objective_, sum(step_losses) / len(step_losses), seconds), student,
                                    nb14.fingerprint(student), 1, 8, len(teacher_data), teacher_data, recipe)
