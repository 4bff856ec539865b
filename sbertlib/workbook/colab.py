"""A notebook opened outside the checkout (Colab's "open from GitHub", a downloaded ``.ipynb``).

Every notebook carries, written by :func:`apply` (``python -m sbertlib colab --repo OWNER/NAME`` for a fork: the
README's "Your own fork"), an "Open in Colab" badge in its first cell and a set-up cell (tagged ``setup``) that does
nothing where ``sbertlib`` can be imported and elsewhere pip-installs it from :data:`REPOSITORY`
(``$SBERTLIB_INSTALL`` overrides what is installed); the data sets then arrive from the Hugging Face Hub.

What goes into the set-up cell is code Colab runs when a student opens the notebook, so nothing typed may become
code: the repository (:func:`check_repo`), the branch (:func:`check_branch`) and the install spec made of them
(:func:`check_install_spec`) are validated, and even a value that passes is written into the cell with ``repr()``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
from ..errors import MissingPath, SettingError

REPOSITORY = "sbert-workbook/sbert-workbook"  # GitHub owner/name the workbook is published at
BRANCH = "main"
INSTALL_ENV = "SBERTLIB_INSTALL"
RAW_ENV = "SBERTLIB_RAW_BASE"  # where a notebook opened alone fetches the repository's files (tests: a local server)
_BADGE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)\n*")
_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"


_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"       # GitHub's user and organisation names
_NAME = r"[A-Za-z0-9._-]{1,100}"
_REPO = re.compile(rf"({_OWNER})/({_NAME})")
_REPO_URL = re.compile(rf"(?:https://|git\+https://)?(?:www\.)?github\.com/({_OWNER})/({_NAME}?)(?:\.git)?/?")
_BRANCH_CHARS = re.compile(r"[A-Za-z0-9._/+-]{1,255}")
_UNSAFE_SPEC = re.compile(r"[\s'\"`\\;|&$<>(){}\x00-\x1f\x7f]")


def check_repo(repo: str) -> str:
    """``repo`` as GitHub's OWNER/NAME (given so, or as ``https://github.com/OWNER/NAME[.git]``);
    ValueError naming it otherwise."""
    found = (_REPO.fullmatch(repo) or _REPO_URL.fullmatch(repo)) if isinstance(repo, str) else None
    if not found or found.group(2) in (".", ".."):
        raise SettingError(f"--repo {repo!r}: expected GitHub's OWNER/NAME (letters, digits, '-'; the name also '.' "
                           f"and '_'), or https://github.com/OWNER/NAME, e.g. {REPOSITORY}")
    return f"{found.group(1)}/{found.group(2)}"


def check_branch(branch: str) -> str:
    """``branch`` if git would take it as a branch name (``git check-ref-format --branch``) and it is
    made of letters, digits and ``. _ - / +`` only (no space, quote, ``@``, ``#``...: it goes into a
    URL and into code); ValueError naming it otherwise."""
    ok = (isinstance(branch, str) and _BRANCH_CHARS.fullmatch(branch) is not None and not branch.startswith(("-", "/"))
          and not branch.endswith(("/", ".")) and ".." not in branch and "//" not in branch
          and not any(part.startswith(".") or part.endswith(".lock") for part in branch.split("/")))
    if not ok:
        raise SettingError(f"--branch {branch!r}: not a branch name this command writes into the notebooks: use "
                           f"letters, digits and . _ - / + (git's rules: no '..', '//', no part starting with '.' "
                           f"or ending in '.lock'), e.g. {BRANCH}")
    return branch


def check_install_spec(spec: str) -> str:
    """``spec`` if it is one thing for pip to install: a requirement (``name[extras] @ URL`` included,
    as ``packaging.requirements`` reads it) or a URL, with no quote, space (but around ``@``) or
    control character; ValueError naming it otherwise."""
    from packaging.requirements import InvalidRequirement, Requirement   # a dependency of transformers
    ok = isinstance(spec, str) and 0 < len(spec) <= 1000 and not _UNSAFE_SPEC.search(spec.replace(" @ ", "@"))
    if ok:
        try:
            Requirement(spec)
        except InvalidRequirement:
            ok = re.fullmatch(r"(?:https?|file|git\+https?)://\S+", spec) is not None
    if not ok:
        raise SettingError(f"install spec {spec!r}: expected one pip requirement or URL, with no quotes, spaces or "
                           "control characters, e.g. " + _spec(REPOSITORY, BRANCH))
    return spec


def colab_url(notebook: str, repo: str = REPOSITORY, branch: str = BRANCH) -> str:
    """Colab's address of ``notebooks/<notebook>`` in ``repo`` on GitHub."""
    repo, branch = check_repo(repo), check_branch(branch)
    return f"https://colab.research.google.com/github/{repo}/blob/{branch}/notebooks/{notebook}"


def badge(notebook: str, repo: str = REPOSITORY, branch: str = BRANCH) -> str:
    """The Markdown of an "Open in Colab" badge for ``notebook``."""
    return f"[![Open In Colab]({_BADGE_IMAGE})]({colab_url(notebook, repo, branch)})"


def plain_link(text: str) -> str:
    """``text`` with its badge as a plain "Open in Colab" link: the course site loads nothing from
    outside localhost, and the badge's image lives on Colab's server."""
    return re.sub(r"\[!\[Open In Colab\]\([^)]*\)\]\(([^)]*)\)", r"[Open in Colab ↗](\1)", text)


def _spec(repo: str, branch: str) -> str:
    return f"sbertlib[workbook,search,offline] @ git+https://github.com/{repo}@{branch}"


def install_spec(repo: str = REPOSITORY, branch: str = BRANCH) -> str:
    """What pip installs outside a checkout: the package with every extra the notebooks use."""
    return check_install_spec(_spec(check_repo(repo), check_branch(branch)))


def setup_source(repo: str = REPOSITORY, branch: str = BRANCH) -> str:
    """The set-up cell: kept short and free of sbertlib imports (it runs before sbertlib exists). The
    install spec is validated and written with ``repr()``: no repository or branch becomes code."""
    spec = install_spec(repo, branch)
    return (
        "# Opened alone (Colab, a downloaded notebook)? This installs sbertlib; the data sets then arrive from the\n"
        "# Hugging Face Hub on first use. Where sbertlib is installed already (the checkout, `make lab`) it does nothing.\n"
        "import importlib.util, os, subprocess, sys\n"
        "if importlib.util.find_spec(\"sbertlib\") is None:\n"
        f"    spec = os.environ.get({_quoted(INSTALL_ENV)}, {_quoted(spec)})\n"
        "    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"--quiet\", spec], check=True)")


def _quoted(text: str) -> str:
    """``text`` as a Python string literal: double-quoted like the rest of the cell where that is exact."""
    literal = repr(text)
    return f'"{text}"' if literal == f"'{text}'" and '"' not in text and "\\" not in text else literal


def _with_badge(text: str, notebook: str, repo: str, branch: str) -> str:
    """``text`` (a notebook's first cell, or the README) with its badge made current, after the title."""
    text = _BADGE.sub("", text)
    title, _, rest = text.partition("\n")
    return f"{title}\n\n{badge(notebook, repo, branch)}\n{rest.lstrip(chr(10)) and chr(10) + rest.lstrip(chr(10))}"


def apply_to_notebook(nb, name: str, repo: str = REPOSITORY, branch: str = BRANCH):
    """``nb`` with its badge and set-up cell current (added where missing)."""
    repo, branch = check_repo(repo), check_branch(branch)
    nb.cells[0].source = _with_badge(nb.cells[0].source, name, repo, branch)
    setup = [c for c in nb.cells if "setup" in c.metadata.get("tags", [])]
    if setup:
        setup[0].source = setup_source(repo, branch)
    else:
        nb.cells.insert(1, nbformat.v4.new_code_cell(setup_source(repo, branch), metadata={"tags": ["setup"]}))
    return nb


def apply(folder: Path, readme: Path | None = None, repo: str = REPOSITORY, branch: str = BRANCH) -> list[Path]:
    """Make every notebook in ``folder`` (and the README's first badge) point at ``repo``; the
    files changed. A ``repo`` or ``branch`` that could not be written safely: ValueError, nothing changed."""
    repo, branch = check_repo(repo), check_branch(branch)
    changed = []
    for path in sorted(Path(folder).glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        after = nbformat.writes(apply_to_notebook(nb, path.name, repo, branch))
        if after != before:
            path.write_text(after + ("" if after.endswith("\n") else "\n"), encoding="utf-8")
            changed.append(path)
    if readme is not None:
        text = Path(readme).read_text(encoding="utf-8")
        new = _with_badge(text, "00_setup_and_tour.ipynb", repo, branch)
        if new != text:
            Path(readme).write_text(new, encoding="utf-8")
            changed.append(Path(readme))
    return changed


def raw_base(repo: str = REPOSITORY, branch: str = BRANCH) -> str:
    """Where the repository's files can be read one by one: ``$SBERTLIB_RAW_BASE``, else GitHub's raw host."""
    return (os.environ.get(RAW_ENV) or f"https://raw.githubusercontent.com/{check_repo(repo)}/{check_branch(branch)}"
            ).rstrip("/")


def example_file(relpath: str, here: str | os.PathLike = ".") -> Path:
    """A file of the workbook's ``notebooks/`` folder (e.g. ``examples/course_questions.tsv``): the copy
    beside the notebook where there is one (a clone, student copies), else downloaded next to it from
    the repository — a notebook opened alone, on Colab — once."""
    local = Path(here) / relpath
    if local.is_file():
        return local
    from ..data import files
    url = f"{raw_base()}/notebooks/{relpath}"
    try:
        return files.download(url, local)
    except (OSError, ValueError) as exc:
        raise MissingPath(f"{relpath} is not beside this notebook and could not be downloaded from {url} "
                          f"({exc}); clone the repository, or upload the file next to the notebook") from None
