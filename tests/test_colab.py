"""A notebook opened outside the checkout: its badge, its set-up cell, and one run of it alone."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest

from sbertlib.workbook import colab
from sbertlib.workbook.publish import notebooks

ROOT = Path(__file__).resolve().parents[1]


def test_every_notebook_and_the_readme_point_at_the_repository(tmp_path):
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns("examples"))
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    assert colab.apply(tmp_path / "notebooks", tmp_path / "README.md") == []  # nothing to change: all current
    for path in notebooks.notebook_paths():
        nb = nbformat.read(path, as_version=4)
        assert colab.colab_url(path.name) in nb.cells[0].source, path.name
        assert nb.cells[1].source == colab.setup_source() and "setup" in nb.cells[1].metadata["tags"]
    changed = colab.apply(tmp_path / "notebooks", tmp_path / "README.md", repo="someone/fork", branch="dev")
    assert len(changed) == len(notebooks.notebook_paths()) + 1
    nb = nbformat.read(tmp_path / "notebooks" / "04_sts_evaluation.ipynb", as_version=4)
    assert nb.cells[0].source.count("Open In Colab") == 1
    assert "github/someone/fork/blob/dev/notebooks/04_sts_evaluation.ipynb" in nb.cells[0].source
    assert "git+https://github.com/someone/fork@dev" in nb.cells[1].source
    assert (tmp_path / "README.md").read_text().count("Open In Colab") == 1


def test_setup_cell_does_nothing_where_sbertlib_is_installed(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a))
    exec(colab.setup_source(), {})
    assert calls == []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel of the checkout: with this venv's setuptools, else in pip's isolated build environment."""
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)]
    if subprocess.run(cmd[:4] + ["--no-build-isolation"] + cmd[4:], capture_output=True).returncode != 0:
        subprocess.run(cmd, check=True)
    return next(out.glob("sbertlib-*.whl"))


@pytest.mark.integration
def test_a_notebook_alone_in_an_empty_folder_installs_sbertlib_and_runs(wheel, shared_data, tmp_path):
    """A fresh venv that sees the third-party packages but not sbertlib; the wheel stands in for the
    repository, the stand-in Hub for the Hub; no data folder. The set-up cell installs, data arrive."""
    from hubdata import serve_course
    from hubstub import HubStub
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    ours = Path(sysconfig.get_paths()["purelib"])  # third-party packages only: its .pth files are not read
    (site / "deps.pth").write_text(f"{ours}\n")
    python = str(venv / "bin" / "python")
    alone = tmp_path / "downloads"
    alone.mkdir()
    shutil.copy(ROOT / "notebooks" / "00_setup_and_tour.ipynb", alone)
    find = subprocess.run([python, "-c", "import importlib.util; print(importlib.util.find_spec('sbertlib'))"],
                          capture_output=True, text=True, cwd=alone)
    assert find.stdout.strip() == "None", "the fresh venv must not see the checkout's sbertlib"
    with HubStub() as hub:
        serve_course(hub, shared_data)
        env = {k: v for k, v in os.environ.items()
               if k not in ("SBERTLIB_DATA_DIR", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "PYTHONPATH")}
        env.update({"SBERTLIB_INSTALL": f"sbertlib[workbook,search,offline] @ {wheel.as_uri()}",
                    "PIP_NO_INDEX": "1", "HF_ENDPOINT": hub.url, "HF_HUB_CACHE": str(tmp_path / "hub-cache"),
                    "SBERTLIB_PROFILE": "smoke", "SBERTLIB_OUTPUT_DIR": str(tmp_path / "runs"),
                    "MPLBACKEND": "Agg", "TQDM_DISABLE": "1", "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}"})
        run = ("import nbformat, sys\nfrom nbclient import NotebookClient\n"
               "nb = nbformat.read('00_setup_and_tour.ipynb', as_version=4)\n"
               "NotebookClient(nb, timeout=300, kernel_name='python3', resources={'metadata': {'path': '.'}}).execute()\n"
               "nbformat.write(nb, 'executed.ipynb')\n")
        done = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, text=True, env=env)
        if done.returncode != 0:  # a venv made --without-pip borrows the outer pip through deps.pth
            pytest.fail(f"pip unavailable in the fresh venv: {done.stderr}")
        result = subprocess.run([python, "-c", run], cwd=alone, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    executed = nbformat.read(alone / "executed.ipynb", as_version=4)
    text = "\n".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "[OK] STS benchmark: from the Hub (mteb/stsbenchmark-sts, cached)" in text and "smoke profile" in text
    installed = subprocess.run([python, "-c", "import sbertlib; print(sbertlib.__file__)"], capture_output=True,
                               text=True, env=env, cwd=tmp_path)
    assert str(venv) in installed.stdout, "sbertlib came from the wheel the set-up cell installed"
    assert any("mteb/stsbenchmark-sts" in r[1] for r in hub.requests), "the data came from the (stand-in) Hub"


def test_the_site_gets_a_plain_link_not_the_remote_badge_image():
    text = f"# 04 · Title\n\n{colab.badge('04_sts_evaluation.ipynb')}\n\nBody"
    plain = colab.plain_link(text)
    assert "colab-badge.svg" not in plain and f"[Open in Colab ↗]({colab.colab_url('04_sts_evaluation.ipynb')})" in plain


def test_example_file_is_the_local_copy_else_downloaded_from_the_repository(tmp_path, monkeypatch):
    """Notebook 13 opened alone (Colab) fetches its example from the repository; a local server stands in."""
    import functools
    import http.server
    import threading
    repo = tmp_path / "repo"
    (repo / "notebooks" / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "examples" / "course_questions.tsv", repo / "notebooks" / "examples")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(repo))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv(colab.RAW_ENV, f"http://127.0.0.1:{server.server_address[1]}")
        alone = tmp_path / "alone"
        alone.mkdir()
        got = colab.example_file("examples/course_questions.tsv", alone)
        assert got == alone / "examples" / "course_questions.tsv"
        assert got.read_bytes() == (ROOT / "notebooks" / "examples" / "course_questions.tsv").read_bytes()
        assert colab.example_file("examples/course_questions.tsv", ROOT / "notebooks").parent.parent == ROOT / "notebooks"
        with pytest.raises(FileNotFoundError, match=r"examples/nope.tsv is not beside this notebook(.|\n)*clone"):
            colab.example_file("examples/nope.tsv", alone)
    finally:
        server.shutdown()
        server.server_close()
