"""What the match log's journal costs: the time to commit an event with it and without it, and
the time to open a long log (the journal is read and checked against the database each time).

Commits ``--events`` rulings to a fresh log in a temporary folder on the disk given (the
journal's cost is an fsync, so put it where the log will live), once with the journal and once
with it detached, alternating ``--rounds`` times; prints each run's p50 and p95 per commit, then
the time to reopen the log with the journal and the journal's size.

    nice -n 19 .venv/bin/python -m benchmarks.journal_bench [--events 1000] [--rounds 2] [--folder .]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from web.store import MatchStore


def commit_times(folder: Path, events: int, journal: bool) -> list[float]:
    """Seconds each of ``events`` commits took on a fresh log in ``folder``."""
    store = MatchStore(folder / "m.db")
    if not journal:
        assert store.journal is not None
        store.journal.close()
        store.journal = None
    match_id = store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1})
    times = []
    for i in range(events):
        started = time.perf_counter()
        store.append(match_id, "ruling", "the table matches", "camera", f"{i:05d}", {"ruling": "match", "problems": []})
        times.append(time.perf_counter() - started)
    store.close()
    return times


def percentile(times: list[float], share: float) -> float:
    """The ``share`` quantile of ``times``, in milliseconds."""
    return sorted(times)[min(len(times) - 1, int(len(times) * share))] * 1000


def main() -> None:
    """Run the bench and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--folder", default=".", help="where the temporary logs go (default: here)")
    args = parser.parse_args()
    for _ in range(args.rounds):
        for journal in (True, False):
            with tempfile.TemporaryDirectory(dir=args.folder) as folder:
                times = commit_times(Path(folder), args.events, journal)
                print(f"{'with' if journal else 'without'} journal: {args.events} commits, p50 {percentile(times, 0.5):.2f} ms,"
                      f" p95 {percentile(times, 0.95):.2f} ms, mean {statistics.mean(times) * 1000:.2f} ms")
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        commit_times(Path(folder), args.events, True)
        started = time.perf_counter()
        MatchStore(Path(folder) / "m.db").close()
        opened = time.perf_counter() - started
        size = os.path.getsize(Path(folder) / "m.db.journal")
        print(f"reopen a log of {args.events} events: {opened * 1000:.0f} ms (journal {size} bytes)")


if __name__ == "__main__":
    main()
