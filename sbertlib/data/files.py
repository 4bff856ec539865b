"""Finding data files (data folders, downloads) and reading them line by line with errors that
name the file and the 1-based line."""
from __future__ import annotations

import gzip
import http.client
import math
import os
import sys
import urllib.request
import zipfile
import zlib
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

from tqdm.auto import tqdm

from .. import config
from ..util import atomic_write, sha256_file
from .records import NLI_LABELS, ChecksumError, DataFormatError, DataNotFoundError
from .sources import SOURCES, archive_for, original_url
from ..errors import SettingError

T = TypeVar("T")


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


def originals_dir() -> Path:
    """Where original files fetched in place of a vanished Hub copy are kept: beside the Hub's copies,
    in the Hugging Face cache, so that a lecturer's ``fetch`` into a shared cache serves a class."""
    from . import hub
    return hub.cache_root() / "sbertlib-originals"


_SAID_ORIGINAL: set[str] = set()


def _note_original(relpath: str, path: Path, ds, url: str, why: str) -> None:
    from . import hub
    hub.record_original(ds, url, path, why)
    if relpath not in _SAID_ORIGINAL:
        _SAID_ORIGINAL.add(relpath)
        print(f"sbertlib: {ds.name}: {why}; using the original file {relpath!r} ({ds.fallback}) from {url}, kept "
              f"at {path}", file=sys.stderr)


def _kept_original(relpath: str) -> Path | None:
    """An original file fetched earlier in place of a vanished Hub copy (in this Hugging Face cache)."""
    from . import hub
    kept = originals_dir() / relpath
    if not kept.is_file():
        return None
    for ds in hub.CATALOGUE.values():
        if relpath in hub.LOCAL_FILES.get(ds.name, {}).values():
            _note_original(relpath, kept, ds, original_url(relpath) or "?",
                           f"the Hub's copy ({ds.repo_id} at {ds.revision}) was found gone earlier")
            return kept
    return None


def fetch_original(relpath: str, gone) -> Path:
    """The original of ``relpath`` (a file, or unpacked from the archive that holds it, with the other files
    of its data set in that archive), downloaded into :func:`originals_dir` because the Hub's copy of its
    data set is gone (``gone``: the :class:`~sbertlib.data.hub.HubCopyMissing` that said so)."""
    from . import hub
    ds = gone.dataset
    url = original_url(relpath)
    if url is None:
        raise gone
    root = originals_dir()
    why = f"the Hub's copy is gone ({str(gone).splitlines()[0]})"
    if not hub.cache_writable(root):
        raise hub.HubCopyMissing(
            f"{gone}\nIts original ({url}) is not in the Hugging Face cache {hub.cache_root()} either, and this "
            f"process may not write there (read-only: a shared cache?). "
            + hub.shared_cache_fix(f"--datasets {ds.name}"), ds, gone=True) from None
    dest = root / relpath
    try:
        if url == SOURCES.get(relpath):
            _readable(download(url, dest))
        else:
            archive = root / "archives" / url.rsplit("/", 1)[-1]
            if not archive.is_file():
                _readable(download(url, archive))
            wanted = [r for r in hub.LOCAL_FILES.get(ds.name, {}).values() if original_url(r) == url] or [relpath]
            _unpack(archive, url, wanted, root)
    except (OSError, ValueError, http.client.HTTPException, zipfile.BadZipFile) as exc:
        raise hub.HubCopyMissing(f"{gone}\nIts original, {url}, could not be fetched either: {exc}", ds,
                                 gone=True) from None
    _note_original(relpath, dest, ds, url, why)
    return dest


def _unpack(archive: Path, url: str, relpaths: list[str], root: Path) -> None:
    """Each of ``relpaths`` from the zip ``archive``, found by its file name wherever the archive keeps it."""
    with zipfile.ZipFile(archive) as z:
        members = {Path(n).name: n for n in z.namelist() if not n.endswith("/") and "__MACOSX" not in n}
        for rel in relpaths:
            name = Path(rel).name
            if name not in members:
                raise SettingError(f"{url} holds no file named {name!r} (it holds {sorted(members)[:10]})")
            _readable(atomic_write(root / rel, lambda tmp, m=members[name]: tmp.write_bytes(z.read(m))))


def _readable(path: Path) -> Path:
    """Readable by everyone (a temp file is private): a class reads what a lecturer fetched."""
    os.chmod(path, 0o644)
    return path


def _not_found(relpath: str, places: list[Path], url: str | None, reason: str) -> DataNotFoundError:
    searched = "\n".join(f"  - {(p / relpath).absolute()}" for p in places)
    lines = [f"data file {relpath!r} not found. Searched:\n{searched}"]
    if reason:
        lines.append(reason)
    lines.append(f"To provide it, put the file under a data folder as {relpath!r} and set "
                 f"{config.DATA_DIR_ENV}=<that folder> or pass data_dir=<that folder>.")
    archive = archive_for(relpath)
    if url:
        lines.append(f"It can be downloaded from {url}")
    elif archive:
        lines.append(f"It is published in {archive} (download and unpack so the file lands at {relpath!r}).")
    return DataNotFoundError("\n".join(lines))


def local_or_hub(relpath: str, data_dir: str | os.PathLike | None, read_local: Callable[[Path], T],
                 read_hub: Callable[[str], T]) -> T:
    """``read_local(file)`` when a local data folder holds ``relpath``; else ``read_hub(hint)`` (the
    Hub's copy, see :mod:`sbertlib.data.hub`) — unless the caller named the folder (``data_dir=``) or
    ``$SBERTLIB_DATA_SOURCE=local`` forbids the Hub: then the error says what is missing where. When the
    Hub's copy is gone (its revision or repository not found) and the catalogue names a fallback, the
    original file is fetched into the Hugging Face cache (:func:`fetch_original`) and read locally, with a
    line saying so."""
    from . import hub
    found = _find(relpath, data_dir)
    if found is not None:
        return read_local(found)
    if data_dir is not None or not hub.hub_allowed():
        return read_local(locate(relpath, data_dir))
    kept = _kept_original(relpath) if original_url(relpath) else None
    if kept is not None:  # the Hub's copy was found gone before, and the original fetched into this cache
        return read_local(kept)
    hint = (f"put the file at {relpath!r} under a data folder and set {config.DATA_DIR_ENV}=<that folder> "
            "(the course's data folder has the layout data/README.md shows)")
    try:
        return read_hub(hint)
    except hub.HubCopyMissing as exc:  # the Hub's copy gone: the original files, where the catalogue names them
        if not (exc.gone and exc.dataset is not None and exc.dataset.fallback and original_url(relpath)):
            raise
        return read_local(fetch_original(relpath, exc))


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
    if not any(line.strip() for line in out):
        raise DataFormatError(f"{path} is empty ({'no lines' if not out else 'only blank lines'}): nothing to "
                              "read; copy or download the file again (or remove it, so that it is not used)")
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
    if not any(line.strip() for line in lines[1:]):
        raise DataFormatError(f"{path} is empty: it holds its header line and no rows; copy or download the "
                              "file again (or remove it, so that it is not used)")
    for i, line in enumerate(lines[1:], start=2):
        yield i, dict(zip(header, _fields(line, path, i, (len(header),))))


def _check_split(split: str, allowed: Sequence[str]) -> str:
    if split not in allowed:
        raise SettingError(f"unknown split {split!r}; expected one of {tuple(allowed)}")
    return split


def _same_length(files: Sequence[Path], contents: Sequence[list]) -> None:
    counts = [len(c) for c in contents]
    if len(set(counts)) > 1:
        desc = ", ".join(f"{f} has {n}" for f, n in zip(files, counts))
        raise DataFormatError(f"line counts differ ({desc} lines): the files must pair up line by line; "
                              f"line {min(counts) + 1} is the first without a partner")
