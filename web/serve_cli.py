"""``referee serve``: referee a real table (or a replayed one) and print every prompt and ruling.

``--camera pi``, ``webcam[:N]`` or ``replay:PATH``. The match is stored in ``--db`` and resumed
after a restart. With ``--port`` the dashboard is served too; without it the loop runs in the
terminal. A replay ends at its last frame; a camera runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from referee import ConfigError, RulesError
from referee.options import parse_option_assignments

if TYPE_CHECKING:
    from web.loop import LoopResult

DEFAULT_DB = os.environ.get("REFEREE_DB") or str(Path.home() / ".local" / "share" / "table-referee" / "matches.db")


def add_parser(commands: Any) -> None:
    """Register the ``serve`` subcommand."""
    serve = commands.add_parser("serve", help="referee a table from a camera or a recorded game")
    serve.add_argument("--camera", required=True, help="pi, webcam, webcam:N or replay:PATH (a fixtures/games folder)")
    serve.add_argument("--game", help="the game to start (a replay names its own)")
    serve.add_argument("--players", help="names in seating order, comma separated (a replay names its own)")
    serve.add_argument("--option", action="append", default=None, metavar="KEY=VALUE", help="a house rule, e.g. sv.rounds=3")
    serve.add_argument("--first", help="the player who starts, where the table chooses (G-5)")
    serve.add_argument("--db", default=DEFAULT_DB, help=f"the match log (SQLite; default {DEFAULT_DB})")
    serve.add_argument("--new", action="store_true", help="start a new match even if one is in play on this camera")
    serve.add_argument("--fast", action="store_true", help="replay as fast as possible instead of in real time")
    serve.add_argument("--read", choices=("vision", "labels"), default="vision",
                       help="read frames with vision (default) or take a replay's recorded labels")
    serve.add_argument("--calibration", metavar="FILE", help="the table's calibration JSON (default: the replay's, or calibration.json beside --db)")
    serve.add_argument("--record", metavar="FOLDER", help="also record the frames and the confirmed reads as a new fixture game")
    serve.add_argument("--port", type=int, help="also serve the dashboard on this port")
    serve.add_argument("--host", default="0.0.0.0", help="address for the dashboard (default all)")
    serve.add_argument("--pin", help="with --port: the control PIN players unlock the dashboard with (default $REFEREE_PIN,"
                       " else REFEREE_PIN in the dashboard's referee.cfg; a live camera needs one, a replay keeps the demo's 1234)")
    serve.add_argument("--json", action="store_true", help="print one JSON summary at the end instead of the rulings")
    serve.set_defaults(run=run_serve)
    record = commands.add_parser("record", help="record what a camera sees as a new fixture game folder")
    record.add_argument("--camera", required=True, help="pi, webcam or webcam:N")
    record.add_argument("out", help="a new folder for the frames and game.json")
    record.add_argument("--seconds", type=float, default=60.0, help="how long to record (default 60)")
    record.add_argument("--game", help="the game being played, noted in game.json")
    record.add_argument("--players", help="the players, noted in game.json")
    record.set_defaults(run=run_record)


def run_record(args: argparse.Namespace) -> int:
    """Run ``referee record``: frames and timestamps into OUT in the fixtures' format."""
    import time

    from hardware import open_source
    from hardware.frames import CameraError, FrameError
    from hardware.recorder import Recorder

    info: dict[str, Any] = {"camera": args.camera}
    if args.game:
        info["game"] = args.game
    if args.players:
        info["players"] = [p.strip() for p in args.players.split(",") if p.strip()]
    try:
        recorder = Recorder(open_source(args.camera), args.out, info)
        recorder.start()
    except (CameraError, ValueError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    count = 0
    end = time.monotonic() + args.seconds
    try:
        while time.monotonic() < end:
            try:
                recorder.read()
                count += 1
            except FrameError:
                continue
            except EOFError:
                break
    except KeyboardInterrupt:
        pass
    finally:
        recorder.close()
    print(f"recorded {count} frames in {args.out}")
    return 0


def run_serve(args: argparse.Namespace) -> int:
    """Run ``referee serve``; returns the exit status (0, or 2 for bad arguments or camera)."""
    from hardware.frames import CameraError
    from web.auth import serve_pin
    from web.bootstrap import open_table

    players = [p.strip() for p in args.players.split(",") if p.strip()] if args.players else None
    try:
        pin = None
        if args.port:
            config = config_file()
            pin = serve_pin(args.pin, os.environ.get("REFEREE_PIN"), args.camera, configured_pin(config), str(config))
        options = parse_option_assignments(args.option) if args.option is not None else None
        calibration = None
        if args.calibration:
            from vision.calibration import load_calibration

            calibration = load_calibration(args.calibration)
        service = open_table(args.camera, args.db, args.game, players, options, args.first, args.new,
                             realtime=not args.fast, read=args.read, record=args.record, calibration=calibration)
    except (ConfigError, RulesError, CameraError, ValueError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    for note in service.store.notes + service.match.notes:
        print(f"referee: {note}", file=sys.stderr)
    out = sys.stdout
    if not args.json:
        print(f"match {service.match.id} ({service.match.state.game.title}; {', '.join(service.match.state.game.players)})"
              f" on {args.camera}, log {args.db}", file=out)
        show_prompt(service.view(), out)
        service.on_result = lambda result: show_result(result, service.view(), out)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        service.start()
    except CameraError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    server = _serve_dashboard(service, args.host, args.port, pin) if args.port else None
    try:
        # With the dashboard up, serve until stopped (a finished replay stays on view);
        # without it, a replay ends the command at its last frame.
        while not stop.is_set() and not (service.wait(0.2) and server is None):
            stop.wait(0.05 if server is None else 0.2)
    except KeyboardInterrupt:
        pass
    finally:
        service.stop()
        if server is not None:
            server.close()
    view = service.view()
    if args.json:
        print(json.dumps(summary(service)))
    else:
        print(f"\nscores: {', '.join(f'{k} {v}' for k, v in view['scores'].items())}", file=out)
        if view["terminal"]:
            print(f"Game over. Winners: {', '.join(view['winners'])}", file=out)
    if view["loop"]["state"] == "error":
        print(f"referee: the loop failed: {view['loop']['last_problem']}", file=sys.stderr)
        return 1
    return 0


def config_file() -> Path:
    """The config file the dashboard reads (``create_app``'s instance config): ``referee.cfg``
    in Flask's instance folder for ``web.app``, found as Flask finds it."""
    from flask import Flask

    return Path(Flask("web.app", instance_relative_config=True).instance_path) / "referee.cfg"


def configured_pin(path: Path) -> str | None:
    """``REFEREE_PIN`` as the config file at ``path`` sets it, or ``None`` where there is no such
    file or it sets no PIN.

    :raises ValueError: naming the file, when it cannot be read or its PIN is not a string.
    """
    if not path.is_file():
        return None
    from flask import Config

    config = Config(str(path.parent))
    try:
        config.from_pyfile(str(path))
    except Exception as exc:  # the file is Python: any error in it is the file's, named as such
        raise ValueError(f"the config file {path} cannot be read: {type(exc).__name__}: {exc}") from None
    pin = config.get("REFEREE_PIN")
    if pin is not None and not isinstance(pin, str):
        raise ValueError(f"REFEREE_PIN in {path} must be a string in quotes, e.g. REFEREE_PIN = \"8642\"")
    return pin


def show_result(result: LoopResult, view: dict[str, Any], out: TextIO) -> None:
    """Print one ruling, then what the table must do next."""
    where = f"[{result.frame_id}] " if result.frame_id else ""
    print(f"{where}{result.kind}: {result.text}", file=out)
    show_prompt(view, out)


def show_prompt(view: dict[str, Any], out: TextIO) -> None:
    """Print the prompt, forced moves, options, and any question or discrepancy."""
    print(f"  round {view['round']}: {view['prompt']}", file=out)
    for move in view["forced_moves"]:
        print(f"    => {move['text']}", file=out)
    for option in view["options"]:
        print(f"    - {option['action']}: {option['label']}", file=out)
    if view["question"]:
        print(f"    ? {view['question']['text']} ({' / '.join(view['question']['choices'])})", file=out)
    if view["discrepancy"]:
        for problem in view["discrepancy"]["problems"]:
            print(f"    ! {problem}", file=out)
    out.flush()


def summary(service: Any) -> dict[str, Any]:
    """The ``--json`` summary: match id, scores, winners, the action log and the rulings."""
    match = service.match
    state = match.state
    return {
        "match": match.id,
        "game": state.game.name,
        "players": list(state.game.players),
        "scores": state.scores(),
        "terminal": state.is_terminal(),
        "winners": state.winners(),
        "log": [str(action) for action in state.history()],
        "events": [[e.kind, e.text, e.actor, e.frame_id] for e in match.events],
        "loop": service.loop.status.to_json() if service.loop else {},
    }


def _serve_dashboard(service: Any, host: str, port: int, pin: str | None = None) -> Any:
    """Serve the dashboard with waitress in a thread, its pool sized for the live streams
    (``web.live``); returns the server (``close()`` to stop)."""
    from web.app import create_app
    from web.live import create_dashboard_server

    app = create_app({"REFEREE_SERVICE": service, **({"REFEREE_PIN": pin} if pin else {})})
    server = create_dashboard_server(app, host, port)
    threading.Thread(target=server.run, name="dashboard", daemon=True).start()
    print(f"dashboard: http://{host if host != '0.0.0.0' else 'localhost'}:{port}/", file=sys.stdout)
    return server
