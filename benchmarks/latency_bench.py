"""What a player waits for: from a settled table to the ruling received on a tablet, and the
server's memory through whole recorded games.

**Latency.** For each recorded game (``fixtures/games/*``) a child process runs the real
service (``web.bootstrap.open_table`` on ``replay:GAME``, read with vision, the recorded
decisions taken and unsure reads answered from the labels, as ``referee demo --auto`` does)
behind the real dashboard server (``web.live.create_dashboard_server``) on loopback. The bench
listens on ``/api/events`` like a tablet. For every settled frame the child notes the moment
the settle detector declared it settled (the loop's clock, ``time.monotonic``) and the length
of the match log once its ruling was committed; the ruling has reached the tablet with the
first ``state`` event whose ``log_length`` is at least that, stamped on receipt with the same
system-wide monotonic clock. Printed per game: settles, median and worst milliseconds, the
median to the ruling's commit in the log, the loop thread's median CPU milliseconds for the
settle (read, reconcile, commit, publish: the work, where the wall time also holds waiting
for a busy machine's cores), the child's peak RSS; then an estimate for a Raspberry Pi 5,
the figures times ``--pi-factor`` (its per-core slowdown against this machine: an estimate,
not a measurement on a Pi).

**Memory.** Then, unless ``--no-serve``, each game is run by the real command, ``referee serve
--camera replay:GAME --fast --read vision --port P``, until its loop has finished; its peak
RSS (``VmHWM`` in ``/proc/PID/status``) is printed against the 150 MB target.

Everything stays on loopback, and every game is bounded by ``--timeout``. ::

    .venv/bin/python -m benchmarks.latency_bench [GAME ...] [--fast] [--no-serve] [--pi-factor 2.5]
        [--opencv-threads N] [--profile N]
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import json
import os
import pstats
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

GAMES = Path(__file__).resolve().parent.parent / "fixtures" / "games"
PIN = "8642"
RSS_TARGET_MB = 150.0
PI5_PER_CORE_FACTOR = 2.5
"""How many times slower one Raspberry Pi 5 core is than one of this machine's, by default:
the middle of issue 55's "about 2–3× slower per core", the cautious choice. ``sysbench cpu
--threads=1`` (prime counting, integers only) puts it lower: this machine's events a second
over the 2,737 published for a Pi 5 (leoncode.co.uk, "Raspberry Pi CPU Benchmarks", sysbench
1.0.20), about 1.5; but prime counting uses none of the vector instructions the networks and
OpenCV's filters live on. Pass ``--pi-factor`` with a figure of your own."""


def peak_rss_mb(pid: int | str = "self") -> float:
    """A process's peak resident memory (``VmHWM``) in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no VmHWM in /proc/{pid}/status")
    return int(found.group(1)) / 1024


def current_rss_mb() -> float:
    """This process's resident memory now (``VmRSS``) in MB."""
    found = re.search(r"^VmRSS:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
    return int(found.group(1)) / 1024 if found else float("nan")


# -- the child: the real service behind the real dashboard server ---------------------------

def serve_child(game: str, db: str, fast: bool, opencv_threads: int | None = None, profile: int = 0) -> None:
    """Serve ``game`` on loopback; talk to the parent on stdin/stdout, one JSON object a line:
    ``{"port", "ready_rss_mb"}`` when listening, then (after the parent's ``start``) one ``{"frame", "settled",
    "log_length"}`` per settled frame ruled on, ``{"finished", "rss_mb"}`` at the replay's end;
    it stops at the parent's ``quit``. ``opencv_threads``: ``cv2.setNumThreads`` first (``None``:
    OpenCV's default, as ``referee serve`` runs). ``profile``: print to stderr, at the end, the
    functions that took the most of the loop thread's CPU in its settles (cumulative)."""
    if opencv_threads is not None:
        import cv2

        cv2.setNumThreads(opencv_threads)
    from web.app import create_app
    from web.live import create_dashboard_server
    from web.bootstrap import open_table

    service = open_table(f"replay:{GAMES / game}", db, new=True, realtime=not fast, read="vision",
                         answer_from_labels=True)
    loop = service.loop
    assert loop is not None
    loop.clock = time.monotonic  # one clock with the parent's receipts (system-wide on Linux)
    lock = threading.Lock()

    def tell(message: dict[str, Any]) -> None:
        with lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    rule = loop.rule
    profiler = cProfile.Profile(time.thread_time) if profile else None

    def noted_rule(frame: Any, settled_at: float) -> Any:
        cpu = time.thread_time()
        # read, reconciled, committed and published
        result = rule(frame, settled_at) if profiler is None else profiler.runcall(rule, frame, settled_at)
        tell({"frame": frame.frame_id, "settled": settled_at, "log_length": len(loop.match.events),
              "committed": settled_at + result.latency_s, "cpu": time.thread_time() - cpu})
        return result

    loop.rule = noted_rule  # type: ignore[method-assign]
    app = create_app({"REFEREE_SERVICE": service, "REFEREE_PIN": PIN, "LIVE_STREAM_SECONDS": 3600.0})
    server = create_dashboard_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, name="dashboard", daemon=True).start()
    tell({"port": int(server.effective_port), "ready_rss_mb": round(current_rss_mb(), 1)})
    if sys.stdin.readline().strip() != "start":
        return
    service.start()
    service.wait()
    tell({"finished": True, "rss_mb": round(peak_rss_mb(), 1), "loop": loop.status.state})
    if profiler is not None:
        print(f"{game}: the loop thread's CPU in its settles, the {profile} costliest functions (cumulative):",
              file=sys.stderr)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(profile)
    sys.stdin.readline()  # "quit", once the parent has the last events
    service.stop()
    server.close()


# -- the parent: a tablet listening, and the game's timings ---------------------------------

class Tablet:
    """One ``/api/events`` stream read in a thread: ``(received, log_length)`` per ``state`` event."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n")
        self.sock.settimeout(0.5)
        self.events: list[tuple[float, int]] = []
        self.first = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        while not self._stop.is_set():
            try:
                data = self.sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError:
                return
            received = time.monotonic()
            if not data:
                return
            buffer += data
            *whole, buffer = buffer.split(b"\n\n")
            for block in whole:
                if not block.startswith(b"event: state"):
                    continue
                payload = block.split(b"\ndata: ", 1)[1]
                self.events.append((received, int(json.loads(payload)["log_length"])))
                self.first.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def time_game(game: str, fast: bool, timeout: float, opencv_threads: int | None = None, profile: int = 0) -> dict[str, Any]:
    """Run one game in a child and time each settled frame's ruling to the tablet."""
    with tempfile.TemporaryDirectory(prefix="latency-bench-") as scratch:
        child = subprocess.Popen([sys.executable, "-m", "benchmarks.latency_bench", "--child", game,
                                  "--db", str(Path(scratch) / "m.db"), *(["--fast"] if fast else []),
                                  *([f"--opencv-threads={opencv_threads}"] if opencv_threads is not None else []),
                                  *([f"--profile={profile}"] if profile else [])],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 cwd=Path(__file__).resolve().parent.parent)
        assert child.stdin is not None and child.stdout is not None
        deadline = time.monotonic() + timeout
        timer = threading.Timer(timeout, child.kill)  # stops by itself, whatever the child does
        timer.start()
        tablet = None
        try:
            ready = json.loads(child.stdout.readline())
            port = ready["port"]
            tablet = Tablet(port)
            if not tablet.first.wait(10):
                raise RuntimeError(f"{game}: no first state event on /api/events")
            _send(child.stdin, "start")
            settles, finished = _read_child(child.stdout)
            time.sleep(0.5)  # the last ruling's event on its way
            _send(child.stdin, "quit")
            child.wait(max(1.0, deadline - time.monotonic()))
        finally:
            timer.cancel()
            if tablet is not None:
                tablet.close()
            if child.poll() is None:
                child.kill()
                child.wait()
    waits, loop_ms, cpu_ms = [], [], []
    for settle in settles:
        shown = next((received for received, length in tablet.events
                      if length >= settle["log_length"] and received >= settle["settled"]), None)
        if shown is None:
            raise RuntimeError(f"{game}: the ruling on frame {settle['frame']} never reached the tablet")
        waits.append((shown - settle["settled"]) * 1000)
        loop_ms.append((settle["committed"] - settle["settled"]) * 1000)
        cpu_ms.append(settle["cpu"] * 1000)
    return {"game": game, "settles": len(waits), "waits_ms": waits, "loop_ms": loop_ms, "cpu_ms": cpu_ms,
            "ready_rss_mb": ready["ready_rss_mb"], **finished}


def _send(stream: IO[str], line: str) -> None:
    stream.write(line + "\n")
    stream.flush()


def _read_child(stdout: IO[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    settles: list[dict[str, Any]] = []
    for line in stdout:
        message = json.loads(line)
        if message.get("finished"):
            return settles, message
        settles.append(message)
    raise RuntimeError("the server ended before the replay did")


def serve_memory(game: str, timeout: float) -> tuple[float, str]:
    """Peak RSS (MB) of ``referee serve --camera replay:GAME --fast --read vision --port P``
    through the whole game, and how its loop ended."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="latency-bench-") as scratch:
        command = [sys.executable, "-m", "web.cli", "serve", "--camera", f"replay:fixtures/games/{game}", "--fast",
                   "--read", "vision", "--host", "127.0.0.1", "--port", str(port), "--db", str(Path(scratch) / "m.db"),
                   "--new"]
        server = subprocess.Popen(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env={**os.environ, "REFEREE_PIN": ""})
        try:
            deadline = time.monotonic() + timeout
            state = "not started"
            while time.monotonic() < deadline and server.poll() is None:
                time.sleep(0.25)
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    connection.request("GET", "/api/state")
                    state = json.loads(connection.getresponse().read())["loop"]["state"]
                    connection.close()
                except (OSError, ValueError, KeyError):
                    continue
                if state in ("finished", "error"):
                    break
            return peak_rss_mb(server.pid), state
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", metavar="GAME", help="recorded games (default: all of fixtures/games)")
    ap.add_argument("--fast", action="store_true", help="replay as fast as possible instead of at the camera's pace")
    ap.add_argument("--no-serve", action="store_true", help="skip the memory runs of `referee serve`")
    ap.add_argument("--pi-factor", type=float, default=PI5_PER_CORE_FACTOR,
                    help=f"a Pi 5 core's slowdown against this machine's (default {PI5_PER_CORE_FACTOR})")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds one game may take (default 240)")
    ap.add_argument("--opencv-threads", type=int, metavar="N",
                    help="the server's cv2.setNumThreads (default: OpenCV's own, as referee serve runs)")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="print the N functions that took the most of the loop's CPU in its settles (cProfile)")
    ap.add_argument("--child", metavar="GAME", help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        serve_child(args.child, args.db, args.fast, args.opencv_threads, args.profile)
        return 0
    games = args.games or sorted(p.name for p in GAMES.iterdir() if (p / "game.json").is_file())
    print(f"settled table -> ruling on /api/events, {'fast' if args.fast else 'real-time'} replay, "
          f"read with vision, OpenCV threads {args.opencv_threads or 'default'}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    every: list[float] = []
    every_cpu: list[float] = []
    for game in games:
        timed = time_game(game, args.fast, args.timeout, args.opencv_threads, args.profile)
        waits = timed["waits_ms"]
        every += waits
        every_cpu += timed["cpu_ms"]
        print(f"  {game:18} {timed['settles']:3} settles  median {statistics.median(waits):6.1f} ms  "
              f"worst {max(waits):6.1f} ms  (in the log: median {statistics.median(timed['loop_ms']):6.1f} ms; "
              f"the loop's CPU median {statistics.median(timed['cpu_ms']):5.1f} ms)  "
              f"server RSS {timed['ready_rss_mb']:.0f} MB ready, peak {timed['rss_mb']:.0f} MB  ({timed['loop']})")
    print(f"  {'all':18} {len(every):3} settles  median {statistics.median(every):6.1f} ms  worst {max(every):6.1f} ms"
          f"  (the loop's CPU median {statistics.median(every_cpu):5.1f} ms, worst {max(every_cpu):5.1f} ms)")
    print(f"Pi 5 estimate (x{args.pi_factor} per core, an estimate, not measured on a Pi): median "
          f"{statistics.median(every) * args.pi_factor:.0f} ms, worst {max(every) * args.pi_factor:.0f} ms "
          f"(from the loop's CPU alone: median {statistics.median(every_cpu) * args.pi_factor:.0f} ms, "
          f"worst {max(every_cpu) * args.pi_factor:.0f} ms)")
    if not args.no_serve:
        print(f"referee serve --fast --read vision --port: peak RSS through the whole game (target <= {RSS_TARGET_MB:.0f} MB)")
        for game in games:
            rss, state = serve_memory(game, args.timeout)
            print(f"  {game:18} {rss:6.1f} MB  {'ok' if rss <= RSS_TARGET_MB else 'OVER'}  (loop {state})")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
