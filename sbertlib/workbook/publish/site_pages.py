"""The course site's pages for running a course: syllabus, instructor notes, student download, licence.

Everything on these pages is taken from what the build produced or what the project holds — nothing
is made up here: the syllabus's minutes are the build's measured runtimes (``index.json``), the
instructor notes' mistakes are read from the checks' source (:func:`check_mistakes`), the download is
the student copies (:func:`sbertlib.workbook.publish.notebooks.student_copy`), the licence page reads
``LICENSE``.
"""
from __future__ import annotations

import ast
import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import nbformat

from .. import colab
from . import notebooks

ROOT = Path(__file__).resolve().parents[3]
CHECKS_DIR = Path(__file__).resolve().parents[1] / "lessons"
STUDENT_ZIP = "sbert-workbook-student.zip"

PAPER_ACL = "https://aclanthology.org/D19-1410/"
PAPER_ARXIV = "https://arxiv.org/abs/1908.10084"
PAPER_CODE = "https://github.com/UKPLab/sentence-transformers"
ISSUE_URL = PAPER_CODE + "/issues/{}"
WORKBOOK_URL = f"https://github.com/{colab.REPOSITORY}"
PAPER_BIBTEX = """@inproceedings{reimers-2019-sentence-bert,
    title = "Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks",
    author = "Reimers, Nils and Gurevych, Iryna",
    booktitle = "Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing
                 and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)",
    month = nov,
    year = "2019",
    address = "Hong Kong, China",
    publisher = "Association for Computational Linguistics",
    pages = "3982--3992",
    url = "https://arxiv.org/abs/1908.10084",
}"""

# The course's sessions: which notebooks are taught together (a teaching choice; the minutes are measured).
SESSIONS: list[tuple[str, tuple[str, ...], str]] = [
    ("Why sentence embeddings", ("00", "01", "02"),
     "the set-up, why plain BERT vectors fail at similarity, and the siamese network of the paper"),
    ("Training and evaluating SBERT", ("03", "04"),
     "your own training loop on NLI, in-batch negatives, and STS evaluation (Tables 1 and 2)"),
    ("The other objectives", ("05", "06"),
     "regression on STSb, two-stage training, and the triplet objective"),
    ("What matters, and what transfers", ("07", "08"),
     "the ablations of Table 6 and transfer learning with SentEval (Table 5)"),
    ("Looking inside, and speed", ("09", "10", "11"),
     "pictures of the embedding space, the similarity explorer, and smart batching"),
    ("Applications and your own data", ("12", "13"),
     "search, mining, clustering and re-ranking, then the whole pipeline on data you bring"),
    ("Beyond the paper", ("14",),
     "knowledge distillation (Buciluǎ et al., 2006; named by Hinton et al., 2015; not in the paper): your own "
     "small, fast encoder from a fully trained teacher"),
]
PREREQUISITES = [
    "Python and Jupyter: running cells, reading a traceback, writing a short function.",
    "PyTorch basics: tensors and their shapes, `nn.Module`, a forward pass, `loss.backward()` and an optimizer step.",
    "Linear algebra for similarity: dot product, vector length, cosine similarity.",
    "What BERT is in outline (a transformer that turns tokens into vectors); the notebooks rebuild the rest.",
    "Statistics: a correlation, and Spearman's rank correlation (notebook 04 recaps it).",
]


# --------------------------------------------------------------------------- what the build measured

@dataclass
class Chapter:
    """One notebook of the built site: its executed notebook and what the build measured."""
    stem: str
    title: str
    nb: object
    seconds: float | None = None
    error: str | None = None
    headlines: list[str] = field(default_factory=list)
    built: bool = True  # False: a notebook of the course that this build did not run (no page to link)

    @property
    def number(self) -> str:
        return self.stem[:2]

    @property
    def minutes(self) -> str:
        return "not run in this build" if self.seconds is None else f"{self.seconds / 60:.1f} min ({self.seconds:.0f} s)"


def read_index(out: Path) -> dict:
    """The build's ``index.json`` (``{}`` when there is none)."""
    path = Path(out) / "index.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def measured(index: dict) -> dict[str, dict]:
    """``{notebook stem: its index.json entry}``."""
    return {Path(e["notebook"]).stem: e for e in index.get("notebooks", [])}


# --------------------------------------------------------------------------- reading the notebooks

def _md_cells(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def section(nb, heading: str) -> str:
    """The text under the first ``## heading`` of the notebook (up to the next heading of that level)."""
    for text in _md_cells(nb):
        m = re.search(rf"^##\s+{re.escape(heading)}\s*$(.*?)(?=^##\s|\Z)", text, re.M | re.S)
        if m:
            return m.group(1).strip()
    return ""


def list_items(text: str) -> list[str]:
    """The items of the markdown list in ``text`` (``-``, ``*`` or ``1.``), continuation lines joined."""
    items: list[str] = []
    for line in text.splitlines():
        m = re.match(r"^\s{0,3}(?:[-*]|\d+\.)\s+(.*)", line)
        if m:
            items.append(m.group(1).strip())
        elif items and line.strip():
            items[-1] += " " + line.strip()
    return items


def headings(text: str, levels: str = "#{2,3}") -> list[str]:
    return [m.group(1).strip() for m in re.finditer(rf"^{levels}\s+(.+?)\s*$", text, re.M)]


def exercises(nb) -> list[str]:
    """The heading above each ``solution`` cell (the exercise's title)."""
    found, last = [], ""
    for c in nb.cells:
        if c.cell_type == "markdown":
            hs = headings(c.source, "#{2,4}")
            last = hs[-1] if hs else last
        elif "solution" in notebooks.tags(c) and last and last not in found:
            found.append(last)
    return found


def demo_sections(nb) -> list[tuple[str, str]]:
    """``(section heading, what it shows)`` for each section whose cells display a figure or a widget."""
    shows: dict[str, set[str]] = {}
    current = ""
    for c in nb.cells:
        if c.cell_type == "markdown":
            hs = headings(c.source, "#{2,3}")
            current = hs[-1] if hs else current
            continue
        for o in c.get("outputs", []):
            data = o.get("data", {})
            if "image/png" in data:
                shows.setdefault(current, set()).add("figure")
            if "application/vnd.jupyter.widget-view+json" in data or "sbert-snapshot" in str(data.get("text/html", "")):
                shows.setdefault(current, set()).add("widget")
    return [(h, " and ".join(sorted(kinds))) for h, kinds in shows.items() if h]


def mentioned_notebooks(nb, own: str) -> list[str]:
    """Numbers of the earlier notebooks this one's text refers to ("notebook 03", "notebooks 03 and 05")."""
    found = set()
    for text in _md_cells(nb):
        for m in re.finditer(r"\bnotebooks?\s+((?:\d\d)(?:(?:\s*,\s*|\s+(?:and|or|to|–|-)\s+|–)\d\d)*)", text):
            found.update(re.findall(r"\d\d", m.group(1)))
    return sorted(n for n in found if n < own)


# --------------------------------------------------------------------------- the checks' mistakes

def _text_of(node) -> str | None:
    """A string expression as text, each ``{…}`` of an f-string shown as "…"; None if not a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text_of(node.left), _text_of(node.right)
        if left is not None or right is not None:
            return (left or "…") + (right or "")
    return None


def _called_names(fn) -> set[str]:
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
        elif isinstance(node, ast.Name):  # a helper passed along (e.g. to a generic comparison)
            names.add(node.id)
    return names


def _messages(fn) -> list[str]:
    """The mistakes one function's code names: require(...)'s message, ExerciseError(...)'s first
    line, and string keys of dicts mapping a named mistake to a value (the hint catalogues)."""
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            arg = None
            if name == "require" and len(node.args) >= 2:
                arg = node.args[1]
            elif name == "ExerciseError" and node.args:
                arg = node.args[0]
            text = _text_of(arg) if arg is not None else None
            if text:
                out.append(text)
        elif isinstance(node, ast.Dict):
            keys = [_text_of(k) for k in node.keys if k is not None]
            if len(keys) >= 2 and all(k and " " in k and len(k) > 30 for k in keys):
                out.extend(keys)
    return out


def _tidy(message: str) -> str | None:
    first = message.split("\nHint:")[0].split("\n")[0].strip()
    first = re.sub(r"(…\s*){2,}", "… ", first).strip(" :;,")
    if len(first) < 12 or re.search(r"not (written|done) yet|YOUR CODE HERE", first):
        return None
    return first


def check_mistakes(number: str, checks_dir: Path = CHECKS_DIR) -> dict[str, list[str]]:
    """``{check function: [the mistakes it names, …]}`` for notebook ``number``, read from the source of
    ``lessons/nbNN.py`` (never run). A message in a helper is listed under each public ``check_…``
    that reaches the helper; values computed at run time show as "…"."""
    path = Path(checks_dir) / f"nb{number}.py"
    if not path.is_file():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    calls = {name: _called_names(fn) & functions.keys() for name, fn in functions.items()}
    result: dict[str, list[str]] = {}
    for name in [n for n in functions if n.startswith("check_")]:
        seen, todo = {name}, [name]
        while todo:
            new = calls[todo.pop()] - seen
            seen |= new
            todo += new
        tidied = (_tidy(m) for fn in [name] + sorted(seen - {name}) for m in _messages(functions[fn]))
        messages = list(dict.fromkeys(t for t in tidied if t))
        if messages:
            result[name] = messages
    for name, messages in _declared_slips(tree).items():  # exercises checked by the one exercise machinery
        known = result.setdefault(f"check_{name}", [])
        known += [m for m in messages if m not in known]
    return result


KINDS = ("Exercise", "Objective", "Run")   # the three kinds of exercise (sbertlib.workbook.lessons)


def _declared_slips(tree: ast.Module) -> dict[str, list[str]]:
    """``{exercise name: [its named slips' messages, then its hint]}`` of every exercise declared in a lesson
    module's source — ``Exercise(...)``, ``Objective(...)`` or ``Run(...)`` (see :mod:`sbertlib.workbook.lessons`)."""
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in KINDS
                and node.args and _text_of(node.args[0])):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        slips = keywords.get("slips")
        texts = [_text_of(k) for k in slips.keys if k is not None] if isinstance(slips, ast.Dict) else []
        texts.append(_text_of(keywords["hint"]) if "hint" in keywords else None)
        messages = [t for t in (_tidy(x) for x in texts if x) if t]
        if messages:
            found[_text_of(node.args[0])] = messages
    return found


# --------------------------------------------------------------------------- the pages

def _doc(chapter: Chapter) -> str:
    return f"{{doc}}`{chapter.title} <{chapter.stem}>`" if chapter.built else chapter.title


def notebook_title(nb, default: str = "") -> str:
    """The notebook's ``# NN · Title`` line, without the hash."""
    first = nb.cells[0].source.splitlines()[0] if nb.cells and nb.cells[0].source else default
    return first.lstrip("# ").strip()


def course_chapters(built: Sequence[Chapter], folder: Path = notebooks.NOTEBOOK_DIR) -> list[Chapter]:
    """Every notebook of the course in order: the built chapters, and for each notebook in ``folder``
    that this build did not run, a :class:`Chapter` with ``built=False`` and no minutes."""
    have = {c.number for c in built}
    extra = []
    for path in notebooks.notebook_paths(folder):
        if path.name[:2] not in have:
            nb = nbformat.read(path, as_version=4)
            extra.append(Chapter(path.stem, notebook_title(nb, path.stem), nb, built=False))
    return sorted(list(built) + extra, key=lambda c: c.stem)


def syllabus_page(chapters: Sequence[Chapter], index: dict) -> str:
    """The syllabus over ``chapters`` (see :func:`course_chapters`): sessions, prerequisites, and per
    notebook the minutes measured by this build (``index``) and the earlier notebooks it builds on."""
    by_number = {c.number: c for c in chapters}
    profile, machine = index.get("profile", "?"), index.get("machine", "?")
    lines = ["# Syllabus", "",
             "Seven sessions, fifteen notebooks. The minutes are the **running time measured by the build of "
             f"this site** (its `index.json`): profile **{profile}**, on {machine}. They are the time the "
             "notebooks' code takes, not class time: reading, exercises and discussion come on top, and "
             "another profile or machine takes longer or shorter. The Cost line at the top of each notebook "
             "gives its measured times on the other profiles.", "",
             "## Prerequisites", ""]
    lines += [f"- {p}" for p in PREREQUISITES]
    lines += ["- Software: `make lab` in a checkout sets everything up (see the README); the data sets are "
              "listed in `data/README.md`.", ""]
    for k, (title, numbers, about) in enumerate(SESSIONS, 1):
        present = [by_number[n] for n in numbers if n in by_number]
        if not present:
            continue
        timed = [c.seconds for c in present if c.seconds is not None]
        total = (f"{sum(timed) / 60:.1f} min measured" if len(timed) == len(present) else
                 f"{sum(timed) / 60:.1f} min measured for {len(timed)} of {len(present)} notebooks" if timed else
                 "not measured (this build did not run these notebooks)")
        lines += [f"## Session {k} · {title}", "", f"{about[0].upper()}{about[1:]}. Running time: {total}.", "",
                  "| notebook | measured | builds on |", "|---|---|---|"]
        for c in present:
            after = mentioned_notebooks(c.nb, c.number)
            builds_on = ", ".join(f"{{doc}}`{n} <{by_number[n].stem}>`" if n in by_number and by_number[n].built
                                  else n for n in after) or "—"
            status = "" if c.error is None else " (failed in this build)"
            lines.append(f"| {_doc(c)} | {c.minutes}{status} | {builds_on} |")
        lines.append("")
    timed = [c.seconds for c in chapters if c.seconds is not None]
    lines += [f"All notebooks of this build ({len(timed)} of {len(chapters)}): {sum(timed) / 60:.1f} minutes of "
              f"running time on profile {profile}.", "",
              "Every notebook has its instructor notes ({doc}`instructor-notes`) and its student copy "
              "({doc}`downloads`)."]
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def instructor_notes_page(chapters: Sequence[Chapter]) -> str:
    lines = ["# Instructor notes", "",
             "Per notebook: what to demo, the exercises, **where students stumble** — the mistakes that "
             "notebook's checks recognise and answer with a hint, read from the checks' source "
             "(`sbertlib/workbook/lessons/nbNN.py`; \"…\" stands for a value filled in at run time) — and "
             "the notebook's own questions as discussion prompts (their answers are in the chapter). "
             "The measured minutes come from this build's `index.json`.", ""]
    for c in chapters:
        opening = f"{{doc}}`Open the chapter <{c.stem}>` · running time {c.minutes}" if c.built else \
            "Not part of this build's site (no outputs, so no figures to point at)"
        lines += [f"(notes-{c.number})=", f"## {c.title}", "",
                  opening + ("" if c.error is None else " (failed in this build)"), ""]
        goals = list_items(section(c.nb, "Learning goals"))
        if goals:
            lines += ["### Learning goals", ""] + [f"- {g}" for g in goals] + [""]
        demos = demo_sections(c.nb)
        if demos or c.headlines:
            lines += ["### What to demo", ""]
            lines += [f"- Section *{_md_escape(h)}* — its {what}: run it live, and ask for a prediction before it shows."
                      for h, what in demos]
            if c.headlines:
                lines += ["- The headline result, which this build printed as:", "",
                          "  ```{code-block} text", "  :class: sbert-headline", ""]
                lines += ["  " + line for h in c.headlines for line in h.splitlines()]
                lines += ["  ```"]
            lines.append("")
        ex = exercises(c.nb)
        if ex:
            lines += ["### Exercises", ""] + [f"- {_md_escape(e)}" for e in ex] + [""]
        mistakes = check_mistakes(c.number)
        lines += ["### Where students stumble", ""]
        if mistakes:
            for check, messages in mistakes.items():
                lines.append(f"- `{check}` answers:")
                lines += [f"  - {_md_escape(m)}" for m in messages]
        else:
            lines.append("- This notebook's checks name no particular mistakes.")
        lines.append("")
        questions = list_items(section(c.nb, "Questions"))
        if questions:
            lines += ["### Discussion prompts", ""] + [f"{i}. {q}" for i, q in enumerate(questions, 1)] + [""]
    return "\n".join(lines) + "\n"


def student_zip(notebook_paths: Iterable[Path], dest: Path) -> list[str]:
    """A zip of the student copies (:func:`~sbertlib.workbook.publish.notebooks.student_copy`) of the notebooks,
    under ``sbert-workbook-student/``, with a README; returns the notebook names in it."""
    names = []
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in notebook_paths:
            nb = notebooks.student_copy(nbformat.read(path, as_version=4))
            nb.metadata.pop("widgets", None)
            buf = io.StringIO()
            nbformat.write(nb, buf)
            zf.writestr(f"sbert-workbook-student/{Path(path).name}", buf.getvalue())
            names.append(Path(path).name)
        zf.writestr("sbert-workbook-student/README.txt", STUDENT_README)
    return names


STUDENT_README = f"""sbert-workbook: the student copies
================================

One notebook per chapter of the course. Each exercise cell holds a stub ("YOUR CODE HERE"); write
your answer there and run the check cell below it: it prints [OK] for a correct answer and a hint
naming the mistake otherwise. The answers to the questions are not in these copies.

The notebooks need the sbertlib package. In a checkout of the workbook ({WORKBOOK_URL}):

    make lab          # creates .venv, installs sbertlib, opens JupyterLab

and open these notebooks from there, or install the package into your own environment:

    pip install "{colab.install_spec()}"

Licences: code MIT; notebook text CC BY 4.0 (see the course site's licence page).
"""


def downloads_page(names: Sequence[str]) -> str:
    listing = "\n".join(f"- `{n}`" for n in names)
    return f"""# Student download

{{download}}`Download the student copies (zip) <downloads/{STUDENT_ZIP}>` — {len(names)} notebooks.

Each is the chapter's notebook as a student starts it (made by
`sbertlib.workbook.publish.notebooks.student_copy`, the same as `make student`): every exercise's answer
replaced by its stub, the questionnaire's answers left out, no outputs. Write your answer in the stub
and run the check cell under it.

To run them, the notebooks need the `sbertlib` package: in a checkout of the
[workbook's repository]({WORKBOOK_URL}) run `make lab` (it creates the environment and opens
JupyterLab), or install it into your own environment with `pip install "{colab.install_spec()}"`.
Each chapter's page also offers the executed notebook (the download button at its top).

{listing}
"""


def _copyright() -> str:
    """The copyright line of the repository's LICENSE (MIT)."""
    path = ROOT / "LICENSE"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return next((ln.strip() for ln in lines if ln.strip().lower().startswith("copyright")),
                "Copyright (c) the sbert-workbook authors")


def licence_page() -> str:
    return f"""# Licence and how to cite

## Licence

- **Code** — the `sbertlib` package, the notebooks' code cells and this site's build — is under the
  **MIT licence** (the repository's `LICENSE`: "{_copyright()}").
- **Text** — the notebooks' prose, questions and answers, and these pages — is under
  **Creative Commons Attribution 4.0 International** ([CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)):
  share and adapt it, for any purpose, naming the workbook.
- **Data sets** keep their own licences (several share-alike, non-commercial or research-only): see
  `data/README.md` in the repository. None is copied into it or into this site.
- The paper's figures quoted beside ours are cited from the paper.

## How to cite

The paper this course rebuilds — Reimers and Gurevych, EMNLP-IJCNLP 2019, pages 3982–3992
([ACL Anthology]({PAPER_ACL}), [arXiv:1908.10084]({PAPER_ARXIV}), [code]({PAPER_CODE})):

```bibtex
{PAPER_BIBTEX}
```

This workbook ([{colab.REPOSITORY}]({WORKBOOK_URL})):

```bibtex
@misc{{sbert-workbook,
    title = "sbert-workbook: rebuild and understand Sentence-BERT, a course in notebooks",
    author = "{{the sbert-workbook authors}}",
    howpublished = "\\url{{{WORKBOOK_URL}}}",
    note = "Code under the MIT licence, text under CC BY 4.0",
}}
```
"""
