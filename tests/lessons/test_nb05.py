"""Notebook 05's checks beyond their declarations (their slips: test_declared.py): right answers written another way,
gradients, score_range, the run check on tiny recipes, the notebook's runs, checks.checked, Table 2, a saved run."""
from __future__ import annotations

import copy
import time

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F
from scipy.stats import pearsonr, spearmanr

from sbertlib import data, evaluation, losses, paper
from sbertlib.training import TrainingArguments, fit, prepare_examples
from sbertlib.workbook.lessons import ExerciseError, nb05

LOOP = ("epochs", "batch_size", "lr", "warmup_ratio", "max_grad_norm", "seed", "length_grouping")
NOTEBOOK_T0 = time.perf_counter()   # the notebook's global `t0` of an earlier cell
RECIPE = TrainingArguments(epochs=1, batch_size=8, lr=1e-3)   # smoke's profile.stsb
good_loss = nb05.regression_loss_truth


def train_loop(loss, examples, *, epochs=1, batch_size=16, lr=2e-5, warmup_ratio=0.1, max_grad_norm=1.0, seed=42,
               length_grouping=False):
    """Notebook 03's loop, as the library runs it."""
    return fit(loss.model, loss, examples, epochs=epochs, batch_size=batch_size, lr=lr, warmup_ratio=warmup_ratio,
               max_grad_norm=max_grad_norm, seed=seed, length_grouping=length_grouping, show_progress_bar=False).losses


def regress(objective=nb05.ReferenceRegressionObjective, data_instead=None, notebook_t0=False, leave_out=(), **fixed):
    """train_regression as the notebook writes it, or with one slip (other data, a setting left out or fixed, `t0`)."""
    def train_regression(start, data, recipe):
        trained = objective(copy.deepcopy(start))
        examples = prepare_examples(data if data_instead is None else data_instead, trained)
        t0 = time.perf_counter()
        step_losses = train_loop(trained, examples, **{**{k: getattr(recipe, k) for k in LOOP if k not in leave_out},
                                                       **fixed})
        return trained, step_losses, time.perf_counter() - (NOTEBOOK_T0 if notebook_t0 else t0)
    return train_regression


@pytest.fixture(scope="module")
def stsb_examples():
    return [(p.sentence1, p.sentence2, p.score) for p in data.load_stsb("train")[:24]]


# ----------------------------------------------------------------------------- regression_loss
def test_regression_loss_written_other_ways_passes(capsys):
    nb05.check_regression_loss(good_loss)
    nb05.check_regression_loss(lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / 5.0))
    nb05.check_regression_loss(lambda u, v, s: good_loss(u.double(), v.double(), s.double()))      # float64
    nb05.check_regression_loss(lambda u, v, s: (((u * v).sum(1) / (u.norm(dim=1) * v.norm(dim=1)) - s / 5) ** 2).mean())
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")   # GPU-tutorial advice in an earlier cell
    try:
        nb05.check_regression_loss(good_loss)
    finally:
        torch.set_float32_matmul_precision(before)
    assert capsys.readouterr().out.count("[OK]") == 5


@pytest.mark.parametrize("wrong, says", [
    (lambda u, v, s: good_loss(u, v, s).item(), "returned a float, not a tensor"),
    (lambda u, v, s: good_loss(u, v, s).detach(), "detached"),
    (lambda u, v, s: good_loss(u, v.detach(), s), r"gradient into v is not the loss's"),
    (lambda u, v, s: 0.5 * good_loss(u, v, s) + 0.5 * good_loss(u, v, s).detach(), r"0.5× the loss's gradient"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5) ** 2, "not a scalar"),
    (lambda u, v, s: good_loss(u, v, s.div_(5) * 5), r"changed its third argument \(a Tensor\) in place"),
    (lambda u, v, s: None, "returned None"),
    (lambda u, v, s: (_ for _ in ()).throw(NotImplementedError), "not done yet"),
], ids=["item", "detached", "v detached", "half detached", "per pair", "in place", "None", "stub"])
def test_regression_loss_mistakes_beyond_the_value_are_named(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_loss(wrong)


# ----------------------------------------------------------------------------- RegressionObjective
def objective(score_range=(0.0, 5.0), label_kind="score", in_init=False):
    class RegressionObjective(losses.SBERTLoss):
        def __init__(self, model):
            super().__init__(model)
            if in_init:   # set on the instance, where training reads them
                self.label_kind, self.score_range = "score", (0.0, 5.0)

        def loss_from_embeddings(self, embeddings, labels):
            return good_loss(*embeddings, labels)
    RegressionObjective.label_kind, RegressionObjective.score_range = label_kind, score_range
    return RegressionObjective


def test_the_objective_passes_with_its_data_kind_set_either_way(tiny_encoder, capsys):
    nb05.check_regression_objective(objective(), tiny_encoder)
    nb05.check_regression_objective(objective(score_range=[0, 5]), tiny_encoder)
    nb05.check_regression_objective(objective(label_kind=None, score_range=None, in_init=True), tiny_encoder)
    assert capsys.readouterr().out.count("[OK]") == 3


@pytest.mark.parametrize("cls, says", [
    (objective(score_range=(-1.0, 1.0)), r"score_range is \(-1.0, 1.0\)"),    # SBERTLoss's default: forgotten
    (objective(score_range=(0.0, 10.0)), r"score_range is \(0.0, 10.0\)"),
    (objective(score_range=5), "score_range is 5"),
    (objective(label_kind="class"), "label_kind is 'class'"),
    (losses.CosineSimilarityLoss, "is \\(or extends\\) the library's CosineSimilarityLoss"),
    (torch.nn.Linear, "pass your class itself, a subclass of losses.SBERTLoss")])
def test_the_objectives_data_kind_and_class_are_named(tiny_encoder, cls, says):
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_objective(cls, tiny_encoder)


# ----------------------------------------------------------------------------- train_regression and the runs
def test_a_right_function_passes_and_its_runs_are_saved_only_once_checked(tiny_encoder, stsb_examples, capsys):
    nb05.check_regression_runs(regress(), {}, tiny_encoder, stsb_examples, RECIPE)   # both runs loaded
    start = copy.deepcopy(tiny_encoder)
    run = regress()(start, stsb_examples, RECIPE)
    with pytest.raises(ExerciseError, match="has not passed its check"):
        nb05.checked(run)
    nb05.check_regression_runs(regress(), {"stsb": (start, nb05.fingerprint(start), run)}, tiny_encoder,
                               stsb_examples, RECIPE)
    assert nb05.checked(run) is run
    assert (out := capsys.readouterr().out).count("[OK] your train_regression trains as the library") == 2, out
    assert "stsb: 3 steps" in out


@pytest.mark.parametrize("fn, says", [
    (regress(leave_out=("lr",)), "trained with lr=2e-05, not the lr=0.0037 it was given"),
    (regress(leave_out=("length_grouping",)), "trained with length_grouping=False, not the length_grouping=True"),
    (regress(leave_out=("max_grad_norm",)), "trained with max_grad_norm=1.0, not the max_grad_norm=0.05"),
    (regress(**{k: getattr(RECIPE, k) for k in LOOP}), "that is the run of profile.stsb, not of the `recipe` passed"),
    (regress(notebook_t0=True), "(?s)seconds for a call of .*not the notebook's `t0`"),
    (lambda start, data, recipe: regress()(start, data[:-1], recipe), "not the library's run of that recipe"),
], ids=["lr", "length_grouping", "clipping", "the notebook's recipe", "the notebook's t0", "an example dropped"])
def test_a_function_that_does_not_train_the_recipe_is_named(tiny_encoder, stsb_examples, fn, says):
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_runs(fn, {}, tiny_encoder, stsb_examples, RECIPE)


def test_a_function_on_the_notebooks_data_or_on_the_start_itself_is_named(tiny_encoder, stsb_examples):
    with pytest.raises(ExerciseError, match="trained on the notebook's stsb_examples, not on the `data` it was given"):
        nb05.check_regression_runs(regress(data_instead=stsb_examples), {}, tiny_encoder, stsb_examples, RECIPE)

    def no_copy(start, data, recipe):
        trained = nb05.ReferenceRegressionObjective(start)
        return trained, train_loop(trained, prepare_examples(data, trained), lr=recipe.lr), 1.0
    with pytest.raises(ExerciseError, match="training changed the model you started from"):
        nb05.check_regression_runs(no_copy, {}, tiny_encoder, stsb_examples, RECIPE)


def test_the_notebooks_runs_are_named_by_their_row(tiny_encoder, stsb_examples):
    start, other = copy.deepcopy(tiny_encoder), copy.deepcopy(tiny_encoder)
    built = nb05.fingerprint(start)
    short = regress()(start, stsb_examples[:16], RECIPE)   # 2 steps where the recipe on 24 pairs is 3
    with pytest.raises(ExerciseError, match=r"the 'stsb' run: your train_regression returned 2 step losses; the recipe "
                                            r"is 1 epoch\(s\) of 3 batches"):
        nb05.check_regression_runs(regress(), {"stsb": (start, built, short), "two-stage": (other, built, short)},
                                   tiny_encoder, stsb_examples, RECIPE)
    trained_start = regress()(start, stsb_examples, RECIPE)[0].model
    start.load_state_dict(trained_start.state_dict())   # an earlier attempt trained `start` itself
    with pytest.raises(ExerciseError, match="training changed the model you started from"):
        nb05.check_regression_runs(regress(), {"stsb": (start, built, regress()(start, stsb_examples, RECIPE))},
                                   tiny_encoder, stsb_examples, RECIPE)


# ----------------------------------------------------------------------------- order and scale
truth = nb05.order_and_scale_truth


def written_with_pandas_and_scipy(cosines, gold):
    table = pd.DataFrame({"cos": cosines, "gold": gold})
    return {"mean |cos − gold/5|": (table.cos - table.gold / 5).abs().mean(),
            "Pearson ×100": 100 * pearsonr(cosines, gold).statistic,
            "Spearman ×100": 100 * table.cos.corr(table.gold, method="spearman")}


def test_order_and_scale_written_other_ways_passes(capsys):
    nb05.check_order_and_scale(written_with_pandas_and_scipy)
    nb05.check_order_and_scale(lambda c, g: {k: np.float32(v) for k, v in truth(c, g).items()})
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, says", [
    (lambda c, g: {k: torch.tensor(v) for k, v in truth(c, g).items()}, "is a Tensor, not a number"),
    (lambda c, g: {k: f"{v:.3f}" for k, v in truth(c, g).items()}, "is a str, not a number"),
    (lambda c, g: (1.0, 2.0, 3.0), "return a dict with the keys"),
    (lambda c, g: {"Pearson": 1.0}, "return a dict with the keys"),
    (lambda c, g: {**truth(c, g), "Spearman ×100": 100 * spearmanr(c[::2], g[::2]).statistic}, "Hint: mean |cos"),
])
def test_order_and_scale_returns_that_are_not_three_numbers_are_named(wrong, says):
    with pytest.raises(ExerciseError, match=says) as refused:
        nb05.check_order_and_scale(wrong)
    assert "expected" not in str(refused.value)


# ----------------------------------------------------------------------------- the library's pieces the notebook shows
def test_table2_puts_our_rows_in_their_blocks_under_the_papers():
    ours = {"Trained on STS benchmark (STSb)": {"ours: STSb only [offline]": (71.234, 500)},
            "Not trained for STS": {"ours: NLI only [offline]": (60.0, 500)}}
    table = evaluation.table2(ours, paper_rows={"Not trained for STS": ["SBERT-NLI-base"]})
    assert list(dict.fromkeys(table.index.get_level_values("block"))) == list(paper.TABLE2)
    assert list(table.loc["Not trained for STS"].index) == ["paper: SBERT-NLI-base", "ours: NLI only [offline]"]
    stsb = table.loc["Trained on STS benchmark (STSb)"]
    assert stsb.loc["ours: STSb only [offline]"].tolist() == [71.23, "one seed", 500]
    assert stsb.loc["paper: SBERT-STSb-base", "±"] == "0.19 (10 seeds)"
    with pytest.raises(ValueError, match="unknown Table 2 block"):
        evaluation.table2({"Trained on STS": {}})


def test_a_run_the_notebook_saves_is_where_trained_model_looks(tiny_encoder, stsb_examples, tmp_path, monkeypatch):
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import get_profile
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    smoke = get_profile("smoke")
    (stale := runs.model_dir(smoke, "stsb") / "checkpoint").mkdir(parents=True)
    objective, step_losses, seconds = regress()(tiny_encoder, stsb_examples, RECIPE)
    runs.save_run(smoke, "stsb", objective, step_losses, seconds, trained_by="notebook 05", lr=RECIPE.lr)
    assert runs.is_trained(smoke, "stsb") and not stale.exists()
    model, history = runs.trained_model(smoke, "stsb")
    assert history.losses == step_losses and history.loss == "ReferenceRegressionObjective"
    assert np.allclose(model.encode(["A guitar."]), objective.model.encode(["A guitar."]), atol=1e-6)
