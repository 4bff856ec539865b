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
