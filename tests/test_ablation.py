"""The Table 6 grid runner on a toy run (tiny random BERT, a handful of pairs, 2 configs × 2 seeds)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from sbertlib import evaluation, paper
from sbertlib.evaluation import ablation
from sbertlib.evaluation.ablation import AblationConfig
from sbertlib.data import NLIPair, STSPair
from sbertlib.evaluation import STSEvaluator

PAIRS = [NLIPair("A man plays a guitar.", "A man plays music.", "entailment"),
         NLIPair("A man plays a guitar.", "A woman sleeps.", "contradiction"),
         NLIPair("Kids run in a park.", "Children are outside.", "entailment"),
         NLIPair("Kids run in a park.", "The kids are asleep in bed.", "contradiction"),
         NLIPair("A dog catches a ball.", "The dog is brown.", "neutral"),
         NLIPair("A chef cooks pasta.", "Someone is cooking.", "entailment"),
         NLIPair("A chef cooks pasta.", "The chef is swimming.", "contradiction"),
         NLIPair("Two women talk.", "They are friends.", "neutral")]
DEV = [STSPair("A man plays a guitar.", "A man plays music.", 4.2),
       STSPair("A dog runs.", "A cat sleeps.", 0.5),
       STSPair("Kids run in a park.", "Children play outside.", 3.8),
       STSPair("A chef cooks pasta.", "The stock market fell.", 0.0),
       STSPair("Two women talk.", "Two ladies are chatting.", 4.6)]
CONFIGS = [AblationConfig("mean", ("u", "v", "|u-v|")), AblationConfig("max", ("u", "v"))]


def _grid(**kw):
    return ablation.run_grid(CONFIGS, [1, 2], PAIRS, backbone="tiny-random-bert", max_seq_length=16,
                             evaluator=STSEvaluator(DEV), batch_size=4, show_progress_bar=False, **kw)


@pytest.fixture(scope="module")
def toy() -> pd.DataFrame:
    return _grid()


def test_toy_grid_has_one_row_per_config_with_mean_and_std(toy):
    assert list(toy.index) == [c.label for c in CONFIGS]
    assert {"pooling", "concat", "n_seeds", "mean", "std", "seed 1", "seed 2"} <= set(toy.columns)
    assert toy.loc[CONFIGS[1].label, "pooling"] == "max" and toy.loc[CONFIGS[1].label, "concat"] == "(u, v)"
    for label in toy.index:
        s1, s2 = toy.loc[label, "seed 1"], toy.loc[label, "seed 2"]
        assert math.isclose(toy.loc[label, "mean"], (s1 + s2) / 2)
        assert math.isclose(toy.loc[label, "std"], abs(s1 - s2) / math.sqrt(2), abs_tol=1e-9)
        assert -100 <= s1 <= 100
    runs = pd.DataFrame(toy.attrs["runs"])
    assert len(runs) == 4 and not runs["cached"].any()
    pd.concat([toy, toy])  # attrs hold plain records: combining tables must not fail


def test_grid_is_reproducible_whatever_ran_before(toy):
    again = ablation.run_grid(CONFIGS[:1], [2], PAIRS, backbone="tiny-random-bert", max_seq_length=16,
                              evaluator=STSEvaluator(DEV), batch_size=4, show_progress_bar=False)
    # the same (config, seed) gives the same score, whatever ran before it
    assert math.isclose(again.iloc[0]["seed 2"], toy.iloc[0]["seed 2"], abs_tol=1e-6)


def test_cache_reuses_finished_runs(tmp_path, toy):
    first = _grid(cache_dir=tmp_path)
    second = _grid(cache_dir=tmp_path)
    assert all(r["cached"] for r in second.attrs["runs"])
    pd.testing.assert_frame_equal(first[["mean", "std"]], second[["mean", "std"]])


def test_cache_is_keyed_by_every_training_argument(tmp_path, toy):
    """A changed warm-up (or any setting fit reads, a default of TrainingArguments included) trains again:
    the key held only epochs, batch size and lr, so old cached scores were reused (issue 28)."""
    from sbertlib.training import TrainingArguments
    first = _grid(cache_dir=tmp_path)
    again = _grid(cache_dir=tmp_path, args=TrainingArguments(batch_size=4, warmup_ratio=0.1))   # the same run
    assert all(r["cached"] for r in again.attrs["runs"])
    other = _grid(cache_dir=tmp_path, args=TrainingArguments(batch_size=4, warmup_ratio=0.5))
    assert not any(r["cached"] for r in other.attrs["runs"])
    assert other.attrs["settings"]["training"]["warmup_ratio"] == 0.5
    pd.testing.assert_frame_equal(first[["mean", "std"]], again[["mean", "std"]])


def test_table6_configs_are_the_nine_distinct_trainings():
    configs = ablation.table6_configs()
    assert len(configs) == 9 and len({c.label for c in configs}) == 9
    assert [c.pooling for c in configs[:3]] == ["mean", "max", "cls"]
    assert {c.concat for c in configs if c.pooling == "mean"} == set(paper.TABLE6_CONCAT)


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError):
        AblationConfig("avg")
    with pytest.raises(ValueError):
        AblationConfig("mean", ("u", "u+v"))
    with pytest.raises(ValueError):
        ablation.run_grid(CONFIGS, [], PAIRS)
    with pytest.raises(ValueError):
        ablation.run_grid(CONFIGS + CONFIGS[:1], [1], PAIRS)


def test_beside_paper_splits_pooling_and_concat_rows(toy):
    pooling, concat = evaluation.table6(toy, "tiny-random-bert [test]")
    assert list(pooling.index) == ["mean"]
    assert pooling.loc["mean", "paper: SBERT-base, NLI"] == paper.TABLE6_POOLING["mean"][0]
    assert list(concat.index) == ["(u, v, |u-v|)"]
    assert concat.loc["(u, v, |u-v|)", "paper: SBERT-base, NLI"] == paper.TABLE6_CONCAT[("u", "v", "|u-v|")]


def test_a_grid_cell_is_exactly_the_training_it_names(toy):
    """The (max pooling, (u, v)) cell, seed 2, is that training run by hand: pooling, concatenation
    and seed really reach fit() — not only a number in a plausible range."""
    from sbertlib.losses import SoftmaxLoss
    from sbertlib.model import SentenceEncoder
    from sbertlib.training import fit, seed_everything
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=16)
    enc.pooling = "max"
    seed_everything(2)
    loss = SoftmaxLoss(enc, num_labels=3, concat=("u", "v"))
    fit(enc, loss, PAIRS, batch_size=4, seed=2, show_progress_bar=False)
    assert STSEvaluator(DEV)(enc) == pytest.approx(toy.loc[CONFIGS[1].label, "seed 2"], abs=1e-9)
    assert toy.loc[CONFIGS[1].label, "seed 2"] != toy.loc[CONFIGS[0].label, "seed 2"]


# ----------------------------------------------------------------------------- Table 6's regression column
STS_TRAIN = [STSPair("A man plays a guitar.", "A man plays music.", 4.2),
             STSPair("A dog runs.", "A cat sleeps.", 0.5),
             STSPair("Kids run in a park.", "Children play outside.", 3.8),
             STSPair("A chef cooks pasta.", "The stock market fell.", 0.0),
             STSPair("Two women talk.", "Two ladies are chatting.", 4.6),
             STSPair("A boy jumps.", "A child leaps.", 4.0)]


@pytest.fixture(scope="module")
def regression() -> pd.DataFrame:
    return ablation.run_grid(ablation.pooling_configs(), [1, 2], STS_TRAIN, backbone="tiny-random-bert",
                             max_seq_length=16, evaluator=STSEvaluator(DEV), batch_size=3, lr=1e-3,
                             show_progress_bar=False, objective="regression")


def test_regression_column_is_the_cosine_regression_run_by_hand(regression):
    from sbertlib.losses import CosineSimilarityLoss
    from sbertlib.model import SentenceEncoder
    from sbertlib.training import fit, seed_everything
    assert list(regression["pooling"]) == ["mean", "max", "cls"]
    enc = SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=16)
    enc.pooling = "cls"
    seed_everything(1)
    fit(enc, CosineSimilarityLoss(enc), STS_TRAIN, batch_size=3, lr=1e-3, seed=1, show_progress_bar=False)
    assert STSEvaluator(DEV)(enc) == pytest.approx(regression.loc["cls pooling, (u, v, |u-v|)", "seed 1"], abs=1e-9)


def test_regression_grid_refuses_concatenations_and_unknown_objectives():
    with pytest.raises(ValueError, match="no classifier"):
        ablation.run_grid(CONFIGS, [1], STS_TRAIN, objective="regression")
    with pytest.raises(ValueError, match="objective"):
        ablation.run_grid(CONFIGS, [1], PAIRS, objective="triplet")


def test_regression_and_classification_runs_never_share_a_cache(tmp_path):
    kw = dict(backbone="tiny-random-bert", max_seq_length=16, evaluator=STSEvaluator(DEV), batch_size=3,
              show_progress_bar=False, cache_dir=tmp_path)
    ablation.run_grid(CONFIGS[:1], [1], STS_TRAIN, objective="regression", **kw)
    assert len(list(tmp_path.iterdir())) == 1
    ablation.run_grid(CONFIGS[:1], [1], PAIRS, **kw)
    assert len(list(tmp_path.iterdir())) == 2


def test_pooling_table_puts_both_columns_beside_the_paper(toy, regression):
    table = ablation.pooling_table(toy, regression, "tiny-random-bert [test]")
    assert list(table.index) == ["mean", "max", "cls"]
    assert table.loc["max", "paper: STSb"] == paper.TABLE6_POOLING["max"][1] == 69.92
    assert table.loc["mean", "paper: NLI"] == 80.78
    assert table.loc["max", "ours: STSb mean"] == pytest.approx(regression.loc["max pooling, (u, v, |u-v|)", "mean"], abs=0.01)
    assert table.loc["mean", "ours: NLI mean"] == pytest.approx(toy.loc[CONFIGS[0].label, "mean"], abs=0.01)
    assert pd.isna(table.loc["max", "ours: NLI mean"])  # the toy grid has no (max, default) row
    only_regression = ablation.pooling_table(None, regression, "x")
    assert "ours: NLI mean" not in only_regression.columns


def test_grid_cost_counts_runs_and_steps():
    assert ablation.grid_cost(9, [1, 2, 3], 1000, 16, 1) == {"runs": 27, "steps_per_run": 63, "steps": 1701}
    assert ablation.grid_cost(3, 10, 5749, 16, 4)["steps"] == 3 * 10 * 360 * 4
    with pytest.raises(ValueError):
        ablation.grid_cost(0, [1], 10)


def test_difference_and_its_standard_error(regression):
    d, se = ablation.difference(regression, "mean pooling, (u, v, |u-v|)", "max pooling, (u, v, |u-v|)")
    a, b = regression.iloc[0], regression.iloc[1]
    assert d == pytest.approx(a["mean"] - b["mean"])
    assert se == pytest.approx(math.sqrt(a["std"] ** 2 / 2 + b["std"] ** 2 / 2))
