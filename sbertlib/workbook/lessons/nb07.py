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
from . import Exercise, ExerciseError, call, ok, require, two_items
from .questions import choice, number
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
            got = call(classifier_size, concat, n, k, what=f"classifier_size({concat}, {n}, {k})")
            require(got is not None and got is not Ellipsis, f"classifier_size returned {got!r}",
                    "return the number of parameters, an int")
            if isinstance(got, torch.Tensor) and got.numel() == 1:
                got = got.item()
            require(isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == int(got),
                    f"classifier_size returned {got!r}, not a whole number", "return an int")
            want = _true_size(concat, n, k)
            if int(got) == want:
                continue
            features = len(concat) * n
            hints = {features * k: "you forgot the bias: the linear layer also has one bias per class (k numbers)",
                     features: "that is the feature size; the layer maps it to k classes: (features × k) + k",
                     features + k: "weights are a matrix: features × k, plus k biases",
                     3 * n * k + k: "not every concatenation has 3 parts: use len(concat) · n features",
                     n * k + k: "the features are len(concat) embeddings side by side, not one",
                     features * 3 + 3: "use k, the number of classes passed in, not 3"}
            raise ExerciseError(f"classifier_size({concat}, n={n}, k={k}) returned {int(got):,}, expected {want:,}\n"
                                f"Hint: {hints.get(int(got), 'W_t maps len(concat)·n features to k logits, with a bias')}")
    ok("classifier_size matches SoftmaxLoss's classifier for every concatenation of Table 6")


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


def _number(x, name: str) -> float:
    require(x is not None and x is not Ellipsis, f"{name} is {x!r}", f"set {name} to a number read from `results`")
    if isinstance(x, torch.Tensor) and x.numel() == 1:
        x = x.item()
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise ExerciseError(f"{name} is a {type(x).__name__}, not a number\n"
                            "Hint: pick one value, e.g. results.loc[row, 'mean']") from None
    require(math.isfinite(value), f"{name} is {value}", "use the 'mean' column")
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
        return (f"|u-v| − u*v = {diff:+.2f} ± {se:.2f}, under 2 standard errors: in ours, which of the two is "
                "added changes nothing measurable")
    bigger = "|u-v|" if diff > 0 else "u*v"
    return f"|u-v| − u*v = {diff:+.2f} ± {se:.2f}, beyond 2 standard errors: {bigger} is worth more in ours"


# ----------------------------------------------------------------------------- what a part is worth
PARTS = ("|u-v|", "u*v")  # the two parts Section 6 weighs against each other, each added to (u, v)


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
    return _mean_of(results, tuple(base) + (part,)) - _mean_of(results, tuple(base))


def _all_poolings(results: pd.DataFrame, concat: tuple[str, ...]) -> float:
    """The slip of selecting the rows by concatenation only: the mean over every pooling that has it."""
    return float(results.loc[results["concat"] == "(" + ", ".join(concat) + ")", "mean"].astype(float).mean())


def _first_row(results: pd.DataFrame, concat: tuple[str, ...]) -> float:
    """The slip of taking the first row with a concatenation, whatever its pooling."""
    return float(results.loc[results["concat"] == "(" + ", ".join(concat) + ")", "mean"].iloc[0])


def _paper_gain(part: str, base: tuple[str, ...]) -> float:
    return paper.TABLE6_CONCAT[tuple(base) + (part,)] - paper.TABLE6_CONCAT[tuple(base)]


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
            (a, "u*v", ("u", "v", "|u-v|")), (b, "u*v", ("|u-v|",)), (b, "u*v", ("u", "v", "|u-v|"))]


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
    _exercise("gain").check(gain)
    base = ("u", "v")
    rows = {part: _row(results, "(" + ", ".join(base + (part,)) + ")") for part in PARTS}
    _row(results, "(u, v)")
    ours = {part: gain_truth(results, part, base) for part in PARTS}
    theirs = {part: _number(call(gain, results.copy(), part, what="your gain"), f"gain(results, {part!r})")
              for part in PARTS}
    for part in PARTS:
        require(abs(theirs[part] - ours[part]) <= 1e-6,
                f"on your grid gain(results, {part!r}) = {theirs[part]:.2f}, but its rows give {ours[part]:+.2f}",
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
            hint = "you ranked the gains by their size: a negative gain costs points, so the larger gain is the one above"
        elif pick == max(PARTS, key=paper_gains.get):
            hint = (f"that is the paper's finding ({pick}: {paper_gains[pick]:+.2f} against {paper_gains[other]:+.2f}); "
                    f"the question is what *our* grid says")
        else:
            hint = "the part worth more is the one whose gain over (u, v) is the larger"
        raise ExerciseError(f"in your grid adding |u-v| to (u, v) gains {ours['|u-v|']:+.2f}, adding u*v "
                            f"{ours['u*v']:+.2f}; most_important = {pick!r}\nHint: {hint}")
    ok(f"in our grid, adding |u−v| to (u, v) changes STSb dev by {ours['|u-v|']:+.2f}, adding u*v by "
       f"{ours['u*v']:+.2f} (paper: {paper_gains['|u-v|']:+.2f} and {paper_gains['u*v']:+.2f}): {pick} first, "
       + ("as in the paper" if pick == max(PARTS, key=paper_gains.get) else "unlike the paper")
       + f"; {_which_is_worth_more(rows['|u-v|'], rows['u*v'])}")


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
    return [(a, "mean", "max"), (a, "max", "mean"), (b, "cls", "mean")]


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
    for table, a, b in cases:
        got = two_items(call(diff_and_se, table.copy(), a, b, what="diff_and_se"), f"diff_and_se(results, {a!r}, {b!r}) returned",
                        "return a pair: (difference of the means, its standard error)")
        d, se = (_number(x, name) for x, name in zip(got, ("the difference", "the standard error")))
        want_d, want_se = ablation.difference(table, a, b)
        ra, rb = table.loc[a], table.loc[b]
        na, nb, sa, sb = ra["n_seeds"], rb["n_seeds"], ra["std"], rb["std"]
        if abs(d - want_d) > 1e-6:
            hint = ("the sign is flipped: first row minus second row" if abs(d + want_d) <= 1e-6 else
                    "subtract the two rows' 'mean' columns")
            raise ExerciseError(f"difference for ({a}) − ({b}) = {d:.4f}, expected {want_d:.4f}\nHint: {hint}")
        if abs(se - want_se) <= 1e-6:
            continue
        pop = [float(pd.Series([r[c] for c in table.columns if c.startswith("seed ")]).dropna().std(ddof=0))
               for r in (ra, rb)]
        slips = {math.sqrt(sa ** 2 + sb ** 2): "divide each variance by its number of seeds: s²/n (the standard "
                                                 "error of a mean shrinks with √n)",
                 sa / math.sqrt(na) + sb / math.sqrt(nb): "standard errors add in quadrature: √(se_a² + se_b²), "
                                                          "not se_a + se_b",
                 sa + sb: "that adds the two stds: use √(s_a²/n_a + s_b²/n_b)",
                 math.sqrt(sa ** 2 / na): "both means are uncertain: add the second row's s²/n too",
                 math.sqrt((sa ** 2 + sb ** 2) / (na + nb)): "each row has its own number of seeds: s_a²/n_a + s_b²/n_b",
                 math.sqrt(pop[0] ** 2 / na + pop[1] ** 2 / nb): "use the sample std (ddof=1, the 'std' column), "
                                                                 "not the population std"}
        hint = next((h for v, h in slips.items() if abs(se - v) <= 1e-6),
                    "se = √(s_a²/n_a + s_b²/n_b) with the 'std' and 'n_seeds' columns")
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


def check_train_and_score(train_and_score: Callable, start, evaluator, nli_pairs, stsb_pairs) -> None:
    """Check ``train_and_score(config, seed, train_pairs, objective, batch_size, lr, epochs=1) -> score``
    against :func:`train_and_score_truth` (the library's run of the same point) on three small runs — a
    pooling other than mean, a concatenation other than the default, the regression objective — with
    ``start`` the untrained network and ``evaluator`` the notebook's STSb dev scorer. The first run is made
    twice (a seeded run gives the same score), and ``start`` must come out untouched."""
    from . import student_raised, unfinished
    require(callable(train_and_score), f"pass your function itself, not {type(train_and_score).__name__}",
            "check_train_and_score(train_and_score, start, stsb_dev, nli_pairs, stsb_train)")
    cases = [(ablation.AblationConfig("max"), 2, list(nli_pairs[:24]), "classification", 1),
             (ablation.AblationConfig("mean", ("u", "v")), 1, list(nli_pairs[:24]), "classification", 1),
             (ablation.AblationConfig("cls"), 1, list(stsb_pairs[:24]), "regression", 1),
             (ablation.AblationConfig("mean"), 3, list(stsb_pairs[:16]), "regression", 2)]  # epochs is honoured
    settings = dict(batch_size=8, lr=1e-3)   # a rate at which a concatenation changes the encoder measurably
    before = _state(start)
    for case, (config, seed, pairs, objective, epochs) in enumerate(cases):
        what = f"train_and_score({config.label}, seed {seed}, {objective}" + (f", epochs={epochs})" if epochs > 1 else ")")
        got = []
        for _ in range(2 if case == 0 else 1):   # the first point twice: a seeded run is reproducible
            try:
                value = (train_and_score(config, seed, pairs, objective, settings["batch_size"], settings["lr"])
                         if epochs == 1 else
                         train_and_score(config, seed, pairs, objective, settings["batch_size"], settings["lr"], epochs))
            except Exception as exc:  # noqa: BLE001 - the student's code raised: say so, show their line
                require(not unfinished(exc), "train_and_score is not written yet (it raised NotImplementedError)",
                        "replace the `raise NotImplementedError` line with your code")
                raise student_raised(what, exc) from exc
            got.append(_number(value, f"the score of {what}"))
            after = _state(start)
            require(all(torch.equal(before[k], after[k]) for k in before),
                    f"{what} changed the weights of `start`, the untrained network",
                    "train a fresh copy of it in every run (copy.deepcopy), so that every configuration and seed "
                    "starts from the same weights")
        if len(got) == 2 and abs(got[0] - got[1]) > 1e-6:
            raise ExerciseError(f"{what} gave {got[0]:.2f}, then {got[1]:.2f} when run again\nHint: a run must be "
                                "reproducible: seed_everything(seed) before the loss is built (its classifier's initial "
                                "weights are drawn then) and pass seed to the loop")
        want = train_and_score_truth(start, evaluator, config, seed, pairs, objective, epochs=epochs, **settings)
        if abs(got[0] - want) <= 0.01:
            continue
        untrained = copy_with_pooling(start, config.pooling)
        hint = "a fresh copy of start, its pooling set, seed_everything(seed), the objective's loss, your loop, then score"
        if abs(got[0] - float(evaluator(untrained))) <= 0.01:
            hint = "that is the untrained network's score: train the copy before you score it"
        elif epochs > 1 and abs(got[0] - train_and_score_truth(start, evaluator, config, seed, pairs, objective,
                                                               **settings)) <= 0.01:
            hint = "that is the score of one epoch: pass `epochs` on to your training loop"
        elif config.pooling != "mean" and abs(got[0] - train_and_score_truth(
                start, evaluator, ablation.AblationConfig("mean", config.concat), seed, pairs, objective, **settings)) <= 0.01:
            hint = "the run used mean pooling: set the copy's pooling to config.pooling before training"
        elif config.concat != ablation.AblationConfig().concat and abs(got[0] - train_and_score_truth(
                start, evaluator, ablation.AblationConfig(config.pooling), seed, pairs, objective, **settings)) <= 0.01:
            hint = "the classifier saw the default features: build the loss with concat=config.concat"
        raise ExerciseError(f"{what} scored {got[0]:.2f}; the library's run of the same point {want:.2f}\nHint: {hint}")
    ok("train_and_score trains each point as the library's grid does (fresh copy, pooling, seed, objective, "
       "concatenation) — with your training loop")


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
    return 40.0 + (h % 37) + ((seed * 7919 + h) % 101) / 10.0


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


def check_run_ablation(run_ablation: Callable) -> None:
    """Check ``run_ablation(configs, seeds, train_and_score) -> table`` on hidden grids with a stand-in
    ``train_and_score`` (no training): every (configuration, seed) run exactly once, and the table of
    :func:`run_ablation_truth` (index = labels, the five columns; more columns, e.g. one per seed, are fine)."""
    require(callable(run_ablation), f"pass your function itself, not {type(run_ablation).__name__}",
            "check_run_ablation(run_ablation)")
    grids = [(ablation.table6_configs(), (1, 2, 3)), (ablation.pooling_configs(), (5, 2)),
             (ablation.table6_configs()[3:6], (4,))]
    for configs, seeds in grids:
        calls = []

        def stand_in(config, seed):
            calls.append((config, seed))
            return _fake_scores(config, seed)
        where = f"a grid of {len(configs)} configurations × seeds {list(seeds)}"
        table = call(run_ablation, list(configs), list(seeds), stand_in, what=f"run_ablation on {where}")
        require(isinstance(table, pd.DataFrame), f"on {where} run_ablation returned a {type(table).__name__}",
                "return a pandas DataFrame, one row per configuration")
        wanted_calls = [(c, s) for c in configs for s in seeds]
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
        require(list(table["pooling"]) == list(want["pooling"]) and list(table["concat"]) == list(want["concat"]),
                f"on {where} the pooling/concat columns are {list(table['pooling'])[:2]}… / {list(table['concat'])[:2]}…",
                "pooling: config.pooling; concat: config.concat_label, e.g. '(u, v, |u-v|)'")
        require(np.allclose(table["n_seeds"].astype(float), want["n_seeds"].astype(float)),
                f"on {where} n_seeds is {list(table['n_seeds'])[:3]}…", "the number of seeds each mean is over")
        got_mean = table["mean"].astype(float).to_numpy()
        require(np.allclose(got_mean, want["mean"].to_numpy()), f"on {where} the means differ from the grid's",
                "mean: the average of one configuration's scores over its seeds")
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
            _result = [gain(_t, "|u-v|"), gain(_t, "u*v"), gain(_t, "u*v", ("u", "v", "|u-v|")), gain(_t, "u*v", ("|u-v|",))]
            """, reference=gain_truth, inputs=_gain_inputs,
             # {message naming the mistake: the function written with that mistake}; the first that matches is named
             slips={
                 "the sign is flipped: a part's worth is the score WITH it minus the score WITHOUT it (a part that helps "
                 "has a positive gain)":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base)) - _mean_of(r, tuple(base) + (part,)),
                 "that is a relative change (a ratio, or a share of the score without the part); Table 6 and the paper's "
                 "conclusion are read in points of Spearman: the difference of the two scores":
                     lambda r, part, base=("u", "v"): gain_truth(r, part, base) / _mean_of(r, tuple(base)),
                 "that is a relative change in per cent of the score without the part; Table 6 and the paper's conclusion "
                 "are read in points of Spearman: the difference of the two scores":
                     lambda r, part, base=("u", "v"): 100 * gain_truth(r, part, base) / _mean_of(r, tuple(base)),
                 "that is the ratio of the two scores; a part's worth in Table 6 is their difference, in points":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base) + (part,)) / _mean_of(r, tuple(base)),
                 "the wrong rows: you compared with the default (u, v, |u-v|); the row without the part is `base` itself, so "
                 "that only the part differs between the two":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base) + (part,)) - _mean_of(r, ("u", "v", "|u-v|")),
                 "the wrong rows: you scored the part alone against `base`; the row with the part is `base` with the part "
                 "added (its other parts kept), so that only the part differs between the two":
                     lambda r, part, base=("u", "v"): _mean_of(r, (part,)) - _mean_of(r, tuple(base)),
                 "the wrong rows: you always compared with (u, v); compare with the `base` passed in":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base) + (part,)) - _mean_of(r, ("u", "v")),
                 "the wrong rows: you left `base` out and compared (u, v) with and without the part; both rows must hold "
                 "the `base` passed in":
                     lambda r, part, base=("u", "v"): _mean_of(r, ("u", "v", part)) - _mean_of(r, ("u", "v")),
                 "the wrong rows: you averaged every pooling that has the concatenation; Table 6's concatenations are all "
                 "trained with mean pooling — take the mean-pooling rows only":
                     lambda r, part, base=("u", "v"): _all_poolings(r, tuple(base) + (part,)) - _all_poolings(r, tuple(base)),
                 "the wrong rows: the first row with a concatenation can be another pooling's (max and cls pooling are "
                 "trained with the default concatenation too); Table 6's concatenations are the mean-pooling rows":
                     lambda r, part, base=("u", "v"): _first_row(r, tuple(base) + (part,)) - _first_row(r, tuple(base)),
                 "that is the score with the part itself: subtract the score without it":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base) + (part,)),
                 "you subtracted the 'std' column; the score is the 'mean' column":
                     lambda r, part, base=("u", "v"): _mean_of(r, tuple(base) + (part,), "std") - _mean_of(r, tuple(base), "std"),
                 "that is the paper's gain (Table 6); read ours from the table passed in":
                     lambda r, part, base=("u", "v"): _paper_gain(part, base),
             },
             hint="the mean-pooling score of `base` with the part added, minus that of `base` alone, in points, read "
                  "from the table passed in",
             ok="gain compares the right two rows, in points, on 6 hidden Table 6 grids"),
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
        "Twelve configurations, the paper's number of seeds each.",
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
        "The standard error of a mean is its std / √3, and the two variances add.",
        "The standard error of a mean is its std / √3, and the two variances add.",
        {0.78: "Each mean's standard error is its std divided by √(number of seeds).",
         0.96: "Variances add, not standard errors: √(1.2²/3 + 1.5²/3)."}),
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
