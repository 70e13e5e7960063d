"""Issue 56's loose ends on the play screen, in Debian's chromium at both tablet sizes: a rule
ID's tag opens the rule's words beside the picture; the unsure-read question fits on one screen
with its dice pictured; the history and Undo say moves in words; options wait, and say why,
while the table does not match; a quarter's many changes fit the panel."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import LiveServer, screenshot
from tests.browser.test_dashboard_browser import PIN, assert_tablet_friendly
from tests.browser.test_one_screen_browser import SIZES, assert_on_one_screen, open_at
from tests.web.fake_service import FakeService, UnsureRollService


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
        " return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; }", selector)
    return found


def apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]


def test_a_rule_tag_opens_the_rules_words_beside_the_picture(browser: Any) -> None:
    """SP-3.2: the Booth move's tag opens "SP-3.2 · BOOTH (FORCED)" and its text in a panel that
    lies inside the screen and never over the picture, at both sizes; Close closes it."""
    service = FakeService(first="Jess")
    service.act("throw 2H 5T")
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#forced button.rule")
            assert_on_one_screen(page)
            page.tap('#forced button.rule[data-rule="SP-3.2"]')
            page.wait_for_selector("#rule-panel:not([hidden])")
            assert page.inner_text("#rule-title") == "SP-3.2 · BOOTH (FORCED)"
            assert "Head–Tail pairs are formed" in page.inner_text("#rule-text")
            panel, picture = box(page, "#rule-panel"), box(page, "#picture")
            assert apart(panel, picture), f"the rule covers the picture at {size}: {panel} {picture}"
            assert panel["top"] >= 0 and panel["bottom"] <= SIZES[size]["height"], "the rule lies on the screen"
            screenshot(page, f"rule-open-{size}")
            page.tap("#rule-close")
            page.wait_for_selector("#rule-panel", state="hidden")
            page.context.close()


def test_the_unsure_roll_question_fits_one_screen_with_its_dice(browser: Any) -> None:
    """The question about two unsure reads (the referee asks rather than guess) fits both sizes
    without scrolling: its text, the crop of the two dice, both answers, and the picture's legend
    marking the dice asked about (3?, 5?)."""
    service = UnsureRollService()
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#question:not([hidden])")
            page.wait_for_function("document.querySelector('#question-crop').naturalWidth > 0")
            assert page.inner_text("#question-text") == "Are these read right: 1 die showing 3 and 1 die showing 5?"
            unsure = page.eval_on_selector_all("#legend li.unsure .read", "rs => rs.map(r => r.textContent)")
            assert unsure == ["3?", "5?"]
            assert_on_one_screen(page)
            for part in ["#question-text", "#question-crop", "#question-choices button:first-child",
                         "#question-choices button:last-child"]:
                r = box(page, part)
                assert r["top"] >= 0 and r["bottom"] <= SIZES[size]["height"], f"{part} below the fold at {size}"
            page.context.close()
        page = open_at(browser, server, "landscape")
        page.tap('#question-choices button:text-is("yes")')
        page.wait_for_selector("#question", state="hidden")
        assert service.question is None


def test_history_and_undo_in_words_and_options_wait_while_the_table_does_not_match(browser: Any) -> None:
    """G-5, SP-3.1: the history reads "Jess throws first", "Threw 2 heads and 5 tails" (no
    commands); G-2: while the table does not match, every option is disabled and says why, and
    the box's Undo names the throw in words; once the players say the table is right, the
    options open and the move taken is listed as its option said it."""
    service = FakeService(first="Jess")
    service.act("throw 2H 5T")
    service.discrepancy = {"id": 1, "text": "The table does not match", "frame": 1, "rethrow": False,
                           "problems": ["The Balcony should hold 4 pennies; the camera sees 2"]}
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        page = open_at(browser, server, "landscape")
        page.wait_for_selector("#discrepancy:not([hidden])")
        history = page.eval_on_selector_all("#history li", "ls => ls.map(l => l.textContent)")
        assert history == ["Threw 2 heads and 5 tails", "Jess throws first"]
        assert page.inner_text("#discrepancy-undo") == "Undo “Threw 2 heads and 5 tails”"
        buttons = page.eval_on_selector_all("#options button", "bs => bs.map(b => [b.dataset.action, b.disabled])")
        assert buttons and all(disabled for _, disabled in buttons), buttons
        assert "waiting for the table to match" in page.inner_text("#options-why").lower()
        assert_on_one_screen(page)
        page.tap("#choose-anyway")  # the players say the table is right: the options open
        page.tap('#options button[data-action="cancel"]:not([disabled])')
        page.wait_for_function("document.querySelector('#history li').textContent.startsWith('Cancel')")
        assert str(service.state.history()[-1]) == "cancel"
        page.context.close()


def test_a_quarters_many_changes_fit_the_panel(browser: Any) -> None:
    """PW-4.2: with every coin in hand a quarter has 35 changes; the tablet asks first how much
    comes back (0¢ to 24¢, each on the panel without scrolling, at both sizes), then, where
    there are two ways to make it, which coins; the move taken is the one tapped."""
    service = FakeService(game="pennywise", players=["A", "B"], first="A")
    for action in ["put 1 take nothing", "put 1 take nothing", "put 5 take nothing", "put 5 take nothing",
                   "put 10 take nothing", "put 10 take nothing", "put 1 take nothing", "put 1 take nothing"]:
        service.act(action)
    quarters = [o for o in service.view()["options"] if o["action"].startswith("put 25")]
    assert len(quarters) == 35
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size in SIZES:
            page = open_at(browser, server, size)
            page.tap('#options .group-choice:text-is("quarter")')
            page.wait_for_selector("#options .amount-choice")
            amounts = page.eval_on_selector_all("#options .amount-choice", "bs => bs.map(b => b.firstChild.textContent)")
            assert amounts == [f"{cents}¢" for cents in range(25)]
            assert_on_one_screen(page)
            assert_tablet_friendly(page)
            assert page.evaluate("(() => { const s = document.querySelector('#side');"
                                 " return s.scrollHeight <= s.clientHeight + 1; })()"), f"the panel scrolls at {size}"
            screenshot(page, f"pennywise-quarter-{size}")
            page.context.close()
        page = open_at(browser, server, "landscape")
        page.tap('#options .group-choice:text-is("quarter")')
        page.tap('#options .amount-choice[data-amount="10"]')
        ways = page.eval_on_selector_all("#options button[data-action]", "bs => bs.map(b => b.textContent)")
        assert ways == ["2 nickels → 32¢", "dime → 32¢"]
        assert_on_one_screen(page)
        page.tap('#options button[data-action="put 25 take 10"]')
        page.wait_for_function("document.querySelector('#prompt').textContent.startsWith('B')")
        assert str(service.state.history()[-1]) == "put 25 take 10"
