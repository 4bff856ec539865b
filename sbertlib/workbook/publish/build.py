"""What ``python -m sbertlib build`` (``make workbook``, :mod:`sbertlib.cli.build`) runs: each notebook in a fresh
kernel (:func:`.notebooks.execute`), ``index.json`` with its runtime, status and headlines, and the course site."""
from __future__ import annotations

import html
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat

from . import notebooks
from .figalt import kernel_config_dir
from .site import SITE_DIR


def machine_line() -> str:
    """Where the numbers were produced: device, threads, CPUs, torch, date."""
    from datetime import datetime

    from ...evaluation.speed import environment
    env = environment()
    return (f"{env['device']}, {env['threads']} torch threads, {os.cpu_count()} CPUs, torch {env['torch']}; "
            f"{datetime.now():%Y-%m-%d %H:%M}")


def write_index(results: list[notebooks.RunResult], profile: str, out: Path, machine: str,
                dry_run: bool = False) -> Path:
    """``out/index.json`` (runtime, status, headlines per notebook; ``dry_run``) and ``out/index.html``,
    which opens the course site's landing page."""
    (out / "index.json").write_text(json.dumps(
        {"profile": profile, "dry_run": dry_run, "machine": machine,
         "total_seconds": round(sum(r.seconds for r in results), 1),
         "notebooks": [{"notebook": r.path.name, "seconds": round(r.seconds, 1), "error": r.error,
                        "headlines": r.headlines} for r in results]}, indent=2))
    index = out / "index.html"
    target = f"{SITE_DIR}/index.html"
    index.write_text(f"""<!doctype html><html><head><meta charset="utf-8"><title>sbert-workbook</title>
<meta http-equiv="refresh" content="0; url={target}"><link rel="icon" href="{SITE_DIR}/_static/favicon.svg"></head>
<body><p>The course site: <a href="{target}">{target}</a> (profile {html.escape(profile)}).</p></body></html>""",
                     encoding="utf8")
    return index


def data_ready() -> bool:
    """True if the data the notebooks read is found; else say what is missing and how to provide it
    (instead of thirteen notebooks failing one after another)."""
    from ..environment import check_data, report
    missing = [row for row in check_data() if not row[0]]
    if missing:
        report(missing)
        print("The notebooks need these data sets. Point SBERTLIB_DATA_DIR at a folder that holds them\n"
              "(see data/README.md: layout, sources and licences), e.g.\n"
              "    SBERTLIB_DATA_DIR=/path/to/shared/data make workbook\n"
              "or, with internet, download them first: python -m sbertlib fetch", file=sys.stderr)
    return not missing


def build(out: Path, profile, only: set[str] | None = None, timeout: int = 1800) -> list[notebooks.RunResult]:
    """Run the notebooks (all, or those numbered in ``only``) on ``profile`` into ``out``: the executed
    ``.ipynb`` of each, the course site built from them (``out/site``, see :mod:`.site`) and
    ``index.html`` opening it. Returns one result per notebook."""
    from .site import build_site   # looked up here: tests replace it
    out.mkdir(parents=True, exist_ok=True)
    from ..profiles import DRY_RUN_BANNER, DRY_RUN_ENV
    env = {"SBERTLIB_PROFILE": profile.name, "SBERTLIB_OUTPUT_DIR": str(out.resolve() / "runs"),
           DRY_RUN_ENV: "1" if profile.dry_run else "", "TQDM_DISABLE": "1",
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    label = f"{profile.name} [{DRY_RUN_BANNER}]" if profile.dry_run else profile.name   # as the index and site say it
    paths = [p for p in notebooks.notebook_paths() if not only or p.name[:2] in only]
    results = []
    with tempfile.TemporaryDirectory(prefix="sbert-ipython-") as ipython_dir:
        # the kernels record each figure's titles as its alt text for the site (see .figalt)
        env["IPYTHONDIR"] = kernel_config_dir(ipython_dir)
        for path in paths:
            print(f"running {path.name} on profile {label} ...", flush=True)
            nb, res = notebooks.execute(path, timeout=timeout, env=env)
            nbformat.write(nb, out / path.name)
            print(f"  {res.seconds:.0f} s {'ok' if res.error is None else 'FAILED: ' + res.error}", flush=True)
            results.append(res)
    machine = machine_line()
    index = write_index(results, label, out, machine, profile.dry_run)  # the site's syllabus reads its timings
    site = build_site([out / p.name for p in paths], results, out, label, machine)
    print(f"course site: {site}\nindex: {index}")
    return results
