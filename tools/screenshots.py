"""Refresh ``docs/screenshots/``: each recorded game's key moments on the dashboard, in Debian's
chromium, at both tablet sizes (1024x768 landscape, 768x1024 portrait).

Run from the repository root::

    .venv/bin/python tools/screenshots.py            # every game
    .venv/bin/python tools/screenshots.py flip_fl_t1 # one game

Each game is replayed from ``fixtures/games/`` with its recorded labels as the read (fast, and
the same picture every time): the first decision, then the end after the recorded decisions;
Pennies From Heaven's recorded hand also half-way, on its card table; with no game named, also
the unsure-read question, the set-up page and a spectator's view.
"""

from __future__ import annotations

import logging
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM_ARGS, LiveServer, chromium_path  # noqa: E402
from web.demo_cli import open_demo  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
PIN = "2468"
SIZES = {"landscape": {"width": 1024, "height": 768}, "portrait": {"width": 768, "height": 1024}}
GAMES = {
    "sp_t1": "seven-pennies",
    "sp_t2_tko": "tko",
    "sevens_sv_t1_t3": "sevens",
    "flip_fl_t1": "flip",
    "pennywise_pw_t3": "pennywise",
    "ph_hand1": "pennies-from-heaven",
}


def shoot(page: Any, name: str) -> None:
    """One screenshot of the viewport as the player sees it (no scrolling)."""
    page.wait_for_timeout(700)  # the camera stream's next picture
    path = OUT / f"{name}.jpg"
    page.screenshot(path=str(path), type="jpeg", quality=85)  # a tenth of a PNG's size
    print(path.relative_to(ROOT))


def unlock(page: Any) -> None:
    """Enter the control PIN on the open page."""
    page.fill("#pin", PIN)
    page.tap("#login button")


def tablet_pages(browser: Any, url: str, unlocked: bool = True) -> Iterator[tuple[str, Any]]:
    """The dashboard at ``url`` on a touch tablet of each size (its name and the page), the
    control PIN entered unless ``unlocked`` is false; each tablet is closed after its turn."""
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, has_touch=True, is_mobile=True)
        try:
            page = context.new_page()
            page.goto(url + "/")
            if unlocked:
                unlock(page)
            yield size, page
        finally:
            context.close()


def game_moments(browser: Any, game: str, short: str) -> None:
    """The first decision (waiting for a tap), then the end (the recorded decisions taken)."""
    for moment, auto in (("first-decision", False), ("end", True)):
        with tempfile.TemporaryDirectory() as folder:
            service = open_demo(game, str(Path(folder) / "m.db"), read="labels", auto=auto, realtime=False)
            with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
                service.start()
                try:
                    if auto:
                        service.wait(180)
                    for size, page in tablet_pages(browser, server.url):
                        page.wait_for_selector("#login", state="hidden")
                        if not auto:
                            # Options to tap, or options waiting for the table to match (G-2).
                            page.wait_for_selector("#options button:not([disabled]), #choose-anyway:not([hidden])",
                                                   timeout=60000)
                        shoot(page, f"{short}-{moment}-{size}")
                finally:
                    service.stop()


def setup_and_spectator(browser: Any) -> None:
    """The set-up page (house rules in a sentence each) and a spectator's view of SP-T1's first
    decision (no buttons, told why)."""
    with tempfile.TemporaryDirectory() as folder:
        service = open_demo("sp_t1", str(Path(folder) / "m.db"), read="labels", realtime=False)
        with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
            service.start()
            try:
                for size, page in tablet_pages(browser, server.url, unlocked=False):
                    page.wait_for_selector("#options button", state="attached", timeout=60000)
                    shoot(page, f"spectator-{size}")
                    unlock(page)
                    page.wait_for_selector("#login", state="hidden")
                    page.goto(server.url + "/setup")
                    page.wait_for_selector("#options label")
                    shoot(page, f"setup-{size}")
            finally:
                service.stop()


def card_table(browser: Any) -> None:
    """Pennies From Heaven's recorded hand (``referee demo --game pennies-from-heaven``) half-way:
    the card table as the rules hold it (melds, red threes, the piles; no camera) and a player's
    hundred options in two steps, the discards opened."""
    import json

    from web.demo_games import game_folder

    recorded = json.loads((game_folder("pennies-from-heaven") / "game.json").read_text())
    actions = recorded["actions"]
    half = next(n for n in range(len(actions) // 2, len(actions)) if actions[n]["player"] != "table")
    with tempfile.TemporaryDirectory() as folder:
        service = open_demo("pennies-from-heaven", str(Path(folder) / "m.db"), realtime=False)
        for step in actions[:half]:
            service.act(step["action"])  # the players' taps and the table's steps so far
        with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
            service.start()  # waits for the next recorded decision, the players'
            try:
                for size, page in tablet_pages(browser, server.url):
                    page.wait_for_selector("#card-table:not([hidden]) .card-zone")
                    page.locator("#options button.group-choice", has_text="Discards").tap()
                    shoot(page, f"pennies-from-heaven-{size}")
            finally:
                service.stop()


def question_screen(browser: Any) -> None:
    """The unsure-read question ("Are these read right: 1 die showing 3 and 1 die showing 5?")
    with the dice on the picture, their crop and the two answers, staged by a stand-in service
    (a replay rules the same throw the same way every time, so it rarely asks)."""
    from tests.web.fake_service import UnsureRollService

    service = UnsureRollService()
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size, page in tablet_pages(browser, server.url):
            page.wait_for_selector("#question:not([hidden])")
            page.wait_for_function("document.querySelector('#question-crop').naturalWidth > 0")
            shoot(page, f"dice-confirm-the-throw-{size}")


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    wanted = argv or list(GAMES)
    unknown = [g for g in wanted if g not in GAMES]
    if unknown:
        print(f"no recorded game {unknown[0]!r}; the games are: {', '.join(GAMES)}", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            for game in wanted:
                game_moments(browser, game, GAMES[game])
            if "ph_hand1" in wanted:
                card_table(browser)
            if not argv:
                question_screen(browser)
                setup_and_spectator(browser)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
