"""The lessons: one module per notebook holds that notebook's material, and only that notebook's."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sbertlib.workbook import lessons, mine, questionnaire, quiz
from sbertlib.workbook.lessons import VALUE, Exercise, Objective, Run

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_every_notebook_has_a_lesson_and_every_lesson_a_notebook():
    assert lessons.numbers() == [p.name[:2] for p in NOTEBOOKS]


@pytest.mark.parametrize("number", [p.name[:2] for p in NOTEBOOKS])
def test_a_lesson_holds_only_its_own_notebooks_material(number):
    module = lessons.lesson(number)
    assert questionnaire.questions(number), f"notebook {number} has no questionnaire file"
    names = [e.name for e in module.EXERCISES]
    assert len(names) == len(set(names)), f"an exercise of {number} is declared twice"
    assert all(isinstance(e, (Exercise, Objective, Run)) for e in module.EXERCISES)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_declared_exercise_is_asked_for_in_its_notebook(path):
    """A declaration whose name no solution cell defines would be a probe or reference for nothing."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    solutions = "\n".join("".join(c["source"]) for c in cells if "solution" in c["metadata"].get("tags", []))
    for ex in lessons.exercises(path.name[:2]):
        assert re.search(rf"\b{re.escape(ex.name)}\b", solutions), f"{path.name}: no solution cell defines {ex.name}"


def test_the_quiz_reads_the_questionnaires_and_the_kept_code_the_lessons():
    assert list(quiz.bank()) == [q for n in lessons.numbers() for q in questionnaire.questions(n)]
    kept = mine.references()
    assert kept["train_loop"][0] == "03" and kept["triplet_loss"][0] == "06"
    assert all(ex.reference is not None for n in lessons.numbers() for ex in lessons.exercises(n) if ex.kept)


def test_an_exercise_without_reference_says_its_lesson_checks_it():
    with pytest.raises(TypeError, match="declares no reference"):
        Exercise("x").check(lambda: None)
    assert Exercise("x").probe_code == "_result = x" and Exercise("x", probe=None).probe_code is None
    assert VALUE == Exercise("x").probe
