"""Notebook 13's checks, for what their declarations cannot say: the notebook's answers pass; each bad row's
mistake and each leaking or skewed split is named, and a list changed in place."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from sbertlib import data
from sbertlib.workbook.lessons import ExerciseError, nb13
from lesson_helpers import IN_PLACE

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "13_your_own_data.ipynb"


def solution(name: str):
    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]
             if "solution" in c["metadata"].get("tags", []) and f"def {name}" in "".join(c["source"])]
    space = {"data": data}
    exec(cells[0], space)
    return space[name]


def reader(check_range=True, error=data.DataFormatError, line_of=None, name_column=True, check_empty=True):
    """The notebook's examples_from_rows with one of the usual mistakes switched on."""
    def examples_from_rows(rows, columns, score_range):
        (first, second, score), (low, high), out = columns, score_range, []
        for position, (line, row) in enumerate(rows):
            where = f"line {line_of(position) if line_of else line}" + (", column {}" if name_column else "")
            for column in (first, second) if check_empty else ():
                if not row[column]:
                    raise error(where.format(repr(column)) + ": empty")
            try:
                value = float(row[score])
            except ValueError:
                raise error(where.format(repr(score)) + ": not a number") from None
            if check_range and not (low <= value <= high if check_range is True else check_range(value, low, high)):
                raise error(where.format(repr(score)) + ": outside the range")
            out.append((row[first], row[second], (value - low) / (high - low)))
        return out
    return examples_from_rows


def test_the_notebooks_answers_pass_and_read_as_the_library(tmp_path, capsys):
    nb13.check_examples_from_rows(solution("examples_from_rows"))
    split = solution("split_pairs")
    nb13.check_split(split)
    assert capsys.readouterr().out.count("[OK]") == 2
    pairs = nb13._hidden_pairs()
    assert all(split(pairs, share, seed) == data.group_split(pairs, share, seed) for share, seed in ((.25, 3), (.2, 7)))
    path = tmp_path / "pairs.tsv"
    path.write_text("question\tother\tscore\nA cat sits.\tA cat is sitting.\t4.5\nA dog runs.\tStocks fell.\t0.2\n")
    columns = ("question", "other", "score")
    ours = nb13.examples_from_rows_truth(data.own.read_table(path, columns), columns, (0, 5))
    assert ours == [(p.sentence1, p.sentence2, p.label) for p in data.load_scored_pairs(path, *columns, score_range=(0, 5))]


@pytest.mark.parametrize("wrong, says", [
    (reader(check_range=False), "was accepted.*\nHint: float\\('nan'\\)"),
    (reader(check_range=lambda v, low, high: not (v < low or v > high)), "nan fails every comparison"),
    (reader(check_empty=False), "empty sentence cannot be trained on"),
    (reader(error=ValueError), "raise data.DataFormatError"),
    (reader(line_of=lambda i: i + 2), "not its position"),
    (reader(line_of=lambda i: "?"), "does not name its line"),
    (reader(name_column=False), "does not name the column"),
    (lambda rows, columns, score_range: [(r[columns[0]], r[columns[1]], float(r[columns[2]]) / 10) for _, r in rows],
     "score / high"),
])
def test_a_bad_rows_mistake_is_named(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb13.check_examples_from_rows(wrong)


def grouped(key, until=False):
    """Whole groups (pairs joined by ``key``'s sentences) to test while they fit under the share (or *until* it)."""
    def split(pairs, share, seed):
        parent = {}

        def root(s):
            while parent.setdefault(s, s) != s:
                s = parent[s]
            return s
        groups, test = {}, set()
        for p in pairs:
            parent[root(key(p)[0])] = root(key(p)[-1])
        for i, p in enumerate(pairs):
            groups.setdefault(root(key(p)[0]), []).append(i)
        order = sorted(groups.values())
        random.Random(seed).shuffle(order)
        for group in order:
            if (len(test) < share * len(pairs)) if until else (len(test) + len(group) <= share * len(pairs)):
                test.update(group)
        return [p for i, p in enumerate(pairs) if i not in test], [p for i, p in enumerate(pairs) if i in test]
    return split


@pytest.mark.parametrize("wrong, says", [
    (lambda p, s, seed: (lambda q: (q[int(len(q) * s):], q[:int(len(q) * s)]))(random.Random(seed).sample(p, len(p))),
     "in both parts.*\nHint: a random split of the \\*pairs\\*"),
    (grouped(lambda p: (p.sentence1,)), "in both parts.*\nHint: every first sentence keeps its pairs together.*union"),
    (grouped(lambda p: (p.sentence2,)), "in both parts"),
    (grouped(lambda p: (p.sentence1, p.sentence2), until=True), r"test_share=0.2, seed=10: the test part holds 34% .*"
                                                                 r"\nHint: test holds the group of 'How do I get a copy"),
    (lambda p, s, seed: data.group_split(p, s, seed)[::-1], "look swapped"),
    (lambda p, s, seed: data.group_split(p, s / 3, seed), "add whole groups to the test part while they fit"),
    (lambda p, s, seed: data.group_split(p, s, random.randint(0, 10**6)), "same seed gave two different"),
    (lambda p, s, seed: data.group_split(p, s, 0), "seeds 7 and 8 gave the same"),
    (lambda p, s, seed: ([], list(p)), "one side is empty"),
    (lambda p, s, seed: (list(p), list(p)[:10]), "missing, repeated"),
    (lambda p, s, seed: list(p), "not a pair"),
    (lambda p, s, seed: (p[0].sentence3, []), r"split_pairs \(test_share=0.2, seed=7\) raised AttributeError"),
    (lambda p, s, seed: random.Random(seed).shuffle(p) or data.group_split(p, s, seed), IN_PLACE),
])
def test_a_wrong_split_is_named(wrong, says):
    with pytest.raises(ExerciseError, match=says):
        nb13.check_split(wrong)

