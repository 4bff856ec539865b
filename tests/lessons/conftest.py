"""Fixtures of the lessons' check tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tiny_encoder():
    """tiny-random-bert (2 layers x 64) cut at 32 tokens: the encoder students' code runs on in the checks' tests,
    one per test module."""
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", max_seq_length=32, device="cpu")


@pytest.fixture(scope="module")
def encoder(tiny_encoder):
    """The same encoder, under the name the training-loop tests use."""
    return tiny_encoder


@pytest.fixture
def runs_only(monkeypatch):
    """The training checks (05, 07, 14) without their first stage, which reads the settings at the loop: what their
    runs name on their own. A hard-coded setting is named by that first stage in the notebooks; the runs' naming is
    what is left where the settings reach the loop right and the run still differs (a loop of the student's that
    ignores one of them, say)."""
    from sbertlib.workbook.lessons import nb05, nb07, nb14
    monkeypatch.setattr(nb05, "check_settings_passed", lambda *_a, **_k: 0)
    monkeypatch.setattr(nb14, "check_settings_passed", lambda *_a, **_k: 0)
    monkeypatch.setattr(nb07, "_check_loop_settings", lambda *_a, **_k: None)
