"""Self-checks for the notebooks' exercises.

Each notebook has its own module (``sbertlib.checks.nb01`` …). A check prints ``[OK] …`` when the
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
