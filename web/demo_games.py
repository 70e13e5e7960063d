"""The embedded demo's games: the recorded games of ``fixtures/games/``, found by folder or by
game name, and opened as a table service that replays one (``referee demo``, and the app's
``replay:demo`` camera through ``web.service_factory``).

The replay pauses at each recorded player decision until someone taps it on the tablet
(``WaitForPlayers``), unless ``auto`` takes the recorded decisions itself.

A game played without a camera (Pennies From Heaven, whose cards are all entered on the tablet)
is recorded as a hand of actions in text form instead of frames (``tools/record_ph_hand.py``);
its demo is a table refereed by hand, where the table's steps (the deal, the upcard, red threes,
reveals) are entered for the players and their decisions wait for their taps, unless ``auto``
enters the whole hand itself at a readable pace (``RecordedHand``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_GAME = "sp_t1"
"""The recording ``referee demo`` and the ``replay:demo`` camera replay unless told otherwise."""
FIXTURE_GAMES = Path(__file__).resolve().parent.parent / "fixtures" / "games"
"""Where the recorded games live: one folder each, with its ``game.json`` and frames."""


def recorded_games() -> dict[str, str]:
    """Each recorded game of fixtures/games (its folder's name) and the game it plays, by the
    game's registered name."""
    from referee import ConfigError, find_game

    games: dict[str, str] = {}
    for folder in sorted(FIXTURE_GAMES.iterdir()) if FIXTURE_GAMES.is_dir() else []:
        try:
            recorded = json.loads((folder / "game.json").read_text())
            games[folder.name] = find_game(str(recorded.get("game", ""))).name
        except (OSError, ValueError, ConfigError):
            continue  # not a recorded game of a known game
    return games


def game_folder(name: str) -> Path:
    """The recorded game ``name``: a path to one, a folder of fixtures/games (``sevens_sv_t1_t3``),
    or a game's name (``sevens``, ``Seven Pennies``), which picks the first recording of it.

    :raises FileNotFoundError: naming the recordings there are and the games they play.
    """
    from referee import ConfigError, find_game

    path = Path(name)
    if path.is_dir():
        return path
    folder = FIXTURE_GAMES / name
    if (folder / "game.json").is_file():
        return folder
    games = recorded_games()
    try:
        wanted = find_game(name).name
    except ConfigError:
        wanted = None
    for recording, game in games.items():
        if game == wanted:
            return FIXTURE_GAMES / recording
    known = ", ".join(f"{recording} ({game})" for recording, game in games.items())
    what = f"no recording of {wanted}" if wanted else f"no recorded game {name!r}"
    raise FileNotFoundError(f"{what}; the recorded games are: {known or 'none (is fixtures/ there?)'}")


def open_demo(name: str, db: str, read: str = "vision", auto: bool = False, realtime: bool = True) -> Any:
    """The table service replaying game ``name``, waiting for players' taps unless ``auto``.

    With ``auto`` the recorded decisions are taken, and a question about an unsure read is
    answered with what the frame's labels say, as the players would."""
    from web.bootstrap import open_table

    folder = game_folder(name)
    recorded = json.loads((folder / "game.json").read_text())
    if isinstance(recorded.get("actions"), list):
        from web.recorded_hand import HAND_PACE, open_hand

        return open_hand(recorded, db, auto=auto, pace=HAND_PACE if realtime else 0.0)
    service = open_table(f"replay:{folder}", db, new=True, realtime=realtime, read=read, answer_from_labels=auto)
    decisions = getattr(service.source, "game", {}).get("decisions")  # a replay's recorded decisions
    if not auto and decisions:
        service.tablet = WaitForPlayers(decisions, service.source)
    return service


class WaitForPlayers:
    """Holds the replay at each recorded decision until the players have made a decision.

    The recorded decisions say at which frame and moment each was taken; the replay does not
    run past that moment until the match log holds as many player decisions, so throws
    recorded after a decision are read only once the tablet has made it. The recording is read
    by the same rules as :class:`web.service.RecordedTablet`, which takes the decisions itself.
    """

    def __init__(self, decisions: Sequence[Mapping[str, Any]], source: Any, poll: float = 0.05) -> None:
        from web.service import RecordedTablet

        self.recording = RecordedTablet(decisions, source)
        self.source = source
        self.poll = poll

    def __call__(self, service: Any) -> None:
        waited = False
        stop: threading.Event | None = getattr(service, "_stop", None)
        while stop is None or not stop.is_set():
            upcoming = self.recording.next_decision(service.match)
            if upcoming is None or not self._due(*upcoming):
                break
            waited = True
            time.sleep(self.poll)
        if waited:
            self.source.seek(self.source.position)  # real-time pacing restarts after the pause

    def _due(self, number: int, decision: Mapping[str, Any]) -> bool:
        recorded_moment = any(key in decision for key in ("t", "after_frame", "frame"))
        return recorded_moment and self.recording.moment_reached(number, decision)
