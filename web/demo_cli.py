"""``referee demo``: the embedded default — a recorded game replayed on the dashboard.

No camera is needed: the replay source feeds the recorded frames of a game from
``fixtures/games/`` through the whole referee (settle, vision, reconciliation, the match log),
and the dashboard serves it at ``http://localhost:8080``. The replay pauses at each recorded
player decision until someone taps it on the tablet (``--auto`` takes the recorded decisions
itself, for a demo that plays on its own).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_GAME = "sp_t1"
FIXTURE_GAMES = Path(__file__).resolve().parent.parent / "fixtures" / "games"


def add_parser(commands: Any) -> None:
    """Register the ``demo`` subcommand."""
    demo = commands.add_parser("demo", help="replay a recorded game on the dashboard (no camera needed)")
    demo.add_argument("--game", default=DEFAULT_GAME,
                      help=f"a game's name (sevens) or a folder of fixtures/games (default {DEFAULT_GAME})")
    demo.add_argument("--port", type=int, default=8080, help="dashboard port (default 8080)")
    demo.add_argument("--host", default="0.0.0.0", help="dashboard address (default all)")
    demo.add_argument("--pin", default="1234", help="the control PIN (default 1234)")
    demo.add_argument("--read", choices=("vision", "labels"), default="vision",
                      help="read the frames with the camera reader (default) or take their recorded labels")
    demo.add_argument("--auto", action="store_true", help="take the recorded decisions instead of waiting for taps")
    demo.add_argument("--db", help="keep the match log in this file (default: a temporary one, removed when the demo stops)")
    demo.set_defaults(run=run_demo)


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
    from web.service import open_table

    folder = game_folder(name)
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


def run_demo(args: argparse.Namespace) -> int:
    """Run ``referee demo`` until interrupted; returns the exit status. Without ``--db`` the
    match log lives in a temporary folder, named on start and removed on stop."""
    scratch = None if args.db else Path(tempfile.mkdtemp(prefix="referee-demo-"))
    db = str(args.db) if scratch is None else str(scratch / "matches.db")
    try:
        return _serve_demo(args, db, kept=scratch is None)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _serve_demo(args: argparse.Namespace, db: str, kept: bool) -> int:
    from referee import ConfigError
    from web.app import create_app
    from web.live import create_dashboard_server

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        service = open_demo(args.game, db, read=args.read, auto=args.auto)
    except (FileNotFoundError, ConfigError, ValueError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    app = create_app({"REFEREE_SERVICE": service, "REFEREE_PIN": args.pin})
    server = create_dashboard_server(app, args.host, args.port)
    host = "localhost" if args.host in ("0.0.0.0", "::") else args.host
    print(f"Demo: {service.match.state.game.title} replayed from {args.game}.")
    print(f"Open http://{host}:{server.effective_port}/ on a tablet or browser; control PIN {args.pin}. Ctrl-C stops.")
    if kept:
        print(f"Match log: {db} (referee matches list --db {db})")
    else:
        print(f"Match log: {db}, removed when the demo stops (--db FILE keeps it)")
    sys.stdout.flush()
    service.start()
    threading.Thread(target=server.run, name="dashboard", daemon=True).start()
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        service.stop()
        server.close()
    return 0
