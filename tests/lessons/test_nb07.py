"""The checks of notebook 07 (ablations): each passes a right answer and rejects the usual wrong
ones with a message naming the mistake (sbertlib.workbook.lessons.nb07)."""
from __future__ import annotations

import copy
import math
import matplotlib
import numpy as np
import pandas as pd
import pytest
import re
import torch

matplotlib.use("Agg")

from sbertlib import paper  # noqa: E402
from sbertlib.evaluation import ablation  # noqa: E402
from sbertlib.workbook.lessons import training_runs, ExerciseError, nb07  # noqa: E402
from lesson_helpers import IN_PLACE, not_done, train_loop


def test_nb07_classifier_size_right(capsys):
    nb07.check_classifier_size(lambda concat, n, k: len(concat) * n * k + k)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (lambda concat, n, k: len(concat) * n * k, "bias"),
    (lambda concat, n, k: 3 * n * k + k, "count the parts in `concat`"),
    (lambda concat, n, k: len(concat) * n, "size of the classifier's input"),
    (lambda concat, n, k: len(concat) * n * 3 + 3, "not 3"),
    (lambda concat, n, k: None, None),
    (lambda concat, n, k: "lots", None),
])
def test_nb07_classifier_size_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_classifier_size(wrong)


def _results(scores: dict[tuple[str, ...], float]) -> pd.DataFrame:
    rows = {"max pooling, (u, v, |u-v|)": {"pooling": "max", "concat": "(u, v, |u-v|)", "n_seeds": 2,
                                           "mean": 99.0, "std": 0.1}}  # first, as a table may order it
    for concat, score in scores.items():
        label = "(" + ", ".join(concat) + ")"
        rows[f"mean pooling, {label}"] = {"pooling": "mean", "concat": label, "n_seeds": 2,
                                          "mean": score, "std": 0.5 + score / 1000}
    return pd.DataFrame.from_dict(rows, orient="index")


RESULTS = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 53.5, ("u", "v", "u*v"): 48.0, ("|u-v|",): 51.0})


def good_gain(results, part, base=("u", "v")):
    with_part = tuple(p for p in ("u", "v", "|u-v|", "u*v") if p in base or p == part)   # Table 6's order
    return nb07.grid_mean(results, with_part) - nb07.grid_mean(results, base)


def _rows(results, concat):
    return results[results["concat"] == "(" + ", ".join(concat) + ")"]


def test_nb07_gain_right(capsys):
    nb07.check_gain(good_gain, "|u-v|", RESULTS)
    nb07.check_gain(lambda r, p, b=("u", "v"): torch.tensor(good_gain(r, p, b)), "|u−v|", RESULTS)  # a tensor, a − sign
    out = capsys.readouterr().out
    assert out.count("[OK]") == 4 and "|u-v| is worth more" in out and "+3.50" in out and "-2.00" in out


# Each wrong gain: the student's function written with that mistake, and the words its message must hold.
def _mean_row(r, concat, column="mean"):
    rows = _rows(r, concat)
    return float(rows[rows["pooling"] == "mean"][column].iloc[0])


@pytest.mark.parametrize("wrong, says", [
    (lambda r, p, b=("u", "v"): good_gain(r, p, b) * -1, "sign is flipped"),
    (lambda r, p, b=("u", "v"): good_gain(r, p, b) / nb07.grid_mean(r, b), "relative change"),
    (lambda r, p, b=("u", "v"): 100 * good_gain(r, p, b) / nb07.grid_mean(r, b), "in per cent"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)) / nb07.grid_mean(r, b), "ratio of the two scores"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)) - nb07.grid_mean(r, ("u", "v", "|u-v|")),
     "compared with the default"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, (p,)) - nb07.grid_mean(r, b), "the part alone"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)) - nb07.grid_mean(r, ("u", "v")), "always compared with (u, v)"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, ("u", "v", p)) - nb07.grid_mean(r, ("u", "v")), "left `base` out"),
    (lambda r, p, b=("u", "v"): _rows(r, b + (p,))["mean"].mean() - _rows(r, b)["mean"].mean(), "averaged every pooling"),
    (lambda r, p, b=("u", "v"): _rows(r, b + (p,))["mean"].iloc[0] - _rows(r, b)["mean"].iloc[0], "another pooling's"),
    (lambda r, p, b=("u", "v"): nb07.grid_mean(r, b + (p,)), "the score with the part itself"),
    (lambda r, p, b=("u", "v"): _mean_row(r, b + (p,), "std") - _mean_row(r, b, "std"), "'std' column"),
    (lambda r, p, b=("u", "v"): paper.TABLE6_CONCAT[b + (p,)] - paper.TABLE6_CONCAT[b], "the paper's gain"),
])
def test_nb07_gain_wrong_answers_are_named(wrong, says):
    with pytest.raises(ExerciseError, match=r"gain\(<DataFrame of shape") as err:
        nb07.check_gain(wrong, "|u-v|", RESULTS)
    assert says in str(err.value)


@pytest.mark.parametrize("wrong", [lambda r, p, b=("u", "v"): None, lambda r, p, b=("u", "v"): "big",
                                   lambda r, p, b=("u", "v"): good_gain(RESULTS, p, b)])   # not the table passed in
def test_nb07_gain_other_wrong_answers_fail_with_the_generic_hint(wrong):
    with pytest.raises(ExerciseError, match="from the table passed in"):
        nb07.check_gain(wrong, "|u-v|", RESULTS)


def test_nb07_gain_stub_and_its_error_are_reported_as_everywhere():
    def stub(results, part, base=("u", "v")):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb07.check_gain(stub, "|u-v|", RESULTS)
    with pytest.raises(ExerciseError, match="raised KeyError"):
        nb07.check_gain(lambda r, p, b=("u", "v"): r.loc[p, "mean"], "|u-v|", RESULTS)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb07.check_gain(3.5, "|u-v|", RESULTS)


@pytest.mark.parametrize("pick, says", [
    ("u*v", "gains +3.50, adding u*v -2.00"),
    (("u", "v", "|u-v|"), "the part alone, as a string"),
    ("diff", '"|u-v|" or "u*v"'),
    (..., '"|u-v|" or "u*v"'),
])
def test_nb07_most_important_wrong(pick, says):
    with pytest.raises(ExerciseError, match=re.escape(says)):
        nb07.check_gain(good_gain, pick, RESULTS)


def test_nb07_most_important_names_the_paper_and_the_size_slips(capsys):
    product_wins = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 51.0, ("u", "v", "u*v"): 56.0})
    with pytest.raises(ExerciseError, match="that is the paper's finding"):
        nb07.check_gain(good_gain, "|u-v|", product_wins)
    nb07.check_gain(good_gain, "u*v", product_wins)
    out = capsys.readouterr().out
    assert "u*v ranks first, unlike the paper" in out and "beyond 2 standard errors: u*v is worth more" in out
    costs_more = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 46.0, ("u", "v", "u*v"): 51.0})
    with pytest.raises(ExerciseError, match="compare the two gains with their signs"):
        nb07.check_gain(good_gain, "|u-v|", costs_more)


def test_nb07_gain_compares_the_two_with_their_standard_error(capsys):
    close = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 50.05, ("u", "v", "u*v"): 49.1})
    nb07.check_gain(good_gain, "|u-v|", close)  # |u-v| − u*v = 0.95, se ≈ 0.55: within the seed noise
    out = capsys.readouterr().out
    assert "seed noise alone could swap it" in out and "worth more" not in out
    nb07.check_gain(good_gain, "|u-v|", close.assign(n_seeds=1, std=np.nan))
    assert "no standard error" in capsys.readouterr().out


def test_nb07_gain_needs_the_grid_rows():
    with pytest.raises(ExerciseError, match=r"no single row for mean pooling with \(u, v, u\*v\)"):
        nb07.check_gain(good_gain, "|u-v|", RESULTS.drop(index="mean pooling, (u, v, u*v)"))
    assert nb07.grid_mean(RESULTS, ("u", "v")) == 50.0


def test_nb07_gain_reference_and_probe_agree():
    import textwrap
    ex = next(e for e in nb07.EXERCISES if e.name == "gain")
    scope = {"_pd": pd, "_np": np, "gain": nb07.gain_truth}
    exec(textwrap.dedent(ex.probe_code).strip(), scope)
    assert scope["_result"] == pytest.approx([9.25, -2.25, -0.75, 3.5, 10.75])
    assert next(e for e in nb07.EXERCISES if e.name == "most_important").probe is None


def good_diff(results, a, b):
    ra, rb = results.loc[a], results.loc[b]
    return ra["mean"] - rb["mean"], math.sqrt(ra["std"] ** 2 / ra["n_seeds"] + rb["std"] ** 2 / rb["n_seeds"])


def _seed_grid() -> pd.DataFrame:
    rows = {}
    for pooling, scores in (("mean", (71.6, 69.8, 70.4)), ("max", (28.9, 20.0, 17.2)), ("cls", (16.6, 19.3, 40.1))):
        s = pd.Series(scores)
        rows[f"{pooling} pooling, (u, v, |u-v|)"] = {"pooling": pooling, "concat": "(u, v, |u-v|)", "n_seeds": 3,
                                                      "mean": s.mean(), "std": s.std(ddof=1),
                                                      **{f"seed {i}": v for i, v in enumerate(scores, 1)}}
    return pd.DataFrame.from_dict(rows, orient="index")


def test_nb07_difference_right(capsys):
    nb07.check_difference(good_diff, _seed_grid())
    nb07.check_difference(lambda r, a, b: [np.float64(x) for x in good_diff(r, a, b)])  # any pair of numbers
    assert capsys.readouterr().out.count("[OK]") == 2


def _s(r, a, b):
    return r.loc[a], r.loc[b]


@pytest.mark.parametrize("wrong, hint", [
    (lambda r, a, b: (-good_diff(r, a, b)[0], good_diff(r, a, b)[1]), "sign"),
    (lambda r, a, b: (good_diff(r, a, b)[0], math.hypot(_s(r, a, b)[0]["std"], _s(r, a, b)[1]["std"])), "number of seeds"),
    (lambda r, a, b: (good_diff(r, a, b)[0], _s(r, a, b)[0]["std"] / math.sqrt(_s(r, a, b)[0]["n_seeds"])
                      + _s(r, a, b)[1]["std"] / math.sqrt(_s(r, a, b)[1]["n_seeds"])), "quadrature"),
    (lambda r, a, b: (good_diff(r, a, b)[0], _s(r, a, b)[0]["std"] + _s(r, a, b)[1]["std"]), "adds the two stds"),
    (lambda r, a, b: (good_diff(r, a, b)[0], _s(r, a, b)[0]["std"] / math.sqrt(_s(r, a, b)[0]["n_seeds"])), "second row"),
    (lambda r, a, b: (good_diff(r, a, b)[0], math.sqrt(sum(
        pd.Series([x[c] for c in r.columns if c.startswith("seed ")]).dropna().std(ddof=0) ** 2 / x["n_seeds"]
        for x in _s(r, a, b)))), "sample std"),
    (lambda r, a, b: good_diff(r, a, b)[0], "pair"),
    (lambda r, a, b: None, None),
    (lambda r, a, b: (..., 1.0), None),
])
def test_nb07_difference_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_difference(wrong, _seed_grid())


def test_nb07_difference_not_a_function():
    with pytest.raises(ExerciseError):
        nb07.check_difference(3.0)


def run_ablation_with(n_seeds=len, mean=np.mean, std=lambda scores: pd.Series(scores).std(ddof=1)):
    """A run_ablation that tabulates each configuration's scores with the given statistics (a mistake in one)."""
    def run_ablation(configs, seeds, train_and_score):
        rows = {}
        for config in configs:
            scores = [train_and_score(config, seed) for seed in seeds]
            rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": n_seeds(scores),
                                  "mean": mean(scores), "std": std(scores)}
        return pd.DataFrame.from_dict(rows, orient="index")
    return run_ablation


# ============================================================================= 07: run_ablation
def good_run_ablation(configs, seeds, train_and_score):
    rows = {}
    for config in configs:
        scores = pd.Series([train_and_score(config, seed) for seed in seeds], index=seeds, dtype=float)
        rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": len(scores),
                              "mean": scores.mean(), "std": scores.std(ddof=1)}
    return pd.DataFrame.from_dict(rows, orient="index")


def _with(**change):
    def run(configs, seeds, train_and_score):
        table = good_run_ablation(configs, seeds, train_and_score)
        for column, fn in change.items():
            table[column] = fn(table, configs, seeds, train_and_score)
        return table
    return run


def test_run_ablation_right(capsys):
    nb07.check_run_ablation(good_run_ablation)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, hint", [
    (_with(std=lambda t, c, s, f: [np.std([nb07._fake_scores(x, y) for y in s]) for x in c]), "population std"),
    (_with(std=lambda t, c, s, f: t["std"].fillna(0.0)), "NaN"),
    (_with(concat=lambda t, c, s, f: [str(x.concat) for x in c]), "concat_label"),
    (_with(mean=lambda t, c, s, f: t["mean"] + 1), "average of one configuration"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds[:1], f), "once for every configuration"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds, f).drop(columns="n_seeds"), "no column"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds, f).reset_index(drop=True), "indexed by config.label"),
    (lambda configs, seeds, f: good_run_ablation(configs, seeds, f).to_dict(), "DataFrame"),
    (not_done, "not written yet"),
])
def test_run_ablation_wrong(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_run_ablation(wrong)


def _with_seed_columns(order=lambda scores: scores, rounding=None):
    def run(configs, seeds, train_and_score):
        rows = {}
        for config in configs:
            scores = [train_and_score(config, seed) for seed in seeds]
            scores = [round(x, rounding) for x in scores] if rounding is not None else scores
            s = pd.Series(scores, dtype=float)
            rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": len(s),
                                  "mean": s.mean(), "std": s.std(ddof=1),
                                  **{f"seed {seed}": x for seed, x in zip(seeds, order(scores))}}
        return pd.DataFrame.from_dict(rows, orient="index")
    return run


@pytest.mark.parametrize("wrong, hint", [
    (_with_seed_columns(order=lambda scores: scores[::-1]), "the column 'seed 1' does not hold seed 1's scores"),
    (_with_seed_columns(order=sorted), "does not hold seed"),
    (_with_seed_columns(rounding=2), "did you round the scores"),
], ids=["reversed", "sorted", "rounded"])
def test_run_ablation_seed_columns_and_rounding_are_checked(wrong, hint):
    """The fourth trial (2026-11-27): mislabelled `seed <s>` columns and scores rounded to 2 decimals passed."""
    nb07.check_run_ablation(_with_seed_columns())   # the right columns pass
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_run_ablation(wrong)


def test_run_ablation_truth_is_run_grids_summary():
    configs, seeds = ablation.table6_configs()[:4], (3, 1)
    truth = nb07.run_ablation_truth(configs, seeds, nb07._fake_scores)
    assert list(truth.index) == [c.label for c in configs]
    assert truth["std"].iloc[0] == pytest.approx(np.std([nb07._fake_scores(configs[0], s) for s in seeds], ddof=1))
    assert math.isnan(nb07.run_ablation_truth(configs, (1,), nb07._fake_scores)["std"].iloc[0])


def test_run_ablation_and_train_and_score_refuse_non_functions():
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb07.check_run_ablation(3)
    with pytest.raises(ExerciseError, match="pass your function itself"):
        nb07.check_train_and_score(None, None, None, [], [])


# ============================================================================= 07: train_and_score
@pytest.fixture(scope="module")
def grid_world(shared_data):
    from sbertlib import data, evaluation
    from sbertlib.model.encoder import SentenceEncoder
    start = SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32)
    return (start, evaluation.STSEvaluator(split="dev", max_pairs=80), data.load_snli("dev")[:48],
            data.load_stsb("train")[:48])


def make_train_and_score(start, evaluator, fresh=True, set_pooling=True, seed_first=True, use_concat=True,
                         train=True, use_epochs=True, pass_seed=True, returns="score", labels_from_concat=False):
    from sbertlib.losses import CosineSimilarityLoss, SoftmaxLoss
    from sbertlib.training import prepare_examples, seed_everything

    def train_and_score(config, seed, pairs, objective, batch_size, lr, epochs=1):
        encoder = copy.deepcopy(start) if fresh else start
        if set_pooling:
            encoder.pooling = config.pooling
        if seed_first:
            seed_everything(seed)
        concat = config.concat if use_concat else ablation.AblationConfig().concat
        loss = (SoftmaxLoss(encoder, num_labels=len(concat) if labels_from_concat else 3, concat=concat)
                if objective == "classification" else CosineSimilarityLoss(encoder))
        if not seed_first:
            seed_everything(seed)
        step_losses = [float("nan")]
        if train:
            step_losses = train_loop(loss, prepare_examples(pairs, loss), epochs=epochs if use_epochs else 1,
                                   batch_size=batch_size, lr=lr, **(dict(seed=seed) if pass_seed else {}))
        return {"score": evaluator(encoder), "last loss": step_losses[-1],
                "mean loss": sum(step_losses) / len(step_losses)}[returns]
    return train_and_score


def test_train_and_score_right(grid_world, capsys):
    start, evaluator, nli, stsb = grid_world
    nb07.check_train_and_score(make_train_and_score(start, evaluator), start, evaluator, nli, stsb)
    assert "[OK]" in capsys.readouterr().out


def written_as_in_the_notebook(start, evaluator, passed: str = "epochs=epochs, batch_size=batch_size, lr=lr, seed=seed"):
    """The notebook's train_and_score as a cell defines it: source run in a namespace where `train_loop` (notebook 03's
    loop, as the library runs it) is a global the function names; ``passed`` is what it passes to the loop."""
    from sbertlib.losses import CosineSimilarityLoss, SoftmaxLoss
    from sbertlib.training import prepare_examples, seed_everything
    from sbertlib.workbook.lessons.nb03 import fit_loop
    space = dict(copy=copy, start=start, stsb_dev=evaluator, seed_everything=seed_everything, SoftmaxLoss=SoftmaxLoss,
                 CosineSimilarityLoss=CosineSimilarityLoss, prepare_examples=prepare_examples, train_loop=fit_loop)
    exec("def train_and_score(config, seed, train_pairs, objective, batch_size, lr, epochs=1):\n"
         "    encoder = copy.deepcopy(start)\n"
         "    encoder.pooling = config.pooling\n"
         "    seed_everything(seed)\n"
         "    loss = (SoftmaxLoss(encoder, num_labels=3, concat=config.concat) if objective == 'classification'\n"
         "            else CosineSimilarityLoss(encoder))\n"
         f"    train_loop(loss, prepare_examples(train_pairs, loss), {passed})\n"
         "    return stsb_dev(encoder)\n", space)
    return space["train_and_score"], space


def test_train_and_score_written_in_the_notebook_has_its_loop_read_and_passes(grid_world, capsys):
    start, evaluator, nli, stsb = grid_world
    fn, space = written_as_in_the_notebook(start, evaluator)
    nb07.check_train_and_score(fn, start, evaluator, nli, stsb)
    assert "[OK]" in capsys.readouterr().out
    reached = training_runs.settings_at_loop(fn, (nb07.SPY_POINTS[0][0], 5, nli[:4], "classification", 2, 0.5, 7), "f")
    assert reached[0] == "fit_loop" and reached[1]["epochs"] == 7 and reached[1]["seed"] == 5


# Clamps whose threshold the check's real points never reach: the same runs there, named by what reaches the loop.
@pytest.mark.parametrize("passed, shown", [
    ("epochs=min(epochs, 3), batch_size=batch_size, lr=lr, seed=seed", "epochs=3 where the point passed in says 1000"),
    ("epochs=epochs, batch_size=batch_size, lr=min(lr, 1e-2), seed=seed", "lr=0.01 where the point passed in says 7.5"),
    ("epochs=epochs, batch_size=batch_size, lr=max(lr, 1e-6), seed=seed", "lr=1e-06 where the point passed in says 1e-09"),
    ("epochs=epochs, batch_size=max(batch_size, 2), lr=lr, seed=seed", "batch_size=2 where the point passed in says 1"),
    ("epochs=epochs, batch_size=batch_size, lr=lr, seed=seed % 1000", "seed=647 where the point passed in says 2147483647"),
    ("epochs=epochs, batch_size=batch_size, lr=lr, seed=seed or 42", "seed=42 where the point passed in says 0"),
    ("epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, length_grouping=len(train_pairs) > 50",
     r"length_grouping=True where the library's grid \(your loop's default\) says False"),
    ("epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, warmup_ratio=0.0",
     r"warmup_ratio=0.0 where the library's grid \(your loop's default\) says 0.1"),
])
def test_train_and_score_clamping_a_setting_is_named(grid_world, passed, shown):
    start, evaluator, nli, stsb = grid_world
    fn, space = written_as_in_the_notebook(start, evaluator, passed)
    loop = space["train_loop"]
    with pytest.raises(ExerciseError, match=shown + ".* to fit_loop"):
        nb07.check_train_and_score(fn, start, evaluator, nli, stsb)
    assert space["train_loop"] is loop


@pytest.mark.parametrize("mistake, hint", [
    (dict(set_pooling=False), "set the copy's pooling"),
    (dict(use_concat=False), "concat=config.concat"),
    (dict(train=False), "untrained network's score"),
    (dict(fresh=False), "changed the weights of `start`"),
    (dict(use_epochs=False), "the score of one epoch: pass `epochs`"),  # issue 29: passed before
    (dict(pass_seed=False), r"loop kept its own default seed \(42\).*pass seed=seed to it too"),   # issue 29, stop 32
    (dict(returns="last loss"), r"that is the training loss \(its last step's value\), not the score"),
    pytest.param(dict(returns="mean loss"), r"training loss \(its mean value\)", marks=pytest.mark.slow),
])
def test_train_and_score_wrong(runs_only, grid_world, mistake, hint):
    start, evaluator, nli, stsb = grid_world
    start = copy.deepcopy(start)  # a wrong answer may train it
    with pytest.raises(ExerciseError, match=hint):
        nb07.check_train_and_score(make_train_and_score(start, evaluator, **mistake), start, evaluator, nli, stsb)


def test_train_and_score_stub_is_not_done(grid_world):
    start, evaluator, nli, stsb = grid_world
    with pytest.raises(ExerciseError, match="not written yet"):
        nb07.check_train_and_score(not_done, start, evaluator, nli, stsb)


def test_table6_figures():
    from sbertlib.evaluation import reports
    from sbertlib.workbook import figures
    configs = ablation.table6_configs()
    overview = figures.table6_overview(configs)
    assert len(overview) == 9 and overview.loc[1, "paper: NLI (classification)"] == 80.78
    nli = nb07.run_ablation_truth(configs, (1, 2), nb07._fake_scores)
    reg = nb07.run_ablation_truth(ablation.pooling_configs(), (1, 2), nb07._fake_scores)
    pooling = ablation.pooling_table(nli, reg, "test")
    _, concat = reports.table6(nli, "test")
    assert len(figures.table6_bars(pooling, concat, "test").axes) == 2
    lines = figures.grid_findings(nli, reg, {"mean": 10.0, "max": 90.0, "cls": 50.0})
    assert lines[0].startswith("NLI : 9 configurations") and "rank agreement" in lines[-2]
    import matplotlib.pyplot as plt
    plt.close("all")


def test_nb07_run_ablation_that_empties_the_configs_it_was_given_is_refused():
    from sbertlib.workbook.lessons import nb07

    def run_ablation(configs, seeds, train_and_score):
        rows = {}
        while configs:                      # consumes the caller's list
            c = configs.pop(0)
            s = [train_and_score(c, seed) for seed in seeds]
            rows[c.label] = {"pooling": c.pooling, "concat": c.concat_label, "n_seeds": len(s),
                             "mean": np.mean(s), "std": np.std(s, ddof=1) if len(s) > 1 else np.nan}
        import pandas as pd
        return pd.DataFrame.from_dict(rows, orient="index")
    with pytest.raises(ExerciseError, match=r"run_ablation on a grid .*" + IN_PLACE):
        nb07.check_run_ablation(run_ablation)


def test_nb07_classifier_size_stub_is_reported_as_everywhere():
    from sbertlib.workbook.lessons import nb07

    def classifier_size(concat, n, k=3):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="the exercise is not done yet: classifier_size"):
        nb07.check_classifier_size(classifier_size)


# ============================================================================= student trial, round 2
# 1 · train_and_score that ignores an argument: the check's points use values no profile holds, and the message
# names the argument ignored.
def test_nb07_point_settings_are_none_a_student_could_hard_code():
    values = nb07.hard_codable()
    assert nb07.POINT_SETTINGS["lr"] not in values["lr"] and nb07.POINT_SETTINGS["batch_size"] not in values["batch_size"]
    assert nb07.POINT_EPOCHS not in values["epochs"] and not set(nb07.POINT_SEEDS) & set(values["seed"])
    from sbertlib.workbook.profiles import PROFILES
    assert all(prof.nli.lr != nb07.POINT_SETTINGS["lr"] and prof.stsb.lr != nb07.POINT_SETTINGS["lr"]
               for prof in PROFILES.values())


def _ignoring(start, evaluator, **fixed):
    """The student's train_and_score, right but for the arguments in ``fixed``, hard-coded instead of used."""
    from sbertlib.losses import CosineSimilarityLoss, SoftmaxLoss
    from sbertlib.training import prepare_examples, seed_everything

    def train_and_score(config, seed, train_pairs, objective, batch_size, lr, epochs=1):
        given = dict(seed=seed, batch_size=batch_size, lr=lr, epochs=epochs)
        given.update(fixed)
        encoder = copy.deepcopy(start)
        encoder.pooling = config.pooling
        seed_everything(given["seed"])
        loss = (SoftmaxLoss(encoder, num_labels=3, concat=config.concat) if objective == "classification"
                else CosineSimilarityLoss(encoder))
        train_loop(loss, prepare_examples(train_pairs, loss), epochs=given["epochs"], batch_size=given["batch_size"],
                 lr=given["lr"], seed=given["seed"])
        return evaluator(encoder)
    return train_and_score


@pytest.mark.parametrize("fixed, says", [
    (dict(lr=1e-3), "at lr=0.001 (a profile's rate), not at the lr=0.003 passed in: your function ignores its `lr`"),
    (dict(lr=2e-5), "ignores its `lr` argument"),
    (dict(batch_size=16), "batch_size=16, not the batch_size=6 passed in: your function ignores its `batch_size`"),
    (dict(seed=42), "seed 42, not the seed 17 passed in: your function ignores its `seed` argument"),
    (dict(epochs=4), "4 epochs, not the epochs=1 passed in: your function ignores its `epochs` argument"),
])
def test_nb07_train_and_score_that_ignores_an_argument_is_named(runs_only, grid_world, fixed, says):
    start, evaluator, nli, stsb = grid_world
    with pytest.raises(ExerciseError) as err:
        nb07.check_train_and_score(_ignoring(start, evaluator, **fixed), start, evaluator, nli, stsb)
    assert says in str(err.value)


# 2 · gain with the part put last: fails on a legal call whose row Table 6 writes in another order.
def test_nb07_gain_with_the_part_put_last_is_named():
    def gain(results, part, base=("u", "v")):
        return nb07.grid_mean(results, tuple(base) + (part,)) - nb07.grid_mean(results, tuple(base))
    with pytest.raises(ExerciseError) as err:
        nb07.check_gain(gain, "|u-v|", RESULTS)
    text = str(err.value)
    assert "('u', 'v', 'u*v')" in text and "Table 6's order: (u, v, |u-v|, u*v)" in text
    assert "here the row (u, v, |u-v|, u*v), not (u, v, u*v, |u-v|)" in text
    assert "shown above" not in text


def test_nb07_gain_with_the_part_put_last_that_gives_nan_is_named():
    def gain(results, part, base=("u", "v")):   # a lookup of its own: NaN for a row that is not there
        def score(concat):
            rows = results[(results["pooling"] == "mean") & (results["concat"] == "(" + ", ".join(concat) + ")")]
            return rows["mean"].mean()
        return score(tuple(base) + (part,)) - score(tuple(base))
    with pytest.raises(ExerciseError, match=re.escape("written in Table 6's order")):
        nb07.check_gain(gain, "|u-v|", RESULTS)


def test_nb07_gain_truth_puts_the_part_in_table6s_order():
    assert nb07.with_part(("u", "v", "u*v"), "|u-v|") == ("u", "v", "|u-v|", "u*v")
    assert nb07.with_part(("u*v",), "|u-v|") == ("|u-v|", "u*v")
    assert nb07.with_part(("u", "v"), "u*v") == ("u", "v", "u*v")
    inputs = nb07._gain_inputs()
    assert any(tuple(b) + (p,) != nb07.with_part(b, p) for _, p, b in inputs)


# 3 · run_ablation whose n_seeds is the tuple of seeds: named before pandas touches it.
def test_nb07_run_ablation_with_the_seeds_as_n_seeds_is_named():
    def run_ablation(configs, seeds, train_and_score):
        rows = {}
        for config in configs:
            scores = [train_and_score(config, seed) for seed in seeds]
            rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": tuple(seeds),
                                  "mean": np.mean(scores), "std": np.std(scores, ddof=1)}
        return pd.DataFrame.from_dict(rows, orient="index")
    with pytest.raises(ExerciseError) as err:
        nb07.check_run_ablation(run_ablation)
    text = str(err.value)
    assert "the column n_seeds holds (1, 2, 3) (a tuple)" in text and "the number of seeds, one integer per row" in text
    assert "setting an array element" not in text


def test_nb07_run_ablation_with_a_list_of_scores_as_mean_is_named():
    def run_ablation(configs, seeds, train_and_score):
        rows = {}
        for config in configs:
            scores = [train_and_score(config, seed) for seed in seeds]
            rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": len(seeds),
                                  "mean": scores, "std": float(np.std(scores, ddof=1)) if len(seeds) > 1 else np.nan}
        return pd.DataFrame.from_dict(rows, orient="index")
    with pytest.raises(ExerciseError, match="the column mean holds .* one number per row"):
        nb07.check_run_ablation(run_ablation)


# 4 · train_and_score returning the encoder: its own hint, not another exercise's.
def test_nb07_train_and_score_returning_the_encoder_gets_its_own_hint(runs_only, grid_world):
    start, evaluator, nli, stsb = grid_world

    def returns_encoder(config, seed, train_pairs, objective, batch_size, lr, epochs=1):
        encoder = copy.deepcopy(start)
        encoder.pooling = config.pooling
        return encoder
    with pytest.raises(ExerciseError) as err:
        nb07.check_train_and_score(returns_encoder, start, evaluator, nli, stsb)
    text = str(err.value)
    assert "is a SentenceEncoder, not a number" in text and "returns the STSb dev score" in text
    assert "results" not in text


# 5 · diff_and_se returning a dict: named as a dict, a pair asked for.
def test_nb07_diff_and_se_returning_a_dict_is_named():
    def diff_and_se(results, a, b):
        d, se = good_diff(results, a, b)
        return {"difference": d, "se": se}
    with pytest.raises(ExerciseError) as err:
        nb07.check_difference(diff_and_se, _seed_grid())
    text = str(err.value)
    assert "returned a dict (keys ['difference', 'se']), not a pair" in text
    assert "return a pair (difference, standard error)" in text and "results.loc" not in text


# 6 · train_and_score that shuffles the pairs it was given in place.
def test_nb07_train_and_score_that_shuffles_the_pairs_in_place_is_named(grid_world):
    import random
    start, evaluator, nli, stsb = grid_world
    right = make_train_and_score(start, evaluator)

    def shuffles(config, seed, train_pairs, objective, batch_size, lr, epochs=1):
        random.shuffle(train_pairs)
        return right(config, seed, train_pairs, objective, batch_size, lr, epochs)
    with pytest.raises(ExerciseError) as err:
        nb07.check_train_and_score(shuffles, start, evaluator, nli, stsb)
    text = str(err.value)
    assert "changed `train_pairs` in place (the same pairs in another order)" in text
    assert "the notebook's pairs would change" in text and "reproducible" not in text


# 7 · the classification loss on the regression points.
def test_nb07_train_and_score_with_softmax_for_regression_gets_a_hint(runs_only, grid_world):
    start, evaluator, nli, stsb = grid_world
    from sbertlib.losses import SoftmaxLoss
    from sbertlib.training import prepare_examples, seed_everything

    def always_softmax(config, seed, train_pairs, objective, batch_size, lr, epochs=1):
        encoder = copy.deepcopy(start)
        encoder.pooling = config.pooling
        seed_everything(seed)
        loss = SoftmaxLoss(encoder, num_labels=3, concat=config.concat)
        train_loop(loss, prepare_examples(train_pairs, loss), epochs=epochs, batch_size=batch_size, lr=lr, seed=seed)
        return evaluator(encoder)
    with pytest.raises(ExerciseError) as err:
        nb07.check_train_and_score(always_softmax, start, evaluator, nli, stsb)
    text = str(err.value)
    assert "is not a class id" in text and "cosine similarity" in text and "regression objective" in text
    assert "shown above are where it stopped" not in text
    assert err.value.__cause__ is not None   # Jupyter still shows the student's failing line


# 8 · hints point at the idea, not the formula.
def test_nb07_classifier_size_fallback_does_not_give_the_formula():
    with pytest.raises(ExerciseError) as err:
        nb07.check_classifier_size(lambda concat, n, k: len(concat) * n * k + 2 * k)
    text = str(err.value)
    assert "reread the warm-up" in text and "len(concat)·n" not in text and "× k" not in text


@pytest.mark.parametrize("wrong", [lambda concat, n, k: len(concat) * n, lambda concat, n, k: len(concat) * n + k])
def test_nb07_classifier_size_slips_do_not_give_the_formula(wrong):
    with pytest.raises(ExerciseError) as err:
        nb07.check_classifier_size(wrong)
    assert "× k" not in str(err.value) and "+ k" not in str(err.value)


def test_nb07_diff_and_se_fallback_does_not_give_the_formula():
    def diff_and_se(results, a, b):
        d, se = good_diff(results, a, b)
        return d, 2 * se
    with pytest.raises(ExerciseError) as err:
        nb07.check_difference(diff_and_se, _seed_grid())
    text = str(err.value)
    assert "reread Exercise 4's text" in text and "√" not in text.split("Hint:")[1]


# 9 · the warm-up's `...` placeholders are "not done yet".
def test_nb07_classifier_size_with_the_placeholders_is_not_done():
    def classifier_size(concat, n, k=3):
        features = ...   # how many numbers the classifier sees  # noqa: F841
        return ...       # weights (features × k) plus biases
    with pytest.raises(ExerciseError, match="the exercise is not done yet: classifier_size still holds the stub's `...`"):
        nb07.check_classifier_size(classifier_size)

    def half_done(concat, n, k=3):
        features = ...
        return features * k + k
    with pytest.raises(ExerciseError, match="not done yet"):
        nb07.check_classifier_size(half_done)



# The second trial (2026-11-27): abs() was told as a flipped sign, the pair swapped got the general hint, and seeds
# taken as list positions got a message that contradicted itself.
@pytest.mark.parametrize("wrong, says", [
    (lambda d, se: (abs(d), se), "size of the difference (abs)"),
    (lambda d, se: (se, d), "the two are swapped"),
])
def test_nb07_diff_and_se_abs_and_swapped_are_named(wrong, says):
    table = _seed_grid()

    def diff_and_se(results, a, b):
        return wrong(*good_diff(results, a, b))
    with pytest.raises(ExerciseError, match=re.escape(says)):
        nb07.check_difference(diff_and_se, table)


def test_nb07_run_ablation_with_list_positions_as_seeds_is_named():
    def positions(configs, seeds, train_and_score):
        return good_run_ablation(configs, list(range(len(seeds))), train_and_score)
    with pytest.raises(ExerciseError, match="not the seeds given"):
        nb07.check_run_ablation(positions)


def test_nb07_gain_as_a_size_is_named_not_as_a_flipped_sign():
    with pytest.raises(ExerciseError, match=re.escape("size of the gain (abs)")):
        nb07.check_gain(lambda r, p, b=("u", "v"): abs(good_gain(r, p, b)), "|u-v|", RESULTS)


# The fourth trial (2026-11-27): accepted wrong answers and raw errors, each now named.
def test_gain_and_diff_and_se_that_change_the_table_in_place_are_refused():
    def gain_writing(results, part, base=("u", "v")):
        results["gain"] = 0.0
        return good_gain(results, part, base)

    def gain_sorting(results, part, base=("u", "v")):
        results.sort_values("mean", inplace=True)
        return good_gain(results, part, base)

    def diff_writing(results, a, b):
        results["se"] = results["std"] / np.sqrt(results["n_seeds"])
        return good_diff(results, a, b)
    for wrong in (gain_writing, gain_sorting):
        with pytest.raises(ExerciseError, match=r"changed its first argument \(a DataFrame\) in place"):
            nb07.check_gain(wrong, "|u-v|", RESULTS)
    with pytest.raises(ExerciseError, match=r"changed its first argument \(a DataFrame\) in place"):
        nb07.check_difference(diff_writing, _seed_grid())


def test_diff_and_se_with_one_seed_must_leave_the_standard_error_nan():
    def zero_for_one_seed(results, a, b):
        d, se = good_diff(results, a, b)
        return d, float(np.nan_to_num(se))
    with pytest.raises(ExerciseError, match="with one seed in .* expected NaN"):
        nb07.check_difference(zero_for_one_seed)


def test_train_and_score_that_sets_the_pooling_of_start_is_refused(grid_world):
    start, evaluator, nli, stsb = grid_world
    start = copy.deepcopy(start)
    right = make_train_and_score(start, evaluator)

    def pooling_on_start(config, seed, pairs, objective, batch_size, lr, epochs=1):
        start.pooling = config.pooling        # then copied: the copy is right, `start` is not
        return right(config, seed, pairs, objective, batch_size, lr, epochs)
    with pytest.raises(ExerciseError, match="changed `start`, the untrained network: its pooling from 'mean' to"):
        nb07.check_train_and_score(pooling_on_start, start, evaluator, nli, stsb)


def test_a_key_the_hidden_table_lacks_gets_a_hint_not_a_bare_error():
    def reads_the_notebooks_row(results, a, b):
        return results.loc["mean pooling, (u, v, |u-v|)", "mean"] - results.loc[b, "mean"], 1.0
    with pytest.raises(ExerciseError, match=r"raised KeyError: .*\nHint: the check passes inputs of its own"):
        nb07.check_difference(reads_the_notebooks_row)


def test_train_and_score_with_num_labels_from_the_concatenation_is_told_what_num_labels_is(grid_world):
    start, evaluator, nli, stsb = grid_world
    with pytest.raises(ExerciseError, match="num_labels is the number of classes"):
        nb07.check_train_and_score(make_train_and_score(start, evaluator, labels_from_concat=True), start, evaluator,
                                   nli, stsb)


# The fifth trial (2026-11-27): each of these passed.
def test_train_and_score_that_changes_the_length_limit_of_start_is_refused(grid_world):
    start, evaluator, nli, stsb = grid_world
    start = copy.deepcopy(start)
    right = make_train_and_score(start, evaluator)

    def shorter(config, seed, pairs, objective, batch_size, lr, epochs=1):
        start.max_seq_length = 16
        return right(config, seed, pairs, objective, batch_size, lr, epochs)
    with pytest.raises(ExerciseError, match="its max_seq_length from 32 to 16"):
        nb07.check_train_and_score(shorter, start, evaluator, nli, stsb)


def test_train_and_score_that_ignores_epochs_for_the_nli_points_is_refused(runs_only, grid_world):
    start, evaluator, nli, stsb = grid_world
    right = make_train_and_score(start, evaluator)

    def nli_one_epoch(config, seed, pairs, objective, batch_size, lr, epochs=1):
        return right(config, seed, pairs, objective, batch_size, lr, 1 if objective == "classification" else epochs)
    with pytest.raises(ExerciseError, match="the score of one epoch"):
        nb07.check_train_and_score(nli_one_epoch, start, evaluator, nli, stsb)


def test_run_ablation_counting_distinct_scores_as_seeds_is_refused():
    distinct = run_ablation_with(n_seeds=lambda scores: len(set(scores)))
    with pytest.raises(ExerciseError, match="n_seeds is"):
        nb07.check_run_ablation(distinct)


def test_run_ablation_with_statistics_stdev_on_one_seed_is_told_what_one_seed_gives():
    import statistics

    with_stdev = run_ablation_with(mean=statistics.mean, std=statistics.stdev)
    with pytest.raises(ExerciseError, match="with one seed there is no spread to estimate"):
        nb07.check_run_ablation(with_stdev)

