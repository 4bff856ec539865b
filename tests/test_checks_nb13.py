"""Notebook 13's check: a split that shares no sentence between train and test."""
from __future__ import annotations

import random

import pytest

from sbertlib import data
from sbertlib.workbook.checks import ExerciseError, nb13


def test_group_split_passes(capsys):
    nb13.check_split(lambda pairs, share, seed: data.group_split(pairs, share, seed))
    assert "[OK]" in capsys.readouterr().out


def random_pair_split(pairs, share, seed):
    pairs = list(pairs)
    random.Random(seed).shuffle(pairs)
    n = int(len(pairs) * share)
    return pairs[n:], pairs[:n]


def grouped_by(column):
    """The split the notebook once suggested: whole groups of pairs sharing one column's sentence."""
    def split(pairs, share, seed):
        groups = {}
        for p in pairs:
            groups.setdefault(getattr(p, column), []).append(p)
        keys = sorted(groups)
        random.Random(seed).shuffle(keys)
        test = []
        for key in keys:
            if len(test) >= share * len(pairs):
                break
            test += groups[key]
        in_test = {id(p) for p in test}
        return [p for p in pairs if id(p) not in in_test], test
    return split


def test_hidden_pairs_are_joined_through_both_columns():
    pairs = nb13._hidden_pairs()
    firsts, seconds = {p.sentence1 for p in pairs}, [p.sentence2 for p in pairs]
    assert firsts & set(seconds), "some sentence must be first in one pair and second in another"
    assert len(set(seconds)) < len(seconds), "some pairs must share only their second sentence"


def test_first_sentence_grouping_is_rejected_with_a_hint():
    with pytest.raises(ExerciseError, match="second sentence") as err:
        nb13.check_split(grouped_by("sentence1"))
    assert "union" in str(err.value)


def test_second_sentence_grouping_is_rejected():
    with pytest.raises(ExerciseError, match="in both parts"):
        nb13.check_split(grouped_by("sentence2"))


def test_a_union_find_like_the_notebooks_passes(capsys):
    def split(pairs, share, seed):
        parent = {}

        def root(s):
            parent.setdefault(s, s)
            while parent[s] != s:
                s = parent[s]
            return s
        for p in pairs:
            parent[root(p.sentence1)] = root(p.sentence2)
        groups = {}
        for i, p in enumerate(pairs):
            groups.setdefault(root(p.sentence1), []).append(i)
        order = sorted(groups.values())
        random.Random(seed).shuffle(order)
        test_ids = set()
        for group in order:
            if len(test_ids) >= share * len(pairs):
                break
            test_ids.update(group)
        return [p for i, p in enumerate(pairs) if i not in test_ids], [p for i, p in enumerate(pairs) if i in test_ids]
    nb13.check_split(split)
    assert "[OK]" in capsys.readouterr().out
    pairs = nb13._hidden_pairs()
    assert split(pairs, 0.25, 3) == data.group_split(pairs, 0.25, 3)     # the same split as the library's


@pytest.mark.parametrize("wrong, hint", [
    (random_pair_split, "in both parts"),
    (lambda p, s, seed: data.group_split(p, s, random.randint(0, 10**6)), "same seed gave two different"),
    (lambda p, s, seed: data.group_split(p, s, 0), "seeds 7 and 8 gave the same"),
    (lambda p, s, seed: ([], list(p)), "one side is empty"),
    (lambda p, s, seed: (list(p), list(p)[:10]), "missing, repeated"),
    (lambda p, s, seed: data.group_split(p, 0.8, seed), "holds"),
    (lambda p, s, seed: data.group_split(p, 0.8, seed), "look swapped"),
    (lambda p, s, seed: data.group_split(p, 0.5, seed), "add whole groups"),
    (lambda p, s, seed: data.group_split(p, s / 3, seed), "not about"),
    (lambda p, s, seed: data.group_split(p, s, seed)[::-1], "look swapped"),
    (lambda p, s, seed: list(p), "not a pair"),
])
def test_wrong_splits_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb13.check_split(wrong)
