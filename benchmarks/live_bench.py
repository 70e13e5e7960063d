"""Vision on the fixture games' settled frames, as the live service reads them.

For every settled frame of each game in ``fixtures/games`` the service's reader
(``web.service.VisionReader``: calibrated from the frame's own markers, coins searched at
their size, only the kinds the game puts on the table looked for, reads on markers left out) is compared with the frame's labels. A read matches a
labelled object when its centre lies within the object's box. Per game it prints: objects
labelled, found (matched), missed, extra reads (no labelled object), kind right, and of the
face reads that reconcile would use (confidence >= ``referee.reconcile.CONFIDENT``) how many
are right or wrong, how many are unsure (asked), and how many objects lying flat were
flagged as not flat (cocked, on edge, lying on another: asked about too).

    nice -n 19 .venv/bin/python -m benchmarks.live_bench [GAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2

from hardware.replay import ReplaySource
from referee.core import find_game
from referee.reconcile import CONFIDENT
from web.bootstrap import recorded_options
from web.recording import replay_layout
from web.service import VisionReader, kinds_in_play

GAMES = Path(__file__).resolve().parents[1] / "fixtures" / "games"


def bench_game(name: str) -> dict[str, Any]:
    """Counts for one game (see the module docstring)."""
    source = ReplaySource(GAMES / name)
    recorded = source.game
    players = recorded.get("players") or recorded.get("config", {}).get("players")
    game = find_game(recorded["game"])(players, recorded_options(recorded))
    reader = VisionReader(replay_layout(source), kinds=kinds_in_play(game.new_state()))
    counts = dict(frames=0, labelled=0, found=0, missed=0, extra=0, kind_right=0, sure_right=0, sure_wrong=0, unsure=0,
                  flagged=0)
    seconds: list[float] = []
    for entry in source.game["frames"]:
        if not entry.get("settled"):
            continue
        image = cv2.imread(str(GAMES / name / entry["image"]))
        started = time.perf_counter()
        observation = reader(image)
        seconds.append(time.perf_counter() - started)
        counts["frames"] += 1
        labels = [o for o in entry["objects"]]
        counts["labelled"] += len(labels)
        used: set[int] = set()
        for detection in observation.objects:
            cx, cy = detection.center
            match = next((i for i, o in enumerate(labels) if i not in used
                          and o["bbox"][0] <= cx <= o["bbox"][0] + o["bbox"][2]
                          and o["bbox"][1] <= cy <= o["bbox"][1] + o["bbox"][3]), None)
            if match is None:
                counts["extra"] += 1
                continue
            used.add(match)
            label = labels[match]
            counts["found"] += 1
            kind_right = detection.kind == label["kind"]
            counts["kind_right"] += kind_right
            counts["flagged"] += bool(detection.flags) and not label.get("flags")
            # The face read (``guess``) at the referee's gate, as the referee weighs it.
            if detection.guess is None or detection.confidence < CONFIDENT:
                counts["unsure"] += 1
            elif kind_right and detection.guess == label["value"]:
                counts["sure_right"] += 1
            else:
                counts["sure_wrong"] += 1
        counts["missed"] += len(labels) - len(used)
    seconds.sort()
    return {"game": name, **counts, "read_ms_median": round(1000 * seconds[len(seconds) // 2], 1),
            "read_ms_worst": round(1000 * seconds[-1], 1)}


def main(argv: list[str]) -> int:
    """Print one JSON line per game; an unknown game is named, with the games there are."""
    known = sorted(p.name for p in GAMES.iterdir() if (p / "game.json").is_file())
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", metavar="GAME", help=f"fixture games (default: all of {', '.join(known)})")
    names = ap.parse_args(argv).games or known
    unknown = [name for name in names if name not in known]
    if unknown:
        print(f"error: no fixture game {', '.join(unknown)} in {GAMES} (there are: {', '.join(known)})", file=sys.stderr)
        return 2
    for name in names:
        print(json.dumps(bench_game(name)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
