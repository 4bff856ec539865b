"""End to end in a real browser: JupyterLab on localhost, the explorer notebook in headless Chromium.

Runs the notebook, types a sentence into the SimilarityExplorer, and checks that the ranked pairs
update. A screenshot is saved to build/test-artifacts/. Skips (with the reason) only where no
Chromium or Playwright can be had.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "10_similarity_explorer.ipynb"
ARTIFACTS = ROOT / "build" / "test-artifacts"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]

pytestmark = [pytest.mark.browser, pytest.mark.integration]

# True once every code cell of the open notebook has an execution count and the kernel is idle
# (read from JupyterLab's model, so cells scrolled out of view count too).
ALL_CELLS_DONE = """() => {
  const nb = window.jupyterapp.shell.currentWidget;
  if (!nb || !nb.content || !nb.sessionContext.session) return false;
  const cells = nb.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type === 'code' && !c.executionCount) return false;
  }
  return nb.sessionContext.session.kernel.status === 'idle';
}"""


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@contextlib.contextmanager
def chromium_page(width: int, height: int, mobile: bool = False):
    """A page of headless Chromium (skips the test without Playwright or Chromium); closed on exit.
    ``mobile``: a phone's page (touch events, mobile viewport), for ``tap()``."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) not installed")
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no Chromium found (Debian: apt-get install chromium)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile,
                                   device_scale_factor=2 if mobile else 1)
        finally:
            browser.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(shared_data, tmp_path_factory):
    if not (ROOT / "notebooks" / NOTEBOOK).is_file():
        pytest.skip(f"{NOTEBOOK} not written yet")
    work = tmp_path_factory.mktemp("lab")
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, work / NOTEBOOK)
    port, token = _free_port(), "sbert-workbook-test"
    env = {**os.environ, "SBERTLIB_PROFILE": "smoke", "SBERTLIB_DATA_DIR": str(shared_data),
           "SBERTLIB_OUTPUT_DIR": str(work / "runs"), "HF_HUB_OFFLINE": "1",
           "JUPYTER_CONFIG_DIR": str(work / "jcfg"), "JUPYTER_RUNTIME_DIR": str(work / "jrt")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}", "--allow-root",
         "--LabApp.news_url=", "--LabApp.expose_app_in_browser=True", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=subprocess.DEVNULL, stderr=open(work / "lab.log", "w"))
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not start: " + (work / "lab.log").read_text()[-2000:])
    yield f"{base}/lab/tree/{NOTEBOOK}?token={token}"
    shutil.copy(work / "lab.log", ARTIFACTS / "jupyterlab.log") if ARTIFACTS.is_dir() else None
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_explorer_updates_in_a_real_browser(lab):
    with chromium_page(1400, 1000) as page:
        try:
            page.goto(lab, timeout=120_000)
            page.wait_for_selector(".jp-Notebook", timeout=120_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand('notebook:run-all-cells')",
                                   timeout=120_000)
            page.wait_for_timeout(2000)  # let the kernel session attach
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            area = page.locator(".widget-textarea textarea").first
            area.wait_for(timeout=240_000)
            # wait for the whole notebook to finish (its last cell prints the exercise's [OK]),
            # so the kernel is free to answer the edit below
            page.wait_for_function(ALL_CELLS_DONE, timeout=420_000)
            pairs = page.locator(".sbert-pairs").first
            pairs.wait_for(timeout=120_000)
            assert "zebra" not in pairs.inner_text().lower()
            area.click()
            area.press("End")
            page.keyboard.press("Control+End")
            area.type("\nA zebra is grazing in the savanna.", delay=5)
            page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})  # blur: commit the text
            page.wait_for_function(
                "() => [...document.querySelectorAll('.sbert-pairs')].some(e => e.innerText.toLowerCase().includes('zebra'))",
                timeout=240_000)
            page.wait_for_selector(".sbert-heatmap img", timeout=60_000)  # the redrawn heatmap
            page.locator(".sbert-heatmap").first.scroll_into_view_if_needed()
            page.wait_for_timeout(3000)  # let the redrawn heatmap arrive before the screenshot
        finally:
            page.screenshot(path=str(ARTIFACTS / "similarity_explorer.png"))
