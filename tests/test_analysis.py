"""sbertlib.evaluation: sampled STS suites and the worst-pairs error analysis."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy.stats import spearmanr

from sbertlib import evaluation
from sbertlib import evaluation as analysis
from sbertlib.data import STSPair


class HashEncoder:
    """A fixed pseudo-random vector per sentence (seeded by its text): no model needed."""
    info = {"backbone": "hash", "stand_in": False}

    def encode(self, sentences, batch_size=32, **_):
        return np.stack([np.random.default_rng(zlib.crc32(s.encode())).normal(size=8) for s in sentences]
                        ).astype(np.float32)


def _pairs(n: int = 12) -> list[STSPair]:
    return [STSPair(f"a{i}", f"b{i}", float(i % 6)) for i in range(n)]


# ----------------------------------------------------------------------------- worst_pairs
def test_worst_pairs_finds_the_largest_rank_differences():
    pairs = [STSPair(f"s{i}", f"t{i}", float(i)) for i in range(6)]  # gold ranks 1..6
    pred = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    pred[0], pred[5] = 0.9, 0.0  # pair 0 (gold lowest) predicted highest; pair 5 (gold highest) lowest
    table = analysis.worst_pairs(pairs, pred, k=2)
    assert set(table.index) == {0, 5}
    assert table.loc[0, "rank_diff"] == 5 and table.loc[0, "model says"] == "too similar"
    assert table.loc[5, "rank_diff"] == -5 and table.loc[5, "model says"] == "too dissimilar"
    assert list(table.columns[:4]) == ["sentence1", "sentence2", "gold", "predicted"]
    assert table.loc[0, "sentence1"] == "s0" and table.loc[0, "predicted"] == pytest.approx(0.9)
    assert table.loc[0, "source"] == ""  # STSPair.source, e.g. "stsb/main-forum"


def test_worst_pairs_uses_average_ranks_for_ties_and_sorts_by_size():
    pairs = [STSPair("a", "b", 1.0), STSPair("c", "d", 1.0), STSPair("e", "f", 5.0)]
    table = analysis.worst_pairs(pairs, [0.3, 0.2, 0.1], k=3)
    ranks = dict(zip(table.index, table["gold_rank"]))
    assert ranks[0] == ranks[1] == 1.5 and ranks[2] == 3.0  # the tie shares rank 1.5
    assert np.all(np.diff(np.abs(table["rank_diff"].to_numpy())) <= 0)
    assert table.index[0] == 2  # gold rank 3, predicted rank 1: |diff| = 2


def test_worst_pairs_perfect_ranking_has_no_rank_difference():
    pairs = _pairs()
    table = analysis.worst_pairs(pairs, [p.score * 0.1 for p in pairs], k=5)
    assert np.all(table["rank_diff"] == 0) and len(table) == 5


def test_worst_pairs_rejects_bad_input():
    with pytest.raises(ValueError, match="predictions"):
        analysis.worst_pairs(_pairs(4), [0.1, 0.2], k=2)
    with pytest.raises(ValueError, match="k must"):
        analysis.worst_pairs(_pairs(4), [0.1, 0.2, 0.3, 0.4], k=0)


# ----------------------------------------------------------------------------- sampling
def test_sample_pairs_is_seeded_ordered_and_capped():
    pairs = _pairs(50)
    a, b = analysis.sample_pairs(pairs, 10, seed=3), analysis.sample_pairs(pairs, 10, seed=3)
    assert a == b and len(a) == 10
    assert [pairs.index(p) for p in a] == sorted(pairs.index(p) for p in a)
    assert analysis.sample_pairs(pairs, None) == pairs and analysis.sample_pairs(pairs, 99) == pairs
    assert analysis.sample_pairs(pairs, 10, seed=4) != a
    with pytest.raises(ValueError):
        analysis.sample_pairs(pairs, 1)


def test_sample_subsets_is_stratified():
    subsets = {"big": _pairs(300), "small": _pairs(100)}
    sample = analysis.sample_subsets(subsets, 40)
    assert len(sample["big"]) == 30 and len(sample["small"]) == 10
    assert analysis.sample_subsets(subsets, None) == subsets


# ----------------------------------------------------------------------------- suites
def test_evaluate_sts_subsets_equals_evaluate_sts_year_on_a_whole_year(shared_data):
    from sbertlib import data
    enc = HashEncoder()
    mine = analysis.evaluate_sts_subsets(enc, data.load_sts_year(16, shared_data))
    ref = evaluation.evaluate_sts_year(enc, 16, shared_data)
    assert mine["all"] == pytest.approx(ref["all"]) and mine["wmean"] == pytest.approx(ref["wmean"])
    assert mine["n"] == ref["n"] and mine["subsets"] == pytest.approx(ref["subsets"])


def test_evaluate_suite_caps_keeps_predictions_and_matches_evaluate_sts(shared_data):
    from sbertlib import data
    enc = HashEncoder()
    suite = analysis.evaluate_suite(enc, ["sts16", "stsb-test"], max_pairs={"sts16": 100, "stsb-test": 50},
                                    data_dir=shared_data)
    assert suite.n["stsb-test"] == 50 and 95 <= suite.n["sts16"] <= 105
    assert set(suite.wmean) == {"sts16"} and set(suite.scores) == {"sts16", "stsb-test"}
    pairs = suite.pairs["stsb-test"]
    assert set(pairs) <= set(data.load_stsb("test", shared_data))
    assert suite.scores["stsb-test"] == pytest.approx(100 * spearmanr(suite.predictions["stsb-test"],
                                                                      [p.score for p in pairs])[0])
    assert suite.scores["stsb-test"] == pytest.approx(evaluation.evaluate_sts(enc, pairs, ("cosine",)).main)


def test_suite_pairs_are_the_pairs_evaluate_suite_scores(shared_data):
    """Notebook 04 evaluates the student's way on suite_pairs: they must be evaluate_suite's, in its order."""
    caps = {"sts13": 120, "stsb-test": 40, "sick-r": None}
    drawn = evaluation.suite_pairs(["sts13", "stsb-test"], caps, seed=3, data_dir=shared_data)
    suite = analysis.evaluate_suite(HashEncoder(), ["sts13", "stsb-test"], max_pairs=caps, seed=3, data_dir=shared_data)
    assert drawn == suite.pairs
    assert evaluation.suite_pairs(["stsb-test"], 40, seed=4, data_dir=shared_data)["stsb-test"] != drawn["stsb-test"]
