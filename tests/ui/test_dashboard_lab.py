"""The dashboard in a real browser: JupyterLab on loopback, headless Debian Chromium.

Opens a notebook that runs a vector-add program and shows the dashboard, runs it,
moves the time scrubber with the keyboard and checks that the panels changed.  Skips
with the reason when Chromium or Playwright is missing (.ci/run installs both).
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
REPO = Path(__file__).resolve().parents[2]

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the playwright Python package is not installed")

PROGRAM = '''\
import numpy as np
import sandbox
from sandbox import acl
from sandbox.widgets.api import show

sandbox.configure("ascend910b", device_count=1)
acl.init()
acl.rt.set_device(0)
copy_stream, _ = acl.rt.create_stream()
compute_stream, _ = acl.rt.create_stream()
n = 1 << 20
a, _ = acl.rt.malloc(n * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
b, _ = acl.rt.malloc(n * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
c, _ = acl.rt.malloc(n * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
host, _ = acl.rt.malloc_host(n * 4)
acl.rt.memcpy_async(a, n * 4, host, n * 4, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_stream)
acl.rt.memcpy_async(b, n * 4, host, n * 4, acl.ACL_MEMCPY_HOST_TO_DEVICE, copy_stream)
ready, _ = acl.rt.create_event()
acl.rt.record_event(ready, copy_stream)
acl.rt.stream_wait_event(compute_stream, ready)

@sandbox.kernel
def vector_add(x: "float32*", y: "float32*", z: "float32*", n):
    z[:n] = x[:n] + y[:n]

vector_add[8, compute_stream](a, b, c, n)
acl.rt.memcpy_async(host, n * 4, c, n * 4, acl.ACL_MEMCPY_DEVICE_TO_HOST, compute_stream)
acl.rt.synchronize_stream(compute_stream)
dash = show(sandbox.trace())
dash.t = dash.slider.min
dash'''


def _notebook(path: Path) -> None:
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "dash",
                     "metadata": {}, "outputs": [], "source": PROGRAM}],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                      "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 with a temp root, workspace, settings and runtime dir."""
    tmp = tmp_path_factory.mktemp("lab")
    root, work, settings, runtime = (tmp / d for d in ("root", "work", "settings", "runtime"))
    for d in (root, work, settings / "@jupyterlab" / "apputils-extension", runtime):
        d.mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
     ).write_text('{"fetchNews": "false", "checkForUpdates": false}')
    _notebook(root / "dashboard.ipynb")
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
        JUPYTER_RUNTIME_DIR=str(runtime), IPYTHONDIR=str(tmp / "ipython"))
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--allow-root",
         f"--ServerApp.root_dir={root}", f"--LabApp.workspaces_dir={work}",
         f"--LabApp.user_settings_dir={settings}"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("JupyterLab did not start:\n" + (tmp / "lab.log").read_text())
                time.sleep(0.3)
        yield base, tmp
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _run_cell(page) -> None:
    """Run the notebook's cell.  Lab shows the kernel idle a moment before its channels
    accept requests, and a request sent then is dropped, so run again if no prompt
    number or busy mark appears."""
    prompt = page.locator(".jp-InputPrompt").first
    for _attempt in range(4):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel").filter(
            has_text=re.compile(r"^Run All Cells$")).first.click()
        try:
            page.wait_for_function("el => /\\[(\\*|\\d+)\\]/.test(el.textContent)",
                                   arg=prompt.element_handle(), timeout=4000)
            return
        except sync_api.TimeoutError:
            continue
    pytest.fail("the notebook's cell never started running")


def test_scrubbing_the_dashboard_in_jupyterlab_changes_its_panels(lab):
    base, _tmp = lab
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1400})
            page.set_default_timeout(30_000)
            with page.expect_websocket(lambda ws: "/api/kernels/" in ws.url):
                page.goto(f"{base}/lab/tree/dashboard.ipynb")
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
            _run_cell(page)

            queues = page.locator("pre.sandbox-queues")
            queues.wait_for(state="attached")
            page.wait_for_function(
                "document.querySelectorAll('.widget-output img').length >= 3")
            before_text = queues.inner_text()
            before_png = page.locator(".widget-output img").nth(1).get_attribute("src")
            assert "Stream queues at" in before_text

            handle = page.locator(".widget-slider .noUi-handle").first
            handle.scroll_into_view_if_needed()
            handle.focus()
            page.keyboard.press("End")
            sync_api.expect(queues).not_to_have_text(before_text)
            page.wait_for_function(
                "src => document.querySelectorAll('.widget-output img')[1].src !== src",
                arg=before_png)
            after_text = queues.inner_text()
            assert "0 waiting" in after_text and "running nothing" in after_text
        finally:
            browser.close()
