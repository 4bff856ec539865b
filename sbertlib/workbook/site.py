"""The course website: the executed notebooks as a book, built and viewed offline.

Built with **Jupyter Book 1**'s stack — Sphinx, myst-nb, the book theme and its table of contents, all
from PyPI. Why this one: Jupyter Book 2 (MyST) asks a web API for its theme at build time and fails
offline, and ``quarto-cli`` downloads its binary when it installs; Jupyter Book 1 builds offline in
seconds and gives chapter order in a sidebar, full-text search and a contents box on every page. We run
Sphinx with our own ``conf.py`` rather than the ``jupyter-book`` command, to leave out the two
extensions that would reach the internet (thebe, which also declares its script twice, and comments).
What the pages would still fetch is replaced: MathJax comes from a local copy (MathJax 2.7, packaged on
PyPI as ``jupyter-server-mathjax``) and the ipywidgets manager is not loaded at all — widgets show their
static snapshots (:func:`sbertlib.workbook.build.static_copy`); live widgets need a kernel anyway.

    build_site(executed, results, out)     # → out/site/index.html, the landing page

The landing page holds the course outline, the machine and profile that produced the numbers, and the
headline results of every notebook (their ``headline`` cells).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import nbformat

from . import colab, notebooks
from .build import SITE_DIR, static_copy

FAVICON = ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' "
           "fill='#2b6cb0'/><text x='8' y='12' font-size='10' text-anchor='middle' fill='white'>S</text></svg>")
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full"  # the one configuration that package ships
_OBJECTIVES = r"""
The paper's three objectives, for sentence vectors $u$, $v$ (anchor $a$, positive $p$, negative $n$) —
classification, regression and triplet:

$$o = \mathrm{softmax}\left(W_t\,[u;\ v;\ |u - v|]\right)$$

$$L_{\text{reg}} = \left(\cos(u, v) - y\right)^2$$

$$L_{\text{triplet}} = \max\left(\lVert a - p\rVert - \lVert a - n\rVert + \epsilon,\ 0\right)$$
"""


def mathjax_dir() -> Path:
    """The local MathJax 2.7 that the pages load (never a CDN)."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        raise RuntimeError("the course site needs a local MathJax: pip install jupyter-server-mathjax "
                           "(in the [workbook] extra)") from None
    return Path(jupyter_server_mathjax.__file__).parent / "static"


def _title(nb) -> str:
    """The notebook's ``# NN · Title`` line, without the hash."""
    first = nb.cells[0].source.splitlines()[0] if nb.cells and nb.cells[0].source else ""
    return first.lstrip("# ").strip()


def _landing(chapters: list[tuple[str, str]], results: Sequence[notebooks.RunResult], profile: str,
             machine: str) -> str:
    outline = "\n".join(f"{i + 1}. {{doc}}`{title} <{stem}>`" for i, (stem, title) in enumerate(chapters))
    total = sum(r.seconds for r in results)
    rows = []
    for r in results:
        status = "" if r.error is None else f" — **failed**: {r.error}"
        text = "\n".join(r.headlines) or "(no headline)"
        rows.append(f"### {{doc}}`{r.path.stem}`\n\n{r.seconds:.0f} s{status}\n\n```text\n{text}\n```\n")
    return f"""# sbert-workbook — rebuild and understand Sentence-BERT

A course in notebooks on *Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks* (Reimers &
Gurevych, EMNLP 2019): from broken CLS and mean BERT baselines, through the siamese network and its
training that you write yourself, to STS evaluation, ablations, transfer, pictures of the embedding
space, a similarity explorer, a speed lab, applications and your own data.
{_OBJECTIVES}
## Course outline

{outline}

## Where these numbers come from

Every number on these pages was produced by running the notebooks: profile **{profile}**, on {machine};
{total / 60:.1f} minutes for all of them. The paper's figures are shown beside ours in each chapter; a
stand-in's number is never the paper's. Widgets appear as the snapshot they recorded; open the notebooks in
JupyterLab (`make lab`) to use them live.

## Headline results

{chr(10).join(rows)}"""


def _conf_py(title: str) -> str:
    """Sphinx's configuration: Jupyter Book 1's stack (myst-nb, the book theme, its table of contents)
    without the extensions that would reach the internet (thebe, comments)."""
    conf = {
        "project": title, "html_title": title, "author": "sbert-workbook",
        "extensions": ["myst_nb", "sphinx_external_toc", "sphinx_design", "sphinx_copybutton",
                       "sphinx_togglebutton", "sphinx_book_theme"],
        "external_toc_path": "_toc.yml", "external_toc_exclude_missing": False,
        "exclude_patterns": ["_build", "assets", "**.ipynb_checkpoints"],
        "html_theme": "sphinx_book_theme",
        "html_theme_options": {"search_bar_text": "Search the course...", "home_page_in_toc": True,
                               "use_repository_button": False, "use_issues_button": False,
                               "use_edit_page_button": False, "use_download_button": True, "launch_buttons": {}},
        "html_context": {"default_mode": "light"},
        "html_static_path": ["assets"], "html_favicon": "assets/favicon.svg",
        "html_show_copyright": False, "html_sourcelink_suffix": "",
        "nb_execution_mode": "off", "nb_ipywidgets_js": {}, "nb_output_stderr": "remove",
        "myst_enable_extensions": ["dollarmath", "amsmath"], "myst_update_mathjax": False,
        "mathjax_path": f"mathjax/MathJax.js?config={MATHJAX_CONFIG}",
        "mathjax2_config": {
            # the fonts that package ships; MathJax's blank measuring font without its about:blank source
            "HTML-CSS": {"availableFonts": [], "webFont": "STIX-Web", "imageFont": None,
                         "styles": {"@font-face": {"font-family": "MathJax_Blank", "src": "local('MathJax_Blank')"}}},
            "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True}},
        "suppress_warnings": ["myst.header", "misc.highlighting_failure", "mystnb.unknown_mime_type"],
    }
    return "".join(f"{key} = {value!r}\n" for key, value in conf.items())


def build_site(executed: Sequence[Path], results: Sequence[notebooks.RunResult], out: Path, profile: str,
               machine: str, title: str = "sbert-workbook") -> Path:
    """Build the book from the executed notebooks into ``out/site``; returns its ``index.html``.

    Raises RuntimeError with the tool's last output lines if the build fails.
    """
    src = out / "site-src"
    shutil.rmtree(src, ignore_errors=True)
    (src / "assets").mkdir(parents=True)  # not "_static": Jupyter Book puts every .js found there on every page
    chapters = []
    for path in executed:
        nb = static_copy(nbformat.read(path, as_version=4))
        nb.cells[0].source = colab.plain_link(nb.cells[0].source)  # a link each chapter heads, no remote image
        nbformat.write(nb, src / path.name)
        chapters.append((path.stem, _title(nb)))
    shutil.copytree(mathjax_dir(), src / "assets" / "mathjax",
                    ignore=lambda d, names: [n for n in names if Path(d).name == "localization" and n != "en"])
    (src / "assets" / "favicon.svg").write_text(FAVICON)
    (src / "intro.md").write_text(_landing(chapters, results, profile, machine), encoding="utf-8")
    (src / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                  + "".join(f"- file: {stem}\n" for stem, _ in chapters))
    (src / "conf.py").write_text(_conf_py(title))
    html_dir = src / "_build" / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(html_dir)],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not (html_dir / "index.html").is_file():
        raise RuntimeError("the course site did not build:\n" + "\n".join((proc.stdout + proc.stderr).splitlines()[-30:]))
    site = out / SITE_DIR
    shutil.rmtree(site, ignore_errors=True)
    shutil.move(str(html_dir), site)
    shutil.rmtree(src, ignore_errors=True)
    (site / "index.json").write_text(json.dumps({"profile": profile, "machine": machine,
                                                 "chapters": [s for s, _ in chapters]}, indent=2))
    return site / "index.html"
