"""Your own data: CSV/TSV pairs and sentences, with errors that name the file, line and column."""
from __future__ import annotations

import pytest

from sbertlib import data
from sbertlib.data import DataFormatError, DataNotFoundError

EXAMPLE = __import__("pathlib").Path(__file__).resolve().parents[1] / "notebooks" / "examples" / "course_questions.tsv"


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_scored_pairs_from_csv_with_quotes_and_a_range(tmp_path):
    path = write(tmp_path, "p.csv", 'a,b,s\n"Hello, world",Hi world,4.5\nA cat,"A ""dog""",0\n\n')
    pairs = data.load_scored_pairs(path, "a", "b", "s", score_range=(0, 5))
    assert [(p.sentence1, p.sentence2, p.score) for p in pairs] == [("Hello, world", "Hi world", 4.5),
                                                                      ("A cat", 'A "dog"', 0.0)]
    assert pairs[0].label == pytest.approx(0.9) and pairs[0].source == "p.csv"
    inferred = data.load_scored_pairs(path, "a", "b", "s")  # range = the file's lowest and highest score
    assert (inferred[0].min_score, inferred[0].max_score) == (0.0, 4.5) and inferred[0].label == 1.0


@pytest.mark.parametrize("text, match", [
    ("", r"p.tsv is empty: expected a header line"),
    ("sentence1\tsentence2\tscore\n", r"line 1: a header but no rows"),
    ("s1\ts2\tscore\nA\tB\t3\n", r"line 1: no column 'sentence1', 'sentence2'; the header has \['s1', 's2', 'score'\]"),
    ("sentence1\tsentence2\tscore\nA\tB\t3\nC\tD\thigh\n", r"line 3: score 'high' in column 'score' is not a number"),
    ("sentence1\tsentence2\tscore\nA\tB\t3\nC\tD\t7\n", r"line 3: score 7 lies outside the range \[0, 5\]"),
    ("sentence1\tsentence2\tscore\nA\tB\t3\nC\t\t1\n", r"line 3: column 'sentence2' is empty"),
    ("sentence1\tsentence2\tscore\nA\tB\n", r"line 2: 2 fields, the header has 3"),
    ("sentence1\tsentence2\tscore\nA\tB\tnan\n", r"line 2: score 'nan' .* not a finite number"),
])
def test_scored_pairs_errors_name_file_line_and_column(tmp_path, text, match):
    with pytest.raises(DataFormatError, match=match):
        data.load_scored_pairs(write(tmp_path, "p.tsv", text), score_range=(0, 5))


def test_labelled_pairs_and_their_errors(tmp_path):
    path = write(tmp_path, "l.tsv", "q1\tq2\tlabel\nA\tB\tsame\nC\tD\tdifferent\nE\tF\tsame\n")
    pairs, names = data.load_labelled_pairs(path, "q1", "q2")
    assert names == ("different", "same") and pairs == [("A", "B", 1), ("C", "D", 0), ("E", "F", 1)]
    with pytest.raises(DataFormatError, match=r"line 3: label 'different' in column 'label' is not one of \('same', 'dup'\)"):
        data.load_labelled_pairs(path, "q1", "q2", labels=("same", "dup"))
    one = write(tmp_path, "one.tsv", "q1\tq2\tlabel\nA\tB\tsame\n")
    with pytest.raises(DataFormatError, match="at least two"):
        data.load_labelled_pairs(one, "q1", "q2")


def test_sentences_missing_files_and_unknown_extensions(tmp_path):
    assert data.load_sentences(write(tmp_path, "s.csv", "sentence\nOne.\n\nTwo.\n")) == ["One.", "Two."]
    with pytest.raises(DataNotFoundError, match="no such file"):
        data.load_sentences(tmp_path / "nothing.csv")
    with pytest.raises(DataFormatError, match="delimiter"):
        data.load_sentences(write(tmp_path, "s.txt", "sentence\nOne.\n"))
    assert data.load_sentences(tmp_path / "s.txt", delimiter=",") == ["One."]


def test_group_split_shares_no_sentence_and_is_seeded():
    pairs = data.load_scored_pairs(EXAMPLE, "question", "other", "score", score_range=(0, 5))
    train, test = data.group_split(pairs, 0.25, seed=1)
    assert len(train) + len(test) == len(pairs) and 0.2 <= len(test) / len(pairs) <= 0.45
    seen = {s for p in train for s in (p.sentence1, p.sentence2)}
    assert not seen & {s for p in test for s in (p.sentence1, p.sentence2)}
    assert data.group_split(pairs, 0.25, seed=1) == (train, test)
    chained = [("a", "b", 1), ("b", "c", 0), ("c", "a", 1)]  # one group: cannot be split
    with pytest.raises(ValueError, match="1 group"):
        data.group_split(chained, 0.3)
    with pytest.raises(ValueError, match="test_share"):
        data.group_split(pairs, 1.5)
