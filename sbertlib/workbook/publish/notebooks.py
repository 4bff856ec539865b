"""Notebook plumbing: list, execute, strip and make student copies of the workbook's notebooks (the cell tags it
reads, ``solution`` with its ``metadata.stub``, ``answers``, ``headline``, ``quiz``: ``notebooks/CONVENTIONS.md``)."""
from __future__ import annotations

import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ... import config

NOTEBOOK_DIR = Path(__file__).resolve().parents[3] / "notebooks"
DEFAULT_STUB = "# YOUR CODE HERE — then run the check cell below\nraise NotImplementedError('exercise not done yet')\n"


def notebook_paths(folder: str | os.PathLike = NOTEBOOK_DIR) -> list[Path]:
    """The numbered notebooks, in order."""
    return sorted(p for p in Path(folder).glob("[0-9][0-9]_*.ipynb"))


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def has_outputs(nb) -> bool:
    """True if any code cell carries outputs or an execution count."""
    return any(c.cell_type == "code" and (c.get("outputs") or c.get("execution_count"))
               for c in nb.cells)


def strip_outputs(nb):
    """Remove outputs and execution counts (in place); returns the notebook."""
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    return nb


def student_copy(nb):
    """A copy with every ``solution`` cell replaced by its stub and every ``answers`` cell (the
    questionnaire's written answers) left out. The questionnaire becomes self-check cells: where the
    ``## Questions`` cell is followed by a cell tagged ``quiz`` (``quiz.ask("NN")``), each numbered
    question gets a markdown cell of its own and, below it, a ``quiz.ask("NN.q")`` cell that answers
    back (:mod:`sbertlib.workbook.quiz`); no right answer is in any cell's text."""
    nb = nbformat.from_dict(nb)
    nb.cells = [c for c in nb.cells if "answers" not in tags(c)]
    for c in nb.cells:
        if "solution" in tags(c):
            c.source = c.metadata.get("stub", DEFAULT_STUB)
            c.metadata["tags"] = [t for t in tags(c) if t != "solution"] + ["exercise"]
    nb.cells = _self_check_cells(nb.cells)
    return strip_outputs(nb)


_ASK_ALL = re.compile(r"""quiz\.ask\(\s*["'](\d\d)["']\s*\)""")
_QUESTION_ITEM = re.compile(r"^(\d+)\.\s", re.M)
SELF_CHECK_NOTE = ("*Each question has a self-check cell below it: run it, pick an option or type a number, and "
                   "press **Check** — a wrong answer gets a hint. Without widgets, "
                   "`quiz.check(\"{example}\", answer)` answers the same.*")


def _self_check_cells(cells: list) -> list:
    """``cells`` with the questionnaire (a ``## Questions`` cell, then the ``quiz`` cell asking for the
    whole notebook) split into one markdown cell and one ``quiz.ask`` cell per question."""
    from .. import quiz

    for i, cell in enumerate(cells[:-1]):
        nxt = cells[i + 1]
        m = _ASK_ALL.search(nxt.source) if "quiz" in tags(nxt) else None
        if cell.cell_type != "markdown" or "## questions" not in cell.source.lower() or not m:
            continue
        number = m.group(1)
        starts = [(int(q.group(1)), q.start()) for q in _QUESTION_ITEM.finditer(cell.source)]
        if not starts or not quiz.checkable(number):
            continue
        head = nbformat.from_dict(cell)
        head.source = cell.source[:starts[0][1]].rstrip() + "\n\n" + SELF_CHECK_NOTE.format(
            example=quiz.checkable(number)[0])
        out = [head]
        for k, (q, start) in enumerate(starts):
            end = starts[k + 1][1] if k + 1 < len(starts) else len(cell.source)
            item = nbformat.v4.new_markdown_cell(cell.source[start:end].rstrip())
            item.id = f"{cell.id}-q{q}"[:64]
            out.append(item)
            if quiz.checkable(f"{number}.{q}"):
                ask = nbformat.v4.new_code_cell(f'from sbertlib.workbook import quiz\nquiz.ask("{number}.{q}")')
                ask.id = f"{nxt.id}-q{q}"[:64]
                ask.metadata["tags"] = ["quiz"]
                out.append(ask)
        return cells[:i] + out + cells[i + 2:]
    return cells


def code_lines(nb) -> tuple[int, int]:
    """``(lines the student writes, all code lines)``: non-blank lines of the ``solution`` cells'
    answers against every code cell's (magics and comments-only lines not counted)."""
    def count(source: str) -> int:
        return sum(1 for line in source.splitlines() if line.strip() and not line.lstrip().startswith(("#", "%")))
    cells = [c for c in nb.cells if c.cell_type == "code"]
    return sum(count(c.source) for c in cells if "solution" in tags(c)), sum(count(c.source) for c in cells)


@dataclass
class RunResult:
    path: Path
    seconds: float
    error: str | None = None
    headlines: list[str] = field(default_factory=list)


def headline_text(nb) -> list[str]:
    """The text printed by cells tagged ``headline``."""
    out = []
    for c in nb.cells:
        if c.cell_type == "code" and "headline" in tags(c):
            for o in c.get("outputs", []):
                if o.get("output_type") == "stream" and o.get("name") == "stdout":
                    out.append(o["text"].strip())
    return out


def _error_line(text: str) -> str:
    """The most telling line of a cell error: the last one naming an exception type."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).strip() for ln in text.splitlines() if ln.strip()]
    named = [ln for ln in lines if re.match(r"^[A-Za-z_.]*(Error|Exception|Interrupt)\b", ln)]
    return (named or lines or [""])[-1]


TIMEOUT_PREFIX = "no reply from the kernel:"  # a cell timed out or the kernel died (not a wrong result)


def quiet_kernel_config(sockets: str | os.PathLike):
    """nbclient's configuration for a kernel that talks to this process only, and does not warn that
    it is exposed. ipykernel (7.4 and newer) logs "Kernel is running over TCP without encryption" at
    every start on a TCP transport without CurveZMQ keys, and jupyter_client (8.10) provisions none
    unless asked (its ``transport_encryption`` is ``"disabled"`` by default). So the kernel runs over
    IPC where libzmq has it (Linux, macOS): Unix sockets in the folder ``sockets`` (the caller's, made
    private and removed after the run), which no other machine can reach. Elsewhere (Windows) it runs
    over TCP on localhost with CurveZMQ keys the manager makes (``transport_encryption="auto"``) where
    pyzmq has CurveZMQ and jupyter_client offers the setting."""
    import zmq
    from jupyter_client.manager import AsyncKernelManager
    from traitlets.config import Config

    cfg = Config()
    if zmq.has("ipc"):
        cfg.KernelManager.transport = "ipc"
        cfg.KernelManager.ip = os.path.join(os.fspath(sockets), "kernel")  # its sockets: kernel-1 … kernel-5
    elif zmq.has("curve") and "transport_encryption" in AsyncKernelManager.class_trait_names():
        cfg.KernelManager.transport_encryption = "auto"
    return cfg


def execute(path: Path, timeout: int = 900, env: dict | None = None, cwd: Path | None = None):
    """Run a notebook top to bottom in a fresh kernel; returns (executed notebook, RunResult).

    ``env`` is added to the kernel's environment; a value of None removes that variable."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    import sys
    old_env = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    # the kernel starts in the notebook's folder: a relative data directory must not change meaning
    os.environ.update(config.absolute_data_dir_env())
    # the kernel must be this interpreter's (the project's venv), whatever PATH says
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    start, error = time.perf_counter(), None
    try:
        with tempfile.TemporaryDirectory(prefix="sbertlib-kernel-") as sockets:
            NotebookClient(nb, timeout=timeout, kernel_name="python3", config=quiet_kernel_config(sockets),
                           resources={"metadata": {"path": str(cwd or path.parent)}}).execute()
    except CellExecutionError as exc:
        error = _error_line(str(exc)) or repr(exc)
    except (CellTimeoutError, DeadKernelError) as exc:
        error = f"{TIMEOUT_PREFIX} {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        os.environ.clear()
        os.environ.update(old_env)
    return nb, RunResult(path, time.perf_counter() - start, error, headline_text(nb))
