"""``make workbook``: execute every notebook headlessly into ``build/`` with an HTML index.

    python -m sbertlib build --out build [--profile offline] [--only 01,04]

Each notebook is run in a fresh kernel on the chosen profile (default: auto-selected), saved
executed as .ipynb and .html, and listed in ``build/index.html`` with its runtime, status and
headline results. Exits non-zero if any notebook failed.
"""
from __future__ import annotations

import copy
import html
import json
import os
import sys
from pathlib import Path

import nbformat

from . import notebooks


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def static_copy(nb):
    """A copy for a page with no kernel: widgets that recorded a static snapshot (``text/html``) show
    it instead of a live view, which would need the widget manager from a CDN (and then a kernel).
    The widget state is dropped too when no live view is left."""
    nb = copy.deepcopy(nb)
    live = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data and "text/html" in data:
                del data[WIDGET_VIEW]
            live += WIDGET_VIEW in data
    if not live:
        nb.metadata.pop("widgets", None)
    return nb


def write_html(nb, dest: Path) -> None:
    from nbconvert import HTMLExporter
    body, _ = HTMLExporter().from_notebook_node(static_copy(nb))
    dest.write_text(body, encoding="utf8")


def write_index(results: list[notebooks.RunResult], profile: str, out: Path) -> Path:
    rows = []
    for r in results:
        status = "ok" if r.error is None else f"FAILED: {html.escape(r.error)}"
        heads = "<br>".join(html.escape(h).replace("\n", "<br>") for h in r.headlines) or "&ndash;"
        rows.append(f"<tr><td><a href='{r.path.stem}.html'>{r.path.stem}</a></td>"
                    f"<td>{r.seconds:.0f} s</td><td>{status}</td><td><pre>{heads}</pre></td></tr>")
    total = sum(r.seconds for r in results)
    from datetime import datetime

    from ..evaluation.speed import environment
    env = environment()
    machine = (f"{env['device']}, {env['threads']} torch threads, {os.cpu_count()} CPUs, torch {env['torch']}; "
               f"{datetime.now():%Y-%m-%d %H:%M}")
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>sbert-workbook</title>
<style>body{{font-family:sans-serif;margin:2em}}td,th{{border-bottom:1px solid #ccc;padding:.4em;
vertical-align:top;text-align:left}}pre{{margin:0;white-space:pre-wrap}}</style></head><body>
<h1>sbert-workbook — executed notebooks</h1>
<p>Profile: <b>{html.escape(profile)}</b>. Total runtime {total / 60:.1f} min on {html.escape(machine)}.
Numbers come from these runs;
the paper's figures are shown beside ours inside each notebook.</p>
<table><tr><th>notebook</th><th>runtime</th><th>status</th><th>headline results</th></tr>
{''.join(rows)}</table></body></html>"""
    index = out / "index.html"
    index.write_text(page, encoding="utf8")
    (out / "index.json").write_text(json.dumps(
        [{"notebook": r.path.name, "seconds": round(r.seconds, 1), "error": r.error,
          "headlines": r.headlines} for r in results], indent=2))
    return index


def data_ready() -> bool:
    """True if the data the notebooks read is found; else say what is missing and how to provide it
    (instead of thirteen notebooks failing one after another)."""
    from .environment import check_data, report
    missing = [row for row in check_data() if not row[0]]
    if missing:
        report(missing)
        print("The notebooks need these data sets. Point SBERTLIB_DATA_DIR at a folder that holds them\n"
              "(see data/README.md: layout, sources and licences), e.g.\n"
              "    SBERTLIB_DATA_DIR=/path/to/shared/data make workbook\n"
              "or, with internet, download them first: python -m sbertlib fetch", file=sys.stderr)
    return not missing


def build(out: Path, profile, only: set[str] | None = None, timeout: int = 1800) -> list[notebooks.RunResult]:
    """Run the notebooks (all, or those numbered in ``only``) on ``profile`` into ``out``: executed
    ``.ipynb`` and ``.html`` per notebook and ``index.html``. Returns one result per notebook."""
    out.mkdir(parents=True, exist_ok=True)
    env = {"SBERTLIB_PROFILE": profile.name, "SBERTLIB_OUTPUT_DIR": str(out.resolve() / "runs"),
           "TQDM_DISABLE": "1", "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    paths = [p for p in notebooks.notebook_paths() if not only or p.name[:2] in only]
    results = []
    for path in paths:
        print(f"running {path.name} on profile {profile.name} ...", flush=True)
        nb, res = notebooks.execute(path, timeout=timeout, env=env)
        nbformat.write(nb, out / path.name)
        write_html(nb, out / f"{path.stem}.html")
        print(f"  {res.seconds:.0f} s {'ok' if res.error is None else 'FAILED: ' + res.error}", flush=True)
        results.append(res)
    print(f"index: {write_index(results, profile.name, out)}")
    return results
