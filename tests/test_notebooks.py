"""Every notebook runs top to bottom, headlessly, on the smoke profile."""
from __future__ import annotations

import os

import pytest

from sbertlib import notebooks

pytest.importorskip("nbclient")


@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.name)
def test_notebook_runs_on_smoke_profile(path, shared_data, tmp_path):
    env = {"SBERTLIB_PROFILE": "smoke", "SBERTLIB_DATA_DIR": str(shared_data),
           "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs"), "HF_HUB_OFFLINE": "1",
           "MPLBACKEND": "Agg", "TQDM_DISABLE": "1"}
    nb, result = notebooks.execute(path, timeout=600, env=env, cwd=path.parent)
    assert result.error is None, f"{path.name} failed: {result.error}"
    assert result.headlines, f"{path.name} printed no headline"
