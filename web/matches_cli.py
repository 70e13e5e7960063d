"""``referee matches list|show ID|export ID``: the stored matches, their logs, and JSON exports."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from web.serve_cli import DEFAULT_DB


def add_parser(commands: Any) -> None:
    """Register the ``matches`` subcommand."""
    matches = commands.add_parser("matches", help="list, show or export stored matches")
    matches.add_argument("what", choices=("list", "show", "export"), help="list every match, show one's log, or export it as JSON")
    matches.add_argument("id", nargs="?", type=int, help="the match id (for show and export)")
    matches.add_argument("--db", default=DEFAULT_DB, help=f"the match log (default {DEFAULT_DB})")
    matches.set_defaults(run=run_matches)


def registered_name(game: str) -> str:
    """A stored game's registered name (a log written before names had one spelling may say
    ``seven_pennies``), or the stored text for a game this version does not know."""
    from referee import ConfigError, find_game

    try:
        return find_game(game).name
    except ConfigError:
        return game


def run_matches(args: argparse.Namespace) -> int:
    """Run ``referee matches``; returns 0, or 2 for a missing id or database."""
    from pathlib import Path

    from web.store import MatchStore, StoreError

    if args.db != ":memory:" and not Path(args.db).is_file():
        print(f"referee: no match log at {args.db}", file=sys.stderr)
        return 2
    try:
        store = MatchStore(args.db)
    except StoreError as exc:  # a damaged file: named, with how to recover
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    try:
        if args.what == "list":
            for info in store.matches():
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
                print(f"{info.id:4d}  {when}  {registered_name(info.game):<20} {','.join(info.players):<24} {info.status:<9} "
                      f"{info.events} events  {info.camera}")
            return 0
        if args.id is None:
            print(f"referee: matches {args.what} needs a match id (see referee matches list)", file=sys.stderr)
            return 2
        if args.what == "export":
            print(json.dumps(store.export(args.id), indent=1))
            return 0
        match = store.open(args.id)
        info = store.info(args.id)
        print(f"match {info.id}: {match.state.game.title}, {', '.join(info.players)} ({info.status})")
        for event in match.events:
            when = time.strftime("%H:%M:%S", time.localtime(event.at))
            frame = f" [frame {event.frame_id}]" if event.frame_id else ""
            print(f"{event.seq:4d} {when} {event.actor:<7} {event.kind:<6} {event.text}{frame}")
        print(match.state)
        return 0
    except StoreError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
