"""Small things every layer uses: atomic writes (a file, a folder) and digests of records."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable


def atomic_write(path: str | os.PathLike, write: Callable[[Path], object]) -> Path:
    """Call ``write(tmp)`` on a temp file beside ``path``, then rename it over ``path``.

    Readers see the old file or the new one, never a half-written one; if ``write`` fails (or is
    interrupted) the temp file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """:func:`atomic_write` of a UTF-8 text."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def atomic_write_dir(path: str | os.PathLike, write: Callable[[Path], object]) -> Path:
    """Call ``write(tmp_folder)`` on a temp folder beside ``path``, then swap it in for ``path``.

    An existing ``path`` is moved aside first and removed only once the new folder is in place.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        write(tmp)
        old = None
        if path.exists():
            old = path.with_name(f".{path.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def digest(items: Iterable, length: int | None = None) -> str:
    """SHA-1 hex digest of the ``repr`` of each item in turn (records, settings, examples):
    equal sequences give equal digests. ``length`` keeps the first characters only."""
    h = hashlib.sha1()
    for item in items:
        h.update(repr(item).encode("utf-8"))
    return h.hexdigest()[:length]


def settings_digest(settings: dict, length: int = 12) -> str:
    """A short digest of a settings dict (key order does not matter)."""
    return digest([json.dumps(settings, sort_keys=True, default=str)], length)


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """SHA-256 hex digest of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def optional_import(module: str, extra: str):
    """Import ``module``, which comes with an extra of sbertlib; a missing one raises ImportError
    saying which extra to install (not a bare ``No module named ...``)."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"this needs {module}, part of sbertlib's {extra!r} extra: "
                          f"pip install 'sbertlib[{extra}]'") from exc


_NOT_ON_WINDOWS = str.maketrans({c: "_" for c in '<>:"\\|?*'})


def safe_name(text: str) -> str:
    """``text`` as one folder name that every OS accepts: ``/`` becomes ``__`` (so older folders keep
    their names), the characters Windows refuses (``<>:"\\|?*``) become ``_``, and no trailing dot or space."""
    return text.replace("/", "__").translate(_NOT_ON_WINDOWS).rstrip(". ") or "_"


def release_memory() -> None:
    """Collect garbage and give the heap memory it freed back to the system (glibc's ``malloc_trim``): without it a
    long-lived process (a notebook's kernel) keeps a finished training run's gradients and optimizer state resident.
    Elsewhere (another C library) only the collection."""
    import ctypes
    import gc
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
