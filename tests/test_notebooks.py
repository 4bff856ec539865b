"""Every notebook runs top to bottom, headlessly, on the smoke profile."""
from __future__ import annotations

import warnings
from pathlib import Path

import nbformat
import pytest

from sbertlib.workbook import notebooks

# Executed copies (with nbclient's per-cell timings in each cell's metadata) for when a run is slow or fails.
ARTIFACTS = Path(__file__).resolve().parents[1] / "build" / "test-artifacts" / "notebooks"

pytest.importorskip("nbclient")


@pytest.fixture(scope="module")
def fresh_machine_hub(shared_data, tmp_path_factory):
    """A machine as a student's: no data folder, an empty Hub cache, and a Hub — here a stand-in on
    127.0.0.1 serving the course's data in the Hub's formats (tests/hubdata.py)."""
    from hubdata import serve_course
    from hubstub import HubStub
    with HubStub() as stub:
        serve_course(stub, shared_data)
        yield {"HF_ENDPOINT": stub.url, "HF_HUB_CACHE": str(tmp_path_factory.mktemp("hub-cache")),
               "SBERTLIB_DATA_DIR": None, "HF_HUB_OFFLINE": None, "TRANSFORMERS_OFFLINE": None}


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_notebook_runs_on_smoke_profile(path, fresh_machine_hub, tmp_path):
    """Every notebook on a fresh machine: its data arrive from the (stand-in) Hub on first use."""
    env = {"SBERTLIB_PROFILE": "smoke", **fresh_machine_hub,
           "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs"), "MPLBACKEND": "Agg", "TQDM_DISABLE": "1"}
    nb, result = notebooks.execute(path, timeout=180, env=env, cwd=path.parent)
    if result.error and result.error.startswith(notebooks.TIMEOUT_PREFIX):
        # A kernel that stops answering (seen intermittently: kernel idle, client waiting) is retried
        # once in a fresh kernel; a cell that fails with an error is never retried. The per-cell limit bounds
        # the other form of the same stall (the client waits the full limit between two cells, then goes on).
        warnings.warn(f"{path.name}: {result.error}; retrying once in a fresh kernel", stacklevel=1)
        nb, result = notebooks.execute(path, timeout=180, env=env, cwd=path.parent)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, ARTIFACTS / path.name)
    assert result.error is None, f"{path.name} failed: {result.error}"
    assert result.headlines, f"{path.name} printed no headline"
