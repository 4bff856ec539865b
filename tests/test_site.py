"""The course site in a real browser: served on localhost, opened in headless Chromium.

Builds the site from two notebooks executed on the smoke profile (10: widgets, 11: figures), then
opens the landing page, checks the maths rendered, goes to two chapters through the sidebar, sees a
widget snapshot and a figure, runs a search — with no console error and no request leaving
localhost. Screenshots are saved to build/test-artifacts/site_*.png.
"""
from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

from test_browser import ARTIFACTS, chromium_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served_site(shared_data, tmp_path_factory):
    from sbertlib.workbook.build import build
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
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_site_navigation_search_maths_figures_offline(served_site):
    outside, errors = [], []
    with chromium_page(1300, 900) as page:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))

        def only_localhost(route):
            if route.request.url.startswith(served_site):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()
        page.route("**/*", only_localhost)
        page.goto(f"{served_site}/index.html")  # build/index.html opens the site
        page.wait_for_url("**/site/intro.html", timeout=30_000)
        page.wait_for_selector("main .MathJax", timeout=30_000)  # the objectives, typeset locally
        assert "Headline results" in page.inner_text("main")
        page.screenshot(path=str(ARTIFACTS / "site_landing.png"), full_page=False)

        page.click("nav.bd-docs-nav a:has-text('10 ·')")
        page.wait_for_url("**/10_similarity_explorer.html", timeout=30_000)
        snapshot = page.locator(".sbert-snapshot").first  # the explorer's recorded snapshot
        snapshot.wait_for(timeout=30_000)
        assert "Static snapshot" in snapshot.inner_text()
        heatmap = snapshot.locator("img").first
        assert page.evaluate("(img) => img.complete && img.naturalWidth > 100", heatmap.element_handle())
        page.screenshot(path=str(ARTIFACTS / "site_chapter10.png"), full_page=False)

        page.click("nav.bd-docs-nav a:has-text('11 ·')")
        page.wait_for_url("**/11_speed_smart_batching.html", timeout=30_000)
        figure = page.locator(".cell_output img").first
        figure.scroll_into_view_if_needed()
        assert page.evaluate("(img) => img.complete && img.naturalWidth > 100", figure.element_handle())
        page.screenshot(path=str(ARTIFACTS / "site_chapter11.png"), full_page=False)

        page.goto(f"{served_site}/site/search.html?q=padding")
        page.wait_for_selector("#search-results li", timeout=30_000)
        found = page.inner_text("#search-results")
        assert "11" in found
        page.screenshot(path=str(ARTIFACTS / "site_search.png"), full_page=False)
    assert outside == [], f"requests left localhost: {outside}"
    assert errors == [], f"console errors: {errors}"
