"""The course layer stays readable (issue 37): no function of a lesson module longer than a screen, the three kinds'
machinery aside (benchmarks/course_layer.py prints the figures beside the line budgets)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _course_layer():
    spec = importlib.util.spec_from_file_location("course_layer", ROOT / "benchmarks" / "course_layer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_lesson_function_fits_on_a_screen():
    layer = _course_layer()
    assert layer.long_functions() == [], f"lesson functions over {layer.SCREEN} lines: {layer.long_functions()}"


def test_the_lessons_tests_stay_within_their_budget():
    layer = _course_layer()
    assert layer.lines("tests/lessons") <= layer.FOLDERS["tests/lessons"]
