"""A class on one server, for real: JupyterHub, two Unix students, one read-only install, a browser.

The module's fixture sets up what a lecturer sets up (needs root and ``useradd``; elsewhere every
test here skips, saying why):

1. **one install no student can write**: a virtual environment in a root-owned folder (mode 755)
   made from a Python every user can run (``/usr/bin/python3.X`` where the test's own interpreter
   sits under a private ``/root``), holding this checkout's packages (hard links to ``.venv``'s,
   copied where links cannot be made) and a *copy* of ``sbertlib`` (not the editable link);
2. **one shared, read-only Hugging Face cache** filled by the lecturer's ``python -m sbertlib fetch
   --profile smoke`` from the local stand-in Hub (``tests/hubstub.py`` serving the course data in
   the Hub's formats). On ``smoke`` the model is built locally, so what fetch fetches — and what the
   cache holds — is the data sets. Students get no ``$SBERTLIB_DATA_DIR``: their notebooks read
   every data file from that cache, offline (``HF_HUB_OFFLINE=1``);
3. **two students**, ``useradd -m`` (homes 700), each with the student copies of notebooks 02 and
   03 (``python -m sbertlib student``) in ``~/workbook``, the exercises filled in by the test: the
   lecturer's solutions, with a marker comment naming the student in notebook 03's ``train_loop``
   (the only difference between A's and B's code), and an extra last cell in 03 that loads
   ``mine.load("train_loop")`` as notebook 05 does and prints whose it is;
4. **JupyterHub** on 127.0.0.1 (DummyAuthenticator with one shared password, LocalProcessSpawner:
   each single-user server runs as its student's Unix user, from the install) behind
   configurable-http-proxy.

``test_two_students_run_02_and_03_in_a_real_browser`` (default run): in headless Chromium each
student logs in, the hub starts their server, and in JupyterLab they open 02 then 03 and *Run All*
(``notebook:run-all-cells`` through ``window.jupyterapp``), wait for the kernel, save. Asserted
from the saved notebooks and the files on disk: every cell ran without an error, each student's
kept code and trained run lie under their own ``~/.local/share/sbert-workbook/runs`` and belong to
them, the loaded ``train_loop`` is "yours, from notebook 03" with that student's marker, the
kernel imported ``sbertlib`` from the read-only install, nothing was written into the install or
the shared cache, and one student cannot read the other's code.

``test_two_students_load_the_lecturers_shared_runs_and_train_only_a_changed_recipe``: the README's step 4 (the
class's shared runs, ``$SBERTLIB_SHARED_RUNS``) with real Unix users: the lecturer trains once into a read-only
store, both students load it (their vectors are the lecturer's), and a changed recipe trains in the student's own
folder; nothing is written into the store.

``test_nbgrader_exchange_release_fetch_submit_collect_autograde`` (default run, about 40 s): the lecturer (root)
writes the course with ``python -m sbertlib student --nbgrader``, releases 02 into a shared exchange
(mode 1777, named in the install's ``etc/jupyter/nbgrader_config.py``); each student fetches it
with ``su -``, answers (A the lecturer's solutions, B mean pooling that counts the padding) and
submits; the lecturer collects and autogrades: A full marks, B every point but ``test_pool``.

Measured on the 2-core CI-sized machine (idle): set-up 20 s (install 2 s, fetch 9 s, hub 8 s), the
browser test 81 s (per student: log in and server start 4 s, 02 10 s, 03 21 s), clean-up 6 s; the
nbgrader exchange 40 s more. Screenshots and the hub's log: build/test-artifacts/jupyterhub/.
"""
from __future__ import annotations

import contextlib
import re
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "build" / "test-artifacts" / "jupyterhub"
NB02, NB03 = "02_the_siamese_network", "03_finetuning_on_nli"
PASSWORD = "sbert-class-" + secrets.token_hex(4)
MARKER = "sbhub-marker"
COURSE_ID = "sbert-workbook"
MASKLESS_MEAN = "return token_embeddings.mean(dim=1)"   # as tests/test_nbgrader.py: padding counted in the mean
MASKED_MEAN = "return (token_embeddings * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)"

pytestmark = [pytest.mark.browser, pytest.mark.integration]

# Done when the kernel is idle and the last code cell has run ('done'), or a cell shows an error ('error').
RUN_FINISHED = """() => {
  const nb = window.jupyterapp.shell.currentWidget;
  if (!nb || !nb.content || !nb.sessionContext || !nb.sessionContext.session) return false;
  const kernel = nb.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  const cells = nb.content.model.cells;
  let last = null;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    last = c;
    for (let j = 0; j < c.outputs.length; j++) if (c.outputs.get(j).type === 'error') return 'error';
  }
  return last && last.executionCount ? 'done' : false;
}"""

EXTRA_CELL = f"""\
# {MARKER}: added by the test, as notebook 05 loads the student's loop
import inspect, os
import sbertlib
from sbertlib.workbook import mine
loaded = mine.load("train_loop")
print("where:", mine.where(loaded))
print("kept at:", mine.saved("train_loop")["path"])
print("markers:", [line.strip() for line in inspect.getsource(loaded).splitlines() if "{MARKER}" in line])
print("sbertlib from:", os.path.dirname(sbertlib.__file__), "writable:", os.access(os.path.dirname(sbertlib.__file__), os.W_OK))
print("uid:", os.getuid())
"""


# ------------------------------------------------------------------------------------------ helpers
def _say(msg: str) -> None:
    print(f"[jupyterhub test {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _run(cmd: list[str], what: str, timeout: float = 600, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, text=True, capture_output=True, timeout=timeout, **kw)
    assert r.returncode == 0, f"{what} failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _as(user: str, script: str, what: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    """``script`` in a login shell of ``user`` (``su -``), as a student types it in a terminal."""
    r = subprocess.run(["su", "-", user, "-c", script], text=True, capture_output=True, timeout=timeout)
    if check:
        assert r.returncode == 0, f"{what} (as {user}) failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _others_can_run(path: Path) -> bool:
    """Every folder above ``path`` lets other users through, and the file itself is theirs to run."""
    path = Path(os.path.realpath(path))
    try:
        return all(p.stat().st_mode & stat.S_IXOTH for p in [path, *path.parents])
    except OSError:
        return False


def _student_python() -> str | None:
    """A Python of this one's version that every user can run: this one's base interpreter, else the system's."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for cand in (getattr(sys, "_base_executable", None), f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"):
        if cand and Path(cand).is_file() and _others_can_run(Path(cand)):
            return cand
    return None


def _skip_reasons() -> list[str]:
    reasons = []
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        reasons.append("not root: the test creates Unix users (CI runs it as root)")
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        reasons.append("no useradd/userdel")
    if shutil.which("configurable-http-proxy") is None:
        reasons.append("no configurable-http-proxy (npm install -g configurable-http-proxy; .ci/run installs it)")
    if shutil.which("chromium") is None:
        reasons.append("no Chromium (Debian: apt-get install chromium)")
    for module in ("jupyterhub", "playwright", "nbgrader"):
        try:
            __import__(module)
        except ImportError:
            reasons.append(f"{module} not installed (pip install -e '.[dev]')")
    if _student_python() is None:
        reasons.append(f"no python{sys.version_info[0]}.{sys.version_info[1]} that other users can run "
                       f"({sys.executable} lies in a private folder)")
    return reasons


def _link_tree(src: Path, dest: Path) -> None:
    """``src``'s content into ``dest`` as hard links (fast; the files stay root's, read-only to others),
    a plain copy where the two lie on different file systems."""
    dest.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["cp", "-al", f"{src}/.", f"{dest}/"], capture_output=True, text=True)
    if r.returncode != 0:
        _run(["cp", "-a", f"{src}/.", f"{dest}/"], f"copying {src}")


def _venv_python(interpreter: str, venv: Path) -> bool:
    """Whether a script's ``#!`` line names a python of ``venv``: ``bin/python``, ``bin/python3`` or ``bin/python3.X``
    (pip run as ``bin/pip`` writes ``python3``, as ``bin/python -m pip`` writes ``python``)."""
    path = Path(interpreter)
    return path.parent == venv / "bin" and re.fullmatch(r"python(3(\.\d+)?)?", path.name) is not None


def _read_only_install(dest: Path) -> Path:
    """The class's install (see the module's doc, step 1); returns its python."""
    _run([_student_python(), "-m", "venv", "--without-pip", str(dest)], "creating the class's venv")
    venv = Path(sys.prefix)
    for part in ("lib", "share", "etc"):
        if (venv / part).is_dir():
            _link_tree(venv / part, dest / part)
    site = next((dest / "lib").glob("python3*/site-packages"))
    python = dest / "bin" / "python"
    for script in (venv / "bin").iterdir():   # the console scripts (nbgrader calls `alembic`), on the new python
        if script.is_file() and not script.is_symlink() and not (dest / "bin" / script.name).exists():
            with contextlib.suppress(UnicodeDecodeError, OSError):
                first, _, rest = script.read_text().partition("\n")
                if first.startswith("#!") and _venv_python(first[2:].strip(), venv):
                    (dest / "bin" / script.name).write_text(f"#!{python}\n{rest}")
                    (dest / "bin" / script.name).chmod(0o755)
    for p in site.glob("__editable__*sbertlib*"):   # the checkout's editable link: replaced by a copy
        p.unlink()
    shutil.copytree(ROOT / "sbertlib", site / "sbertlib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run([str(python), "-m", "compileall", "-q", str(site / "sbertlib")], "compiling sbertlib")
    _run(["chmod", "-R", "go-w,a+rX", str(dest)], "chmod")   # (no-op on a usual venv: pip's files are 644)
    return python


def _lecturer_fetch(python: Path, cache: Path, shared_data: Path) -> str:
    """``python -m sbertlib fetch --profile smoke`` into ``cache`` from the stand-in Hub, as a
    lecturer with no local data folder; the cache is then made read-only to everyone else."""
    sys.path.insert(0, str(Path(__file__).parent))
    from hubdata import serve_course
    from hubstub import HubStub
    env = {k: v for k, v in os.environ.items()
           if k not in ("SBERTLIB_DATA_DIR", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME")}
    with HubStub() as stub:
        serve_course(stub, shared_data)
        env.update(HF_ENDPOINT=stub.url, HF_HUB_CACHE=str(cache), SBERTLIB_PROFILE="smoke")
        out = _run([str(python), "-m", "sbertlib", "fetch", "--profile", "smoke"], "the lecturer's fetch",
                   env=env, cwd=cache.parent).stdout
        assert stub.requests, "fetch asked the stand-in Hub for nothing"
    _run(["chmod", "-R", "go-w,a+rX", str(cache)], "chmod the cache")
    return out


def _fill(copy, lecturer, marker: str | None = None, extra: str | None = None):
    """The student copy ``copy`` with every exercise answered by the lecturer's solution (in order);
    ``marker``: a comment in ``train_loop``'s body; ``extra``: a code cell appended."""
    tags = lambda c: c.metadata.get("tags", [])  # noqa: E731
    solutions = [c.source for c in lecturer.cells if "solution" in tags(c)]
    exercises = [c for c in copy.cells if "exercise" in tags(c)]
    assert len(solutions) == len(exercises) > 0
    for cell, solution in zip(exercises, solutions):
        cell.source = solution
        if marker and "def train_loop" in solution:
            assert "    model = loss.model\n" in solution
            cell.source = solution.replace("    model = loss.model\n", f"    model = loss.model  # {MARKER}: {marker}\n", 1)
    if extra:
        copy.cells.append(nbformat.v4.new_code_cell(extra))
    return copy


def _write_as(user: "Student", path: Path, nb) -> None:
    nbformat.write(nb, path)
    os.chown(path, user.uid, user.gid)


@dataclass
class Student:
    name: str
    uid: int = 0
    gid: int = 0
    home: Path = field(default_factory=Path)
    marker: str = ""

    @property
    def runs(self) -> Path:   # the lead's contract: $XDG_DATA_HOME (~/.local/share)/sbert-workbook/runs
        return self.home / ".local" / "share" / "sbert-workbook" / "runs"


@dataclass
class Classroom:
    base: Path
    python: Path
    site: Path
    cache: Path
    students: list[Student]
    url: str = ""
    hub_log: Path = field(default_factory=Path)
    fetch_output: str = ""


def _kill_users_processes(uid: int) -> None:
    """End what still runs as ``uid`` (a server or kernel the hub left), by process id."""
    for _ in range(2):
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if entry.stat().st_uid == uid:
                        pids.append(int(entry.name))
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, 15 if _ == 0 else 9)
        if not pids:
            return
        time.sleep(2)


def _start_hub(room: Classroom) -> subprocess.Popen:
    hub_dir = room.base / "hub"
    hub_dir.mkdir(mode=0o700)
    port, hub_port, api_port = _free_port(), _free_port(), _free_port()
    environment = {"SBERTLIB_PROFILE": "smoke", "HF_HUB_CACHE": str(room.cache), "HF_HUB_OFFLINE": "1",
                   "TRANSFORMERS_OFFLINE": "1", "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    config = f"""\
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{shutil.which("configurable-http-proxy")!r}]
c.JupyterHub.db_url = "sqlite:///{hub_dir}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{hub_dir}/cookie_secret"
c.JupyterHub.pid_file = "{hub_dir}/jupyterhub.pid"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allowed_users = {set(s.name for s in room.students)!r}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [{str(room.python)!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
                  "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 240
c.Spawner.http_timeout = 240
"""
    (hub_dir / "jupyterhub_config.py").write_text(config)
    room.hub_log = hub_dir / "jupyterhub.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SBERTLIB_", "HF_", "JUPYTER"))}
    env["PATH"] = f"{room.python.parent}:{env.get('PATH', '/usr/bin:/bin')}"
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(hub_dir / "jupyterhub_config.py")],
                            cwd=hub_dir, env=env, stdout=subprocess.DEVNULL, stderr=open(room.hub_log, "w"),
                            start_new_session=True)
    room.url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"{room.url}/hub/api", timeout=2)
            return proc
        time.sleep(0.5)
    proc.kill()
    pytest.fail(f"JupyterHub did not answer on {room.url} within 120 s:\n" + room.hub_log.read_text()[-4000:])


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)   # the hub and the proxy it started (its own session); servers: cleanup_servers
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait(timeout=10)


# ------------------------------------------------------------------------------------------ the class
@pytest.fixture(scope="module")
def classroom(shared_data):
    reasons = _skip_reasons()
    if reasons:
        pytest.skip("a class on one JupyterHub needs: " + "; ".join(reasons))
    start = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="sbhub-"))
    base.chmod(0o755)
    suffix = secrets.token_hex(3)
    students = [Student(f"sbstu-a-{suffix}", marker="student A"), Student(f"sbstu-b-{suffix}", marker="student B")]
    created: list[Student] = []
    hub = None
    try:
        python = _read_only_install(base / "install")
        site = next((base / "install" / "lib").glob("python3*/site-packages"))
        _say(f"read-only install in {base / 'install'} ({time.perf_counter() - start:.0f} s)")
        cache = base / "hf-cache"
        cache.mkdir()
        fetched = _lecturer_fetch(python, cache, shared_data)
        _say(f"the lecturer's fetch filled {cache} ({time.perf_counter() - start:.0f} s):\n{fetched}")
        room = Classroom(base, python, site, cache, students, fetch_output=fetched)
        for s in students:
            _run(["useradd", "-m", "-s", "/bin/bash", s.name], f"useradd {s.name}")
            created.append(s)
            entry = pwd.getpwnam(s.name)
            s.uid, s.gid, s.home = entry.pw_uid, entry.pw_gid, Path(entry.pw_dir)
            s.home.chmod(0o700)
        # the student copies, as the lecturer hands them out, answered by each student (the test)
        copies = base / "copies"
        _run([str(python), "-m", "sbertlib", "student", str(ROOT / "notebooks"), str(copies), "--only", "02,03"],
             "python -m sbertlib student")
        for s in students:
            work = s.home / "workbook"
            work.mkdir()
            os.chown(work, s.uid, s.gid)
            for name in (NB02, NB03):
                lecturer = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
                copy = nbformat.read(copies / f"{name}.ipynb", as_version=4)
                answered = _fill(copy, lecturer, marker=f"{s.marker} ({s.name})" if name == NB03 else None,
                                 extra=EXTRA_CELL if name == NB03 else None)
                _write_as(s, work / f"{name}.ipynb", answered)
        hub = _start_hub(room)
        _say(f"JupyterHub {room.url} up, {len(students)} students ({time.perf_counter() - start:.0f} s of set-up)")
        yield room
    finally:
        if hub is not None:
            _stop(hub)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                shutil.copy(base / "hub" / "jupyterhub.log", ARTIFACTS / "jupyterhub.log")
        for s in created:
            _kill_users_processes(s.uid)
            subprocess.run(["userdel", "-r", s.name], capture_output=True)
            with contextlib.suppress(KeyError):
                pwd.getpwnam(s.name)
                print(f"warning: user {s.name} could not be removed")
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------------------------------ the browser
def _open_and_run(page, room: Classroom, student: Student, name: str) -> float:
    start = time.perf_counter()
    page.goto(f"{room.url}/user/{student.name}/lab/tree/workbook/{name}.ipynb", timeout=120_000)
    page.wait_for_selector(".jp-Notebook", timeout=120_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand('notebook:run-all-cells')",
                           timeout=120_000)
    # this notebook is the current one and its kernel is connected and idle
    page.wait_for_function(f"""() => {{ const nb = window.jupyterapp.shell.currentWidget;
        return nb && nb.context && nb.context.path.endsWith('{name}.ipynb') && nb.sessionContext
               && nb.sessionContext.session && nb.sessionContext.session.kernel
               && nb.sessionContext.session.kernel.connectionStatus === 'connected'
               && nb.sessionContext.session.kernel.status === 'idle'; }}""", timeout=180_000)
    page.wait_for_timeout(1000)
    started = """() => { const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
        for (let i = 0; i < cells.length; i++) if (cells.get(i).type === 'code' && cells.get(i).executionCount) return true;
        return window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'busy'; }"""
    for attempt in range(2):   # Run All once more if the first did not reach the kernel
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            page.wait_for_function(started, timeout=60_000, polling=200)
            break
        except Exception:
            if attempt:
                raise AssertionError(f"{student.name}: Run All on {name} never started a cell") from None
    handle = page.wait_for_function(RUN_FINISHED, timeout=420_000, polling=500)
    state = handle.json_value()
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / f"{student.marker.replace(' ', '_')}_{name[:2]}.png"))
    page.evaluate("() => window.jupyterapp.commands.execute('application:close-all')")   # the next one starts alone
    assert state == "done", f"{student.name}: a cell of {name} failed in the browser (see the saved notebook)"
    return time.perf_counter() - start


def _errors(nb) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if o.output_type == "error"]


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def test_two_students_run_02_and_03_in_a_real_browser(classroom):
    room, start = classroom, time.perf_counter()
    from playwright.sync_api import sync_playwright
    from test_browser import CHROMIUM_FLAGS
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    timings = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        try:
            for s in room.students:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})   # own cookies: own login
                page = context.new_page()
                t = time.perf_counter()
                page.goto(f"{room.url}/hub/login", timeout=60_000)
                page.fill("#username_input", s.name)
                page.fill("#password_input", PASSWORD)
                page.click("#login_submit")
                page.wait_for_url(f"**/user/{s.name}/lab**", timeout=300_000)
                timings[f"{s.marker}: log in and start the server"] = time.perf_counter() - t
                for name in (NB02, NB03):
                    try:
                        timings[f"{s.marker}: {name[:2]}"] = _open_and_run(page, room, s, name)
                    except Exception:
                        with contextlib.suppress(Exception):
                            page.screenshot(path=str(ARTIFACTS / f"failed_{s.marker.replace(' ', '_')}_{name[:2]}.png"))
                        raise
                context.close()
        finally:
            browser.close()
    _say("browser part: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))

    a, b = room.students
    for s, other in ((a, b), (b, a)):
        for name in (NB02, NB03):
            path = s.home / "workbook" / f"{name}.ipynb"
            assert path.stat().st_uid == s.uid, f"{path} was saved by uid {path.stat().st_uid}, not {s.name}'s server"
            nb = nbformat.read(path, as_version=4)
            assert not _errors(nb), f"{s.name}'s {name}: {_errors(nb)}"
            code = [c for c in nb.cells if c.cell_type == "code"]
            assert all(c.get("execution_count") for c in code), f"{s.name}'s {name}: not every cell ran"
        # the extra cell of 03: the student's own loop, loaded as notebook 05 loads it
        out = _text(nbformat.read(s.home / "workbook" / f"{NB03}.ipynb", as_version=4).cells[-1])
        _say(f"{s.name}'s extra cell printed:\n{out}")
        kept = s.runs / "your_code" / "train_loop.py"
        assert "train_loop: yours, from notebook 03" in out, out
        assert f"kept at: {kept}" in out, out
        assert f"{MARKER}: {s.marker} ({s.name})" in out and other.name not in out, out
        assert f"sbertlib from: {room.site / 'sbertlib'} writable: False" in out, out
        assert f"uid: {s.uid}" in out, out
        # on disk: the kept code and the trained run are the student's, under their home
        for f in (kept, s.runs / "your_code" / "MNRL.py"):
            assert f.is_file() and f.stat().st_uid == s.uid, f"{f}: missing or not {s.name}'s"
        assert f"{MARKER}: {s.marker} ({s.name})" in kept.read_text() and other.name not in kept.read_text()
        models = list((s.runs / "smoke").rglob("model.safetensors"))
        assert models and all(m.stat().st_uid == s.uid for m in models), f"{s.name}'s trained run: {models}"
        # ... and nowhere else: not in the other's home, not in the shared cache
        assert not any(p.stat().st_uid == s.uid for p in room.cache.rglob("*")), "a student wrote into the shared cache"
        own_cache = s.home / ".cache" / "huggingface"
        assert not (own_cache.is_dir() and list(own_cache.rglob("datasets--*"))), "a data set was downloaded again"
        denied = _as(other.name, f"cat {kept}", "reading the other's code", check=False)
        assert denied.returncode != 0, f"{other.name} could read {s.name}'s kept code"
        where = _as(s.name, f"{room.python} -m sbertlib where", "python -m sbertlib where").stdout
        assert str(s.runs) in where, where
    # nobody wrote into the install (the kernels ran sbertlib from it)
    assert not any(p.stat().st_uid in (a.uid, b.uid) for p in room.base.joinpath("install").rglob("*"))
    assert not (room.site / "runs").exists() and not (room.site.parent / "runs").exists()
    denied = _as(a.name, f"touch {room.site / 'sbertlib' / 'x.py'}", "writing into the install", check=False)
    assert denied.returncode != 0, "a student could write into the install"
    print(f"\nJupyterHub + browser, two students, notebooks 02 and 03: {time.perf_counter() - start:.0f} s "
          f"(after the fixture's set-up)")


# ------------------------------------------------------------------------------------------ nbgrader
STORE_SCRIPT = """
import dataclasses, hashlib, sys
from sbertlib.workbook import profiles, runs
smoke = profiles.get_profile("smoke")
print("trained:", runs.is_trained(smoke, "stsb"), "own:", runs.is_trained(smoke, "stsb", shared=False))
model, _ = runs.trained_model(smoke, "stsb", show_progress_bar=False)
print("vectors:", hashlib.sha256(model.encode(["A man is playing a guitar.", "Two dogs run."]).tobytes()).hexdigest())
if sys.argv[1:] == ["changed"]:
    changed = dataclasses.replace(smoke, stsb=smoke.stsb.replace(lr=smoke.stsb.lr * 2))
    runs.trained_model(changed, "stsb", show_progress_bar=False)
    print("changed, own:", runs.is_trained(changed, "stsb", shared=False))
"""


def _kernel_env(room: Classroom, **extra: str) -> str:
    """The spawner's environment (as :func:`_start_hub` sets it) as a shell prefix, with ``extra``."""
    env = {"SBERTLIB_PROFILE": "smoke", "HF_HUB_CACHE": str(room.cache), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "PYTHONWARNINGS": "ignore", **extra}
    return " ".join(f"{k}={v}" for k, v in env.items())


def test_two_students_load_the_lecturers_shared_runs_and_train_only_a_changed_recipe(classroom):
    """README's JupyterHub step 4: the lecturer (root) trains the STSb run once into a store, made read-only; each
    student's Python (their own Unix user, the class's install) loads it with the lecturer's vectors, trains nothing
    and writes nothing there; student B's changed recipe trains B's own run, in B's own folder."""
    room = classroom
    store = room.base / "srv-sbert-runs"
    _run(["sh", "-c", f"{_kernel_env(room)} {room.python} -m sbertlib train --profile smoke --objective sts "
                      f"--output-dir {store} --reuse"], "the lecturer's train into the store", cwd=room.base)
    _run(["chmod", "-R", "a+rX,go-w", str(store)], "chmod the store")
    script = room.base / "store_check.py"
    script.write_text(STORE_SCRIPT)
    script.chmod(0o644)
    lecturer = _run(["sh", "-c", f"{_kernel_env(room, SBERTLIB_OUTPUT_DIR=str(store))} {room.python} {script}"],
                    "the lecturer's vectors", cwd=room.base).stdout
    vectors = re.search(r"vectors: \w+", lecturer).group(0)
    before = {p: p.stat().st_mtime_ns for p in store.rglob("*")}
    a, b = room.students
    for s, how in ((a, ""), (b, "changed")):
        r = _as(s.name, f"{_kernel_env(room, SBERTLIB_SHARED_RUNS=str(store))} {room.python} {script} {how}",
                "loading from the shared runs")
        assert "trained: True own: False" in r.stdout and vectors in r.stdout, r.stdout + r.stderr
        assert not list((s.runs / "smoke").glob("*stsb*")) or how, f"{s.name} trained the run the store holds"
        if how:
            assert "training your own, in " + str(s.runs / "smoke") in r.stderr, r.stderr
            assert "changed, own: True" in r.stdout, r.stdout
            own = [p for p in (s.runs / "smoke").rglob("model.safetensors")]
            assert own and all(p.stat().st_uid == s.uid for p in own), own
        else:
            assert "training your own" not in r.stderr, r.stderr
    assert {p: p.stat().st_mtime_ns for p in store.rglob("*")} == before, "a student wrote into the shared runs"
    assert not any(p.stat().st_uid in (a.uid, b.uid) for p in store.rglob("*"))


def _scores(course: Path, assignment: str, students: list[Student]) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        out = {}
        for s in students:
            sub = gb.find_submission_notebook(assignment, assignment, s.name)
            out[s.name] = {g.name: g.score for g in sub.grades} | {"total": sub.score, "max": sub.max_score}
        return out


def test_nbgrader_exchange_release_fetch_submit_collect_autograde(classroom):
    room, start = classroom, time.perf_counter()
    course, exchange = room.base / "course", room.base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)
    # the class's nbgrader settings, in the install (read by every user of it: lecturer, students, their servers)
    etc = room.python.parent.parent / "etc" / "jupyter"
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "nbgrader_config.py").write_text(f'c = get_config()  # noqa\nc.CourseDirectory.course_id = "{COURSE_ID}"\n'
                                            f'c.Exchange.root = "{exchange}"\n')
    (etc / "nbgrader_config.py").chmod(0o644)
    nbg = [str(room.python), "-m", "nbgrader"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SBERTLIB_DATA_DIR", "HF_"))}
    env.update(HF_HUB_CACHE=str(room.cache), HF_HUB_OFFLINE="1", SBERTLIB_PROFILE="smoke", PYTHONWARNINGS="ignore",
               PATH=f"{room.python.parent}:{env.get('PATH', '/usr/bin:/bin')}")
    _run([str(room.python), "-m", "sbertlib", "student", "--nbgrader", str(course), "--only", "02",
          "--course-id", COURSE_ID], "writing the course", env=env)
    for step in ("generate_assignment", "release_assignment"):
        _run(nbg + [step, NB02], f"nbgrader {step}", cwd=course, env=env)
    assert (exchange / COURSE_ID / "outbound" / NB02 / f"{NB02}.ipynb").is_file()
    a, b = room.students
    on_path = f"export PATH={room.python.parent}:$PATH"   # the install's commands, as /etc/profile.d would put them
    sys.path.insert(0, str(Path(__file__).parent))
    from test_nbgrader import _answered
    for s in (a, b):
        _as(s.name, f"{on_path} && cd ~ && nbgrader fetch_assignment {NB02}", "nbgrader fetch_assignment")
        fetched = s.home / NB02 / f"{NB02}.ipynb"
        assert fetched.stat().st_uid == s.uid
        released = nbformat.read(fetched, as_version=4)
        answered = _answered(released) if s is a else _answered(released, replace={"pool": (MASKED_MEAN, MASKLESS_MEAN)})
        _write_as(s, fetched, answered)
        _as(s.name, f"{on_path} && cd ~ && nbgrader submit {NB02}", "nbgrader submit")
    _run(nbg + ["collect", NB02], "nbgrader collect", cwd=course, env=env)
    assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted([a.name, b.name])
    _run(nbg + ["autograde", NB02], "nbgrader autograde", cwd=course, env=env, timeout=900)
    scores = _scores(course, NB02, [a, b])
    print(f"\nnbgrader exchange on one server, {NB02}: {scores} ({time.perf_counter() - start:.0f} s)")
    tests = [n for n in scores[a.name] if n.startswith("test_")]
    assert "test_pool" in tests and len(tests) >= 3
    assert scores[a.name]["total"] == scores[a.name]["max"] == len(tests)
    assert scores[b.name] == {**{n: int(n != "test_pool") for n in tests}, "total": len(tests) - 1, "max": len(tests)}
