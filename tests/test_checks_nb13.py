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


@pytest.mark.parametrize("wrong, hint", [
    (random_pair_split, "in both parts"),
    (lambda p, s, seed: data.group_split(p, s, random.randint(0, 10**6)), "same seed gave two different"),
    (lambda p, s, seed: data.group_split(p, s, 0), "seeds 7 and 8 gave the same"),
    (lambda p, s, seed: ([], list(p)), "one side is empty"),
    (lambda p, s, seed: (list(p), list(p)[:10]), "missing, repeated"),
    (lambda p, s, seed: data.group_split(p, 0.8, seed), "holds"),
    (lambda p, s, seed: list(p), "not a pair"),
])
def test_wrong_splits_are_named(wrong, hint):
    with pytest.raises(ExerciseError, match=hint):
        nb13.check_split(wrong)
