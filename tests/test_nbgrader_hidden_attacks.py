"""A hidden test cannot be passed by an answer that lies instead of computing.

The student's code runs in the same kernel as the hidden test, before it (the answer cell) and during
it (the probe calls the student's function). Each attack below makes a wrong answer look right to a
test that trusts the notebook: a float subclass whose ``__eq__`` is always true, an object that claims
``__class__`` float, a patched ``math.isclose`` or ``json.loads``, patched builtins (``abs``,
``isinstance``, ``type``, ``len``, ``next``, ``float``, ``AssertionError``), names rebound from inside
the probe. Fast tests exec the generated hidden test after the attacker's code (builtins patched in a
namespace of their own, so pytest keeps the real ones); ``-m slow`` does the same under real
``nbgrader autograde``. The threat model: the module docstring of ``sbertlib.workbook.publish.nbgrader_export``.
"""
from __future__ import annotations

import builtins
import copy
import dis
import json
import math
import types

import nbformat
import pytest

from sbertlib.workbook.publish import nbgrader_export as ne

PROBE = "_result = [double([1.5, -2]), double([])]"
STORED = [[3.0, -4], []]
RIGHT = "def double(xs):\n    return [2 * x for x in xs]\n"
WRONG = "def double(xs):\n    return [0.0 for x in xs]\n"          # computes nothing

LIAR = """
class Liar(float):
    '''Equal to anything, and looks like the right value when asked for it.'''
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = float.__hash__
    def __float__(self): return 3.0
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __lt__(self, other): return False
    def __gt__(self, other): return False
    def __repr__(self): return '3.0'

def double(xs):
    return [Liar(0) for x in xs]
"""

CLAIMS_FLOAT = """
class Anything:
    '''Not a number at all; isinstance(x, float) is True through __class__.'''
    __class__ = property(lambda self: float)
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __float__(self): return 3.0

def double(xs):
    return [Anything() for x in xs]
"""

ATTACKS = {
    "float subclass equal to anything": LIAR,
    "object claiming __class__ float": CLAIMS_FLOAT,
    "math.isclose patched": "import math\nmath.isclose = lambda *a, **k: True\n" + WRONG,
    # only for the stored value: the kernel itself reads its messages with json.loads
    "json.loads patched": "import json\n_loads = json.loads\njson.loads = lambda s, *a, **k: [[0.0, 0.0], []] "
                          "if isinstance(s, str) and s.startswith('[[') else _loads(s, *a, **k)\n" + WRONG,
    "builtins.abs patched": "builtins.abs = lambda x: 0\n" + WRONG,
    "builtins.isinstance patched": CLAIMS_FLOAT.replace("__class__ = property(lambda self: float)", "pass")
    + "_isinstance = isinstance\n"
    "builtins.isinstance = lambda obj, cls: _isinstance(obj, cls) or (cls == (int, float) and _isinstance(obj, Anything))\n",
    "builtins.type patched": LIAR + "builtins.type = lambda *a: float\n",
    "builtins.len and next patched": "builtins.len = lambda x: 0\nbuiltins.next = lambda *a: None\n" + WRONG,
    "builtins.float patched": LIAR + "builtins.float = lambda *a: 3.0\n",
    "AssertionError rebound": "builtins.AssertionError = lambda *a: None\nAssertionError = None\n" + WRONG,
    "names rebound during the probe": """
def double(xs):
    g = globals()
    g['_plain'] = lambda result: result           # the test's converter, rebound while the probe runs
    g['_json'] = type('J', (), {'loads': staticmethod(lambda s: [[0.0, 0.0], []])})
    g['_differs'] = lambda *a: None
    builtins.abs = lambda x: 0
    return [0.0 for x in xs]
""",
}


def _hidden_body(name: str = "double", probe: str = PROBE, value=STORED) -> str:
    source = ne.hidden_test_source(name, probe, value)
    return source.split("### BEGIN HIDDEN TESTS\n")[1].split("### END HIDDEN TESTS")[0]


def _notebook_namespace() -> dict:
    """A notebook's globals with a builtins module of its own: patching it patches only this namespace,
    as ``import builtins; builtins.abs = ...`` would patch the kernel's."""
    fake = types.ModuleType("builtins")
    fake.__dict__.update(vars(builtins))
    return {"__builtins__": fake.__dict__, "builtins": fake, "__name__": "__main__"}


@pytest.fixture
def restore_modules(monkeypatch):
    """The attacks patch math and json for real: put them back afterwards."""
    monkeypatch.setattr(math, "isclose", math.isclose)
    monkeypatch.setattr(json, "loads", json.loads)


def _grade(answer: str) -> None:
    """The answer cell, then the hidden test, in one notebook namespace: raises when the test fails."""
    namespace = _notebook_namespace()
    exec(answer, namespace)
    exec(_hidden_body(), namespace)


def test_the_right_answer_passes_and_a_wrong_one_fails_with_where(restore_modules, capsys):
    _grade(RIGHT)
    assert "[OK] `double` gives the stored result" in capsys.readouterr().out
    with pytest.raises(AssertionError, match=r"`double` does not give the stored result .*: double\[0\]\[0\]: got 0\.0"):
        _grade(WRONG)


@pytest.mark.parametrize("attack", list(ATTACKS), ids=lambda a: a.replace(" ", "-"))
def test_an_attack_fails_the_hidden_test(attack, restore_modules):
    with pytest.raises(AssertionError, match=r"`double` does not give the stored result of the lecturer's solution: "
                                             r"double\[0\]\[0\]: "):
        _grade(ATTACKS[attack])


@pytest.mark.parametrize("patch", ["import math\nmath.isclose = lambda *a, **k: True\n",
                                   "import json\njson.loads = lambda *a, **k: None\n",
                                   "builtins.abs = lambda x: 0\nbuiltins.len = lambda x: 0\n"
                                   "builtins.next = lambda *a: None\nbuiltins.AssertionError = None\n"],
                         ids=["isclose", "json", "builtins"])
def test_the_patches_alone_do_not_fail_a_right_answer(patch, restore_modules):
    """What decides the grade uses none of what the attacks patch: a right answer still passes. (A patch
    of what the probe or ``_plain`` use, such as ``isinstance``, can fail the student's own answer.)"""
    _grade(patch + RIGHT)


def test_numbers_count_by_the_value_they_hold():
    import numpy as np
    import torch

    class Honest(float):
        pass

    for got in ([[Honest(3.0), np.float64(-4)], []], [torch.tensor([3.0, -4.0]), np.array([])],
                [[3.00001, -4], []], ((3, -4.0), ())):
        namespace = _notebook_namespace()
        namespace["double"] = lambda xs, got=got: got[0] if xs else got[1]
        exec(_hidden_body(), namespace)
    for got, said in (([[True, -4], []], r"double\[0\]\[0\]: expected a number, got True"),
                      ([[3.0, -4], [0]], r"double\[1\]: expected 0 items, got a list of 1 items"),
                      ([[3.01, -4], []], r"double\[0\]\[0\]: got 3\.01")):
        namespace = _notebook_namespace()
        namespace["double"] = lambda xs, got=got: got[0] if xs else got[1]
        with pytest.raises(AssertionError, match=said):
            exec(_hidden_body(), namespace)


@pytest.mark.parametrize("stored, right, wrong", [
    ({"a": float("nan"), "b": float("inf"), "c": -1e-300}, {"a": float("nan"), "b": float("inf"), "c": 0.0},
     {"a": 1.0, "b": float("inf"), "c": 0.0}),
    ({"b": float("-inf")}, {"b": float("-inf")}, {"b": -1e308}),
    ({"s": "x'\"\n", "n": None, "t": True}, {"s": "x'\"\n", "n": None, "t": 1}, {"s": "x'\"\n", "n": None, "t": 0}),
    ({"k": [1, 2]}, {"k": [1, 2]}, {"k": [1, 2], "extra": 0}),
])
def test_stored_values_are_literals_nan_and_infinities_included(stored, right, wrong):
    body = _hidden_body("f", "_result = f()", stored)
    assert "json" not in body.split("def _hidden_test")[1]
    for got, passes in ((right, True), (wrong, False)):
        namespace = _notebook_namespace()
        namespace["f"] = lambda got=got: copy.deepcopy(got)
        if passes:
            exec(body, namespace)
        else:
            with pytest.raises(AssertionError, match="`f` does not give the stored result"):
                exec(body, namespace)


def _loaded_names(code) -> set[str]:
    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _loaded_names(const)
    return names


def test_the_verdict_reads_no_name_but_the_result():
    """The function that decides reads ``_plain`` and ``_result`` from the notebook, and no other name
    from it or from builtins (``AssertionError`` only after ``assert``, for ``python -O``)."""
    module = compile(_hidden_body(), "<hidden test>", "exec")
    verdict = next(c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == "_hidden_test")
    names = _loaded_names(verdict)
    assert {"_plain", "_result"} <= names <= {"_plain", "_result", "AssertionError"}, names


def test_a_probe_that_raises_fails_and_a_stale_result_is_not_graded():
    namespace = _notebook_namespace()
    namespace["_result"] = STORED                    # what an earlier cell left: not this probe's result
    namespace["double"] = lambda xs: 1 / 0
    with pytest.raises(ZeroDivisionError):
        exec(_hidden_body(), namespace)


# ------------------------------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_attacks_fail_under_real_nbgrader_autograde(tmp_path):
    """The tiny notebook's course with --hidden-tests; one submission per attack: only the right answer scores."""
    from test_nbgrader import _nbgrader_meta, _tiny_notebook, nbgrader
    source = _tiny_notebook(tmp_path / "notebooks")
    ne.export_course(tmp_path / "course", source.parent, hidden_tests=True, log=lambda *_: None)
    course = tmp_path / "course"
    config = (course / "nbgrader_config.py").read_text()     # an attack that breaks the kernel fails in 2 min, not 10
    (course / "nbgrader_config.py").write_text(config.replace("timeout = 600", "timeout = 120"))
    nbgrader(course, "generate_assignment", "90_tiny")
    released = nbformat.read(course / "release" / "90_tiny" / "90_tiny.ipynb", as_version=4)
    # the patches of builtins the kernel itself lives on (type, len, float) would break the kernel, not the test
    kernel_attacks = {k: v for k, v in ATTACKS.items()
                      if k not in ("builtins.type patched", "builtins.len and next patched", "builtins.float patched")}
    submissions = {"right": RIGHT, **{k.replace(" ", "-").replace(".", "-"): v for k, v in kernel_attacks.items()}}
    for student, answer in submissions.items():
        nb = copy.deepcopy(released)
        for cell in nb.cells:
            if _nbgrader_meta(cell).get("grade_id") == "double":
                cell.source = "import builtins\n" + answer
            elif _nbgrader_meta(cell).get("grade_id") == "triple":
                cell.source = "def triple(xs):\n    return [3 * x for x in xs]\n"
        folder = course / "submitted" / student / "90_tiny"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "90_tiny.ipynb")
    nbgrader(course, "autograde", "90_tiny")
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: {g.name: g.score for g in gb.find_submission_notebook("90_tiny", "90_tiny", s).grades}
                  for s in submissions}
    print(scores)
    assert scores["right"]["hidden_double"] == 1
    assert {s: v["hidden_double"] for s, v in scores.items() if s != "right"} == \
        {s: 0 for s in submissions if s != "right"}
    assert all(v["test_triple"] == 1 for v in scores.values()), "the attacks broke no other test"
