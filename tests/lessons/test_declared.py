"""Tests that mirror the declarations: every declared function exercise (``Exercise`` with a reference and hidden
inputs) and every declared objective (``Objective``) against its own check — the reference passes, and each declared
slip is refused with its own message. A lesson's own test file holds only what a declaration cannot say."""
from __future__ import annotations

import dataclasses
import hashlib
import pickle

import pytest
import torch

from sbertlib import losses
from sbertlib.workbook.lessons import Exercise, ExerciseError, Objective, exercises, numbers


def _declared(kind):
    return [(number, ex) for number in numbers() for ex in exercises(number) if isinstance(ex, kind)
            and (kind is not Exercise or (ex.reference is not None and ex.inputs is not None))]


FUNCTIONS = _declared(Exercise)
OBJECTIVES = _declared(Objective)
FUNCTION_SLIPS = [(n, ex, message) for n, ex in FUNCTIONS for message in ex.slips]
OBJECTIVE_SLIPS = [(n, ex, message) for n, ex in OBJECTIVES for message in ex.slips]


def _ids(cases):
    return [f"{c[0]}-{c[1].name}" + (f"-{k}" if len(c) > 2 else "") for k, c in enumerate(cases)]


def test_the_lessons_declare_their_exercises():
    assert len(FUNCTIONS) >= 30 and len(FUNCTION_SLIPS) >= 100, (len(FUNCTIONS), len(FUNCTION_SLIPS))


_VALUES: dict = {}   # (exercise, reference or slip, a digest of the hidden input) → what it gave: once a session


def _remembered(number: str, ex: Exercise) -> Exercise:
    """``ex`` whose reference and declared slips each compute a hidden input once a test session, then give that
    value (or raise that error) again: they are deterministic functions of the input, so the test of slip k need not
    recompute the k slips before it. The check itself still runs as a student's does: the slip under test is called
    afresh (through ``call``), compared with the reference, then matched against every slip in order."""
    def remember(which, fn):
        def value(*args):
            try:
                key = (number, ex.name, which, hashlib.sha256(pickle.dumps(args)).hexdigest())
            except Exception:  # noqa: BLE001 - an input pickle cannot write is computed each time
                return fn(*args)
            if key not in _VALUES:
                try:
                    _VALUES[key] = (fn(*args), None)
                except Exception as error:  # noqa: BLE001 - a slip that raises on this input raises again
                    _VALUES[key] = (None, error)
            result, error = _VALUES[key]
            if error is not None:
                raise error
            return result   # as it is: a slip's value may be of its own type (nb04's ties), which a copy would lose
        return value
    return dataclasses.replace(ex, reference=remember("reference", ex.reference),
                               slips={m: remember(m, fn) for m, fn in ex.slips.items()})


@pytest.mark.parametrize("number, ex", FUNCTIONS, ids=_ids(FUNCTIONS))
def test_a_function_exercise_passes_its_own_reference(number, ex, capsys):
    _remembered(number, ex).check(ex.reference)   # the reference under test afresh; the check's, kept for the slips
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("number, ex, message", FUNCTION_SLIPS, ids=_ids(FUNCTION_SLIPS))
def test_every_declared_slip_of_a_function_is_named(number, ex, message):
    with pytest.raises(ExerciseError) as refused:
        _remembered(number, ex).check(ex.slips[message])
    assert message in str(refused.value), f"{ex.name}: the slip {message!r} was told:\n{refused.value}"


def _as_class(ex: Objective, encoder, loss_from_embeddings):
    """A student's class whose loss is ``loss_from_embeddings(embeddings, labels, **setting)``, with the reference's
    data kind: how a declared objective's right answer or slip is written as the exercise asks."""
    reference = ex.reference(encoder, **ex.settings[0])

    class Student(losses.SBERTLoss):
        n_texts, label_kind, score_range = reference.n_texts, reference.label_kind, reference.score_range

        def __init__(self, model, **setting):
            super().__init__(model)
            self.setting = setting

        def loss_from_embeddings(self, embeddings, labels=None):
            return loss_from_embeddings(embeddings, labels, **self.setting)
    Student.__name__ = ex.name
    return Student


@pytest.mark.parametrize("number, ex", OBJECTIVES, ids=_ids(OBJECTIVES))
def test_an_objective_passes_when_written_as_its_reference(number, ex, tiny_encoder, capsys):
    right = lambda e, labels, **s: ex.reference(tiny_encoder, **s).loss_from_embeddings(e, labels)  # noqa: E731
    ex.check(_as_class(ex, tiny_encoder, right), tiny_encoder)
    assert "[OK]" in capsys.readouterr().out


@pytest.mark.parametrize("number, ex, message", OBJECTIVE_SLIPS, ids=_ids(OBJECTIVE_SLIPS))
def test_every_declared_slip_of_an_objective_is_named(number, ex, message, tiny_encoder):
    with pytest.raises(ExerciseError) as refused:
        ex.check(_as_class(ex, tiny_encoder, ex.slips[message]), tiny_encoder)
    assert message in str(refused.value), f"{ex.name}: the slip {message!r} was told:\n{refused.value}"


def test_no_check_refuses_a_right_answer_after_a_gpu_tutorials_matmul_precision():
    """`torch.set_float32_matmul_precision("high")` in an early cell: every declared function exercise still passes
    its reference (the reference computes under fresh-process settings; the student's code as the kernel is set)."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        for _, ex in FUNCTIONS:
            ex.check(ex.reference)
    finally:
        torch.set_float32_matmul_precision(before)


def test_a_kernel_that_mixed_the_old_and_new_tf32_settings_is_checked_too():
    """``set_float32_matmul_precision("high")``, then ``torch.backends.cuda.matmul.allow_tf32 = False`` (two GPU
    tutorials' advice): torch then refuses to say the precision; the checks still pass right answers and leave the
    kernel's settings as they found them."""
    matmuls = (torch.backends.cuda.matmul, torch.backends.mkldnn.matmul)
    before = [m.fp32_precision for m in matmuls]
    torch.set_float32_matmul_precision("high")
    torch.backends.cuda.matmul.allow_tf32 = False
    mixed = [m.fp32_precision for m in matmuls]
    try:
        for _, ex in [(n, ex) for n, ex in FUNCTIONS if n in ("00", "04", "09")]:
            ex.check(ex.reference)
        assert [m.fp32_precision for m in matmuls] == mixed
    finally:
        for m, precision in zip(matmuls, before):
            m.fp32_precision = precision
