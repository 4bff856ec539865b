"""Sizing a class on one server: peak memory and minutes per notebook, and N students at once.

    python benchmarks/class_sizing.py --profile smoke --alone 00-14 --students 1,2,4,8 --json smoke.json
    python benchmarks/class_sizing.py --profile offline --alone 02-06 --students 1,2 --json offline.json

Every simulated student has a fresh output folder of their own (``SBERTLIB_OUTPUT_DIR``, a temporary
folder), as on a shared JupyterHub server where each student trains their own runs, and works through
the notebooks in course order in that folder, each notebook in a fresh kernel (executed headlessly with
nbclient by :func:`sbertlib.workbook.publish.notebooks.execute`, with the kernel environment ``make workbook``
gives). So a notebook that reuses a model an earlier one trained (``runs.trained_model``: train or
load) loads it, as it would for a student who went in order.

``--alone NB``: one student runs the notebooks ``NB`` (``02-06``, ``00,04``) in order, nothing else
running: seconds and peak memory per notebook. ``--cold``: a fresh output folder per notebook instead
(each notebook trains whatever it needs itself: the cost for a student who skips ahead).

``--shared-runs DIR``: the class's store of the lecturer's runs (``$SBERTLIB_SHARED_RUNS``, README's JupyterHub
step 4) in every kernel: a library run whose recipe is the store's is loaded, not trained.

``--students 1,2,4,8``: for each N, N students start the path (``--path``, default 02-06) at the same
moment, each in its own process, kernel(s) and output folder: minutes per student, the peak memory of
all their kernels together, and the slowdown against one student alone (N=1).

Memory is sampled every ``--interval`` seconds (default 0.2) with psutil: a kernel's resident set
(RSS) summed over the kernel and its children, and the kernel's own ``VmHWM`` (its RSS high-water
mark, kept by Linux, so no peak between samples is missed; read at each sample, so only the last
fraction of a second before the kernel exits can escape it). For N students together: the sum of all
kernels' RSS at one moment (conservative: the pages of shared libraries count once per kernel), the
sum of their PSS (shared pages split between the processes that share them: what they really occupy;
sampled every second, reading ``smaps_rollup`` costs more) and the machine's used memory
(``MemTotal - MemAvailable``) above what it was before the run, which includes this harness's own
processes (one Python process per student holding torch, standing in for the student's Jupyter server).

Prints Markdown tables and writes everything to ``--json``. Run it alone on the machine (the course
machines: ``flock /tmp/sbert-heavy.lock python benchmarks/class_sizing.py ...``); the load average
before the run is recorded.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from the checkout
    sys.path.insert(0, str(ROOT))

GiB, MiB = 2 ** 30, 2 ** 20  # memory in binary units, as free(1) and most hosting offers count it


# ----------------------------------------------------------------------------- the machine
def machine() -> dict:
    """CPU model (from /proc/cpuinfo), cores, memory, load, OS and versions: where the figures come from."""
    model = platform.processor() or platform.machine()
    flags: set[str] = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model in ("", platform.machine(), platform.processor()):
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    isa = [f for f in ("amx_bf16", "avx512_bf16", "avx512f", "avx2") if f in flags]
    import torch
    return {"cpu": model, "isa": isa, "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "memory_gib": round(psutil.virtual_memory().total / GiB, 1),
            "available_gib_before": round(psutil.virtual_memory().available / GiB, 1),
            "load_before": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "torch": torch.__version__, "os": platform.platform(),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def machine_text(m: dict) -> str:
    isa = f" ({', '.join(m['isa'])})" if m["isa"] else ""
    return (f"{m['cpu']}{isa}, {m['cores']} cores, {m['memory_gib']} GiB memory, torch {m['torch']}, "
            f"Python {m['python']}; {m['date']}; load average before the run {m['load_before'][0]:.2f} "
            f"(1 min) / {m['load_before'][1]:.2f} (5 min)")


# ----------------------------------------------------------------------------- notebooks
def parse_notebooks(spec: str) -> list[str]:
    """``"02-06"`` → ``["02", ..., "06"]``; ``"00,04,10-11"`` → ``["00", "04", "10", "11"]``; ``""`` → []."""
    out: list[str] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        lo, _, hi = part.partition("-")
        out += [f"{i:02d}" for i in range(int(lo), int(hi or lo) + 1)]
    return out


def notebook_paths(numbers: list[str], folder: Path | None = None) -> list[Path]:
    """The workbook's notebooks numbered ``numbers``, in that order; exits naming any that is missing."""
    from sbertlib.workbook.publish import notebooks
    found = {p.name[:2]: p for p in notebooks.notebook_paths(*([folder] if folder else []))}
    missing = [n for n in numbers if n not in found]
    if missing:
        sys.exit(f"class_sizing: no notebook numbered {', '.join(missing)} in {folder or notebooks.NOTEBOOK_DIR}")
    return [found[n] for n in numbers]


def kernel_env(profile_name: str, output_dir: Path, ipython_dir: str, threads: int | None = None) -> dict:
    """The kernel environment ``sbertlib.workbook.publish.build.build`` gives, with this student's output folder;
    ``threads``: the kernel's torch (OpenMP, MKL) threads, as a spawner's ``OMP_NUM_THREADS`` sets them
    (default: torch's own choice, one per core)."""
    from sbertlib.workbook.profiles import DRY_RUN_ENV
    limit = {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)} if threads else {}
    return {**limit, "SBERTLIB_PROFILE": profile_name, "SBERTLIB_OUTPUT_DIR": str(output_dir), DRY_RUN_ENV: "",
            "TQDM_DISABLE": "1", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "IPYTHONDIR": ipython_dir}


# ----------------------------------------------------------------------------- memory sampling
def _vm_hwm(pid: int) -> int:
    """The process's RSS high-water mark in bytes (``VmHWM`` in /proc/PID/status), 0 if unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def tree(pid: int, include_self: bool = True) -> list[psutil.Process]:
    """The process ``pid`` and all its live descendants (or only the descendants); exited kernels not
    yet reaped (zombies) are left out."""
    def alive(p: psutil.Process) -> bool:
        try:
            return p.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False
    try:
        p = psutil.Process(pid)
        return [q for q in ([p] if include_self else []) + p.children(recursive=True) if alive(q)]
    except psutil.Error:
        return []


def rss(procs: list[psutil.Process]) -> int:
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def pss(procs: list[psutil.Process]) -> int:
    total = 0
    for p in procs:
        try:
            total += p.memory_full_info().pss
        except (psutil.Error, AttributeError):
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
    return total


class KernelSampler(threading.Thread):
    """In a student's process: samples its kernels (its child processes) every ``interval`` s and keeps,
    for the notebook now running (``current``), the peak RSS of the kernel tree, the kernel's VmHWM and
    the RSS at the last sample (what the kernel still holds when its notebook has run)."""

    def __init__(self, interval: float):
        super().__init__(daemon=True)
        self.interval, self.current, self.stats = interval, None, {}
        self.stop = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(self.interval):
            key = self.current
            if key is None:
                continue
            kids = tree(me, include_self=False)
            if not kids:
                continue
            now = rss(kids)
            if not now:
                continue
            hwm = max((_vm_hwm(p.pid) for p in kids), default=0)
            s = self.stats.setdefault(key, {"peak_rss": 0, "vm_hwm": 0, "end_rss": 0, "samples": 0})
            s["peak_rss"], s["vm_hwm"] = max(s["peak_rss"], now), max(s["vm_hwm"], hwm)
            s["end_rss"], s["samples"] = now, s["samples"] + 1


def _cpu(p: psutil.Process) -> float:
    try:
        t = p.cpu_times()
        return t.user + t.system
    except psutil.Error:
        return 0.0


def busy_seconds() -> float:
    """CPU seconds all cores have spent busy since boot (everything but idle and iowait)."""
    t = psutil.cpu_times()
    return sum(getattr(t, f) for f in ("user", "nice", "system", "irq", "softirq", "steal") if hasattr(t, f))


class MachineSampler(threading.Thread):
    """In the runner: every ``interval`` s, the RSS of all the students' kernels together (descendants
    of the student processes, less the student processes themselves), every ``pss_every`` samples their
    PSS, and the machine's used memory; keeps the peaks."""

    def __init__(self, pids: list[int], interval: float, pss_every: int = 5):
        super().__init__(daemon=True)
        self.pids, self.interval, self.pss_every = pids, interval, pss_every
        self.stop = threading.Event()
        self.peak_kernels_rss = self.peak_kernels_pss = self.peak_all_rss = self.peak_used = 0
        self.samples, self.peak_load = 0, 0.0
        self.cpu = {}  # pid -> its CPU seconds at the last sample: ours, kernels included
        self.cpu_before = {p.pid: _cpu(p) for pid in pids for p in tree(pid)}  # spent before the run
        self.busy_start, self.busy_end = busy_seconds(), None

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            students = [p for pid in self.pids for p in tree(pid, include_self=True)]
            for p in students:
                self.cpu[p.pid] = _cpu(p) or self.cpu.get(p.pid, 0.0)
            self.peak_load = max(self.peak_load, os.getloadavg()[0])
            kernels = [p for p in students if p.pid not in self.pids]
            self.peak_kernels_rss = max(self.peak_kernels_rss, rss(kernels))
            self.peak_all_rss = max(self.peak_all_rss, rss(students))
            if self.samples % self.pss_every == 0:
                self.peak_kernels_pss = max(self.peak_kernels_pss, pss(kernels))
            vm = psutil.virtual_memory()
            self.peak_used = max(self.peak_used, vm.total - vm.available)
            self.samples += 1
        self.busy_end = busy_seconds()

    def others_share(self, seconds: float) -> float:
        """The machine's busy CPU time in the run not spent by the students' processes, as a share of
        all cores x ``seconds``: how much other work shared the machine (0 = none)."""
        ours = sum(self.cpu.values()) - sum(self.cpu_before.values())
        others = (self.busy_end or busy_seconds()) - self.busy_start - ours
        return max(0.0, others) / (seconds * (os.cpu_count() or 1))


# ----------------------------------------------------------------------------- one student
def run_student(profile_name: str, numbers: list[str], output_dir: Path, interval: float, cold: bool = False,
                timeout: int = 3600, folder: Path | None = None, start_at: float | None = None,
                threads: int | None = None) -> dict:
    """One student: the notebooks ``numbers`` in order, each in a fresh kernel, in ``output_dir`` (a fresh
    subfolder per notebook if ``cold``). Returns per-notebook seconds, errors and memory; ``start_at``
    (a ``time.time()``) makes concurrent students start at the same moment."""
    from sbertlib.workbook.publish import notebooks
    from sbertlib.workbook.publish.figalt import kernel_config_dir

    paths = notebook_paths(numbers, folder)
    sampler = KernelSampler(interval)
    sampler.start()
    rows = []
    if start_at is not None:
        time.sleep(max(0.0, start_at - time.time()))
    begin = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sbert-ipython-") as ipython_dir:
        ipython = kernel_config_dir(ipython_dir)  # the build's kernel config (figure alt texts)
        for n, path in zip(numbers, paths):
            out = output_dir / n if cold else output_dir
            out.mkdir(parents=True, exist_ok=True)
            sampler.current = n
            _, res = notebooks.execute(path, timeout=timeout, env=kernel_env(profile_name, out, ipython, threads))
            sampler.current = None
            mem = sampler.stats.get(n, {"peak_rss": 0, "vm_hwm": 0, "end_rss": 0, "samples": 0})
            rows.append({"notebook": path.name, "number": n, "seconds": round(res.seconds, 2), "error": res.error,
                         "peak_rss_mib": round(mem["peak_rss"] / MiB), "vm_hwm_mib": round(mem["vm_hwm"] / MiB),
                         "end_rss_mib": round(mem["end_rss"] / MiB), "samples": mem["samples"]})
            print(f"  [{os.getpid()}] {path.name}: {res.seconds:.1f} s, peak {max(mem['peak_rss'], mem['vm_hwm']) / MiB:.0f} MiB"
                  f"{'' if res.error is None else ', FAILED: ' + res.error}", file=sys.stderr, flush=True)
    sampler.stop.set()
    return {"seconds": round(time.perf_counter() - begin, 2), "notebooks": rows,
            "process_rss_mib": round(psutil.Process().memory_info().rss / MiB)}


def student_peak_mib(row: dict) -> int:
    """A notebook's peak: the larger of the sampled kernel-tree RSS and the kernel's VmHWM."""
    return max(row["peak_rss_mib"], row["vm_hwm_mib"])


# ----------------------------------------------------------------------------- N students at once
def run_class(profile_name: str, numbers: list[str], n: int, interval: float, timeout: int,
              workdir: Path, folder: Path | None = None, threads: int | None = None) -> dict:
    """N students at once, each its own process (``--_student``) with its own output folder; they start
    at the same moment. Returns each student's result and the machine's memory peaks."""
    vm = psutil.virtual_memory()
    used_before, begin = vm.total - vm.available, time.perf_counter()
    start_at = time.time() + 3.0 + 0.5 * n  # all have imported sbertlib by then
    procs = []
    for i in range(n):
        out, result = workdir / f"student{i + 1}", workdir / f"student{i + 1}.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--_student", str(result), "--profile", profile_name,
               "--path", ",".join(numbers), "--output-dir", str(out), "--interval", str(interval),
               "--timeout", str(timeout), "--start-at", str(start_at)] + (["--notebook-dir", str(folder)] if folder else []) \
            + (["--threads", str(threads)] if threads else [])
        procs.append((subprocess.Popen(cmd), result))
    sampler = MachineSampler([p.pid for p, _ in procs], interval)
    sampler.start()
    codes = [p.wait() for p, _ in procs]
    sampler.stop.set()
    sampler.join()
    students = []
    for code, (_, result) in zip(codes, procs):
        if code != 0 or not result.is_file():
            sys.exit(f"class_sizing: a simulated student exited with status {code}")
        students.append(json.loads(result.read_text()))
    return {"n": n, "students": students, **machine_peaks(sampler, used_before, time.perf_counter() - begin)}


def machine_peaks(sampler: MachineSampler, used_before: int, seconds: float) -> dict:
    return {"peak_load_1min": round(sampler.peak_load, 2),
            "others_cpu_share": round(sampler.others_share(seconds), 3),"peak_kernels_rss_mib": round(sampler.peak_kernels_rss / MiB),
            "peak_kernels_pss_mib": round(sampler.peak_kernels_pss / MiB),
            "peak_with_harness_rss_mib": round(sampler.peak_all_rss / MiB),
            "peak_used_above_before_mib": round((sampler.peak_used - used_before) / MiB),
            "used_before_mib": round(used_before / MiB), "samples": sampler.samples}


def run_alone(profile_name: str, numbers: list[str], output_dir: Path, interval: float, cold: bool,
              timeout: int, folder: Path | None, threads: int | None = None) -> dict:
    """One student in this process, nothing else running; with the machine's peaks as for N students."""
    vm = psutil.virtual_memory()
    used_before, begin = vm.total - vm.available, time.perf_counter()
    sampler = MachineSampler([os.getpid()], interval)
    sampler.start()
    result = run_student(profile_name, numbers, output_dir, interval, cold=cold, timeout=timeout, folder=folder,
                         threads=threads)
    sampler.stop.set()
    sampler.join()
    return {**result, **machine_peaks(sampler, used_before, time.perf_counter() - begin)}


# ----------------------------------------------------------------------------- reports
def minutes(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def alone_table(result: dict) -> str:
    lines = ["| notebook | seconds | peak memory, MiB (kernel RSS high-water mark) | held at the end, MiB | status |",
             "|---|---:|---:|---:|---|"]
    for r in result["notebooks"]:
        lines.append(f"| {r['notebook'].removesuffix('.ipynb')} | {r['seconds']:.0f} | {student_peak_mib(r):,} | "
                     f"{r['end_rss_mib']:,} | {'ok' if r['error'] is None else 'FAILED: ' + r['error']} |")
    total = sum(r["seconds"] for r in result["notebooks"])
    peak = max((student_peak_mib(r) for r in result["notebooks"]), default=0)
    lines.append(f"| **all {len(result['notebooks'])}** | **{total:.0f}** ({minutes(total)}) | **{peak:,}** (largest) | "
                 f"{sum(r['end_rss_mib'] for r in result['notebooks']):,} (sum) | |")
    return "\n".join(lines)


def class_rows(runs: list[dict]) -> list[dict]:
    """Per N: minutes per student (mean, slowest), slowdown against N=1, memory peaks."""
    base = None
    rows = []
    for run in runs:
        secs = [s["seconds"] for s in run["students"]]
        mean = sum(secs) / len(secs)
        if run["n"] == 1:
            base = mean
        per_student_peak = max(student_peak_mib(r) for s in run["students"] for r in s["notebooks"])
        failed = sum(r["error"] is not None for s in run["students"] for r in s["notebooks"])
        rows.append({"n": run["n"], "mean_seconds": round(mean, 1), "slowest_seconds": round(max(secs), 1),
                     "mean_minutes": round(mean / 60, 2), "slowest_minutes": round(max(secs) / 60, 2),
                     "slowdown": round(mean / base, 2) if base else None,
                     "peak_kernels_rss_mib": run["peak_kernels_rss_mib"], "peak_kernels_pss_mib": run["peak_kernels_pss_mib"],
                     "peak_used_above_before_mib": run["peak_used_above_before_mib"],
                     "peak_one_kernel_mib": per_student_peak, "failed_notebooks": failed,
                     "peak_load_1min": run.get("peak_load_1min"), "others_cpu_share": run.get("others_cpu_share")})
    return rows


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.0f}%"


def class_table(rows: list[dict]) -> str:
    lines = ["| students at once | time per student (mean) | slowest student | slowdown vs 1 | peak of all kernels, RSS MiB "
             "| same, PSS MiB | machine's used memory above idle, MiB | largest single kernel, MiB | failed notebooks "
             "| other work's share of the CPU | peak load (1 min) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        slow = f"{r['slowdown']:.2f}×" if r["slowdown"] else "—"
        lines.append(f"| {r['n']} | {minutes(r['mean_seconds'])} | {minutes(r['slowest_seconds'])} | {slow} | "
                     f"{r['peak_kernels_rss_mib']:,} | {r['peak_kernels_pss_mib']:,} | {r['peak_used_above_before_mib']:,} | "
                     f"{r['peak_one_kernel_mib']:,} | {r['failed_notebooks']} | {_pct(r['others_cpu_share'])} | "
                     f"{r['peak_load_1min'] if r['peak_load_1min'] is not None else '—'} |")
    return "\n".join(lines)


def fit(rows: list[dict], alone: dict | None, server_gib: float, headroom_gib: float, wait_minutes: float) -> dict:
    """How many students fit: by memory, (server - headroom) / the peak per student; by time, the largest
    N measured whose slowest student's path still finished within ``wait_minutes``."""
    per_student = max((r["peak_one_kernel_mib"] for r in rows), default=0)
    if alone and alone.get("notebooks"):
        per_student = max(per_student, max(student_peak_mib(r) for r in alone["notebooks"]))
    by_memory = int((server_gib - headroom_gib) * 1024 // per_student) if per_student else None
    in_time = [r["n"] for r in rows if r["slowest_minutes"] <= wait_minutes]
    return {"per_student_peak_mib": per_student, "by_memory": by_memory, "server_gib": server_gib,
            "headroom_gib": headroom_gib, "wait_minutes": wait_minutes,
            "largest_measured_n_in_time": max(in_time) if in_time else None}


# ----------------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="smoke", help="workbook profile (smoke, offline, ...); default smoke")
    ap.add_argument("--alone", default="", help="notebooks to time one by one, e.g. 00-14 or 02-06 (default: none)")
    ap.add_argument("--cold", action="store_true", help="--alone: a fresh output folder per notebook")
    ap.add_argument("--students", default="", help="numbers of students at once, e.g. 1,2,4,8 (default: none)")
    ap.add_argument("--path", default="02-06", help="the notebooks each student works through (default 02-06)")
    ap.add_argument("--threads", type=int, help="torch threads per kernel (OMP_NUM_THREADS); default: one per core")
    ap.add_argument("--interval", type=float, default=0.2, help="memory sampling interval in seconds (default 0.2)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds a cell may run (default 3600)")
    ap.add_argument("--server-gib", type=float, default=24.0, help="the server's memory (default 24)")
    ap.add_argument("--headroom-gib", type=float, default=4.0,
                    help="memory kept back for the OS, JupyterHub and each student's Jupyter server (default 4)")
    ap.add_argument("--wait-minutes", type=float, default=15.0,
                    help="the most a student's path may take, all computing (default 15: waiting in a 90-minute lab)")
    ap.add_argument("--shared-runs", help="the class's store of the lecturer's runs ($SBERTLIB_SHARED_RUNS, filled "
                    "by `python -m sbertlib train ... --output-dir DIR --reuse`): every student's kernel loads from it")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--keep", help="keep the students' output folders under this folder (default: temporary)")
    # internal: one simulated student, run by the runner in its own process
    ap.add_argument("--_student", help=argparse.SUPPRESS)
    ap.add_argument("--output-dir", help=argparse.SUPPRESS)
    ap.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--notebook-dir", help=argparse.SUPPRESS)  # tests: another notebook folder
    args = ap.parse_args(argv)
    folder = Path(args.notebook_dir) if args.notebook_dir else None
    if args._student:
        result = run_student(args.profile, parse_notebooks(args.path), Path(args.output_dir), args.interval,
                             timeout=args.timeout, folder=folder, start_at=args.start_at, threads=args.threads)
        Path(args._student).write_text(json.dumps(result, indent=1))
        return 0

    from sbertlib.workbook.profiles import get_profile
    get_profile(args.profile)  # an unknown profile fails here, not in every kernel
    if args.shared_runs:   # inherited by every student's process and kernel
        from sbertlib import places
        os.environ[places.SHARED_RUNS_ENV] = str(Path(args.shared_runs).resolve())
    alone_nb, path, counts = parse_notebooks(args.alone), parse_notebooks(args.path), [int(x) for x in args.students.split(",") if x.strip()]
    notebook_paths(alone_nb + path, folder)
    m = machine()
    print(f"# Class sizing, profile {args.profile}\n\nMachine: {machine_text(m)}\n", flush=True)
    print(f"Torch threads per kernel: {args.threads or 'torch default (one per core)'}\n", flush=True)
    print(f"The lecturer's shared runs: {args.shared_runs or 'none (every student trains every run)'}\n", flush=True)
    report: dict = {"profile": args.profile, "machine": m, "threads_per_kernel": args.threads, "shared_runs": args.shared_runs, "command": " ".join([Path(sys.argv[0]).name] + (argv or sys.argv[1:])),
                    "sampling": {"interval_s": args.interval, "peak": "max of the kernel tree's sampled RSS and the "
                                 "kernel's VmHWM (/proc/PID/status); PSS every 5th sample"}}
    with tempfile.TemporaryDirectory(prefix="sbert-class-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if alone_nb:
            print(f"one student alone, notebooks {args.alone} in order"
                  f"{', a fresh output folder each (--cold)' if args.cold else ', one output folder'} ...", flush=True)
            alone = run_alone(args.profile, alone_nb, work / "alone", args.interval, args.cold, args.timeout, folder,
                              args.threads)
            alone["load_after"] = [round(x, 2) for x in os.getloadavg()]
            report["alone"] = alone
            print("\n" + alone_table(alone) + "\n", flush=True)
            print(f"Other work's share of the CPU during the run: {_pct(alone['others_cpu_share'])}; peak load "
                  f"average (1 min) {alone['peak_load_1min']}.\n", flush=True)
        runs = []
        if alone_nb == path and not args.cold and 1 not in counts:
            # the alone run is one student on the path: it is N=1
            runs.append({"n": 1, "from": "--alone", "students": [alone],
                         **{k: v for k, v in alone.items() if k.startswith(("peak_", "used_", "samples", "others_"))}})
        for n in counts:
            print(f"{n} student(s) at once, each notebooks {args.path} in order ... (load {os.getloadavg()[0]:.2f})",
                  flush=True)
            run = run_class(args.profile, path, n, args.interval, args.timeout, work / f"class{n}", folder, args.threads)
            run["load_after"] = [round(x, 2) for x in os.getloadavg()]
            runs.append(run)
            print("\n" + class_table(class_rows(runs)) + "\n", flush=True)
        if runs:
            report["class"] = {"path": path, "runs": runs, "table": class_rows(runs)}
            per_nb = {}
            for run in runs:
                for s in run["students"]:
                    for r in s["notebooks"]:
                        per_nb.setdefault((run["n"], r["number"]), []).append(r["seconds"])
            report["class"]["per_notebook_mean_seconds"] = {f"{n}:{nb}": round(sum(v) / len(v), 1)
                                                            for (n, nb), v in per_nb.items()}
            sizing = fit(report["class"]["table"], report.get("alone"), args.server_gib, args.headroom_gib,
                         args.wait_minutes)
            one = next((r for r in runs if r["n"] == 1), runs[0])
            # a student who leaves every notebook's kernel running holds them all: their end-of-run RSS summed
            sizing["open_all_mib"] = sum(r["end_rss_mib"] for r in one["students"][0]["notebooks"])
            report["fit"] = sizing
            print(f"Per student: at most {sizing['per_student_peak_mib']:,} MiB (the largest kernel peak measured; one "
                  f"notebook's kernel at a time). Memory: ({args.server_gib:g} GiB - {args.headroom_gib:g} GiB headroom) / "
                  f"{sizing['per_student_peak_mib']:,} MiB = {sizing['by_memory']} students. A student who leaves all "
                  f"{len(path)} kernels of {args.path} running holds about {sizing['open_all_mib']:,} MiB.")
            print(f"Time (rule: the slowest student's {args.path}, all computing, within {args.wait_minutes:g} min): "
                  f"largest N measured that does: {sizing['largest_measured_n_in_time']}.")
    report["load_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
