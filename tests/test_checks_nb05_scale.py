"""Notebook 05, Exercise 4 (order and scale) and the Table 2 it is shown beside."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from sbertlib import evaluation, paper
from sbertlib.workbook.lessons import ExerciseError, nb05


def right(cosines, gold):
    return {"mean |cos − gold/5|": np.mean(np.abs(cosines - gold / 5)),
            "Pearson ×100": 100 * pearsonr(cosines, gold).statistic,
            "Spearman ×100": 100 * spearmanr(cosines, gold).statistic}


def changed(key, value):
    return lambda c, g: {**right(c, g), key: value(c, g)}


def test_right_answers_pass(capsys):
    nb05.check_order_and_scale(right)
    nb05.check_order_and_scale(nb05.order_and_scale_truth)
    assert capsys.readouterr().out.count("[OK]") == 2


@pytest.mark.parametrize("wrong, hint", [
    (changed("mean |cos − gold/5|", lambda c, g: np.mean(np.abs(c - g))), "not gold"),
    (changed("mean |cos − gold/5|", lambda c, g: np.mean((c - g / 5) ** 2)), "mean squared"),
    (changed("mean |cos − gold/5|", lambda c, g: abs(np.mean(c - g / 5))), "cancel out"),
    (changed("Pearson ×100", lambda c, g: 100 * spearmanr(c, g).statistic), "Pearson correlates the values"),
    (changed("Pearson ×100", lambda c, g: pearsonr(c, g).statistic), "multiply the correlation by 100"),
    (changed("Spearman ×100", lambda c, g: 100 * pearsonr(c, g).statistic), "Spearman correlates the ranks"),
    (changed("Spearman ×100", lambda c, g: spearmanr(c, g).statistic), "multiply the correlation by 100"),
    (changed("Spearman ×100", lambda c, g: 100 * np.corrcoef(np.argsort(c), np.argsort(g))[0, 1]), "rank correlation"),
])
def test_usual_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb05.check_order_and_scale(wrong)
    assert "np.mean(np.abs" not in str(err.value)


def test_stub_and_bad_returns():
    def stub(c, g):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb05.check_order_and_scale(stub)
    with pytest.raises(ExerciseError, match="not a dict"):
        nb05.check_order_and_scale(lambda c, g: (1.0, 2.0, 3.0))
    with pytest.raises(ExerciseError, match="lacks the key"):
        nb05.check_order_and_scale(lambda c, g: {"Pearson": 1.0})
    with pytest.raises(ExerciseError, match="function itself"):
        nb05.check_order_and_scale(right(np.array([0.1, 0.5, 0.3]), np.arange(3.0)))


def test_table2_puts_our_rows_in_their_blocks_under_the_papers():
    ours = {"Trained on STS benchmark (STSb)": {"ours: STSb only [offline]": (71.234, 500)},
            "Not trained for STS": {"ours: NLI only [offline]": (60.0, 500)}}
    table = evaluation.table2(ours, paper_rows={"Not trained for STS": ["SBERT-NLI-base"]})
    blocks = list(dict.fromkeys(table.index.get_level_values("block")))
    assert blocks == list(paper.TABLE2)                       # the paper's order, every block
    first = table.loc["Not trained for STS"]
    assert list(first.index) == ["paper: SBERT-NLI-base", "ours: NLI only [offline]"]
    assert first.loc["paper: SBERT-NLI-base", "STSb test Spearman ×100"] == 77.03
    stsb = table.loc["Trained on STS benchmark (STSb)"]
    assert stsb.loc["ours: STSb only [offline]"].tolist() == [71.23, "one seed", 500]
    assert stsb.loc["paper: SBERT-STSb-base", "±"] == "0.19 (10 seeds)"
    assert stsb.loc["paper: SBERT-STSb-base", "test pairs"] == paper.STSB_TEST_PAIRS == 1379
    with pytest.raises(ValueError, match="unknown Table 2 block"):
        evaluation.table2({"Trained on STS": {}})
