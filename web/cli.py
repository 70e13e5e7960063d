"""The ``referee`` command line.

Subcommands import what they need when they run, so ``referee play`` works without a camera,
OpenCV or Flask being loaded.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from web import demo_cli, markers_cli, matches_cli, play_cli, read_cli, serve_cli


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="referee", description="A camera referee for coin-and-dice table games.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo_cli.add_parser(commands)
    play_cli.add_parser(commands)
    read_cli.add_parser(commands)
    serve_cli.add_parser(commands)
    matches_cli.add_parser(commands)
    markers_cli.add_parser(commands)
    games = commands.add_parser("games", help="list the games and their options")
    games.set_defaults(run=play_cli.run_games)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
