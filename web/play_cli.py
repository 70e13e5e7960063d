"""``referee play``: referee a game in the terminal, typed or from a script."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from referee import CHANCE, ConfigError, RulesError, State, find_game, game_names
from referee.actions import Designate
from referee.options import parse_option_assignments


def add_parser(commands: Any) -> None:
    """Register the ``play`` subcommand."""
    play = commands.add_parser("play", help="referee a game in the terminal")
    play.add_argument("game", help="one of: " + ", ".join(game_names()))
    play.add_argument("--players", required=True, help="names in seating order, comma separated: Jess,Kevin")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a house rule, e.g. sp.penalty_tie=none")
    play.add_argument("--first", help="the player who starts (the table's choice, G-5)")
    play.add_argument("--script", help="read actions from FILE (one per line, # comments) instead of typing them")
    play.add_argument("--json", action="store_true", help="print one JSON summary at the end")
    play.set_defaults(run=run_play)


def run_games(args: argparse.Namespace) -> int:
    """Print every game with its options (``referee games``)."""
    for name in game_names():
        cls = find_game(name)
        print(f"{name}: {cls.title}")
        for spec in cls.option_specs:
            print(f"  {spec.key} = {spec.default}  ({spec.accepted()}) {spec.rule} {spec.help}")
    return 0


def run_play(args: argparse.Namespace) -> int:
    """Run ``referee play``; returns the exit status (0, or 2 for an error)."""
    try:
        state = new_game(args.game, args.players, args.option, args.first)
    except (ConfigError, RulesError) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    if args.script:
        try:
            with open(args.script, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError as exc:
            print(f"referee: cannot read script {args.script}: {exc.strerror}", file=sys.stderr)
            return 2
        except UnicodeDecodeError:
            print(f"referee: cannot read script {args.script}: not UTF-8 text", file=sys.stderr)
            return 2
        status = play_script(state, lines, quiet=args.json)
    else:
        status = play_interactive(state, sys.stdin, sys.stdout)
    if args.json:
        print(json.dumps(summary(state)))
    elif status == 0:
        print(state)
    return status


def new_game(name: str, players: str, options: list[str], first: str | None) -> State:
    """Make the state a ``referee play`` command line asks for.

    :raises ConfigError: for an unknown game, option, value or player count.
    """
    game = find_game(name)([p.strip() for p in players.split(",") if p.strip()], parse_option_assignments(options))
    state = game.new_state()
    if first is not None:
        if Designate not in game.action_types:
            raise ConfigError(f"{game.title} decides its first player by the rules, not --first")
        state.apply(Designate(first))
    return state


def play_script(state: State, lines: list[str], quiet: bool = False) -> int:
    """Apply each line of a script; stops at the first bad line with its number and reason."""
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            state.apply(text)
        except RulesError as exc:
            print(f"referee: line {number}: {text!r}: {exc}", file=sys.stderr)
            return 1
        if not quiet:
            show_effects(state, sys.stdout, text)
    return 0


def play_interactive(state: State, stdin: TextIO, stdout: TextIO) -> int:
    """Prompt, read one action per line, apply it; ``undo`` takes one back, ``quit`` stops."""
    while not state.is_terminal():
        show_prompt(state, stdout)
        line = stdin.readline()
        if not line:
            return 0
        text = line.split("#", 1)[0].strip()
        if text in ("quit", "exit"):
            return 0
        if text == "undo":
            try:
                print(f"undid: {state.undo()}", file=stdout)
            except RulesError as exc:
                print(f"  ! {exc}", file=stdout)
            continue
        if not text:
            continue
        try:
            state.apply(text)
        except RulesError as exc:
            print(f"  ! {exc}", file=stdout)
            continue
        show_effects(state, stdout, text)
    print(f"Game over. Winners: {', '.join(state.winners())}", file=stdout)
    return 0


def show_prompt(state: State, out: TextIO) -> None:
    """Print the prompt and the legal options."""
    print(f"\n[round {state.round()}] {state.prompt()}", file=out)
    if state.current_player() != CHANCE:
        for option in state.options():
            print(f"  - {option.action}: {option.label}", file=out)
    print("> ", end="", file=out, flush=True)


def show_effects(state: State, out: TextIO, text: str) -> None:
    """Print the forced moves an action caused."""
    print(f"{text}", file=out)
    for move in state.forced_moves():
        print(f"  => {move}", file=out)


def summary(state: State) -> dict[str, Any]:
    """The ``--json`` summary: game, players, scores, terminal, winners, round, log and more
    (with ``score_sheet`` for games whose state keeps one, such as Pennies From Heaven)."""
    data: dict[str, Any] = {
        "game": state.game.name,
        "players": list(state.game.players),
        "options": state.game.to_json()["options"],
        "scores": state.scores(),
        "terminal": state.is_terminal(),
        "winners": state.winners(),
        "round": state.round(),
        "phase": state.phase(),
        "prompt": state.prompt(),
        "log": [str(action) for action in state.history()],
    }
    score_sheet = getattr(state, "score_sheet", None)
    if callable(score_sheet):
        data["score_sheet"] = score_sheet()
    return data
