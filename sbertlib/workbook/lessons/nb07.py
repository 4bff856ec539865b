"""Self-checks for ``07_ablations``: three functions, the grid's runner on a stand-in, points beside ``fit``'s runs."""
import copy
import functools
import math
from dataclasses import replace

import numpy as np
import pandas as pd

from ... import paper
from ...errors import UnknownName
from ...evaluation import ablation
from . import (Exercise, ExerciseError, _brief, call, guard, hinted, named_slip, ok, one_number, reference_numerics,
               require, within)

_equal = within(1e-4, 1e-6, nan=True, squeeze=True)   # float32's rounding; NaN equal to NaN (the se of one seed)

PLACEHOLDERS = "the stub's `...` placeholders are still there: the exercise is not done yet — replace each `...`"
CLASSIFIER_SIZE = Exercise('classifier_size', probe="""
            _result = [classifier_size(c, n, k) for c in (("u", "v"), ("u", "v", "|u-v|"), ("u", "v", "|u-v|", "u*v"))
                       for n, k in ((64, 3), (768, 3), (384, 2))]
            """, reference=lambda concat, n, k=3: len(concat) * n * k + k,   # SoftmaxLoss's W_t and its biases
    inputs=lambda: [(c, n, k) for n, k in ((768, 3), (64, 3), (100, 2), (10, 6)) for c in paper.TABLE6_CONCATS],
    hint="reread the warm-up: which features the classifier sees, how many classes it maps them to, and its bias",
    ok="classifier_size matches SoftmaxLoss's classifier for every concatenation of Table 6", slips={
        "you forgot the bias: a linear layer has a bias for each class it outputs": lambda c, n, k: len(c) * n * k,
        "that is the classifier's input size (its features), not its parameters": lambda c, n, k: len(c) * n,
        "a linear layer's weights are a matrix, one per (input, output) pair": lambda c, n, k: len(c) * n + k,
        "not every concatenation has 3 parts: count the parts in `concat`": lambda c, n, k: 3 * n * k + k,
        "the classifier sees every part of `concat` side by side, not one embedding": lambda c, n, k: n * k + k,
        "use k, the number of classes passed in, not 3": lambda c, n, k: len(c) * n * 3 + 3})


def check_classifier_size(classifier_size):
    hinted(CLASSIFIER_SIZE.check, {"'ellipsis'": PLACEHOLDERS, "returned Ellipsis": PLACEHOLDERS}, classifier_size)


PARTS, UV, ORDER = ("|u-v|", "u*v"), ("u", "v"), ("u", "v", "|u-v|", "u*v")  # ORDER: Table 6's order of the parts


def with_part(base, part: str) -> tuple[str, ...]:
    """``base`` with ``part`` added, in Table 6's order: the row's concatenation."""
    return tuple(p for p in ORDER if p in tuple(base) or p == part)


def grid_mean(results: pd.DataFrame, concat, pooling: str = "mean", column: str = "mean") -> float:
    """One configuration's mean over seeds (or another ``column``) in an ``ablation.run_grid`` table."""
    rows = results[(results["pooling"] == pooling) & (results["concat"] == "(" + ", ".join(concat) + ")")]
    if len(rows) != 1:
        raise UnknownName(f"no single row for {pooling} pooling with ({', '.join(concat)})")
    return float(rows.iloc[0][column])


def gain_truth(results: pd.DataFrame, part: str, base=UV) -> float:
    """Points of STSb dev (mean pooling) that adding ``part`` to ``base`` changes: with it minus without it."""
    return grid_mean(results, with_part(base, part)) - grid_mean(results, base)


def _gain_inputs() -> list[tuple]:
    """(results, part, base): a part that costs points, max/cls rows first, a part Table 6 puts before base's last."""
    c = [ablation.AblationConfig(p) for p in ("max", "cls")] + [ablation.AblationConfig("mean", x)
                                                                for x in paper.TABLE6_CONCATS]
    a, b = (pd.DataFrame({"pooling": [x.pooling for x in c], "concat": [x.concat_label for x in c], "n_seeds": 3,
                          "mean": m, "std": np.linspace(0.3, 1.5, 9)}, [x.label for x in c]) for m in (
        (30, 37, 52.5, 55.25, 49, 58.75, 50, 61.5, 60.25), (71, 64, 44, 41.5, 46.75, 47, 49.5, 43.25, 45)))
    return [(a, "|u-v|", UV), (a, "u*v", UV), (b, "|u-v|", UV), (a, "u*v", ORDER[:3]), (b, "u*v", ("|u-v|",)),
            (b, "u*v", ORDER[:3]), (a, "|u-v|", ("u", "v", "u*v")), (b, "|u-v|", ("u*v",))]


def _gain(f=np.subtract, row=with_part, base_row=lambda b, p: b, read=grid_mean):
    """``gain`` written with a mistake: ``f(score with the part, score without)``, other rows, rows read otherwise."""
    return lambda r, p, b=UV: float(f(read(r, row(tuple(b), p)), read(r, base_row(tuple(b), p))))


ORDER_SLIP = "a row's parts are in Table 6's order, (u, v, |u-v|, u*v): a part added is not always last"
GAIN = Exercise('gain', probe="""
            _t = _pd.DataFrame({"pooling": ["max", "mean", "mean", "mean", "mean", "mean", "mean"],
                                "concat": ["(u, v, |u-v|)", "(u, v)", "(u, v, |u-v|)", "(u, v, u*v)", "(u, v, |u-v|, u*v)",
                                           "(|u-v|)", "(|u-v|, u*v)"],
                                "n_seeds": [2] * 7, "mean": [70.5, 52.25, 61.5, 50.0, 60.75, 55.0, 58.5],
                                "std": [0.5, 0.25, 1.0, 0.75, 0.5, 0.3, 0.2]})
            _t.index = [p + " pooling, " + c for p, c in zip(_t["pooling"], _t["concat"])]
            _result = [gain(_t, "|u-v|"), gain(_t, "u*v"), gain(_t, "u*v", ("u", "v", "|u-v|")), gain(_t, "u*v", ("|u-v|",)),
                       gain(_t, "|u-v|", ("u", "v", "u*v"))]
            """, reference=gain_truth, inputs=_gain_inputs, compare=_equal, slips={
        "abs(): keep the gain's sign (a part that hurts gains less than 0)": _gain(lambda w, o: abs(w - o)),
        "the sign is flipped: the score WITH the part minus the score WITHOUT": _gain(lambda w, o: o - w),
        "a relative change: Table 6 is read in points, a difference": _gain(lambda w, o: (w - o) / o),
        "a change in per cent: Table 6 is read in points, a difference": _gain(lambda w, o: 100 * (w - o) / o),
        "the ratio of the two scores: a part's worth is their difference": _gain(lambda w, o: w / o),
        "that is the score with the part: subtract the score without it": _gain(lambda w, o: w),
        "wrong rows: against the default (u, v, |u-v|), not `base`": _gain(base_row=lambda b, p: ORDER[:3]),
        "wrong rows: the part alone, not `base` with the part": _gain(row=lambda b, p: (p,)),
        "wrong rows: always against (u, v), not the `base` passed in": _gain(base_row=lambda b, p: UV),
        "wrong rows: `base` left out of both": _gain(row=lambda b, p: with_part(UV, p), base_row=lambda b, p: UV),
        "wrong rows: Table 6's concatenations are the mean-pooling rows": _gain(read=lambda r, c: np.mean(
            r.loc[r["concat"] == "(" + ", ".join(c) + ")", "mean"])),
        "'std' subtracted: the score is the 'mean' column": _gain(read=lambda r, c: grid_mean(r, c, column="std")),
        "the paper's gain (Table 6): read ours, the table passed in": _gain(read=lambda r, c: paper.TABLE6_CONCAT[c]),
        ORDER_SLIP: _gain(row=lambda b, p: b + (p,), read=lambda r, c: grid_mean(r, c) if c == tuple(
            sorted(c, key=ORDER.index)) else math.nan)},
    hint="the mean-pooling rows' 'mean': `base` with the part added minus `base` alone, in the table passed in",
    ok="gain compares the right two rows, in points, on 8 hidden Table 6 inputs")


def check_gain(gain, most_important, results: pd.DataFrame) -> None:
    """:data:`GAIN`; ``most_important``: the part of larger gain over (u, v) in ``results``, the student's grid."""
    hinted(GAIN.check, {"u*v, |u-v|": ORDER_SLIP}, gain)
    ours = {p: gain_truth(results, p) for p in PARTS}
    theirs = {p: paper.TABLE6_CONCAT[with_part(UV, p)] - paper.TABLE6_CONCAT[UV] for p in PARTS}
    pick = most_important.replace("−", "-").replace(" ", "").strip("\"'") if isinstance(most_important, str) else None
    require(pick in PARTS, f"most_important is {_brief(most_important)}", 'the part as a string: "|u-v|" or "u*v"')
    agree = "as in the paper" if pick == max(PARTS, key=theirs.get) else "unlike the paper"
    require(pick == max(PARTS, key=ours.get), f"in your grid adding |u-v| to (u, v) gains {ours['|u-v|']:+.2f}, u*v "
            f"{ours['u*v']:+.2f}; most_important = {pick!r}", "a negative gain costs points: compare the gains with "
            "their signs" if ours[pick] < 0 else "that is the paper's finding: what does *our* grid say?"
            if agree == "as in the paper" else "the part worth more is the one with the larger gain")
    d, se = ablation.difference(results, *(f"mean pooling, ({', '.join(with_part(UV, p))})" for p in PARTS))
    ok(f"adding |u−v| to (u, v) changes our STSb dev by {ours['|u-v|']:+.2f}, u*v by {ours['u*v']:+.2f} (paper: "
       f"{theirs['|u-v|']:+.2f}, {theirs['u*v']:+.2f}): {pick} first, {agree}; the two differ by {d:+.2f} ± {se:.2f}, "
       + ("one seed" if se != se else "beyond 2 standard errors" if abs(d) > 2 * se else "within seed noise"))


def _diff(d=float, se=lambda s, t, m, n: math.sqrt(s ** 2 / m + t ** 2 / n)):
    """``diff_and_se`` as the text's formula — ``se(std_a, std_b, n_a, n_b)`` — or written with a mistake."""
    return lambda r, a, b: (d(float(r.loc[a, "mean"] - r.loc[b, "mean"])),
                            float(se(*r.loc[[a, b], "std"], *r.loc[[a, b], "n_seeds"])))


def _difference_inputs() -> list[tuple]:
    """(table, a, b): unequal seed counts and spreads; a row of one seed (no spread, so its se is NaN)."""
    a, b, one = (pd.DataFrame({k: {"n_seeds": len(v), "mean": np.mean(v), "std": pd.Series(v).std(), **{
        f"seed {i}": x for i, x in enumerate(v, 1)}} for k, v in rows.items()}).T for rows in (
        dict(mean=(70.1, 72.4, 69.8, 71.0), max=(30.2, 18.9, 25.5)), dict(cls=(50, 58), mean=(61, 60.5, 62.5, 59)),
        dict(mean=(70.1, 72.4, 69.8), cls=(40.0,))))
    return [(a, "mean", "max"), (a, "max", "mean"), (b, "cls", "mean"), (one, "mean", "cls")]


DIFF_AND_SE = Exercise('diff_and_se', probe="""
            _table = _pd.DataFrame({"mean": [80.5, 78.25, 79.0], "std": [0.4, 0.9, 0.0], "n_seeds": [10, 4, 2]},
                                   index=["a", "b", "c"])
            _result = [diff_and_se(_table, "a", "b"), diff_and_se(_table, "c", "a")]
            """, reference=ablation.difference, inputs=_difference_inputs, compare=_equal,
    returns=lambda got, what: require(np.shape(got) == (2,) and not isinstance(got, dict), f"{what} returned "
                                      f"{_brief(got)}, not a pair", "return (difference, standard error), that order")
    or got, slips={
        "abs(): keep the sign, the first row minus the second": _diff(d=abs),
        "the sign is flipped: the first row minus the second": _diff(d=lambda x: -x),
        "one seed has no spread: its std, so the se, is NaN — not 0": lambda *a: tuple(np.nan_to_num(_diff()(*a))),
        "no seed counts: a mean over n seeds has the variance std²/n": _diff(se=lambda s, t, m, n: math.hypot(s, t)),
        "the standard errors added: they add in quadrature": _diff(se=lambda s, t, m, n: s / m ** .5 + t / n ** .5),
        "the stds added: each mean's uncertainty shrinks with √n": _diff(se=lambda s, t, m, n: s + t),
        "the first row's uncertainty only: the second counts too": _diff(se=lambda s, t, m, n: s / m ** .5),
        "seed counts pooled: each row's variance over its own n": _diff(se=lambda s, t, m, n: math.sqrt(
            (s * s + t * t) / (m + n))),
        "the population std (ddof=0): use the sample std, the 'std' column": lambda r, a, b: _diff()(
            r.assign(std=r.filter(like="seed ").astype(float).std(axis=1, ddof=0)), a, b)},
    hint="reread Exercise 4's text: each row's standard error from its 'std' and 'n_seeds', then how the two combine")


def check_difference(diff_and_se, results: pd.DataFrame | None = None) -> None:
    """:data:`DIFF_AND_SE`, and on ``results`` (the notebook's grid: mean vs max pooling) where it has several seeds."""
    rows = ("mean pooling, (u, v, |u-v|)", "max pooling, (u, v, |u-v|)")
    mine = [(results, *rows)] if results is not None and {*rows} <= {*results.index} and min(results["n_seeds"]) > 1 \
        else []
    replace(DIFF_AND_SE, inputs=lambda: _difference_inputs() + mine, ok=f"diff_and_se matches the library on "
            f"{4 + len(mine)} tables (difference of means, √(s_a²/n_a + s_b²/n_b))").check(diff_and_se)


def copy_with_pooling(start, pooling: str):
    encoder = copy.deepcopy(start)
    encoder.pooling = pooling
    return encoder


def library_point(start, evaluator, pairs: list, objective: str, p: dict) -> dict[str, float]:
    """One point trained with the library's ``fit`` (``p``: its pooling, concat, seed, batch_size, lr, epochs (0:
    untrained) and, where a mistake sets it, loop_seed): score, last and mean loss."""
    from ...losses import CosineSimilarityLoss, SoftmaxLoss
    from ...training import TrainingArguments, fit, seed_everything
    encoder, _ = copy_with_pooling(start, p["pooling"]), seed_everything(p["seed"])
    loss = SoftmaxLoss(encoder, concat=p["concat"]) if objective == "classification" else CosineSimilarityLoss(encoder)
    args = TrainingArguments(max(p["epochs"], 1), p["batch_size"], p["lr"], seed=p.get("loop_seed") or p["seed"])
    losses = fit(encoder, loss, pairs, args, show_progress_bar=False).losses if p["epochs"] else [0.0]
    return {"score": float(evaluator(encoder)), "last": losses[-1], "mean": float(np.mean(losses))}


# The check's points (config, seed, objective, pairs, epochs), at batch size 6 and lr 3e-3: no profile or cell holds
# them (HARD_CODED: what they hold), so that an argument ignored trains another run, which POINT_SLIPS names.
POINTS = ((ablation.AblationConfig("max"), 17, "classification", 18, 1), (ablation.AblationConfig("mean", UV), 23,
          "classification", 12, 2), (ablation.AblationConfig("cls"), 31, "regression", 18, 1),
          (ablation.AblationConfig("mean"), 13, "regression", 12, 3))
HARD_CODED = {"epochs": (1, 2, 4), "lr": (2e-5, 1e-3), "batch_size": (16, 8, 32, 64), "seed": (42, 1, 2, 3)}
POINT_SLIPS = {  # {message: what train_and_score written with that mistake returns (library_point's arguments)}
    "that is the training loss (the last step's), not the score: return stsb_dev(encoder)": dict(returns="last"),
    "that is the training loss (its mean), not the score: return stsb_dev(encoder)": dict(returns="mean"),
    "that is the untrained network's score: train the copy before you score it": dict(epochs=0),
    "the run used mean pooling: set the copy's pooling to config.pooling": dict(pooling="mean"),
    "the classifier saw the default features: build the loss with concat=config.concat": dict(concat=ORDER[:3]),
    "your loop kept its own seed (42): pass seed=seed to it too (it seeds the data order, dropout)": dict(loop_seed=42),
    **{f"that is the run with {k}={v:g}: your function ignores its `{k}` argument": {k: v}
       for k, values in HARD_CODED.items() for v in values}}
RAISED = {"classification": {"is not a class id": "num_labels is the number of classes, 3, whatever the concatenation",
                             "gold score": "the NLI points train the 3-way classifier (SoftmaxLoss): labels are "
                                           "classes"},
          "regression": {"is not a class id": "the regression points train a cosine against the score, no classifier"}}
PAIRS = {"third argument": "leave `train_pairs` as it is (the notebook's pairs): your loop shuffles with the seed"}


def _scored(train_and_score, args: tuple, start, what: str) -> float:
    """The student's score of one point, an error named by :data:`RAISED`; ``start`` must come out as it went in."""
    state = lambda: {"weights": [float(t.double().sum()) for t in start.state_dict().values()],  # noqa: E731
                     "pooling": start.pooling, "max_seq_length": start.max_seq_length}
    before, value = state(), hinted(call, {**PAIRS, **RAISED[args[3]]}, train_and_score, *args, what=what)
    changed = [k if k == "weights" else f"{k} from {before[k]!r} to {v!r}" for k, v in state().items()
               if v != before[k]]
    require(not changed, f"{what} changed `start`, the untrained network: its {', '.join(changed)}", "work on a fresh "
            "copy (copy.deepcopy) in every call: `start` is shared by every run of the grid")
    return one_number(value, what, "the STSb dev score of the trained copy, stsb_dev(encoder): one float")


def check_train_and_score(train_and_score, start, evaluator, nli_pairs, stsb_pairs) -> None:
    """Each of :data:`POINTS` (the first twice) beside :func:`library_point`; a score 0.01 away: :data:`POINT_SLIPS`."""
    for k, (config, seed, objective, n, epochs) in enumerate(POINTS):
        pairs = list((nli_pairs if objective == "classification" else stsb_pairs)[:n])
        args = (config, seed, pairs, objective, 6, 3e-3, epochs)[:6 + (epochs > 1)]
        what = f"train_and_score({config.label}, {seed}, {objective}, batch_size=6, lr=0.003, epochs={epochs})"
        got = [_scored(train_and_score, args, start, what) for _ in range(1 + (k == 0))]
        require(abs(got[0] - got[-1]) <= 0.01, f"{what} gave {got[0]:.2f}, then {got[-1]:.2f}", "a seeded run gives "
                "one score: a fresh copy of `start` in every call, seed_everything(seed) before the loss is built")
        point = dict(pooling=config.pooling, concat=config.concat, seed=seed, batch_size=6, lr=3e-3, epochs=epochs)
        with reference_numerics():   # one library run per mistake; a loss returned is read from the right run's
            run = functools.lru_cache(lambda key: library_point(start, evaluator, pairs, objective, point | dict(key)))
            if abs(got[0] - run(())["score"]) > 0.01:
                slips = {m: (lambda s=s: run(tuple((key, v) for key, v in s.items() if key != "returns"))[s.get(
                    "returns", "score")]) for m, s in POINT_SLIPS.items() if not s.items() <= point.items()}
                raise ExerciseError(f"{what} scored {got[0]:.2f}, not the library's run\nHint: " + named_slip(
                    got[0], slips, "a fresh copy of `start` with the pooling, seed_everything(seed), the objective's "
                    "loss, your loop given the point's settings, the score", close=lambda a, b: abs(a - b) <= 0.01))
    ok("train_and_score trains each point as the library's grid does (fresh copy, pooling, seed, objective, "
       "concatenation, and the batch size, lr and epochs passed in) — with your training loop")


def _fake_scores(config, seed: int) -> float:
    """A stand-in for one training's score (no training); seeds 8 and 9 tie, as two short runs can."""
    h, seed = sum(ord(c) * (i + 1) for i, c in enumerate(config.label)) % 997, 8 if seed == 9 else seed
    return 40.0 + (h % 37) + ((seed * 7919 + h) % 101) / 10.0 + ((seed * 31 + h) % 97) / 9973.0  # digits to round off


def run_ablation_truth(configs, seeds, train_and_score) -> pd.DataFrame:
    """The table ``ablation.run_grid`` makes of ``train_and_score(config, seed)``'s scores (its own summary)."""
    return ablation._summary(pd.DataFrame([{"config": c.label, "seed": s, "score": float(train_and_score(c, s))}
                                           for c in configs for s in seeds]), configs, seeds)


GRIDS = ((ablation.table6_configs(), (1, 2, 3)), (ablation.pooling_configs(), (5, 2)),
         (ablation.table6_configs()[3:6], (4,)), (ablation.pooling_configs(), (8, 9, 3)))
ONE_SEED = "one seed has no spread: its std is NaN (pandas' std, ddof=1), not 0 or an error"
_seeds = lambda r: r.filter(like="seed ").astype(float)  # noqa: E731 - the `seed <s>` columns of a table
_then = lambda f: lambda *a: f(run_ablation_truth(*a))  # noqa: E731 - a slip that changes the right table
TABLE_SLIPS = {  # {message: run_ablation written with that mistake}
    ONE_SEED: _then(lambda r: r.fillna({"std": 0.0})),
    "the population std (ddof=0): use the sample std, ddof=1": _then(lambda r: r.assign(std=_seeds(r).std(1, ddof=0))),
    "pass each seed of `seeds` itself, not its position": lambda c, s, t: run_ablation_truth(c, range(len(s)), t),
    "call train_and_score for every seed, none left out": lambda c, s, t: run_ablation_truth(c, s[:1], t),
    "n_seeds counts the seeds, not distinct scores": _then(lambda r: r.assign(n_seeds=_seeds(r).nunique(axis=1))),
    "did you round the scores? Rounding is for printing": lambda c, s, t: run_ablation_truth(c, s, lambda *a: round(
        t(*a), 2)),
    "the column 'seed <s>' holds seed s's score": lambda c, s, t: run_ablation_truth(c, s, t).rename(
        columns={f"seed {x}": f"seed {y}" for x, y in zip(s, s[::-1])}),
    "a row per configuration, in order, indexed by config.label": _then(lambda r: r.reset_index(drop=True))}


def _grid_table(table, what: str) -> pd.DataFrame:
    """The student's table with its text columns moved into the index, its number columns kept (messages show them)."""
    require(isinstance(table, pd.DataFrame), f"{what} returned a {type(table).__name__}", "a DataFrame, a row each")
    missing = {"pooling", "concat", "n_seeds", "mean", "std"} - set(table.columns)
    require(not missing, f"{what}: your table has no column {sorted(missing)}", "pooling, concat, n_seeds, mean, std")
    bad = [c for c in ("n_seeds", "mean", "std") if not pd.api.types.is_numeric_dtype(table[c])]
    require(not bad, f"{what}: the column {bad[0] if bad else ''} holds {_brief(list(table[bad[0]])) if bad else ''}",
            "n_seeds, mean and std: one number per row (a count, the mean and the sample std of the seeds' scores)")
    return table.set_index(["pooling", "concat"], append=True).select_dtypes("number")


def _same_table(got, want) -> bool:
    """``want``'s rows in order and its numbers (a ``seed <s>`` column only where ``got`` has one)."""
    got, want = (t.set_index(["pooling", "concat"], append=True) if "pooling" in t else t for t in (got, want))
    return [tuple(map(str, i)) for i in got.index] == [tuple(map(str, i)) for i in want.index] and all(
        _equal(got[c].to_numpy(), want[c].to_numpy()) for c in want if c in got)


RUN_ABLATION = Exercise('run_ablation', reference=run_ablation_truth, returns=_grid_table, compare=_same_table,
                        inputs=lambda: [(list(c), list(s), _fake_scores) for c, s in GRIDS], slips=TABLE_SLIPS,
                        hint="concat: config.concat_label; n_seeds: how many seeds; mean, std: of their scores",
                        ok="run_ablation runs every configuration once per seed and tabulates mean and sample std "
                           "like the library's grid")


def check_run_ablation(run_ablation) -> None:
    hinted(RUN_ABLATION.check, {"StatisticsError": ONE_SEED}, run_ablation)


EXERCISES = (CLASSIFIER_SIZE, GAIN, Exercise('most_important', probe=None), DIFF_AND_SE, RUN_ABLATION)
# most_important: graded by its check; run_ablation's probe, as an undeclared name's: its value

guard(globals())   # last: every check above shows its own failures as an ExerciseError
