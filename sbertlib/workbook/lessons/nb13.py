"""Self-checks for notebook 13 (your own data): rows read into training examples, and a train/test split
that shares no sentence.

:func:`check_examples_from_rows` runs the student's ``examples_from_rows(rows, columns, score_range)`` on
hidden rows (as ``data.own.read_table`` gives them: line numbers with gaps, an extra column, a 1–10 scale)
and on rows with one bad value each (an empty sentence, a word, nan, inf, a score outside the range): the
labels must be the scores scaled to 0–1, and each bad row a ``DataFormatError`` naming its line and column.

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
import re
from typing import Callable

import numpy as np

from ...data import DataFormatError, STSPair
from . import guard, Exercise, ExerciseError, call, named_slip, ok, require, student_raised, two_items, unfinished
from .questions import choice

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
    result = call(split_pairs, list(pairs), share, seed,
                  what=f"`split_pairs` ({where})")
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
    def split(seed: int) -> list[list]:
        result = call(split_pairs, list(pairs), 0.2, seed, what=f"`split_pairs` (test_share=0.2, seed={seed})")
        return [list(x) for x in two_items(result, "`split_pairs` returned", "")]
    again, first = split(7), split(7)
    require([[id(p) for p in part] for part in again] == [[id(p) for p in part] for part in first],
            "the same seed gave two different splits",
            "shuffle with random.Random(seed), not the global random module or an unseeded one")
    other = split(8)
    require({id(p) for p in other[1]} != {id(p) for p in first[1]},
            "seeds 7 and 8 gave the same test part", "use the seed to shuffle the groups")
    ok("your split keeps every sentence on one side — chains through either column included — with about "
       "the share asked for, a group larger than the share kept out of test, the same for a seed")


# ----------------------------------------------------------------------------- rows -> training examples
ROW_COLUMNS = ("query", "match", "rating")      # hidden column names, not the notebook's
ROW_RANGE = (1.0, 10.0)                         # a scale that does not start at 0: score/high is not the answer


def _good_rows() -> list[tuple[int, dict]]:
    """Rows as data.own.read_table gives them: line numbers with gaps (a quoted field that spans lines, blank
    lines) and an extra column the loader must ignore."""
    q, m, r = ROW_COLUMNS
    texts = [("How do I reset my password?", "I forgot my password, what now?", "9.5"),
             ("Where is room 4.12?", "How do I find room 4.12?", "8"),
             ("When is the exam?", "Is the library open on Sunday?", "1"),
             ("Can I bring notes?", "Are notes allowed in the exam?", "10"),
             ("Is there a resit?", "Who marks the project?", "3.25"),
             ("What does 'a, b' mean?", "What is meant by 'a, b'?", "7")]
    lines = (2, 3, 6, 7, 8, 12)
    return [(line, {q: a, m: b, r: s, "annotator": "J"}) for line, (a, b, s) in zip(lines, texts)]


def examples_from_rows_truth(rows, columns, score_range) -> list[tuple[str, str, float]]:
    """The library's reading: data.own's checks, the score scaled to 0–1 by the range."""
    from ...data.own import _score, _text
    from pathlib import Path
    first, second, score = columns
    low, high = score_range
    out = []
    for line, row in rows:
        value = _score(row[score], score, "\t", Path("your file"), line)
        if not low <= value <= high:
            raise ExerciseError(f"line {line}: score {value:g} outside the range")
        out.append((_text(row, first, Path("your file"), line), _text(row, second, Path("your file"), line),
                    (value - low) / (high - low)))
    return out


def _bad_cases() -> list[tuple[str, str, list[tuple[int, dict]]]]:
    """(what is wrong, the column it is in, rows): one bad row each, on a line that is not its position + 2."""
    q, m, r = ROW_COLUMNS
    cases = []
    for what, column, value in (("an empty first sentence", q, ""), ("an empty second sentence", m, ""),
                                ("a score that is a word", r, "high"), ("a score of nan", r, "nan"),
                                ("a score of inf", r, "inf"), ("a score above the range", r, "11"),
                                ("a score below the range", r, "0.5")):
        rows = [(line, dict(row)) for line, row in _good_rows()]
        rows[3][1][column] = value                  # line 7, the 4th row: position + 2 would say line 5
        cases.append((what, column, rows))
    return cases


def _read_rows(fn: Callable, rows, where: str):
    try:
        return fn([(line, dict(row)) for line, row in rows], ROW_COLUMNS, ROW_RANGE), None
    except DataFormatError as err:
        return None, err
    except Exception as err:  # noqa: BLE001
        if unfinished(err):
            raise ExerciseError("`examples_from_rows` is not written yet (it raised NotImplementedError).") from None
        if isinstance(err, (ValueError, KeyError, TypeError)):
            return None, err
        raise student_raised(f"`examples_from_rows` ({where})", err) from err


def _as_examples(result, where: str) -> list[tuple]:
    require(result is not None and not isinstance(result, (str, bytes)),
            f"{where}: `examples_from_rows` returned {result!r}",
            "return a list with one (sentence1, sentence2, label) tuple per row")
    try:
        items = [tuple(x) for x in result]
    except TypeError:
        raise ExerciseError(f"{where}: `examples_from_rows` returned {type(result).__name__}, not a list of tuples\n"
                            "Hint: one (sentence1, sentence2, label) tuple per row") from None
    for item in items:
        require(len(item) == 3, f"{where}: an example with {len(item)} values: {item!r}",
                "each example is (sentence1, sentence2, label)")
    return items


def check_examples_from_rows(examples_from_rows: Callable) -> None:
    """Pass when ``examples_from_rows(rows, columns, score_range)`` turns hidden rows (``(line, {column: text})``,
    line numbers with gaps, an extra column, a scale of 1–10) into ``(sentence1, sentence2, label)`` with the
    label scaled to 0–1, and raises :class:`~sbertlib.data.DataFormatError` naming the line and the column for
    each bad row: an empty sentence, a score that is a word, nan or inf, a score outside the range. Unscaled
    scores, score/high, the columns swapped, a bad row accepted, float()'s bare ValueError, a row's position
    instead of its line and a message without the line or the column are each named."""
    require(callable(examples_from_rows),
            f"`examples_from_rows` must be a function (rows, columns, score_range); got "
            f"{type(examples_from_rows).__name__}", "define it with `def` in the solution cell and run that cell first")
    rows = _good_rows()
    result, err = _read_rows(examples_from_rows, rows, "good rows")
    if err is not None:
        raise ExerciseError(f"`examples_from_rows` refused rows that are all good ({type(err).__name__}: {err})\n"
                            "Hint: scores like '9.5', '8' and '10' on a 1–10 scale are fine; read each row's columns "
                            "by the names in `columns`") from err
    got = _as_examples(result, "good rows")
    want = examples_from_rows_truth(rows, ROW_COLUMNS, ROW_RANGE)
    require(len(got) == len(want), f"{len(rows)} good rows gave {len(got)} examples", "one example per row")
    q, m, r = ROW_COLUMNS
    if [g[:2] for g in got] != [w[:2] for w in want]:
        swapped = [(w[1], w[0]) for w in want]
        require([g[:2] for g in got] != swapped, "the sentences are swapped: the first example starts with "
                f"{got[0][0]!r}", f"sentence1 comes from column {q!r}, sentence2 from {m!r}: columns[0] and columns[1]")
        raise ExerciseError(f"the sentences differ from the rows': got {got[0][:2]!r} for the first row\n"
                            "Hint: each example's texts are the row's values in columns[0] and columns[1], unchanged")
    try:
        labels = np.array([float(g[2]) for g in got])
    except (TypeError, ValueError):
        raise ExerciseError(f"the labels are not numbers: {got[0][2]!r}\nHint: the label is a float in 0–1") from None
    want_labels = np.array([w[2] for w in want])
    if not np.allclose(labels, want_labels, atol=1e-9):
        raw = np.array([float(row[r]) for _, row in rows])
        low, high = ROW_RANGE
        slips = {"those are the scores as written: scale them to 0–1 with the range, (score − low) / (high − low)": raw,
                 f"score / high is 0–1 only when the scale starts at 0; this one starts at {low:g}: "
                 "(score − low) / (high − low)": raw / high,
                 "(score − low) / high: divide by the width of the range, high − low": (raw - low) / high,
                 "the scale runs the wrong way: low → 0, high → 1": 1 - want_labels}
        hint = named_slip(labels, slips, "label = (score − low) / (high − low): the lowest score of the range → 0, the "
                          "highest → 1", close=lambda a, b: np.shape(a) == np.shape(b) and np.allclose(a, b, atol=1e-9))
        raise ExerciseError(f"labels {labels[:3].round(4)} for scores {raw[:3]} on a {low:g}–{high:g} scale\nHint: {hint}")

    for what, column, bad_rows in _bad_cases():
        result, err = _read_rows(examples_from_rows, bad_rows, what)
        if err is None:
            accepted = _as_examples(result, what) if result is not None else []
            raise ExerciseError(f"a row with {what} (line 7, column {column!r}: {bad_rows[3][1][column]!r}) was accepted "
                                f"— {len(accepted)} examples came back, one of them from that row\n"
                                "Hint: " + ("an empty sentence cannot be trained on: refuse it" if "sentence" in what else
                                            "float('nan') and float('inf') parse without an error, and nothing stops a "
                                            "number outside the range: compare it with the range (nan fails every "
                                            "comparison)" if what.endswith(("nan", "inf")) else
                                            "check every score against score_range before scaling it" if "range" in what
                                            else "a score must be a number"))
        if not isinstance(err, DataFormatError):
            raise ExerciseError(f"a row with {what} raised {type(err).__name__}: {err}\nHint: raise data.DataFormatError "
                                "(it is a ValueError) with a message naming the line and the column, so whoever "
                                "fixes the file knows where to look — not the bare error of float() or of a lookup")
        text = str(err)
        if "line 7" not in text and re.search(r"\bline 5\b", text):
            raise ExerciseError(f"a row with {what}: your message says line 5, but that row starts on line 7 — "
                                f"{text!r}\nHint: use the line number that comes with each row, not its position in "
                                "the list (a quoted field can span lines; blank lines are skipped)")
        require(re.search(r"\bline 7\b", text) is not None,
                f"a row with {what}: your message does not name its line (7): {text!r}",
                "put the row's line number in the message, e.g. 'line 7: …'")
        require(column in text, f"a row with {what}: your message does not name the column {column!r}: {text!r}",
                "name the column that holds the bad value")
    ok("examples_from_rows scales the scores to 0–1 with the range and refuses empty sentences, words, nan, inf and "
       "scores outside the range with the line and column named")


# ----------------------------------------------------------------------------- the exercises, declared once
# Each exercise's name, its hidden nbgrader probe (code setting ``_result`` from the student's objects; None: many
# right answers, the check grades it) and, for code later notebooks reuse, the workbook's reference.
EXERCISES = (
    Exercise('split_pairs', probe=None),
)


# ----------------------------------------------------------------------------- questionnaire
# The notebook's questions (its ``## Questions`` cell asks them with ``quiz.ask``): each check follows the written
# answer in the lecturer's ``answers`` cell. Wrong options are the usual misconceptions, about as long as the
# right one; their hints point at the idea without naming the right option.
QUESTIONS = {

    "13.1": choice(
        "Why does a random split of pairs overstate the test score when a sentence appears in several pairs?",
        "The model trains on the test pairs' sentences",
        {"Random splits are unbalanced by gold score":
            "Balance is not the issue. Where else do the test pair's sentences appear?",
         "Test pairs get easier gold scores by chance":
            "The gold scores are the annotators'. What has the model already seen?"}),
    "13.2": choice(
        "Your file scores pairs from 1 to 10. What must score_range be?",
        "(1, 10)",
        {"(0, 10)":
            "Then what would a score of 1 map to, and would anything map to 0?",
         "(0, 1)":
            "The file's scores run from 1 to 10.",
         "(-1, 1)":
            "That is a cosine's range, the default; your file's scores are not cosines."}),
    "13.3": choice(
        "Pairs of (question, answer) with no score and no label: which objective fits?",
        "MNRL (in-batch negatives)",
        {"The regression objective":
            "There is no score to regress on.",
         "The classification objective":
            "There is no label to classify.",
         "The triplet loss":
            "It needs an explicit negative in every row."}),
    "13.4": choice(
        "How do you tell a real gain from noise across several splits?",
        "Positive on every split, and larger than its SD",
        {"A mean gain above 0 over the splits":
            "A mean smaller than its spread could come from noise alone.",
         "One split with a gain of several points":
            "One split is one draw of noise."}),
    "13.5": choice(
        "Why start from notebook 05's trained model when your own data is small?",
        "A few pairs can adjust meaning, not teach it",
        {"It trains faster per step":
            "Speed is not the point. What could a few dozen pairs teach a random encoder?",
         "The untrained network cannot be fine-tuned":
            "It can; notebook 03 did. What would so little data teach it?"}),
    "13.6": choice(
        "What does a sentence-transformers folder need beyond the weights and the tokenizer?",
        "The modules, pooling mode and maximum length",
        {"The optimizer state of the last step":
            "Loading for inference needs no optimizer. How would a loader know how to make the sentence vector?",
         "The training data, for fine-tuning later":
            "Loading for inference needs no data. How would a loader know how to make the sentence vector?"}),
}


guard(globals())   # last: every check above shows its own failures as an ExerciseError
