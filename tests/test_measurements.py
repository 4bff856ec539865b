"""Every measured duration the texts quote is one recorded measurement (sbertlib.workbook.measurements):
the README, BENCHMARKS.md and the notebooks' markdown write no duration the register does not hold,
and BENCHMARKS.md shows the register as the module prints it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sbertlib.workbook import costs, measurements
from sbertlib.workbook.profiles import get_profile

ROOT = Path(__file__).resolve().parents[1]
DURATION = re.compile(r"\b\d+ h \d+ min\b|\b\d+ min \d+ s\b|\b\d+:\d\d\b(?= \()")


def _texts() -> dict[str, str]:
    texts = {name: (ROOT / name).read_text() for name in ("README.md", "BENCHMARKS.md")}
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        texts[nb.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return texts


# A Cost line's plain seconds ("23 s"), not the seconds of "3 min 08 s" nor a decimal ("2.85 s").
SECONDS = re.compile(r"(?<![\d,.])(?<!min )\d[\d,]* s\b")


def _cost_paragraphs() -> dict[str, str]:
    """Each notebook's Cost paragraph: the paragraph of its first cell that starts with "**Cost"."""
    paragraphs = {}
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        first = "".join(json.loads(nb.read_text())["cells"][0]["source"])
        paragraphs[nb.name] = "\n\n".join(p for p in first.split("\n\n") if p.lstrip().startswith("**Cost"))
    return paragraphs


@pytest.mark.parametrize("name", sorted(_texts()))
def test_every_duration_a_text_quotes_is_a_recorded_measurement(name):
    recorded = measurements.figures()
    unknown = [(m.group(0), m.start()) for m in DURATION.finditer(_texts()[name]) if m.group(0) not in recorded]
    assert not unknown, (f"{name} quotes durations no measurement records (record them in "
                         f"sbertlib/workbook/measurements.py, formatted by duration()): {unknown}")


@pytest.mark.parametrize("name", sorted(_cost_paragraphs()))
def test_every_seconds_figure_of_a_cost_line_is_a_recorded_measurement(name):
    paragraph = _cost_paragraphs()[name]
    assert paragraph, f"{name}: its first cell has no Cost paragraph"
    recorded = measurements.figures()
    unknown = [(m.group(0), m.start()) for m in SECONDS.finditer(paragraph) if m.group(0) not in recorded]
    assert not unknown, (f"{name}'s Cost line quotes seconds no measurement records, or not as duration() writes "
                         f"them (\"4 min 09 s\", not \"249 s\"): record them in "
                         f"sbertlib/workbook/measurements.py: {unknown}")


@pytest.mark.parametrize("name", ["README.md", "BENCHMARKS.md"])
def test_every_seconds_figure_of_the_readme_and_benchmarks_is_a_recorded_measurement(name):
    text = (ROOT / name).read_text().split("## Measurement register")[0]   # the register itself prints them
    recorded = measurements.figures()
    unknown = [(m.group(0), text.count("\n", 0, m.start()) + 1) for m in SECONDS.finditer(text)
               if m.group(0) not in recorded]
    assert not unknown, (f"{name} quotes seconds (figure, line) no measurement records, or not as duration() writes "
                         f"them: {unknown}")


def test_the_seconds_pattern_finds_plain_seconds_only():
    text = "23 s once, 249 s alone, 1,379 s, 3 min 08 s, 2.85 s a step, 48 h 18 min, 7 steps"
    assert [m.group(0) for m in SECONDS.finditer(text)] == ["23 s", "249 s", "1,379 s"]
    assert "249 s" not in measurements.figures() and "4 min 09 s" in measurements.figures()


def test_benchmarks_shows_the_register_as_recorded():
    assert measurements.register() in (ROOT / "BENCHMARKS.md").read_text(), \
        "BENCHMARKS.md's register differs: paste `python -m sbertlib.workbook.measurements` into it"


def test_each_record_says_what_ran_how_where_and_when():
    keys = [m.key for m in measurements.MEASUREMENTS]
    assert len(keys) == len(set(keys))
    for m in measurements.MEASUREMENTS:
        assert m.what and m.command and m.machine, m.key
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", m.date) or m.date == measurements.NOT_RECORDED, m.key
        assert "total" in m.seconds and all(v > 0 for v in m.seconds.values()), m.key
    with pytest.raises(KeyError, match="no measurement 'nosuch'"):
        measurements.get("nosuch")


def test_durations_are_written_one_way():
    assert [measurements.duration(s) for s in (45, 60, 188, 660, 2271, 173880)] == [
        "45 s", "1 min 00 s", "3 min 08 s", "11 min 00 s", "37 min 51 s", "48 h 18 min"]


def test_notebook_00s_expected_time_is_the_recorded_build():
    for name, key in costs.BUILD_MEASUREMENTS.items():
        assert measurements.get(key).figure() in costs.expected_time(get_profile(name))
