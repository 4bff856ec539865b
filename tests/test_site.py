"""The course site: built pages finished for a course, and the site in a real browser.

Without a browser (fast): the finishing pass over the built HTML (alt text, "notebook NN" and issue
links, relative paths, solution labels, no source maps or doctrees), the course pages' sources (the
checks' mistakes, the syllabus's measured minutes, the student zip), figures' alt text recorded in a
real kernel, and the training-curve panel of a run evaluated once.

In headless Chromium (marked ``browser``): builds the site from two notebooks executed on the smoke
profile (10: widgets, 11: figures and solution cells), serves it on localhost and reads it at desktop
width (1300×900: landing page, maths, sidebar navigation, the widget snapshot, a figure, search, the
course pages) and at phone width (390×844: the sidebar toggle opens the chapter list, a chapter link
in it navigates, nothing is wider than the screen) — with no console error and no request leaving
localhost. Screenshots at both widths: build/test-artifacts/site_desktop_*.png and site_phone_*.png.
"""
from __future__ import annotations

import functools
import http.server
import io
import json
import os
import re
import threading
import zipfile
from pathlib import Path

import nbformat
import pytest

from test_browser import ARTIFACTS, chromium_page

from sbertlib.workbook.publish import site, site_pages

ROOT = Path(__file__).resolve().parents[1]
HASH = "ab" * 32  # a sha256-named image, as myst-nb writes it


# --------------------------------------------------------------------------- the finishing pass

def _fake_site(tmp_path: Path, body: str, name: str = "03_train.html") -> Path:
    site_dir = tmp_path / "site"
    (site_dir / "_static").mkdir(parents=True)
    (site_dir / ".doctrees").mkdir()
    (site_dir / ".doctrees" / "x.doctree").write_text("x")
    (site_dir / "_static" / "theme.js").write_text("var a = 1;\n//# sourceMappingURL=theme.js.map\n")
    (site_dir / "_static" / "theme.js.map").write_text("{}")
    (site_dir / "_static" / "theme.css").write_text("a{}\n/*# sourceMappingURL=theme.css.map */")
    (site_dir / name).write_text(f"<html><body><main><article>{body}</article></main></body></html>")
    return site_dir


CHAPTERS = [("02_siamese", "02 · The siamese network"), ("03_train", "03 · Train it yourself"),
            ("05_regression", "05 · The regression objective")]


def test_finishing_links_notebooks_issues_and_the_paper(tmp_path):
    body = ("<p>As in notebook 02 and notebooks 03 and 05, see Notebook 05.</p>"
            "<p>sentence-transformers' issue #1700 and #1891 say so (Reimers &amp; Gurevych, EMNLP 2019).</p>"
            "<p>Colour #123 is no issue reference here, nor issue 12</p>"
            "<pre>notebook 02 in an output</pre><h2>From notebook 05</h2><p><code>notebook 02</code></p>")
    site_dir = _fake_site(tmp_path, body)
    site.finish_pages(site_dir, CHAPTERS, {}, [])
    html = (site_dir / "03_train.html").read_text()
    links = re.findall(r'<a class="[^"]*" href="([^"]+)">([^<]+)</a>', html)
    assert ("02_siamese.html", "notebook 02") in links
    assert ("05_regression.html", "05") in links and ("05_regression.html", "Notebook 05") in links
    assert not any(href == "03_train.html" for href, _ in links)  # no link to the page itself
    assert ("https://github.com/UKPLab/sentence-transformers/issues/1700", "#1700") in links
    assert ("https://github.com/UKPLab/sentence-transformers/issues/1891", "#1891") in links
    assert not any(text == "#123" for _, text in links)  # no issue context in that paragraph
    assert (site_pages.PAPER_ACL, "Reimers &amp; Gurevych, EMNLP 2019") in links
    assert "<pre>notebook 02 in an output</pre>" in html and "<h2>From notebook 05</h2>" in html
    assert "<code>notebook 02</code>" in html


def test_finishing_gives_alt_text_labels_solutions_and_hides_absolute_paths(tmp_path):
    out = tmp_path / "build"
    body = (f'<h2>4 · Results</h2><div class="cell tag_solution"><div class="cell_input">x</div></div>'
            f'<div class="cell_output"><img alt="{HASH}" src="_images/{HASH}.png"/>'
            f'<img alt="_images/{"cd" * 32}.png" src="_images/{"cd" * 32}.png"/></div>'
            f"<pre>saved to {out.resolve()}/runs/smoke/model and {ROOT}/notebooks/x.ipynb; "
            f"data in {tmp_path / 'data'}</pre>")
    site_dir = _fake_site(tmp_path, body)
    rewrites = [(str(out.resolve()), ""), (str(tmp_path / "data"), "$SBERTLIB_DATA_DIR/"), (str(ROOT), "")]
    site.finish_pages(site_dir, CHAPTERS, {HASH: "Figure: STSb test (x: gold; y: cosine)"}, rewrites)
    html = (site_dir / "03_train.html").read_text()
    assert f'alt="Figure: STSb test (x: gold; y: cosine)"' in html
    assert "alt=\"Figure of 03 · Train it yourself, section “4 · Results”\"" in html  # no recorded title
    assert not re.search(r'alt="[^"]*[0-9a-f]{32,}', html)
    assert 'class="sbert-solution-label"' in html
    assert "saved to runs/smoke/model and notebooks/x.ipynb; data in $SBERTLIB_DATA_DIR</pre>" in html
    assert str(tmp_path) not in html and str(ROOT) not in html
    assert not (site_dir / ".doctrees").exists() and not list(site_dir.rglob("*.map"))
    assert "sourceMappingURL" not in (site_dir / "_static" / "theme.js").read_text()
    assert "sourceMappingURL" not in (site_dir / "_static" / "theme.css").read_text()


def test_relative_paths_leave_other_paths_alone(tmp_path):
    rewrites = [("/srv/build", ""), ("/srv/data", "$SBERTLIB_DATA_DIR/")]
    text = "/srv/build/runs/a, /srv/build, /srv/buildings/b, /srv/data/stsb and /srv/data."
    assert site.relative_paths(text, rewrites) == "runs/a, ., /srv/buildings/b, $SBERTLIB_DATA_DIR/stsb and $SBERTLIB_DATA_DIR."


# --------------------------------------------------------------------------- figures

def test_figure_alt_names_titles_and_axes():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sbertlib.workbook.publish.figalt import figure_alt
    fig, (a, b, empty) = plt.subplots(1, 3)
    fig.suptitle("STSb test, gold vs cosine")
    a.set_title("NLI only (Spearman $46.76$)")
    a.set_xlabel("gold similarity")
    a.set_ylabel("cosine")
    b.set_title("two stages")
    assert figure_alt(fig) == ("STSb test, gold vs cosine. Panels: NLI only (Spearman 46.76) "
                               "(x: gold similarity; y: cosine); two stages")
    plt.close(fig)


def test_a_kernel_records_each_figures_titles_as_its_alt_text(tmp_path):
    """The build's kernels load sbertlib.workbook.publish.figalt (IPYTHONDIR): every figure output carries
    ``{"image/png": {"alt": ...}}``, also a figure shown by the cell that first imports pyplot."""
    from nbformat.v4 import new_code_cell, new_notebook

    from sbertlib.workbook.publish import notebooks
    from sbertlib.workbook.publish.figalt import kernel_config_dir
    path = tmp_path / "figs.ipynb"
    nbformat.write(new_notebook(cells=[
        new_code_cell("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.set_title('loss by step')"),
        new_code_cell("fig, ax = plt.subplots()\nax.plot([1, 2])\nax.set_xlabel('step')\n"
                      "fig.suptitle('second')\ndisplay(fig)\nplt.close(fig)")]), path)
    env = {"IPYTHONDIR": kernel_config_dir(tmp_path / "ipython"), "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    nb, result = notebooks.execute(path, timeout=120, env=env)
    assert result.error is None, result.error
    alts = [o["metadata"]["image/png"]["alt"] for c in nb.cells for o in c.outputs if "image/png" in o.get("data", {})]
    assert alts == ["loss by step", "second. (x: step)"], alts


def test_training_curves_states_a_single_dev_score_instead_of_a_lone_dot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sbertlib.workbook import plots
    history = {"steps": [1, 2, 3, 4], "losses": [1.0, 0.8, 0.7, 0.6], "dev_steps": [4], "dev_scores": [71.234]}
    fig, (loss_ax, dev_ax) = plt.subplots(1, 2)
    plots.training_curves(history, axes=[loss_ax, dev_ax])
    assert not dev_ax.lines and not dev_ax.collections  # no dot alone in a panel
    texts = " ".join(t.get_text() for t in dev_ax.texts)
    assert "71.23" in texts and "evaluated once" in texts and "step 4" in texts
    fig2, ax = plt.subplots()
    plots.training_curves(history, axes=ax)
    assert len(fig2.axes) == 1  # no twin axis for one value
    assert any("dev score 71.23" in t.get_text() for t in ax.get_legend().get_texts())
    fig3, ax3 = plt.subplots()
    plots.training_curves({"steps": [1], "losses": [0.5]}, axes=ax3)
    assert all(line.get_marker() == "o" for line in ax3.lines)  # one step is drawn, not an empty line
    plt.close("all")


def test_fit_title_wraps_a_title_wider_than_its_panel():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sbertlib.workbook import plots
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3))
    long = "Table 6 — pooling, both objectives (STSb dev, Spearman ×100) — ours: tiny-random-bert [smoke]"
    plots.fit_title(a, long)
    plots.fit_title(b, "short")
    assert "\n" in a.get_title() and a.get_title().replace("\n", " ") == long
    assert b.get_title() == "short"
    plt.close(fig)


# --------------------------------------------------------------------------- the course pages

def test_where_students_stumble_comes_from_the_checks_source(tmp_path):
    (tmp_path / "nb42.py").write_text('''
from . import ExerciseError, require
def _hint(got):
    candidates = {"you summed the squared errors instead of averaging them": 1,
                  "you compared with the raw 0-5 score: divide by 5 first": 2}
    return candidates
def check_loss(fn):
    require(callable(fn), f"pass your function itself, not {type(fn).__name__}")
    require(fn() is not None, "loss_from_embeddings is not written yet")
    if fn() != 1:
        raise ExerciseError(f"your loss {fn():.3f} differs\\nHint: {_hint(fn())}")
def check_other(x):
    require(x > 0, "x must be positive: " + "you gave a negative")
''')
    found = site_pages.check_mistakes("42", tmp_path)
    assert found == {"check_loss": ["pass your function itself, not …", "your loss … differs",
                                    "you summed the squared errors instead of averaging them",
                                    "you compared with the raw 0-5 score: divide by 5 first"],
                     "check_other": ["x must be positive: you gave a negative"]}
    real = {n: site_pages.check_mistakes(n) for n in ("02", "03", "05")}
    assert all(real[n] for n in real), "the real checks name their mistakes"


def test_syllabus_takes_its_minutes_from_the_builds_index(tmp_path):
    nbs = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))[:3]
    index = {"profile": "offline", "machine": "a 2-core test machine",
             "notebooks": [{"notebook": p.name, "seconds": s, "error": None, "headlines": []}
                           for p, s in zip(nbs[:2], (90.0, 125.4))]}
    chapters = [site_pages.Chapter(p.stem, p.stem, nbformat.read(p, as_version=4),
                                   site_pages.measured(index).get(p.stem, {}).get("seconds")) for p in nbs]
    page = site_pages.syllabus_page(chapters, index)
    assert "profile **offline**, on a 2-core test machine" in page
    assert "| 1.5 min (90 s) |" in page and "| 2.1 min (125 s) |" in page
    assert "not run in this build" in page  # the third notebook was not timed: nothing made up
    assert "3.6 min measured for 2 of 3 notebooks" in page
    notes = site_pages.instructor_notes_page(chapters)
    assert notes.count("### Where students stumble") == 3 and "### Discussion prompts" in notes


def test_student_zip_holds_every_notebook_as_students_get_it(tmp_path):
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    dest = tmp_path / site_pages.STUDENT_ZIP
    names = site_pages.student_zip(paths, dest)
    assert names == [p.name for p in paths]
    with zipfile.ZipFile(dest) as zf:
        assert f"sbert-workbook-student/README.txt" in zf.namelist()
        for p in paths:
            nb = nbformat.reads(zf.read(f"sbert-workbook-student/{p.name}").decode(), as_version=4)
            tags = [t for c in nb.cells for t in c.metadata.get("tags", [])]
            assert "solution" not in tags and "answers" not in tags
            assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
            original = nbformat.read(p, as_version=4)
            n_solutions = sum("solution" in c.metadata.get("tags", []) for c in original.cells)
            assert tags.count("exercise") == n_solutions


def test_licence_page_cites_the_paper():
    page = site_pages.licence_page()
    for needle in ("MIT", "CC BY 4.0", "Reimers, Nils and Gurevych, Iryna", "3982--3992", "EMNLP-IJCNLP",
                   "Association for Computational Linguistics", "https://arxiv.org/abs/1908.10084",
                   site_pages.PAPER_ACL, "@misc{sbert-workbook"):
        assert needle in page, needle


# --------------------------------------------------------------------------- in a real browser

@pytest.fixture(scope="module")
def served_site(shared_data, tmp_path_factory):
    from sbertlib.workbook.publish.build import build
    from sbertlib.workbook.profiles import get_profile
    out = tmp_path_factory.mktemp("build")
    old = os.environ.get("SBERTLIB_DATA_DIR")
    os.environ["SBERTLIB_DATA_DIR"] = str(shared_data)
    try:
        results = build(out, get_profile("smoke"), only={"10", "11"}, timeout=300)
    finally:
        if old is None:
            os.environ.pop("SBERTLIB_DATA_DIR")
        else:
            os.environ["SBERTLIB_DATA_DIR"] = old
    assert all(r.error is None for r in results), [r.error for r in results]

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _guard(page, base: str):
    """Record console errors and requests that leave localhost (those are refused)."""
    outside, errors = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def only_localhost(route):
        if route.request.url.startswith(base):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()
    page.route("**/*", only_localhost)
    return outside, errors


NOTHING_WIDER_THAN_THE_SCREEN = "() => document.documentElement.scrollWidth <= window.innerWidth + 1"


@pytest.mark.browser
@pytest.mark.integration
def test_site_built_files(served_site):
    out, _ = served_site
    site_dir = out / "site"
    assert not list(site_dir.rglob(".doctrees")) and not list(site_dir.rglob("*.map"))
    assert not any("sourceMappingURL" in p.read_text(errors="ignore") for p in site_dir.rglob("*.js"))
    for page in site_dir.glob("*.html"):
        text = page.read_text()
        assert str(out.resolve()) not in text and str(ROOT) not in text, f"absolute path in {page.name}"
        assert not re.search(r'<img[^>]*alt="[^"]*[0-9a-f]{32,}', text), f"hashed alt text in {page.name}"
    chapter11 = (site_dir / "11_speed_smart_batching.html").read_text()
    recorded = re.findall(r'<img alt="(Figure: [^"]+)"', chapter11)
    assert recorded, "chapter 11's figures carry their titles as alt text"
    assert chapter11.count('class="sbert-solution-label"') == len(re.findall(r'class="cell tag_solution', chapter11)) > 0
    index = json.loads((out / "index.json").read_text())
    syllabus = (site_dir / "syllabus.html").read_text()
    for entry in index["notebooks"]:
        assert f"{entry['seconds'] / 60:.1f} min" in syllabus
    assert "not run in this build" in syllabus  # the other twelve notebooks: no invented minutes
    zips = list(site_dir.glob("_downloads/*/" + site_pages.STUDENT_ZIP))
    assert len(zips) == 1
    with zipfile.ZipFile(zips[0]) as zf:  # the whole course, also the notebooks this build did not run
        assert sorted(n.rsplit("/", 1)[-1] for n in zf.namelist() if n.endswith(".ipynb")) == \
            sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.browser
@pytest.mark.integration
def test_site_at_desktop_width(served_site):
    out, base = served_site
    with chromium_page(1300, 900) as page:
        outside, errors = _guard(page, base)
        page.goto(f"{base}/index.html")  # build/index.html opens the site
        page.wait_for_url("**/site/intro.html", timeout=30_000)
        page.wait_for_selector("main .MathJax", timeout=30_000)  # the objectives, typeset locally
        main = page.inner_text("main")
        assert "Headline results" in main and "stand-in" in main and "offline" in main
        assert "What “offline”, “stand-in” and the other labels mean" in main or "labels mean" in main
        hrefs = page.eval_on_selector_all("a", "els => els.map(e => e.href)")
        for url in (site_pages.PAPER_ACL, site_pages.PAPER_ARXIV, site_pages.PAPER_CODE):
            assert url in hrefs, url
        assert page.evaluate("() => [...document.querySelectorAll('.sbert-headline pre')]"
                             ".every(p => p.scrollWidth <= p.clientWidth + 1)")
        page.screenshot(path=str(ARTIFACTS / "site_desktop_landing.png"))
        # the visible sidebar toggle collapses the sidebar and brings it back (it did nothing either)
        shown = "() => getComputedStyle(document.getElementById('pst-primary-sidebar')).visibility"
        page.locator(".primary-toggle:visible").first.click()
        page.wait_for_function(f"({shown})() === 'hidden'", timeout=10_000)
        page.locator(".primary-toggle:visible").first.click()
        page.wait_for_function(f"({shown})() === 'visible'", timeout=10_000)

        page.click("nav.bd-docs-nav a:has-text('10 ·')")
        page.wait_for_url("**/10_similarity_explorer.html", timeout=30_000)
        snapshot = page.locator(".sbert-snapshot").first  # the explorer's recorded snapshot
        snapshot.wait_for(timeout=30_000)
        assert "Static snapshot" in snapshot.inner_text()
        heatmap = snapshot.locator("img").first
        assert page.evaluate("(img) => img.complete && img.naturalWidth > 100", heatmap.element_handle())
        # the ranked pairs' table uses the page's width: no column squeezed, no text cut off
        table_ok = page.evaluate("""() => {
            const t = document.querySelector('.sbert-snapshot table');
            if (!t) return 'no table';
            const box = document.querySelector('article').getBoundingClientRect();
            const cut = [...t.querySelectorAll('td, th')].filter(c => c.scrollWidth > c.clientWidth + 1).length;
            const r = t.getBoundingClientRect();
            return r.width >= 0.5 * box.width && r.right <= box.right + 1 && cut === 0 ? 'ok'
                : `table ${r.left}-${r.right} in the article's ${box.left}-${box.right}, ${cut} cut cells`;
        }""")
        assert table_ok == "ok", table_ok
        snapshot.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "site_desktop_chapter10.png"))

        page.click("nav.bd-docs-nav a:has-text('11 ·')")
        page.wait_for_url("**/11_speed_smart_batching.html", timeout=30_000)
        figure = page.locator(".cell_output img").first
        figure.scroll_into_view_if_needed()
        assert page.evaluate("(img) => img.complete && img.naturalWidth > 100", figure.element_handle())
        assert (figure.get_attribute("alt") or "").startswith("Figure")
        label = page.locator(".sbert-solution-label").first
        assert label.is_visible() and "Solution" in label.inner_text()
        label.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "site_desktop_chapter11.png"))

        for name, needle in (("syllabus", "Prerequisites"), ("instructor-notes", "Where students stumble"),
                             ("downloads", "student copies"), ("licence", "Gurevych, Iryna")):
            page.click(f"nav.bd-docs-nav a[href$='{name}.html']")
            page.wait_for_url(f"**/{name}.html", timeout=30_000)
            assert needle in page.inner_text("main"), name
            page.screenshot(path=str(ARTIFACTS / f"site_desktop_{name}.png"))
        # the zip downloads from the page's link
        page.click("nav.bd-docs-nav a[href$='downloads.html']")
        href = page.locator("a.reference.download").first.get_attribute("href")
        body = page.request.get(f"{base}/site/{href}").body()
        assert zipfile.ZipFile(io.BytesIO(body)).testzip() is None

        page.goto(f"{base}/site/search.html?q=padding")
        page.wait_for_selector("#search-results li", timeout=30_000)
        assert "11" in page.inner_text("#search-results")
        page.screenshot(path=str(ARTIFACTS / "site_desktop_search.png"))
    assert outside == [], f"requests left localhost: {outside}"
    assert errors == [], f"console errors: {errors}"


@pytest.mark.browser
@pytest.mark.integration
def test_site_at_phone_width_navigates_through_the_sidebar(served_site):
    """pydata-sphinx-theme 0.17 with sphinx-book-theme 1.3: the visible sidebar toggles did nothing on a
    phone (only the hidden first .primary-toggle was wired). Tap the visible one: the chapter list opens,
    and a chapter link in it navigates."""
    _, base = served_site
    with chromium_page(390, 844, mobile=True) as page:
        outside, errors = _guard(page, base)
        page.goto(f"{base}/site/intro.html")
        page.wait_for_selector("main .MathJax", timeout=30_000)
        assert page.evaluate(NOTHING_WIDER_THAN_THE_SCREEN), "the landing page is wider than a phone"
        page.screenshot(path=str(ARTIFACTS / "site_phone_landing.png"))
        page.locator(".sbert-headline").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "site_phone_headlines.png"))

        dialog = page.locator("#pst-primary-sidebar-modal")
        assert not page.evaluate("() => document.getElementById('pst-primary-sidebar-modal').open")
        toggle = page.locator(".primary-toggle:visible").first
        toggle.tap()
        page.wait_for_function("() => document.getElementById('pst-primary-sidebar-modal').open", timeout=10_000)
        link = dialog.locator("a:has-text('11 ·')").first
        link.wait_for(state="visible", timeout=10_000)
        page.wait_for_timeout(500)  # the sidebar slides in
        page.screenshot(path=str(ARTIFACTS / "site_phone_sidebar.png"))
        link.tap()
        page.wait_for_url("**/11_speed_smart_batching.html", timeout=30_000)
        page.wait_for_selector(".cell_output img", timeout=30_000)
        assert page.evaluate(NOTHING_WIDER_THAN_THE_SCREEN), "chapter 11 is wider than a phone"
        page.screenshot(path=str(ARTIFACTS / "site_phone_chapter11.png"))

        page.locator(".primary-toggle:visible").first.tap()  # again from a chapter, to the other one
        page.wait_for_function("() => document.getElementById('pst-primary-sidebar-modal').open", timeout=10_000)
        page.locator("#pst-primary-sidebar-modal a:has-text('10 ·')").first.tap()
        page.wait_for_url("**/10_similarity_explorer.html", timeout=30_000)
        page.locator(".sbert-snapshot").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "site_phone_chapter10.png"))
    assert outside == [], f"requests left localhost: {outside}"
    assert errors == [], f"console errors: {errors}"
