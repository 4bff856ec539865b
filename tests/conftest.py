"""Shared fixtures: where the real offline data lives, and small models built once per session."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _shared_data_dir() -> Path | None:
    env = os.environ.get("SBERTLIB_DATA_DIR")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "data"]:
        if (cand / "stsbenchmark").is_dir():
            return cand.resolve()
    return None


@pytest.fixture(scope="session", autouse=True)
def own_output_folder(tmp_path_factory):
    """Every test's runs and kept code go to a folder of this test session unless a test sets its own:
    the user's data folder (sbertlib's default) outlives the session, and a model an earlier session
    trained there must never be loaded as this one's."""
    if os.environ.get("SBERTLIB_OUTPUT_DIR"):
        yield
        return
    os.environ["SBERTLIB_OUTPUT_DIR"] = str(tmp_path_factory.mktemp("runs"))
    try:
        yield
    finally:
        os.environ.pop("SBERTLIB_OUTPUT_DIR", None)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real offline datasets (../shared/data or $SBERTLIB_DATA_DIR)."""
    d = _shared_data_dir()
    if d is None:
        pytest.skip("offline datasets not found: set SBERTLIB_DATA_DIR to the shared data folder")
    return d


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="module")
def one_thread():
    """Many tiny training steps: one intra-op thread avoids two threads fighting over small matmuls."""
    import torch
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def tiny():
    """tiny-random-bert (2 layers x 64) at its own length limit: the encoder the built tables and explorers run on
    in their tests (one per test module)."""
    from sbertlib.model.encoder import SentenceEncoder
    return SentenceEncoder.from_pretrained("tiny-random-bert", device="cpu")
