"""Self-checks for notebook 13 (your own data): a train/test split that shares no sentence.

:func:`check_split` runs the student's ``split_pairs(pairs, test_share, seed)`` on hidden pairs built
so that many pairs share a sentence (a question with several rephrasings): a random split of the
*pairs* then puts some sentence on both sides, and the check names that leak.
"""
from __future__ import annotations

import random
from typing import Callable

from ...data import STSPair
from . import ExerciseError, ok, require, two_items


def _hidden_pairs(seed: int = 13) -> list[STSPair]:
    """40 groups: a question with three partners each (a rephrasing, a related and an unrelated
    sentence), so every question appears in three pairs."""
    rng = random.Random(seed)
    pairs = []
    for g in range(40):
        question = f"question {g}: how does topic {g} work?"
        for kind, score in (("rephrased", 4.6), ("related", 2.5), ("unrelated", 0.3)):
            pairs.append(STSPair(question, f"{kind} sentence for topic {g}", score + rng.uniform(-0.2, 0.2)))
    return pairs


def _sentences(pairs) -> set[str]:
    return {s for p in pairs for s in (p.sentence1, p.sentence2)}


def check_split(split_pairs: Callable) -> None:
    """Pass when ``split_pairs(pairs, test_share, seed)`` returns ``(train, test)`` that hold every pair
    exactly once, share no sentence, give test about ``test_share`` of the pairs, and repeat for a seed."""
    require(callable(split_pairs), "Pass your function itself, e.g. check_split(split_pairs).")
    pairs = _hidden_pairs()
    for share in (0.2, 0.3):
        try:
            result = split_pairs(list(pairs), share, 7)
        except NotImplementedError:
            raise ExerciseError("`split_pairs` is not written yet (it raised NotImplementedError).") from None
        train, test = (list(x) for x in two_items(result, "`split_pairs` returned",
                                                  "return (train, test): two lists of pairs"))
        require(train and test, f"test_share={share}: one side is empty ({len(train)} train, {len(test)} test)",
                "both parts need pairs: move whole groups of pairs to test until it holds about test_share")
        require(sorted(map(id, train + test)) == sorted(map(id, pairs)),
                f"test_share={share}: {len(train)} + {len(test)} pairs came back for {len(pairs)} given — some pair "
                "is missing, repeated or not one of the originals",
                "every pair goes to exactly one side, unchanged")
        leaked = _sentences(train) & _sentences(test)
        if leaked:
            raise ExerciseError(f"test_share={share}: {len(leaked)} sentence(s) are in both parts, e.g. "
                                f"{sorted(leaked)[0]!r}\nHint: a random split of the *pairs* lets a test sentence be "
                                "trained on in another pair. Join the pairs that share a sentence into groups and send "
                                "whole groups to one side")
        got = len(test) / len(pairs)
        require(share / 2 <= got <= min(0.9, share * 2),
                f"test_share={share}: the test part holds {got:.0%} of the pairs",
                "add whole groups to the test part until it holds about test_share of the pairs, then stop")
    again = [list(x) for x in two_items(split_pairs(list(pairs), 0.2, 7), "`split_pairs` returned", "")]
    first = [list(x) for x in two_items(split_pairs(list(pairs), 0.2, 7), "`split_pairs` returned", "")]
    require([[id(p) for p in part] for part in again] == [[id(p) for p in part] for part in first],
            "the same seed gave two different splits",
            "shuffle with random.Random(seed), not the global random module or an unseeded one")
    other = [list(x) for x in two_items(split_pairs(list(pairs), 0.2, 8), "`split_pairs` returned", "")]
    require({id(p) for p in other[1]} != {id(p) for p in first[1]},
            "seeds 7 and 8 gave the same test part", "use the seed to shuffle the groups")
    ok("your split keeps every sentence on one side, with about the share asked for, the same for a seed")
