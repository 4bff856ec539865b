"""Where a notebook's kernel memory goes: the resident set after each code cell, and the largest objects the
notebook's namespace holds at the end (issue 39: "a lighter kernel").

    python benchmarks/kernel_memory.py 03 --profile offline [--json out.json]

Runs the lecturer's notebook's code cells in order in one IPython shell in this process (as a kernel does), in a
fresh output folder (a student who reaches the notebook in order, having trained nothing before), and prints: per cell,
seconds, the resident set after it (RSS) and its growth, and the process's high-water mark (``VmHWM``); then the
namespace's objects by size (a model's parameters and buffers, an array's or tensor's bytes, a table's memory). Run it
alone on the machine: the figures are this process's, imports and all.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIB = 2 ** 20


def _hwm_mib() -> float:
    """This process's resident high-water mark (Linux ``VmHWM``), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _nbytes(value) -> int:
    """The bytes ``value`` holds in numbers: a module's parameters and buffers, a tensor, an array, a table."""
    import numpy as np
    import torch
    if isinstance(value, torch.nn.Module):
        return sum(t.numel() * t.element_size() for t in [*value.parameters(), *value.buffers()])
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, np.ndarray):
        return value.nbytes
    if hasattr(value, "memory_usage") and hasattr(value, "columns"):
        return int(value.memory_usage(deep=True).sum())
    if hasattr(value, "model") and isinstance(getattr(value, "model"), torch.nn.Module):   # a loss holding a model
        return _nbytes(value.model)
    return 0


def run(number: str, profile: str) -> dict:
    """Each code cell's seconds and memory, and the namespace's largest objects, for notebook ``number``."""
    import nbformat
    import psutil
    from IPython.core.interactiveshell import InteractiveShell
    path = next((ROOT / "notebooks").glob(f"{number}_*.ipynb"))
    os.environ.update(SBERTLIB_PROFILE=profile, MPLBACKEND="Agg", TQDM_DISABLE="1",
                      SBERTLIB_OUTPUT_DIR=tempfile.mkdtemp(prefix="sbert-memory-"))
    os.chdir(path.parent)
    shell, me = InteractiveShell.instance(), psutil.Process()
    cells = []
    for k, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        before, t = me.memory_info().rss / MIB, time.perf_counter()
        source = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%matplotlib"))
        result = shell.run_cell(source, silent=True)   # (no inline backend outside a kernel: MPLBACKEND=Agg)
        after = me.memory_info().rss / MIB
        first = next((line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")), "")
        cells.append({"cell": k, "first_line": first[:70], "seconds": round(time.perf_counter() - t, 1),
                      "rss_mib": round(after), "growth_mib": round(after - before), "hwm_mib": round(_hwm_mib()),
                      "error": None if result.success else repr(result.error_in_exec or result.error_before_exec)})
        if not result.success:
            break
    objects = sorted(((name, _nbytes(v) / MIB, type(v).__name__) for name, v in shell.user_ns.items()
                      if not name.startswith("_")), key=lambda x: -x[1])
    return {"notebook": path.name, "profile": profile, "cells": cells,
            "objects": [{"name": n, "mib": round(m, 1), "type": t} for n, m, t in objects if m >= 1]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("number", help="the notebook's number, e.g. 03")
    ap.add_argument("--profile", default="offline")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    from sbertlib.model.hardware import cpu_name
    report = run(args.number, args.profile)
    print(f"# Kernel memory, notebook {report['notebook']}, profile {args.profile}; {cpu_name()}\n")
    print("| cell | first line | seconds | RSS after, MiB | growth | high-water mark |\n|---:|---|---:|---:|---:|---:|")
    for c in report["cells"]:
        print(f"| {c['cell']} | `{c['first_line']}` | {c['seconds']} | {c['rss_mib']:,} | {c['growth_mib']:+,} | "
              f"{c['hwm_mib']:,} |" + (f" ERROR {c['error']}" if c["error"] else ""))
    print("\n| object at the end | MiB | type |\n|---|---:|---|")
    for o in report["objects"][:15]:
        print(f"| {o['name']} | {o['mib']:,} | {o['type']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if any(c["error"] for c in report["cells"]) else 0


if __name__ == "__main__":
    sys.exit(main())
