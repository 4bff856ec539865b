"""Self-checks for ``05_regression_and_two_stage``."""
from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from ... import losses
from . import (guard, Exercise, ExerciseError, _brief, call, library_losses_watched, loss_state_kept, named_slip, ok,
               require, require_gradient, require_own_class, require_own_loss)
from .questions import choice, number
from .training_runs import (check_notebook_run, check_on_recipes, check_settings_passed, checked, fingerprint,
                            mark_checked, passed_as_is, require_no_weights_of_its_own, require_notebook_examples,
                            require_profile_as_defined, run_parts, settings_left_alone)

__all__ = ["checked", "check_regression_loss", "check_regression_objective", "check_regression_run", "fingerprint",
           "regression_loss_truth", "ReferenceRegressionObjective"]

MAX_SCORE = 5.0  # STSb gold scores run from 0 to 5


def regression_loss_truth(u: torch.Tensor, v: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """``CosineSimilarityLoss.loss_from_embeddings([u, v], scores / 5)``: mean of (cos(u, v) − score/5)²."""
    return losses.CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], scores / MAX_SCORE)


def _hidden_batches():
    g = torch.Generator().manual_seed(5)
    # then a real batch, bert-base's width; then the profiles' own batch sizes and widths (16 or 32 pairs; 64, 128,
    # 384, 768 numbers): a step that changes only at one of them shows (trial 12)
    for batch, dim in ((6, 8), (1, 5), (11, 3), (4, 6), (64, 768), (16, 64), (32, 128), (16, 384), (32, 768)):
        u, v = torch.randn(batch, dim, generator=g), torch.randn(batch, dim, generator=g)
        v[0] = 2.5 * u[0] + 0.05 * v[0]  # one near-duplicate pair, with a different vector length
        scores = torch.randint(0, 11, (batch,), generator=g).float() / 2  # 0, 0.5, …, 5
        if batch == 4:
            scores = torch.tensor([0.0, 0.5, 1.0, 0.5])   # a batch of low scores: none above 1 (a guess at the scale fails)
        if batch in (64, 16, 32):
            scores = torch.rand(batch, generator=g) * 5   # any score, as STSb's averaged ratings (3.8, 1.2, …)
        yield u, v, scores


def _hint(got: float, u, v, scores) -> str:
    """The usual slip whose value on this batch is ``got``, in the student's terms, else how to go step by step."""
    cos = F.cosine_similarity(u, v, dim=1)
    dot = (u * v).sum(dim=1)
    gold = scores / MAX_SCORE
    squared = (cos - gold) ** 2
    slips = {
        "you compared with the raw 0–5 score: divide the gold score by 5 first (STSPair.label does)":
            F.mse_loss(cos, scores),
        "that is the *sum* of squared errors: the loss is their mean over the batch": squared.sum(),
        "that divides the sum by B − 1 (a sample variance's correction): the loss is the plain mean over the batch":
            squared.sum() / max(len(u) - 1, 1),
        "that is half the mean squared error: the ½ of some textbook derivations is not part of this loss":
            squared.mean() / 2,
        "that is the square root (RMSE): the loss is the mean squared error itself": torch.sqrt(squared.mean()),
        "you used the dot product u·v; the objective uses the cosine, u·v / (‖u‖‖v‖)": F.mse_loss(dot, gold),
        "that compares 1 − cosine (a distance) with the score: the score is a similarity, compare it with the cosine "
        "itself": F.mse_loss(1 - cos, gold),
        "you clamped the cosine at 0: an unrelated pair's negative cosine is exactly what the loss must push up "
        "towards its target": F.mse_loss(cos.clamp(min=0), gold),
        "that is the mean absolute error: square the differences": (cos - gold).abs().mean(),
        "you scaled the cosine up to the score's 0–5 instead of the score down to the cosine's scale: the loss "
        "compares on the cosine's scale": F.mse_loss(MAX_SCORE * cos, scores),
        "STSb's scores run from 0 to 5, not 0 to 4": F.mse_loss(cos, scores / 4),
        ("you rescaled the scores by the batch's own highest" + (", or its lowest and highest" if float(scores.min())
                                                                 == 0 else "") +
         ": the scale is STSb's, the same for every batch (a batch whose best pair scored 3 would make that pair a "
         "perfect match)"): F.mse_loss(cos, scores / scores.max()),
        "you rescaled the scores by the batch's own lowest and highest: the scale is STSb's, the same for every "
        "batch (a batch of one pair would have no range at all)":
            F.mse_loss(cos, (scores - scores.min()) / (scores.max() - scores.min()).clamp_min(1e-12)),
    }
    return named_slip(got, {h: float(v) for h, v in slips.items()},
                      "go step by step on one pair: its cosine, its target (the gold score on the cosine's scale), the "
                      "squared difference; then the same for the whole batch at once, averaged",
                      close=lambda a, b: abs(a - b) < 1e-5)


def _axis_named(error: ExerciseError, regression_loss: Callable) -> ExerciseError:
    """``error``, its hint naming a cosine taken over the batch's axis where that is what the student's loss does:
    on (B, d) embeddings it gives d values, which do not line up with B scores (trial 15: the shapes hint said
    `keepdims`). Shown on a square batch (B = d), where the shapes do line up."""
    if "two shapes did not line up" not in str(error):
        return error
    g = torch.Generator().manual_seed(9)
    u, v, scores = torch.randn(5, 5, generator=g), torch.randn(5, 5, generator=g), torch.rand(5, generator=g) * 5
    try:
        got = float(call(regression_loss, u, v, scores))
    except Exception:  # noqa: BLE001 - it fails on this batch too: the general hint stands
        return error
    if abs(got - float(F.mse_loss(F.cosine_similarity(u, v, dim=0), scores / MAX_SCORE))) > 1e-6:
        return error
    return ExerciseError(str(error).split("\nHint:")[0] + "\nHint: your cosine runs down the batch's axis: with (B, d) "
                         "embeddings it gives one value per embedding number, d of them, not one per pair, B of them — "
                         "the axis you pass to a cosine is the one it sums over")


def check_regression_loss(regression_loss: Callable) -> None:
    """Check ``regression_loss(u, v, scores) -> scalar tensor`` on hidden batches.

    ``u, v``: ``(B, n)`` embeddings; ``scores``: ``(B,)`` gold scores on STSb's 0–5 scale. The truth is
    :class:`sbertlib.losses.CosineSimilarityLoss` on ``scores / 5``. The result must be a
    differentiable scalar tensor (a loss that training can back-propagate through).
    """
    require(callable(regression_loss), f"pass your function itself, not {type(regression_loss).__name__}",
            "check_regression_loss(regression_loss) — no parentheses after the name")
    for u, v, scores in _hidden_batches():
        ug, vg = u.clone().requires_grad_(True), v.clone().requires_grad_(True)
        try:
            with library_losses_watched() as used, loss_state_kept(regression_loss, "your regression_loss"):
                got = call(regression_loss, ug, vg, scores.clone())
        except ExerciseError as error:
            raise _axis_named(error, regression_loss) from None
        require_own_loss(used, "regression_loss")
        require(got is not None and got is not NotImplemented and got is not Ellipsis,
                f"your function returned {got!r}", "return the loss: a scalar tensor")
        require(isinstance(got, torch.Tensor),
                f"your function returned a {type(got).__name__}, not a torch tensor",
                "compute with torch operations and return the tensor (no .item(), no numpy): "
                "training back-propagates through it")
        require(got.numel() == 1, f"for a batch of {len(u)} pairs you returned a tensor of shape "
                f"{tuple(got.shape)}, not a scalar",
                "average the squared errors over the batch (.mean()); if the shape is (B, B), "
                "the gold scores broadcast against a (B, 1) column — keep both (B,)")
        want = float(regression_loss_truth(u, v, scores))
        value = float(got.detach())
        if abs(value - want) > 1e-5:
            raise ExerciseError(f"for a batch of {len(u)} pairs you returned {value:.6f}; "
                                f"CosineSimilarityLoss gives {want:.6f}\nHint: {_hint(value, u, v, scores)}")
        require_gradient(got, {"u": ug, "v": vg}, lambda u, v: regression_loss_truth(u, v, scores),
                         f"for a batch of {len(u)} pairs your loss")
    ok("regression_loss equals CosineSimilarityLoss: mean over the batch of (cos(u, v) − score/5)²")


# ----------------------------------------------------------------------------- the objective and the runs
class ReferenceRegressionObjective(losses.SBERTLoss):
    """The regression objective on examples that carry STSb's 0–5 gold score (``score_range = (0, 5)``):
    :class:`~sbertlib.losses.CosineSimilarityLoss` of ``score / 5`` — what notebook 05's ``RegressionObjective`` is."""

    label_kind = "score"
    score_range = (0.0, MAX_SCORE)

    def loss_from_embeddings(self, embeddings, labels):
        u, v = embeddings
        return regression_loss_truth(u, v, labels.view(-1).to(u.dtype))


def _objective_batch(encoder, seed: int = 5):
    from ...data import STSPair
    g = torch.Generator().manual_seed(seed)
    words = ["a man", "a woman", "two dogs", "the cat", "a child", "the chef", "a guitar", "the river"]
    pick = lambda: " ".join(words[int(i)] for i in torch.randint(0, len(words), (3,), generator=g))  # noqa: E731
    return [STSPair(pick(), pick(), float(s) / 2) for s in torch.randint(0, 11, (7,), generator=g)] + \
        [STSPair("a man plays a guitar", "a man plays a guitar", 5.0)]


def _require_objective_gradient(objective) -> None:
    """The objective's loss_from_embeddings on hidden vectors (leaf tensors): its value and its gradient into u and
    v those of the regression loss, and the labels passed in untouched."""
    mode = objective.model.training
    for u, v, scores in _hidden_batches():
        ug, vg = u.clone().requires_grad_(True), v.clone().requires_grad_(True)
        objective.model.train()
        try:
            with library_losses_watched() as used, loss_state_kept(objective.loss_from_embeddings,
                                                                   "your loss_from_embeddings"):
                got = call(objective.loss_from_embeddings, [ug, vg], scores.clone(), what="your loss_from_embeddings")
        finally:
            training = objective.model.training
            objective.model.train(mode)   # the encoder is the caller's: back to its own mode, whatever happened
        require_own_loss(used, "RegressionObjective")
        require(training, "your loss_from_embeddings switched the model to eval mode",
                "leave the model's mode to the training loop: dropout stays on while it trains")
        want = float(regression_loss_truth(u, v, scores))
        require(isinstance(got, torch.Tensor) and got.numel() == 1 and abs(float(got.detach()) - want) < 1e-5,
                f"on a hidden batch of {len(u)} pairs your loss_from_embeddings gives {_brief(got)}, "
                f"CosineSimilarityLoss of score/5 {want:.5f}",
                "the loss of a batch is your regression_loss of the two columns' embeddings and the batch's labels")
        require_gradient(got, {"u": ug, "v": vg}, lambda u, v: regression_loss_truth(u, v, scores),
                         "your loss_from_embeddings")


def check_regression_objective(cls, encoder) -> None:
    """Check ``RegressionObjective(model)``: a ``losses.SBERTLoss`` whose examples carry STSb's 0–5 gold score
    and whose loss, end to end through ``encoder``, is ``CosineSimilarityLoss`` of ``score / 5``."""
    from ...training import collate, prepare_examples
    require(isinstance(cls, type) and issubclass(cls, losses.SBERTLoss),
            f"pass your class itself, a subclass of losses.SBERTLoss (got {cls!r})",
            "check_regression_objective(RegressionObjective, encoder)")
    try:
        with settings_left_alone(encoder, "RegressionObjective(model)"):
            objective = cls(encoder)
    except NotImplementedError:
        raise ExerciseError("RegressionObjective is not written yet\nHint: fill in the YOUR CODE HERE parts") from None
    require(objective.model is encoder, "the objective's .model is not the encoder it was given",
            "call super().__init__(model) first: SBERTLoss keeps the one encoder as self.model")
    require_no_weights_of_its_own(objective, "RegressionObjective")
    require_own_class(cls, losses.SBERTLoss, "RegressionObjective")
    require(getattr(objective, "label_kind", None) == "score",   # the instance's: training reads it there
            f"label_kind is {getattr(objective, 'label_kind', None)!r}: training reads it to know what each example's "
            "label is", "a regression objective's label is a gold similarity score")
    score_range = getattr(objective, "score_range", None)
    require(isinstance(score_range, (tuple, list)) and len(score_range) == 2
            and all(isinstance(x, (int, float)) for x in score_range),
            f"score_range is {score_range!r}, not a pair of numbers (lowest, highest)",
            "score_range holds the lowest and the highest gold score the objective takes, as a tuple")
    pairs = _objective_batch(encoder)
    data = [(p.sentence1, p.sentence2, p.score) for p in pairs]
    try:
        examples = prepare_examples(data, objective)
    except ValueError as error:
        lo, hi = getattr(objective, "score_range", (None, None))
        if "score" not in str(error):
            raise ExerciseError(f"training refuses STSb's examples: {error}\nHint: n_texts and label_kind say what an "
                                "example holds: two sentences and a gold score") from None
        raise ExerciseError(f"training refuses STSb's examples: a gold score of {max(d[2] for d in data):g} is outside "
                            f"the objective's score_range [{lo:g}, {hi:g}]\nHint: the examples carry STSb's 0–5 "
                            "gold score (your regression_loss divides it by 5): score_range says which scores the "
                            "objective takes") from None
    lo, hi = (float(x) for x in objective.score_range)
    require((lo, hi) == (0.0, MAX_SCORE),
            f"score_range is ({lo:g}, {hi:g}): training would take a score of {hi:g}" if hi > MAX_SCORE or lo < 0 else
            f"score_range is ({lo:g}, {hi:g})",
            "score_range is what training checks each gold score against before the first step: exactly STSb's "
            "scale, so that a score on another scale (a 0–10 file, a cosine) is refused instead of trained on")
    batch = collate(examples, encoder)
    reference = losses.CosineSimilarityLoss(encoder)
    with torch.no_grad():
        try:
            got = objective(batch)
        except NotImplementedError:
            raise ExerciseError("loss_from_embeddings is not written yet\nHint: fill it in") from None
        want = reference(collate(prepare_examples(pairs, reference), encoder))
    require(isinstance(got, torch.Tensor) and got.numel() == 1, f"the objective returned {got!r}",
            "return your regression_loss's value: one scalar tensor")
    if not torch.allclose(got.float(), want.float(), atol=1e-5):
        labels = batch.labels
        with torch.no_grad():
            u, v = (encoder(f) for f in batch.features)
        twice = regression_loss_truth(u, v, labels / MAX_SCORE)
        hint = ("the gold score was divided by 5 twice: the examples carry the 0–5 score and your regression_loss "
                "divides it already" if abs(float(got) - float(twice)) < 1e-5 else
                "the loss of a batch is your regression_loss of the two columns' embeddings and the batch's labels")
        raise ExerciseError(f"on a batch of {len(pairs)} STS pairs your objective gives {float(got):.5f}, "
                            f"CosineSimilarityLoss of score/5 gives {float(want):.5f}\nHint: {hint}")
    _require_objective_gradient(objective)
    ok("RegressionObjective is the regression objective: examples with STSb's 0–5 score, your regression_loss "
       "on the encoder's u and v equals CosineSimilarityLoss")


def _run_parts(result, start, before: tuple[float, ...]):
    """(objective, step_losses) of what ``train_regression`` returned (:func:`run_parts`)."""
    return run_parts(result, start, before, "train_regression", "RegressionObjective",
                     "the table below ('NLI only', 'no fine-tuning')")


def check_regression_run(result, start, before: tuple[float, ...], epochs: int, batch_size: int,
                         n_examples: int) -> None:
    """Check what ``train_regression(start, data, recipe)`` returned — ``(objective, step_losses, seconds)`` —
    after the notebook's run: ``start`` is untouched (``before`` is its :func:`fingerprint` from before), the
    objective holds the trained copy, and the loop ran the recipe's ``epochs × ceil(n_examples / batch_size)``
    steps."""
    import math
    _, step_losses = _run_parts(result, start, before)
    want_steps = epochs * math.ceil(n_examples / batch_size)
    n = len(step_losses)
    require(n == want_steps, f"your function returned {n} step losses; the profile's recipe is {epochs} epoch{'s' if epochs != 1 else ''} of "
            f"{math.ceil(n_examples / batch_size)} batches = {want_steps}",
            "train on every example of `data` with the recipe's epochs and batch_size")


def check_regression_runs(train_regression: Callable, new_runs: dict, start, stsb_examples, recipe,
                          profile=None) -> None:
    """Check ``train_regression(start, data, recipe) -> (objective, step_losses, seconds)``: each run notebook 05
    trained this time (``new_runs``: ``{objective: (its start, its fingerprint before, what train_regression
    returned)}``, empty when both were loaded) with :func:`check_regression_run`; then the function itself on the
    check's own recipes from the untrained ``start`` (:func:`training_runs.check_on_recipes`): every loss and the
    trained weights must be the library's run of the same recipe, and a setting not taken from ``recipe`` is named.
    With the notebook's ``profile``, ``recipe`` and ``stsb_examples`` must be that profile's own (trial 18)."""
    require(callable(train_regression), f"pass your function itself, not {type(train_regression).__name__}",
            "checks.check_regression_runs(train_regression, new_runs, start, stsb_examples, profile.stsb, profile)")
    if profile is not None:
        from .. import runs
        require_profile_as_defined(profile, recipe, "stsb")
        require_notebook_examples(stsb_examples, [(p.sentence1, p.sentence2, p.score)
                                                  for p in runs.stsb_train_pairs(profile)], "stsb_examples")
    require(isinstance(new_runs, dict), f"pass the runs as trained above (a dict), not {type(new_runs).__name__}")
    read = check_settings_passed(train_regression, "train_regression", start, stsb_examples, recipe)
    models = []
    for objective, (begin, before, result) in new_runs.items():
        try:
            check_regression_run(result, begin, before, recipe.epochs, recipe.batch_size, len(stsb_examples))
        except ExerciseError as exc:
            raise ExerciseError(f"the {objective!r} run: {exc}") from None
        models.append(result[0].model)
    require(len({id(m) for m in models}) == len(models), "two runs returned the same model",
            "each run trains its own copy of its own start")
    probes = check_on_recipes(train_regression, "train_regression", start, stsb_examples, recipe,
                              ReferenceRegressionObjective, _run_parts, "stsb_examples")
    for objective, (begin, before, result) in new_runs.items():   # last: its hint assumes the check's recipes passed
        try:
            check_notebook_run(result[0], result[1], begin, stsb_examples, recipe, ReferenceRegressionObjective)
        except ExerciseError as exc:
            raise ExerciseError(f"the {objective!r} run: {exc}") from None
    said = (f"your {len(new_runs)} run(s): the recipe's steps and the library's first losses, each start untouched"
            if new_runs else
            "both runs were trained before and are loaded (RETRAIN = True trains them again)")
    for _, (_, _, result) in new_runs.items():
        mark_checked(result)   # the notebook saves only what passed (training_runs.checked)
    ok(f"{said}; on the check's {len(probes)} recipes of its own (clipping at {probes[0].max_grad_norm:g} among them) "
       f"every loss and the trained weights are the library's run of the same recipe{passed_as_is(read)}")


# ----------------------------------------------------------------------------- order and scale
SCALE_KEYS = ("mean |cos − gold/5|", "Pearson ×100", "Spearman ×100")


def order_and_scale_truth(cosines, gold) -> dict[str, float]:
    """How far the cosines are from gold/5 (scale), and how well they follow gold linearly and in order."""
    import numpy as np
    from scipy.stats import spearmanr
    c, g = np.asarray(cosines, dtype=float), np.asarray(gold, dtype=float)
    return {SCALE_KEYS[0]: float(np.mean(np.abs(c - g / 5))), SCALE_KEYS[1]: float(100 * np.corrcoef(c, g)[0, 1]),
            SCALE_KEYS[2]: float(100 * spearmanr(c, g).statistic)}


def _scale_cases():
    """Cosines that follow gold in order but not in scale, with ties in gold and a few pairs out of order; then those
    of a model that gets it backwards — 250 pairs, negative cosines, a negative correlation — so that clipping the
    cosines or dropping the correlation's sign shows; then STSb test's 1,379 pairs and 20,000, so that using part of
    the pairs shows (trial 11: the first 1,000)."""
    import numpy as np
    rng = np.random.default_rng(55)
    gold = np.round(rng.uniform(0, 5, 60) * 2) / 2                  # half-point steps: ties, as in STSb
    yield 0.35 + 0.1 * gold / 5 + 0.4 * (gold / 5) ** 3 + rng.normal(0, 0.04, 60), gold
    gold = np.round(rng.uniform(0, 5, 250) * 2) / 2
    yield 0.3 - 0.5 * gold / 5 + rng.normal(0, 0.15, 250), gold
    for n in (1_379, 20_000):   # STSb test's size, and more pairs than any test set: a cap on the pairs used shows
        gold = np.round(rng.uniform(0, 5, n) * 5) / 5   # ties, as STSb test's 1,379 scores have 70 distinct values
        yield 0.5 + 0.3 * gold / 5 + rng.normal(0, 0.12, n), gold


def _scale_hint(key: str, got: float, cosines, gold) -> str:
    import numpy as np
    from scipy.stats import pearsonr, spearmanr
    c, g = np.asarray(cosines, dtype=float), np.asarray(gold, dtype=float)
    known = {
        SCALE_KEYS[0]: {
            "the target is gold/5, not gold: the cosines are on a 0–1 scale, gold on 0–5": np.mean(np.abs(c - g)),
            "that is a mean squared distance; the column is the mean absolute one, |cos − gold/5|":
                np.mean((c - g / 5) ** 2),
            "positive and negative differences cancel out: take the absolute value of each before the mean":
                abs(np.mean(c - g / 5)),
        },
        SCALE_KEYS[1]: {"that is the Spearman correlation (ranks): Pearson correlates the values themselves":
                        100 * spearmanr(c, g).statistic,
                        "Pearson ×100, please: multiply the correlation by 100": pearsonr(c, g).statistic},
        SCALE_KEYS[2]: {"that is Pearson (linear) correlation: Spearman correlates the ranks (your `spearman` of "
                        "notebook 04 does it)": 100 * pearsonr(c, g).statistic,
                        "Spearman ×100, please: multiply the correlation by 100": spearmanr(c, g).statistic},
    }
    truth = order_and_scale_truth(c, g)[key]
    known[key].update({
        "the cosines were clipped to [0, 1]: a cosine can be negative — use each as it is": order_and_scale_truth(
            np.clip(c, 0, 1), g)[key],
        "the correlation is negative here (this model gets it backwards): keep its sign, no abs()": abs(truth),
        **{f"that is the first {k:,} pairs only: use all {len(g):,}": order_and_scale_truth(c[:k], g[:k])[key]
           for k in (100, 500, 1_000, 5_000) if k < len(g)},
        **{f"that is the value rounded to {k} decimal(s): return it as computed — the table rounds it for display":
           round(truth, k) for k in (0, 1, 2, 3) if not np.isclose(round(truth, k), truth, rtol=1e-6, atol=1e-9)}})
    for hint, wrong in known[key].items():
        if np.isclose(got, float(wrong), rtol=1e-6, atol=1e-9) and not np.isclose(float(wrong), truth, rtol=1e-6,
                                                                                    atol=1e-9):
            return hint
    return {SCALE_KEYS[0]: "the mean over pairs of |cos − gold/5|",
            SCALE_KEYS[1]: "Pearson's correlation of the cosines with gold, ×100",
            SCALE_KEYS[2]: "Spearman's rank correlation of the cosines with gold, ×100 (ties get their average rank)"}[key]


def check_order_and_scale(order_and_scale: Callable) -> None:
    """Pass when ``order_and_scale(cosines, gold)`` returns the three numbers of :func:`order_and_scale_truth`
    (keys :data:`SCALE_KEYS`) on hidden cosines that follow gold in order but not in scale."""
    import numpy as np
    require(callable(order_and_scale), f"pass your function itself, not {type(order_and_scale).__name__}",
            "check_order_and_scale(order_and_scale) — no parentheses after the name")
    for case, (cosines, gold) in enumerate(_scale_cases()):
        want = order_and_scale_truth(cosines, gold)
        got = call(order_and_scale, cosines.copy(), gold.copy())
        require(isinstance(got, dict), f"your function returned a {type(got).__name__}, not a dict",
                f"return a dict with the keys {', '.join(repr(k) for k in SCALE_KEYS)}")
        missing = [k for k in SCALE_KEYS if k not in got]
        require(not missing, f"your dict lacks the key(s) {', '.join(repr(k) for k in missing)}",
                f"the table below reads the keys {', '.join(repr(k) for k in SCALE_KEYS)}")
        which = ("hidden cosines", f"the hidden cosines of a model that gets it backwards ({len(gold)} pairs, some "
                 f"cosines below 0, correlation below 0)", f"{len(gold):,} hidden pairs (STSb test's size)",
                 f"{len(gold):,} hidden pairs")[case]
        for key in SCALE_KEYS:
            require(isinstance(got[key], (int, float, np.integer, np.floating)) and not isinstance(got[key], bool),
                    f"{key!r} is a {type(got[key]).__name__} ({got[key]!r}), not a number",
                    "return each as a plain number (float(...)): the table below rounds it for display")
            try:
                value = float(got[key])
            except (TypeError, ValueError):
                raise ExerciseError(f"{key!r} is {got[key]!r}, not a number") from None
            if not np.isclose(value, want[key], rtol=1e-6, atol=1e-9):
                raise ExerciseError(f"{key!r} is {value:.4f} on {which}, which is not it\n"
                                    f"Hint: {_scale_hint(key, value, cosines, gold)}")
        if case == 0:
            want_first, n_first = want, len(gold)
    want, gold = want_first, range(n_first)
    ok(f"order and scale on {len(gold)} hidden pairs: mean |cos − gold/5| {want[SCALE_KEYS[0]]:.3f}, "
       f"Pearson {want[SCALE_KEYS[1]]:.2f}, Spearman {want[SCALE_KEYS[2]]:.2f}")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('regression_loss', probe="""
            _rng = _np.random.default_rng(2027)
            _u, _v = (_torch.tensor(_rng.normal(size=(4, 6)), dtype=_torch.float32) for _ in range(2))
            _result = regression_loss(_u, _v, _torch.tensor([0.0, 1.5, 3.2, 5.0]))
            """, reference=regression_loss_truth, kept=True),
    Exercise('RegressionObjective', probe="""
            _rng = _np.random.default_rng(2034)
            _objective = RegressionObjective(_Model())
            _u, _v = (_torch.tensor(_rng.normal(size=(5, 8)), dtype=_torch.float32) for _ in range(2))
            _result = {"label_kind": _objective.label_kind, "score_range": list(_objective.score_range),
                       "loss": _objective.loss_from_embeddings([_u, _v], _torch.tensor([0.0, 1.0, 2.5, 4.0, 5.0]))}
            """, reference=ReferenceRegressionObjective, kept=True),
    Exercise('train_regression', probe="""
            _objective, _losses, _seconds = train_regression(load_encoder(profile), stsb_examples, profile.stsb)
            _result = _losses
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "05.1": choice(
        "Why are STSb's 0–5 gold scores divided by 5 before training the cosine against them?",
        "A cosine cannot reach targets above 1",
        {"To make the Spearman correlation higher":
            "Spearman ignores the scale. What does the loss compare the cosine with?",
         "Mean-squared error only accepts targets in [0, 1]":
            "MSE accepts any numbers. Which numbers can a cosine reach?",
         "So the scores match the three NLI labels":
            "The regression objective has no classifier."}),
    "05.2": choice(
        "Which objective looks at the cosine?",
        "The regression objective",
        {"The classification objective":
            "Its classifier reads (u, v, |u−v|). Where would a cosine appear?",
         "Both of them":
            "One of them improves the cosine only as a side effect.",
         "Neither of them":
            "One of them is the cosine against gold/5."}),
    "05.3a": number(
        "Table 2, bert-base: by how many points does NLI then STSb beat STSb alone?",
        0.68, 0.005,
        "Subtract SBERT-STSb-base from SBERT-NLI-STSb-base.",
        "Subtract SBERT-STSb-base from SBERT-NLI-STSb-base.",
        {-0.68: "The two-stage model is the better one: subtract the other way round."}),
    "05.3b": choice(
        "What reason does the paper give for the two-stage model's gain?",
        "None: Section 4.2 reports the gain without a reason",
        {"STSb is larger than the NLI data it follows":
            "Compare the sizes: 5,749 STSb pairs against ~1M NLI pairs.",
         "NLI training fixes the cosines' scale to gold/5":
            "NLI training never asks for any scale. Where in Section 4.2 is the gain discussed?",
         "The gain is within the noise of the 10 seeds":
            "The gain is about 3.5–4 seed standard deviations. Reread what Section 4.2 says about it."}),
    "05.4": choice(
        "Spearman ignores the cosines' scale. Which quantity shows what the regression objective does to it?",
        "The mean |cos − gold/5|",
        {"Pearson's r of cosine and gold":
            "Pearson ignores any linear rescaling of the cosines too.",
         "Spearman on the training pairs":
            "Still a rank correlation.",
         "The number of training steps":
            "That describes the run, not the cosines."}),
    "05.5": choice(
        "Table 2's BERT-base rows about tie SBERT on STSb alone (84.30 vs 84.67) and beat it after NLI + STSb "
        "(88.33 vs 85.35). What are they?",
        "Cross-encoders: no sentence vectors",
        {"Larger bi-encoders (bert-large)":
            "Would a bi-encoder that good be unusable for search?",
         "Bi-encoders trained for more epochs":
            "Would longer training make a bi-encoder unusable for search?",
         "SBERT with max instead of mean pooling":
            "Pooling gives a sentence vector; what would stop those rows from being used for search?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
