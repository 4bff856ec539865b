"""Self-checks for ``07_ablations``."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pandas as pd
import torch

from ... import paper
from ...evaluation import ablation
from ...losses import SoftmaxLoss
from ...paper import TABLE6_CONCATS
from . import guard, Exercise, ExerciseError, _brief, call, ok, require, two_items
from .questions import choice, number
from .training_runs import LOOP_DEFAULTS, fingerprint, settings_at_loop, settings_differing
from ...errors import UnknownName

__all__ = ["check_classifier_size", "check_gain", "gain_truth", "check_difference", "grid_mean", "check_train_and_score",
           "train_and_score_truth", "check_run_ablation", "run_ablation_truth"]


class _Stub(torch.nn.Module):
    """Stands in for an encoder: SoftmaxLoss only needs its embedding size ``dim``."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim


def _true_size(concat: tuple[str, ...], n: int, k: int) -> int:
    head = SoftmaxLoss(_Stub(n), num_labels=k, concat=concat)
    return sum(p.numel() for p in head.classifier.parameters())


def check_classifier_size(classifier_size: Callable) -> None:
    """Check ``classifier_size(concat, n, k) -> int``: trainable numbers in the softmax classifier
    ``W_t`` (weights and bias) for embedding size ``n``, ``k`` classes and the parts in ``concat``.

    Compared with the ``classifier`` of :class:`sbertlib.losses.SoftmaxLoss` for all seven
    concatenations of Table 6 and several ``n`` and ``k``.
    """
    require(callable(classifier_size), f"pass your function itself, not {type(classifier_size).__name__}",
            "check_classifier_size(classifier_size)")
    for n, k in ((768, 3), (384, 3), (64, 3), (100, 2), (10, 6)):
        for concat in TABLE6_CONCATS:
            try:
                got = call(classifier_size, concat, n, k, what=f"classifier_size({concat}, {n}, {k})")
            except ExerciseError as err:   # `features * k` with the stub's `features = ...` left in
                cause = err.__cause__
                if isinstance(cause, TypeError) and "'ellipsis'" in str(cause):
                    raise ExerciseError(_PLACEHOLDER_LEFT) from cause
                raise
            require(got is not Ellipsis, _PLACEHOLDER_LEFT.split("\nHint: ")[0], _PLACEHOLDER_LEFT.split("\nHint: ")[1])
            require(got is not None, f"classifier_size returned {got!r}", "return the number of parameters, an int")
            if isinstance(got, torch.Tensor) and got.numel() == 1:
                got = got.item()
            require(isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == int(got),
                    f"classifier_size returned {got!r}, not a whole number", "return an int")
            want = _true_size(concat, n, k)
            if int(got) == want:
                continue
            features = len(concat) * n
            # the named slips say which part of the count went wrong, never the count itself
            hints = {features * k: "you forgot the bias: the linear layer also has a bias for each class it outputs",
                     features: "that is the size of the classifier's input (the concatenated features), not the number "
                               "of its parameters: a linear layer has a weight for every (input, output) pair, and biases",
                     features + k: "a linear layer's weights are a matrix, a weight for every (input, output) pair, not "
                                   "one per input",
                     3 * n * k + k: "not every concatenation has 3 parts: count the parts in `concat`",
                     n * k + k: "the classifier sees every part of `concat` side by side, not one embedding",
                     features * 3 + 3: "use k, the number of classes passed in, not 3"}
            fallback = ("reread the warm-up's text: which features the classifier sees for these parts, how many "
                        "classes it maps them to, and its bias; count every trainable number once")
            raise ExerciseError(f"classifier_size({concat}, n={n}, k={k}) returned {int(got):,}, expected {want:,}\n"
                                f"Hint: {hints.get(int(got), fallback)}")
    ok("classifier_size matches SoftmaxLoss's classifier for every concatenation of Table 6")


_PLACEHOLDER_LEFT = ("the exercise is not done yet: classifier_size still holds the stub's `...` placeholders\n"
                     "Hint: replace each `...` with your code")


def _row(results: pd.DataFrame, concat: str) -> pd.Series:
    rows = results[(results["pooling"] == "mean") & (results["concat"] == concat)]
    require(len(rows) == 1, f"the results table has no single row for mean pooling with {concat}",
            "pass the table returned by ablation.run_grid for the Table 6 grid")
    return rows.iloc[0]


def grid_mean(results: pd.DataFrame, concat: tuple[str, ...], pooling: str = "mean") -> float:
    """The mean over seeds of one configuration in a :func:`sbertlib.evaluation.ablation.run_grid` table."""
    label = "(" + ", ".join(concat) + ")"
    rows = results[(results["pooling"] == pooling) & (results["concat"] == label)]
    if len(rows) != 1:
        raise UnknownName(f"no single row for {pooling} pooling with {label}")
    return float(rows.iloc[0]["mean"])


def _number(x, name: str, hint: str) -> float:
    """``x`` as a float, or an ExerciseError naming ``name`` with ``hint``: what this exercise returns."""
    require(x is not None and x is not Ellipsis, f"{name} is {x!r}", hint)
    if isinstance(x, torch.Tensor) and x.numel() == 1:
        x = x.item()
    if isinstance(x, (str, bytes)):
        raise ExerciseError(f"{name} is a {type(x).__name__} ({_brief(x)}), not a number\nHint: {hint}")
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise ExerciseError(f"{name} is a {type(x).__name__}, not a number\nHint: {hint}") from None
    require(math.isfinite(value), f"{name} is {value}", hint)
    return value


def _which_is_worth_more(with_abs: pd.Series, with_prod: pd.Series) -> str:
    """|u−v| against u*v in our grid: their difference beside its standard error (2 SE: seed noise)."""
    diff = float(with_abs["mean"] - with_prod["mean"])
    try:
        se = math.sqrt(with_abs["std"] ** 2 / with_abs["n_seeds"] + with_prod["std"] ** 2 / with_prod["n_seeds"])
    except (KeyError, TypeError, ZeroDivisionError):
        se = math.nan
    if not math.isfinite(se):
        return f"|u-v| − u*v = {diff:+.2f}, with no standard error to judge it by (one seed)"
    if abs(diff) < 2 * se:
        return (f"|u-v| − u*v = {diff:+.2f} ± {se:.2f}, under 2 standard errors: your ranking reads these numbers "
                "right, but seed noise alone could swap it — more seeds would tell")
    bigger = "|u-v|" if diff > 0 else "u*v"
    return f"|u-v| − u*v = {diff:+.2f} ± {se:.2f}, beyond 2 standard errors: {bigger} is worth more in ours"


# ----------------------------------------------------------------------------- what a part is worth
PARTS = ("|u-v|", "u*v")  # the two parts Section 6 weighs against each other, each added to (u, v)
ORDER = ("u", "v", "|u-v|", "u*v")  # Table 6 writes a concatenation's parts in this order


def with_part(base: tuple[str, ...], part: str) -> tuple[str, ...]:
    """``base`` with ``part`` added, its parts in Table 6's order (:data:`ORDER`): the row's concatenation."""
    return tuple(p for p in ORDER if p in tuple(base) or p == part)


def _mean_of(results: pd.DataFrame, concat: tuple[str, ...], column: str = "mean") -> float:
    """One column of the mean-pooling row of ``concat`` (a KeyError-like UnknownName when there is none)."""
    label = "(" + ", ".join(concat) + ")"
    rows = results[(results["pooling"] == "mean") & (results["concat"] == label)]
    if len(rows) != 1:
        raise UnknownName(f"no single row for mean pooling with {label}")
    return float(rows.iloc[0][column])


def gain_truth(results: pd.DataFrame, part: str, base: tuple[str, ...] = ("u", "v")) -> float:
    """What adding ``part`` to the concatenation ``base`` is worth in a grid: the mean STSb dev score (mean pooling)
    of ``base + (part,)`` minus that of ``base``, in points — one thing varied, everything else held."""
    return _mean_of(results, with_part(base, part)) - _mean_of(results, tuple(base))


def _all_poolings(results: pd.DataFrame, concat: tuple[str, ...]) -> float:
    """The slip of selecting the rows by concatenation only: the mean over every pooling that has it."""
    return float(results.loc[results["concat"] == "(" + ", ".join(concat) + ")", "mean"].astype(float).mean())


def _first_row(results: pd.DataFrame, concat: tuple[str, ...]) -> float:
    """The slip of taking the first row with a concatenation, whatever its pooling."""
    return float(results.loc[results["concat"] == "(" + ", ".join(concat) + ")", "mean"].iloc[0])


def _paper_gain(part: str, base: tuple[str, ...]) -> float:
    return paper.TABLE6_CONCAT[with_part(base, part)] - paper.TABLE6_CONCAT[tuple(base)]


def _grid(means: dict[tuple[str, ...], float], first: tuple[str, ...] = ("max", "cls"), seed: int = 0) -> pd.DataFrame:
    """A run_grid-like Table 6 table: the poolings ``first`` with the default concatenation (placed before the mean
    rows, as a table may order them), then every concatenation with mean pooling."""
    rng = np.random.default_rng(seed)
    configs = [ablation.AblationConfig(p) for p in first]
    configs += [ablation.AblationConfig("mean", c) for c in means]
    rows = {}
    for k, c in enumerate(configs):
        score = means[c.concat] if c.pooling == "mean" else 30.0 + 7.0 * k
        rows[c.label] = {"pooling": c.pooling, "concat": c.concat_label, "n_seeds": 3, "mean": score,
                         "std": float(np.round(rng.uniform(0.2, 1.5), 3))}
    return pd.DataFrame.from_dict(rows, orient="index")


def _gain_inputs() -> list[tuple]:
    """(results, part, base) cases on which the usual slips give different numbers: unequal scores, a part that
    costs points, the max/cls rows of the default concatenation placed first."""
    a = _grid({("u", "v"): 52.5, ("|u-v|",): 55.25, ("u*v",): 49.0, ("|u-v|", "u*v"): 58.75, ("u", "v", "u*v"): 50.0,
               ("u", "v", "|u-v|"): 61.5, ("u", "v", "|u-v|", "u*v"): 60.25}, seed=1)
    b = _grid({("u", "v"): 44.0, ("|u-v|",): 41.5, ("u*v",): 46.75, ("|u-v|", "u*v"): 47.0, ("u", "v", "u*v"): 49.5,
               ("u", "v", "|u-v|"): 43.25, ("u", "v", "|u-v|", "u*v"): 45.0}, first=("cls", "max"), seed=2)
    return [(a, "|u-v|", ("u", "v")), (a, "u*v", ("u", "v")), (b, "|u-v|", ("u", "v")),
            (a, "u*v", ("u", "v", "|u-v|")), (b, "u*v", ("|u-v|",)), (b, "u*v", ("u", "v", "|u-v|")),
            # the part goes before the last of `base` in Table 6's order: (u, v, |u-v|, u*v), not (u, v, u*v, |u-v|)
            (a, "|u-v|", ("u", "v", "u*v")), (b, "|u-v|", ("u*v",))]


def _as_part(value) -> str | None:
    """``most_important`` as one of :data:`PARTS` (spaces and a typographic minus forgiven), else None."""
    if not isinstance(value, str):
        return None
    text = value.replace("−", "-").replace(" ", "").strip("\"'")
    return text if text in PARTS else None


def check_gain(gain: Callable, most_important, results: pd.DataFrame) -> None:
    """Check ``gain(results, part, base=("u", "v")) -> points`` on hidden Table 6 grids (its declaration in
    ``EXERCISES`` lists the mistakes it names), then ``most_important``: the part of :data:`PARTS` worth more added to (u, v) in
    ``results``, the student's own grid — with its gains beside the paper's and the difference of the two
    parts against its standard error."""
    require(callable(gain), f"pass your function itself, not {type(gain).__name__}",
            "check_gain(gain, most_important, nli_results)")
    _check_gain_on_hidden_inputs(gain)
    base = ("u", "v")
    rows = {part: _row(results, "(" + ", ".join(base + (part,)) + ")") for part in PARTS}
    _row(results, "(u, v)")
    ours = {part: gain_truth(results, part, base) for part in PARTS}
    theirs = {part: _number(call(gain, results.copy(), part, what="your gain"), f"gain(results, {part!r})",
                            "return one number: the difference of two rows' 'mean' values, in points")
              for part in PARTS}
    for part in PARTS:
        require(abs(theirs[part] - ours[part]) <= 1e-6,
                f"on your grid gain(results, {part!r}) = {theirs[part]:.6f}, but its rows give {ours[part]:+.6f}",
                "read the rows of the `results` passed in, not a table of the notebook's")
    bigger = max(PARTS, key=ours.get)
    pick = _as_part(most_important)
    require(most_important is not None and most_important is not Ellipsis,
            f"most_important is {most_important!r}", 'set it to "|u-v|" or "u*v", the part your gains rank first')
    if pick is None:
        hint = ('the part alone, as a string: "|u-v|" or "u*v"' if isinstance(most_important, (tuple, list)) else
                'one of the two parts, as a string: "|u-v|" or "u*v"')
        raise ExerciseError(f"most_important is {most_important!r}\nHint: {hint}")
    paper_gains = {part: _paper_gain(part, base) for part in PARTS}
    if pick != bigger:
        other = next(p for p in PARTS if p != pick)
        if ours[pick] < 0 and abs(ours[pick]) > abs(ours[other]):
            hint = ("compare the two gains with their signs: a negative gain costs points, so the part worth more is "
                    "the one whose gain is the larger number, not the larger in size")
        elif pick == max(PARTS, key=paper_gains.get):
            hint = (f"that is the paper's finding ({pick}: {paper_gains[pick]:+.2f} against {paper_gains[other]:+.2f}); "
                    f"the question is what *our* grid says")
        else:
            hint = "the part worth more is the one whose gain over (u, v) is the larger"
        raise ExerciseError(f"in your grid adding |u-v| to (u, v) gains {ours['|u-v|']:+.2f}, adding u*v "
                            f"{ours['u*v']:+.2f}; most_important = {pick!r}\nHint: {hint}")
    ok(f"in our grid, adding |u−v| to (u, v) changes STSb dev by {ours['|u-v|']:+.2f}, adding u*v by "
       f"{ours['u*v']:+.2f} (paper: {paper_gains['|u-v|']:+.2f} and {paper_gains['u*v']:+.2f}): {pick} ranks first, "
       + ("as in the paper" if pick == max(PARTS, key=paper_gains.get) else "unlike the paper")
       + f"; {_which_is_worth_more(rows['|u-v|'], rows['u*v'])}")


ORDER_SLIP = ("the row with the part is written in Table 6's order: (u, v, |u-v|, u*v) — a part added to `base` "
              "takes its place in that order, which is not always the end")


def _check_gain_on_hidden_inputs(gain: Callable) -> None:
    """The declared check of ``gain``, and the one slip it cannot name from a value: the part put last, which finds
    no row (an error, or NaN) on an input where Table 6's order puts it before a part of ``base``."""
    __tracebackhide__ = True  # noqa: F841
    last: dict = {}

    def watched(results, part, base=("u", "v")):
        last.clear()
        last["args"] = (results, part, tuple(base))
        last["got"] = gain(results, part, base)
        return last["got"]
    try:
        _exercise("gain").check(watched)
    except ExerciseError as err:
        if "args" not in last:
            raise
        results, part, base = last["args"]
        appended = tuple(base) + (part,)
        if appended == with_part(base, part):
            raise
        cause = err.__cause__
        try:
            nan = "got" in last and math.isnan(float(last["got"]))
        except (TypeError, ValueError):
            nan = False
        if not (nan or isinstance(cause, (LookupError, UnknownName))):
            raise
        shown = f"gain(<DataFrame of shape {results.shape}>, {part!r}, {base!r})"
        got = (f"raised {type(cause).__name__}: {cause}" if cause is not None else "returned nan")
        label = "(" + ", ".join(with_part(base, part)) + ")"
        raise ExerciseError(f"{shown} {got}\nHint: {ORDER_SLIP}: here the row {label}, not "
                            f"({', '.join(appended)})") from cause


def _exercise(name: str) -> Exercise:
    return next(ex for ex in EXERCISES if ex.name == name)


# ----------------------------------------------------------------------------- difference ± standard error
def _table(rows: dict[str, tuple[float, ...]]) -> pd.DataFrame:
    """A run_grid-like table from per-seed scores: mean, sample std (ddof=1), n_seeds, seed columns."""
    out = {}
    for label, scores in rows.items():
        s = pd.Series(scores, dtype=float)
        out[label] = {"pooling": label, "concat": "(u, v, |u-v|)", "n_seeds": len(s), "mean": s.mean(),
                      "std": s.std(ddof=1), **{f"seed {i + 1}": v for i, v in enumerate(s)}}
    return pd.DataFrame.from_dict(out, orient="index")


def _hidden_tables() -> list[tuple[pd.DataFrame, str, str]]:
    """Cases where the usual slips give different numbers: unequal seed counts, unequal spreads."""
    a = _table({"mean": (70.1, 72.4, 69.8, 71.0), "max": (30.2, 18.9, 25.5)})
    b = _table({"cls": (50.0, 58.0), "mean": (61.0, 60.5, 62.5, 59.0, 60.0)})
    one = _table({"mean": (70.1, 72.4, 69.8), "cls": (40.0,)})   # one seed: no spread, so no standard error (NaN)
    return [(a, "mean", "max"), (a, "max", "mean"), (b, "cls", "mean"), (one, "mean", "cls")]


def check_difference(diff_and_se: Callable, results: pd.DataFrame | None = None) -> None:
    """Check ``diff_and_se(results, a, b) -> (difference, standard error)``: ``mean_a − mean_b`` and
    ``sqrt(s_a²/n_a + s_b²/n_b)`` (sample std over seeds, number of seeds), on hidden tables and on
    ``results`` (our regression grid) for mean vs max pooling."""
    require(callable(diff_and_se), f"pass your function itself, not {type(diff_and_se).__name__}",
            "check_difference(diff_and_se, results)")
    cases = _hidden_tables()
    if results is not None and {"mean pooling, (u, v, |u-v|)", "max pooling, (u, v, |u-v|)"} <= set(results.index) \
            and results["n_seeds"].min() > 1:
        cases.append((results, "mean pooling, (u, v, |u-v|)", "max pooling, (u, v, |u-v|)"))
    pair = "return a pair (difference, standard error): a tuple of two numbers, in that order"
    for table, a, b in cases:
        said = f"diff_and_se(results, {a!r}, {b!r}) returned"
        value = call(diff_and_se, table.copy(), a, b, what="diff_and_se")
        if isinstance(value, (dict, pd.Series)) and not (isinstance(value, pd.Series) and isinstance(value.index, pd.RangeIndex)):
            keys = list(value.keys())
            raise ExerciseError(f"{said} a {type(value).__name__} (keys {_brief(keys)}), not a pair\nHint: {pair}")
        got = two_items(value, said, pair)
        want_d, want_se = ablation.difference(table, a, b)
        if math.isnan(want_se):   # a row of one seed: its std is NaN, and so must the standard error be
            se = got[1].item() if isinstance(got[1], (torch.Tensor, np.generic)) else got[1]
            require(isinstance(se, float) and math.isnan(se),
                    f"with one seed in ({b}) your standard error is {_brief(se)}, expected NaN",
                    "one seed has no spread to estimate: its std is NaN, and so is the standard error of a difference "
                    "involving it — leave it NaN (replacing it by 0 would claim a perfectly certain mean)")
            got = [got[0], 0.0]
        d, se = (_number(x, f"{name} (the {place} of the pair diff_and_se returned)", pair)
                 for x, name, place in zip(got, ("the difference", "the standard error"), ("first", "second")))
        if math.isnan(want_se):
            require(abs(d - want_d) <= 1e-6, f"difference for ({a}) − ({b}) = {d:.4f}, expected {want_d:.4f}",
                    "the difference is that of the two rows' 'mean' values")
            continue
        ra, rb = table.loc[a], table.loc[b]
        na, nb, sa, sb = ra["n_seeds"], rb["n_seeds"], ra["std"], rb["std"]
        if abs(d - want_d) > 1e-6:
            if abs(d - abs(want_d)) <= 1e-6:
                hint = "you took the size of the difference (abs): keep its sign, first row minus second row"
            elif abs(d + want_d) <= 1e-6:
                hint = "the sign is flipped: first row minus second row"
            elif abs(d - want_se) <= 1e-6 and abs(se - want_d) <= 1e-6:
                hint = "the two are swapped: the difference first, then its standard error"
            else:
                hint = "the difference is that of the two rows' 'mean' values"
            raise ExerciseError(f"difference for ({a}) − ({b}) = {d:.4f}, expected {want_d:.4f}\nHint: {hint}")
        if abs(se - want_se) <= 1e-6:
            continue
        pop = [float(pd.Series([r[c] for c in table.columns if c.startswith("seed ")]).dropna().std(ddof=0))
               for r in (ra, rb)]
        # each named slip says which part of the text's formula went wrong, not the formula
        slips = {math.sqrt(sa ** 2 + sb ** 2): "the number of seeds is missing: a mean over more seeds is less "
                                                 "uncertain, so each row's variance is divided by its own n",
                 sa / math.sqrt(na) + sb / math.sqrt(nb): "you added the two standard errors; independent errors "
                                                          "combine in quadrature (their variances add), as in the text",
                 sa + sb: "that adds the two stds: each mean's uncertainty shrinks with its number of seeds, and two "
                          "independent ones combine in quadrature — reread the formula in the text",
                 math.sqrt(sa ** 2 / na): "only the first row's uncertainty: both means are uncertain, the second row "
                                          "counts too",
                 math.sqrt((sa ** 2 + sb ** 2) / (na + nb)): "you pooled the seed counts: each row's variance is "
                                                            "divided by that row's own number of seeds",
                 math.sqrt(pop[0] ** 2 / na + pop[1] ** 2 / nb): "use the sample std (ddof=1, the 'std' column), "
                                                                 "not the population std"}
        hint = next((h for v, h in slips.items() if abs(se - v) <= 1e-6),
                    "reread Exercise 4's text: each row's standard error from its 'std' and 'n_seeds', then how the two "
                    "combine for a difference")
        raise ExerciseError(f"standard error for ({a}) − ({b}) = {se:.4f}, expected {want_se:.4f}\nHint: {hint}")
    ok(f"diff_and_se matches the library on {len(cases)} tables (difference of means, √(s_a²/n_a + s_b²/n_b))")


# ----------------------------------------------------------------------------- one run of the grid
def train_and_score_truth(start, evaluator, config, seed: int, train_pairs, objective: str = "classification",
                          batch_size: int = 16, lr: float = 2e-5, epochs: int = 1) -> float:
    """One point of Table 6's grid as :func:`sbertlib.evaluation.ablation.run_grid` trains it: a fresh copy of
    ``start`` with the configuration's pooling, ``seed_everything(seed)``, the objective's loss
    (``SoftmaxLoss`` with the configuration's concatenation, or ``CosineSimilarityLoss``), one training of
    ``train_pairs``; ``evaluator(encoder)`` afterwards."""
    import copy
    table = ablation.run_grid([config], [seed], train_pairs, encoder_factory=lambda: copy.deepcopy(start),
                              evaluator=evaluator, batch_size=batch_size, epochs=epochs, lr=lr,
                              show_progress_bar=False, objective=objective)
    return float(table["mean"].iloc[0])


def _state(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


# The check's points use settings no profile or notebook cell holds, so that a function which ignores an argument
# (and hard-codes the profile's lr, the notebook's batch size, one epoch, a seed of the plan) trains another run.
POINT_SETTINGS = dict(batch_size=6, lr=3e-3)   # 3e-3: a rate at which a concatenation changes the encoder measurably
POINT_SEEDS = (17, 23, 31, 13)
POINT_EPOCHS = 3      # the regression point that passes `epochs` (an NLI point passes 2); the others use the default, 1
_SCORE_HINT = ("train_and_score returns the STSb dev score of the trained copy — what the notebook's evaluation "
               "(stsb_dev) gives for it: one float")


def hard_codable() -> dict[str, tuple]:
    """The values of each argument a student could hard-code instead of using it: every profile's NLI and STSb
    lr, batch size and epochs, the notebook's NLI batch (16), the profiles' seed and the notebook's default seeds
    (1, 2, 3)."""
    from ..profiles import PROFILES
    args = [a for prof in PROFILES.values() for a in (prof.nli, prof.stsb)]
    return {"lr": tuple(sorted({a.lr for a in args})),
            "batch_size": tuple(sorted({a.batch_size for a in args} | {16})),
            "epochs": tuple(sorted({a.epochs for a in args} | {1})),
            "seed": tuple(sorted({a.seed for a in args} | {1, 2, 3}))}


def _point_cases(nli_pairs, stsb_pairs) -> list[tuple]:
    """(config, seed, pairs, objective, epochs): a pooling other than mean, a concatenation other than the default,
    the regression objective, and a point with `epochs` passed."""
    s = POINT_SEEDS
    return [(ablation.AblationConfig("max"), s[0], list(nli_pairs[:24]), "classification", 1),
            (ablation.AblationConfig("mean", ("u", "v")), s[1], list(nli_pairs[:16]), "classification", 2),
            (ablation.AblationConfig("cls"), s[2], list(stsb_pairs[:24]), "regression", 1),
            (ablation.AblationConfig("mean"), s[3], list(stsb_pairs[:16]), "regression", POINT_EPOCHS)]


def _wrong_loss_hint(error: BaseException, objective: str) -> str | None:
    """The hint for the other objective's loss on this objective's pairs (the library's label check stopped it)."""
    text = str(error)
    if objective == "regression" and "is not a class id" in text:
        return ("the regression points train on the cosine similarity of the two sentence vectors against the gold "
                "score (the regression objective), not with the 3-way NLI classifier: STSb's labels are scores, "
                "not class ids")
    if objective == "classification" and "is not a class id in 0.." in text:
        return ("the classifier has fewer outputs than NLI has labels: num_labels is the number of classes (3: "
                "entailment, neutral, contradiction), whatever the concatenation")
    if objective == "classification" and "numeric gold score" in text:
        return ("the classification points train the 3-way softmax classifier on the NLI labels (the classification "
                "objective), not a cosine against a score: NLI's labels are classes")
    return None


def _pairs_key(pairs) -> list[str]:
    return sorted(map(repr, pairs))


def check_train_and_score(train_and_score: Callable, start, evaluator, nli_pairs, stsb_pairs) -> None:
    """Check ``train_and_score(config, seed, train_pairs, objective, batch_size, lr, epochs=1) -> score``
    against :func:`train_and_score_truth` (the library's run of the same point) on four small runs — a
    pooling other than mean, a concatenation other than the default, the regression objective, two epochs — with
    ``start`` the untrained network and ``evaluator`` the notebook's STSb dev scorer. The points' seeds, lr, batch
    size and epochs are none a profile or the notebook uses (:func:`hard_codable`), so an argument ignored changes
    the run, and the message names it. The first run is made twice (a seeded run gives the same score); ``start``
    and the pairs passed in must come out untouched."""
    import copy
    from . import student_raised, unfinished
    require(callable(train_and_score), f"pass your function itself, not {type(train_and_score).__name__}",
            "check_train_and_score(train_and_score, start, stsb_dev, nli_pairs, stsb_train)")
    settings = POINT_SETTINGS
    before, start_settings = _state(start), fingerprint(start)[-1]
    _check_loop_settings(train_and_score, nli_pairs, stsb_pairs)
    for case, (config, seed, pairs, objective, epochs) in enumerate(_point_cases(nli_pairs, stsb_pairs)):
        what = (f"train_and_score({config.label}, seed {seed}, {objective}, batch_size={settings['batch_size']}, "
                f"lr={settings['lr']:g}" + (f", epochs={epochs})" if epochs > 1 else ")"))
        args = (config, seed, pairs, objective, settings["batch_size"], settings["lr"]) + ((epochs,) if epochs > 1 else ())
        got = []
        for _ in range(2 if case == 0 else 1):   # the first point twice: a seeded run is reproducible
            given = copy.deepcopy(pairs)
            try:
                value = train_and_score(*args)
            except Exception as exc:  # noqa: BLE001 - the student's code raised: say so, show their line
                require(not unfinished(exc), "the exercise is not done yet: train_and_score is not written yet (it "
                        "raised NotImplementedError)", "replace the `raise NotImplementedError` line with your code")
                hint = _wrong_loss_hint(exc, objective)
                if hint is not None:
                    raise ExerciseError(f"{what} raised {type(exc).__name__}: {exc}\nHint: {hint}") from exc
                raise student_raised(what, exc) from exc
            if pairs != given:
                how = ("the same pairs in another order" if _pairs_key(pairs) == _pairs_key(given) else
                       "not the pairs it was given any more")
                raise ExerciseError(
                    f"{what} changed `train_pairs` in place ({how}): in the notebook that list is nli_pairs or "
                    f"stsb_train, so the notebook's pairs would change behind its back and every later run would "
                    f"train on other data\nHint: leave the pairs passed in as they are — your training loop already "
                    f"shuffles them, with the seed, each epoch; reorder a copy if you must")
            got.append(_number(value, f"the score of {what}", _SCORE_HINT))
            after = _state(start)
            require(all(torch.equal(before[k], after[k]) for k in before),
                    f"{what} changed the weights of `start`, the untrained network",
                    "train a fresh copy of it in every run (copy.deepcopy), so that every configuration and seed "
                    "starts from the same weights")
            changed = [f"{k} from {b} to {a}" for (k, b), (_, a) in zip(start_settings, fingerprint(start)[-1])
                       if a != b]
            require(not changed, f"{what} changed `start`, the untrained network: its {'; its '.join(changed)}",
                    "set anything (the pooling too) on your copy, after copying: `start` is shared by every run of the "
                    "grid, and the notebook's 'untrained' rows read it")
        if len(got) == 2 and abs(got[0] - got[1]) > 1e-6:
            raise ExerciseError(f"{what} gave {got[0]:.2f}, then {got[1]:.2f} when run again\nHint: a run must be "
                                "reproducible: a fresh copy of `start` made inside every call (not one encoder kept "
                                "from call to call), seed_everything(seed) before the loss is built (its classifier's "
                                "initial weights are drawn then), and seed passed to the loop")
        point = dict(config=config, seed=seed, objective=objective, epochs=epochs, **settings)

        def run(**change) -> float:
            p = {**point, **change}
            return train_and_score_truth(start, evaluator, p["config"], p["seed"], pairs, p["objective"],
                                         batch_size=p["batch_size"], lr=p["lr"], epochs=p["epochs"])
        want = run()
        if abs(got[0] - want) <= 0.01:
            continue
        raise ExerciseError(f"{what} scored {got[0]:.2f}; the library's run of the same point {want:.2f}\n"
                            f"Hint: {_which_slip(got[0], point, run, start, evaluator, len(pairs), pairs)}")
    ok("train_and_score trains each point as the library's grid does (fresh copy, pooling, seed, objective, "
       "concatenation, and the batch size, lr and epochs passed in) — with your training loop")


# Points whose settings lie far outside any real run's, together reaching both ends of each argument: (config, seed,
# objective, pairs, batch_size, lr, epochs). The loop is stopped before its first step, so neither trains.
SPY_POINTS = ((ablation.AblationConfig("max"), 2_147_483_647, "classification", 60, 1, 7.5, 1000),
              (ablation.AblationConfig("mean"), 0, "regression", 600, 500, 1e-9, 1))


def _check_loop_settings(train_and_score: Callable, nli_pairs, stsb_pairs) -> None:
    """Call ``train_and_score`` on :data:`SPY_POINTS` with the loop it names stopped before its first step
    (:func:`training_runs.settings_at_loop`): the point's seed, batch size, lr and epochs must reach the loop as passed,
    every other setting as the library's grid trains (the loop's defaults). A clamp whose threshold the check's real
    points never reach shows only here; a function that trains without the loop, or not at all, fails."""
    for config, seed, objective, n, batch_size, lr, epochs in SPY_POINTS:
        pool = list(nli_pairs if objective == "classification" else stsb_pairs)
        what = (f"train_and_score({config.label}, seed {seed}, {objective}, batch_size={batch_size}, lr={lr:g}, "
                f"epochs={epochs})")
        reached = settings_at_loop(train_and_score, (config, seed, [pool[i % len(pool)] for i in range(n)], objective,
                                                     batch_size, lr, epochs), what,
                                   inputs_checked=False)   # its own list; the real points name a reordering
        require(reached is not None, f"{what} returned without training: it never called `train_loop`",
                "train a fresh copy of `start` with train_loop, the notebook's loop, in every call")
        loop, given = reached
        passed = dict(seed=seed, batch_size=batch_size, lr=lr, epochs=epochs)
        wrong = settings_differing(given, {**LOOP_DEFAULTS, **passed},
                                   {k: ("the point passed in" if k in passed else "the library's grid (your loop's "
                                        "default)") for k in LOOP_DEFAULTS})
        require(not wrong, f"{what} passed {'; '.join(wrong)} to {loop} (the check stops your loop before its first "
                f"step and reads what it was given)",
                "pass seed, batch_size, lr and epochs on to your loop as they are passed in — no number of your own, "
                "no min, max or rounding, even for values no real run uses — and leave every other setting at your "
                "loop's default, as the library's grid does")


def point_run(start, evaluator, point: dict, pairs, loop_seed: int) -> tuple[float, list[float]]:
    """One point trained as :func:`train_and_score_truth` trains it, but with the loop's seed ``loop_seed`` (the
    truth passes the point's seed to both ``seed_everything`` and the loop): (the score, the loss of every step)."""
    from ...losses import CosineSimilarityLoss
    from ...training import TrainingArguments, fit, seed_everything
    encoder = copy_with_pooling(start, point["config"].pooling)
    seed_everything(point["seed"])
    loss = (SoftmaxLoss(encoder, num_labels=3, concat=point["config"].concat)
            if point["objective"] == "classification" else CosineSimilarityLoss(encoder))
    history = fit(encoder, loss, pairs, TrainingArguments(epochs=point["epochs"], batch_size=point["batch_size"],
                                                          lr=point["lr"], seed=loop_seed), show_progress_bar=False)
    return float(evaluator(encoder)), [float(x) for x in history.losses]


def _which_slip(got: float, point: dict, run: Callable, start, evaluator, n_pairs: int, pairs=None) -> str:
    """The hint naming the one thing the student's run did differently, tried in turn (each a training of the
    library's, made only when the answer is wrong): a training loss returned instead of the score, untrained, the
    pooling, the concatenation, the loop left at its own seed, then each argument replaced by a value the student
    could have hard-coded instead of using it."""
    config, default = point["config"], ablation.AblationConfig()
    if pairs is not None:
        _, step_losses = point_run(start, evaluator, point, pairs, point["seed"])
        for what, value in (("last step's", step_losses[-1]), ("mean", sum(step_losses) / len(step_losses))):
            if math.isclose(got, value, rel_tol=1e-4, abs_tol=1e-6):
                return (f"that is the training loss (its {what} value), not the score: return the STSb dev score of "
                        "the trained copy, stsb_dev(encoder)")
    tries: list[tuple[str, Callable[[], float]]] = [
        ("that is the untrained network's score: train the copy before you score it",
         lambda: float(evaluator(copy_with_pooling(start, config.pooling))))]
    if pairs is not None:
        tries.append(("that is the run whose loop kept its own default seed (42): seed_everything(seed) seeds the "
                      "classifier's first weights, but your loop reseeds the data order and dropout with its `seed` "
                      "argument — pass seed=seed to it too",
                      lambda: point_run(start, evaluator, point, pairs, 42)[0]))
    if config.pooling != "mean":
        tries.append(("the run used mean pooling: set the copy's pooling to config.pooling before training",
                      lambda: run(config=ablation.AblationConfig("mean", config.concat))))
    if config.concat != default.concat:
        tries.append(("the classifier saw the default features: build the loss with concat=config.concat",
                      lambda: run(config=ablation.AblationConfig(config.pooling))))
    values = hard_codable()
    for e in values["epochs"]:
        if e != point["epochs"]:
            tries.append((("that is the score of one epoch: pass `epochs` on to your training loop" if e == 1 else
                           f"that is the score of {e} epochs, not the epochs={point['epochs']} passed in: your function "
                           f"ignores its `epochs` argument — pass it on to your training loop"),
                          lambda e=e: run(epochs=e)))
    for lr in values["lr"]:
        tries.append((f"that is the score of the same run at lr={lr:g} (a profile's rate), not at the lr={point['lr']:g} "
                      f"passed in: your function ignores its `lr` argument — pass it on to your training loop",
                      lambda lr=lr: run(lr=lr)))
    for b in values["batch_size"]:
        if b <= n_pairs:
            tries.append((f"that is the score of the same run with batch_size={b}, not the batch_size="
                          f"{point['batch_size']} passed in: your function ignores its `batch_size` argument — pass it "
                          f"on to your training loop", lambda b=b: run(batch_size=b)))
    for s in values["seed"]:
        tries.append((f"that is the score of the same run with seed {s}, not the seed {point['seed']} passed in: your "
                      f"function ignores its `seed` argument — seed with it, and pass it to the loop",
                      lambda s=s: run(seed=s)))
    for hint, score in tries:
        try:
            if abs(got - score()) <= 0.01:
                return hint
        except Exception:  # noqa: BLE001 - a run that cannot be made on this point names nothing
            continue
    return "a fresh copy of start, its pooling set, seed_everything(seed), the objective's loss, your loop, then score"


def copy_with_pooling(start, pooling: str):
    """A copy of ``start`` with ``pooling``: the untrained network of one configuration."""
    import copy
    enc = copy.deepcopy(start)
    enc.pooling = pooling
    return enc


# ----------------------------------------------------------------------------- the grid runner
def _fake_scores(config, seed: int) -> float:
    """A deterministic stand-in for one training's score (no training)."""
    h = sum(ord(c) * (i + 1) for i, c in enumerate(config.label)) % 997
    seed = 8 if seed == 9 else seed   # seeds 8 and 9 tie, as two short runs can: n_seeds counts seeds, not scores
    return 40.0 + (h % 37) + ((seed * 7919 + h) % 101) / 10.0 + ((seed * 31 + h) % 97) / 9973.0  # digits to round off


def run_ablation_truth(configs, seeds, train_and_score: Callable):
    """The table :func:`sbertlib.evaluation.ablation.run_grid` returns, from ``train_and_score(config, seed)``:
    one row per configuration (index ``config.label``) with ``pooling``, ``concat`` (``config.concat_label``),
    ``n_seeds``, ``mean`` and ``std`` (sample std, ddof=1; NaN for one seed)."""
    rows = {}
    for c in configs:
        s = pd.Series([float(train_and_score(c, seed)) for seed in seeds], dtype=float)
        rows[c.label] = {"pooling": c.pooling, "concat": c.concat_label, "n_seeds": len(s), "mean": s.mean(),
                         "std": s.std(ddof=1) if len(s) > 1 else math.nan}
    return pd.DataFrame.from_dict(rows, orient="index")


_NUMBER_COLUMNS = {"n_seeds": ("the number of seeds, one integer per row", "count the seeds the mean is over"),
                   "mean": ("the mean score over the seeds, one number per row",
                            "the average of one configuration's scores over its seeds"),
                   "std": ("the sample std over the seeds, one number per row (NaN with one seed)",
                           "the spread of one configuration's scores over its seeds")}


def _numbers_per_row(table: pd.DataFrame, column: str, where: str, meaning: tuple[str, str]) -> None:
    """Every cell of ``column`` one number (an int for n_seeds), or an ExerciseError naming the row and what it holds."""
    __tracebackhide__ = True  # noqa: F841
    what, hint = meaning
    for label, value in table[column].items():
        cell = value.item() if isinstance(value, (torch.Tensor, np.ndarray)) and np.size(value) == 1 else value
        number = isinstance(cell, (int, float, np.integer, np.floating)) and not isinstance(cell, (bool, np.bool_))
        whole = number and (column != "n_seeds" or (math.isfinite(float(cell)) and float(cell) == int(cell)))
        if not whole:
            raise ExerciseError(f"on {where} the column {column} holds {_brief(cell)} (a {type(cell).__name__}) in row "
                                f"{label!r}: {what}\nHint: {hint}")


def check_run_ablation(run_ablation: Callable) -> None:
    """Check ``run_ablation(configs, seeds, train_and_score) -> table`` on hidden grids with a stand-in
    ``train_and_score`` (no training): every (configuration, seed) run exactly once, and the table of
    :func:`run_ablation_truth` (index = labels, the five columns; more columns, e.g. one per seed, are fine)."""
    require(callable(run_ablation), f"pass your function itself, not {type(run_ablation).__name__}",
            "check_run_ablation(run_ablation)")
    grids = [(ablation.table6_configs(), (1, 2, 3)), (ablation.pooling_configs(), (5, 2)),
             (ablation.table6_configs()[3:6], (4,)), (ablation.pooling_configs(), (8, 9, 3))]
    for configs, seeds in grids:
        calls = []

        def stand_in(config, seed):
            calls.append((config, seed))
            return _fake_scores(config, seed)
        where = f"a grid of {len(configs)} configurations × seeds {list(seeds)}"
        try:
            table = call(run_ablation, list(configs), list(seeds), stand_in, what=f"run_ablation on {where}")
        except ExerciseError as err:
            import statistics
            if not isinstance(err.__cause__, statistics.StatisticsError):
                raise
            raise ExerciseError(str(err).split("\nHint:")[0] + "\nHint: a sample standard deviation needs two "
                                "scores; with one seed there is no spread to estimate, and the table says so with "
                                "NaN (pandas' std(ddof=1) gives it)") from err.__cause__
        require(isinstance(table, pd.DataFrame), f"on {where} run_ablation returned a {type(table).__name__}",
                "return a pandas DataFrame, one row per configuration")
        wanted_calls = [(c, s) for c in configs for s in seeds]
        used_seeds = sorted({s for _, s in calls}, key=str)
        require(not calls or set(used_seeds) <= set(seeds),
                f"on {where} train_and_score was called with seeds {used_seeds}, not the seeds given {list(seeds)}",
                "pass each seed of `seeds` itself, not its position in the list")
        require(sorted(calls, key=str) == sorted(wanted_calls, key=str),
                f"on {where} train_and_score was called {len(calls)} times for {len(set(calls))} distinct "
                f"(configuration, seed) points; the grid has {len(wanted_calls)}",
                "call train_and_score once for every configuration and every seed — no point twice, none left out")
        want = run_ablation_truth(configs, seeds, _fake_scores)
        missing = [c for c in want.columns if c not in table.columns]
        require(not missing, f"on {where} your table has no column {missing}",
                "columns pooling, concat, n_seeds, mean and std (the library's tables read them)")
        require(list(map(str, table.index)) == list(want.index), f"on {where} the rows are {list(table.index)[:3]}…",
                "one row per configuration, in the order given, indexed by config.label")
        for column, meaning in _NUMBER_COLUMNS.items():   # before pandas turns a wrong cell into its own error
            _numbers_per_row(table, column, where, meaning)
        require(list(table["pooling"]) == list(want["pooling"]) and list(table["concat"]) == list(want["concat"]),
                f"on {where} the pooling/concat columns are {list(table['pooling'])[:2]}… / {list(table['concat'])[:2]}…",
                "pooling: config.pooling; concat: config.concat_label, e.g. '(u, v, |u-v|)'")
        require(np.allclose(table["n_seeds"].astype(float), want["n_seeds"].astype(float)),
                f"on {where} n_seeds is {list(table['n_seeds'])[:3]}…", "the number of seeds each mean is over")
        got_mean = table["mean"].astype(float).to_numpy()
        rounded = np.allclose(got_mean, want["mean"].to_numpy(), atol=0.01) and not np.allclose(got_mean, want["mean"])
        require(np.allclose(got_mean, want["mean"].to_numpy()), f"on {where} the means differ from the grid's",
                "the means are off by less than 0.01: did you round the scores? keep them as train_and_score returns "
                "them — rounding is for printing" if rounded else
                "mean: the average of one configuration's scores over its seeds")
        for seed in seeds:   # optional columns, one per seed: each must hold that seed's scores
            column = f"seed {seed}"
            if column in table.columns:
                got = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
                require(np.allclose(got, [_fake_scores(c, seed) for c in configs]),
                        f"on {where} the column {column!r} does not hold seed {seed}'s scores",
                        "label each score with the seed it was trained with: the column 'seed <s>' holds the runs of "
                        "seed s, as the library's grid does")
        got_std, want_std = table["std"].astype(float).to_numpy(), want["std"].to_numpy()
        if not np.allclose(got_std, want_std, equal_nan=True):
            pop = np.array([pd.Series([_fake_scores(c, s) for s in seeds]).std(ddof=0) for c in configs])
            if len(seeds) > 1 and np.allclose(got_std, pop):
                hint = "that is the population std (ddof=0): use the sample std over seeds, ddof=1"
            elif len(seeds) == 1:
                hint = "with one seed there is no spread to estimate: the std is NaN (ddof=1), not 0"
            else:
                hint = "std: the sample standard deviation (ddof=1) of one configuration's scores over its seeds"
            raise ExerciseError(f"on {where} the std column differs from the grid's\nHint: {hint}")
    ok("run_ablation runs every configuration once per seed and tabulates mean and sample std like the library's grid")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('classifier_size', probe="""
            _result = [classifier_size(c, n, k) for c in (("u", "v"), ("u", "v", "|u-v|"), ("u", "v", "|u-v|", "u*v"))
                       for n, k in ((64, 3), (768, 3), (384, 2))]
            """),
    Exercise('gain', probe="""
            _t = _pd.DataFrame({"pooling": ["max", "mean", "mean", "mean", "mean", "mean", "mean"],
                                "concat": ["(u, v, |u-v|)", "(u, v)", "(u, v, |u-v|)", "(u, v, u*v)", "(u, v, |u-v|, u*v)",
                                           "(|u-v|)", "(|u-v|, u*v)"],
                                "n_seeds": [2] * 7, "mean": [70.5, 52.25, 61.5, 50.0, 60.75, 55.0, 58.5],
                                "std": [0.5, 0.25, 1.0, 0.75, 0.5, 0.3, 0.2]})
            _t.index = [p + " pooling, " + c for p, c in zip(_t["pooling"], _t["concat"])]
            _result = [gain(_t, "|u-v|"), gain(_t, "u*v"), gain(_t, "u*v", ("u", "v", "|u-v|")), gain(_t, "u*v", ("|u-v|",)),
                       gain(_t, "|u-v|", ("u", "v", "u*v"))]
            """, reference=gain_truth, inputs=_gain_inputs,
             # {message naming the mistake: the function written with that mistake}; the first that matches is named
             slips={
                 "you took the size of the gain (abs): keep its sign — a part that hurts has a negative gain":
                     lambda r, part, base=("u", "v"): abs(gain_truth(r, part, base)),
                 "the sign is flipped: a part's worth is the score WITH it minus the score WITHOUT it (a part that helps "
                 "has a positive gain)":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base)) - _mean_of(r, with_part(base, part)),
                 "that is a relative change (a ratio, or a share of the score without the part); Table 6 and the paper's "
                 "conclusion are read in points of Spearman: the difference of the two scores":
                     lambda r, part, base=("u", "v"): gain_truth(r, part, base) / _mean_of(r, tuple(base)),
                 "that is a relative change in per cent of the score without the part; Table 6 and the paper's conclusion "
                 "are read in points of Spearman: the difference of the two scores":
                     lambda r, part, base=("u", "v"): 100 * gain_truth(r, part, base) / _mean_of(r, tuple(base)),
                 "that is the ratio of the two scores; a part's worth in Table 6 is their difference, in points":
                     lambda r, part, base=("u", "v"): _mean_of(r, with_part(base, part)) / _mean_of(r, tuple(base)),
                 "the wrong rows: you compared with the default (u, v, |u-v|); the row without the part is `base` itself, so "
                 "that only the part differs between the two":
                     lambda r, part, base=("u", "v"): _mean_of(r, with_part(base, part)) - _mean_of(r, ("u", "v", "|u-v|")),
                 "the wrong rows: you scored the part alone against `base`; the row with the part is `base` with the part "
                 "added (its other parts kept), so that only the part differs between the two":
                     lambda r, part, base=("u", "v"): _mean_of(r, (part,)) - _mean_of(r, tuple(base)),
                 "the wrong rows: you always compared with (u, v); compare with the `base` passed in":
                     lambda r, part, base=("u", "v"): _mean_of(r, with_part(base, part)) - _mean_of(r, ("u", "v")),
                 "the wrong rows: you left `base` out and compared (u, v) with and without the part; both rows must hold "
                 "the `base` passed in":
                     lambda r, part, base=("u", "v"): _mean_of(r, ("u", "v", part)) - _mean_of(r, ("u", "v")),
                 "the wrong rows: you averaged every pooling that has the concatenation; Table 6's concatenations are all "
                 "trained with mean pooling — take the mean-pooling rows only":
                     lambda r, part, base=("u", "v"): _all_poolings(r, with_part(base, part)) - _all_poolings(r, tuple(base)),
                 "the wrong rows: the first row with a concatenation can be another pooling's (max and cls pooling are "
                 "trained with the default concatenation too); Table 6's concatenations are the mean-pooling rows":
                     lambda r, part, base=("u", "v"): _first_row(r, with_part(base, part)) - _first_row(r, tuple(base)),
                 "that is the score with the part itself: subtract the score without it":
                     lambda r, part, base=("u", "v"): _mean_of(r, with_part(base, part)),
                 "you subtracted the 'std' column; the score is the 'mean' column":
                     lambda r, part, base=("u", "v"): _mean_of(r, with_part(base, part), "std") - _mean_of(r, tuple(base), "std"),
                 "that is the paper's gain (Table 6); read ours from the table passed in":
                     lambda r, part, base=("u", "v"): _paper_gain(part, base),
             },
             hint="the mean-pooling score of `base` with the part added, minus that of `base` alone, in points, read "
                  "from the table passed in",
             ok="gain compares the right two rows, in points, on 8 hidden Table 6 inputs"),
    Exercise('most_important', probe=None),  # depends on the student's own grid: its check grades it
    Exercise('diff_and_se', probe="""
            _table = _pd.DataFrame({"mean": [80.5, 78.25, 79.0], "std": [0.4, 0.9, 0.0], "n_seeds": [10, 4, 2]},
                                   index=["a", "b", "c"])
            _result = [diff_and_se(_table, "a", "b"), diff_and_se(_table, "c", "a")]
            """),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "07.1a": number(
        "How many distinct configurations (trainings, not counting seeds) are behind Table 6?",
        12, 0,
        "Count the pooling and the concatenation rows under NLI, and the regression column.",
        "The default configuration appears in both the pooling and the concatenation rows.",
        {13: "The default (mean, (u, v, |u−v|)) is one training, shared by both groups.",
         9: "The regression column has trainings of its own.",
         10: "Take away the shared default, and add the regression column."}),
    "07.1b": number(
        "How many runs did the paper make for them?",
        120, 0,
        "Each configuration is trained with several seeds.",
        "Every distinct configuration, each with the paper's number of seeds.",
        {130: "The default configuration is one training, shared by two groups.",
         12: "Each configuration is trained with several seeds."}),
    "07.2": choice(
        "Why does the regression column vary only the pooling, not the concatenation?",
        "Regression has no classifier, so no features to concatenate",
        {"The paper ran out of compute for more regression runs":
            "Regression runs are cheap (5,749 pairs). What would a concatenation feed under regression?",
         "Concatenation made no difference under the regression objective":
            "It was never tried. What does the regression objective compute from u and v?"}),
    "07.3a": number(
        "71.0 ± 1.2 against 69.5 ± 1.5 (mean ± sample std, 3 seeds each): how many standard errors of the difference "
        "apart are the two means?",
        1.355, 0.06,
        "Too low. How uncertain is a mean over 3 seeds compared with one seed's spread, and how do two independent "
        "uncertainties combine?",
        "Too high. Is the uncertainty of a mean over 3 seeds the std itself? And how do two independent uncertainties "
        "combine?",
        {0.78: "Each mean's standard error is its std divided by √(number of seeds).",
         0.96: "Two independent uncertainties combine in quadrature: their variances add, not their standard "
               "errors."}),
    "07.3b": choice(
        "Is that difference larger than the seed noise?",
        "No: more seeds are needed to rank the two",
        {"Yes: 1.5 points is more than either std":
            "Compare the difference with its own standard error, not with a single run's std."}),
    "07.4": choice(
        "The concatenation changes a classifier that is thrown away. How can it change the encoder's STSb score?",
        "The encoder's gradient comes through that classifier",
        {"It cannot: the differences in Table 6 are seed noise":
            "Table 6 gives means only, no spread; Table 2's seed stds are 0.13–0.81 points. Compare 66.04 and 80.78 "
            "with that.",
         "The classifier is kept and used at inference":
            "Inference is encode and cosine (Figure 2)."}),
    "07.5": choice(
        "MAX is 17.5 points below MEAN under regression but 1.7 after NLI. What differs between the two set-ups?",
        "Objective (cosine trained directly vs a classifier) and data size",
        {"The tokenizer: regression runs use a smaller vocabulary":
            "Same BERT, same tokenizer in both.",
         "The model size: the regression runs train a smaller BERT":
            "Both are bert-base.",
         "The test set: the NLI column is scored on SICK-R instead":
            "Both columns are STSb dev scores. What is trained differently?"}),
    "07.6": number(
        "About how many optimizer steps is one NLI training of the grid (one epoch of ~942k AllNLI pairs, batch 16)?",
        58_875, 1_000,
        "A step is one batch of 16 pairs; one epoch sees every pair once.",
        "A step is one batch of 16 pairs.",
        {942_000: "A step is a batch of 16, not one pair.",
         5_300_000: "That is the whole grid. One training is one configuration and one seed."}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
