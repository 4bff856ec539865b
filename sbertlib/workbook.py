"""``make workbook``: execute every notebook headlessly into ``build/`` with an HTML index.

    python -m sbertlib.workbook --out build [--profile offline] [--only 01,04]

Each notebook is run in a fresh kernel on the chosen profile (default: auto-selected), saved
executed as .ipynb and .html, and listed in ``build/index.html`` with its runtime, status and
headline results. Exits non-zero if any notebook failed.
"""
from __future__ import annotations

import argparse
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

    from .speed import environment
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
    from .envcheck import check_data, report
    missing = [row for row in check_data() if not row[0]]
    if missing:
        report(missing)
        print("The notebooks need these data sets. Point SBERTLIB_DATA_DIR at a folder that holds them\n"
              "(see data/README.md: layout, sources and licences), e.g.\n"
              "    SBERTLIB_DATA_DIR=/path/to/shared/data make workbook\n"
              "or, with internet, download them first: python -m sbertlib.fetch", file=sys.stderr)
    return not missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sbertlib.workbook", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build")
    ap.add_argument("--profile", default=None, help="smoke | offline | laptop | paper (default: auto)")
    ap.add_argument("--only", default=None, help="comma-separated notebook numbers, e.g. 00,03")
    ap.add_argument("--timeout", type=int, default=1800, help="per-cell timeout in seconds")
    ap.add_argument("--skip-data-check", action="store_true", help="run even if data sets are missing")
    args = ap.parse_args(argv)

    if not args.skip_data_check and not data_ready():
        return 2

    from .profiles import get_profile
    profile = get_profile(args.profile)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {"SBERTLIB_PROFILE": profile.name, "SBERTLIB_OUTPUT_DIR": str(out.resolve() / "runs"),
           "TQDM_DISABLE": "1", "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    paths = notebooks.notebook_paths()
    if args.only:
        wanted = {w.strip() for w in args.only.split(",")}
        paths = [p for p in paths if p.name[:2] in wanted]
    results = []
    for path in paths:
        print(f"running {path.name} on profile {profile.name} ...", flush=True)
        nb, res = notebooks.execute(path, timeout=args.timeout, env=env)
        nbformat.write(nb, out / path.name)
        write_html(nb, out / f"{path.stem}.html")
        print(f"  {res.seconds:.0f} s {'ok' if res.error is None else 'FAILED: ' + res.error}", flush=True)
        results.append(res)
    index = write_index(results, profile.name, out)
    print(f"index: {index}")
    return 0 if all(r.error is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
