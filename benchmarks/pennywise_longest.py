"""The longest 2-player Pennywise games of RULES.md §6.3.3 (PW-7.2), computed from the rules engine.

Each position's moves come from ``PennywiseState.legal_actions()`` and its successors from
``PennywiseState.successor()`` (the engine's own ``_apply``), memoised on ``position()``; there
is no separate model of the rules. Also prints who wins with perfect play (PW-7.4), the number of
positions, and the wall-clock and CPU time of each search.

Run: ``nice -n 19 .venv/bin/python benchmarks/pennywise_longest.py [COINAGE ...]``
(default: Original). Expected for Original: 127, 157, 377, 375, 370, first player loses.
"""

from __future__ import annotations

import sys
import time

from referee.games.pennywise import COINAGES, PennywiseGame, solve

RULES: tuple[tuple[str, dict[str, str]], ...] = (
    ("original", {"pw.change_rule": "original"}),
    ("k1", {"pw.change_rule": "k1"}),
    ("k2 any_lower", {"pw.change_rule": "k2", "pw.k2_reading": "any_lower"}),
    ("k2 original_or_all_lower", {"pw.change_rule": "k2", "pw.k2_reading": "original_or_all_lower"}),
    ("k2 all_lower_or_nothing", {"pw.change_rule": "k2", "pw.k2_reading": "all_lower_or_nothing"}),
)
"""The five change rules of PW-4.3 with their option values."""


def main(argv: list[str]) -> int:
    """Solve each coinage named in ``argv`` (default Original) under every change rule."""
    names = argv or ["Original"]
    for name in names:
        if name not in COINAGES:
            print(f"unknown coinage {name!r}; the coinages are: {', '.join(COINAGES)}", file=sys.stderr)
            return 2
    print(f"{'coinage':9} {'rule':26} {'longest':>7} {'first wins':>10} {'positions':>9} {'wall s':>7} {'cpu s':>7}", flush=True)
    for name in names:
        for label, options in RULES:
            game = PennywiseGame(["A", "B"], {"pw.coinage": name, **options})
            started, cpu = time.perf_counter(), time.process_time()
            result = solve(game)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            print(f"{name:9} {label:26} {result.longest:7d} {str(result.first_player_wins):>10} "
                  f"{result.positions:9d} {seconds:7.1f} {cpu:7.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
