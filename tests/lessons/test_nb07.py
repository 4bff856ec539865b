"""Notebook 07's checks beyond their declarations (test_declared.py runs the slips of classifier_size, gain, diff_and_se
and run_ablation): right answers written other ways, a training point's slips, errors named, the notebook's data."""
from __future__ import annotations

import copy
import re
import textwrap

import numpy as np
import pandas as pd
import pytest
import torch

from sbertlib import paper
from sbertlib.evaluation import ablation
from sbertlib.workbook.lessons import ExerciseError, nb07
from lesson_helpers import IN_PLACE, not_done, train_loop

UV = ("u", "v")


def test_classifier_size_is_softmax_losses_and_written_other_ways_passes(capsys):
    from sbertlib.losses import SoftmaxLoss
    for concat in paper.TABLE6_CONCATS:   # the reference counts the library's classifier
        head = SoftmaxLoss(type("Stub", (torch.nn.Module,), {"dim": 10})(), num_labels=4, concat=concat).classifier
        assert sum(p.numel() for p in head.parameters()) == nb07.CLASSIFIER_SIZE.reference(concat, 10, 4)
    for kind in (np.int64, float, torch.tensor):
        nb07.check_classifier_size(lambda c, n, k: kind((len(c) * n + 1) * k))
    assert capsys.readouterr().out.count("[OK]") == 3


def test_classifier_size_stub_and_placeholders_are_not_done():
    def half_done(concat, n, k=3):
        features = ...
        return features * k + k
    for stub in (not_done, lambda concat, n, k=3: ..., half_done):
        with pytest.raises(ExerciseError, match="not done yet"):
            nb07.check_classifier_size(stub)


def _results(scores: dict) -> pd.DataFrame:   # a notebook grid, a max-pooling row first
    c = [ablation.AblationConfig("max")] + [ablation.AblationConfig("mean", x) for x in scores]
    return pd.DataFrame({"pooling": [x.pooling for x in c], "concat": [x.concat_label for x in c], "n_seeds": 2,
                         "mean": [99.0, *scores.values()], "std": [0.1] + [0.5 + s / 1000 for s in scores.values()]},
                        index=[x.label for x in c])


RESULTS = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 53.5, ("u", "v", "u*v"): 48.0, ("|u-v|",): 51.0})


def good_gain(results, part, base=UV):   # the notebook's answer
    with_part = tuple(p for p in ("u", "v", "|u-v|", "u*v") if p in base or p == part)
    return nb07.grid_mean(results, with_part) - nb07.grid_mean(results, base)


def test_gain_written_other_ways_passes_and_reads_the_students_grid(capsys):
    nb07.check_gain(good_gain, "|u-v|", RESULTS)
    nb07.check_gain(lambda r, p, b=UV: torch.tensor(good_gain(r, p, b)), " |u−v| ", RESULTS)
    nb07.check_gain(lambda r, p, b=UV: np.float32(good_gain(r, p, b)), "|u-v|", RESULTS)
    nb07.check_gain(good_gain, "|u-v|", RESULTS.assign(n_seeds=1, std=np.nan))
    out = capsys.readouterr().out
    assert out.count("[OK]") == 8 and "+3.50, u*v by -2.00" in out and "as in the paper" in out
    assert "beyond 2 standard errors" in out and "one seed" in out


def test_gain_with_the_part_put_last_is_named():   # grid_mean finds no row (u, v, u*v, |u-v|): its error, named
    with pytest.raises(ExerciseError, match=re.escape(nb07.ORDER_SLIP)) as err:
        nb07.check_gain(lambda r, p, b=UV: nb07.grid_mean(r, (*b, p)) - nb07.grid_mean(r, b), "|u-v|", RESULTS)
    assert err.value.__cause__ is not None   # Jupyter shows the student's failing line


@pytest.mark.parametrize("pick, says", [("u*v", "gains +3.50, u*v -2.00"), (("u", "v", "|u-v|"), "as a string"),
                                        ("diff", '"|u-v|" or "u*v"'), (..., '"|u-v|" or "u*v"')])
def test_most_important_wrong_is_named(pick, says):
    with pytest.raises(ExerciseError, match=re.escape(says)):
        nb07.check_gain(good_gain, pick, RESULTS)


def test_most_important_names_the_papers_finding_and_a_negative_gain(capsys):
    product_wins = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 51.0, ("u", "v", "u*v"): 56.0})
    with pytest.raises(ExerciseError, match="the paper's finding"):
        nb07.check_gain(good_gain, "|u-v|", product_wins)
    nb07.check_gain(good_gain, "u*v", product_wins)
    assert "unlike the paper" in capsys.readouterr().out
    costs = _results({("u", "v"): 50.0, ("u", "v", "|u-v|"): 46.0, ("u", "v", "u*v"): 51.0})
    with pytest.raises(ExerciseError, match="a negative gain costs points"):
        nb07.check_gain(good_gain, "|u-v|", costs)


def test_gain_changing_the_table_in_place_is_named_and_the_probe_runs_on_the_reference():
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb07.check_gain(lambda r, p, b=UV: r.sort_values("mean", inplace=True) or good_gain(r, p, b), "|u-v|", RESULTS)
    scope = {"_pd": pd, "_np": np, "gain": nb07.gain_truth}
    exec(textwrap.dedent(nb07.GAIN.probe_code).strip(), scope)
    assert scope["_result"] == pytest.approx([9.25, -2.25, -0.75, 3.5, 10.75])


def good_diff(results, a, b):   # the notebook's answer
    ra, rb = results.loc[a], results.loc[b]
    return ra["mean"] - rb["mean"], np.sqrt(ra["std"] ** 2 / ra["n_seeds"] + rb["std"] ** 2 / rb["n_seeds"])


REG = nb07.run_ablation_truth(ablation.pooling_configs(), (1, 2, 3), nb07._fake_scores)   # a notebook grid


@pytest.mark.parametrize("right", [good_diff, lambda r, a, b: [float(x) for x in good_diff(r, a, b)],
                                   lambda r, a, b: np.array(good_diff(r, a, b), dtype=np.float32),
                                   lambda r, a, b: tuple(torch.tensor(float(x)) for x in good_diff(r, a, b))],
                         ids=["notebook", "list", "float32 array", "tensors"])
def test_difference_written_other_ways_passes_with_the_notebooks_grid(right, capsys):
    nb07.check_difference(right, REG)
    assert "on 5 tables" in capsys.readouterr().out


def test_difference_not_a_pair_the_notebooks_row_or_the_table_written_is_named():
    for wrong in (lambda r, a, b: dict(zip("ds", good_diff(r, a, b))), lambda r, a, b: good_diff(r, a, b)[0]):
        with pytest.raises(ExerciseError, match="not a pair"):
            nb07.check_difference(wrong, REG)
    with pytest.raises(ExerciseError, match=r"raised KeyError: .*\nHint: .*The check passes inputs of its own"):
        nb07.check_difference(lambda r, a, b: (r.loc["mean pooling, (u, v, |u-v|)", "mean"], 1.0))
    with pytest.raises(ExerciseError, match=IN_PLACE):
        nb07.check_difference(lambda r, a, b: r.insert(0, "se", r["std"]) or good_diff(r, a, b))


def good_run_ablation(configs, seeds, train_and_score):   # the notebook's answer
    rows = {}
    for config in configs:
        scores = pd.Series([train_and_score(config, seed) for seed in seeds], index=seeds, dtype=float)
        rows[config.label] = {"pooling": config.pooling, "concat": config.concat_label, "n_seeds": len(scores),
                              "mean": scores.mean(), "std": scores.std(ddof=1), **scores.rename(lambda s: f"seed {s}")}
    return pd.DataFrame.from_dict(rows, orient="index")


@pytest.mark.parametrize("right", [good_run_ablation, nb07.run_ablation_truth, lambda c, s, f: good_run_ablation(
    c, s, lambda *a: np.float32(f(*a))).filter(regex="^(?!seed)").assign(best=1.0)], ids=["notebook", "library", "own"])
def test_run_ablation_written_other_ways_passes(right, capsys):
    nb07.check_run_ablation(right)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, says", [
    (lambda c, s, f: good_run_ablation(c, s, f).drop(columns="n_seeds"), r"no column \['n_seeds'\]"),
    (lambda c, s, f: good_run_ablation(c, s, f).assign(n_seeds=[tuple(s)] * len(c)), r"the column n_seeds holds \[\("),
    (lambda c, s, f: good_run_ablation(c, s, f).to_dict(), "returned a dict"), (not_done, "not written yet"),
    (lambda c, s, f: good_run_ablation([c.pop() for _ in range(len(c))][::-1], s, f), IN_PLACE),
    (lambda c, s, f: good_run_ablation(c, s, f).assign(std=[__import__("statistics").stdev([f(x, seed) for seed in s])
                                                            for x in c]), re.escape(nb07.ONE_SEED))])
def test_run_ablation_structure_stub_in_place_and_statistics_stdev_are_named(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb07.check_run_ablation(wrong)


@pytest.fixture(scope="module")
def grid_world(tiny_encoder, shared_data):   # start, the notebook's scorer, its NLI and STSb pairs (tiny)
    from sbertlib import data, evaluation
    return tiny_encoder, evaluation.STSEvaluator(split="dev", max_pairs=80), data.load_snli("dev"), data.load_stsb(
        "train")


NOTEBOOK = """def train_and_score(config, seed, train_pairs, objective, batch_size, lr, epochs=1):
    encoder = copy.deepcopy(start)
    encoder.pooling = config.pooling
    seed_everything(seed)
    loss = (SoftmaxLoss(encoder, num_labels=3, concat=config.concat) if objective == 'classification'
            else CosineSimilarityLoss(encoder))
    train_loop(loss, prepare_examples(train_pairs, loss), epochs=epochs, batch_size=batch_size, lr=lr, seed=seed)
    return stsb_dev(encoder)"""


def written(start, evaluator, **replaced):
    """The notebook's cell (`train_loop`: notebook 03's loop), each ``replaced`` text swapped for a mistake's."""
    import random
    from sbertlib import losses, training
    code = NOTEBOOK
    for old, new in replaced.items():
        code = code.replace(old, new)
    space = dict(copy=copy, random=random, start=start, stsb_dev=evaluator, train_loop=train_loop,
                 **{k: getattr(m, k) for m, ks in ((losses, ("SoftmaxLoss", "CosineSimilarityLoss")), (training, (
                     "prepare_examples", "seed_everything"))) for k in ks})
    exec(code, space)
    return space["train_and_score"]


def test_train_and_score_as_the_notebook_writes_it_passes(grid_world, capsys):
    start, evaluator, nli, stsb = grid_world
    nb07.check_train_and_score(written(start, evaluator), start, evaluator, nli, stsb)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("replaced, says", [
    ({"lr=lr": "lr=1e-3"}, "that is the run with lr=0.001: your function ignores its `lr`"),
    ({"epochs=epochs, ": ""}, "that is the run with epochs=1: your function ignores its `epochs`"),
    ({", seed=seed)": ")"}, "your loop kept its own seed (42)"),
    ({"encoder.pooling = config.pooling": "pass"}, "the run used mean pooling"),
    ({"concat=config.concat": "concat=('u', 'v', '|u-v|')"}, "the classifier saw the default features"),
    ({"    train_loop(": "    0 and train_loop("}, "the untrained network's score"),
    ({"    train_loop(": "    return train_loop(", "seed=seed)": "seed=seed)[-1]"}, "the training loss (the last"),
    ({"copy.deepcopy(start)": "start"}, "changed `start`, the untrained network: its weights"),
    ({"num_labels=3": "num_labels=len(config.concat)"}, "num_labels is the number of classes"),
    ({"if objective == 'classification'": "if True"}, "train a cosine against the score"),
    ({"    encoder = copy": "    random.shuffle(train_pairs)\n    encoder = copy"}, "leave `train_pairs` as it is"),
    ({"seed_everything(seed)": "pass"}, "a seeded run gives one score")])
def test_train_and_score_everyday_mistakes_are_named(grid_world, replaced, says):
    start, evaluator, nli, stsb = grid_world
    start = copy.deepcopy(start)   # a wrong answer may change it
    with pytest.raises(ExerciseError, match=re.escape(says)):
        nb07.check_train_and_score(written(start, evaluator, **replaced), start, evaluator, nli, stsb)


def test_train_and_score_points_hold_no_setting_a_profile_or_the_notebook_holds():
    from sbertlib.workbook.profiles import PROFILES
    for a in (a for prof in PROFILES.values() for a in (prof.nli, prof.stsb)):   # HARD_CODED holds theirs
        assert all(getattr(a, k) in v for k, v in nb07.HARD_CODED.items())
    assert 6 not in nb07.HARD_CODED["batch_size"] and 3e-3 not in nb07.HARD_CODED["lr"]
    assert not {p[1] for p in nb07.POINTS} & {*nb07.HARD_CODED["seed"]} and 3 not in nb07.HARD_CODED["epochs"]
