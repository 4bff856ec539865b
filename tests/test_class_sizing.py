"""benchmarks/class_sizing.py's plumbing on a tiny notebook: one student alone and two at once, each in
a fresh kernel with its own output folder; memory sampled, tables and JSON written. Not the measurement
itself (that is BENCHMARKS.md's "A class on one server: sizing")."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sizing():
    spec = importlib.util.spec_from_file_location("class_sizing", ROOT / "benchmarks" / "class_sizing.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notebook_lists(sizing):
    assert sizing.parse_notebooks("02-06") == ["02", "03", "04", "05", "06"]
    assert sizing.parse_notebooks("00, 04,10-11") == ["00", "04", "10", "11"]
    assert sizing.parse_notebooks("") == []


def test_kernel_env_is_the_builds_with_the_students_folder(sizing, tmp_path):
    env = sizing.kernel_env("offline", tmp_path / "s1", "/ipython")
    assert env["SBERTLIB_PROFILE"] == "offline" and env["SBERTLIB_OUTPUT_DIR"] == str(tmp_path / "s1")
    assert "OMP_NUM_THREADS" not in env  # torch's default unless asked
    assert sizing.kernel_env("smoke", tmp_path, "/ipython", threads=1)["OMP_NUM_THREADS"] == "1"


def test_rows_and_fit_from_figures(sizing):
    def student(seconds, peak):
        return {"seconds": seconds, "notebooks": [{"number": "02", "seconds": seconds, "error": None,
                                                   "peak_rss_mib": peak, "vm_hwm_mib": peak - 10, "end_rss_mib": 500}]}
    runs = [{"n": 1, "students": [student(60, 1000)], "peak_kernels_rss_mib": 1000, "peak_kernels_pss_mib": 900,
             "peak_used_above_before_mib": 1200},
            {"n": 2, "students": [student(110, 1024), student(130, 1000)], "peak_kernels_rss_mib": 2000,
             "peak_kernels_pss_mib": 1700, "peak_used_above_before_mib": 2300}]
    rows = sizing.class_rows(runs)
    assert [r["slowdown"] for r in rows] == [1.0, 2.0] and rows[1]["slowest_seconds"] == 130
    assert rows[1]["peak_one_kernel_mib"] == 1024
    fit = sizing.fit(rows, None, server_gib=24, headroom_gib=4, wait_minutes=2)
    assert fit["per_student_peak_mib"] == 1024 and fit["by_memory"] == 20  # (24 - 4) GiB / 1 GiB
    assert fit["largest_measured_n_in_time"] == 1  # the slowest of two took 130 s > 2 min
    assert "| 2 | 2 min 00 s | 2 min 10 s | 2.00× |" in sizing.class_table(rows)


@pytest.mark.integration
def test_one_alone_and_two_at_once_on_a_tiny_notebook(sizing, tmp_path, capsys):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import os\nfrom pathlib import Path\nblock = bytearray(60 * 2**20)  # 60 MiB the kernel holds\n"
        "Path(os.environ['SBERTLIB_OUTPUT_DIR'], 'mark').write_text(os.environ['SBERTLIB_PROFILE'])\n"
        "import time; time.sleep(1)")]
    nbformat.write(nb, folder / "00_tiny.ipynb")
    out = tmp_path / "sizing.json"
    assert sizing.main(["--profile", "smoke", "--alone", "00", "--path", "00", "--students", "2",
                        "--notebook-dir", str(folder), "--keep", str(tmp_path / "work"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["profile"] == "smoke" and report["machine"]["cores"] >= 1 and report["machine"]["cpu"]
    (row,) = report["alone"]["notebooks"]
    assert row["error"] is None and row["samples"] >= 1 and sizing.student_peak_mib(row) >= 60
    runs = report["class"]["runs"]
    assert [r["n"] for r in runs] == [1, 2] and runs[0]["from"] == "--alone"  # the alone run is N=1
    assert len(runs[1]["students"]) == 2 and runs[1]["peak_kernels_rss_mib"] >= 2 * 60
    # every student wrote into an output folder of their own
    marks = sorted(p.relative_to(tmp_path / "work").as_posix() for p in (tmp_path / "work").rglob("mark"))
    assert marks == ["alone/mark", "class2/student1/mark", "class2/student2/mark"]
    assert report["fit"]["by_memory"] > 0
    text = capsys.readouterr().out
    assert "| 00_tiny |" in text and "| 2 |" in text and "load average before the run" in text
