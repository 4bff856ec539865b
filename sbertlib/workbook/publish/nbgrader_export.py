"""The workbook as an nbgrader course: ``python -m sbertlib student --nbgrader DIR [--hidden-tests]``.

What it writes, what each lecturer-notebook cell becomes (:func:`to_nbgrader`) and how the course is run: the
README's section "Running a graded course with nbgrader" and the course folder's own README (:func:`readme_text`).
With ``hidden_tests`` each name an exercise asks for is graded by a test cell that runs the exercise's ``probe``
(declared with it in its lesson module: :class:`sbertlib.workbook.lessons.Exercise`) on the student's code and
compares the result with the lecturer solution's, run at export time on ``profile`` (:func:`stored_values`) and
stored in the test between ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``.

**Hidden tests: what they trust.** The student's code runs in the kernel the test runs in: before
it (the answer cell) and during it (the probe calls the student's function). So a test that asks the
notebook anything can be lied to: a result that is a float subclass whose ``__eq__`` is always true,
an object whose ``__class__`` claims ``float``, ``math.isclose`` or ``json.loads`` patched, a builtin
(``abs``, ``isinstance``, ``type``, ``len``, ``next``) replaced, the test's own helpers rebound in
the notebook's globals while the probe runs, by the function itself or a thread it started. A hidden
test therefore runs the probe (which builds the inputs with numpy and torch and may be lied to: it
only makes the student's own result), turns the result into plain data with ``_plain`` (which runs
the student's objects' methods: its output is checked, not trusted), and then decides in one function
(:data:`_COMPARE`), defined and called in a single statement, that

* reads no name from the notebook or ``builtins`` but ``_result`` and ``_plain`` (``AssertionError``
  only after an ``assert`` has raised the interpreter's own): the built-in types come from literals
  (``(0.0).__class__``), their methods from the types themselves (``list.__len__``, ``float.__repr__``),
  which no Python code can change; closeness is ``isclose`` written out in arithmetic on exact floats;
* builds the expected value from a literal in its own source (``1e999`` for infinity, ``1e999 - 1e999``
  for NaN), after the last of the student's code has run, so no patch of ``json`` can supply it;
* accepts exact ``list``/``dict`` (keys exact ``str``)/``str``/``bool``/``None``, and as a number an
  exact ``int``/``float`` or a subclass of one, counted by the value it holds (``float.__float__`` of
  a subclass reads its C double: what its ``__float__`` or ``__eq__`` say is never asked), so no
  method of the student's objects runs once the comparison starts.

The student's function rebinding the notebook's names, patching modules or builtins, or returning
objects that lie then changes nothing but the student's own result. Out of scope, because no test
that shares a process with the student's code can stop them: code that reaches into the running
test or the interpreter (``sys._getframe``/``sys.settrace``/``gc``/``ctypes`` on the test's frame or
code object, IPython's ``ast_transformers`` or traceback display, ``os._exit``), and code that goes
looking for the stored values (the cell's source in ``In``, ``source/`` on disk: nbgrader runs the
submission as the lecturer's user, in the course folder). Each is deliberate and plain to see in the
submitted answer cell; only running each submission in a sandbox of its own stops them.

What students can read (the library, the checks' reference code, the lecturer notebooks) is said in
the lecturer's README (:func:`readme_text`): hidden tests do not hide how an answer is computed.
"""
from __future__ import annotations

import ast
import hashlib
import json
import re
import shutil
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .notebooks import DEFAULT_STUB, NOTEBOOK_DIR, execute, notebook_paths, strip_outputs, tags
from ...errors import MissingPath, SettingError
from ..lessons import exercises as lesson_exercises, numbers as lesson_numbers

COURSE_ID = "sbert-workbook"
GRADING_PROFILE = "smoke"
RUNS_FOLDER = "sbertlib-runs"   # SBERTLIB_OUTPUT_DIR while nbgrader runs a notebook: beside it
CELL_TIMEOUT = 600          # seconds per cell when nbgrader executes a notebook (validate, autograde)
SCHEMA_VERSION = 3
_CHECK_CALL = re.compile(r"\bcheck_\w+\s*\(")
_STORED = "@@sbertlib-stored@@"
_PROBE_FAILED = "@@sbertlib-probe-failed@@"
_COURSE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SIGNATURE = re.compile(r"\n(?:# |<!-- )written by `python -m sbertlib student --nbgrader` \(sbertlib-digest ([0-9a-f]{16})\)"
                        r"[^\n]*\n?\Z")

# ----------------------------------------------------------------------------------------- probes
# The probes' helpers (each probe is declared with its exercise, in lessons/nbNN.py): no sbertlib in them,
# so changing the library or the checks cannot change a grade; :data:`_COMPARE` trusts none of them.
_HELPERS = '''\
import json as _json, sys as _sys
import numpy as _np, pandas as _pd, torch as _torch


class _Model(_torch.nn.Module):
    """A stand-in encoder for a loss's constructor: only its output size, dim."""
    dim = 8


def _plain(x):
    """x as plain data (lists, dicts, numbers, strings). In a hidden test this runs the student's
    objects' methods, so what it returns is checked by the test, not trusted."""
    if isinstance(x, _torch.Tensor):
        x = x.detach().cpu()
        x = (x.double() if x.is_floating_point() else x).numpy()
    if isinstance(x, _np.ndarray):
        return x.tolist()
    if isinstance(x, _np.generic):
        return x.item()
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x
'''


# The hidden test's verdict: see "Hidden tests: what they trust" in the module docstring.
_COMPARE = '''\
@(lambda test: test())    # defined and run at once: nothing can rebind it between the two
def _hidden_test():
    T = (0).__class__.__class__                                        # type, from a literal
    F, I, B, S, L, D = (0.0).__class__, (0).__class__, True.__class__, "".__class__, [].__class__, {}.__class__
    NONE = None.__class__
    MRO = T.__dict__["__mro__"].__get__                               # a class's real MRO, asked of type itself
    got = _plain(_result)       # the student's result as plain data: the last of the notebook's code this runs
    want = @@WANT@@

    def number(x):
        """x as an exact int or float, or None; a subclass of float (int) counts as the float (int) it holds."""
        t = T(x)
        if t is F or t is I:
            return x
        if t is not B:
            for c in MRO(t):
                if c is F:
                    return F.__float__(x)
                if c is I:
                    return I.__int__(x)
        return None

    def what(x):
        """x, said without running any method of it."""
        t = T(x)
        if t is F or t is I:
            return t.__repr__(x)
        if t is B:
            return "True" if x is True else "False"
        if t is NONE:
            return "None"
        if t is S:
            text = S.__repr__(x)
            return text if S.__len__(text) <= 200 else text[:200] + "..."
        if t is L:
            return "a list of " + I.__repr__(L.__len__(x)) + " items"
        if t is D:
            return "a dict of " + I.__repr__(D.__len__(x)) + " items"
        return "an object of " + T.__repr__(t)

    def close(g, w):
        """isclose(g, w, rel_tol=1e-4, abs_tol=1e-6) written out; NaN is NaN; infinities only equal themselves."""
        if g == w or (g != g and w != w):
            return True
        if g != g or w != w or g - g != 0 or w - w != 0:
            return False
        d = g - w if g >= w else w - g
        ag = g if g >= 0 else -g
        aw = w if w >= 0 else -w
        tol = (ag if ag >= aw else aw) * 1e-4
        return d <= (tol if tol >= 1e-6 else 1e-6)

    def differs(g, w, where):
        """None when g is w (numbers to 1e-4 relative), else where and how it differs."""
        tw = T(w)
        if tw is D:
            keys = ", ".join([S.__repr__(k) for k in w])
            if T(g) is not D:
                return where + ": expected a dict with keys " + keys + ", got " + what(g)
            for k in g:
                if T(k) is not S:
                    return where + ": expected a dict with keys " + keys + ", got a key " + what(k)
            if D.__len__(g) != D.__len__(w) or [k for k in w if not D.__contains__(g, k)]:
                return (where + ": expected a dict with keys " + keys + ", got keys "
                        + ", ".join([S.__repr__(k) for k in g]))
            for k in w:
                d = differs(g[k], w[k], where + "[" + S.__repr__(k) + "]")
                if d is not None:
                    return d
            return None
        if tw is L:
            n = L.__len__(w)
            if T(g) is not L or L.__len__(g) != n:
                return where + ": expected " + I.__repr__(n) + " items, got " + what(g)
            i = 0
            while i < n:
                d = differs(g[i], w[i], where + "[" + I.__repr__(i) + "]")
                if d is not None:
                    return d
                i = i + 1
            return None
        if tw is B:
            v = g if T(g) is B else number(g)
            return None if v is not None and v == w else where + ": expected " + what(w) + ", got " + what(g)
        if tw is F or tw is I:
            v = number(g)
            if v is None:
                return where + ": expected a number, got " + what(g)
            return None if close(v, w) else where + ": got " + what(v)
        if tw is S and T(g) is S and g == w or tw is NONE and g is None:
            return None
        return where + ": expected " + what(w) + ", got " + what(g)

    found = differs(got, want, @@NAME@@)
    if found is not None:
        message = "`" + @@NAME@@ + "` does not give the stored result of the lecturer's solution: " + found
        assert False, message           # the interpreter's own AssertionError, whatever the name holds now
        raise AssertionError(message)   # (python -O drops asserts; any error fails the test)
'''


def py_literal(value) -> str:
    """Plain data (what a probe stores: JSON's types) as Python source that builds it with no call and
    no name: a hidden test's expected value, which no patch of ``json`` or ``float`` can change. Floats
    are written to 9 significant digits (the tests compare to 1e-4)."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        if value != value:
            return "(1e999 - 1e999)"                     # NaN
        if value in (float("inf"), float("-inf")):
            return "1e999" if value > 0 else "(-1e999)"
        return repr(float(f"{value:.9g}"))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(str(k))}: {py_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"not plain data: {type(value).__name__}")


@dataclass
class Exercise:
    """One ``solution`` cell of a lecturer notebook and what grades it."""
    solution: int                       # index of the solution cell
    check: int | None                   # index of its check cell (None: no check follows)
    names: list[str]                    # what the exercise asks for (defined by the stub, else by the answer)
    grade_id: str                       # the answer cell's nbgrader id
    probes: dict[str, str | None] = field(default_factory=dict)   # name -> probe code (None: open answer)


def _python(source: str) -> ast.Module | None:
    """``source`` parsed as Python after IPython's transforms (magics); None if it does not parse."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        source = TransformerManager().transform_cell(source)
    except ImportError:
        pass
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def defined_names(source: str) -> list[str]:
    """The top-level names a cell defines (functions, classes, assignments), in order; no underscored ones."""
    tree = _python(source)
    names: list[str] = []
    for node in tree.body if tree else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        else:
            found = []
        names += [n for n in found if n not in names and not n.startswith("_")]
    return names


def _notebook_number(path: Path | str) -> str:
    return Path(path).name[:2]


def _safe_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "cell"


def exercises(nb, number: str = "") -> list[Exercise]:
    """The notebook's exercises: each ``solution`` cell, the check cell after it, the names it asks for."""
    found: list[Exercise] = []
    solution_cells = [i for i, c in enumerate(nb.cells) if "solution" in tags(c)]
    used: set[str] = set()
    declared = {ex.name: ex.probe_code for ex in lesson_exercises(number)} if number in lesson_numbers() else {}
    for k, i in enumerate(solution_cells):
        end = solution_cells[k + 1] if k + 1 < len(solution_cells) else len(nb.cells)
        check = next((j for j in range(i + 1, end) if nb.cells[j].cell_type == "code"
                      and "answers" not in tags(nb.cells[j]) and _CHECK_CALL.search(nb.cells[j].source)), None)
        cell = nb.cells[i]
        names = defined_names(cell.metadata.get("stub", DEFAULT_STUB)) or defined_names(cell.source)
        base = _safe_id(names[0]) if names else f"exercise_{k + 1}"
        grade_id = base if base not in used else f"{base}_{k + 1}"
        used.add(grade_id)
        probes = {n: declared.get(n, f"_result = {n}") for n in names}
        probes.update(cell.metadata.get("probes", {}))
        found.append(Exercise(i, check, names, grade_id, {n: probes[n] for n in names if n in probes}))
    return found


def answer_source(stub: str, solution: str) -> str:
    """The answer cell's source: the stub students get, then the lecturer's answer as a solution region.

    With ``ClearSolutions.code_stub`` empty, ``generate_assignment`` turns this into the stub; the answer, run
    after the stub, redefines what the stub defined, so the source notebook still runs as the lecturer's. A stub
    that raises at the top level would stop the lecturer's answer from running: it keeps its comments only."""
    tree = _python(stub)
    if tree is None or any(isinstance(node, ast.Raise) for node in tree.body):
        stub = "".join(line for line in stub.splitlines(keepends=True) if line.lstrip().startswith("#"))
    stub = stub.rstrip("\n")
    region = ("### BEGIN SOLUTION\n"
              "# The lecturer's answer: generate_assignment removes this region; students get the lines above.\n"
              f"{solution.rstrip()}\n"
              "### END SOLUTION")
    return f"{stub}\n{region}" if stub else region


def check_parts(source: str) -> list[tuple[bool, str]]:
    """A check cell cut into ``(is_check, code)`` parts, in order: each top-level statement that calls a
    ``check_...`` function (bare, or assigned: ``sep = checks.check_separation(...)``) is a part of its
    own, and the statements between them are kept together. Only the check parts are graded: a cell
    that goes on to use the answer (print it, plot it) costs no point when that later code fails.
    A cell that does not parse, or has IPython magics, is one check part."""
    try:
        tree = ast.parse(source)      # the raw source: a cell with magics does not parse, and stays whole
    except SyntaxError:
        return [(True, source)]
    if not tree.body:
        return [(True, source)]
    lines = source.splitlines(keepends=True)
    starts = [0] + [min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
                    for node in tree.body[1:]]
    ends = starts[1:] + [len(lines)]
    parts: list[tuple[bool, str]] = []
    for a, b in zip(starts, ends):
        code = "".join(lines[a:b])
        is_check = bool(_CHECK_CALL.search(code))
        if parts and not is_check and not parts[-1][0]:
            parts[-1] = (False, parts[-1][1] + code)
        else:
            parts.append((is_check, code))
    parts = [(is_check, code.strip("\n")) for is_check, code in parts if code.strip()]
    return parts if any(is_check for is_check, _ in parts) else [(True, source)]


def graded_source(code: str, points: float, what: str) -> str:
    """An autograder test's source: ``code`` with stderr sent to stdout (nbgrader scores stderr as a failure)."""
    head = (f"# Autograder test ({points:g} point{'s' if points != 1 else ''}): {what}\n"
            "import contextlib, sys\n"
            "with contextlib.redirect_stderr(sys.stdout):   # a warning or a progress bar is no wrong answer\n")
    return head + textwrap.indent(code.rstrip() or "pass", "    ")


def probe_cell_source(name: str, probe: str) -> str:
    """The code run at export time after the lecturer's check cell: prints the probe's result as JSON."""
    return (_HELPERS + "try:\n" + textwrap.indent(textwrap.dedent(probe).strip(), "    ") + "\n"
            "except Exception as _error:\n"
            f"    print({_PROBE_FAILED!r}, f\"its probe failed on the lecturer's solution ({{type(_error).__name__}}: \"\n"
            "          + f'{_error})'.replace(chr(10), ' '))\n"
            "else:\n"
            "    try:\n"
            f"        print({_STORED!r} + _json.dumps(_plain(_result)))\n"
            "    except (TypeError, ValueError):\n"
            f"        print({_PROBE_FAILED!r}, 'no fixed-input test for it, and its value is not plain data')\n")


def hidden_test_source(name: str, probe: str, value) -> str:
    """A hidden test: the probe run on the student's ``name``, compared with the stored ``value``
    by :data:`_COMPARE` (which trusts nothing the student's code can reach)."""
    body = textwrap.dedent(probe).strip()
    compare = _COMPARE.replace("@@NAME@@", repr(name)).replace("@@WANT@@", py_literal(value))
    return (f"# Autograder test for `{name}`: when your notebook is autograded, hidden tests compare what your\n"
            f"# `{name}` gives on fixed inputs with what the lecturer's solution gave (stored with the assignment).\n"
            "### BEGIN HIDDEN TESTS\n"
            + _HELPERS
            + "\n_result = None\n"
            "_stderr, _sys.stderr = _sys.stderr, _sys.stdout   # nbgrader scores stderr as a failure: a warning is no wrong answer\n"
            "try:\n" + textwrap.indent(body, "    ") + "\n"
            "finally:\n"
            "    _sys.stderr = _stderr\n"
            + compare
            + f"print({f'[OK] `{name}` gives the stored result'!r})\n"
            "### END HIDDEN TESTS")


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA_VERSION,
            "solution": solution}
    if points is not None:
        meta["points"] = points
    return meta


def _new_code_cell(source: str, meta: dict):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = meta
    return cell


@dataclass
class NotebookReport:
    """What one exported notebook holds."""
    name: str
    exercises: int = 0
    points: float = 0
    visible: list[str] = field(default_factory=list)        # exercises graded by their check
    hidden: list[str] = field(default_factory=list)         # names graded by hidden tests
    no_check: list[str] = field(default_factory=list)       # exercises without a check cell (not graded)
    notes: list[str] = field(default_factory=list)          # why an exercise kept its check with hidden tests on


def to_nbgrader(nb, number: str = "", stored: dict[str, object] | None = None, written_answer_points: float = 0,
                report: NotebookReport | None = None):
    """The lecturer notebook ``nb`` in nbgrader's source format (a new notebook): each ``solution`` cell an
    answer cell (:func:`answer_source`), its check cell an autograder test per check call (:func:`check_parts`),
    the ``answers`` cell left out (or, with ``written_answer_points``, graded by hand), every other cell read-only.

    ``stored`` maps the names of exercises to the values their hidden tests compare with (None: no
    hidden tests); an exercise with a name missing from it is graded by its check."""
    src = nbformat.from_dict(nb)
    report = report if report is not None else NotebookReport("")
    found = {e.solution: e for e in exercises(src, number)}
    by_check = {e.check: e for e in found.values() if e.check is not None}
    out, test_ids = [], set()
    for i, cell in enumerate(src.cells):
        cell = nbformat.from_dict(cell)
        cell.metadata.pop("nbgrader", None)
        if "answers" in tags(cell):
            if written_answer_points > 0:
                cell.cell_type = "markdown"
                cell.source = ("## Your answers\n\n### BEGIN SOLUTION\n" + cell.source.rstrip() + "\n### END SOLUTION")
                cell.metadata["nbgrader"] = _meta("written_answers", grade=True, solution=True,
                                                  points=written_answer_points)
                report.points += written_answer_points
                out.append(cell)
            continue
        if i in found:
            ex = found[i]
            cell.source = answer_source(cell.metadata.get("stub", DEFAULT_STUB), cell.source)
            cell.metadata.pop("stub", None)
            cell.metadata["nbgrader"] = _meta(ex.grade_id, solution=True)
            report.exercises += 1
            if ex.check is None:
                report.no_check.append(ex.grade_id)
            out.append(cell)
            continue
        if i in by_check:
            ex = by_check[i]
            hidden = stored is not None and ex.names and all(n in stored for n in ex.names)
            if hidden:
                cell.metadata["nbgrader"] = _meta(f"check_{ex.grade_id}", locked=True)
                out.append(cell)
                for name in ex.names:
                    out.append(_new_code_cell(hidden_test_source(name, ex.probes[name], stored[name]),
                                              _meta(f"hidden_{_safe_id(name)}", grade=True, locked=True, points=1)))
                    report.points += 1
                    report.hidden.append(name)
                continue
            parts = check_parts(cell.source)
            n_checks = sum(is_check for is_check, _ in parts)
            what = f"runs the check of `{', '.join(ex.names) or ex.grade_id}` above"
            k = 0
            for j, (is_check, code) in enumerate(parts):
                part = cell if j == 0 else _new_code_cell("", {})
                if is_check:
                    k += 1
                    called = _CHECK_CALL.search(code).group(0).rstrip("( ")[len("check_"):]   # several: by check
                    test_id = f"test_{ex.grade_id if n_checks == 1 else _safe_id(called)}"
                    test_id = test_id if test_id not in test_ids else f"{test_id}_{k}"
                    test_ids.add(test_id)
                    part.source = graded_source(code, 1, what)
                    part.metadata["nbgrader"] = _meta(test_id, grade=True, locked=True, points=1)
                    report.points += 1
                else:
                    part.source = code
                    part.metadata["nbgrader"] = _meta(f"cell_{i:02d}_{j}", locked=True)
                out.append(part)
            report.visible.append(ex.grade_id)
            continue
        cell.metadata["nbgrader"] = _meta(f"cell_{i:02d}", locked=True)
        out.append(cell)
    src.cells = out
    return strip_outputs(src)


# ----------------------------------------------------------------------------------------- stored values
def stored_values(path: Path, profile: str = GRADING_PROFILE, timeout: int = 900) -> tuple[dict, list[str]]:
    """Run the lecturer notebook ``path`` on ``profile`` with each exercise's probes right after its
    solution cell (so a later cell that fails takes no stored value with it); returns
    ({name: the probe's result}, notes on the probes that gave none)."""
    nb = nbformat.read(path, as_version=4)
    number = _notebook_number(path)
    cells, notes, wanted = [], [], []
    found = {e.solution: e for e in exercises(nb, number) if e.check is not None}
    for i, cell in enumerate(nb.cells):
        cells.append(cell)
        ex = found.get(i)
        for name in ex.names if ex else []:
            probe = ex.probes.get(name)
            if probe is None:
                notes.append(f"`{name}`: more than one answer is right — graded by its check")
                continue
            wanted.append(name)
            probe_cell = nbformat.v4.new_code_cell(probe_cell_source(name, probe))
            probe_cell.metadata["sbertlib_probe"] = name
            cells.append(probe_cell)
    if not wanted:
        return {}, notes
    nb.cells = cells
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        nbformat.write(nb, copy)
        # as nbgrader will run it (nbgrader_config.py): on the profile, with a runs folder of its own
        ran, result = execute(copy, timeout=timeout, cwd=path.parent,
                              env={"SBERTLIB_PROFILE": profile, "SBERTLIB_OUTPUT_DIR": str(Path(tmp) / RUNS_FOLDER)})
    values = {}
    for cell in ran.cells:
        name = cell.metadata.get("sbertlib_probe")
        if not name:
            continue
        text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        for line in text.splitlines():
            if line.startswith(_STORED):
                values[name] = json.loads(line[len(_STORED):])
            elif line.startswith(_PROBE_FAILED):
                notes.append(f"`{name}`: {line[len(_PROBE_FAILED):].strip()} — graded by its check")
    missing = [n for n in wanted if n not in values and not any(f"`{n}`" in note for note in notes)]
    if missing:
        notes.append(f"{', '.join(missing)}: the notebook stopped before their probes ran"
                     + (f" ({result.error})" if result.error else "") + " — graded by their checks")
    return values, notes


# ----------------------------------------------------------------------------------------- the course folder
def check_course_id(course_id: str) -> str:
    """``course_id`` if it is an nbgrader course id (letters, digits, ``-``, ``_``, ``.``; a letter or
    digit first), else ValueError naming it."""
    if not isinstance(course_id, str) or not _COURSE_ID.fullmatch(course_id):
        raise SettingError(f"--course-id {course_id!r}: a course id is letters, digits, '-', '_' and '.', starting "
                           f"with a letter or digit, at most 100 characters (e.g. {COURSE_ID})")
    return course_id


def config_text(course_id: str, profile: str, hidden_tests: bool, timeout: int = CELL_TIMEOUT) -> str:
    course_id = check_course_id(course_id)
    if not _PROFILE_NAME.fullmatch(profile):
        raise SettingError(f"--profile {profile!r}: a profile is a name such as {GRADING_PROFILE}")
    pin = (f'os.environ["SBERTLIB_PROFILE"] = {profile!r}   # the hidden tests\' stored values are for this profile only'
           if hidden_tests else
           f'os.environ.setdefault("SBERTLIB_PROFILE", {profile!r})   # your shell\'s SBERTLIB_PROFILE wins')
    return f'''\
"""nbgrader configuration of the SBERT workbook course (written by `python -m sbertlib student --nbgrader`).

Run every nbgrader command from this folder (see README.md).
"""
import os

c = get_config()  # noqa: F821 -- nbgrader defines get_config when it reads this file

c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "source"        # the lecturer's notebooks, with solutions
c.CourseDirectory.release_directory = "release"      # generate_assignment writes the student version here
c.CourseDirectory.submitted_directory = "submitted"  # submitted/<student id>/<assignment>/<notebook>.ipynb
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

# Each answer cell holds the student's stub, then the solution region: the region becomes nothing,
# so the release shows exactly the stub (with its YOUR CODE HERE comments).
c.ClearSolutions.code_stub = {{"python": ""}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Seconds a cell may run when nbgrader executes a notebook (validate, autograde): a check that runs
# a short training (notebook 03) takes about a minute on the offline profile.
c.Execute.timeout = {timeout}
c.ExecutePreprocessor.timeout = {timeout}

# What a notebook trains and the student code it passes on to later notebooks (sbertlib.workbook.runs and
# .mine) go to a folder beside the notebook nbgrader runs: autograded/<student>/<notebook>/{RUNS_FOLDER}.
# So one student's models and code never reach another's grading, and each notebook is graded on its
# own (where a notebook loads code a student kept in an earlier one, it uses the workbook's reference).
# Ignored below, so a validate run in source/ never ships the solutions' kept code into the release.
os.environ["SBERTLIB_OUTPUT_DIR"] = "{RUNS_FOLDER}"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "{RUNS_FOLDER}"]

# The sbertlib profile the notebooks run on when nbgrader executes them: smoke is the fastest (a tiny
# random network, short runs); offline gives the numbers students saw, and takes longer.
{pin}
'''


def readme_text(course_id: str, profile: str, hidden_tests: bool, reports: list[NotebookReport]) -> str:
    rows = "\n".join(f"| `{r.name}` | {r.exercises} | {r.points:g} | "
                     + (", ".join(f"`{n}`" for n in r.hidden) or "–") + " | "
                     + (", ".join(f"`{n}`" for n in r.visible) or "–") + " |" for r in reports)
    notes = "".join(f"\n* `{r.name}`: {n}" for r in reports for n in r.notes + [f"`{g}` has no check cell: not graded"
                                                                           for g in r.no_check])
    rows += f"\n{notes}" if notes else ""
    first = reports[0].name if reports else "02_the_siamese_network"
    hidden = (f"""
## Hidden tests (this course was written with `--hidden-tests`)

Each exercise in the "hidden tests" column is graded by a test cell that students see only as a
comment: it runs their code on fixed inputs and compares the result with what the solution in
`source/` gave when this folder was written, on the `{profile}` profile (stored in the test, between
`### BEGIN HIDDEN TESTS` and `### END HIDDEN TESTS`). `generate_assignment` removes it from the
release, `autograde` puts it back. The exercise's check still runs in a read-only cell (students get
its hints while they work) but no longer counts. So editing or side-stepping a check (for instance
`checks.check_pooling = lambda *a: None` in an answer cell) earns nothing. The stored values hold
for the `{profile}` profile only, so `nbgrader_config.py` sets `SBERTLIB_PROFILE={profile}` for
grading. Write the folder again (same command) after you change a solution or upgrade sbertlib.
Exercises in the "graded by the check" column keep their check as the grader: there is more than one right answer
(any paraphrase pair in 10, any leak-free split in 13), or no fixed-input test exists for them.
The feedback and the autograded notebooks show the hidden tests' code after grading.

A hidden test trusts nothing a student's code can change from inside the notebook: a result that
lies about itself (a float subclass equal to anything), a patched `math.isclose` or `json.loads`, a
replaced builtin, or its own helpers rebound while it runs all fail it. What it cannot stop, as
nothing sharing the kernel with the student's code can: code that reaches into the interpreter or
the kernel (`sys._getframe`, `gc`, `ctypes`, `get_ipython()`), or that reads the stored values from
`source/` on disk while it is graded. Such code is plain to see in the answer cell; read the answer
cells of a submission that scores full marks with imports like those (the `sbertlib.workbook.publish.nbgrader_export`
docstring has the whole threat model).
""" if hidden_tests else f"""
## Hidden tests

The checks grade this course: they ship in `sbertlib`, which students install. `python -m sbertlib
student --nbgrader DIR --hidden-tests` writes a course whose exercises are graded instead by hidden
tests that compare each answer with values stored from running the solutions (on the `{profile}`
profile), so editing or side-stepping a visible check earns nothing.
""")
    return f"""# {course_id}: an nbgrader course

Written by `python -m sbertlib student --nbgrader` from the SBERT workbook's lecturer notebooks.
`source/<notebook>/<notebook>.ipynb` holds each notebook with its solutions, in nbgrader's format:

* each exercise is an **answer cell**: the stub students fill in, then your solution between
  `### BEGIN SOLUTION` / `### END SOLUTION` (generate_assignment removes it; the release shows the stub);
* its check is an **autograder test** cell worth 1 point per check (edit `points` with Jupyter's
  nbgrader "Create Assignment" toolbar or in the cell metadata). A test cell earns its points when it
  runs without an error; its code runs with stderr sent to stdout, because nbgrader scores any stderr
  output (a warning, a progress bar) as a failure;
* every other cell is **read-only**: nbgrader restores it before grading;
* the questionnaire's written answers are left out of the release, as in the student copies. (With
  `--written-answers POINTS` they become a manually graded answer cell, your answers its solution:
  grade them in the formgrader.)

| notebook | exercises | points | hidden tests | graded by the check |
|---|---|---|---|---|
{rows}

## Running it

```bash
cd path/to/this/folder                              # this folder: nbgrader reads nbgrader_config.py here
nbgrader generate_assignment {first}       # release/{first}/: what students get
nbgrader validate source/{first}/{first}.ipynb   # your solutions pass every test
# hand out release/<assignment>/ (an LMS, a zip, or nbgrader release_assignment with an exchange);
# put each submission in submitted/<student id>/<assignment>/<notebook>.ipynb (or nbgrader collect)
nbgrader autograde {first}                 # runs every submission; scores in gradebook.db
nbgrader generate_feedback {first}         # feedback/<student id>/<assignment>/<notebook>.html
nbgrader export                                     # grades.csv: one row per student and assignment
```

Students need what the notebooks need: `pip install "sbertlib[workbook,search,offline]"` (the first
cell of every notebook installs it where it is missing) and the course data (`SBERTLIB_DATA_DIR`, or
the Hugging Face Hub). Notebook 13 reads `examples/`, copied beside it. Autograding runs each notebook
top to bottom on the profile `nbgrader_config.py` names (`{profile}`); a cell may take
{CELL_TIMEOUT} s (`c.Execute.timeout`). Each run keeps what it trains, and the student code a notebook
passes on, in `{RUNS_FOLDER}/` beside the notebook it runs (`autograded/<student>/<notebook>/`): no
student's models or code reach another's grading, and a notebook that loads code a student kept
in an earlier one gets the workbook's reference instead, so each notebook is graded on its own
(and trains its models again for every submission).

## What students can read — say it before you grade

Everything a student installs is readable, and none of it hides an answer:

* `sbertlib` implements every exercise: pooling, the classification head, the losses, the training
  loop (`sbertlib.training.fit`), Spearman, search. That is what the checks compare against.
* the checks (`sbertlib/workbook/lessons/nbNN.py`) compute the expected result with that reference
  code, and their hints name the usual mistakes;
* the workbook's lecturer notebooks, with solutions, are public (the repository's `notebooks/` and
  the course site), and so is the code that writes this folder (the hidden tests' inputs, not
  their stored values).

The checks are there to teach: a student who reads them learns the answer. For marks, treat the
exercises as open-book: the autograder tells a working answer from a wrong one, not who wrote it.
Hidden tests make the grade independent of the visible checks; where copying matters, add exercises
of your own, or grade the written answers and talk to the student.
{hidden}"""


def export_course(dest: str | Path, source: str | Path = NOTEBOOK_DIR, only: list[str] | None = None,
                  hidden_tests: bool = False, profile: str = GRADING_PROFILE, written_answer_points: float = 0,
                  course_id: str = COURSE_ID, overwrite: bool = False, log=print) -> list[NotebookReport]:
    """Write the nbgrader course folder ``dest`` from the lecturer notebooks in ``source`` (``overwrite``: see
    :func:`write_unless_theirs`). ``only``: notebook numbers (``["02", "03"]``)."""
    check_course_id(course_id)
    source, dest = Path(source), Path(dest)
    paths = [p for p in notebook_paths(source) if not only or _notebook_number(p) in only]
    if not paths:
        raise MissingPath(f"{source} holds no numbered notebooks"
                          + (f" numbered {', '.join(only)}" if only else "") + " (NN_name.ipynb)")
    reports = []
    for path in paths:
        name = path.stem
        report = NotebookReport(name)
        stored = None
        if hidden_tests:
            log(f"running {path.name} on the {profile} profile for the hidden tests' stored values ...")
            stored, notes = stored_values(path, profile)
            report.notes += notes
        nb = to_nbgrader(nbformat.read(path, as_version=4), _notebook_number(path), stored, written_answer_points,
                         report)
        folder = dest / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / f"{name}.ipynb")
        if _notebook_number(path) == "13" and (source / "examples").is_dir():
            shutil.copytree(source / "examples", folder / "examples", dirs_exist_ok=True)
        graded = (f"{len(report.hidden)} hidden tests, " if hidden_tests else "") + f"{len(report.visible)} checks"
        log(f"wrote {folder / (name + '.ipynb')}: {report.exercises} exercises, {report.points:g} points ({graded})")
        for note in report.notes + [f"{g}: no check cell follows it — not graded" for g in report.no_check]:
            log(f"  {note}")
        reports.append(report)
    config = write_unless_theirs(dest / "nbgrader_config.py", config_text(course_id, profile, hidden_tests), overwrite)
    readme = write_unless_theirs(dest / "README.md", readme_text(course_id, profile, hidden_tests, reports), overwrite)
    log(f"wrote {config} and {readme} (how to run nbgrader on it)")
    if config.name != "nbgrader_config.py":
        missing = settings_to_merge((dest / "nbgrader_config.py").read_text(encoding="utf-8"), config.read_text(encoding="utf-8"))
        log(f"kept your {dest / 'nbgrader_config.py'} (not written by this command, or edited since); this course's is "
            f"{config.name} beside it, which nbgrader does not read. "
            + (f"Merge these settings into yours (or run again with --overwrite to replace it):\n"
               + "\n".join(f"    {line}" for line in missing) if missing else
               "Yours already has every setting the course needs."))
    if readme.name != "README.md":
        log(f"kept your {dest / 'README.md'}; the course's notes for you are in {readme}")
    return reports


def _signed(text: str, markdown: bool = False) -> str:
    """``text`` with a last line that says this command wrote it, and a digest of the rest: an edit shows."""
    text = text.rstrip("\n") + "\n"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    line = (f"written by `python -m sbertlib student --nbgrader` (sbertlib-digest {digest}): "
            "edit it, and the next run keeps it and writes its own beside it")
    return text + ("\n<!-- " + line + " -->\n" if markdown else "\n# " + line + "\n")


def ours_untouched(text: str) -> bool:
    """Whether ``text`` is a file this command wrote (:func:`_signed`) and nobody has edited since."""
    found = _SIGNATURE.search(text)
    if not found:
        return False
    body = text[:found.start()].rstrip("\n") + "\n"
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16] == found.group(1)


def write_unless_theirs(path: Path, text: str, overwrite: bool = False) -> Path:
    """Write ``text`` (signed) to ``path``, unless a file is there that this command did not write, or
    that was edited since (a lecturer's own ``nbgrader_config.py`` with their exchange root and grading
    policy): then it stays, and ``text`` goes beside it as ``<stem>.sbertlib<suffix>``. ``overwrite``:
    replace it anyway. Returns the path written."""
    signed = _signed(text, markdown=path.suffix == ".md")
    if path.exists() and not overwrite:
        there = path.read_text(encoding="utf-8", errors="replace")
        if not ours_untouched(there) and there.rstrip() != text.rstrip():   # (the same, unsigned: an older sbertlib's)
            path = path.with_name(f"{path.stem}.sbertlib{path.suffix}")
    path.write_text(signed, encoding="utf-8")
    return path


def _settings(source: str) -> dict[str, tuple[str, str]] | None:
    """The top-level settings of a config file: ``c.Class.trait = value`` and ``os.environ[NAME]`` (set or
    setdefault), as {key: (the value's normalised source, the statement's source)}; None if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        text = ast.get_source_segment(source, node) or ""
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "os.environ":
                found[f"os.environ[{ast.unparse(target.slice)}]"] = (ast.unparse(value), text)
            elif isinstance(target, ast.Attribute) and ast.unparse(target).startswith("c."):
                found[ast.unparse(target)] = (ast.unparse(value), text)
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and ast.unparse(node.value.func) == "os.environ.setdefault" and len(node.value.args) == 2):
            found[f"os.environ[{ast.unparse(node.value.args[0])}]"] = (ast.unparse(node.value.args[1]), text)
    return found


def settings_to_merge(theirs: str, ours: str) -> list[str]:
    """The statements of ``ours`` (a config) that ``theirs`` lacks or sets to another value."""
    mine, yours = _settings(ours) or {}, _settings(theirs)
    lines = [text for key, (value, text) in mine.items() if yours is None or yours.get(key, (None,))[0] != value]
    imports_os = yours is not None and any(isinstance(node, ast.Import) and any(a.name == "os" and a.asname is None
                                                                                for a in node.names)
                                           for node in ast.parse(theirs).body)
    return (["import os"] if not imports_os and any("os." in line for line in lines) else []) + lines
