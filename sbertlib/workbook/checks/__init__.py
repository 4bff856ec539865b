"""Self-checks for the notebooks' exercises.

Each notebook has its own module (``sbertlib.workbook.checks.nb01`` …). A check prints ``[OK] …`` when the
answer is right and raises :class:`ExerciseError` with a hint when it is not — so a wrong answer
stops the notebook at the exercise instead of letting it run on with a silent mistake.
"""
from __future__ import annotations


class ExerciseError(AssertionError):
    """A wrong (or unfinished) exercise answer; the message holds a hint."""


def ok(message: str) -> None:
    print(f"[OK] {message}")


def require(condition: bool, message: str, hint: str = "") -> None:
    """Fail the exercise with ``message`` (and a hint) unless ``condition`` holds."""
    if not condition:
        raise ExerciseError(message + (f"\nHint: {hint}" if hint else ""))


def two_items(value, said: str, hint: str) -> list:
    """``value`` as a list of exactly two items, or an ExerciseError saying what came back instead.

    ``said`` opens the message, e.g. "your function returned"; ``hint`` says what to return.
    """
    require(value is not None and value is not NotImplemented and value is not Ellipsis,
            f"{said} {value!r}", hint)
    try:
        items = list(value)
    except TypeError:
        raise ExerciseError(f"{said} {value!r}, not a pair\nHint: {hint}") from None
    require(len(items) == 2, f"{said} {len(items)} values, not a pair", hint)
    return items
