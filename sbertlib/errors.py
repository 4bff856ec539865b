"""sbertlib's own error types for a user's mistake: each message names what is wrong and what to do.

Every one derives from :class:`UserError` *and* from the built-in type a Python caller expects
(``SettingError`` is a ``ValueError``, ``UnknownName`` a ``KeyError``, ...), so ``except ValueError``
keeps working. The command line (:mod:`sbertlib.cli.common`) turns a ``UserError`` — and only that —
into one line and exit status 2; any other exception is a bug in sbertlib or below it and shows its
traceback.
"""
from __future__ import annotations


class UserError(Exception):
    """Something the user asked for or gave is wrong (a setting, a name, a file, a folder)."""


class SettingError(UserError, ValueError):
    """A value the user gave is out of range, of the wrong type or inconsistent."""


class UnknownName(UserError, KeyError):
    """A name (profile, model, data set, objective, question, ...) that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


class MissingPath(UserError, FileNotFoundError):
    """A file or folder the user named (or a step needs) is not there."""


class PathExists(UserError, FileExistsError):
    """A file or folder is in the way and sbertlib will not overwrite it unasked."""


class NotAFolder(UserError, NotADirectoryError):
    """A path that should be a folder is a file."""
