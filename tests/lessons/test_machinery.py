"""The exercise machinery every lesson's checks share (sbertlib.workbook.lessons): how a check calls the
student's function, and how a failed check shows itself."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import torch
from sbertlib.workbook.lessons import ExerciseError, call
from lesson_helpers import IN_PLACE


def test_call_watches_arrays_tensors_lists_and_dicts_and_leaves_other_arguments_alone():
    def appends(items):
        items.append(1)
        return items
    with pytest.raises(ExerciseError, match=IN_PLACE):
        call(appends, [0])
    with pytest.raises(ExerciseError, match="changed its second argument"):
        call(lambda a, d: d.update(k=2), 1, {"k": 1})
    model = torch.nn.Linear(2, 2)
    call(lambda m: torch.nn.init.zeros_(m.weight), model)  # a model may be meant to change (a training step)
    nan = np.array([np.nan, 1.0])
    assert call(lambda v: v + 1, nan)[1] == 2.0  # NaN stays NaN: not taken for a change


# Where a lesson's code calls one of its parameters directly, not through `call`: each is not a student's function
# given notebook data, or is checked for changes another way. A new check that calls the student's function
# directly fails below: route it through `call` (which names an input changed in place), or add it here with why.
NOT_THROUGH_CALL = {
    ("nb02", "pair_loss_truth", "model"): "the check's model",
    ("nb03", "_optimizer", "factor"): "a schedule's factor (the reference's or a slip's)",
    ("nb04", "misaligned", "measure"): "the check's own similarity or distance between its sentences",
    ("nb06", "_triplets", "order"): "a slip's order of premises, in a slip's re-creation",
    ("nb06", "reference_triplet_loss", "d"): "the distance (the reference's or a slip's)",
    ("nb06", "triplet_distances_truth", "d"): "the distance (the reference's or a slip's)",
    ("nb06", "triplet_scores_truth", "meets"): "the test of a margin met (the reference's or a slip's)",
    ("nb06", "triplet_scores_truth", "right"): "the test of a triplet ranked right (the reference's or a slip's)",
    **{("nb07", "_gain", p): "a part of a slip of gain (the check's own)" for p in ("f", "row", "base_row", "read")},
    **{("nb07", "_diff", p): "a part of a slip of diff_and_se (the check's own)" for p in ("d", "se")},
    ("nb07", "library_point", "evaluator"): "the notebook's scorer",
    ("nb07", "run_ablation_truth", "train_and_score"): "the check's stand-in scorer, or a slip's",
    **{("nb11", "pick_truth", p): "the check's own rule (the reference's or a slip's)" for p in ("keep", "best")},
    **{(nb, f, p): "a part of a slip (the check's own), in a slip's re-creation" for nb, f, p in (
        ("nb04", "_r", "rank"), ("nb04", "_sts", "sim"), ("nb04", "_sts", "corr"), ("nb04", "_year", "mean"),
        ("nb04", "_year", "corr"), ("nb04", "_worst", "rank"), ("nb04", "_worst", "size"),
        ("nb03", "_mnrl", "pick"), ("nb03", "_mnrl", "score"), ("nb03", "_mnrl", "target"), ("nb03", "_mnrl", "w"),
        ("nb03", "_mnrl", "log"), ("nb03", "_embed", "model"),
        ("nb09", "separation_truth", "unit"),
        ("nb06", "_t", "m"), ("nb06", "_triplets", "each"), ("nb06", "_triplets", "hyps"), ("nb06", "_triplets", "out"),
        ("nb06", "reference_triplet_loss", "hinge"), ("nb06", "reference_triplet_loss", "reduce"))},
    ("nb04", "_either", "same"): "the check's own equality, of the student's value and a slip's",
    ("nb13", "check_examples_from_rows", "examples_from_rows"): "given each bad case's own rows: it may raise "
                                                                "DataFormatError by design, which the check reads",
}


def _direct_calls() -> set[tuple[str, str, str]]:
    """(lesson, function, parameter) for every call of a parameter in the lessons' code that is not an argument of
    `call(...)` (a lambda passed to `call` counts as through it)."""
    import ast
    from pathlib import Path
    import sbertlib.workbook.lessons as lessons
    found = set()
    for path in sorted(Path(lessons.__file__).parent.glob("nb*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, ast.FunctionDef):
                continue
            params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
            through = {id(sub) for node in ast.walk(fn) if isinstance(node, ast.Call)
                       and isinstance(node.func, ast.Name) and node.func.id == "call"
                       for arg in node.args for sub in ast.walk(arg)}
            found |= {(path.stem, fn.name, node.func.id) for node in ast.walk(fn)
                      if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params
                      and id(node) not in through}
    return found


def test_every_check_calls_the_students_function_through_call():
    """Issue 29: a check that calls the student's function itself misses an input changed in place (the notebook's
    own data changed behind its back). Every direct call of a parameter is listed, with why, above."""
    found = _direct_calls()
    assert found - set(NOT_THROUGH_CALL) == set(), "call these through lessons.call, or list them with why"
    assert set(NOT_THROUGH_CALL) - found == set(), "no longer called directly: remove from NOT_THROUGH_CALL"


def test_a_checks_own_error_shows_as_an_exercise_error_without_the_checks_source():
    """The fourth trial (2026-11-27): an error inside a check showed a traceback through the lesson's source, which
    holds references and the questionnaire's answers. Every lesson module guards its checks."""
    from sbertlib.workbook import lessons
    from sbertlib.workbook.lessons import guard, nb07

    def check_something(fn):
        return {}["a key the check's own code lacks"]
    namespace = {"__name__": __name__, "check_something": check_something, "helper": check_something}
    guard(namespace)
    with pytest.raises(ExerciseError, match="the check could not finish: KeyError") as err:
        namespace["check_something"](len)
    assert err.value.__cause__ is None and err.value._render_traceback_()[0].startswith("ExerciseError:")
    assert namespace["helper"] is check_something                          # only check_* functions are wrapped
    for number in lessons.numbers():                                        # every lesson's checks are guarded
        module = lessons.lesson(number)
        checks = [getattr(module, n) for n in dir(module) if n.startswith("check_")
                  and getattr(getattr(module, n), "__module__", None) == module.__name__]
        assert checks and all(hasattr(c, "__wrapped__") for c in checks), number
    with pytest.raises(ExerciseError, match="the check could not finish"):
        nb07.check_gain(nb07.gain_truth, "|u-v|", object())   # the notebook's grid not a table: the check cannot read it


# ----------------------------------------------------------------------------- process-wide numerics
@pytest.mark.parametrize("switch", [
    lambda: torch.set_float32_matmul_precision("high"),
    lambda: (torch.set_autocast_enabled("cpu", True), torch.set_autocast_dtype("cpu", torch.bfloat16)),
    lambda: torch.set_default_dtype(torch.float64),
], ids=["matmul precision high", "global bf16 autocast", "default dtype float64"])
def test_a_process_wide_setting_never_moves_the_reference_nor_makes_a_check_refuse(switch):
    """A GPU tutorial's `set_float32_matmul_precision("high")` in an early cell once made every check refuse a right
    answer. Now the reference computes under a fresh process's settings (`reference_numerics`) and the student's code
    as the kernel is set; the settings are the student's again afterwards."""
    from sbertlib.workbook.lessons import exercises, reference_numerics
    a = torch.randn(64, 64, generator=torch.Generator().manual_seed(0))
    fresh = a @ a
    before = (torch.get_float32_matmul_precision(), torch.is_autocast_enabled("cpu"), torch.get_default_dtype())
    switch()
    try:
        during = (torch.get_float32_matmul_precision(), torch.is_autocast_enabled("cpu"), torch.get_default_dtype())
        with reference_numerics():
            assert torch.equal(a @ a, fresh) and torch.get_default_dtype() == torch.float32
        assert (torch.get_float32_matmul_precision(), torch.is_autocast_enabled("cpu"),
                torch.get_default_dtype()) == during
        cosine = next(ex for ex in exercises("00") if ex.name == "cosine_matrix")
        cosine.check(cosine.reference)
    finally:
        torch.set_float32_matmul_precision(before[0])
        torch.set_autocast_enabled("cpu", before[1])
        torch.set_default_dtype(before[2])


# ----------------------------------------------------------------------------- what a wrong result is, beside the right
@pytest.mark.parametrize("got, want, says", [
    (lambda w: -w, None, "the sign is flipped"),
    (lambda w: 100 * w, None, "100 × the right ones"),
    (lambda w: np.abs(w), None, "without their signs"),
    (lambda w: w[::-1].copy(), None, "another order"),
    (lambda w: w[:-1], None, "2 items where the inputs give 3: an off-by-one"),
    (lambda w: np.c_[w, w], None, "a vector where one number is asked"),
    (lambda w: np.round(w, 2), None, "rounded to 2 decimals"),
    (lambda w: (w, 2.0), lambda w: (2.0, w), "the two results are in the wrong order"),
    (lambda w: (1.0, 5 * w), lambda w: (1.0, w), "your wmean: your values are 5 ×"),
    (lambda w: {0.5: 1.0}, lambda w: {0.5: 1.0, 2.0: 3.0}, "[2.0] missing"),
    (lambda w: [("a", "b")], lambda w: [("a", "b"), ("c", "d")], "1 item: too few for these inputs"),
    (lambda w: [], lambda w: [("a", "b")], "your result is empty"),
    (lambda w: [{"a": 1}], lambda w: [("a", "b")], "your items are dicts where the exercise asks for tuples"),
    (lambda w: 1.7 * np.r_[w, w], lambda w: np.r_[w, w], "times one same factor"),
    (lambda w: np.r_[w, w] + 1, lambda w: np.r_[w, w], "plus one same amount"),
    (lambda w: np.r_[w, 2 * w] ** 3, lambda w: np.r_[w, 2 * w], "rise and fall with the right ones"),
    (lambda w: 1 - np.r_[w, 2 * w] ** 3, lambda w: np.r_[w, 2 * w], "the opposite order"),
    (lambda w: np.trunc(4 * w), lambda w: 4 * w, "lost their fractions"),
    (lambda w: np.r_[w, 9.0, w], lambda w: np.r_[w, w, 7.0], "the first 3 of your values are right, from number 4"),
    (lambda w: (1.0, w + 0.5 * w ** 2), lambda w: (1.0, w), "right: your all; not right: your wmean — look again"),
    (lambda w: [("p", "e", "c2"), ("q", "f", "c3")], lambda w: [("p", "e", "c1"), ("q", "f", "c3")],
     "the part 1 and part 2 are right; the part 3 is wrong in 1 of 2"),
    (lambda w: [("p", "e", "c")], lambda w: [("p", "e", "c"), ("q", "f", "c")], "too few with the first field 'q'"),
    (lambda w: pd.DataFrame({"x": w, "y": w}, index=list("abc")).iloc[::-1], lambda w: pd.DataFrame({"x": w, "y": w ** 2 + 1},
     index=list("abc")), "right: column 'x'; column 'y' holds what column 'x' should"),   # rows aligned by the index
])
def test_related_names_how_a_wrong_result_stands_to_the_right_one_without_showing_it(got, want, says):
    """Trial 5 (2026-12-07, notebooks 04 and 06, fresh): a result one short, rounded, reordered, summed or scaled got
    the exercise's general hint. `related` names such a relation for every exercise at once, never printing the right
    values (only their count, taken from the inputs)."""
    from sbertlib.workbook.lessons import related
    w = np.array([0.123456, -1.234567, 3.345678])
    message = related(got(w), (want or (lambda w: w))(w), parts=("all", "wmean"))
    assert says in message
    assert not any(f"{x:.3f}"[:5] in message for x in w)


def test_related_says_nothing_where_nothing_simple_holds():
    from sbertlib.workbook.lessons import related
    w = np.array([0.5, -1.2, 3.3])
    assert related(w + np.array([0.3, -0.1, 0.7]), w) == related(w, w) == related(["x"], ["y"]) == ""
    assert "a sum over the 16 rows" in related(16 * 0.25, 0.25, rows=16)


@pytest.mark.parametrize("code, says", [
    (lambda a: max(a, torch.zeros(3)), "use torch's element-wise functions"),
    (lambda a: torch.linalg.vector_norm(a.numpy()), "torch.as_tensor(x) first"),
    (lambda a: [1, 2].value_counts(), "a plain Python list has no such method"),
])
def test_an_error_the_students_code_raised_is_told_what_it_usually_means(code, says):
    with pytest.raises(ExerciseError, match=re.escape(says)):
        call(code, torch.ones(3), what="your f")


def test_the_checks_stand_in_encoder_encodes_as_the_library_does_both_ways():
    """Trial 5: `model(model.tokenize(column))`, as notebook 06 shows it, was refused with an AttributeError."""
    from sbertlib.workbook.lessons import nb04
    model, pairs = nb04.hidden_sts()
    texts = [p.sentence1 for p in pairs[:5]]
    assert torch.equal(model(model.tokenize(texts)), torch.from_numpy(model.encode(texts)))
    with pytest.raises(ExerciseError, match="a stand-in of its own"):
        call(lambda m: m.embed(texts), model, what="your f")


def test_an_objective_with_a_trainable_setting_is_told_the_optimizer_would_change_it():
    """Trial 5: a TripletObjective whose margin was an nn.Parameter passed, and training moved ε."""
    from sbertlib import losses
    from sbertlib.workbook.lessons import nb06
    from sbertlib.workbook.profiles import get_profile, load_encoder

    class Trainable(losses.SBERTLoss):
        n_texts, label_kind = (3,), None

        def __init__(self, model, margin: float = 1.0):
            super().__init__(model)
            self.margin = torch.nn.Parameter(torch.tensor(float(margin)))

        def loss_from_embeddings(self, embeddings, labels=None):
            return nb06.triplet_loss_truth(*embeddings, self.margin)
    with pytest.raises(ExerciseError, match="trainable numbers of its own"):
        nb06.TRIPLET_OBJECTIVE.check(Trainable, load_encoder(get_profile("smoke")))
