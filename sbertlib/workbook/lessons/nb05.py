"""Self-checks for ``05_regression_and_two_stage``: two functions, an objective and a run (:mod:`.run_checks`)."""
import math

import numpy as np
import torch
import torch.nn.functional as F

from ... import losses
from . import VALUE, _guarded, guard, Exercise, Objective, Run, _brief, call, require, require_gradient
from .kinds import as_number, close
from .run_checks import LOOP_DEFAULTS, RECIPES, check_runs, checked, fingerprint, library_run, train_and_read

MAX_SCORE = 5.0  # STSb gold scores run from 0 to 5
_cos, _mse = (lambda u, v: F.cosine_similarity(u, v, dim=1)), F.mse_loss
_sq = lambda u, v, s: (_cos(u, v) - s / MAX_SCORE) ** 2  # noqa: E731


def regression_loss_truth(u: torch.Tensor, v: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """``CosineSimilarityLoss.loss_from_embeddings([u, v], scores / 5)``: mean of (cos(u, v) − score/5)²."""
    return losses.CosineSimilarityLoss(torch.nn.Identity()).loss_from_embeddings([u, v], scores / MAX_SCORE)


def _batches():
    """Hidden (u, v, scores): square first (a cosine down the batch's axis gives a value), one pair, a real batch."""
    g, out = torch.Generator().manual_seed(5), []
    for batch, dim in ((5, 5), (6, 8), (1, 5), (16, 64)):
        u, v = torch.randn(batch, dim, generator=g), torch.randn(batch, dim, generator=g)
        v[0] = 2.5 * u[0] + 0.05 * v[0]
        out.append((u, v, 0.2 + 4.6 * torch.rand(batch, generator=g)))
    return out


REGRESSION_LOSS = Exercise("regression_loss", probe="""
            _rng = _np.random.default_rng(2027)
            _u, _v = (_torch.tensor(_rng.normal(size=(4, 6)), dtype=_torch.float32) for _ in range(2))
            _result = regression_loss(_u, _v, _torch.tensor([0.0, 1.5, 3.2, 5.0]))
            """, reference=regression_loss_truth, kept=True, inputs=_batches, returns=as_number, slips={
    "your cosine runs down the batch's axis (dim=0), not along a pair": lambda u, v, s: _mse(_cos(u.T, v.T), s / 5),
    "you compared with the raw 0–5 score: divide the gold score by 5 first": lambda u, v, s: _mse(_cos(u, v), s),
    "that is the *sum* of squared errors: the loss is their mean": lambda u, v, s: _sq(u, v, s).sum(),
    "that divides by B − 1: the loss is the plain mean": lambda u, v, s: _sq(u, v, s).sum() / max(len(u) - 1, 1),
    "that is half the mean squared error: no ½ in this loss": lambda u, v, s: _sq(u, v, s).mean() / 2,
    "that is the square root (RMSE): the loss is the mean squared error": lambda u, v, s: _sq(u, v, s).mean() ** .5,
    "you used the dot product u·v; the loss uses the cosine": lambda u, v, s: _mse((u * v).sum(1), s / 5),
    "that compares 1 − cosine, a distance, with a similarity": lambda u, v, s: _mse(1 - _cos(u, v), s / 5),
    "you clamped the cosine at 0: a negative cosine counts": lambda u, v, s: _mse(_cos(u, v).clamp(min=0), s / 5),
    "that is the mean absolute error: square the differences": lambda u, v, s: (_cos(u, v) - s / 5).abs().mean(),
    "you scaled the cosine up to 0–5, not the score down": lambda u, v, s: _mse(5 * _cos(u, v), s),
    "STSb's scores run from 0 to 5, not 0 to 4": lambda u, v, s: _mse(_cos(u, v), s / 4),
    "you scaled by the batch's own highest score: the scale is STSb's": lambda u, v, s: _mse(_cos(u, v), s / s.max()),
    "you rescaled to the batch's own lowest and highest: the scale is STSb's, the same for every batch":
        lambda u, v, s: _mse(_cos(u, v), (s - s.min()) / (s.max() - s.min()).clamp_min(1e-12))},
    hint="go step by step on one pair: its cosine, its target (the score on the cosine's scale), the squared error",
    compare=lambda got, want: close(float(got), float(want)), ok="regression_loss equals CosineSimilarityLoss")


def check_regression_loss(regression_loss) -> None:
    """A tensor whose gradient reaches u and v where its value is right, then :data:`REGRESSION_LOSS`."""
    for u, v, s in _batches()[1:3]:
        ug, vg = u.clone().requires_grad_(True), v.clone().requires_grad_(True)
        got = call(regression_loss, ug, vg, s.clone(), what="your regression_loss")
        require(got is None or isinstance(got, torch.Tensor), f"your regression_loss returned a {type(got).__name__}, "
                "not a tensor", "stay in torch (no .item(), no numpy): training back-propagates through it")
        if torch.is_tensor(got) and got.numel() == 1 and close(float(got.detach()), float(_sq(u, v, s).mean())):
            require_gradient(got, {"u": ug, "v": vg}, lambda a, b, s=s: regression_loss_truth(a, b, s),
                             f"for a batch of {len(u)} pairs your loss")
    REGRESSION_LOSS.check(regression_loss)


class ReferenceRegressionObjective(losses.SBERTLoss):
    """The regression objective on examples carrying STSb's 0–5 gold score: CosineSimilarityLoss of score / 5."""
    label_kind, score_range = "score", (0.0, MAX_SCORE)

    def loss_from_embeddings(self, embeddings, labels):
        return regression_loss_truth(*embeddings, labels.view(-1).to(embeddings[0].dtype))


REGRESSION_OBJECTIVE = Objective("RegressionObjective", reference=ReferenceRegressionObjective, kept=True, probe="""
            _rng = _np.random.default_rng(2034)
            _objective = RegressionObjective(_Model())
            _u, _v = (_torch.tensor(_rng.normal(size=(5, 8)), dtype=_torch.float32) for _ in range(2))
            _result = {"label_kind": _objective.label_kind, "score_range": list(_objective.score_range),
                       "loss": _objective.loss_from_embeddings([_u, _v], _torch.tensor([0.0, 1.0, 2.5, 4.0, 5.0]))}
            """, batches=lambda: [([u, v], s) for u, v, s in _batches()[1:]], columns=("u", "v"),
    examples=lambda: [("a man plays a guitar", "a man plays a guitar", 5.0), ("two dogs run", "a cat sleeps", 0.0),
                      ("a woman cooks", "a chef cooks", 3.6), ("a child reads", "a kid reads a book", 4.2)], slips={
    "the gold score was divided by 5 twice: your regression_loss divides already": lambda e, l: _mse(_cos(*e), l / 25),
    "that compares the cosines with the raw 0–5 labels: divide them by 5": lambda e, l: _mse(_cos(*e), l)},
    hint="the loss of a batch is your regression_loss of the two columns' embeddings and the batch's labels")

check_regression_objective = _guarded(REGRESSION_OBJECTIVE.check)   # its data, value, gradient, end to end
REGRESSION_RUN = Run("train_regression", reference=library_run(ReferenceRegressionObjective), recipes=lambda: RECIPES,
                     run=lambda fn, recipe, *c: train_and_read(fn, recipe, *c, "train_regression", "stsb_examples"),
                     ignored=LOOP_DEFAULTS, probe="""
            _objective, _losses, _seconds = train_regression(load_encoder(profile), stsb_examples, profile.stsb)
            _result = _losses
            """, hint="compare your call of train_loop with the recipe: each of its seven settings passed on as it is, "
                      "to a fresh copy of `start` with your RegressionObjective, on `data` as given")


def check_regression_runs(train_regression, new_runs: dict, start, stsb_examples, recipe, profile=None) -> None:
    check_runs(REGRESSION_RUN, train_regression, new_runs, start, stsb_examples, recipe, "profile.stsb")


# ----------------------------------------------------------------------------- order and scale
SCALE_KEYS = M, P, S = ("mean |cos − gold/5|", "Pearson ×100", "Spearman ×100")


def order_and_scale_truth(cosines, gold) -> dict[str, float]:
    """How far the cosines are from gold/5 (scale), and how well they follow gold linearly and in order."""
    from scipy.stats import spearmanr
    c, g = np.asarray(cosines, dtype=float), np.asarray(gold, dtype=float)
    return {M: float(np.mean(np.abs(c - g / 5))), P: float(100 * np.corrcoef(c, g)[0, 1]),
            S: float(100 * spearmanr(c, g).statistic)}


def _scale_cases():
    rng = np.random.default_rng(55)   # cosines in gold's order, not scale (ties); backwards; STSb test's 1,379 pairs
    g1, g2, g3 = (np.round(rng.uniform(0, 5, n) * k) / k for n, k in ((60, 2), (250, 2), (1_379, 5)))
    return [(0.35 + 0.1 * g1 / 5 + 0.4 * (g1 / 5) ** 3 + rng.normal(0, 0.04, 60), g1),
            (0.3 - 0.5 * g2 / 5 + rng.normal(0, 0.15, 250), g2), (0.5 + 0.3 * g3 / 5 + rng.normal(0, 0.12, 1_379), g3)]


def _three_numbers(got, what: str) -> dict:
    require(isinstance(got, dict) and all(k in got for k in SCALE_KEYS), f"{what} returned {_brief(got)}",
            f"return a dict with the keys {', '.join(map(repr, SCALE_KEYS))}: the table below reads them")
    bad = [f"{k!r} is a {type(v).__name__}" for k, v in got.items() if isinstance(v, bool) or not isinstance(v, (
        int, float, np.number))]
    require(not bad, f"{bad[0] if bad else ''}, not a number", "return each as a plain number (float(...))")
    return {k: float(got[k]) for k in SCALE_KEYS}


_t, _rank = order_and_scale_truth, lambda x: np.argsort(np.argsort(x, kind="stable"))  # noqa: E731
_os = lambda c, g, **k: {**_t(c, g), **{dict(m=M, p=P, s=S)[x]: v for x, v in k.items()}}  # noqa: E731 - a slip's
_pearson, _spearman = (lambda c, g: _t(c, g)[P]), (lambda c, g: _t(c, g)[S])
ORDER_AND_SCALE = Exercise("order_and_scale", reference=order_and_scale_truth, inputs=_scale_cases, slips={
    "the target is gold/5, not gold: cosines run from 0 to 1": lambda c, g: _os(c, g, m=np.mean(abs(c - g))),
    "that is a mean squared distance, not the mean absolute one": lambda c, g: _os(c, g, m=np.mean((c - g / 5) ** 2)),
    "the differences cancel out: abs of each first": lambda c, g: _os(c, g, m=abs(np.mean(c - g / 5))),
    "that is Spearman (ranks) under Pearson: Pearson correlates the values": lambda c, g: _os(c, g, p=_spearman(c, g)),
    "that is Pearson under Spearman: Spearman correlates ranks": lambda c, g: _os(c, g, s=_pearson(c, g)),
    "that Pearson mixes ddofs: np.cov's (ddof=1) over np.std's (ddof=0) — one ddof for all three":
        lambda c, g: _os(c, g, p=100 * np.cov(c, g)[0, 1] / (np.std(c) * np.std(g))),
    "ties get their average rank: argsort of argsort ranks tied golds apart":
        lambda c, g: _os(c, g, s=100 * np.corrcoef(_rank(c), _rank(g))[0, 1]),
    "argsort gives the order, not the ranks: rank, ties averaged (your spearman does)":
        lambda c, g: _os(c, g, s=100 * np.corrcoef(np.argsort(c), np.argsort(g))[0, 1]),
    "the cosines were clipped to [0, 1]: a cosine can be negative": lambda c, g: _t(np.clip(c, 0, 1), g),
    "this model gets it backwards: keep the sign, no abs()": lambda c, g: _os(c, g, p=abs(_pearson(c, g)), s=abs(
        _spearman(c, g))),
    "the cosines were rounded first: use them as they are": lambda c, g: _t(np.round(c, 2), g),
    "that is the first 1,000 pairs only: use every pair": lambda c, g: _t(c[:1000], g[:1000]),
    "that is rounded: return each as computed, the table rounds for display": lambda c, g: {
        k: round(v, 2) for k, v in _t(c, g).items()}},
    hint="mean |cos − gold/5| over every pair; Pearson's and Spearman's correlation of the cosines with gold, ×100",
    compare=lambda a, b: all(math.isclose(a[k], float(b[k]), rel_tol=1e-5, abs_tol=1e-8) for k in SCALE_KEYS),
    returns=_three_numbers, probe=VALUE, ok="order_and_scale is right on 3 hidden sets of cosines and gold scores")

check_order_and_scale = _guarded(ORDER_AND_SCALE.check)
EXERCISES = (REGRESSION_LOSS, REGRESSION_OBJECTIVE, REGRESSION_RUN, ORDER_AND_SCALE)

guard(globals())   # last: every check above shows its own failures as an ExerciseError
