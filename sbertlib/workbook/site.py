"""The course website: the executed notebooks as a book, built and viewed offline.

Built with **Jupyter Book 1** (Sphinx with the book theme). Why this one: Jupyter Book 2 (MyST) asks a
web API for its theme at build time and fails offline, and ``quarto-cli`` downloads its binary when it
installs; Jupyter Book 1 comes whole from PyPI, builds offline in seconds and gives chapter order in a
sidebar, full-text search and a contents box on every page. What its pages would still fetch from the
internet is replaced: MathJax comes from a local copy (MathJax 2.7, packaged on PyPI as
``jupyter-server-mathjax``) and the ipywidgets manager is not loaded at all — widgets show their static
snapshots (:func:`sbertlib.workbook.build.static_copy`), and live widgets need a kernel anyway.

    build_site(executed, results, out)     # → out/site/index.html, the landing page

The landing page holds the course outline, the machine and profile that produced the numbers, and the
headline results of every notebook (their ``headline`` cells).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Sequence

import nbformat

from . import notebooks
from .build import SITE_DIR, static_copy

MATHJAX_CONFIG = "TeX-AMS_CHTML"
_OBJECTIVES = r"""
The paper's three objectives, for sentence vectors $u$, $v$ (anchor $a$, positive $p$, negative $n$):

$$o = \mathrm{softmax}\left(W_t\,[u;\ v;\ |u - v|]\right) \qquad
\mathcal{L}_{\text{reg}} = \left(\cos(u, v) - y\right)^2 \qquad
\mathcal{L}_{\text{triplet}} = \max\left(\lVert a - p\rVert - \lVert a - n\rVert + \epsilon,\ 0\right)$$
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


def _config(title: str) -> str:
    return textwrap.dedent(f"""\
        title: "{title}"
        author: sbert-workbook
        only_build_toc_files: true
        execute:
          execute_notebooks: "off"
        html:
          use_repository_button: false
          use_issues_button: false
          use_edit_page_button: false
          use_multitoc_numbering: false
        launch_buttons:
          binderhub_url: ""
          jupyterhub_url: ""
          colab_url: ""
          thebe: false
        parse:
          myst_enable_extensions: [dollarmath, amsmath]
        sphinx:
          config:
            mathjax_path: "mathjax/MathJax.js?config={MATHJAX_CONFIG}"
            mathjax2_config:
              tex2jax:
                inlineMath: [["\\\\(", "\\\\)"]]
                displayMath: [["\\\\[", "\\\\]"]]
                processEscapes: true
            myst_update_mathjax: false
            nb_ipywidgets_js: {{}}
            html_static_path: ["assets"]
            html_show_copyright: false
            suppress_warnings: ["myst.header", "misc.highlighting_failure", "mystnb.unknown_mime_type"]
        """)


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
        nbformat.write(nb, src / path.name)
        chapters.append((path.stem, _title(nb)))
    shutil.copytree(mathjax_dir(), src / "assets" / "mathjax",
                    ignore=lambda d, names: [n for n in names if Path(d).name == "localization" and n != "en"])
    (src / "intro.md").write_text(_landing(chapters, results, profile, machine), encoding="utf-8")
    (src / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                  + "".join(f"- file: {stem}\n" for stem, _ in chapters))
    (src / "_config.yml").write_text(_config(title))
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run([str(jb) if jb.is_file() else "jupyter-book", "build", str(src), "--quiet"],
                          capture_output=True, text=True)
    html_dir = src / "_build" / "html"
    if proc.returncode != 0 or not (html_dir / "index.html").is_file():
        raise RuntimeError("the course site did not build:\n" + "\n".join((proc.stdout + proc.stderr).splitlines()[-30:]))
    site = out / SITE_DIR
    shutil.rmtree(site, ignore_errors=True)
    shutil.move(str(html_dir), site)
    shutil.rmtree(src, ignore_errors=True)
    (site / "index.json").write_text(json.dumps({"profile": profile, "machine": machine,
                                                 "chapters": [s for s, _ in chapters]}, indent=2))
    return site / "index.html"
