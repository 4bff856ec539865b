"""The checks of notebook 05 (regression and two stage): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb05)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.stats import pearsonr, spearmanr
from sbertlib import evaluation, losses as _losses, paper
from sbertlib.workbook.lessons import ExerciseError, nb05, training_runs
from lesson_helpers import not_done, recipe_follower, train_loop, written_as_in_the_notebook


def good_loss(u, v, scores):
    return ((F.cosine_similarity(u, v, dim=1) - scores / 5) ** 2).mean()


def test_nb05_regression_loss_right_answer_passes(capsys):
    nb05.check_regression_loss(good_loss)
    nb05.check_regression_loss(lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / 5.0))
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s), "divide"),
    (lambda u, v, s: ((F.cosine_similarity(u, v) - s / 5) ** 2).sum(), "sum"),
    (lambda u, v, s: torch.sqrt(good_loss(u, v, s)), "RMSE"),
    (lambda u, v, s: F.mse_loss((u * v).sum(dim=1), s / 5), "dot"),
    (lambda u, v, s: F.mse_loss(5 * F.cosine_similarity(u, v), s), "scaled the cosine up"),        # trial 5
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / 4), "not 0 to 4"),
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), (s - s.min()) / (s.max() - s.min())), "lowest and highest"),
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / s.max()), "rescaled the scores by the batch's own highest"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5).abs().mean(), "absolute"),
    (lambda u, v, s: good_loss(u, v, s) / 2, "half the mean squared error"),                      # trial 9
    (lambda u, v, s: ((F.cosine_similarity(u, v) - s / 5) ** 2).sum() / (len(u) - 1), "B − 1"),  # trial 9
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v).clamp(min=0), s / 5), "clamped the cosine at 0"),
    (lambda u, v, s: F.mse_loss(1 - F.cosine_similarity(u, v), s / 5), "1 − cosine"),
    (lambda u, v, s: (F.cosine_similarity(u, v) - s / 5) ** 2, "scalar"),
    (lambda u, v, s: ((F.cosine_similarity(u, v).unsqueeze(1) - s / 5) ** 2).mean(), None),  # (B, B) broadcast
    (lambda u, v, s: good_loss(u, v, s).item(), "tensor"),
    (lambda u, v, s: good_loss(u, v, s).detach(), "detached"),
    (lambda u, v, s: None, None),
    (not_done, "not done"),
])
def test_nb05_regression_loss_wrong_answers_fail(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_loss(wrong)


@pytest.mark.parametrize("wrong", [
    lambda u, v, s: F.mse_loss((u * v).sum(1), s / 5) if u.shape[1] == 128 else good_loss(u, v, s),   # offline's width
    lambda u, v, s: F.mse_loss((u * v).sum(1), s / 5) if u.shape[1] in (64, 384) else good_loss(u, v, s),
    lambda u, v, s: good_loss(u[:16], v[:16], s[:16]) if len(u) == 32 else good_loss(u, v, s),       # a batch of 32
], ids=["dot at width 128", "dot at widths 64 and 384", "first 16 of 32 pairs"])
def test_nb05_a_loss_wrong_only_at_a_profiles_sizes_fails(wrong):
    """The twelfth trial: the hidden batches had none of the profiles' widths (64, 128, 384) nor batch sizes (16, 32)."""
    with pytest.raises(ExerciseError, match="for a batch of (16|32) pairs you returned"):
        nb05.check_regression_loss(wrong)


COUNT = {"calls": 0}


def test_nb05_a_loss_that_changes_with_its_calls_fails(tiny_encoder):
    """The twelfth trial: an objective that counted its steps (self.steps) and changed after 60 passed every check; a
    real run's step 61 trained another model."""
    def counting(u, v, s):
        COUNT["calls"] += 1
        return good_loss(u, v, s)
    with pytest.raises(ExerciseError, match=r"your regression_loss changed COUNT while it ran"):
        nb05.check_regression_loss(counting)
    base = make_objective()

    class Late(base):
        def __init__(self, model):
            super().__init__(model)
            self.steps = 0

        def loss_from_embeddings(self, embeddings, labels):
            self.steps += 1
            return super().loss_from_embeddings(embeddings, labels)
    with pytest.raises(ExerciseError, match=r"your loss_from_embeddings changed self.steps while it ran"):
        nb05.check_regression_objective(Late, tiny_encoder)


def test_nb05_truth_is_the_library_loss():
    from sbertlib.losses import CosineSimilarityLoss
    g = torch.Generator().manual_seed(0)
    u, v = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
    s = torch.tensor([0.0, 2.5, 4.0, 5.0])
    lib = CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], s / 5)
    assert torch.allclose(nb05.regression_loss_truth(u, v, s), lib)


# The eighth trial: losses whose value is right but whose gradient is not, or that are not a scalar.
@pytest.mark.parametrize("wrong, says", [
    (lambda u, v, s: good_loss(u, v, s).detach() + 0 * u.sum(), r"gradient into u is not the loss's \(no gradient"),
    (lambda u, v, s: good_loss(u, v.detach(), s), r"gradient into v is not the loss's \(no gradient reaches it\)"),
    (lambda u, v, s: 0.5 * good_loss(u, v, s) + 0.5 * good_loss(u, v, s).detach(), r"it gets 0.5× the loss's gradient"),
    (lambda u, v, s: F.mse_loss((u * v).sum(1) / (u.norm(dim=1) * v.norm(dim=1)).detach(), s / 5),   # trial 13
     r"gradient into u is not the loss's \(it points elsewhere than the loss's gradient \(cosine"),
    (lambda u, v, s: good_loss(u, v, s).view(1), r"a tensor of shape \(1,\), not a scalar"),
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), s / 5 if s.max() > 1 else s), "divide the gold score by 5"),
    (lambda u, v, s: good_loss(u, v, s) * (2 if len(s) >= 32 else 1), "for a batch of 64 pairs"),   # trial 9
    # the tenth trial's: scores rounded before scaling, the dot product for wide vectors
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v), torch.round(s * 10) / 50), "for a batch of 64 pairs"),
    (lambda u, v, s: F.mse_loss(F.cosine_similarity(u, v) if u.shape[1] <= 128 else (u * v).sum(1), s / 5),
     "for a batch of 64 pairs"),
    (lambda u, v, s: _losses.CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], s / 5),
     "your regression_loss calls the library's CosineSimilarityLoss"),
])
def test_nb05_regression_loss_right_in_value_only_fails(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_loss(wrong)


def make_objective(label_kind="score", score_range=(0.0, 5.0), scale=1.0, loss_fn=good_loss):
    class RegressionObjective(_losses.SBERTLoss):
        def loss_from_embeddings(self, embeddings, labels):
            u, v = embeddings
            return loss_fn(u, v, labels * scale)
    RegressionObjective.label_kind, RegressionObjective.score_range = label_kind, score_range
    return RegressionObjective


@pytest.mark.parametrize("setting, value", [("precision", "int8"), ("max_seq_length", 16), ("normalize", True)])
def test_nb05_an_objective_that_changes_the_encoders_settings_is_named_and_undone(tiny_encoder, setting, value):
    """The eleventh trial: `model.precision = "int8"` in RegressionObjective.__init__ passed exercises 2 and 3."""
    base = make_objective()

    class Changes(base):
        def __init__(self, model):
            super().__init__(model)
            setattr(model, setting, value)
    before = getattr(tiny_encoder, setting)
    with pytest.raises(ExerciseError, match=f"RegressionObjective\\(model\\) changed the model's settings \\({setting} "):
        nb05.check_regression_objective(Changes, tiny_encoder)
    assert getattr(tiny_encoder, setting) == before   # the notebook's encoder, put back


def test_nb05_an_objective_that_sets_its_kind_in_init_passes(tiny_encoder, capsys):
    """The thirteenth trial: label_kind and score_range set in __init__ (training reads the instance) got
    "label_kind is None"."""
    base = make_objective(label_kind=None, score_range=None)

    class InInit(base):
        def __init__(self, model):
            super().__init__(model)
            self.label_kind, self.score_range = "score", (0.0, 5.0)
    nb05.check_regression_objective(InInit, tiny_encoder)
    assert capsys.readouterr().out.startswith("[OK]")


def test_nb05_regression_objective_right_passes(tiny_encoder, capsys):
    nb05.check_regression_objective(make_objective(), tiny_encoder)
    assert capsys.readouterr().out.startswith("[OK]")
    with pytest.raises(ExerciseError, match="calls the library's CosineSimilarityLoss"):   # the workbook's: the library
        nb05.check_regression_objective(nb05.ReferenceRegressionObjective, tiny_encoder)


@pytest.mark.parametrize("wrong, hint", [
    (make_objective(score_range=(-1.0, 1.0)), "(?s)training refuses STSb's examples.*score_range"),
    (make_objective(label_kind=None), "label_kind is None"),
    (make_objective(score_range=(0.0, 10.0)), r"score_range is \(0, 10\): training would take a score of 10"),  # trial 5
    (make_objective(score_range=(-5.0, 5.0)), r"score_range is \(-5, 5\)"),
    (make_objective(label_kind="class"), "label_kind is 'class'"),
    (make_objective(scale=0.2), "divided by 5 twice"),
    (make_objective(loss_fn=lambda u, v, s: F.mse_loss((u * v).sum(1), s / 5)), "your regression_loss of the two"),
    (_losses.CosineSimilarityLoss, "you passed the library's CosineSimilarityLoss, not your RegressionObjective"),
    (torch.nn.Linear, "subclass of losses.SBERTLoss"),
    # the eighth trial's
    (type("RegressionObjective", (_losses.CosineSimilarityLoss,), dict(label_kind="score", score_range=(0.0, 5.0))),
     "your RegressionObjective extends the library's CosineSimilarityLoss, which already is the loss"),
    (make_objective(score_range=5), r"score_range is 5, not a pair of numbers \(lowest, highest\)"),
    (type("RegressionObjective", (_losses.SBERTLoss,), dict(
        label_kind="score", score_range=(0.0, 5.0),
        loss_from_embeddings=lambda self, e, labels: good_loss(e[0], e[1], labels.div_(5) * 5))),
     "changed its second argument .* in place"),
    (make_objective(loss_fn=lambda u, v, s: good_loss(u, v.detach(), s)), "gradient into v is not the loss's"),
    # the ninth trial's: the library's loss inside, or a loss wrong only at a real batch's size
    (make_objective(loss_fn=lambda u, v, s: _losses.CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings(
        [u, v], s / 5)), "your RegressionObjective calls the library's CosineSimilarityLoss"),
    (make_objective(loss_fn=lambda u, v, s: good_loss(u, v, s) * (2 if len(s) >= 12 else 1)),
     "on a hidden batch of 64 pairs"),
])
def test_nb05_regression_objective_wrong_fails(tiny_encoder, wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_objective(wrong, tiny_encoder)


def _run(start, copy_first=True, steps=4, objective_cls=None):
    import copy
    model = copy.deepcopy(start) if copy_first else start
    objective = (objective_cls or nb05.ReferenceRegressionObjective)(model)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.01)
    return objective, [0.5] * steps, 1.5


def test_nb05_regression_run_right_passes(tiny_encoder):
    before = nb05.fingerprint(tiny_encoder)
    nb05.check_regression_run(_run(tiny_encoder), tiny_encoder, before, epochs=2, batch_size=16, n_examples=20)
    assert nb05.fingerprint(tiny_encoder) == before


@pytest.mark.parametrize("result, hint", [
    (lambda enc: _run(enc, copy_first=False), "training changed the model you started from"),
    (lambda enc: _run(enc, steps=2), "returned 2 step losses; the profile's recipe is 2 epochs of 2 batches = 4"),
    (lambda enc: _run(enc, steps=5), "returned 5 step losses"),
    (lambda enc: _run(enc)[:2], "return three things"),
    (lambda enc: (enc, [0.5] * 4, 1.0), "not the objective you trained"),
])
def test_nb05_regression_run_wrong_fails(tiny_encoder, result, hint):
    import copy
    start = copy.deepcopy(tiny_encoder)
    before = nb05.fingerprint(start)
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_run(result(start), start, before, epochs=2, batch_size=16, n_examples=20)


@pytest.fixture(scope="module")
def stsb_examples():
    from sbertlib import data
    return [(p.sentence1, p.sentence2, p.score) for p in data.load_stsb("train")[:48]]


@pytest.fixture(scope="module")
def recipe():
    from sbertlib.training import TrainingArguments
    return TrainingArguments(epochs=2, batch_size=16, lr=2e-5, length_grouping=True)   # a profile's STSb stage


NOTEBOOK_DATA: list = []   # the notebook's stsb_examples, as a function that ignores its `data` reads it


def regress(**hard_coded):
    """train_regression taking every setting from `recipe` except those ``hard_coded`` (lesson_helpers)."""
    return recipe_follower(nb05.ReferenceRegressionObjective, NOTEBOOK_DATA, **hard_coded)


def test_nb05_regression_runs_name_the_run_and_check_the_function_when_loaded(tiny_encoder, stsb_examples, recipe,
                                                                               capsys):
    import copy
    nb05.check_regression_runs(regress(), {}, tiny_encoder, stsb_examples, recipe)
    assert "loaded (RETRAIN = True trains them again); on the check's 2 recipes of its own" in capsys.readouterr().out
    good, bad = copy.deepcopy(tiny_encoder), copy.deepcopy(tiny_encoder)
    runs = {"stsb": (good, nb05.fingerprint(good), regress()(good, stsb_examples, recipe)),
            "two-stage": (bad, nb05.fingerprint(bad), _run(bad, copy_first=False, steps=6))}
    with pytest.raises(ExerciseError, match="the 'two-stage' run: training changed the model you started from"):
        nb05.check_regression_runs(regress(), runs, tiny_encoder, stsb_examples, recipe)
    del runs["two-stage"]
    nb05.check_regression_runs(regress(), runs, tiny_encoder, stsb_examples, recipe)
    assert "your 1 run(s): the recipe's steps and the library's first losses" in capsys.readouterr().out
    runs["stsb"] = (good, nb05.fingerprint(good), _run(good, steps=6))   # the right step count, not the recipe's run
    with pytest.raises(ExerciseError, match="the 'stsb' run: your run's first 6 losses"):
        nb05.check_regression_runs(regress(), runs, tiny_encoder, stsb_examples, recipe)


@pytest.mark.parametrize("hard_coded, hint", [
    (dict(lr=2e-5), r"the run with lr=2e-05, not the recipe's lr=0.0037: your function does not pass recipe.lr"),
    (dict(max_grad_norm=1.0), r"another clipping .* does not pass recipe.max_grad_norm"),
    (dict(data="notebook"), "trained on the notebook's stsb_examples, not on the `data` passed in"),
    pytest.param(dict(length_grouping=True), r"length_grouping=True", marks=pytest.mark.slow),
    pytest.param(dict(seed=42), r"seed=42, not the recipe's seed=7", marks=pytest.mark.slow),
], ids=lambda v: str(v)[:30])
def test_nb05_train_regression_that_hard_codes_a_setting_is_named(runs_only, tiny_encoder, stsb_examples, recipe, hard_coded,
                                                                  hint):
    """Issue 29: the check counted steps only, so a run at another learning rate or clipping passed."""
    NOTEBOOK_DATA[:] = stsb_examples
    with pytest.raises(ExerciseError, match=hint):
        nb05.check_regression_runs(regress(**hard_coded), {}, tiny_encoder, stsb_examples, recipe)


def test_nb05_train_regression_that_clamps_a_setting_is_named(tiny_encoder, stsb_examples, recipe):
    """The seventh trial: `max(recipe.max_grad_norm, 1.1)` trained the same run on every recipe it met, and passed.
    The check reads what reaches the loop; the right function, written the same way, passes."""
    fn, _ = written_as_in_the_notebook(nb05.ReferenceRegressionObjective,
                                       max_grad_norm="max(recipe.max_grad_norm, 1.1)")
    with pytest.raises(ExerciseError, match="passed max_grad_norm=1.1 where the recipe says 1e-09 to fit_loop"):
        nb05.check_regression_runs(fn, {}, tiny_encoder, stsb_examples, recipe)
    right, _ = written_as_in_the_notebook(nb05.ReferenceRegressionObjective)
    nb05.check_regression_runs(right, {}, tiny_encoder, stsb_examples, recipe)


def _redrawn(model):
    """A model built anew: ``model``'s architecture with every weight drawn again."""
    import copy
    fresh = copy.deepcopy(model)
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in fresh.parameters():
            p.copy_(0.02 * torch.randn(p.shape, generator=g))
    return fresh


def test_nb05_train_regression_that_trains_another_model_than_start_is_named(tiny_encoder, stsb_examples, recipe):
    """The tenth trial: a model built anew in place of a copy of `start` was refused for something else. The check
    passes a start of its own and reads which model reaches the loop: one built anew, or the notebook's own start."""
    built_anew = lambda start, data, recipe: regress()(_redrawn(start), data, recipe)              # noqa: E731
    notebook_start = lambda start, data, recipe: regress()(tiny_encoder, data, recipe)            # noqa: E731
    for fn in (built_anew, notebook_start):
        with pytest.raises(ExerciseError, match="gave fit_loop a model whose weights are not those of the `start` "
                                                "passed in"):
            nb05.check_regression_runs(fn, {}, tiny_encoder, stsb_examples, recipe)


@pytest.mark.parametrize("fn, says", [
    (lambda start, data, recipe: regress()(start, [(a, b, s / 5) for a, b, s in data], recipe),
     r"example 0 changed: its label [\d.]+ where `data` holds [\d.]+"),
    (lambda start, data, recipe: regress()(start, data[::-1], recipe), "in another order"),
    (lambda start, data, recipe: regress()(start, list(dict.fromkeys(data)), recipe),
     "gave fit_loop 51 examples where `data` holds 25000"),   # a no-op on data without duplicates (trial 10)
], ids=["scores scaled first", "reversed", "deduplicated"])
def test_nb05_data_changed_before_the_loop_is_named(tiny_encoder, stsb_examples, recipe, fn, says):
    """The tenth trial: data reversed or relabelled before the loop got the general hint of a run that differs; data
    deduplicated passed wherever it held no duplicate."""
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_runs(fn, {}, tiny_encoder, stsb_examples, recipe)


@pytest.mark.parametrize("setting, value", [("max_seq_length", 8), ("pooling", "cls"), ("normalize", True),
                                            ("precision", "int8")])
def test_nb05_a_model_set_to_encode_otherwise_after_training_is_refused(tiny_encoder, stsb_examples, recipe, setting,
                                                                        value):
    """The eleventh trial: `objective.model.pooling = "cls"` after the loop passed; Table 2 evaluates it so (smoke's
    STSb-only model: 44.42 → 38.00), and the run saves it."""
    def after(start, data, recipe):
        objective, step_losses, seconds = regress()(start, data, recipe)
        setattr(objective.model, setting, value)
        return objective, step_losses, seconds
    with pytest.raises(ExerciseError, match=f"the trained model's settings are not its start's \\({setting} "):
        nb05.check_regression_runs(after, {}, tiny_encoder, stsb_examples, recipe)


def test_nb05_a_function_that_reads_the_loops_signature_passes(tiny_encoder, stsb_examples, recipe, capsys):
    """The eleventh trial: settings picked by the loop's own parameter names (inspect.signature) were refused with
    "'TrainingArguments' object has no attribute 'a'": the check's stand-in had a signature of its own."""
    import copy
    import inspect
    import time
    from sbertlib.training import prepare_examples
    namespace = {"train_loop": train_loop, "copy": copy, "time": time, "inspect": inspect,
                 "prepare_examples": prepare_examples, "RegressionObjective": nb05.ReferenceRegressionObjective}
    exec("""
def train_regression(start, data, recipe):
    objective = RegressionObjective(copy.deepcopy(start))
    examples = prepare_examples(data, objective)
    names = list(inspect.signature(train_loop).parameters)[2:]
    t0 = time.perf_counter()
    step_losses = train_loop(objective, examples, **{n: getattr(recipe, n) for n in names})
    return objective, step_losses, time.perf_counter() - t0
""", namespace)
    nb05.check_regression_runs(namespace["train_regression"], {}, tiny_encoder, stsb_examples, recipe)
    assert "[OK]" in capsys.readouterr().out


def test_nb05_only_a_run_its_check_passed_can_be_saved(tiny_encoder, stsb_examples, recipe):
    """The twelfth trial: a run the check refused was saved anyway (the next cell), the function fixed, and the saved
    run then loaded under an [OK]. The save cell takes the run through checks.checked."""
    import copy
    good = copy.deepcopy(tiny_encoder)
    wrong = regress(lr=1e-3)(good, stsb_examples, recipe)
    with pytest.raises(ExerciseError):
        nb05.check_regression_runs(regress(lr=1e-3), {"stsb": (good, nb05.fingerprint(good), wrong)}, tiny_encoder,
                                   stsb_examples, recipe)
    with pytest.raises(ExerciseError, match="this run has not passed its check, so it is not saved"):
        nb05.checked(wrong)
    right = regress()(good, stsb_examples, recipe)
    nb05.check_regression_runs(regress(), {"stsb": (good, nb05.fingerprint(good), right)}, tiny_encoder,
                               stsb_examples, recipe)
    assert nb05.checked(right) is right


def test_nb05_a_start_trained_by_an_earlier_attempt_is_named_with_how_to_rebuild_it(tiny_encoder, stsb_examples,
                                                                                    recipe):
    """The twelfth trial: after a refused no-copy run, the fixed function passed, its start already trained (the
    fingerprint was taken just before the run). The notebook now takes it where the start is built."""
    import copy
    start = copy.deepcopy(tiny_encoder)
    built = nb05.fingerprint(start)
    regress()(start, stsb_examples, recipe)                       # the first attempt trained `start` itself ...
    trained = regress()(start, stsb_examples, recipe)[0].model   # ... as the no-copy function does
    start.load_state_dict(trained.state_dict())
    again = regress()(start, stsb_examples, recipe)               # the fixed function, run on the trained start
    with pytest.raises(ExerciseError, match="(?s)training changed the model you started from.*build it again first"):
        nb05.check_regression_runs(regress(), {"stsb": (start, built, again)}, tiny_encoder, stsb_examples, recipe)


def _after_the_loop(change):
    """train_regression, right up to its loop's return, then ``change(objective, step_losses, recipe)`` — done only for
    the notebook's recipe (2 epochs), which no recipe of the check's own has (trial 13)."""
    def train(start, data, recipe):
        objective, step_losses, seconds = regress()(start, data, recipe)
        if recipe.epochs == 2 and recipe.batch_size == 16:
            step_losses = change(objective, step_losses, recipe) or step_losses
        return objective, step_losses, seconds
    return train


def _halve(objective, step_losses, recipe):
    with torch.no_grad():
        for p in objective.model.parameters():
            p.mul_(0.5)


@pytest.mark.parametrize("change, says", [
    (_halve, "changed the model after its loop returned"),
    (lambda objective, step_losses, recipe: train_loop(objective, _as_examples(objective), epochs=1, batch_size=16,
                                                         lr=1e-3),
     "called `train_loop` a second time"),
    (lambda objective, step_losses, recipe: [round(x, 2) for x in step_losses], "returned other losses than its loop's"),
], ids=["weights halved", "one more epoch", "losses rounded"])
def test_nb05_what_the_function_does_after_its_loop_is_named(tiny_encoder, stsb_examples, recipe, change, says):
    """The thirteenth trial: weights halved after the loop, only for the real recipe, passed: the notebook's run was
    compared on its first losses only. The check now runs the function on the notebook's call with its loop standing in
    (training nothing) and reads what the function does after it."""
    NOTEBOOK_DATA[:] = stsb_examples
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_runs(_after_the_loop(change), {}, tiny_encoder, stsb_examples, recipe)


def _as_examples(objective):
    from sbertlib.training import prepare_examples
    return prepare_examples(NOTEBOOK_DATA, objective)


def test_nb05_a_run_changed_after_its_check_is_not_saved(tiny_encoder, stsb_examples, recipe):
    """The thirteenth trial: a checked run trained on, or its losses replaced, before the save cell was saved."""
    import copy
    good = copy.deepcopy(tiny_encoder)
    run = regress()(good, stsb_examples, recipe)
    nb05.check_regression_runs(regress(), {"stsb": (good, nb05.fingerprint(good), run)}, tiny_encoder, stsb_examples,
                               recipe)
    assert nb05.checked(run) is run
    _halve(run[0], run[1], recipe)
    with pytest.raises(ExerciseError, match="this run changed after its check passed"):
        nb05.checked(run)
    zeroed = (run[0], [0.0] * len(run[1]), run[2])
    with pytest.raises(ExerciseError, match="this run changed after its check passed|has not passed its check"):
        nb05.checked(zeroed)


def test_nb05_data_filtered_by_a_feature_only_the_real_data_has_is_named(tiny_encoder, stsb_examples, recipe):
    """The fourteenth trial: pairs with a non-ASCII character dropped before the loop passed on smoke, whose pairs have
    none (offline's STSb train has 71). The check's largest recipe holds such a pair (and two texts the same, a text of
    300 words), and its examples repeat the notebook's, so the function is refused either way."""
    def ascii_only(start, data, recipe):
        return regress()(start, [d for d in data if (d[0] + d[1]).isascii()], recipe)
    with pytest.raises(ExerciseError, match=r"gave fit_loop \d+ examples where `data` holds \d+"):
        nb05.check_regression_runs(ascii_only, {}, tiny_encoder, stsb_examples, recipe)   # the check's own examples
    with_accent = stsb_examples + [("A café is open.", "The café is open today.", 4.2)]
    with pytest.raises(ExerciseError, match=r"gave fit_loop \d+ examples where `data` holds \d+"):
        nb05.check_regression_runs(ascii_only, {}, tiny_encoder, with_accent, recipe)


@pytest.mark.parametrize("keep", [
    lambda a, b: a != b,                                   # two sentences the same
    lambda a, b: len(a) <= 200 and len(b) <= 200,          # long sentences
    lambda a, b: len(a.split()) <= 40,                     # many words
], ids=["identical pairs", "over 200 characters", "over 40 words"])
def test_nb05_pairs_dropped_by_a_feature_smokes_data_lacks_are_named(tiny_encoder, stsb_examples, recipe, keep):
    """The fourteenth trial's other filters, accepted on smoke and each dropping pairs of offline's STSb train."""
    def filtered(start, data, recipe):
        return regress()(start, [d for d in data if keep(d[0], d[1])], recipe)
    with pytest.raises(ExerciseError, match=r"gave fit_loop \d+ examples where `data` holds \d+"):
        nb05.check_regression_runs(filtered, {}, tiny_encoder, stsb_examples, recipe)


def test_nb05_a_run_the_notebook_saves_is_where_trained_model_looks(tiny_encoder, tmp_path, monkeypatch):
    """05 trains with the student's loop and saves with runs.save_run: later notebooks' trained_model loads it,
    with its record, and nothing of an earlier run in that folder stays beside it."""
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import get_profile
    monkeypatch.setenv("SBERTLIB_OUTPUT_DIR", str(tmp_path))
    smoke = get_profile("smoke")
    stale = runs.model_dir(smoke, "stsb") / "checkpoint"
    stale.mkdir(parents=True)
    (stale / "state.pt").write_text("an interrupted fit run")
    objective, step_losses, seconds = _run(tiny_encoder)
    recipe = {"lr": smoke.stsb.lr, "epochs": smoke.stsb.epochs, "batch_size": smoke.stsb.batch_size}  # as 05 passes them
    runs.save_run(smoke, "stsb", objective, step_losses, seconds, trained_by="notebook 05: your train_loop", **recipe)
    assert runs.is_trained(smoke, "stsb") and not stale.exists()
    model, history = runs.trained_model(smoke, "stsb")
    assert history.losses == step_losses and history.loss == "ReferenceRegressionObjective"
    assert history.settings == {"trained_by": "notebook 05: your train_loop", **recipe}
    probe = ["A man plays a guitar."]
    assert np.allclose(model.encode(probe), objective.model.encode(probe), atol=1e-6)
    with pytest.raises(ValueError, match="no training steps"):
        runs.save_run(smoke, "two-stage", objective, [], 1.0, lr=1e-3)


def right(cosines, gold):
    return {"mean |cos − gold/5|": np.mean(np.abs(cosines - gold / 5)),
            "Pearson ×100": 100 * pearsonr(cosines, gold).statistic,
            "Spearman ×100": 100 * spearmanr(cosines, gold).statistic}


def changed(key, value):
    return lambda c, g: {**right(c, g), key: value(c, g)}


def test_right_answers_pass(capsys):
    nb05.check_order_and_scale(right)
    nb05.check_order_and_scale(nb05.order_and_scale_truth)
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (changed("mean |cos − gold/5|", lambda c, g: np.mean(np.abs(c - g))), "not gold"),
    (changed("mean |cos − gold/5|", lambda c, g: np.mean((c - g / 5) ** 2)), "mean squared"),
    (changed("mean |cos − gold/5|", lambda c, g: abs(np.mean(c - g / 5))), "cancel out"),
    (changed("Pearson ×100", lambda c, g: 100 * spearmanr(c, g).statistic), "Pearson correlates the values"),
    (changed("Pearson ×100", lambda c, g: pearsonr(c, g).statistic), "multiply the correlation by 100"),
    (changed("Spearman ×100", lambda c, g: 100 * pearsonr(c, g).statistic), "Spearman correlates the ranks"),
    (changed("Spearman ×100", lambda c, g: spearmanr(c, g).statistic), "multiply the correlation by 100"),
    (changed("Spearman ×100", lambda c, g: 100 * np.corrcoef(np.argsort(c), np.argsort(g))[0, 1]), "rank correlation"),
    # the eighth trial's: accepted while every hidden cosine was positive, correlated positively, 60 pairs
    (lambda c, g: right(np.clip(c, 0, 1), g), r"clipped to \[0, 1\]"),
    (changed("Pearson ×100", lambda c, g: abs(100 * pearsonr(c, g).statistic)), "keep its sign"),
    (lambda c, g: right(c[:100], g[:100]), "first 100 pairs only: use all 250"),
    (lambda c, g: right(c[:1000], g[:1000]), "first 1,000 pairs only: use all 1,379"),          # trial 11
    (lambda c, g: right(c[:5000], g[:5000]), "first 5,000 pairs only: use all 20,000"),
    (lambda c, g: right(c[:1000], g[:1000]) if len(c) == 1379 else right(c, g), "STSb test's size"),
    (lambda c, g: {k: f"{v:.3f}" for k, v in right(c, g).items()}, r"is a str \('"),                 # trial 12
    (lambda c, g: {k: torch.tensor(v) for k, v in right(c, g).items()}, "is a Tensor"),
    (lambda c, g: {**right(c, g), "Spearman ×100": 100 * np.corrcoef(np.argsort(np.argsort(c)), np.argsort(np.argsort(g,
     kind="stable")))[0, 1]} if len(c) > 1000 else right(c, g), "ties get their average rank"),   # trial 12
    (lambda c, g: {k: round(float(v), 2) for k, v in right(c, g).items()}, "rounded to 2 decimal"),
])
def test_usual_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb05.check_order_and_scale(wrong)
    assert "np.mean(np.abs" not in str(err.value)


def test_stub_and_bad_returns():
    def stub(c, g):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb05.check_order_and_scale(stub)
    with pytest.raises(ExerciseError, match="not a dict"):
        nb05.check_order_and_scale(lambda c, g: (1.0, 2.0, 3.0))
    with pytest.raises(ExerciseError, match="lacks the key"):
        nb05.check_order_and_scale(lambda c, g: {"Pearson": 1.0})
    with pytest.raises(ExerciseError, match="function itself"):
        nb05.check_order_and_scale(right(np.array([0.1, 0.5, 0.3]), np.arange(3.0)))


def test_table2_puts_our_rows_in_their_blocks_under_the_papers():
    ours = {"Trained on STS benchmark (STSb)": {"ours: STSb only [offline]": (71.234, 500)},
            "Not trained for STS": {"ours: NLI only [offline]": (60.0, 500)}}
    table = evaluation.table2(ours, paper_rows={"Not trained for STS": ["SBERT-NLI-base"]})
    blocks = list(dict.fromkeys(table.index.get_level_values("block")))
    assert blocks == list(paper.TABLE2)                       # the paper's order, every block
    first = table.loc["Not trained for STS"]
    assert list(first.index) == ["paper: SBERT-NLI-base", "ours: NLI only [offline]"]
    assert first.loc["paper: SBERT-NLI-base", "STSb test Spearman ×100"] == 77.03
    stsb = table.loc["Trained on STS benchmark (STSb)"]
    assert stsb.loc["ours: STSb only [offline]"].tolist() == [71.23, "one seed", 500]
    assert stsb.loc["paper: SBERT-STSb-base", "±"] == "0.19 (10 seeds)"
    assert stsb.loc["paper: SBERT-STSb-base", "test pairs"] == paper.STSB_TEST_PAIRS == 1379
    with pytest.raises(ValueError, match="unknown Table 2 block"):
        evaluation.table2({"Trained on STS": {}})


def _numerics(switch, restore: bool = False):
    """train_regression (right) with a process-wide setting switched on first — and off again before it returns."""
    def train(start, data, recipe):
        switch()
        try:
            return regress()(start, data, recipe)
        finally:
            if restore:
                torch.set_autocast_enabled("cpu", False)
    return train


def _bf16():
    torch.set_autocast_enabled("cpu", True)
    torch.set_autocast_dtype("cpu", torch.bfloat16)


@pytest.mark.parametrize("fn, says", [
    (_numerics(_bf16), r"when its loop started, the process computed otherwise than the recipe: autocast on the CPU "
                       r"on \(bfloat16\)"),
    (_numerics(_bf16, restore=True), "when its loop started, the process computed otherwise"),
], ids=["left on", "switched back after the loop"])
def test_nb05_a_run_under_global_autocast_is_named(tiny_encoder, stsb_examples, recipe, fn, says):
    """The fifteenth trial: `torch.set_autocast_enabled("cpu", True)` in train_regression passed, and cell 20 saved
    bfloat16 runs (smoke, STSb only: last loss 0.2796 against the fp32 run's 0.2321): the check's reference ran
    under the same switch. The settings check reads the process's settings where the loop starts."""
    from sbertlib.workbook.lessons import NUMERICS_DEFAULT, numerics_state
    NOTEBOOK_DATA[:] = stsb_examples
    with pytest.raises(ExerciseError, match=says):
        nb05.check_regression_runs(fn, {}, tiny_encoder, stsb_examples, recipe)
    assert numerics_state() == NUMERICS_DEFAULT


def test_nb05_a_right_run_made_under_autocast_left_on_by_an_earlier_cell_is_refused(tiny_encoder, stsb_examples,
                                                                                      recipe):
    import copy
    from sbertlib.workbook.lessons import NUMERICS_DEFAULT, numerics_state
    start = copy.deepcopy(tiny_encoder)
    _bf16()   # "a speed-up cell"
    try:
        run = regress()(start, stsb_examples, recipe)
        with pytest.raises(ExerciseError, match=r"this kernel computes otherwise than a fresh one: autocast on the CPU "
                                                r"is on \(bfloat16\)"):
            nb05.check_regression_runs(regress(), {"stsb": (start, nb05.fingerprint(start), run)}, tiny_encoder,
                                       stsb_examples, recipe)
    finally:
        torch.set_autocast_enabled("cpu", False)
    assert numerics_state() == NUMERICS_DEFAULT


def test_nb05_a_cosine_down_the_batchs_axis_is_named_not_the_keepdims_hint():
    """The fifteenth trial: `F.cosine_similarity(u, v, dim=0)` raised a broadcasting error whose hint said `keepdims`."""
    def down_the_batch(u, v, scores):
        return torch.mean((F.cosine_similarity(u, v, dim=0) - scores / 5) ** 2)
    with pytest.raises(ExerciseError, match="(?s)raised RuntimeError.*your cosine runs down the batch's axis") as caught:
        nb05.check_regression_loss(down_the_batch)
    assert "keepdims" not in str(caught.value) and "dim=1" not in str(caught.value)

    def column_slip(u, v, scores):   # another shape slip keeps the general hint
        return torch.mean((F.cosine_similarity(u, v, dim=1) - scores[:4] / 5) ** 2)
    with pytest.raises(ExerciseError, match="two shapes did not line up"):
        nb05.check_regression_loss(column_slip)


def _copy_changed(change):
    """train_regression (right) whose copy of `start` is changed before the loop by ``change(model)``."""
    import copy

    def train(start, data, recipe):
        model = copy.deepcopy(start)
        change(model)
        return regress()(model, data, recipe)
    return train


def _freeze_embeddings(model):
    for name, p in model.named_parameters():
        if "embeddings" in name:
            p.requires_grad_(False)


@pytest.mark.parametrize("change, says", [
    (_freeze_embeddings, r"trainable every weight → \d+ of \d+ weight tensors frozen"),
    (lambda model: model.apply(lambda m: setattr(m, "p", 0.0) if isinstance(m, torch.nn.Dropout) else None),
     r"dropout \[0\.1\] → \[0\.0\]"),
], ids=["embeddings frozen", "dropout off"])
def test_nb05_a_copy_frozen_or_without_dropout_is_named_at_the_loop(tiny_encoder, stsb_examples, recipe, change, says):
    """The fifteenth trial: frozen embeddings and dropout set to 0 were refused with the hint 'pass every setting the
    recipe holds', which the function did. Which weights train and the dropout rates are now read as settings."""
    NOTEBOOK_DATA[:] = stsb_examples
    with pytest.raises(ExerciseError, match=f"a copy of `start` with its settings changed \\({says}\\)"):
        nb05.check_regression_runs(_copy_changed(change), {}, tiny_encoder, stsb_examples, recipe)


class _LearnedScale(nb05.ReferenceRegressionObjective):
    """Trial 16: STSb's 5 as a learnable number — right before the first step, then trained away from 5."""
    def __init__(self, model):
        super().__init__(model)
        self.scale = torch.nn.Parameter(torch.tensor(5.0))

    def loss_from_embeddings(self, embeddings, labels):
        u, v = embeddings
        return F.mse_loss(F.cosine_similarity(u, v, dim=1), labels.view(-1).to(u.dtype) / self.scale)


def test_nb05_an_objective_with_a_learned_scale_is_named(tiny_encoder, stsb_examples, recipe):
    """The sixteenth trial: the objective's check (one batch, no step) passed it, and `mine.keep` kept it."""
    with pytest.raises(ExerciseError, match=r"your RegressionObjective holds weights of its own \(scale\)"):
        nb05.check_regression_objective(_LearnedScale, tiny_encoder)
    NOTEBOOK_DATA[:] = stsb_examples
    with pytest.raises(ExerciseError, match=r"an objective with weights of its own \(scale\)"):
        nb05.check_regression_runs(recipe_follower(_LearnedScale, NOTEBOOK_DATA), {}, tiny_encoder, stsb_examples,
                                   recipe)


def test_nb05_the_tokenizer_set_otherwise_after_the_loop_is_named(tiny_encoder, stsb_examples, recipe):
    """The sixteenth trial: `objective.model.tokenizer.truncation_side = "left"` after the loop passed, was saved, and
    kept each long sentence's end (smoke's STSb only: 44.42 → 44.69)."""
    NOTEBOOK_DATA[:] = stsb_examples

    def left(objective, step_losses, recipe):
        objective.model.tokenizer.truncation_side = "left"
    with pytest.raises(ExerciseError, match=r"settings are not its start's \(tokenizer: truncation_side 'right' → "
                                            r"'left'\)"):
        nb05.check_regression_runs(_after_the_loop(left), {}, tiny_encoder, stsb_examples, recipe)


def test_nb05_the_tokenizers_text_rules_changed_after_the_loop_are_named(tiny_encoder, stsb_examples, recipe):
    """Trial 16's note: accents stripped or case kept are the tokenizer's backend rules, not its attributes."""
    from tokenizers import normalizers
    NOTEBOOK_DATA[:] = stsb_examples

    def strip_accents(objective, step_losses, recipe):
        objective.model.tokenizer.backend_tokenizer.normalizer = normalizers.BertNormalizer(strip_accents=True)
    with pytest.raises(ExerciseError, match=r"settings are not its start's \(tokenizer's text rules .*"
                                            r"\"strip_accents\":null.* → .*\"strip_accents\":true"):
        nb05.check_regression_runs(_after_the_loop(strip_accents), {}, tiny_encoder, stsb_examples, recipe)


def test_nb05_seconds_from_a_cpu_clock_are_named(tiny_encoder, stsb_examples, recipe):
    """The seventeenth trial: `time.thread_time()` around the loop passed (0.16 s of a 0.2 s call on smoke): it counts
    no moment the process waits. The run-through's stand-in loop waits, using no CPU."""
    import copy
    import time
    from sbertlib.training import prepare_examples
    NOTEBOOK_DATA[:] = stsb_examples

    def cpu_clock(start, data, recipe):
        objective = nb05.ReferenceRegressionObjective(copy.deepcopy(start))
        examples = prepare_examples(data, objective)
        t0 = time.thread_time()
        step_losses = train_loop(objective, examples, epochs=recipe.epochs, batch_size=recipe.batch_size, lr=recipe.lr,
                                 warmup_ratio=recipe.warmup_ratio, max_grad_norm=recipe.max_grad_norm,
                                 seed=recipe.seed, length_grouping=recipe.length_grouping)
        return objective, step_losses, time.thread_time() - t0
    with pytest.raises(ExerciseError, match="(?s)seconds for a loop that took 0.25 s.*not those of the whole loop.*"
                                            "time.thread_time"):
        nb05.check_regression_runs(cpu_clock, {}, tiny_encoder, stsb_examples, recipe)


def test_nb05_the_notebooks_data_and_recipe_must_be_the_profiles(tiny_encoder, shared_data):
    """The eighteenth trial: STSb test pairs appended to `stsb_examples`, the list cut short, its scores replaced by
    STSPair.label (gold / 5), or `profile` rebound with other epochs: each passed, and the run was saved as the
    profile's. Given the notebook's `profile`, the check compares both with the course's own."""
    import dataclasses
    from sbertlib import data
    from sbertlib.workbook import runs
    from sbertlib.workbook.profiles import get_profile
    profile = get_profile("smoke")
    pairs = runs.stsb_train_pairs(profile)
    own = [(p.sentence1, p.sentence2, p.score) for p in pairs]
    training_runs.require_profile_as_defined(profile, profile.stsb, "stsb")
    training_runs.require_notebook_examples(own, own, "stsb_examples")
    test_pair = data.load_stsb("test")[0]
    for changed, says in [(own + [(test_pair.sentence1, test_pair.sentence2, test_pair.score)],
                           f"{len(own) + 1:,} examples, the profile's {len(own):,}"),
                          (own[:56], f"56 examples, the profile's {len(own):,}"),
                          ([(p.sentence1, p.sentence2, p.label) for p in pairs], ".*the first that differs is #0")]:
        with pytest.raises(ExerciseError, match=f"`stsb_examples` is not the notebook's: {says}"):
            nb05.check_regression_runs(regress(), {}, tiny_encoder, changed, profile.stsb, profile)
    rebound = dataclasses.replace(profile, stsb=dataclasses.replace(profile.stsb, epochs=2, lr=5e-4))
    with pytest.raises(ExerciseError, match="`profile` is not the course's 'smoke' profile: its stsb differ"):
        nb05.check_regression_runs(regress(), {}, tiny_encoder, own, rebound.stsb, rebound)
    with pytest.raises(ExerciseError, match="the recipe passed is not profile.stsb"):
        nb05.check_regression_runs(regress(), {}, tiny_encoder, own, profile.nli, profile)


class _CosineByHand(nb05.ReferenceRegressionObjective):
    """Trial 18: the cosine written out, (u·v) / (‖u‖‖v‖) — equal to F.cosine_similarity's to about 1e-6."""
    def loss_from_embeddings(self, embeddings, labels):
        u, v = embeddings
        cos = (u * v).sum(1) / (u.norm(dim=1) * v.norm(dim=1))
        return torch.mean((cos - labels.view(-1).to(u.dtype) / 5) ** 2)


def test_nb05_an_objective_equal_but_for_rounding_trains_a_run_that_passes(tiny_encoder, stsb_examples, recipe,
                                                                            capsys):
    """The eighteenth trial's false refusal: with the hand-written cosine a right train_regression was refused, its
    trained weights 6e-4 from the library's run (AdamW turns rounding in a near-zero gradient into whole steps)."""
    NOTEBOOK_DATA[:] = stsb_examples
    nb05.check_regression_runs(recipe_follower(_CosineByHand, NOTEBOOK_DATA), {}, tiny_encoder, stsb_examples, recipe)
    assert "[OK]" in capsys.readouterr().out
    with pytest.raises(ExerciseError, match="passed max_grad_norm=0.1"):   # a wrong setting still shows
        nb05.check_regression_runs(recipe_follower(_CosineByHand, NOTEBOOK_DATA, max_grad_norm=0.1), {}, tiny_encoder,
                                   stsb_examples, recipe)
