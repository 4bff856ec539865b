"""Dataset loaders: STS benchmark, STS12–16, SICK, SNLI/AllNLI and the SentEval transfer tasks.

Every loader reads the files from the data directory (explicit ``data_dir`` argument >
``$SBERTLIB_DATA_DIR`` > the checkout's ``data/``, see :mod:`sbertlib.config`) and returns plain dataclasses.
Malformed input raises :class:`DataFormatError` naming the file and the 1-based line; a missing
file raises :class:`DataNotFoundError` saying where it looked and how to provide the file.
Sentences are returned with surrounding whitespace stripped and otherwise untouched.
"""
from __future__ import annotations

import gzip
import hashlib
import http.client
import math
import os
import re
import tempfile
import urllib.request
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from tqdm.auto import tqdm

from . import config

NLI_LABELS: tuple[str, ...] = ("contradiction", "entailment", "neutral")  # index = class id (AllNLI convention)
STS_DATASETS: tuple[str, ...] = ("sts12", "sts13", "sts14", "sts15", "sts16", "stsb-test", "sick-r")  # paper Table 1
SENTEVAL_TASKS: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC")  # paper Table 5

# Files that can be fetched one by one (locate() downloads them when missing).
_SIF = "https://raw.githubusercontent.com/PrincetonML/SIF/master/data"  # SST binary, as in SentEval
_TREC = "https://cogcomp.seas.upenn.edu/Data/QA/QC"  # SentEval's cogcomp.cs.illinois.edu moved here
_FAIR = "https://dl.fbaipublicfiles.com/senteval/senteval_data"
SOURCES: dict[str, str] = {
    "stsbenchmark.tsv.gz": "https://sbert.net/datasets/stsbenchmark.tsv.gz",
    "AllNLI.tsv.gz": "https://sbert.net/datasets/AllNLI.tsv.gz",
    **{f"senteval/SST/binary/sentiment-{s}": f"{_SIF}/sentiment-{s}" for s in ("train", "dev", "test")},
    **{f"senteval/TREC/{n}.label": f"{_TREC}/{n}.label" for n in ("train_5500", "TREC_10")},
    **{f"senteval/MRPC/msr_paraphrase_{s}.txt": f"{_FAIR}/msr_paraphrase_{s}.txt" for s in ("train", "test")},
}
# Files published only inside archives (or needing conversion): named in the error, not auto-fetched.
# Keys are a file or a folder prefix; URLs are the ones SentEval's get_transfer_data.bash uses.
_STSWIKI = "http://ixa2.si.ehu.eus/stswiki/images"
_SICK = "https://alt.qcri.org/semeval2014/task1/data/uploads"
ARCHIVE_SOURCES: dict[str, str] = {
    "stsbenchmark/": f"{_STSWIKI}/4/48/Stsbenchmark.tar.gz",
    "sts/STS12/": f"{_STSWIKI}/4/40/STS2012-en-test.zip",
    "sts/STS13/": f"{_STSWIKI}/2/2f/STS2013-en-test.zip",
    "sts/STS14/": f"{_STSWIKI}/8/8c/STS2014-en-test.zip",
    "sts/STS15/": f"{_STSWIKI}/d/da/STS2015-en-test.zip",
    "sts/STS16/": f"{_STSWIKI}/9/98/STS2016-en-test.zip",
    **{f"sick/SICK_{s}.txt": f"{_SICK}/sick_{s}.zip" for s in ("train", "trial", "test_annotated")},
    "snli/": "https://nlp.stanford.edu/projects/snli/snli_1.0.zip",
    **{f"senteval/{t}/": f"{_FAIR}/datasmall_NB_ACL12.zip" for t in ("MR", "CR", "SUBJ", "MPQA")},
}

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


# ----------------------------------------------------------------------------- records
@dataclass(frozen=True)
class STSPair:
    """A sentence pair with a gold similarity score on the dataset's own scale."""

    sentence1: str
    sentence2: str
    score: float
    min_score: float = 0.0
    max_score: float = 5.0
    source: str = ""  # e.g. "STS12/MSRvid", "stsb/main-captions", "sick/test"

    @property
    def label(self) -> float:
        """The score mapped to 0–1 (target of the regression objective)."""
        return (self.score - self.min_score) / (self.max_score - self.min_score)


@dataclass(frozen=True)
class NLIPair:
    """A premise/hypothesis pair with one of :data:`NLI_LABELS`."""

    premise: str
    hypothesis: str
    label: str

    def __post_init__(self) -> None:
        if self.label not in NLI_LABELS:
            raise ValueError(f"NLI label must be one of {NLI_LABELS}, got {self.label!r}")

    @property
    def label_id(self) -> int:
        """Class index of the label (position in :data:`NLI_LABELS`)."""
        return NLI_LABELS.index(self.label)


@dataclass(frozen=True)
class Triplet:
    anchor: str
    positive: str
    negative: str


@dataclass(frozen=True)
class SentEvalTask:
    """A SentEval classification task.

    ``texts`` holds strings, or ``(sentence1, sentence2)`` tuples for pair tasks (MRPC).
    ``splits`` maps split name to the index range of its examples; it is empty for the
    tasks without a standard split (MR, CR, SUBJ, MPQA: evaluated with 10-fold CV).
    """

    name: str
    texts: list
    labels: list[int]
    label_names: tuple[str, ...]
    splits: dict[str, range] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def is_pair(self) -> bool:
        return bool(self.texts) and isinstance(self.texts[0], tuple)

    def split(self, name: str) -> tuple[list, list[int]]:
        """``(texts, labels)`` of one split, e.g. ``task.split("train")``."""
        if name not in self.splits:
            raise KeyError(f"{self.name} has splits {sorted(self.splits) or 'none (use k-fold CV)'}, not {name!r}")
        r = self.splits[name]
        return self.texts[r.start:r.stop], self.labels[r.start:r.stop]


# ----------------------------------------------------------------------------- errors
class DataFormatError(ValueError):
    """A data file does not have the expected format (message names file and 1-based line)."""


class DataNotFoundError(FileNotFoundError):
    """A data file is missing (message names it, the places searched and how to provide it)."""


class ChecksumError(ValueError):
    """A downloaded file's SHA-256 differs from the expected one."""


def _bad(path: Path, line: int, what: str) -> DataFormatError:
    return DataFormatError(f"{path}, line {line}: {what}")


# ----------------------------------------------------------------------------- finding files
def download(url: str, dest: Path, sha256: str | None = None, timeout: float = 10.0) -> Path:
    """Download ``url`` to ``dest`` atomically (temp file + rename), checking ``sha256`` if given."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            total = int(resp.headers.get("Content-Length") or 0) or None
            with tqdm(total=total, unit="B", unit_scale=True, desc=dest.name) as bar:
                while chunk := resp.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise ChecksumError(f"{url}: SHA-256 {digest.hexdigest()} does not match the expected {sha256}")
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def _find(relpath: str, data_dir: str | os.PathLike | None) -> Path | None:
    for place in config.data_dir_candidates(data_dir):
        if (place / relpath).is_file():
            return place / relpath
    return None


def _archive_for(relpath: str) -> str | None:
    keys = [k for k in ARCHIVE_SOURCES if relpath == k or (k.endswith("/") and relpath.startswith(k))]
    return ARCHIVE_SOURCES[max(keys, key=len)] if keys else None


def _not_found(relpath: str, places: list[Path], url: str | None, reason: str) -> DataNotFoundError:
    searched = "\n".join(f"  - {(p / relpath).absolute()}" for p in places)
    lines = [f"data file {relpath!r} not found. Searched:\n{searched}"]
    if reason:
        lines.append(reason)
    lines.append(f"To provide it, put the file under a data folder as {relpath!r} and set "
                 f"{config.DATA_DIR_ENV}=<that folder> or pass data_dir=<that folder>.")
    archive = _archive_for(relpath)
    if url:
        lines.append(f"It can be downloaded from {url}")
    elif archive:
        lines.append(f"It is published in {archive} (download and unpack so the file lands at {relpath!r}).")
    return DataNotFoundError("\n".join(lines))


def locate(relpath: str, data_dir: str | os.PathLike | None = None,
           url: str | None = None, sha256: str | None = None) -> Path:
    """Path of ``relpath`` in the first data folder holding it; download it if a URL is known."""
    places = config.data_dir_candidates(data_dir)
    found = _find(relpath, data_dir)
    if found is not None:
        return found
    url = url or SOURCES.get(relpath)
    reason = ""
    if url:
        try:
            return download(url, places[0] / relpath, sha256)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            reason = f"Downloading it from {url} failed: {exc}"
    raise _not_found(relpath, places, url, reason)


# ----------------------------------------------------------------------------- reading helpers
def _open(path: Path, encoding: str = "utf-8"):
    """Open a text file (``.gz`` transparently); only LF ends a line (a stray CR stays in its line)."""
    opener = gzip.open if path.name.endswith(".gz") else open
    return opener(path, "rt", encoding=encoding, newline="\n")


def _lines(path: Path, encoding: str = "utf-8") -> list[str]:
    """All lines of a text file without their line endings (LF or CRLF)."""
    with _open(path, encoding) as f:
        return [line.rstrip("\r\n") for line in f]


def _fields(line: str, path: Path, lineno: int, ncols: Sequence[int]) -> list[str]:
    cols = line.split("\t")
    if len(cols) not in ncols:
        want = " or ".join(map(str, ncols))
        raise _bad(path, lineno, f"expected {want} tab-separated columns, found {len(cols)}")
    return cols


def _score(text: str, path: Path, lineno: int, lo: float, hi: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _bad(path, lineno, f"score {text!r} is not a number") from None
    if not (math.isfinite(value) and lo <= value <= hi):
        raise _bad(path, lineno, f"score {value} outside the range [{lo}, {hi}]")
    return value


def _nli_label(text: str, path: Path, lineno: int) -> str:
    label = text.strip().lower()
    if label not in NLI_LABELS:
        raise _bad(path, lineno, f"unknown NLI label {text!r} (expected one of {NLI_LABELS})")
    return label


def _rows(path: Path, required: Sequence[str], encoding: str = "utf-8") -> Iterator[tuple[int, dict[str, str]]]:
    """``(line number, row)`` of a tab-separated file with a header line."""
    lines = _lines(path, encoding)
    header = lines[0].split("\t") if lines else []
    missing = [c for c in required if c not in header]
    if missing:
        raise _bad(path, 1, f"header lacks column(s) {missing}; found {header}")
    for i, line in enumerate(lines[1:], start=2):
        yield i, dict(zip(header, _fields(line, path, i, (len(header),))))


def _check_split(split: str, allowed: Sequence[str]) -> str:
    if split not in allowed:
        raise ValueError(f"unknown split {split!r}; expected one of {tuple(allowed)}")
    return split


def _same_length(files: Sequence[Path], contents: Sequence[list]) -> None:
    counts = [len(c) for c in contents]
    if len(set(counts)) > 1:
        desc = ", ".join(f"{f} has {n}" for f, n in zip(files, counts))
        raise DataFormatError(f"line counts differ ({desc} lines): the files must pair up line by line; "
                              f"line {min(counts) + 1} is the first without a partner")


# ----------------------------------------------------------------------------- STS
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
    return [STSPair(r["sentence1"].strip(), r["sentence2"].strip(), _score(r["score"], path, i, 0, 5),
                    source=f"stsb/{r['genre']}")
            for i, r in _rows(path, cols) if r["split"] == split]


def load_stsb(split: str = "test", data_dir: str | os.PathLike | None = None,
              path: str | os.PathLike | None = None) -> list[STSPair]:
    """STS benchmark pairs (score 0–5) from ``stsbenchmark/sts-<split>.csv``.

    Falls back to the sentence-transformers file ``stsbenchmark.tsv.gz`` (found or downloaded)
    when the csv is missing. ``path`` reads one file of either layout directly.
    """
    _check_split(split, ("train", "dev", "test"))
    if path is not None:
        path = Path(path)
        with _open(path) as f:
            is_tsv = f.readline().startswith("split\t")
        return _read_stsb_tsv(path, split) if is_tsv else _read_stsb_csv(path)
    csv_rel = f"stsbenchmark/sts-{split}.csv"
    found = _find(csv_rel, data_dir)
    if found is not None:
        return _read_stsb_csv(found)
    try:
        return _read_stsb_tsv(locate("stsbenchmark.tsv.gz", data_dir), split)
    except DataNotFoundError as exc:
        raise DataNotFoundError(f"neither {csv_rel!r} (original release) nor 'stsbenchmark.tsv.gz' "
                                f"(sentence-transformers layout) is available.\n{exc}") from exc


def _sts_year_key(year: int | str) -> str:
    m = re.fullmatch(r"(?:sts)?(?:20)?(1[2-6])", str(year).strip().lower())
    if m is None:
        raise ValueError(f"unknown STS year {year!r}; use 12..16, 2012..2016 or 'sts12'..'sts16'")
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

    A licensed subset whose input file is absent (STS13 SMT) is skipped with a warning.
    """
    key = _sts_year_key(year)
    prefix, ncols = ("STS2016", (2, 4)) if key == "STS16" else ("STS", (2,))
    out: dict[str, list[STSPair]] = {}
    for subset in STS_SUBSETS[key]:
        inp_rel = f"sts/{key}/{prefix}.input.{subset}.txt"
        if (key, subset) in _STS_LICENSED and _find(inp_rel, data_dir) is None:
            warnings.warn(f"{key} subset {subset!r} skipped: its input file {inp_rel} is licensed "
                          "(distributed by the LDC only), just the gold scores are public", stacklevel=2)
            continue
        gold = locate(f"sts/{key}/{prefix}.gs.{subset}.txt", data_dir)
        out[subset] = _read_sts_subset(locate(inp_rel, data_dir), gold, ncols, f"{key}/{subset}")
    return out


# ----------------------------------------------------------------------------- SICK
_SICK_FILES = {"train": "SICK_train.txt", "dev": "SICK_trial.txt", "trial": "SICK_trial.txt",
               "test": "SICK_test_annotated.txt"}
_SICK_COLS = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")


def _sick_rows(split: str, data_dir) -> tuple[Path, Iterator[tuple[int, dict[str, str]]]]:
    path = locate(f"sick/{_SICK_FILES[_check_split(split, tuple(_SICK_FILES))]}", data_dir)
    return path, _rows(path, _SICK_COLS)


def load_sick(split: str = "test", data_dir: str | os.PathLike | None = None) -> list[STSPair]:
    """SICK relatedness pairs (score 1–5); split train, dev (= trial) or test."""
    path, rows = _sick_rows(split, data_dir)
    return [STSPair(r["sentence_A"].strip(), r["sentence_B"].strip(),
                    _score(r["relatedness_score"], path, i, 1, 5), 1.0, 5.0, f"sick/{split}")
            for i, r in rows]


def load_sick_nli(split: str = "train", data_dir: str | os.PathLike | None = None) -> list[NLIPair]:
    """SICK pairs with their entailment judgement as NLI labels."""
    path, rows = _sick_rows(split, data_dir)
    return [NLIPair(r["sentence_A"].strip(), r["sentence_B"].strip(),
                    _nli_label(r["entailment_judgment"], path, i)) for i, r in rows]


# ----------------------------------------------------------------------------- NLI
def load_snli(split: str = "dev", data_dir: str | os.PathLike | None = None) -> list[NLIPair]:
    """SNLI in SentEval format: ``snli/s1.<split>``, ``s2.<split>``, ``labels.<split>``."""
    _check_split(split, ("train", "dev", "test"))
    files = [locate(f"snli/{name}.{split}", data_dir) for name in ("s1", "s2", "labels")]
    s1, s2, labels = (_lines(f) for f in files)
    _same_length(files, (s1, s2, labels))
    return [NLIPair(a.strip(), b.strip(), _nli_label(lab, files[2], i))
            for i, (a, b, lab) in enumerate(zip(s1, s2, labels), start=1)]


def load_allnli(split: str = "train", data_dir: str | os.PathLike | None = None,
                path: str | os.PathLike | None = None) -> list[NLIPair]:
    """SNLI+MultiNLI from sentence-transformers' ``AllNLI.tsv.gz`` (found, given, or downloaded)."""
    _check_split(split, ("train", "dev", "test"))
    path = Path(path) if path is not None else locate("AllNLI.tsv.gz", data_dir)
    pairs = []
    for i, r in _rows(path, ("split", "sentence1", "sentence2", "label")):
        label = _nli_label(r["label"], path, i)
        if r["split"] == split:
            pairs.append(NLIPair(r["sentence1"].strip(), r["sentence2"].strip(), label))
    return pairs


def nli_triplets(pairs: list[NLIPair]) -> list[Triplet]:
    """(premise, entailed hypothesis, contradicting hypothesis) triplets.

    One triplet per distinct entailment hypothesis of a premise; its negative cycles through the
    premise's distinct contradiction hypotheses in file order. Premises lacking either are skipped.
    """
    by_premise: dict[str, dict[str, dict[str, None]]] = {}
    for p in pairs:
        by_premise.setdefault(p.premise, {}).setdefault(p.label, {})[p.hypothesis] = None
    out = []
    for premise, hyps in by_premise.items():
        pos, neg = list(hyps.get("entailment", ())), list(hyps.get("contradiction", ()))
        out += [Triplet(premise, h, neg[k % len(neg)]) for k, h in enumerate(pos)] if neg else []
    return out


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
    raise ValueError(f"unknown STS dataset {name!r}; known: {', '.join(STS_DATASETS)}, "
                     "stsb-train, stsb-dev, sick-r-train, sick-r-dev, sick-r-test")


# ----------------------------------------------------------------------------- SentEval
_BINARY = {  # task: (folder, positive file (label 1), negative file (label 0), label names)
    "MR": ("MR", "rt-polarity.pos", "rt-polarity.neg", ("negative", "positive")),
    "CR": ("CR", "custrev.pos", "custrev.neg", ("negative", "positive")),
    "SUBJ": ("SUBJ", "subj.objective", "subj.subjective", ("subjective", "objective")),
    "MPQA": ("MPQA", "mpqa.pos", "mpqa.neg", ("negative", "positive")),
}
TREC_LABELS: tuple[str, ...] = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")


def _concat(name: str, label_names: tuple[str, ...], parts: dict[str, tuple[list, list[int]]]) -> SentEvalTask:
    texts, labels, splits = [], [], {}
    for split, (t, y) in parts.items():
        splits[split] = range(len(labels), len(labels) + len(y))
        texts += t
        labels += y
    return SentEvalTask(name, texts, labels, label_names, splits)


def _binary_task(name: str, data_dir) -> SentEvalTask:
    """One sentence a line, latin-1 like SentEval; empty lines are kept (as SentEval does)."""
    folder, pos, neg, names = _BINARY[name]
    texts = [[s.strip() for s in _lines(locate(f"senteval/{folder}/{f}", data_dir), "latin-1")] for f in (pos, neg)]
    return SentEvalTask(name, texts[0] + texts[1], [1] * len(texts[0]) + [0] * len(texts[1]), names)


def _int_label(text: str, path: Path, lineno: int, n: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < n:
        raise _bad(path, lineno, f"label {text!r} is not one of 0..{n - 1}")
    return value


def _sst2_split(split: str, data_dir) -> tuple[list[str], list[int]]:
    path = locate(f"senteval/SST/binary/sentiment-{split}", data_dir)
    rows = [_fields(line, path, i, (2,)) for i, line in enumerate(_lines(path), start=1)]
    return [t.strip() for t, _ in rows], [_int_label(y, path, i, 2) for i, (_, y) in enumerate(rows, start=1)]


def _trec_split(filename: str, data_dir) -> tuple[list[str], list[int]]:
    """Lines like ``NUM:dist How far is it from Denver to Aspen ?`` (coarse label kept)."""
    path = locate(f"senteval/TREC/{filename}", data_dir)
    texts, labels = [], []
    for i, line in enumerate(_lines(path, "latin-1"), start=1):
        m = re.fullmatch(r"([A-Z]+):\S+ (.+)", line.strip())
        if m is None or m.group(1) not in TREC_LABELS:
            raise _bad(path, i, f"expected 'COARSE:fine question' with COARSE in {TREC_LABELS}, got {line!r}")
        texts.append(m.group(2).strip())
        labels.append(TREC_LABELS.index(m.group(1)))
    return texts, labels


def _mrpc_split(split: str, data_dir) -> tuple[list[tuple[str, str]], list[int]]:
    path = locate(f"senteval/MRPC/msr_paraphrase_{split}.txt", data_dir)
    rows = list(_rows(path, ("Quality", "#1 String", "#2 String"), encoding="utf-8-sig"))
    return ([(r["#1 String"].strip(), r["#2 String"].strip()) for _, r in rows],
            [_int_label(r["Quality"], path, i, 2) for i, r in rows])


def load_senteval(task: str, data_dir: str | os.PathLike | None = None) -> SentEvalTask:
    """A SentEval transfer task: MR, CR, SUBJ, MPQA (no split), SST2 (train/dev/test),
    TREC (train/test, 6 coarse classes), MRPC (train/test, sentence pairs)."""
    name = {"SST": "SST2"}.get(task.strip().upper(), task.strip().upper())
    if name in _BINARY:
        return _binary_task(name, data_dir)
    if name == "SST2":
        parts = {s: _sst2_split(s, data_dir) for s in ("train", "dev", "test")}
        return _concat(name, ("negative", "positive"), parts)
    if name == "TREC":
        parts = {"train": _trec_split("train_5500.label", data_dir), "test": _trec_split("TREC_10.label", data_dir)}
        return _concat(name, TREC_LABELS, parts)
    if name == "MRPC":
        return _concat(name, ("not_paraphrase", "paraphrase"), {s: _mrpc_split(s, data_dir) for s in ("train", "test")})
    raise ValueError(f"unknown SentEval task {task!r}; known: {', '.join(SENTEVAL_TASKS)}")
