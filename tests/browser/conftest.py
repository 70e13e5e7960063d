"""Real-browser fixtures: the dashboard served on loopback, Debian's chromium driven by
Playwright at a tablet's size with touch. Screenshots land in ``test-artifacts/screens``."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from web.app import create_app

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TABLET_PORTRAIT = {"width": 800, "height": 1280}
TABLET_LANDSCAPE = {"width": 1280, "height": 800}


def chromium_path() -> str:
    """Debian's chromium (browsers cannot be downloaded here); a missing one fails the test."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Debian's chromium is needed for the browser tests: apt-get install chromium (.ci/run does)")
    return path


class LiveServer:
    """The dashboard on a free loopback port, in a thread."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.app = create_app(config)
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def tablet(browser: Any) -> Iterator[Any]:
    """A fresh tablet: portrait, touch, its own cookies."""
    context = browser.new_context(viewport=TABLET_PORTRAIT, has_touch=True, is_mobile=True, device_scale_factor=1)
    yield context
    context.close()


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as a test artifact and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
