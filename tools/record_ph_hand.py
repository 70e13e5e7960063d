"""Record a whole legal hand of Pennies From Heaven for the demo (``fixtures/games/ph_hand1``).

A PFH hand has no camera frames: every card is entered on the tablet. The hand is played by the
seeded simulated table the referee's playout tests use (``TableSim``: real shuffled packs, a
random legal player, the referee fed only what the table shows), so the recording is legal and
the same every time it is generated. Run from the repository root::

    .venv/bin/python tools/record_ph_hand.py            # writes fixtures/games/ph_hand1/game.json
    .venv/bin/python tools/record_ph_hand.py --seed 7 --out /tmp/ph_hand7

The file names the game, players, options and first player (the table's choice at set-up), then
each action of the hand in its text form with who took it (``table`` for what the table shows:
the deal, the upcard, red threes, reveals), and the scores the hand ended with.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import CHANCE  # noqa: E402
from referee.actions import Action, Designate  # noqa: E402
from tests.referee.test_pennies_from_heaven_playouts import TableSim  # noqa: E402

FORMAT = "table-referee-hand/1"
"""The recorded hand's format: actions in text form, no frames."""
DEFAULT_SEED = 11
"""A seed whose hand takes the pile, makes canastas and picks up a Pennies stack."""


class RecordingTable(TableSim):
    """The simulated table, noting who took each action as it is fed to the referee."""

    def __init__(self, players: int, seed: int) -> None:
        super().__init__(players, seed)
        self.taken: list[dict[str, str]] = []
        self.first: str | None = None

    def feed(self, action: Action) -> None:
        seat = self.state.current_player()
        if isinstance(action, Designate):
            self.first = action.player  # chosen at set-up, not a step of the hand
        else:
            who = "table" if seat == CHANCE else self.game.players[seat]
            self.taken.append({"player": who, "action": str(action)})
        super().feed(action)


def record_hand(seed: int = DEFAULT_SEED, players: int = 4) -> dict[str, Any]:
    """One whole hand played by the seeded table, as the demo's ``game.json``."""
    table = RecordingTable(players, seed)
    state = table.run(hands=1)
    if len(state.score_sheet()) != 1:
        raise RuntimeError(f"seed {seed} did not play a hand to its score")
    return {
        "format": FORMAT,
        "name": f"ph_hand{seed}",
        "game": table.game.name,
        "players": list(table.game.players),
        "options": {},
        "first": table.first,
        "seed": seed,
        "actions": table.taken,
        "final": {"scores": dict(state.scores()), "team_scores": dict(state.team_scores()),
                  "hands_scored": len(state.score_sheet())},
    }


def main(argv: list[str] | None = None) -> int:
    """Write the recorded hand's ``game.json``; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the table's shuffle and play (default {DEFAULT_SEED})")
    parser.add_argument("--out", type=Path, default=ROOT / "fixtures" / "games" / "ph_hand1", help="the folder to write")
    args = parser.parse_args(argv)
    hand = record_hand(args.seed)
    hand["name"] = args.out.name
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "game.json").write_text(json.dumps(hand, indent=1) + "\n")
    print(f"{args.out / 'game.json'}: {len(hand['actions'])} actions, scores {hand['final']['scores']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
