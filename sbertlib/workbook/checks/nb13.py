"""Self-checks for notebook 13 (your own data): a train/test split that shares no sentence.

:func:`check_split` runs the student's ``split_pairs(pairs, test_share, seed)`` on hidden pairs built
so that many pairs share a sentence (a question with several rephrasings) and some are joined only
through their second sentence or across the columns (a sentence second in one pair, first in the next): a
random split of the *pairs*, or one grouped by the first sentence alone, then puts some sentence on both
sides, and the check names that leak. One question is paraphrased 80 times — a group of 80 pairs, more
than a fifth of them — so adding whole groups *until* the share is reached puts it in test whenever it
comes up early, and test then holds a third of the pairs or more for a fifth asked; the check tries ten
seeds a share and names that group.
"""
from __future__ import annotations

import random
from typing import Callable

from ...data import STSPair
from . import ExerciseError, ok, require, student_raised, two_items, unfinished

# How far the test part may be from test_share (as a share of all pairs), as data.group_split's default: the
# hidden groups but the FAQ one are three or five pairs, so groups added while they fit under the share,
# then the one that lands nearest, come within two pairs of it (under 1 %).
TOLERANCE = 0.05
FAQ = "How do I get a copy of my certificate?"
SEEDS = range(7, 17)


def _hidden_pairs(seed: int = 13) -> list[STSPair]:
    """40 groups: a question with three partners each (a rephrasing, a related and an unrelated
    sentence), so every question appears in three pairs — then 12 chains of five pairs that only a
    grouping over *both* columns keeps together: (a, x), (b, x) share their second sentence; (b, y),
    (y, c) join across the columns; (d, c) shares a second sentence again. Grouped by the first sentence
    alone, a chain falls into four groups; by the second alone, into three. Last, :data:`FAQ` with 80
    rephrasings, one pair each: one group of 80 of the 260 pairs. The chains and the FAQ pairs are
    interleaved with the questions so the file order gives nothing away."""
    rng = random.Random(seed)
    pairs = []
    for g in range(40):
        question = f"question {g}: how does topic {g} work?"
        for kind, score in (("rephrased", 4.6), ("related", 2.5), ("unrelated", 0.3)):
            pairs.append(STSPair(question, f"{kind} sentence for topic {g}", score + rng.uniform(-0.2, 0.2)))
    for g in range(12):
        a, b, c, d = (f"chain {g}, sentence {name}" for name in "abcd")
        x, y = f"chain {g}: shared answer", f"chain {g}: second in one pair, first in the next"
        chain = [(a, x, 4.1), (b, x, 3.7), (b, y, 2.2), (y, c, 3.0), (d, c, 1.4)]
        for s1, s2, score in chain:
            pairs.insert(rng.randrange(len(pairs) + 1), STSPair(s1, s2, score + rng.uniform(-0.2, 0.2)))
    for i in range(80):
        pairs.insert(rng.randrange(len(pairs) + 1), STSPair(FAQ, f"certificate copy, wording {i}", 4.0))
    return pairs


def _first_sentence_groups_intact(train, test) -> bool:
    """True when every first sentence's pairs all lie on one side (a split grouped by the first sentence)."""
    return not ({p.sentence1 for p in train} & {p.sentence1 for p in test})


def _sentences(pairs) -> set[str]:
    return {s for p in pairs for s in (p.sentence1, p.sentence2)}


def _check_one(split_pairs: Callable, pairs: list[STSPair], share: float, seed: int) -> None:
    """One call of the student's split: every pair once, no shared sentence, test about ``share``."""
    where = f"test_share={share}, seed={seed}"
    try:
        result = split_pairs(list(pairs), share, seed)
    except Exception as exc:  # noqa: BLE001
        if unfinished(exc):
            raise ExerciseError("`split_pairs` is not written yet (it raised NotImplementedError).") from None
        raise student_raised(f"`split_pairs` ({where})", exc) from exc
    train, test = (list(x) for x in two_items(result, "`split_pairs` returned",
                                              "return (train, test): two lists of pairs"))
    require(train and test, f"{where}: one side is empty ({len(train)} train, {len(test)} test)",
            "both parts need pairs: move whole groups of pairs to test while they fit under test_share")
    require(sorted(map(id, train + test)) == sorted(map(id, pairs)),
            f"{where}: {len(train)} + {len(test)} pairs came back for {len(pairs)} given — some pair "
            "is missing, repeated or not one of the originals",
            "every pair goes to exactly one side, unchanged")
    leaked = _sentences(train) & _sentences(test)
    if leaked:
        if _first_sentence_groups_intact(train, test):
            hint = ("every first sentence keeps its pairs together, but pairs are also joined through their "
                    "second sentence, and a sentence can be second in one pair and first in another. Join "
                    "pairs that share *any* sentence, in either column and through chains (a union–find, or "
                    "connected components of the graph whose nodes are sentences and whose edges are pairs)")
        else:
            hint = ("a random split of the *pairs* lets a test sentence be trained on in another pair. Join "
                    "the pairs that share a sentence — in either column — into groups and send whole groups to "
                    "one side")
        raise ExerciseError(f"{where}: {len(leaked)} sentence(s) are in both parts, e.g. "
                            f"{sorted(leaked)[0]!r}\nHint: {hint}")
    got = len(test) / len(pairs)
    if abs(got - share) <= TOLERANCE:
        return
    faq = sum(p.sentence1 == FAQ for p in pairs)
    if abs((1 - got) - share) <= TOLERANCE:
        hint = "the parts look swapped: return (train, test), with test the smaller part"
    elif got > share and any(p.sentence1 == FAQ for p in test):
        hint = (f"test holds the group of {FAQ!r} and its rephrasings: {faq} pairs, {faq / len(pairs):.0%} of all, "
                "more than test_share. Adding whole groups *until* test reaches the share lets one large group "
                "swell it; add a group only while it fits under test_share of the pairs and skip the ones that "
                "do not (a group that never fits stays in train); then, if test is still short, add the one "
                "group left out that lands nearest the share")
    else:
        hint = ("add whole groups to the test part while they fit under test_share of the pairs, skipping the "
                "ones that do not; then, if test is still short, the one group left out that lands nearest")
    raise ExerciseError(f"{where}: the test part holds {got:.0%} of the pairs ({len(test)} of {len(pairs)}), "
                        f"not about {share:.0%}\nHint: {hint}")


def check_split(split_pairs: Callable) -> None:
    """Pass when ``split_pairs(pairs, test_share, seed)`` returns ``(train, test)`` that hold every pair
    exactly once, share no sentence, give test about ``test_share`` of the pairs — for shares 0.2 and
    0.3 and each of ten seeds, so a large group cannot land in test unnoticed — and repeat for a seed."""
    require(callable(split_pairs), "Pass your function itself, e.g. check_split(split_pairs).")
    pairs = _hidden_pairs()
    for share in (0.2, 0.3):
        for seed in SEEDS:
            _check_one(split_pairs, pairs, share, seed)
    again = [list(x) for x in two_items(split_pairs(list(pairs), 0.2, 7), "`split_pairs` returned", "")]
    first = [list(x) for x in two_items(split_pairs(list(pairs), 0.2, 7), "`split_pairs` returned", "")]
    require([[id(p) for p in part] for part in again] == [[id(p) for p in part] for part in first],
            "the same seed gave two different splits",
            "shuffle with random.Random(seed), not the global random module or an unseeded one")
    other = [list(x) for x in two_items(split_pairs(list(pairs), 0.2, 8), "`split_pairs` returned", "")]
    require({id(p) for p in other[1]} != {id(p) for p in first[1]},
            "seeds 7 and 8 gave the same test part", "use the seed to shuffle the groups")
    ok("your split keeps every sentence on one side — chains through either column included — with about "
       "the share asked for, a group larger than the share kept out of test, the same for a seed")
