"""Notebook 04, Exercise 5 (which genres the worst pairs come from): right answers pass, slips are named."""
from __future__ import annotations

import pandas as pd
import pytest

from sbertlib.workbook.lessons import ExerciseError, nb04


def right(all_sources, worst_sources):
    every = pd.Series(list(all_sources)).value_counts(normalize=True)
    worst = pd.Series(list(worst_sources)).value_counts(normalize=True).reindex(every.index, fill_value=0.0)
    return pd.DataFrame({"share of all": every, "share of the worst": worst, "over-representation": worst / every})


def right_by_counting(all_sources, worst_sources):
    genres = sorted(set(all_sources))                       # another row order, computed by hand
    a = {g: list(all_sources).count(g) / len(all_sources) for g in genres}
    w = {g: list(worst_sources).count(g) / len(worst_sources) for g in genres}
    return pd.DataFrame({"share of all": a, "share of the worst": w,
                         "over-representation": {g: w[g] / a[g] for g in genres}})


def with_column(column, values):
    def wrong(all_sources, worst_sources):
        table = right(all_sources, worst_sources)
        table[column] = values(table, pd.Series(list(all_sources)), pd.Series(list(worst_sources)))
        return table
    return wrong


def no_reindex(all_sources, worst_sources):
    return pd.DataFrame({"share of all": pd.Series(list(all_sources)).value_counts(normalize=True),
                         "share of the worst": pd.Series(list(worst_sources)).value_counts(normalize=True)}).assign(
        **{"over-representation": lambda t: t["share of the worst"] / t["share of all"]})


def test_right_answers_pass(capsys):
    for fn in (right, right_by_counting, nb04.genre_shares_truth):
        nb04.check_genre_shares(fn)
    assert capsys.readouterr().out.count("[OK]") == 3


@pytest.mark.parametrize("wrong, hint", [
    (with_column("share of all", lambda t, a, w: a.value_counts()), "counts of pairs"),
    (with_column("share of the worst", lambda t, a, w: w.value_counts().reindex(t.index, fill_value=0)), "counts of pairs"),
    (with_column("share of the worst", lambda t, a, w: w.value_counts().reindex(t.index, fill_value=0) / len(a)),
     "number of WORST pairs"),
    (with_column("over-representation", lambda t, a, w: t["share of all"] / t["share of the worst"]), "upside down"),
    (with_column("over-representation", lambda t, a, w: t["share of the worst"] - t["share of all"]), "difference"),
    (no_reindex, "share 0 there, not NaN"),
    (lambda a, w: right(a, w).iloc[:-1], "has no row for"),
    (lambda a, w: right(a, w).reset_index(drop=True), "no row for"),
    (lambda a, w: right(a, w).drop(columns="over-representation"), "lacks the column"),
    (lambda a, w: right(a, w).to_dict(), "not a DataFrame"),
])
def test_usual_slips_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint) as err:
        nb04.check_genre_shares(wrong)
    assert "value_counts(normalize" not in str(err.value)


def test_stub_and_non_functions():
    def stub(a, w):
        raise NotImplementedError
    with pytest.raises(ExerciseError, match="not done yet"):
        nb04.check_genre_shares(stub)
    with pytest.raises(ExerciseError, match="function itself"):
        nb04.check_genre_shares(right(["a", "b"], ["a"]))
