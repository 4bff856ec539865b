"""Finding data files (data folders, downloads) and reading them line by line with errors that
name the file and the 1-based line."""
from __future__ import annotations

import gzip
import http.client
import math
import os
import urllib.request
import zlib
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

from tqdm.auto import tqdm

from .. import config
from ..util import atomic_write, sha256_file
from .records import NLI_LABELS, ChecksumError, DataFormatError, DataNotFoundError

T = TypeVar("T")

# Files fetched from their publisher when no local folder holds them and the Hub has no verified copy
# (every other data set comes from the Hub: data.hub.CATALOGUE).
_TREC = "https://cogcomp.seas.upenn.edu/Data/QA/QC"  # SentEval's cogcomp.cs.illinois.edu moved here
SOURCES: dict[str, str] = {f"senteval/TREC/{n}.label": f"{_TREC}/{n}.label" for n in ("train_5500", "TREC_10")}
# Files published only inside archives (or needing conversion): named in the error, not auto-fetched.
# Keys are a file or a folder prefix; URLs are the ones SentEval's get_transfer_data.bash uses.
_STSWIKI = "http://ixa2.si.ehu.eus/stswiki/images"
_SICK = "https://alt.qcri.org/semeval2014/task1/data/uploads"
_FAIR = "https://dl.fbaipublicfiles.com/senteval/senteval_data"
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


def _bad(path: Path, line: int, what: str) -> DataFormatError:
    return DataFormatError(f"{path}, line {line}: {what}")


# ----------------------------------------------------------------------------- finding files
def download(url: str, dest: Path, sha256: str | None = None, timeout: float = 10.0) -> Path:
    """Download ``url`` to ``dest`` atomically (temp file + rename), checking ``sha256`` if given."""
    def fetch(tmp: Path) -> None:
        with open(tmp, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            total = int(resp.headers.get("Content-Length") or 0) or None
            with tqdm(total=total, unit="B", unit_scale=True, desc=Path(dest).name) as bar:
                while chunk := resp.read(1 << 20):
                    out.write(chunk)
                    bar.update(len(chunk))
        got = sha256_file(tmp)
        if sha256 is not None and got != sha256.lower():
            raise ChecksumError(f"{url}: SHA-256 {got} does not match the expected {sha256}")
    return atomic_write(dest, fetch)


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


def local_or_hub(relpath: str, data_dir: str | os.PathLike | None, read_local: Callable[[Path], T],
                 read_hub: Callable[[str], T]) -> T:
    """``read_local(file)`` when a local data folder holds ``relpath``; else ``read_hub(hint)`` (the
    Hub's copy, see :mod:`sbertlib.data.hub`) — unless the caller named the folder (``data_dir=``) or
    ``$SBERTLIB_DATA_SOURCE=local`` forbids the Hub: then the error says what is missing where."""
    from . import hub
    found = _find(relpath, data_dir)
    if found is not None:
        return read_local(found)
    if data_dir is not None or not hub.hub_allowed():
        return read_local(locate(relpath, data_dir))
    hint = (f"put the file at {relpath!r} under a data folder and set {config.DATA_DIR_ENV}=<that folder> "
            "(the course's data folder has the layout data/README.md shows)")
    return read_hub(hint)


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
def _lines(path: Path, encoding: str = "utf-8") -> list[str]:
    """All lines of a text file (``.gz`` transparently) without their line endings (LF or CRLF).

    Text that is not valid ``encoding``, and a truncated or corrupt ``.gz``, raise
    :class:`DataFormatError` naming the file and the line — never a bare decoding error.
    """
    opener = gzip.open if path.name.endswith(".gz") else open
    out: list[str] = []
    try:
        with opener(path, "rb") as f:
            for raw in f:
                try:
                    out.append(raw.decode(encoding).rstrip("\r\n"))
                except UnicodeDecodeError as exc:
                    raise _bad(path, len(out) + 1, f"not valid {encoding} text (byte "
                               f"{raw[exc.start:exc.start + 1]!r} at byte offset {exc.start})") from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise _bad(path, len(out) + 1, f"the compressed file ends or breaks here ({exc}): it is truncated "
                                       "or corrupt; download or copy it again") from None
    return out


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
