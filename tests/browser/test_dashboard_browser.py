"""The dashboard in a real browser at tablet size: set up, play to the end, spectate, PIN."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import TABLET_LANDSCAPE, LiveServer, screenshot
from tests.web.fake_service import FakeService

PIN = "2468"


def unlock(page: Any, pin: str = PIN) -> None:
    page.fill("#pin", pin)
    page.tap("#login button")


def tap_option(page: Any, action: str) -> None:
    page.tap(f'#options button[data-action="{action}"]')


def enter_throw(page: Any, text: str) -> None:
    page.fill("#manual-action", text)
    page.tap("#manual button")


def assert_tablet_friendly(page: Any) -> None:
    """No horizontal scrolling; every button at least 48 px in both directions."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no horizontal scroll"
    sizes = page.eval_on_selector_all(
        "button:not([hidden])",
        "els => els.filter(e => e.offsetParent !== null).map(e => [e.textContent, e.getBoundingClientRect().width, e.getBoundingClientRect().height])",
    )
    small = [s for s in sizes if s[1] < 48 or s[2] < 48]
    assert not small, f"touch targets under 48 px: {small}"


def test_seven_pennies_sp_t1_played_by_tapping(tablet: Any, browser: Any) -> None:
    """Set up Seven Pennies on the set-up screen, then play SP-T1's first round to Jess 3, Kevin 4."""
    service = FakeService(game="sevens", players=["A", "B"], options={"sv.rounds": "1"}, first=None)
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        page = tablet.new_page()
        page.goto(server.url + "/")
        unlock(page)
        page.wait_for_selector("#login", state="hidden")
        page.goto(server.url + "/setup")
        page.select_option("#game", "seven-pennies")
        page.fill("#players", "Jess,Kevin")
        page.fill("#first", "Jess")
        page.wait_for_selector('label[for="opt-sp.penalty_tie"]')
        screenshot(page, "setup")
        page.tap("#setup button[type=submit]")
        page.wait_for_url(server.url + "/")
        page.wait_for_function("document.querySelector('#prompt').textContent.startsWith('Jess: throw')")
        assert_tablet_friendly(page)
        screenshot(page, "play-throw")

        enter_throw(page, "throw 3H 4T")
        page.wait_for_selector('#options button[data-action="gather"]')
        forced = page.inner_text("#forced")
        assert "3 heads and 3 tails" in forced and "Balcony" in forced
        screenshot(page, "play-decide")
        tap_option(page, "gather")
        page.wait_for_function("document.querySelector('#prompt').textContent.startsWith('Kevin')")
        enter_throw(page, "throw 5H 1T")
        page.wait_for_selector('#options button[data-action="gather"]')
        tap_option(page, "gather")
        page.wait_for_function("document.querySelector('#prompt').textContent.startsWith('Jess')")
        enter_throw(page, "throw 0H 2T")
        page.wait_for_selector('#options button[data-action="gather"]')
        tap_option(page, "gather")
        page.wait_for_function("document.querySelector('#scores').textContent.includes('3')")
        scores = page.inner_text("#scores")
        assert "Jess\t3" in scores and "Kevin\t4" in scores
        screenshot(page, "play-round-end")

        page.set_viewport_size(TABLET_LANDSCAPE)
        assert_tablet_friendly(page)
        screenshot(page, "play-landscape")


def test_illegal_entry_shows_the_rule(tablet: Any) -> None:
    service = FakeService()
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        page = tablet.new_page()
        page.goto(server.url + "/")
        unlock(page)
        page.wait_for_selector("#manual:not([hidden])")
        enter_throw(page, "throw 3H 3T")
        page.wait_for_selector("#error:not([hidden])")
        assert "SP-3.1" in page.inner_text("#error")


def test_a_throw_typed_in_words_is_entered_as_that_throw(tablet: Any) -> None:
    """SP-3.1: the entry box hints the form of a throw in words (never a past throw), and a throw
    typed that way ("3 heads 4 tails") is the throw the referee takes (throw 3H 4T)."""
    service = FakeService()
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        page = tablet.new_page()
        page.goto(server.url + "/")
        unlock(page)
        page.wait_for_selector("#manual:not([hidden])")
        assert page.get_attribute("#manual-action", "placeholder") == "e.g. 3 heads 4 tails"
        before = len(service.state.history())
        enter_throw(page, "3 heads 4 tails")
        page.wait_for_function("(n) => document.querySelector('#history').children.length > n", arg=before, timeout=30000)
        assert [str(a) for a in service.state.history()[before:]] == ["throw 3H 4T"]
        assert page.get_attribute("#manual-action", "placeholder") == "e.g. 3 heads 4 tails"


def test_spectator_sees_every_update_and_cannot_act(browser: Any, tablet: Any) -> None:
    service = FakeService()
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        player = tablet.new_page()
        player.goto(server.url + "/")
        unlock(player)
        spectator_context = browser.new_context(viewport={"width": 800, "height": 1280}, has_touch=True)
        spectator = spectator_context.new_page()
        spectator.goto(server.url + "/")
        spectator.wait_for_function("document.querySelector('#prompt').textContent.startsWith('Jess: throw')")
        assert spectator.inner_text("#role") == "Spectator"

        player.wait_for_selector("#manual:not([hidden])")
        enter_throw(player, "throw 3H 4T")
        spectator.wait_for_function("document.querySelector('#forced').textContent.includes('3 heads and 3 tails')")
        assert spectator.locator("#options button").count() == 2
        assert not spectator.locator("#options button").first.is_visible(), "spectators get no buttons"
        assert spectator.locator("#manual").is_hidden()
        screenshot(spectator, "spectator")

        tap_option(player, "gather")
        spectator.wait_for_function("document.querySelector('#prompt').textContent.startsWith('Kevin')")

        # A wrong PIN cannot act.
        spectator.fill("#pin", "1111")
        spectator.tap("#login button")
        spectator.wait_for_function("document.querySelector('#login-error').textContent.length > 0")
        assert "wrong PIN" in spectator.inner_text("#login-error")
        status = spectator.evaluate(
            """async () => (await fetch('/api/action', {method: 'POST', headers: {'Content-Type': 'application/json',
               'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content},
               body: JSON.stringify({action: 'throw 5H 1T'})})).status"""
        )
        assert status == 403
        assert service.state.history()[-1].verb == "gather"
        spectator_context.close()


def test_pennies_from_heaven_cards_entered_with_the_picker(tablet: Any) -> None:
    """Issue 8: Pennies From Heaven is playable from the tablet, cards entered with a picker."""
    service = FakeService(game="pennies-from-heaven", players=["N", "E", "S", "W"], first="N")
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        page = tablet.new_page()
        page.goto(server.url + "/")
        unlock(page)
        page.wait_for_selector("#cards:not([hidden])")
        tap_option(page, "dealt yes no")
        page.wait_for_function("document.querySelector('#prompt').textContent.includes('upcard')")
        page.tap('#card-verbs button:text-is("upcard")')
        page.tap('#card-ranks button:text-is("Q")')
        page.tap('#card-suits button[title="suit H"]')
        assert page.input_value("#manual-action") == "upcard QH"
        page.tap("#manual button")
        page.wait_for_function("document.querySelector('#prompt').textContent.includes('red three')")
        assert_tablet_friendly(page)
        screenshot(page, "pennies-from-heaven-picker")
        assert [str(a) for a in service.state.history()][-1] == "upcard QH"
