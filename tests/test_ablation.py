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
