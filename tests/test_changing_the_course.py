"""The README's "Changing the course", done as a lecturer does it: in a copy of the workbook, declare a new
exercise once in notebook 02's lesson module and add its cells to the notebook; then see it appear, graded,
in the checks, the student copy, the nbgrader course (with and without hidden tests) and the instructor notes.

The declaration and the stub are read from the README itself, so the README shows what this test runs.
The copy is imported in a subprocess (``PYTHONPATH`` puts it before the installed package); the hidden tests'
export runs the copied notebook 02 on the smoke profile, as a lecturer's export does.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NB02 = "02_the_siamese_network.ipynb"


def _readme_blocks() -> tuple[str, str]:
    """The section's two python blocks: the declaration and the student's stub."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Changing the course"):]
    section = section[:section.index("\n## ", 5)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the README's 'Changing the course' shows the declaration and the stub"
    return blocks[0], blocks[1]


SOLUTION = 'def row_norms(x):\n    """(n, d) tensor -> (n,) Euclidean lengths of its rows."""\n    return (x ** 2).sum(dim=1).sqrt()\n'


def _cell(kind: str, source: str, **metadata) -> dict:
    cell = {"cell_type": kind, "id": f"row-norms-{kind}-{len(source)}", "metadata": metadata, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A copy of the workbook with the README's two edits made."""
    declaration, stub = _readme_blocks()
    root = tmp_path_factory.mktemp("changed")
    shutil.copytree(ROOT / "sbertlib", root / "sbertlib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    lesson = root / "sbertlib" / "workbook" / "lessons" / "nb02.py"
    lesson.write_text(lesson.read_text(encoding="utf-8") + "\n\n" + declaration, encoding="utf-8")
    path = root / "notebooks" / NB02
    nb = json.loads(path.read_text(encoding="utf-8"))
    at = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"
              and "".join(c["source"]).lstrip().startswith(("## Recap", "## Questions")))
    nb["cells"][at:at] = [
        _cell("markdown", "### Exercise: row lengths\n\nWrite `row_norms(x)`: the Euclidean length of each row."),
        _cell("code", SOLUTION, tags=["solution"], stub=stub),
        _cell("code", "checks.check_row_norms(row_norms)"),
    ]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return root


def _run(course: Path, code: str, timeout: int = 600) -> dict:
    """Run ``code`` against the changed copy; it prints one JSON line, returned."""
    env = {**os.environ, "PYTHONPATH": str(course), "SBERTLIB_PROFILE": "smoke",
           "SBERTLIB_OUTPUT_DIR": str(course / "runs")}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=course, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_copy_is_the_one_imported(course):
    got = _run(course, """
        import json, sbertlib
        print(json.dumps({"file": sbertlib.__file__}))
    """)
    assert Path(got["file"]).is_relative_to(course)


def test_the_check_grades_it_and_names_each_slip(course):
    got = _run(course, """
        import contextlib, io, json, torch
        from sbertlib.workbook.lessons import ExerciseError, exercises, nb02

        def run(fn):
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    nb02.check_row_norms(fn)
            except ExerciseError as exc:
                return "error: " + str(exc)
            return out.getvalue()

        def in_place(x):
            x.mul_(x)
            return x.sum(dim=1).sqrt()

        def unfinished(x):
            raise NotImplementedError

        print(json.dumps({
            "declared": [e.name for e in exercises("02")],
            "right": run(lambda x: (x ** 2).sum(dim=1).sqrt()),
            "columns": run(lambda x: torch.linalg.vector_norm(x, dim=0)),
            "squared": run(lambda x: (x ** 2).sum(dim=1)),
            "other": run(lambda x: x.sum(dim=1)),
            "in_place": run(in_place),
            "unfinished": run(unfinished),
        }))
    """)
    assert "row_norms" in got["declared"]
    assert got["right"].startswith("[OK] row_norms gives one length per row")
    assert "each column's length (dim=0)" in got["columns"] and got["columns"].startswith("error: ")
    assert "squared lengths" in got["squared"]
    assert got["other"].startswith("error: row_norms(") and "one Euclidean length per row" in got["other"]
    assert "in place" in got["in_place"]
    assert "not done yet" in got["unfinished"]


def test_the_student_copy_has_the_stub_and_the_check(course):
    got = _run(course, f"""
        import json, nbformat
        from sbertlib.workbook.publish import notebooks
        nb = notebooks.student_copy(nbformat.read("notebooks/{NB02}", as_version=4))
        print(json.dumps([c.source for c in nb.cells if c.cell_type == "code"]))
    """)
    stub = next(s for s in got if "def row_norms" in s)
    assert "raise NotImplementedError" in stub and "sqrt" not in stub
    assert any("checks.check_row_norms(row_norms)" in s for s in got)


def test_the_nbgrader_course_grades_it_with_and_without_hidden_tests(course):
    got = _run(course, f"""
        import json, nbformat
        from sbertlib.workbook.publish import nbgrader_export
        out = {{}}
        for hidden in (False, True):
            dest = f"course-{{hidden}}"
            reports = nbgrader_export.export_course(dest, "notebooks", only=["02"], hidden_tests=hidden, log=lambda *a: None)
            nb = nbformat.read(f"{{dest}}/source/{NB02[:-6]}/{NB02}", as_version=4)
            cells = [(c.source, c.metadata.get("nbgrader", {{}})) for c in nb.cells]
            out[str(hidden)] = {{"cells": cells, "report": [vars(r) for r in reports]}}
        print(json.dumps(out, default=str))
    """)
    plain, hidden = got["False"]["cells"], got["True"]["cells"]
    answer = next((src, meta) for src, meta in plain if "def row_norms" in src)
    assert answer[1].get("solution") and not answer[1].get("grade") and "### BEGIN SOLUTION" in answer[0]
    test = next((src, meta) for src, meta in plain if "check_row_norms(row_norms)" in src)
    assert test[1].get("grade") and test[1].get("locked") and test[1].get("points") == 1
    probe = next((src, meta) for src, meta in hidden if "BEGIN HIDDEN TESTS" in src and "row_norms(_torch.arange" in src)
    assert probe[1].get("grade") and probe[1].get("points"), probe
    check_cell = next(meta for src, meta in hidden if "check_row_norms(row_norms)" in src)
    assert not check_cell.get("grade"), "with hidden tests the visible check stays, ungraded"


def test_the_instructor_notes_list_its_slips(course):
    got = _run(course, f"""
        import json, nbformat
        from sbertlib.workbook.publish import site_pages
        chapter = site_pages.Chapter("{NB02[:-6]}", "02", nbformat.read("notebooks/{NB02}", as_version=4))
        print(json.dumps({{"mistakes": site_pages.check_mistakes("02"),
                          "page": site_pages.instructor_notes_page([chapter])}}))
    """)
    listed = got["mistakes"]["check_row_norms"]
    assert any("each column's length" in m for m in listed) and any("squared lengths" in m for m in listed)
    assert "`check_row_norms` answers:" in got["page"] and "squared lengths" in got["page"]
