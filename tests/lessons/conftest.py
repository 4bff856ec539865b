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
def high_precision():
    """A GPU tutorial's `torch.set_float32_matmul_precision("high")` in an early cell, put back afterwards."""
    import torch
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    yield
    torch.set_float32_matmul_precision(before)
