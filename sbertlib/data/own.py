"""Your own data: sentence pairs with a score or a class label, or plain sentences, from a CSV or TSV file.

The file has a header line naming its columns, then one item per line. The delimiter follows the
extension (``.tsv``/``.tab``: tab, ``.csv``: comma — or ``;`` or a tab when the header splits into
the columns on that instead, as Excel writes CSV in locales whose decimal mark is a comma;
``delimiter=`` overrides); fields may be quoted as in any spreadsheet export, and a quoted field may
span lines (its newlines are kept). The text is UTF-8, with or without a byte-order mark; lines may
end in ``\\n`` or ``\\r\\n``. In a ``;``-delimited file a score may have a decimal comma (``3,5``);
elsewhere a comma in a score is ambiguous and refused. Every problem
raises :class:`DataFormatError` naming the file, the line where the record starts, and the column: a
missing column (with the columns the header has), an empty file, a record with more or fewer fields
than the header, a quote left open, an empty sentence or label, a score that is not a number or lies
outside the range, a label outside the label set.

* :func:`load_scored_pairs` → :class:`STSPair` records (for the regression objective and STS evaluation);
* :func:`load_labelled_pairs` → ``(sentence1, sentence2, class_id)`` tuples and the label names
  (for the classification objective);
* :func:`load_sentences` → a list of sentences (for search);
* :func:`group_split` → train/test parts that share no sentence, so the test measures new sentences.
"""
from __future__ import annotations

import csv
import io
import math
import os
import random
import re
import warnings
from pathlib import Path
from typing import Sequence

from .records import DataFormatError, DataNotFoundError, STSPair
from ..errors import SettingError

DELIMITERS = {".tsv": "\t", ".tab": "\t", ".csv": ","}
CSV_DELIMITERS = (",", ";", "\t")  # what a .csv may use: Excel writes ';' where ',' is the decimal mark


def _bad(path: Path, line: int, what: str) -> DataFormatError:
    return DataFormatError(f"{path}, line {line}: {what}")


def _delimiter(path: Path, delimiter: str | None, header_line: str, columns: Sequence[str]) -> str:
    """``delimiter``, or the one the extension names; a ``.csv`` whose header splits into the
    ``columns`` on ``;`` or a tab rather than ``,`` (Excel in many European locales) uses that one."""
    if delimiter is not None:
        if len(delimiter) != 1:
            raise SettingError(f"delimiter must be one character (',' or '\\t'), not {delimiter!r}")
        return delimiter
    if path.suffix.lower() not in DELIMITERS:
        raise DataFormatError(f"{path}: cannot tell the delimiter from the extension {path.suffix!r}; "
                              "name the file .csv or .tsv, or pass delimiter=',' or delimiter='\\t'")
    if path.suffix.lower() == ".csv":
        return _header_delimiter(header_line, columns)
    return DELIMITERS[path.suffix.lower()]


def _header_delimiter(header_line: str, columns: Sequence[str]) -> str:
    """The one of ``,``, ``;`` and tab that splits ``header_line`` into fields holding every column;
    the most fields if several do, or none does (an error then shows the header as split); ``,`` on a tie."""
    def rank(sep: str) -> tuple[bool, int]:
        fields = [f.strip() for f in next(csv.reader([header_line], delimiter=sep), [])]
        return all(c in fields for c in columns), len(fields)
    return max(CSV_DELIMITERS, key=rank)


def _first_line(text: str) -> str:
    """The first non-blank line of ``text`` (the header, unless a quoted name spans lines)."""
    return next((line for line in io.StringIO(text) if line.strip()), "")  # lazily: not every line


def _records(path: Path, text: str, delimiter: str) -> list[tuple[int, int, list[str]]]:
    """``(first line, last line, fields)`` of every non-blank record. A quoted field may span lines
    (its newlines are kept); only ``\\n``, ``\\r\\n`` and ``\\r`` end a line."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    out, start = [], 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return out
        except csv.Error as err:
            raise _bad(path, start, f"cannot split the record into fields ({err}; read up to line "
                                    f"{reader.line_num}): a field that starts with a double quote must end with one, "
                                    "followed by the delimiter or the line end; write a double quote inside a quoted "
                                    'field as ""') from None
        if any(cell.strip() for cell in row):
            out.append((start, reader.line_num, row))
        start = reader.line_num + 1


def _check_width(path: Path, record: tuple[int, int, list[str]], header: list[str], delimiter: str) -> None:
    """A clear error unless the record has exactly one field per header column."""
    start, end, row = record
    if len(row) == len(header):
        return
    sep = "a tab" if delimiter == "\t" else repr(delimiter)
    what = f"{len(row)} fields, the header has {len(header)} ({header})"
    if len(row) > len(header):
        what += f"; a field that contains {sep} must be in double quotes"
    if end > start:
        what += f"; this record runs on to line {end}: is a double quote left open?"
    raise _bad(path, start, what)


def read_table(path: str | os.PathLike, columns: Sequence[str], delimiter: str | None = None) -> list[tuple[int, dict]]:
    """``(line number, {column: text})`` for every non-blank record after the header (the line number
    is the file line where the record starts); ``columns`` must all be in the header, once. Values are
    stripped of surrounding whitespace."""
    return _read_table(Path(path), columns, delimiter)[1]


def _read_text(path: Path) -> str:
    """The file's text (UTF-8, a byte-order mark dropped); bytes that are not UTF-8 name their line."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise DataFormatError(f"{path}, line {line}: not UTF-8 text (byte offset {err.start}: "
                              f"{raw[err.start:err.end]!r}); save it as UTF-8") from None


def _read_table(path: Path, columns: Sequence[str], delimiter: str | None) -> tuple[str, list[tuple[int, dict]]]:
    """The delimiter used, and :func:`read_table`'s rows."""
    if not path.is_file():
        raise DataNotFoundError(f"{path}: no such file (working directory: {Path.cwd()})")
    text = _read_text(path)
    delimiter = _delimiter(path, delimiter, _first_line(text), columns)
    records = _records(path, text, delimiter)
    if not records:
        raise DataFormatError(f"{path} is empty: expected a header line naming the columns "
                              f"({', '.join(columns)}), then one item per line")
    (head_line, _, header), rows = records[0], records[1:]
    header = [h.strip() for h in header]
    missing = [c for c in columns if c not in header]
    if missing:
        sep = "tab" if delimiter == "\t" else repr(delimiter)
        raise _bad(path, head_line, f"no column {', '.join(map(repr, missing))}; the header has {header} "
                                    f"(split on {sep}); name your columns with the loader's arguments")
    twice = [c for c in columns if header.count(c) > 1]
    if twice:
        raise _bad(path, head_line, f"the header names column {', '.join(map(repr, twice))} more than once: {header}")
    if not rows:
        raise _bad(path, head_line, "a header but no rows after it")
    for record in rows:
        _check_width(path, record, header, delimiter)
    return delimiter, [(start, {h: cell.strip() for h, cell in zip(header, row)}) for start, _, row in rows]


def _text(row: dict, column: str, path: Path, lineno: int) -> str:
    if not row[column]:
        raise _bad(path, lineno, f"column {column!r} is empty")
    return row[column]


_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")


def _score(text: str, column: str, delimiter: str, path: Path, lineno: int) -> float:
    """``text`` as a finite float. In a ``;``-delimited file a decimal comma (``3,5``) reads as 3.5:
    there, a comma cannot be a field separator; elsewhere it is ambiguous and refused."""
    number = text.replace(",", ".") if delimiter == ";" and _DECIMAL_COMMA.fullmatch(text) else text
    try:
        value = float(number)
    except ValueError:
        hint = ("; a decimal comma is read only in a ';'-delimited file: write a decimal point (3.5)"
                if "," in text and delimiter != ";" else "")
        raise _bad(path, lineno, f"score {text!r} in column {column!r} is not a number{hint}") from None
    if not math.isfinite(value):
        raise _bad(path, lineno, f"score {text!r} in column {column!r} is not a finite number")
    return value


def load_scored_pairs(path: str | os.PathLike, sentence1: str = "sentence1", sentence2: str = "sentence2",
                      score: str = "score", score_range: tuple[float, float] | None = None,
                      delimiter: str | None = None) -> list[STSPair]:
    """Sentence pairs with a similarity score, as :class:`STSPair` (``.label`` = score scaled to 0–1).

    ``score_range=(low, high)`` is the scale of your scores (STSb: ``(0, 5)``); scores outside it are
    errors. Left ``None``, it is the lowest and highest score in the file (documented, not guessed
    silently: the records carry it as ``min_score``/``max_score``).
    """
    path = Path(path)
    delimiter, rows = _read_table(path, (sentence1, sentence2, score), delimiter)
    values = [_score(row[score], score, delimiter, path, lineno) for lineno, row in rows]
    lo, hi = score_range if score_range is not None else (min(values), max(values))
    if not lo < hi:
        raise DataFormatError(f"{path}: the score range ({lo}, {hi}) is empty" +
                              ("; every score in the file is the same: nothing to learn" if score_range is None else ""))
    pairs = []
    for (lineno, row), value in zip(rows, values):
        if not lo <= value <= hi:
            raise _bad(path, lineno, f"score {value:g} lies outside the range [{lo:g}, {hi:g}]")
        pairs.append(STSPair(_text(row, sentence1, path, lineno), _text(row, sentence2, path, lineno), value,
                             min_score=lo, max_score=hi, source=path.name))
    return pairs


def load_labelled_pairs(path: str | os.PathLike, sentence1: str = "sentence1", sentence2: str = "sentence2",
                        label: str = "label", labels: Sequence[str] | None = None,
                        delimiter: str | None = None) -> tuple[list[tuple[str, str, int]], tuple[str, ...]]:
    """Sentence pairs with a class label: ``([(sentence1, sentence2, class_id), ...], label_names)``.

    ``labels`` is the label set in class-id order; a label outside it is an error. Left ``None``, it
    is the labels found in the file, sorted.
    """
    path = Path(path)
    rows = read_table(path, (sentence1, sentence2, label), delimiter)
    found = [_text(row, label, path, lineno) for lineno, row in rows]
    names = tuple(labels) if labels is not None else tuple(sorted(set(found)))
    if len(set(names)) != len(names):
        raise SettingError(f"labels={names} names a label more than once; each class needs one name")
    if len(names) < 2:
        where = f"labels={names} names" if labels is not None else f"{path}: column {label!r} holds"
        raise DataFormatError(f"{where} {len(names)} distinct label(s) {names}: a classifier needs at least two")
    out = []
    for (lineno, row), name in zip(rows, found):
        if name not in names:
            raise _bad(path, lineno, f"label {name!r} in column {label!r} is not one of {names}")
        out.append((_text(row, sentence1, path, lineno), _text(row, sentence2, path, lineno), names.index(name)))
    return out, names


def load_sentences(path: str | os.PathLike, column: str = "sentence", delimiter: str | None = None) -> list[str]:
    """The sentences of one column (e.g. a corpus to search), in file order, duplicates kept."""
    path = Path(path)
    return [_text(row, column, path, lineno) for lineno, row in read_table(path, (column,), delimiter)]


def group_split(pairs: Sequence, test_share: float = 0.2, seed: int = 0,
                tolerance: float = 0.05) -> tuple[list, list]:
    """Split pairs into train and test so that no sentence is on both sides.

    Pairs that share a sentence — in either column, through any chain — are joined into groups
    (connected components), and each group goes whole to one side. A random split of *pairs* would
    let a test sentence be trained on in another pair — the score would then measure memory, not
    generalisation. Works on :class:`STSPair` records and on tuples whose first two items are the sentences.

    The test part is balanced to ``test_share`` of the pairs: the groups, in an order shuffled with
    ``seed`` (another seed, another split), go to test while they fit under the share; then the one
    group left out that brings test nearest the share, if it does. A group larger than the share (a
    FAQ question paraphrased many times) therefore stays in train instead of swelling test past it.
    When the groups cannot make a test part within ``tolerance`` of all pairs (and one pair) of the
    share — a single group holds most of the pairs — the split is still made, with no shared sentence,
    and a ``UserWarning`` names the largest group (by its most frequent sentence) and its size.
    ``ValueError`` when the pairs form a single group.
    """
    if not 0 < test_share < 1:
        raise SettingError(f"test_share must lie between 0 and 1, got {test_share}")
    sides = [(p.sentence1, p.sentence2) if isinstance(p, STSPair) else (p[0], p[1]) for p in pairs]
    groups = _connected_groups(sides)
    if len(groups) < 2:
        raise SettingError(f"cannot split {len(sides)} pairs into two parts without sharing a sentence: "
                           f"they form {len(groups)} group(s) of connected pairs")
    order = sorted(groups)
    random.Random(seed).shuffle(order)
    test_ids = _fill_to_share(order, test_share * len(sides), len(sides))
    if abs(len(test_ids) - test_share * len(sides)) > max(tolerance * len(sides), 1):
        _warn_off_share(sides, groups, len(test_ids), test_share)
    train = [p for i, p in enumerate(pairs) if i not in test_ids]
    test = [p for i, p in enumerate(pairs) if i in test_ids]
    return train, test


def _connected_groups(sides: list[tuple[str, str]]) -> list[list[int]]:
    """The pair indices of each group of pairs joined by a shared sentence (union–find over sentences)."""
    parent: dict[str, str] = {}

    def root(s: str) -> str:
        parent.setdefault(s, s)
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for a, b in sides:
        parent[root(a)] = root(b)
    groups: dict[str, list[int]] = {}
    for i, (a, _) in enumerate(sides):
        groups.setdefault(root(a), []).append(i)
    return list(groups.values())


def _fill_to_share(order: list[list[int]], target: float, total: int) -> set[int]:
    """The pair indices for test: groups in ``order`` while they fit under ``target`` pairs, then the
    group left out that lands nearest it (on a tie, the larger part) if it is at least as near and
    leaves train a pair; at least one group (the smallest) so that test is never empty."""
    test_ids: set[int] = set()
    for group in order:
        if len(test_ids) + len(group) <= target:
            test_ids.update(group)
    left = [g for g in order if g[0] not in test_ids]
    closest = min(left, key=lambda g: abs(len(test_ids) + len(g) - target))
    if abs(len(test_ids) + len(closest) - target) <= target - len(test_ids) and len(test_ids) + len(closest) < total:
        test_ids.update(closest)
    elif not test_ids:
        test_ids.update(min(left, key=len))
    return test_ids


def _warn_off_share(sides: list[tuple[str, str]], groups: list[list[int]], n_test: int, share: float) -> None:
    """Warn that the test part is off ``share``, naming the largest group and its size."""
    big = max(groups, key=len)
    counts: dict[str, int] = {}
    for i in big:
        for s in set(sides[i]):
            counts[s] = counts.get(s, 0) + 1
    hub = max(counts, key=lambda s: (counts[s], s))
    n = len(sides)
    warnings.warn(f"group_split: the test part holds {n_test} of {n} pairs ({n_test / n:.0%}), not the "
                  f"{share:.0%} asked: one group of pairs that share sentences holds {len(big)} pairs "
                  f"({len(big) / n:.0%}) — joined through {hub!r}, in {counts[hub]} of them — and a group "
                  "goes whole to one side. Split it by hand (drop some of its pairs, or keep it for training) "
                  "or ask for another test_share.", UserWarning, stacklevel=3)
