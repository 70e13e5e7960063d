"""Issue 56: one screen per decision at both tablet sizes (1024x768 and 768x1024), in Debian's
chromium: the prompt, the options, the forced moves and the scores in view without scrolling,
the picture's numbered markers clear of the objects and of each other, and every object an
option names listed in the picture's legend."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.browser.conftest import LiveServer, screenshot
from tests.browser.test_dashboard_browser import PIN, assert_tablet_friendly, unlock
from web.demo_cli import open_demo

SIZES = {"landscape": {"width": 1024, "height": 768}, "portrait": {"width": 768, "height": 1024}}
ON_SCREEN = ["#prompt", "#options", "#forced", "#scores"]


@contextmanager
def demo(game: str, db: Path, auto: bool = False) -> Iterator[tuple[Any, LiveServer]]:
    """A recorded game replayed with its labels as the read, served on loopback."""
    service = open_demo(game, str(db), read="labels", auto=auto, realtime=False)
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        service.start()
        try:
            yield service, server
        finally:
            service.stop()


def open_at(browser: Any, server: LiveServer, size: str) -> Any:
    context = browser.new_context(viewport=SIZES[size], has_touch=True, is_mobile=True, device_scale_factor=1)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.script_errors = errors
    page.goto(server.url + "/")
    unlock(page)
    page.wait_for_selector("#login", state="hidden")
    return page


def assert_on_one_screen(page: Any) -> None:
    """Nothing below the fold: the page does not scroll, and the prompt, each option, each forced
    move and the scores lie inside the viewport (and inside the panel that holds them)."""
    assert not getattr(page, "script_errors", []), f"the play screen's script failed: {page.script_errors}"
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight"), "the page scrolls"
    outside = page.evaluate(
        """(selectors) => {
             const bad = [];
             const side = document.querySelector('#side').getBoundingClientRect();
             const check = (node, name, panel) => {
               const r = node.getBoundingClientRect();
               if (r.height === 0) return;
               if (r.top < 0 || r.bottom > window.innerHeight || r.left < 0 || r.right > window.innerWidth) bad.push(name);
               if (panel && (r.top < panel.top - 1 || r.bottom > panel.bottom + 1)) bad.push(name + ' (hidden in its panel)');
             };
             for (const s of selectors) check(document.querySelector(s), s, null);
             document.querySelectorAll('#options button, #forced li').forEach((b) => check(b, b.textContent, side));
             return bad;
           }""", ON_SCREEN)
    assert not outside, f"below the fold at {page.viewport_size}: {outside}"


def assert_every_zone_in_view(page: Any) -> None:
    """Every zone of the card table (hands, Pennies, piles, each team's melds and each meld) lies
    inside the viewport and inside the card table's panel: nothing to scroll to."""
    hidden = page.evaluate(
        """() => {
             const table = document.querySelector('#card-table').getBoundingClientRect();
             const top = Math.max(0, table.top) - 1, bottom = Math.min(window.innerHeight, table.bottom) + 1;
             return [...document.querySelectorAll('#card-zones .card-zone, #card-zones .zone-melds li')]
               .filter((node) => { const r = node.getBoundingClientRect();
                                   return r.height === 0 || r.top < top || r.bottom > bottom || r.left < 0 || r.right > window.innerWidth; })
               .map((node) => node.textContent);
           }""")
    assert not hidden, f"zones out of view at {page.viewport_size}: {hidden}"


def picture(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate("async () => (await (await fetch('/api/state')).json())")
    return state


def overlaps(a: list[int], b: list[int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_markers_clear(view: dict[str, Any]) -> None:
    markers, objects = view["picture"]["markers"], view["picture"]["objects"]
    assert markers and len(markers) == len(objects)
    for i, marker in enumerate(markers):
        assert not any(overlaps(marker, o) for o in objects), f"marker {i} covers an object"
        assert not any(overlaps(marker, m) for m in markers[:i]), f"marker {i} covers another marker"


def test_flip_first_decision_fits_both_sizes_and_names_every_die_on_the_picture(browser: Any, tmp_path: Path) -> None:
    """FL-4: A's ten options name dice by number ("Flip die 1", "Tap B's die 9"); each of those
    dice is on the picture's legend under the same name (FL-1.4), the markers cover nothing."""
    with demo("flip_fl_t1", tmp_path / "flip.db") as (_service, server):
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#options button:not([disabled])", timeout=60000)
            page.wait_for_selector("#legend li")
            assert_on_one_screen(page)
            assert_tablet_friendly(page)
            screenshot(page, f"flip-one-screen-{size}")
            options = page.eval_on_selector_all("#options button", "bs => bs.map(b => b.textContent)")
            named = {m.group(0) for text in options for m in re.finditer(r"die \d+", text)}
            legend = page.eval_on_selector_all("#legend .name", "ns => ns.map(n => n.textContent)")
            assert len(named) == 10 and named <= set(legend), f"options name {sorted(named)}, the legend {legend}"
            assert not any("flip 1" == t.strip() for t in page.eval_on_selector_all(
                "#options button", "bs => bs.map(b => b.innerText)")), "no command syntax on the buttons"
            page.context.close()
        assert_markers_clear(picture(page_for_api(browser, server)))


def page_for_api(browser: Any, server: LiveServer) -> Any:
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "/")
    return page


def test_seven_pennies_decision_with_its_forced_move_and_scores_on_one_screen(browser: Any, tmp_path: Path) -> None:
    """SP-3.2, SP-3.4: Jess's Gather or Cancel with the Booth move (done) and the scores in view;
    the rule ID is a small tag, not part of the sentence; every penny is on the legend."""
    with demo("sp_t1", tmp_path / "sp.db") as (_service, server):
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector('#options button[data-action="gather"]:not([disabled])', timeout=60000)
            page.wait_for_selector("#forced li")
            assert_on_one_screen(page)
            assert page.inner_text("#forced .rule") == "SP-3.2"
            assert "(SP-3.2)" not in page.inner_text("#forced")
            legend = page.eval_on_selector_all("#legend .name", "ns => ns.map(n => n.textContent)")
            assert legend and set(legend) == {"penny"}
            assert page.evaluate("(async () => (await fetch('/favicon.ico')).ok)()"), "the tab's icon is served"
            page.context.close()
        assert_markers_clear(picture(page_for_api(browser, server)))


def test_game_over_shows_the_winner_the_scores_and_new_game(browser: Any, tmp_path: Path) -> None:
    """SV-T1/SV-T3 to the end: a game-over panel with the winner, the scores, and New game."""
    with demo("sevens_sv_t1_t3", tmp_path / "sv.db", auto=True) as (service, server):
        assert service.wait(180)
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#game-over:not([hidden])", timeout=30000)
            assert page.inner_text("#winners") == "Winner: A"
            assert page.is_visible("#new-game") and page.get_attribute("#new-game", "href") == "/setup"
            assert_on_one_screen(page)
            screenshot(page, f"sevens-game-over-{size}")
            page.context.close()


def test_a_spectator_is_told_why_there_are_no_buttons(browser: Any, tmp_path: Path) -> None:
    """Disabled options say why: a spectator is told to enter the PIN, with no empty heading."""
    with demo("sp_t1", tmp_path / "spec.db") as (_service, server):
        context = browser.new_context(viewport=SIZES["portrait"], has_touch=True)
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#options button", state="attached", timeout=60000)
        assert page.is_hidden("#options-title")
        assert "control PIN" in page.inner_text("#options-why")
        assert_tablet_friendly(page)  # the PIN box in the bar, nothing off the screen's side
        assert_on_one_screen(page)
        context.close()


def test_a_rounds_end_is_summed_up(browser: Any, tmp_path: Path) -> None:
    """SP-T1's recording ends as round 2 begins: the tablet says round 1 is over, Jess 3, Kevin 4,
    above Kevin's throw (A15), on one screen."""
    with demo("sp_t1", tmp_path / "end.db", auto=True) as (service, server):
        assert service.wait(180)
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#round-over:not([hidden])", timeout=30000)
            assert page.inner_text("#round-over") == "Round 1 over: Jess 3 · Kevin 4"
            assert page.inner_text("#prompt").startswith("Kevin: throw the 7 pennies")
            assert_on_one_screen(page)
            page.context.close()


def test_pennywise_first_decision_fits_with_every_coin_kind_on_the_legend(browser: Any, tmp_path: Path) -> None:
    """PW-4.1, PW-4.2: A's options name the coin put in ("Put in a nickel, ..."); each kind is on
    the legend; totals carry their unit (¢); the house rule's original wording is small print."""
    with demo("pennywise_pw_t3", tmp_path / "pw.db") as (_service, server):
        for size in SIZES:
            page = open_at(browser, server, size)
            # The recording's first picture differs from the referee's table (G-2): the options
            # wait until the players say the table is right.
            page.wait_for_selector("#options button:not([disabled]), #choose-anyway:not([hidden])", timeout=60000)
            if page.is_visible("#choose-anyway"):
                assert "waiting for the table to match" in page.inner_text("#options-why").lower()
                assert_on_one_screen(page)
                page.tap("#choose-anyway")
            page.wait_for_selector("#options button:not([disabled])")
            page.wait_for_selector("#legend li")
            assert_on_one_screen(page)
            options = page.eval_on_selector_all("#options button", "bs => bs.map(b => b.textContent)")
            named = {m.group(0) for text in options for m in re.finditer(r"penny|nickel|dime|quarter", text)}
            legend = set(page.eval_on_selector_all("#legend .name", "ns => ns.map(n => n.textContent)"))
            assert named and named <= legend, f"options name {sorted(named)}, the legend {sorted(legend)}"
            assert page.inner_text("#scores").count("¢") == 2
            assert page.inner_text("#prompt .note").startswith(" (house rule")
            assert "(PW-4.1, PW-4.2)" not in page.inner_text("#prompt")
            page.context.close()
        assert_markers_clear(picture(page_for_api(browser, server)))


def test_pennies_from_heaven_is_a_card_table_with_to_dos_ticked_by_hand(browser: Any) -> None:
    """PH-2.4, PH-2.6: no camera picture of coins for a card game, the table's zones instead
    (hands, Pennies, the piles); the deal's to-dos tick when tapped; prompts without syntax."""
    from tests.web.fake_service import FakeService

    service = FakeService(game="pennies-from-heaven", players=["N", "E", "S", "W"], first="N")
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#card-table:not([hidden])")
            assert page.is_hidden("#picture")
            if size == "landscape":
                assert "dealt yes|no" not in page.inner_text("#prompt")
                page.tap('#options button[data-action="dealt yes yes"]')
                page.wait_for_function("document.querySelector('#prompt').textContent.includes('upcard')")
            zones = page.inner_text("#card-zones")
            assert "N: hand\n15 cards" in zones and "Draw pile" in zones
            assert "CARD" not in page.inner_text("#prompt")
            todo = page.locator("#forced li.tick").first
            assert todo.inner_text().startswith("To do:")
            todo.tap()
            page.wait_for_function("document.querySelector('#forced li.tick').classList.contains('done')")
            assert_on_one_screen(page)
            inside = page.evaluate("""() => ['#manual-action', '#manual button', '#card-suits button', '#card-ranks button']
                .every((s) => { const r = document.querySelector(s).getBoundingClientRect();
                                return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; })""")
            assert inside, "the card picker and the entry box in view"
            screenshot(page, f"pennies-from-heaven-{size}")
            page.context.close()


def test_tko_scores_are_counted_in_nickels(browser: Any, tmp_path: Path) -> None:
    """SPT: under T.K.O. a score is a stack of nickels, and the tablet says so (SP-T2's round 1)."""
    with demo("sp_t2_tko", tmp_path / "tko.db", auto=True) as (service, server):
        assert service.wait(180)
        page = open_at(browser, server, "landscape")
        page.wait_for_selector("#round-over:not([hidden])", timeout=30000)
        assert page.inner_text("#round-over") == "Round 1 over: A 3 nickels · B 3 nickels · C 1 nickel"
        assert page.inner_text("#scores").count("nickel") == 3
        assert_on_one_screen(page)
        page.context.close()


def test_pennywise_many_options_come_in_two_steps(browser: Any) -> None:
    """PW-4.2: with 51 ways to put a coin in and take change, the tablet first asks for the coin,
    then offers only that coin's change; both steps on one screen."""
    from tests.web.fake_service import FakeService

    service = FakeService(game="pennywise", players=["A", "B"], first="A")
    for action in ["put 1 take nothing", "put 1 take nothing", "put 5 take nothing", "put 5 take nothing",
                   "put 10 take nothing", "put 10 take nothing", "put 1 take nothing", "put 1 take nothing"]:
        service.act(action)
    assert len(service.view()["options"]) == 51
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#options .group-choice")
            coins = page.eval_on_selector_all("#options .group-choice", "bs => bs.map(b => b.textContent)")
            assert coins == ["penny", "nickel", "dime", "quarter"]
            assert page.locator("#options button[data-action]").count() == 0
            page.tap('#options .group-choice:text-is("dime")')
            page.wait_for_selector("#options button[data-action]")
            changes = page.eval_on_selector_all("#options button[data-action]", "bs => bs.map(b => b.textContent)")
            assert len(changes) == 10 and changes[0] == "nothing → 37¢"
            assert "nickel + 4 pennies → 46¢" in changes
            assert_on_one_screen(page)
            assert_tablet_friendly(page)
            page.context.close()
        page = open_at(browser, server, "landscape")
        page.tap('#options .group-choice:text-is("nickel")')
        page.tap('#options button[data-action="put 5 take 1"]')
        page.wait_for_function("document.querySelector('#prompt').textContent.startsWith('B')")
        assert str(service.state.history()[-1]) == "put 5 take 1"


def test_a_table_that_does_not_match_offers_one_way_forward(browser: Any, tmp_path: Path) -> None:
    """G-2, SV-4.2: the camera sees the roll 1 2 4 6 3 3 untouched after the moves were asked
    for: the box says what to do, offers "the table is right" and an Undo of the roll, and the
    options say why they wait; all on one screen. Undo takes the roll back."""
    from tests.hardware.fakes import FakeSource, SceneReader, SceneSettle
    from tests.web.test_loop import SCENES, frames
    from web.service import TableService, create_match
    from web.store import MatchStore

    store = MatchStore(tmp_path / "m.db")
    match = create_match(store, "sevens", ["Ann", "Bo"], {"sv.rounds": "1"})
    service = TableService(store, match, FakeSource(frames(1, 2, 3, 7)), settle=SceneSettle,
                           read=SceneReader({**SCENES, 7: SCENES[3]}))
    assert service.loop is not None
    service.loop.source.start()
    for _ in range(16):  # the order rolls, Ann's roll, and the roll seen again untouched
        service.loop.step()
    service.loop.status.state = "running"
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        for size in SIZES:
            page = open_at(browser, server, size)
            page.wait_for_selector("#table-is-right:not([hidden])", timeout=30000)
            assert page.is_visible("#discrepancy-undo") and page.inner_text("#discrepancy-undo") == "Undo “Rolled 1, 2, 3, 3, 4 and 6”"
            assert page.inner_text("#way-out").startswith("Make the moves listed, or, if they are made")
            assert "the camera does not see the moves made yet" in page.inner_text("#options-why").lower()
            assert_on_one_screen(page)
            page.context.close()
        page = open_at(browser, server, "portrait")
        page.wait_for_selector("#discrepancy-undo:not([hidden])", timeout=30000)
        page.tap("#discrepancy-undo")
        page.wait_for_function("!document.querySelector('#history').textContent.includes('Rolled 1, 2, 3, 3, 4 and 6')")
    assert "roll 1 2 3 3 4 6" not in [str(a) for a in service.match.state.history()]


def test_the_recorded_pennies_from_heaven_hand_plays_on_the_card_table(browser: Any, tmp_path: Path) -> None:
    """PH-7, PH-11: ``referee demo --game pennies-from-heaven`` half-way through its recorded
    hand shows the card table (melds, red threes, the piles; no picture) on one screen, the
    player to decide next named, a hundred options in two steps (what to do, then the card)."""
    import json

    from web.demo_games import game_folder

    recorded = json.loads((game_folder("pennies-from-heaven") / "game.json").read_text())
    actions = recorded["actions"]
    half = next(n for n in range(len(actions) // 2, len(actions)) if actions[n]["player"] != "table")
    service = open_demo("pennies-from-heaven", str(tmp_path / "ph.db"), realtime=False)
    for step in actions[:half]:
        service.act(step["action"])  # the players' taps and the table's steps so far
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        service.start()  # waits for the next recorded decision, the players'
        try:
            for size in SIZES:
                page = open_at(browser, server, size)
                page.wait_for_selector("#card-table:not([hidden]) .card-zone")
                assert page.is_hidden("#picture")
                zones = page.inner_text("#card-zones")
                assert "Ann & Cy: melds" in zones and "Draw pile" in zones and "red threes" in zones
                assert page.inner_text("#prompt").startswith(actions[half]["player"])
                assert f"Recorded next: {actions[half]['player']} adds" in page.inner_text("#status")
                assert "1. A ×7 mixed canasta" in zones
                assert_on_one_screen(page)
                assert_every_zone_in_view(page)
                assert page.locator("#card-zones .melds-zone").count() == 2, "each team's melds"
                # Over a hundred options: what to do first, then the cards (one screen still).
                assert page.locator("#options button").count() < 12
                page.locator("#options button.group-choice", has_text="Discards").tap()
                card = page.locator("#options button:not(.group-choice)", has_text=re.compile(r"^\S+$")).first
                assert_on_one_screen(page)
                if size == "portrait":
                    chosen = card.get_attribute("data-action")
                    assert chosen and chosen.startswith("discard ")
                    card.tap()
                    page.wait_for_function("(n) => document.querySelector('#history').children.length > n",
                                           arg=half)
                    assert str(service.match.state.history()[-1]) == chosen
                page.context.close()
        finally:
            service.stop()
    assert len(service.match.state.score_sheet()) == 0, "half-way, the hand is not scored yet"


SYNTAX = re.compile(r"\bCARDS?\b|\bNAME\b|yes\|no|\bgo-out\b|\btake-pile\b|\b(?:red-threes|reveal-pennies|upcard) [A-Z]|\bdealt (?:yes|no)|perfect: ")


def test_every_pennies_from_heaven_prompt_and_option_is_said_without_command_syntax(browser: Any, tmp_path: Path) -> None:
    """PH-2.4 to PH-10: each prompt and option of the recorded hand, and the prompts it never
    reaches (the first dealer, a partner's answer, the Pennies revealed), as the dashboard words
    them: no command syntax, the rule tags kept."""
    import json

    from web.demo_games import game_folder

    actions = json.loads((game_folder("pennies-from-heaven") / "game.json").read_text())["actions"]
    service = open_demo("pennies-from-heaven", str(tmp_path / "ph.db"), realtime=False)
    texts = {
        "The table: designate the first dealer (designate NAME, A67)",
        "Cy: Ann asks to go out; answer yes|no (PH-9.2)",
        "Hand over: reveal Bo's Pennies: reveal-pennies Bo CARDS (PH-8.4)",
    }
    for step in actions:
        view = service.view()
        texts.add(view["prompt"])
        texts.update(option["label"] for option in view["options"])
        service.act(step["action"])
    assert sum(SYNTAX.search(text) is not None for text in texts) >= 8, "the hand's prompts carry syntax to rewrite"
    with LiveServer({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN}) as server:
        page = open_at(browser, server, "portrait")
        shown: list[str] = page.evaluate(
            "(texts) => texts.map((t) => plainText(document.createElement('span'), t).textContent)", sorted(texts))
        status = page.evaluate("plainPhWords('Recorded next: Cy: dealer perfect: no; partner perfect: no')")
    assert status == "Recorded next: Cy: Neither deal perfect", "the status line names the recorded decision in words"
    left = [text for text in shown if SYNTAX.search(text)]
    assert not left, f"command syntax on the dashboard: {left[:5]}"
    assert any("tap who deals below" in text for text in shown)
    assert "Both deals perfect" in shown and "Neither deal perfect" in shown
    assert any(text.endswith("then discard a card or go out") for text in shown)
