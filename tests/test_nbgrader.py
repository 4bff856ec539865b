"""The workbook as an nbgrader course (``python -m sbertlib student --nbgrader DIR``), tested with real nbgrader.

Default run: the conversion of every notebook (answer, test and read-only cells; nbgrader's own
ClearSolutions / ClearHiddenTests turn each answer cell into exactly the student copy's stub),
``nbgrader generate_assignment`` on notebook 02, the command line, and the hidden tests' stored
values on a tiny notebook. ``-m slow``: the round trip on notebook 02 with ``nbgrader autograde`` —
the solutions score full marks, an untouched release 0, a typical mistake partial marks with the
check's message in the feedback — and the same with ``--hidden-tests`` (a student who disables the
visible check still loses the point).
"""
from __future__ import annotations

import copy
import html
import os
import subprocess
import textwrap
import sys
import time
from pathlib import Path

import nbformat
import pytest
import torch

from sbertlib import config
from sbertlib.cli import student as student_cli
from sbertlib.workbook.publish import nbgrader_export as ne
from sbertlib.workbook.lessons import ExerciseError
from sbertlib.workbook.publish.notebooks import NOTEBOOK_DIR, notebook_paths, student_copy, tags

pytest.importorskip("nbgrader")
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions  # noqa: E402

NB02 = "02_the_siamese_network"
MASKLESS_MEAN = "return token_embeddings.mean(dim=1)"   # the typical mistake: padding counted in the mean
MASKED_MEAN = "return (token_embeddings * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)"


def _nbgrader_meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _release(nb):
    """What ``generate_assignment`` does to the cells' sources, with the course's config."""
    nb = copy.deepcopy(nb)
    clear = ClearSolutions(code_stub={"python": ""})
    nb, _ = clear.preprocess(nb, {})
    nb, _ = ClearHiddenTests().preprocess(nb, {})
    return nb


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name[:2])
def test_every_notebook_converts_to_answer_test_and_read_only_cells(path):
    lecturer = nbformat.read(path, as_version=4)
    report = ne.NotebookReport(path.stem)
    nb = ne.to_nbgrader(lecturer, path.name[:2], report=report)
    metas = [_nbgrader_meta(c) for c in nb.cells]
    assert all(m and m["schema_version"] == 3 and m["grade_id"] for m in metas), "every cell is an nbgrader cell"
    ids = [m["grade_id"] for m in metas]
    assert len(ids) == len(set(ids)), "grade ids are unique"
    answers = [c for c in nb.cells if _nbgrader_meta(c)["solution"]]
    tests = [c for c in nb.cells if _nbgrader_meta(c)["grade"]]
    n_exercises = sum("solution" in tags(c) for c in lecturer.cells)
    assert len(answers) == report.exercises == n_exercises > 0
    assert all(not _nbgrader_meta(c)["grade"] and not _nbgrader_meta(c)["locked"] for c in answers)
    assert all(_nbgrader_meta(c)["locked"] and _nbgrader_meta(c)["points"] == 1 for c in tests)
    assert len(tests) >= n_exercises - len(report.no_check) and report.points == len(tests)
    assert all(_nbgrader_meta(c)["locked"] for c in nb.cells if c not in answers)
    assert not any("answers" in tags(c) for c in nb.cells), "the written answers stay out of the release"
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    # every answer cell: the stub, then the lecturer's answer in a solution region
    solutions = [c.source for c in lecturer.cells if "solution" in tags(c)]
    for cell, solution in zip(answers, solutions):
        assert "### BEGIN SOLUTION" in cell.source and solution.rstrip() in cell.source
    # nbgrader's own preprocessors leave exactly the student copy's stubs, and every check
    released = _release(nb)
    stubs = [c.source for c in student_copy(lecturer).cells if "exercise" in tags(c)]
    for cell, stub in zip([c for c in released.cells if _nbgrader_meta(c)["solution"]], stubs):
        if "raise NotImplementedError('exercise not done yet')" in stub:      # the default stub: its comment
            stub = "".join(ln for ln in stub.splitlines(keepends=True) if ln.startswith("#"))
        assert cell.source.rstrip() == stub.rstrip()
    assert "BEGIN SOLUTION" not in nbformat.writes(released)
    checks = [lecturer.cells[e.check].source for e in ne.exercises(lecturer, path.name[:2]) if e.check is not None]
    test_text = "\n".join(c.source for c in tests)
    for check in checks:
        for is_check, part in ne.check_parts(check):
            graded = textwrap.indent(part, "    ")  # a graded part runs inside graded_source's `with` block
            assert any((graded if is_check else part) in c.source for c in (tests if is_check else nb.cells))
            assert is_check == (graded in test_text)


def test_check_cell_is_cut_into_graded_checks_and_a_raising_stub_keeps_its_comments():
    assert ne.check_parts("checks.check_a(a)\nchecks.check_b(b)\n") == [(True, "checks.check_a(a)"),
                                                                         (True, "checks.check_b(b)")]
    # what a check cell does after the check (print, plot) is read-only, ungraded: its errors cost nothing
    assert ne.check_parts("# the check\nchecks.check_a(a)\nx = a(2)\n\nprint(x)\nsep = check_s(s)\n") == [
        (True, "# the check\nchecks.check_a(a)"), (False, "x = a(2)\n\nprint(x)"), (True, "sep = check_s(s)")]
    assert ne.check_parts("%time checks.check_a(a)\nx = 1") == [(True, "%time checks.check_a(a)\nx = 1")]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def f():\n    return 1", metadata={"tags": ["solution"]}),
                                         nbformat.v4.new_code_cell("checks.check_f(f)\nprint(f() + 'x')")])
    report = ne.NotebookReport("nb")
    cells = ne.to_nbgrader(nb, report=report).cells
    assert [(_nbgrader_meta(c)["grade"], _nbgrader_meta(c)["locked"]) for c in cells] == [
        (False, False), (True, True), (False, True)]
    assert cells[2].source == "print(f() + 'x')" and report.points == 1
    source = ne.answer_source("# YOUR CODE HERE — then run the check cell below\nraise NotImplementedError('x')\n",
                              "a = 1\n")
    assert "raise" not in source.split("### BEGIN SOLUTION")[0]
    cell = nbformat.v4.new_code_cell(source, metadata={"nbgrader": {"solution": True, "grade_id": "a"}})
    released = _release(nbformat.v4.new_notebook(cells=[cell]))
    assert released.cells[0].source.strip() == "# YOUR CODE HERE — then run the check cell below"


def test_written_answers_become_a_manually_graded_answer():
    lecturer = nbformat.read(NOTEBOOK_DIR / f"{NB02}.ipynb", as_version=4)
    nb = ne.to_nbgrader(lecturer, "02", written_answer_points=3)
    cell = next(c for c in nb.cells if _nbgrader_meta(c)["grade_id"] == "written_answers")
    assert cell.cell_type == "markdown"
    assert _nbgrader_meta(cell) == {"grade": True, "solution": True, "locked": False, "points": 3,
                                         "grade_id": "written_answers", "schema_version": 3}
    released = _release(nb)
    assert next(c for c in released.cells if _nbgrader_meta(c)["grade_id"] == "written_answers").source == \
        "## Your answers\n\nYOUR ANSWER HERE"


def _env(profile: str = "smoke") -> dict:
    env = config.absolute_data_dir_env()
    env.update(SBERTLIB_PROFILE=profile, HF_HUB_OFFLINE="1", PYTHONWARNINGS="ignore")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` in the course folder, as a lecturer would."""
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=_env(), text=True,
                         capture_output=True, timeout=900)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout}\n{run.stderr[-4000:]}"
    return run


@pytest.mark.integration   # a real nbgrader / Jupyter kernel: the integration tier
def test_generate_assignment_releases_the_stubs_and_the_checks(tmp_path):
    course = tmp_path / "course"
    assert student_cli.main(["--nbgrader", str(course), "--only", "2"]) == 0
    assert (course / "nbgrader_config.py").is_file() and (course / "README.md").is_file()
    assert [p.name for p in (course / "source").iterdir()] == [NB02]
    readme = (course / "README.md").read_text()
    assert "nbgrader autograde" in readme and "What students can read" in readme and "sbertlib" in readme
    nbgrader(course, "generate_assignment", NB02)
    released = nbformat.read(course / "release" / NB02 / f"{NB02}.ipynb", as_version=4)
    lecturer = nbformat.read(NOTEBOOK_DIR / f"{NB02}.ipynb", as_version=4)
    stubs = [c.source for c in student_copy(lecturer).cells if "exercise" in tags(c)]
    answers = [c.source for c in released.cells if _nbgrader_meta(c).get("solution")]
    assert [a.rstrip() for a in answers] == [s.rstrip() for s in stubs]
    text = nbformat.writes(released)
    assert "BEGIN SOLUTION" not in text and MASKED_MEAN not in text
    tests = [c for c in released.cells if _nbgrader_meta(c).get("grade")]
    assert len(tests) >= len(answers) and all(_nbgrader_meta(c)["points"] == 1 for c in tests)
    assert "checks.check_pooling(pool)" in tests[0].source


def test_command_line_forms(tmp_path, capsys):
    # the old form still writes student copies
    assert student_cli.main([str(NOTEBOOK_DIR), str(tmp_path / "copies"), "--only", "02,05"]) == 0
    assert sorted(p.name[:2] for p in (tmp_path / "copies").glob("*.ipynb")) == ["02", "05"]
    # SOURCE DEST --nbgrader: DEST is the course
    assert student_cli.main([str(NOTEBOOK_DIR), str(tmp_path / "c1"), "--nbgrader", "--only", "04"]) == 0
    assert (tmp_path / "c1" / "source" / "04_sts_evaluation" / "04_sts_evaluation.ipynb").is_file()
    config_text = (tmp_path / "c1" / "nbgrader_config.py").read_text()
    assert """os.environ.setdefault("SBERTLIB_PROFILE", 'smoke')""" in config_text
    assert 'os.environ["SBERTLIB_OUTPUT_DIR"] = "sbertlib-runs"' in config_text   # each run keeps its own
    assert '"feedback", "sbertlib-runs"]' in config_text                          # ... and never releases it
    for argv, said in ((["--hidden-tests", str(NOTEBOOK_DIR), str(tmp_path / "x")], "--hidden-tests goes with --nbgrader DIR only"),
                       (["--nbgrader"], "without a folder"),
                       ([str(NOTEBOOK_DIR)], "give the notebooks and where the copies go"),
                       (["--nbgrader", str(NOTEBOOK_DIR / "inside")], "inside the lecturer's notebooks"),
                       (["--nbgrader", str(tmp_path / "y"), "--only", "99"], "no numbered notebooks numbered 99")):
        with pytest.raises(SystemExit) as exit_:
            student_cli.main(argv)
        assert exit_.value.code == 2 and said in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:  # --profile is one flag everywhere: argparse names the choices
        student_cli.main(["--nbgrader", str(tmp_path / "z"), "--profile", "nope"])
    assert exit_.value.code == 2 and "invalid choice: 'nope'" in capsys.readouterr().err


TINY = [
    ("markdown", "# A tiny exercise\n\n## Learning goals\n\nDouble a list.", {}),
    ("code", "from sbertlib.workbook.lessons import ExerciseError\n\n"
             "def check_double(f):\n"
             "    if f([1, 2]) != [2, 4]:\n"
             "        raise ExerciseError('double([1, 2]) should be [2, 4]\\nHint: multiply each item')\n"
             "    print('[OK] double')\n\n"
             "def check_triple(f):\n"
             "    if f([1]) != [3]:\n"
             "        raise ExerciseError('triple([1]) should be [3]')", {}),
    ("code", "def double(xs):\n    return [2 * x for x in xs]",
     {"tags": ["solution"], "stub": "def double(xs):\n    ...  # YOUR CODE HERE\n",
      "probes": {"double": "_result = [double([1.5, -2]), double([])]"}}),
    ("code", "check_double(double)", {}),
    ("code", "def triple(xs):\n    return [3 * x for x in xs]", {"tags": ["solution"]}),
    ("code", "check_triple(triple)", {}),
    ("markdown", "## Answers\n\n1. Twice.", {"tags": ["answers"]}),
]


def _tiny_notebook(folder: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    for kind, source, meta in TINY:
        cell = nbformat.v4.new_markdown_cell(source) if kind == "markdown" else nbformat.v4.new_code_cell(source)
        cell.metadata.update(meta)
        nb.cells.append(cell)
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "90_tiny.ipynb")
    return folder / "90_tiny.ipynb"


def test_hidden_tests_store_the_solutions_results(tmp_path):
    path = _tiny_notebook(tmp_path / "notebooks")
    values, notes = ne.stored_values(path)
    assert values == {"double": [[3.0, -4], []]}
    assert any("triple" in n and "not plain data" in n for n in notes), notes      # a function without a probe
    reports = ne.export_course(tmp_path / "course", tmp_path / "notebooks", hidden_tests=True, log=lambda *_: None)
    assert reports[0].hidden == ["double"] and reports[0].visible == ["triple"]
    nb = nbformat.read(tmp_path / "course" / "source" / "90_tiny" / "90_tiny.ipynb", as_version=4)
    hidden = next(c for c in nb.cells if _nbgrader_meta(c)["grade_id"] == "hidden_double")
    assert "### BEGIN HIDDEN TESTS" in hidden.source and "[[3.0, -4], []]" in hidden.source
    check = next(c for c in nb.cells if c.source == "check_double(double)")
    assert _nbgrader_meta(check) == {"grade": False, "grade_id": "check_double", "locked": True,
                                     "schema_version": 3, "solution": False}
    config_text = (tmp_path / "course" / "nbgrader_config.py").read_text()
    assert """os.environ["SBERTLIB_PROFILE"] = 'smoke'""" in config_text
    # the hidden test passes on the solution and fails, with where, on a wrong one; stripped from the release
    namespace = {"double": lambda xs: [2 * x for x in xs]}
    body = hidden.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
    exec(body, namespace)
    namespace["double"] = lambda xs: [x * x for x in xs]
    with pytest.raises(AssertionError, match=r"double\[0\]\[0\]: got 2.25"):
        exec(body, namespace)
    assert "HIDDEN" not in _release(nb).cells[nb.cells.index(hidden)].source


# ------------------------------------------------------------------------------------------------- slow
def _submit(course: Path, student: str, nb) -> None:
    folder = course / "submitted" / student / NB02
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{NB02}.ipynb")


def _answered(released, replace: dict[str, tuple[str, str]] | None = None, extra: dict[str, str] | None = None):
    """The release with every answer cell holding the lecturer's solution (``replace``: grade id ->
    (old, new) text to swap in it; ``extra``: grade id -> code appended)."""
    lecturer = nbformat.read(NOTEBOOK_DIR / f"{NB02}.ipynb", as_version=4)
    solutions = {e.grade_id: lecturer.cells[e.solution].source for e in ne.exercises(lecturer, "02")}
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        grade_id = _nbgrader_meta(cell).get("grade_id")
        if _nbgrader_meta(cell).get("solution"):
            cell.source = solutions[grade_id]
            if grade_id in (replace or {}):
                old, new = replace[grade_id]
                assert old in cell.source
                cell.source = cell.source.replace(old, new)
            cell.source += (extra or {}).get(grade_id, "")
    return nb


def _scores(course: Path) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        out = {}
        for student in ("solutions", "untouched", "mistake", "tampered"):
            try:
                sub = gb.find_submission_notebook(NB02, NB02, student)
            except Exception:
                continue
            out[student] = {g.name: g.score for g in sub.grades} | {"total": sub.score, "max": sub.max_score}
        return out


def _wrong_pool_message() -> str:
    """What the check says about the mask-less mean, asked directly (the wording may change)."""
    from sbertlib.workbook.lessons import nb02
    lecturer = nbformat.read(NOTEBOOK_DIR / f"{NB02}.ipynb", as_version=4)
    source = next(c.source for c in lecturer.cells if "solution" in tags(c) and "def pool" in c.source)
    namespace = {"torch": torch}
    exec(source.replace(MASKED_MEAN, MASKLESS_MEAN), namespace)
    with pytest.raises(ExerciseError) as err:
        nb02.check_pooling(namespace["pool"])
    return str(err.value)


@pytest.mark.slow
def test_round_trip_solutions_full_marks_untouched_zero_mistake_partial_with_the_checks_message(tmp_path):
    start = time.perf_counter()
    course = tmp_path / "course"
    assert student_cli.main(["--nbgrader", str(course), "--only", "02"]) == 0
    validated = nbgrader(course, "validate", str(Path("source") / NB02 / f"{NB02}.ipynb"))
    assert "Success! Your notebook passes all the tests." in validated.stdout
    nbgrader(course, "generate_assignment", NB02)
    assert sorted(p.name for p in (course / "release" / NB02).iterdir()) == [f"{NB02}.ipynb"]
    released = nbformat.read(course / "release" / NB02 / f"{NB02}.ipynb", as_version=4)
    _submit(course, "solutions", _answered(released))
    _submit(course, "untouched", released)
    _submit(course, "mistake", _answered(released, replace={"pool": (MASKED_MEAN, MASKLESS_MEAN)}))
    nbgrader(course, "autograde", NB02)
    scores = _scores(course)
    print(f"\nnbgrader round trip on {NB02}: {scores} ({time.perf_counter() - start:.0f} s)")
    tests = [name for name in scores["solutions"] if name.startswith("test_")]
    assert "test_pool" in tests and len(tests) >= 3
    assert scores["solutions"]["total"] == scores["solutions"]["max"] == len(tests)
    assert scores["untouched"]["total"] == 0
    assert scores["mistake"] == {**{name: int(name != "test_pool") for name in tests},
                                 "total": len(tests) - 1, "max": len(tests)}
    # the check's message is in the autograded notebook and in the feedback
    message = _wrong_pool_message()
    graded = nbformat.read(course / "autograded" / "mistake" / NB02 / f"{NB02}.ipynb", as_version=4)
    test = next(c for c in graded.cells if _nbgrader_meta(c).get("grade_id") == "test_pool")
    errors = [o for o in test.outputs if o.output_type == "error"]
    assert errors and errors[0].ename == "ExerciseError" and errors[0].evalue == message
    nbgrader(course, "generate_feedback", NB02, "--student", "mistake")
    feedback = (course / "feedback" / "mistake" / NB02 / f"{NB02}.html").read_text()
    hint = message.splitlines()[-1]
    assert html.escape(hint) in feedback or hint in feedback
    print(f"feedback for the mistake shows: {message!r}")


@pytest.mark.slow
def test_hidden_tests_grade_by_stored_values_whatever_the_visible_check_says(tmp_path):
    start = time.perf_counter()
    course = tmp_path / "course"
    assert student_cli.main(["--nbgrader", str(course), "--only", "02", "--hidden-tests"]) == 0
    nbgrader(course, "generate_assignment", NB02)
    released = nbformat.read(course / "release" / NB02 / f"{NB02}.ipynb", as_version=4)
    assert "HIDDEN" not in nbformat.writes(released)
    _submit(course, "solutions", _answered(released))
    _submit(course, "untouched", released)
    # the mistake, with the visible check switched off from the answer cell: the hidden test still fails it
    _submit(course, "tampered", _answered(released, replace={"pool": (MASKED_MEAN, MASKLESS_MEAN)},
                                          extra={"pool": "\nchecks.check_pooling = lambda *args, **kwargs: None\n"}))
    nbgrader(course, "autograde", NB02)
    scores = _scores(course)
    print(f"\nhidden tests on {NB02}: {scores} ({time.perf_counter() - start:.0f} s)")
    tests = [name for name in scores["solutions"] if name not in ("total", "max")]
    assert "hidden_pool" in tests and sum(name.startswith("hidden_") for name in tests) >= 3
    assert scores["solutions"]["total"] == scores["solutions"]["max"] == len(tests)
    assert scores["untouched"]["total"] == 0
    assert scores["tampered"] == {**{name: int(name != "hidden_pool") for name in tests},
                                  "total": len(tests) - 1, "max": len(tests)}
    graded = nbformat.read(course / "autograded" / "tampered" / NB02 / f"{NB02}.ipynb", as_version=4)
    cells = {_nbgrader_meta(c).get("grade_id"): c for c in graded.cells}
    assert not [o for o in cells["check_pool"].outputs if o.output_type == "error"], "the check was switched off"
    error = next(o for o in cells["hidden_pool"].outputs if o.output_type == "error")
    assert "`pool` does not give the stored result" in error.evalue and "pool['mean 0']" in error.evalue
