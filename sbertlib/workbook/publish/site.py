"""The course website: the executed notebooks as a book, built and viewed offline (the README's section "The
course site" says what it holds, and why Jupyter Book 1's stack: Jupyter Book 2 asks a web API for its theme at build
time, ``quarto-cli`` downloads its binary when it installs).

We run Sphinx with our own ``conf.py`` (:func:`_conf_py`) rather than the ``jupyter-book`` command, to leave out the
extensions that would reach the internet (thebe, which also declares its script twice, and comments). MathJax 2.7
is a local copy (``jupyter-server-mathjax``); widgets show their static snapshots (:func:`static_copy`).

    build_site(executed, results, out)     # → out/site/index.html, the landing page

:mod:`.site_pages` makes the pages for running a course; :func:`finish_pages` finishes the built pages in place: alt
text for figures (:mod:`.figalt`), links, relative paths, labelled solution cells, no source maps.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import nbformat

from .. import colab
from . import notebooks, site_pages

ASSETS = Path(__file__).resolve().parent / "site_assets"  # course.css, course.js
FAVICON = ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' "
           "fill='#2b6cb0'/><text x='8' y='12' font-size='10' text-anchor='middle' fill='white'>S</text></svg>")
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full"  # the one configuration that package ships
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SITE_DIR = "site"  # the course site, under the build folder
COURSE_PAGES = ("syllabus", "instructor-notes", "downloads", "licence")
_OBJECTIVES = r"""
The paper's three objectives, for sentence vectors $u$, $v$ (anchor $a$, positive $p$, negative $n$) —
classification, regression and triplet:

$$o = \mathrm{softmax}\left(W_t\,[u;\ v;\ |u - v|]\right)$$

$$L_{\text{reg}} = \left(\cos(u, v) - y\right)^2$$

$$L_{\text{triplet}} = \max\left(\lVert a - p\rVert - \lVert a - n\rVert + \epsilon,\ 0\right)$$
"""


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


def mathjax_dir() -> Path:
    """The local MathJax 2.7 that the pages load (never a CDN)."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        raise RuntimeError("the course site needs a local MathJax: pip install jupyter-server-mathjax "
                           "(in the [workbook] extra)") from None
    return Path(jupyter_server_mathjax.__file__).parent / "static"


# --------------------------------------------------------------------------- absolute paths

def path_rewrites(out: Path) -> list[tuple[str, str]]:
    """``(absolute prefix, what a reader sees instead)``, longest first: the build folder and the
    checkout become relative paths (``runs/…``, ``notebooks/…``), the data folder
    ``$SBERTLIB_DATA_DIR/…``, the home folder ``~/…``."""
    from ... import config
    pairs = {str(Path(out).resolve()): "", str(site_pages.ROOT): ""}
    try:
        pairs.setdefault(str(config.data_dir().resolve()), "$SBERTLIB_DATA_DIR/")
    except Exception:  # no data folder configured: nothing to hide
        pass
    home = os.path.expanduser("~")
    if home not in ("", "/"):
        pairs.setdefault(home, "~/")
    return [(prefix.rstrip("/"), short) for prefix, short in sorted(pairs.items(), key=lambda kv: -len(kv[0]))
            if len(prefix.rstrip("/")) > 1]


def relative_paths(text: str, rewrites: Sequence[tuple[str, str]]) -> str:
    """``text`` with every path under a prefix of :func:`path_rewrites` shortened (``PREFIX/x`` → ``x``
    or ``$SBERTLIB_DATA_DIR/x``; the prefix alone → ``.`` or ``$SBERTLIB_DATA_DIR``)."""
    for prefix, short in rewrites:
        if prefix in text:
            text = re.sub(re.escape(prefix) + r"(/|(?![\w\-]|\.\w))",
                          lambda m, short=short: short if m.group(1) == "/" else (short.rstrip("/") or "."), text)
    return text


def _rewrite_outputs(nb, rewrites) -> None:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = relative_paths(out["text"], rewrites)
            if "traceback" in out:
                out["traceback"] = [relative_paths(t, rewrites) for t in out["traceback"]]
            for mime, value in out.get("data", {}).items():
                if mime.startswith("text/") and isinstance(value, str):
                    out["data"][mime] = relative_paths(value, rewrites)


# --------------------------------------------------------------------------- figures' alt text

def _plain(markdown: str) -> str:
    text = re.sub(r"`([^`]*)`", r"\1", markdown)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"[*_#>$]", "", text).split())


def figure_alts(nb, title: str) -> dict[str, str]:
    """``{sha256 of the PNG: alt text}`` for every figure of an executed notebook: the figure's titles
    and axis labels as recorded by :mod:`.figalt`, else "Figure k of <chapter>, section <heading>"."""
    alts, section, k = {}, "", 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heads = re.findall(r"^#{1,4}\s+(.+?)\s*$", cell.source, re.M)
            section = _plain(heads[-1]) if heads else section
            continue
        for out in cell.get("outputs", []):
            png = out.get("data", {}).get("image/png")
            if not png:
                continue
            k += 1
            import base64
            digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
            recorded = out.get("metadata", {}).get("image/png", {}).get("alt", "")
            where = f"{title}" + (f", section “{section}”" if section and section != title else "")
            alts[digest] = f"Figure: {recorded} ({where})" if recorded else f"Figure {k} of {where}"
    return alts


# --------------------------------------------------------------------------- the landing page

def _glossary() -> str:
    from ..profiles import PROFILES
    rows = "\n".join(f"| **{p.name}** | {p.description} | {'yes' if p.stand_in else 'no'} |" for p in PROFILES.values())
    return f"""## What "offline", "stand-in" and the other labels mean

Every number on these pages names the **profile** that produced it: one switch that picks the model
the notebooks start from, how much data they train on and how long. The same notebooks run on all four.

| profile | what it runs | stand-in? |
|---|---|---|
{rows}

- **offline** is the profile for a classroom without internet: nothing is downloaded; the encoder
  starts from random weights (unless a plain BERT is already in the local Hugging Face cache) and is
  trained from scratch on the NLI and STS data that ship with the
  course, so its scores are far below the paper's (the point is to watch it learn).
- **stand-in** marks a model that is *not* the paper's plain pre-trained BERT: a BERT with random
  weights (it knows nothing until trained), or the packaged `all-MiniLM-L6-v2`, a small encoder
  already trained for similarity, shown as a *reference* for what a fully trained SBERT-like model
  scores. A stand-in's number is never the paper's: the paper's figures are printed beside ours,
  labelled `paper: …`.
- **dry run** (a `[DRY RUN …]` label) times a profile with random weights: its scores mean nothing.
"""


def _landing(chapters: list[tuple[str, str]], results: Sequence[notebooks.RunResult], profile: str,
             machine: str) -> str:
    outline = "\n".join(f"{i + 1}. {{doc}}`{title} <{stem}>`" for i, (stem, title) in enumerate(chapters))
    total = sum(r.seconds for r in results)
    rows = []
    for r in results:
        status = "" if r.error is None else f" — **failed**: {r.error}"
        text = "\n".join(r.headlines) or "(no headline)"
        rows.append(f"### {{doc}}`{r.path.stem}`\n\n{r.seconds:.0f} s on this build{status}\n\n"
                    f"```{{code-block}} text\n:class: sbert-headline\n\n{text}\n```\n")
    return f"""# sbert-workbook — rebuild and understand Sentence-BERT

A course in notebooks on *Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks* (Reimers &
Gurevych, EMNLP 2019 — [ACL Anthology]({site_pages.PAPER_ACL}), [arXiv:1908.10084]({site_pages.PAPER_ARXIV}),
the authors' code: [sentence-transformers]({site_pages.PAPER_CODE})): from broken CLS and mean BERT
baselines, through the siamese network and its training that you write yourself, to STS evaluation,
ablations, transfer, pictures of the embedding space, a similarity explorer, a speed lab, applications
and your own data.
{_OBJECTIVES}
## Course outline

{outline}

For running a course: the {{doc}}`syllabus`, the {{doc}}`instructor notes <instructor-notes>`, the
{{doc}}`student copies to download <downloads>`, and the {{doc}}`licence and how to cite <licence>`.
The workbook's code: [{colab.REPOSITORY}]({site_pages.WORKBOOK_URL}).

## Where these numbers come from

Every number on these pages was produced by running the notebooks: profile **{profile}**, on {machine};
{total / 60:.1f} minutes for all of them. The paper's figures are shown beside ours in each chapter; a
stand-in's number is never the paper's. Widgets appear as the snapshot they recorded; open the notebooks in
JupyterLab (`make lab`) to use them live.

{_glossary()}
## Headline results

{chr(10).join(rows)}"""


# --------------------------------------------------------------------------- Sphinx

def _conf_py(title: str) -> str:
    """Sphinx's configuration: Jupyter Book 1's stack without thebe and comments (see the module docstring)."""
    footer = (f'The paper: <a href="{site_pages.PAPER_ACL}">ACL Anthology</a> · '
              f'<a href="{site_pages.PAPER_ARXIV}">arXiv:1908.10084</a> · '
              f'<a href="{site_pages.PAPER_CODE}">sentence-transformers</a> — '
              f'this workbook: <a href="{site_pages.WORKBOOK_URL}">code</a> (MIT), text CC BY 4.0 · '
              '<a href="licence.html">licence and how to cite</a>')
    conf = {
        "project": title, "html_title": title, "author": "sbert-workbook",
        "extensions": ["myst_nb", "sphinx_external_toc", "sphinx_design", "sphinx_copybutton",
                       "sphinx_togglebutton", "sphinx_book_theme"],
        "external_toc_path": "_toc.yml", "external_toc_exclude_missing": False,
        "exclude_patterns": ["_build", "assets", "downloads", "**.ipynb_checkpoints"],
        "html_theme": "sphinx_book_theme",
        "html_theme_options": {"search_bar_text": "Search the course...", "home_page_in_toc": True,
                               "use_repository_button": False, "use_issues_button": False,
                               "use_edit_page_button": False, "use_download_button": True, "launch_buttons": {},
                               "extra_footer": footer},
        "html_context": {"default_mode": "light"},
        "html_static_path": ["assets"], "html_favicon": "assets/favicon.svg",
        "html_css_files": ["course.css"], "html_js_files": ["course.js"],
        "html_show_copyright": False, "html_sourcelink_suffix": "",
        "nb_execution_mode": "off", "nb_ipywidgets_js": {}, "nb_output_stderr": "remove",
        "myst_enable_extensions": ["dollarmath", "amsmath"], "myst_update_mathjax": False,
        "myst_heading_anchors": 3,
        "mathjax_path": f"mathjax/MathJax.js?config={MATHJAX_CONFIG}",
        "mathjax2_config": {
            # the fonts that package ships; MathJax's blank measuring font without its about:blank source
            "HTML-CSS": {"availableFonts": [], "webFont": "STIX-Web", "imageFont": None,
                         "styles": {"@font-face": {"font-family": "MathJax_Blank", "src": "local('MathJax_Blank')"}}},
            "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True}},
        "suppress_warnings": ["myst.header", "misc.highlighting_failure", "mystnb.unknown_mime_type", "myst.xref_missing"],
    }
    return "".join(f"{key} = {value!r}\n" for key, value in conf.items())


def _toc(chapters: Sequence[tuple[str, str]]) -> str:
    return ("format: jb-book\nroot: intro\nparts:\n- caption: Notebooks\n  chapters:\n"
            + "".join(f"  - file: {stem}\n" for stem, _ in chapters)
            + "- caption: For the course\n  chapters:\n" + "".join(f"  - file: {p}\n" for p in COURSE_PAGES))


def _student_sources(executed: Sequence[Path]) -> list[Path]:
    """The notebooks the student copies are made from: every notebook of the course as committed (no
    outputs, no execution metadata) — also those this build did not run — and any executed notebook
    that is not one of them."""
    course = notebooks.notebook_paths()
    names = {p.name for p in course}
    return sorted(course + [p for p in executed if p.name not in names], key=lambda p: p.name)


def build_site(executed: Sequence[Path], results: Sequence[notebooks.RunResult], out: Path, profile: str,
               machine: str, title: str = "sbert-workbook") -> Path:
    """Build the book from the executed notebooks into ``out/site``; returns its ``index.html``.

    The syllabus and instructor notes take the minutes from ``out/index.json`` (the build's record),
    else from ``results``. Raises RuntimeError with the tool's last output lines if the build fails.
    """
    out = Path(out)
    src = out / "site-src"
    shutil.rmtree(src, ignore_errors=True)
    (src / "assets").mkdir(parents=True)  # not "_static": Jupyter Book puts every .js found there on every page
    rewrites = path_rewrites(out)
    index = site_pages.read_index(out) or {
        "profile": profile, "machine": machine,
        "notebooks": [{"notebook": r.path.name, "seconds": round(r.seconds, 1), "error": r.error,
                       "headlines": r.headlines} for r in results]}
    timed = site_pages.measured(index)
    chapters, pages, alts = [], [], {}
    for path in executed:
        nb = static_copy(nbformat.read(path, as_version=4))
        nb.cells[0].source = colab.plain_link(nb.cells[0].source)  # a link each chapter heads, no remote image
        _rewrite_outputs(nb, rewrites)
        nbformat.write(nb, src / path.name)
        chapter_title = site_pages.notebook_title(nb)
        chapters.append((path.stem, chapter_title))
        alts.update(figure_alts(nb, chapter_title))
        entry = timed.get(path.stem, {})
        pages.append(site_pages.Chapter(path.stem, chapter_title, nb, entry.get("seconds"), entry.get("error"),
                                        entry.get("headlines", [])))
    shutil.copytree(mathjax_dir(), src / "assets" / "mathjax",
                    ignore=lambda d, names: [n for n in names if Path(d).name == "localization" and n != "en"])
    (src / "assets" / "favicon.svg").write_text(FAVICON)
    if not ASSETS.is_dir():
        raise RuntimeError(f"the course site's styles and scripts are missing ({ASSETS}): reinstall sbertlib "
                           "from a checkout (pip install -e .)")
    for asset in ASSETS.iterdir():
        if asset.suffix in (".css", ".js"):
            shutil.copy(asset, src / "assets" / asset.name)
    results = [notebooks.RunResult(r.path, r.seconds, r.error, [relative_paths(h, rewrites) for h in r.headlines])
               for r in results]
    (src / "intro.md").write_text(_landing(chapters, results, profile, machine), encoding="utf-8")
    course = site_pages.course_chapters(pages)  # every notebook of the course, built or not
    (src / "syllabus.md").write_text(site_pages.syllabus_page(course, index), encoding="utf-8")
    (src / "instructor-notes.md").write_text(relative_paths(site_pages.instructor_notes_page(course), rewrites),
                                             encoding="utf-8")
    names = site_pages.student_zip(_student_sources(executed), src / "downloads" / site_pages.STUDENT_ZIP)
    (src / "downloads.md").write_text(site_pages.downloads_page(names), encoding="utf-8")
    (src / "licence.md").write_text(site_pages.licence_page(), encoding="utf-8")
    (src / "_toc.yml").write_text(_toc(chapters))
    (src / "conf.py").write_text(_conf_py(title))
    html_dir = src / "_build" / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-d", str(src / "_build" / "doctrees"),
                           str(src), str(html_dir)], capture_output=True, text=True)
    if proc.returncode != 0 or not (html_dir / "index.html").is_file():
        raise RuntimeError("the course site did not build:\n" + "\n".join((proc.stdout + proc.stderr).splitlines()[-30:]))
    site = out / SITE_DIR
    shutil.rmtree(site, ignore_errors=True)
    shutil.move(str(html_dir), site)
    shutil.rmtree(src, ignore_errors=True)
    finish_pages(site, chapters, alts, rewrites)
    (site / "index.json").write_text(json.dumps({"profile": profile, "machine": machine,
                                                 "chapters": [s for s, _ in chapters],
                                                 "course_pages": list(COURSE_PAGES)}, indent=2))
    return site / "index.html"


# --------------------------------------------------------------------------- finishing the built pages

_HASH_NAME = re.compile(r"(^|/)[0-9a-f]{32,}(\.\w+)?$")  # myst-nb's alt: "_images/<sha256>.png"
_SKIP_PARENTS = {"a", "pre", "code", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6", "title", "button"}
_NOTEBOOK_REF = re.compile(r"\b([Nn]otebooks?)(\s+)(\d\d(?:(?:,\s*|\s+(?:and|or|to)\s+|\s*[–-]\s*)\d\d)*)\b")
_ISSUE_REF = re.compile(r"(?<![\w&/])#(\d{2,5})\b")
_PAPER_REF = re.compile(r"Reimers\s+(?:&|and)\s+Gurevych(?:,?\s+EMNLP[- ]2019)?")


def _linked(text: str, chapters: dict[str, str], own: str, issues_here: bool) -> list[tuple[str, str | None]]:
    """``text`` split into ``(piece, href or None)``."""
    spans: list[tuple[int, int, str]] = []
    for m in _NOTEBOOK_REF.finditer(text):
        start = m.start(3)
        for n in re.finditer(r"\d\d", m.group(3)):
            stem = chapters.get(n.group())
            if stem and stem != own:
                a, b = start + n.start(), start + n.end()
                if n.start() == 0:
                    a = m.start(1)  # "notebook 03" as one link
                spans.append((a, b, f"{stem}.html"))
    if issues_here:
        spans += [(m.start(), m.end(), site_pages.ISSUE_URL.format(m.group(1))) for m in _ISSUE_REF.finditer(text)]
    spans += [(m.start(), m.end(), site_pages.PAPER_ACL) for m in _PAPER_REF.finditer(text)]
    pieces, pos = [], 0
    for a, b, href in sorted(spans):
        if a < pos:
            continue
        pieces += [(text[pos:a], None), (text[a:b], href)]
        pos = b
    pieces.append((text[pos:], None))
    return [p for p in pieces if p[0]]


def _link_text(soup, article, chapters: dict[str, str], own: str) -> None:
    from bs4 import NavigableString
    for node in list(article.find_all(string=True)):
        if not isinstance(node, NavigableString) or type(node) is not NavigableString:
            continue  # comments, CDATA …
        if any(p.name in _SKIP_PARENTS for p in node.parents if p is not article) or not node.strip():
            continue
        block = node.find_parent(["p", "li", "td", "dd"]) or node.parent
        context = block.get_text(" ") if block is not None else str(node)
        issues_here = bool(re.search(r"sentence-transformers|\bissues?\s+#\d", context))
        pieces = _linked(str(node), chapters, own, issues_here)
        if len(pieces) == 1 and pieces[0][1] is None:
            continue
        for text, href in pieces:
            if href is None:
                node.insert_before(NavigableString(text))
            else:
                a = soup.new_tag("a", href=href)
                a["class"] = ["sbert-xref"] if not href.startswith("http") else ["reference", "external"]
                a.string = text
                node.insert_before(a)
        node.extract()


def finish_pages(site: Path, chapters: Sequence[tuple[str, str]], alts: dict[str, str],
                 rewrites: Sequence[tuple[str, str]]) -> None:
    """Finish the built site in place (see the module docstring): alt text, links, relative paths,
    labelled solution cells; no ``.doctrees``, no ``.map`` files or references to them."""
    from bs4 import BeautifulSoup
    by_number = {stem[:2]: stem for stem, _ in chapters}
    titles = dict(chapters)
    for junk in [site / ".doctrees", site / ".buildinfo"]:
        shutil.rmtree(junk, ignore_errors=True) if junk.is_dir() else junk.unlink(missing_ok=True)
    for path in site.rglob("*.map"):
        path.unlink()
    for path in list(site.rglob("*.js")) + list(site.rglob("*.css")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if "sourceMappingURL" in text:
            path.write_text(re.sub(r"\n?/[/*][#@] sourceMappingURL=\S+(\s*\*/)?", "", text),
                            encoding="utf-8", errors="surrogateescape")
    for page in site.glob("*.html"):
        html_text = relative_paths(page.read_text(encoding="utf-8"), rewrites)
        soup = BeautifulSoup(html_text, "html.parser")
        own = page.stem
        article = soup.find("article") or soup.find("main")
        if article is not None and page.stem not in ("search", "genindex"):
            _link_text(soup, article, by_number, own)
        for img in soup.find_all("img"):
            name = Path(str(img.get("src", ""))).name
            stem = name.rsplit(".", 1)[0]
            if stem in alts:
                img["alt"] = alts[stem]
            elif not img.get("alt") or _HASH_NAME.search(str(img.get("alt", ""))):
                if "logo" in name or img.find_parent(class_="navbar-brand"):
                    continue
                heading = img.find_previous(["h1", "h2", "h3"])
                where = titles.get(own, own)
                section = heading.get_text(" ", strip=True).rstrip("#").strip() if heading else ""
                img["alt"] = f"Figure of {where}" + (f", section “{section}”" if section and section != where else "")
        for cell in soup.select("div.cell.tag_solution"):
            label = soup.new_tag("p")
            label["class"] = ["sbert-solution-label"]
            label.string = "Solution — students write this cell themselves (their copy has a stub)"
            cell.insert(0, label)
        page.write_text(str(soup), encoding="utf-8")
