"""The README's main command on a fresh clone: no data folder, no `export`, internet (a stand-in Hub)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_make_workbook_on_a_fresh_clone_gets_its_data_from_the_hub(shared_data, tmp_path):
    """`git clone`, then `make workbook` (two notebooks and the site, smoke profile): the data sets
    arrive from the Hub on first use. The venv is this one (`make -o` keeps it: installing is not
    what is tested here); PYTHONPATH makes the clone's sbertlib the one that runs."""
    from hubdata import serve_course
    from hubstub import HubStub
    clone = tmp_path / "sbert-workbook"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    assert sorted(p.name for p in (clone / "data").iterdir()) == ["README.md"]  # no data in a clone
    venv = Path(sys.executable).parent.parent
    with HubStub() as hub:
        serve_course(hub, shared_data)
        env = {k: v for k, v in os.environ.items()
               if k not in ("SBERTLIB_DATA_DIR", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        env.update({"HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(tmp_path / "hub-cache"), "PYTHONPATH": str(clone),
                    "SBERTLIB_PROFILE": "smoke", "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs"),
                    "MPLBACKEND": "Agg", "TQDM_DISABLE": "1"})
        done = subprocess.run(["make", "-o", f"{venv}/.installed", "workbook", f"VENV={venv}",
                               "BUILD_ARGS=--only 00,04"], cwd=clone, env=env, capture_output=True, text=True,
                              timeout=900)
    log = "\n".join(line for line in (done.stdout + done.stderr).splitlines() if "without encryption" not in line)
    assert done.returncode == 0, log[-4000:]
    index = json.loads((clone / "build" / "index.json").read_text())
    ran = {nb["notebook"]: nb["error"] for nb in index["notebooks"]}
    assert ran == {"00_setup_and_tour.ipynb": None, "04_sts_evaluation.ipynb": None}
    assert (clone / "build" / "index.html").is_file()
    assert any("mteb/stsbenchmark-sts" in r[1] for r in hub.requests)
    assert sorted(p.name for p in (clone / "data").iterdir()) == ["README.md"]  # downloads go to the Hub cache
