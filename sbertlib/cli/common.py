"""What every command shares: its parser (plain-text help, ``--version``) and its way of failing.

The same flag means the same thing in every command:

==================  ==============================================================
``--model NAME``    the encoder to use: a Hub name, a local or saved folder,
                    ``minilm``, ``tiny-random-bert``, ``random-bert-2x128``, ...
``--profile NAME``  paper, laptop, offline or smoke (see ``sbertlib.workbook.profiles``)
``--device NAME``   cpu, cuda, cuda:1 or mps (default: cuda > mps > cpu)
``--data-dir DIR``  a course data folder (default: ``$SBERTLIB_DATA_DIR``, else the Hub)
``--json``          print one JSON object on stdout instead of the report
``--save FILE``     also write every figure, as JSON, to FILE
``--repeats N``     timed repetitions; ``--warmup-runs`` / ``--warmup-steps`` untimed ones
==================  ==============================================================

A user's mistake (an unknown profile, model, data set or device, a bad setting: one of
:mod:`sbertlib.errors`' types) ends the command with one line, ``python -m sbertlib CMD: error: ...``,
and exit status 2 — never a traceback. Any other exception is a bug and keeps its traceback.
``SBERTLIB_DEBUG=1`` shows the traceback of a user's mistake too.
"""
from __future__ import annotations

import argparse
import functools
import os
import re
import sys
from typing import Callable

from .. import __version__
from ..errors import UserError

# What a user's input can raise from the library: sbertlib's own error types (sbertlib.errors), each with
# a message naming what is wrong. A ValueError or KeyError from anywhere else is a bug: it keeps its traceback.
USER_ERRORS = (UserError,)
_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|obj):`~?(?:[\w.]+\.)?([^`]+)`")


def plain(doc: str) -> str:
    """A docstring as plain text for ``--help``: no reST roles, literals or table rules."""
    text = _ROLE.sub(r"\1", doc).replace("``", "")
    lines = [line for line in text.splitlines() if not re.fullmatch(r"\s*=[=\s]+", line)]
    return "\n".join(lines).strip("\n")


def parser(command: str, doc: str, first_paragraph_only: bool = False) -> argparse.ArgumentParser:
    """The parser of ``python -m sbertlib COMMAND``: its docstring as plain-text help, and ``--version``."""
    description = plain(doc.split("\n\n")[0] if first_paragraph_only else doc)
    ap = argparse.ArgumentParser(prog=f"python -m sbertlib {command}", description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action="version", version=f"sbertlib {__version__}")
    return ap


def command(name: str) -> Callable:
    """Decorate a command's ``main``: a user's error becomes one line on stderr and exit status 2."""
    def decorate(main: Callable[[list[str] | None], int]) -> Callable[[list[str] | None], int]:
        @functools.wraps(main)
        def run(argv: list[str] | None = None) -> int:
            try:
                return main(argv)
            except USER_ERRORS as err:
                if os.environ.get("SBERTLIB_DEBUG"):
                    raise
                message = err.args[0] if isinstance(err, KeyError) and err.args else err  # unquoted
                print(f"python -m sbertlib {name}: error: {message}", file=sys.stderr)
                return 2
        return run
    return decorate


# ----------------------------------------------------------------------------- the shared flags
DEVICE_HELP = "cpu, cuda, cuda:N or mps (default: cuda > mps > cpu)"


def add_device(ap: argparse.ArgumentParser) -> None:
    """``--device``, the same in every command."""
    ap.add_argument("--device", default=None, help=DEVICE_HELP)


def add_profile(ap: argparse.ArgumentParser, default: str | None = None, only: tuple[str, ...] | None = None,
                help: str = "") -> None:
    """``--profile``, the same in every command: one of the workbook's profiles (``only``: the ones this command
    can use), an unknown name refused by argparse with the choices listed; ``default`` None: ``$SBERTLIB_PROFILE``,
    else the one ``get_profile`` picks for this machine."""
    from ..workbook.profiles import PROFILES
    choices = tuple(only or PROFILES)
    said = f"default: {default}" if default else "default: $SBERTLIB_PROFILE, else picked for this machine"
    ap.add_argument("--profile", default=default, choices=choices,
                    help=f"{help + '; ' if help else ''}{', '.join(choices)} ({said})")
