"""``referee demo``: the embedded default — a recorded game replayed on the dashboard.

No camera is needed: the replay source feeds the recorded frames of a game from
``fixtures/games/`` through the whole referee (settle, vision, reconciliation, the match log),
and the dashboard serves it at ``http://localhost:8080``. The replay pauses at each recorded
player decision until someone taps it on the tablet (``--auto`` takes the recorded decisions
itself, for a demo that plays on its own). Pennies From Heaven, whose cards are all entered on
the tablet, has a recorded hand instead of frames (``--game pennies-from-heaven``): a table
refereed by hand where the table's steps are entered for the players and their decisions wait
for their taps (``--auto`` enters the whole hand). Finding and opening the recorded games is
``web.demo_games``'s job, shared with the app's ``replay:demo`` camera; its names are
re-exported here.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from web.demo_games import DEFAULT_GAME, FIXTURE_GAMES, WaitForPlayers, game_folder, open_demo, recorded_games

__all__ = ["DEFAULT_GAME", "FIXTURE_GAMES", "WaitForPlayers", "add_parser", "game_folder", "open_demo",
           "recorded_games", "run_demo"]


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
    demo.add_argument("--auto", action="store_true", help="take the recorded decisions instead of waiting for taps (a recorded hand: enter every action)")
    demo.add_argument("--db", help="keep the match log in this file (default: a temporary one, removed when the demo stops)")
    demo.set_defaults(run=run_demo)


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
