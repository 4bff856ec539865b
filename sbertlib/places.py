"""Where each user's files live — decided here, once, for every part of sbertlib.

On one JupyterHub a class shares one install of the workbook that no student can write, one
Hugging Face cache the lecturer fills, and a home folder per student. So nothing sbertlib writes
(trained runs, the student's kept code, tables the notebooks save) goes beside the installed
package: it goes to the **output folder**, which is

0. the folder a caller passes, when it passes one (``output_dir=`` of :func:`output_dir` and of
   :mod:`sbertlib.workbook.runs`' functions; ``train --output-dir``), expanded as below;
1. ``$SBERTLIB_OUTPUT_DIR`` when it is set — ``~`` and ``$VARS`` expanded, and ``{user}`` replaced by
   the user's login name, so a lecturer can set one value for the whole class
   (``SBERTLIB_OUTPUT_DIR=/scratch/sbert/{user}``);
2. else the user's own data folder: ``$XDG_DATA_HOME/sbert-workbook/runs`` (default
   ``~/.local/share/sbert-workbook/runs``; ``%LOCALAPPDATA%`` on Windows, ``~/Library/Application
   Support`` on macOS).

A dry run (random weights, ``SBERTLIB_DRY_RUN``) writes to ``dry-run/`` inside it, so its models never
mix with trained ones.

**Shared runs.** ``$SBERTLIB_SHARED_RUNS`` names a class's read-only store of the library's trained runs,
laid out as an output folder: the lecturer fills it once (``SBERTLIB_OUTPUT_DIR=/srv/sbert-runs python -m
sbertlib build``), and a student's kernel loads a run from it when its recipe is the one asked for
(:func:`sbertlib.workbook.runs.trained_model`). sbertlib never writes there. ``python -m sbertlib where`` prints every place (:func:`describe`); a lecturer
finds a student's files under that student's home.

A folder that cannot be used (not writable, a path under a file) is an :class:`OutputDirError`
naming the folder, the setting it came from and what to do — raised before any work starts.
"""
from __future__ import annotations

import getpass
import os
import sys
import tempfile
from pathlib import Path

from .errors import UserError

OUTPUT_DIR_ENV = "SBERTLIB_OUTPUT_DIR"
SHARED_RUNS_ENV = "SBERTLIB_SHARED_RUNS"
APP_NAME = "sbert-workbook"


class OutputDirError(UserError, ValueError):
    """A folder sbertlib must write to cannot be created or written."""


def user_name() -> str:
    """The login name of the user this process runs as (``{user}`` in ``$SBERTLIB_OUTPUT_DIR``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid with no passwd entry (some containers)
        return f"uid{os.getuid()}" if hasattr(os, "getuid") else "user"


def home(user: str | None = None) -> Path:
    """``user``'s home folder (default: this process's user). ``$HOME`` counts only when it is this
    user's own: a process switched to another user (``setpriv``, a spawner) that kept the caller's
    ``$HOME`` gets its own home from the password database instead."""
    try:
        import pwd
    except ImportError:  # Windows
        return Path.home()
    if user is not None:
        return Path(pwd.getpwnam(user).pw_dir)
    env = os.environ.get("HOME")
    try:
        if env and Path(env).stat().st_uid == os.getuid():
            return Path(env)
        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (OSError, KeyError):
        return Path(env) if env else Path.home()


def user_data_dir(user: str | None = None) -> Path:
    """``user``'s data folder for the workbook (per platform; default: this process's user), not created."""
    base_home = home(user)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or base_home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = base_home / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME") if user is None else None
        base = Path(xdg) if xdg else base_home / ".local" / "share"
    return base / APP_NAME


def output_root(user: str | None = None, given: str | os.PathLike | None = None) -> tuple[Path, str]:
    """(the output folder, where that choice came from), not created and without the dry-run part —
    this process's, or ``user``'s under the same settings (for a lecturer looking). ``given`` (a
    caller's ``output_dir=``, the CLI's ``--output-dir``) wins over ``$SBERTLIB_OUTPUT_DIR`` and is
    expanded the same way (``{user}``, ``~``, ``$VARS``)."""
    if given is not None and str(given).strip():
        raw = str(given).strip()
        return _expand(raw, user), f"output_dir={raw}"
    raw = os.environ.get(OUTPUT_DIR_ENV, "").strip()
    if raw:
        return _expand(raw, user), f"${OUTPUT_DIR_ENV}={raw}"
    return user_data_dir(user) / "runs", "the data folder: no $SBERTLIB_OUTPUT_DIR set"


def _expand(raw: str, user: str | None) -> Path:
    """``raw`` with ``{user}`` replaced by the login name, ``$VARS`` and ``~`` expanded, made absolute."""
    expanded = os.path.expandvars(raw.replace("{user}", user or user_name()))
    expanded = str(home(user) / expanded[2:]) if expanded.startswith("~/") else os.path.expanduser(expanded)
    return Path(expanded).absolute()


def writable_dir(path: str | os.PathLike, what: str) -> Path:
    """``path`` created if needed and proven writable (a file made and removed in it); else
    :class:`OutputDirError` naming ``what`` (the setting or argument it came from) and the fix."""
    path = Path(path)
    blocker = next((p for p in [path, *path.parents] if _is_file(p)), None)
    if blocker is not None:
        raise OutputDirError(f"{what}: {path} cannot be a folder: {blocker} is a file. Choose another folder "
                             f"(set ${OUTPUT_DIR_ENV} or --output-dir)")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".sbertlib-write-test-"):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise OutputDirError(f"{what}: cannot write to {path} ({reason}). On a shared install set "
                             f"${OUTPUT_DIR_ENV} to a folder of your own (e.g. ~/sbert-runs), or leave it "
                             f"unset to use {user_data_dir() / 'runs'}") from None
    return path


def _is_file(path: Path) -> bool:
    try:
        return path.exists() and not path.is_dir()
    except OSError:  # a folder above it the user may not enter: mkdir below names it
        return False


def output_dir(*parts: str, dry_run: bool = False, root: str | os.PathLike | None = None,
               create: bool = True) -> Path:
    """The output folder (see the module's doc; ``root``, when given, instead of ``$SBERTLIB_OUTPUT_DIR``),
    ``dry-run/`` in a dry run, joined with ``parts`` — created (``create=False``: the root only), and checked
    writable the first time each root is used in this process."""
    root, origin = output_root(given=root)
    root = root / "dry-run" if dry_run else root
    if root not in _CHECKED:
        writable_dir(root, f"the output folder (from {origin})")
        other = owned_by_someone_else(root)
        if other is not None:  # a class-wide folder: one student's runs never land in another's
            raise OutputDirError(f"the output folder (from {origin}) is {root}, which belongs to user {other}, not to "
                                 f"you ({user_name()}): sbertlib writes only into a folder of your own. Give each "
                                 f"user theirs: ${OUTPUT_DIR_ENV}=/some/place/{{user}}, or leave it unset")
        _CHECKED.add(root)
    path = root.joinpath(*parts)
    if not create:
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        writable_dir(path, f"the output folder (from {origin})")
        raise
    return path


_CHECKED: set[Path] = set()


def shared_runs_dir() -> Path | None:
    """The class's read-only store of trained runs (``$SBERTLIB_SHARED_RUNS``, expanded as the output
    folder is), or None where it is not set."""
    raw = os.environ.get(SHARED_RUNS_ENV)
    return _expand(raw, None) if raw else None


def owner(path: str | os.PathLike) -> str | None:
    """The login name owning ``path`` (None where the platform has no owners)."""
    try:
        import pwd
        uid = Path(path).stat().st_uid
    except (ImportError, OSError):
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid{uid}"


def owned_by_someone_else(path: str | os.PathLike) -> str | None:
    """The owner's name when ``path`` belongs to another user than this process's (root included: a
    lecturer's process runs no student's code by accident); None on platforms without owners."""
    if not hasattr(os, "getuid"):
        return None
    try:
        uid = Path(path).stat().st_uid
    except OSError:
        return None
    return owner(path) if uid != os.getuid() else None


def describe(user: str | None = None) -> dict[str, str]:
    """Every place sbertlib reads or writes, for ``python -m sbertlib where`` — this user's, or
    ``user``'s (a lecturer looking for a student's files, under this process's settings)."""
    from . import config
    root, origin = output_root(user)
    cache = config.hub_cache_dir()
    data_env = os.environ.get(config.DATA_DIR_ENV)
    return {
        "user": user or user_name(),
        "output folder": f"{root}  ({origin})",
        "your kept code": str(root / "your_code"),
        "dry runs": str(root / "dry-run"),
        "shared runs": f"{shared_runs_dir()}  (${SHARED_RUNS_ENV}, read only)" if shared_runs_dir() else
                       f"none  (${SHARED_RUNS_ENV} not set)",
        "course data": f"{data_env}  (${config.DATA_DIR_ENV})" if data_env else
                       f"{config.default_data_dir()} if it holds the file, else the Hub  (no ${config.DATA_DIR_ENV} set)",
        "Hugging Face cache": f"{cache}  ($HF_HUB_CACHE / $HF_HOME)" if cache else
                              "huggingface_hub's default (~/.cache/huggingface/hub)",
        "sbertlib installed at": str(Path(__file__).resolve().parent),
    }
