"""STS evaluation data: the STS benchmark, SemEval STS12–16 and SICK relatedness (paper, Table 1)."""
from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Iterator, Sequence

from . import hub
from .files import _check_split, _fields, _find, _lines, _rows, _same_length, _score, local_or_hub, locate
from .records import DataFormatError, DataNotFoundError, STSPair
from ..errors import SettingError

STS_DATASETS: tuple[str, ...] = ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb-test", "sick-r")  # paper Table 1

# SemEval STS subsets per year, in SentEval's order. STS12's aggregate gold file STS.gs.ALL.txt
# (no input file) is not a subset and is ignored. STS13 SMT's input is licensed (LDC only).
STS_SUBSETS: dict[str, tuple[str, ...]] = {
    "STS12": ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"),
    "STS13": ("FNWN", "headlines", "OnWN", "SMT"),
    "STS14": ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
    "STS15": ("answers-forums", "answers-students", "belief", "headlines", "images"),
    "STS16": ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
}
_STS_LICENSED = {("STS13", "SMT")}


# ----------------------------------------------------------------------------- STS benchmark and STS12–16
def _read_stsb_csv(path: Path) -> list[STSPair]:
    """Original release: genre, file, year, id, score, s1, s2 [, source1, source2]; no quoting."""
    pairs = []
    for i, line in enumerate(_lines(path), start=1):
        genre, _, _, _, score, s1, s2, *_ = _fields(line, path, i, (7, 9))
        pairs.append(STSPair(s1.strip(), s2.strip(), _score(score, path, i, 0, 5), source=f"stsb/{genre}"))
    return pairs


def _read_stsb_tsv(path: Path, split: str) -> list[STSPair]:
    """sentence-transformers layout: split, genre, dataset, year, sid, score, sentence1, sentence2."""
    cols = ("split", "genre", "score", "sentence1", "sentence2")
    pairs = [STSPair(r["sentence1"].strip(), r["sentence2"].strip(), _score(r["score"], path, i, 0, 5),
                     source=f"stsb/{r['genre']}")
             for i, r in _rows(path, cols) if r["split"] == split]
    if not pairs:
        raise DataFormatError(f"{path} holds no rows of split {split!r} (its 'split' column): that part is empty; "
                              "copy or download the file again")
    return pairs


def load_stsb(split: str = "test", data_dir: str | os.PathLike | None = None,
              path: str | os.PathLike | None = None) -> list[STSPair]:
    """STS benchmark pairs (score 0–5) from ``stsbenchmark/sts-<split>.csv``.

    Falls back to the sentence-transformers file ``stsbenchmark.tsv.gz`` (found or downloaded)
    when the csv is missing. ``path`` reads one file of either layout directly.
    """
    _check_split(split, ("train", "dev", "test"))
    if path is not None:
        path = Path(path)
        first = _lines(path)[:1]
        is_tsv = bool(first) and first[0].startswith("split\t")
        return _read_stsb_tsv(path, split) if is_tsv else _read_stsb_csv(path)
    csv_rel = f"stsbenchmark/sts-{split}.csv"
    found = _find(csv_rel, data_dir) or _find("stsbenchmark.tsv.gz", data_dir)
    if found is not None and found.name == "stsbenchmark.tsv.gz":
        return _read_stsb_tsv(found, split)
    return local_or_hub(csv_rel, data_dir, _read_stsb_csv, lambda hint: _stsb_from_hub(split, hint))


def _stsb_from_hub(split: str, hint: str) -> list[STSPair]:
    """MTEB's STS benchmark: rows with sentence1, sentence2, score (0–5) and, where present, genre."""
    path, rows = hub.rows("stsb", split, hint)
    return [STSPair(r["sentence1"].strip(), r["sentence2"].strip(), _score(r["score"], path, i, 0, 5),
                    source=f"stsb/{r['genre']}" if r.get("genre") else "stsb")
            for i, r in enumerate(rows, start=1)]


def _sts_year_key(year: int | str) -> str:
    m = re.fullmatch(r"(?:sts)?(?:20)?(1[2-6])", str(year).strip().lower())
    if m is None:
        raise SettingError(f"unknown STS year {year!r}; use 12..16, 2012..2016 or 'sts12'..'sts16'")
    return f"STS{m.group(1)}"


def _read_sts_subset(inp: Path, gold: Path, ncols: Sequence[int], source: str) -> list[STSPair]:
    """Pair input lines with gold lines; an empty gold line means 'no score' and is skipped."""
    inputs, golds = _lines(inp), _lines(gold)
    _same_length((inp, gold), (inputs, golds))
    pairs = []
    for i, (line, g) in enumerate(zip(inputs, golds), start=1):
        s1, s2, *_ = _fields(line, inp, i, ncols)
        if g.strip():
            pairs.append(STSPair(s1.strip(), s2.strip(), _score(g.strip(), gold, i, 0, 5), source=source))
    return pairs


def load_sts_year(year: int | str, data_dir: str | os.PathLike | None = None) -> dict[str, list[STSPair]]:
    """SemEval STS test sets of one year (12..16) as ``{subset: scored pairs}``.

    A licensed subset whose input file is absent (STS13 SMT) is skipped with a warning. From the
    Hub (no local copy) the year comes as one pooled set, ``{"STS12": pairs}``: MTEB's copy keeps
    no subset names.
    """
    key = _sts_year_key(year)
    prefix, ncols = ("STS2016", (2, 4)) if key == "STS16" else ("STS", (2,))
    first_gold = f"sts/{key}/{prefix}.gs.{STS_SUBSETS[key][0]}.txt"
    return local_or_hub(first_gold, data_dir, lambda _: _sts_year_local(key, prefix, ncols, data_dir),
                        lambda hint: {key: _sts_year_from_hub(key, hint)})


def _sts_year_local(key: str, prefix: str, ncols: tuple[int, ...], data_dir) -> dict[str, list[STSPair]]:
    out: dict[str, list[STSPair]] = {}
    for subset in STS_SUBSETS[key]:
        inp_rel = f"sts/{key}/{prefix}.input.{subset}.txt"
        if (key, subset) in _STS_LICENSED and _find(inp_rel, data_dir) is None:
            warnings.warn(f"{key} subset {subset!r} skipped: its input file {inp_rel} is licensed "
                          "(distributed by the LDC only), just the gold scores are public", stacklevel=3)
            continue
        gold = locate(f"sts/{key}/{prefix}.gs.{subset}.txt", data_dir)
        out[subset] = _read_sts_subset(locate(inp_rel, data_dir), gold, ncols, f"{key}/{subset}")
    return out


def _sts_year_from_hub(key: str, hint: str) -> list[STSPair]:
    """MTEB's copy of one year: every subset pooled (no subset names), score 0–5."""
    path, rows = hub.rows(key.lower(), "test", hint)
    return [STSPair(r["sentence1"].strip(), r["sentence2"].strip(), _score(r["score"], path, i, 0, 5), source=key)
            for i, r in enumerate(rows, start=1)]


# ----------------------------------------------------------------------------- SICK
_SICK_FILES = {"train": "SICK_train.txt", "dev": "SICK_trial.txt", "trial": "SICK_trial.txt",
               "test": "SICK_test_annotated.txt"}
_SICK_COLS = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")


def _sick_records(split: str, data_dir, local, from_hub):
    """``local(path, rows)`` of the SemEval file of ``split``, else ``from_hub(path, rows)`` of the Hub's."""
    rel = f"sick/{_SICK_FILES[_check_split(split, tuple(_SICK_FILES))]}"
    hub_split = "dev" if split == "trial" else split
    return local_or_hub(rel, data_dir, lambda path: local(path, _rows(path, _SICK_COLS)),
                        lambda hint: from_hub(*hub.rows("sick", hub_split, hint)))


def load_sick(split: str = "test", data_dir: str | os.PathLike | None = None) -> list[STSPair]:
    """SICK relatedness pairs (score 1–5); split train, dev (= trial) or test."""
    def local(path, rows):
        return [STSPair(r["sentence_A"].strip(), r["sentence_B"].strip(),
                        _score(r["relatedness_score"], path, i, 1, 5), 1.0, 5.0, f"sick/{split}") for i, r in rows]

    def from_hub(path, rows):
        return [STSPair(r["sentence_A"].strip(), r["sentence_B"].strip(),
                        _score(r["relatedness_score"], path, i, 1, 5), 1.0, 5.0, f"sick/{split}")
                for i, r in enumerate(rows, start=1)]
    return _sick_records(split, data_dir, local, from_hub)


# ----------------------------------------------------------------------------- by name
def load_sts_dataset(name: str, data_dir: str | os.PathLike | None = None) -> list[STSPair]:
    """An STS evaluation set by name: ``stsb-{train,dev,test}``, ``sts12``..``sts16`` (subsets
    pooled), ``sick-r`` (SICK test relatedness), ``sick-r-{train,dev,test}``."""
    key = name.strip().lower()
    if key.startswith("stsb-"):
        return load_stsb(key[len("stsb-"):], data_dir)
    if key == "sick-r":
        return load_sick("test", data_dir)
    if key.startswith("sick-r-"):
        return load_sick(key[len("sick-r-"):], data_dir)
    if re.fullmatch(r"sts(20)?1[2-6]", key):
        return [p for pairs in load_sts_year(key, data_dir).values() for p in pairs]
    raise SettingError(f"unknown STS dataset {name!r}; known: {', '.join(STS_DATASETS)}, "
                       "stsb-train, stsb-dev, sick-r-train, sick-r-dev, sick-r-test")
