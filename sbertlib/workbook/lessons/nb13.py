"""Self-checks for notebook 13 (your own data): rows read into training examples, a split that shares no sentence."""
import contextlib
import io
import random
import re
from typing import Callable

import numpy as np

from ...data import DataFormatError, STSPair
from . import Exercise, _brief, call, guard, ok, require, student_raised, two_items

ROW_COLUMNS, ROW_RANGE = ("query", "match", "rating"), (1.0, 10.0)   # not the notebook's; a scale not from 0
FAQ, SEEDS, TOLERANCE = "How do I get a copy of my certificate?", range(7, 17), 0.05   # TOLERANCE: group_split's


def _good_rows() -> list[tuple[int, dict]]:
    """Rows as data.own.read_table gives them: line numbers with gaps, an extra column the loader must ignore."""
    texts = [("How do I reset my password?", "I forgot my password, what now?", "9.5"),
             ("Where is room 4.12?", "How do I find room 4.12?", "8"), ("When is the exam?", "Is the library open?", "1"),
             ("Can I bring notes?", "Are notes allowed in the exam?", "10"), ("Is there a resit?", "Who marks it?", "3.25"),
             ("What does 'a, b' mean?", "What is meant by 'a, b'?", "7")]
    return [(line, {**dict(zip(ROW_COLUMNS, t)), "annotator": "J"}) for line, t in zip((2, 3, 6, 7, 8, 12), texts)]


def examples_from_rows_truth(rows, columns, score_range, scale=None) -> list[tuple[str, str, float]]:
    """The library's reading (data.own's checks), the score scaled to 0–1 by the range (``scale``: a slip's)."""
    from pathlib import Path
    from ...data.own import _score, _text
    (low, high), out = score_range, []
    for line, row in rows:
        value, where = _score(row[columns[2]], columns[2], "\t", Path("your file"), line), Path("your file")
        require(low <= value <= high, f"line {line}: score {value:g} outside the range")
        out.append((_text(row, columns[0], where, line), _text(row, columns[1], where, line),
                    (scale or (lambda v, low, high: (v - low) / (high - low)))(value, low, high)))
    return out


def _examples(got, what: str) -> list[tuple]:
    require(got is not None and not isinstance(got, (str, bytes)), f"{what} returned {_brief(got)}",
            "return a list with one (sentence1, sentence2, label) tuple per row")
    items = [tuple(x) for x in got]
    require(all(len(x) == 3 for x in items), f"{what}: an example is not (sentence1, sentence2, label)", "three values")
    return [(a, b, float(label)) for a, b, label in items]


_scaled = lambda scale: lambda r, c, s: examples_from_rows_truth(r, c, s, scale)  # noqa: E731 - a slip's scale
EXAMPLES = Exercise("examples_from_rows", reference=examples_from_rows_truth, returns=_examples,
                    inputs=lambda: [(_good_rows(), ROW_COLUMNS, ROW_RANGE)],
                    compare=lambda a, b: [x[:2] for x in a] == [x[:2] for x in b] and np.allclose(
                        [x[2] for x in a], [x[2] for x in b], atol=1e-9), slips={
    "those are the scores as written: scale them to 0–1 with the range, (score − low) / (high − low)":
        _scaled(lambda v, lo, hi: v),
    "score / high is 0–1 only when the scale starts at 0; this one starts at 1: (score − low) / (high − low)":
        _scaled(lambda v, lo, hi: v / hi),
    "(score − low) / high: divide by the width of the range, high − low": _scaled(lambda v, lo, hi: (v - lo) / hi),
    "score_range is ignored (a 0–5 scale written in): scale by the range passed in": _scaled(lambda v, lo, hi: v / 5),
    "the scale runs the wrong way: low → 0, high → 1": _scaled(lambda v, lo, hi: (hi - v) / (hi - lo)),
    "the sentences are swapped: sentence1 comes from columns[0], sentence2 from columns[1]":
        lambda r, c, s: [(b, a, y) for a, b, y in examples_from_rows_truth(r, c, s)]},
    hint="each example is (the row's columns[0], its columns[1], (score − low) / (high − low))")


def _bad_cases() -> list[tuple[str, str, list[tuple[int, dict]]]]:
    """(what is wrong, its column, rows): one bad value on line 7, the 4th row (its position + 2 would say line 5)."""
    q, m, r = ROW_COLUMNS
    return [(what, column, [(line, {**row, **({column: value} if line == 7 else {})}) for line, row in _good_rows()])
            for what, column, value in (("an empty first sentence", q, ""), ("an empty second sentence", m, ""),
                                        ("a score that is a word", r, "high"), ("a score of nan", r, "nan"),
                                        ("a score of inf", r, "inf"), ("a score above the range", r, "11"),
                                        ("a score below the range", r, "0.5"))]


def check_examples_from_rows(examples_from_rows: Callable) -> None:
    """:data:`EXAMPLES`, then each bad row refused with a DataFormatError naming its line (7) and column."""
    with contextlib.redirect_stdout(io.StringIO()):     # one [OK] line: this check's own, at its end
        EXAMPLES.check(examples_from_rows)
    for what, column, rows in _bad_cases():
        err = None
        try:   # the rows are the case's own; a DataFormatError (a ValueError) by design, which the check reads
            examples_from_rows(rows, ROW_COLUMNS, ROW_RANGE)
        except (ValueError, KeyError, TypeError) as exc:
            err = exc
        except Exception as exc:  # noqa: BLE001 - not what a bad value raises: an error in the student's code
            raise student_raised(f"your examples_from_rows ({what})", exc) from exc
        require(err is not None, f"a row with {what} (line 7, column {column!r}) was accepted", "an empty sentence "
                "cannot be trained on" if "sentence" in what else "float('nan') and float('inf') parse without an error: "
                "compare the score with the range (nan fails every comparison)" if what[-3:] in ("nan", "inf") else
                "check every score against score_range" if "range" in what else "a score must be a number")
        require(isinstance(err, DataFormatError), f"a row with {what} raised {type(err).__name__}: {err}", "raise "
                "data.DataFormatError naming the line and the column, not the bare error of float() or of a lookup")
        text = str(err)
        require(re.search(r"\bline 7\b", text) or not re.search(r"\bline 5\b", text), f"a row with {what}: your message "
                f"says line 5 — {text!r}", "that row starts on line 7: use the line number that comes with each row, "
                "not its position in the list")
        require(re.search(r"\bline 7\b", text), f"a row with {what}: your message does not name its line (7): {text!r}",
                "put the row's line number in the message, e.g. 'line 7: …'")
        require(column in text, f"a row with {what}: your message does not name the column {column!r}: {text!r}",
                "name the column that holds the bad value")
    ok("examples_from_rows scales the scores to 0–1 with the range and refuses empty sentences, words, nan, inf and "
       "scores outside the range with the line and column named")


def _hidden_pairs(seed: int = 13) -> list[STSPair]:
    """40 questions with three partners each; 12 chains of five pairs that only a grouping over *both* columns keeps
    together ((a, x), (b, x) share a second sentence, (b, y), (y, c) join across the columns, (d, c)); :data:`FAQ`
    with 80 rephrasings, one group of 80 of the 260 pairs. Chains and FAQ pairs are interleaved with the questions."""
    rng = random.Random(seed)
    pairs = [STSPair(f"question {g}: how does topic {g} work?", f"{kind} sentence for topic {g}", score + rng.uniform(
        -.2, .2)) for g in range(40) for kind, score in (("rephrased", 4.6), ("related", 2.5), ("unrelated", 0.3))]
    for g in range(12):
        a, b, c, d, x, y = (f"chain {g}, sentence {name}" for name in "abcdxy")
        for s1, s2, score in ((a, x, 4.1), (b, x, 3.7), (b, y, 2.2), (y, c, 3.0), (d, c, 1.4)):
            pairs.insert(rng.randrange(len(pairs) + 1), STSPair(s1, s2, score + rng.uniform(-0.2, 0.2)))
    for i in range(80):
        pairs.insert(rng.randrange(len(pairs) + 1), STSPair(FAQ, f"certificate copy, wording {i}", 4.0))
    return pairs


def _split(split_pairs: Callable, pairs: list, share: float, seed: int) -> tuple[list, list]:
    result = call(split_pairs, list(pairs), share, seed, what=f"your split_pairs (test_share={share}, seed={seed})")
    return tuple(list(x) for x in two_items(result, "your split_pairs returned", "return (train, test): two lists"))


def _check_one(split_pairs: Callable, pairs: list, share: float, seed: int) -> None:
    """One call: every pair once, no sentence on both sides, test about ``share`` of the pairs."""
    where, (train, test) = f"test_share={share}, seed={seed}", _split(split_pairs, pairs, share, seed)
    require(train and test, f"{where}: one side is empty ({len(train)} train, {len(test)} test)",
            "both parts need pairs: move whole groups of pairs to test while they fit under test_share")
    require(sorted(map(id, train + test)) == sorted(map(id, pairs)), f"{where}: {len(train)} + {len(test)} pairs came "
            f"back for {len(pairs)} given — a pair is missing, repeated or not one of the originals",
            "every pair goes to exactly one side, unchanged")
    sentences = [{s for p in part for s in (p.sentence1, p.sentence2)} for part in (train, test)]
    leaked = sorted(sentences[0] & sentences[1])
    require(not leaked, f"{where}: {len(leaked)} sentence(s) are in both parts, e.g. {leaked[:1]}",
            "every first sentence keeps its pairs together, but pairs are also joined through their second sentence, "
            "and a sentence can be second in one pair and first in another: join pairs that share *any* sentence, in "
            "either column and through chains (a union–find: connected components of the graph of sentences and "
            "pairs)" if not {p.sentence1 for p in train} & {p.sentence1 for p in test} else "a random split of the "
            "*pairs* lets a test sentence be trained on in another pair: join the pairs that share a sentence — in "
            "either column — into groups and send whole groups to one side")
    got = len(test) / len(pairs)
    require(abs(got - share) <= TOLERANCE, f"{where}: the test part holds {got:.0%} of the pairs ({len(test)} of "
            f"{len(pairs)}), not about {share:.0%}", "the parts look swapped: return (train, test), with test the "
            "smaller part" if abs(1 - got - share) <= TOLERANCE else f"test holds the group of {FAQ!r} and its "
            f"rephrasings, {sum(p.sentence1 == FAQ for p in pairs)} pairs: adding whole groups *until* test reaches the "
            "share lets one large group swell it; add a group only while it fits under test_share (a group that never "
            "fits stays in train), then, if test is still short, the one group left out that lands nearest the share"
            if got > share and any(p.sentence1 == FAQ for p in test) else "add whole groups to the test part while "
            "they fit under test_share, skipping the others; then, if test is short, the one left out that lands nearest")


def check_split(split_pairs: Callable) -> None:
    """:func:`_check_one` for shares 0.2, 0.3 and ten seeds each (a large group cannot hide); one split per seed."""
    pairs = _hidden_pairs()
    for share in (0.2, 0.3):
        for seed in SEEDS:
            _check_one(split_pairs, pairs, share, seed)
    ids = {seed: [[id(p) for p in part] for part in _split(split_pairs, pairs, 0.2, seed)] for seed in (7, 8)}
    require(ids[7] == [[id(p) for p in part] for part in _split(split_pairs, pairs, 0.2, 7)],
            "the same seed gave two different splits", "shuffle with random.Random(seed), not the global random module")
    require(set(ids[7][1]) != set(ids[8][1]), "seeds 7 and 8 gave the same test part", "use the seed to shuffle the groups")
    ok("your split keeps every sentence on one side — chains through either column included — with about the share "
       "asked for, a group larger than the share kept out of test, the same for a seed")


EXERCISES = (EXAMPLES, Exercise('split_pairs', probe=None))

guard(globals())   # last: every check above shows its own failures as an ExerciseError
