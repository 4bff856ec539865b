"""``make workbook``'s output: executed notebooks and the course site, readable without a kernel."""
from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from sbertlib.workbook.publish import build as workbook
from sbertlib.workbook.publish import site

VIEW = site.WIDGET_VIEW


def _nb(*outputs_per_cell):
    """A notebook as nbclient saves it: widget outputs plus the widget state of every model shown."""
    nb = new_notebook(cells=[new_code_cell("x", outputs=outs) for outs in outputs_per_cell])
    ids = [o.data[VIEW]["model_id"] for outs in outputs_per_cell for o in outs if VIEW in o.get("data", {})]
    state = {i: {"model_name": "VBoxModel", "model_module": "@jupyter-widgets/controls",
                 "model_module_version": "2.0.0", "state": {}} for i in ids}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state, "version_major": 2,
                                                                            "version_minor": 0}}
    return nb


def _widget_output(model_id, snapshot=None):
    data = {"text/plain": "VBox(...)", VIEW: {"version_major": 2, "version_minor": 0, "model_id": model_id}}
    if snapshot is not None:
        data["text/html"] = snapshot
    return new_output("display_data", data=data)


def test_static_copy_prefers_snapshots_and_leaves_the_original_alone():
    nb = _nb([_widget_output("m1", "<p>SNAPSHOT-1</p>")], [new_output("stream", text="hello\n")])
    static = site.static_copy(nb)
    assert VIEW not in static.cells[0].outputs[0].data
    assert "widgets" not in static.metadata              # nothing live left: no CDN widget manager
    assert VIEW in nb.cells[0].outputs[0].data and "widgets" in nb.metadata  # the .ipynb keeps both


def test_static_copy_keeps_widgets_without_a_snapshot():
    nb = _nb([_widget_output("m1", "<p>SNAPSHOT</p>")], [_widget_output("m2")])
    static = site.static_copy(nb)
    assert VIEW not in static.cells[0].outputs[0].data
    assert VIEW in static.cells[1].outputs[0].data and "widgets" in static.metadata


def test_site_chapter_shows_the_snapshot_and_loads_nothing_from_the_internet(tmp_path):
    import re
    from pathlib import Path

    from sbertlib.workbook.publish import site
    from sbertlib.workbook.publish.notebooks import RunResult
    nb = _nb([_widget_output("m1", "<p>SNAPSHOT-HEATMAP</p>")])
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("# 10 · A widget chapter\n\nThe cosine $\\cos(u, v)$."))
    executed = tmp_path / "10_widgets.ipynb"
    nbformat.write(nb, executed)
    results = [RunResult(executed, 3.2, None, ["10 · headline <42.00>"])]
    index = site.build_site([executed], results, tmp_path, "smoke", "a test machine")
    chapter = (index.parent / "10_widgets.html").read_text()
    landing = (index.parent / "intro.html").read_text()
    assert "SNAPSHOT-HEATMAP" in chapter and "html-manager" not in chapter
    assert "10 · A widget chapter" in landing and "10 · headline &lt;42.00&gt;" in landing
    assert "profile <strong>smoke</strong>" in landing and "a test machine" in landing
    for page in (chapter, landing):
        external = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', page)
        assert external == [], external
        assert "_static/mathjax/MathJax.js" in page
    assert (index.parent / "_static" / "mathjax" / "MathJax.js").is_file()
    assert (index.parent / "search.html").is_file() and (index.parent / "searchindex.js").is_file()
    assert not Path(tmp_path / "site-src").exists()


def test_kernel_sees_a_relative_data_dir_as_the_launcher_meant_it(tmp_path, monkeypatch):
    """``SBERTLIB_DATA_DIR=../shared/data make workbook``: the kernel starts in the notebook's
    folder, so the runner must hand it the absolute path."""
    from nbformat.v4 import new_notebook

    from sbertlib.workbook.publish import notebooks
    folder = tmp_path / "nbs"
    folder.mkdir()
    path = folder / "probe.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("import os; print(os.environ['SBERTLIB_DATA_DIR'])")]), path)
    monkeypatch.chdir(tmp_path)
    nb, result = notebooks.execute(path, timeout=120, env={"SBERTLIB_DATA_DIR": "shared/data"})
    assert result.error is None
    assert nb.cells[0].outputs[0]["text"].strip() == str(tmp_path / "shared" / "data")


def test_a_notebook_runs_in_a_local_kernel_that_prints_no_tcp_warning(tmp_path, monkeypatch, capfd):
    """Every notebook the build ran printed ipykernel's "Kernel is running over TCP without encryption"
    (jupyter_client provisions no CurveZMQ keys by default): the kernel now runs over IPC sockets in a
    private folder that is gone after the run (and with manager-made CurveZMQ keys where there is no IPC)."""
    import tempfile

    import zmq
    from nbformat.v4 import new_notebook

    from sbertlib.workbook.publish import notebooks
    path = tmp_path / "probe.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(
        "import json, ipykernel.connect\ninfo = json.loads(ipykernel.connect.get_connection_info())\n"
        "print(info['transport'], 'curve_publickey' in info)")]), path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    nb, result = notebooks.execute(path, timeout=120)
    err = capfd.readouterr().err
    assert "without encryption" not in err and "WARNING" not in err, err
    assert result.error is None
    assert nb.cells[0].outputs[0]["text"].split() == ["ipc", "False"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probe.ipynb", "tmp"]   # no socket left behind
    assert not list((tmp_path / "tmp").iterdir())
    if not zmq.has("curve"):
        return
    has = zmq.has
    monkeypatch.setattr(zmq, "has", lambda what: False if what == "ipc" else has(what))   # as on Windows
    nb, result = notebooks.execute(path, timeout=120)
    assert result.error is None and nb.cells[0].outputs[0]["text"].split() == ["tcp", "True"]
    assert "without encryption" not in capfd.readouterr().err


def test_workbook_stops_early_and_says_how_when_data_is_missing(tmp_path, monkeypatch, capsys):
    from sbertlib import config, data
    monkeypatch.setenv("SBERTLIB_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setattr(config, "default_data_dir", lambda: tmp_path / "nothing")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(data.files, "download", lambda *a, **k: (_ for _ in ()).throw(OSError("offline")))
    from sbertlib.cli import build as build_cli
    assert build_cli.main(["--out", str(tmp_path / "build"), "--profile", "smoke", "--only", "00"]) == 2
    out, err = capsys.readouterr()
    assert "[FAIL] STS benchmark" in out and "SBERTLIB_DATA_DIR" in err and "python -m sbertlib fetch" in err
    assert not (tmp_path / "build").exists()          # no notebook was run


def test_index_opens_the_site_and_lists_runtime_status_headlines_and_machine(tmp_path):
    import json
    from pathlib import Path

    from sbertlib.workbook.publish.notebooks import RunResult
    results = [RunResult(Path("00_tour.ipynb"), 12.4, None, ["STSb 82.03 <minilm>"]),
               RunResult(Path("01_base.ipynb"), 3.0, "DataNotFoundError: x", [])]
    page = workbook.write_index(results, "offline", tmp_path, workbook.machine_line()).read_text()
    assert 'url=site/index.html' in page
    saved = json.loads((tmp_path / "index.json").read_text())
    assert saved["profile"] == "offline" and "torch threads" in saved["machine"] and saved["total_seconds"] == 15.4
    assert [r["seconds"] for r in saved["notebooks"]] == [12.4, 3.0]
    assert saved["notebooks"][1]["error"] == "DataNotFoundError: x" and saved["notebooks"][0]["headlines"] == ["STSb 82.03 <minilm>"]


def test_the_student_writes_a_fifth_of_the_notebooks_code():
    """Issue 20's goal: at least 20% of the notebooks' code lines are the student's (solution cells), and no
    notebook is left a read-and-run notebook (each at least 12%)."""
    import nbformat

    from sbertlib.workbook.publish import notebooks as nbs
    counts = {p.name: nbs.code_lines(nbformat.read(p, as_version=4)) for p in nbs.notebook_paths()}
    student, total = (sum(c[i] for c in counts.values()) for i in (0, 1))
    assert student / total >= 0.20, f"{student} of {total} code lines are the student's"
    low = {name: f"{s}/{t}" for name, (s, t) in counts.items() if s / t < 0.12}
    assert not low, f"notebooks where the student writes under 12% of the code: {low}"
