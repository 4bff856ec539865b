"""Self-checks for the notebooks' exercises: one module per notebook (``nb01`` …), each declaring its exercises.

**Three kinds of exercise**, each declared once in its lesson module's ``EXERCISES``: a function (:class:`Exercise`,
against the reference on hidden inputs, each everyday mistake — a *slip* — declared as the function written with it,
so a wrong answer is named), an objective (:class:`~sbertlib.workbook.lessons.kinds.Objective`: a loss class) and a
run (:class:`~sbertlib.workbook.lessons.kinds.Run`: a training function beside the library's run of small recipes).
The few predictions and open answers are plain functions of a screen each.

**What a self-check is for.** It teaches: it compares with the reference, names the everyday mistake in the
student's terms (never printing the hidden expected value), catches inputs changed in place, and never refuses a right
answer written another way — the reference is computed under a fresh process's numerics
(:func:`reference_numerics`), so a setting such as ``torch.set_float32_matmul_precision("high")`` changes nothing.

**What it does not try to stop.** A student who sets out to fool a check in their own kernel can always do it (rebind
``lessons.nbNN.check_x``, patch the library, return the reference's answer): nothing running in that kernel can hold.
Grading integrity lives elsewhere: nbgrader's hidden tests (each exercise's ``probe``, run by the grader in a fresh
kernel on fixed inputs; see :mod:`sbertlib.workbook.publish.nbgrader_export` and its threat model). A failed check
shows its message, never the check's code (:meth:`ExerciseError._render_traceback_`).
"""
import re
from typing import Any

from .checking import (  # noqa: F401 - the machinery, as the lesson modules import it: `from . import call`
    VALUE, Exercise, ExerciseError, _brief, _guarded, as_array, call, guard, hinted, named_slip, ok, one_number,
    readable, reference_numerics, related, require, require_gradient, student_raised, two_items, unfinished, unit,
    within)
from .kinds import Objective, Run  # noqa: F401 - the two other kinds of exercise


def numbers() -> list[str]:
    """The notebooks that have a lesson module, in order: ``["00", "01", …]``."""
    import pkgutil
    return sorted(m.name[2:] for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"nb\d\d", m.name))


def lesson(number: str):
    """Notebook ``number``'s lesson module (:mod:`sbertlib.workbook.lessons.nb03` for ``"03"``)."""
    import importlib
    return importlib.import_module(f"{__name__}.nb{number}")


def exercises(number: str) -> tuple[Exercise, ...]:
    """Notebook ``number``'s declared exercises (its lesson module's ``EXERCISES``)."""
    return tuple(getattr(lesson(number), "EXERCISES", ()))


def kept_references() -> dict[str, tuple[str, Any]]:
    """``{name: (notebook, reference)}`` for every exercise whose student code later notebooks load."""
    return {ex.name: (number, ex.reference) for number in numbers() for ex in exercises(number) if ex.kept}
