"""Faults: bad frames are skipped, a camera that vanishes mid-game comes back and nothing is lost."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from hardware.frames import CameraError, FrameError
from hardware.reconnect import ReconnectingSource
from tests.hardware.fakes import FakeClock, FakeSource, SceneReader, SceneSettle, scene
from tests.web.test_loop import SCENES, frames, new_match, run
from web.loop import TableLoop
from web.bootstrap import open_table


def test_corrupt_empty_wrong_size_and_wrong_type_frames_are_skipped_not_read(tmp_path: Path) -> None:
    bad = [np.zeros((0, 0, 3), np.uint8), np.zeros((12, 16, 3), np.float64), np.zeros((5, 5, 3), np.uint8),
           "garbage", FrameError("replay: frame 9 is corrupt or not an image")]
    items = frames(1)[:2] + bad + frames(1)[2:] + frames(2)
    source = FakeSource(items, size=(16, 12))
    source.start()
    reader = SceneReader(SCENES)
    loop = TableLoop(source, new_match(tmp_path), SceneSettle(), reader)
    results = run(loop)
    assert [r.kind for r in results] == ["chance", "chance"]
    assert loop.status.bad_frames == 5 and "corrupt" in loop.status.last_problem
    assert reader.calls == 2  # only settled, good frames are read


def test_a_source_that_stops_mid_game_and_comes_back_loses_nothing(tmp_path: Path) -> None:
    clock = FakeClock()
    inner = FakeSource(frames(1) + [CameraError("USB reset")] + frames(2, 3))
    statuses: list[str] = []
    source = ReconnectingSource(inner, statuses.append, sleep=clock.sleep)
    source.start()
    inner.fail_opens = 2  # when it is next opened, it takes two tries

    loop = TableLoop(source, new_match(tmp_path), SceneSettle(), SceneReader(SCENES))
    results = run(loop)
    assert [r.kind for r in results] == ["chance", "chance", "chance"]
    assert [str(a) for a in loop.match.state.history()] == ["roll 6 6 6 6 6 6", "roll 1 1 1 1 1 1", "roll 1 2 3 3 4 6"]
    assert statuses[0] == "camera lost: USB reset" and statuses[-1] == "camera connected"
    assert clock.sleeps == [0.5, 1.0]


def test_the_loop_thread_reports_a_lost_camera_and_keeps_waiting(tmp_path: Path) -> None:
    class Gone(FakeSource):
        def _grab(self):  # type: ignore[no-untyped-def]
            raise CameraError("no camera on the ribbon")

    source = Gone([])
    source.start()
    loop = TableLoop(source, new_match(tmp_path), SceneSettle(), SceneReader(SCENES))
    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop,))
    thread.start()
    for _ in range(100):
        if loop.status.state == "camera lost":
            break
        stop.wait(0.01)
    assert loop.status.state == "camera lost" and "ribbon" in loop.status.last_problem
    stop.set()
    thread.join(5)
    assert loop.status.state == "stopped"


def test_a_reader_that_fails_on_a_frame_becomes_a_ruling_not_a_crash(tmp_path: Path) -> None:
    def broken(image: np.ndarray):  # type: ignore[no-untyped-def]
        raise ValueError("frame is 3x3, too small to find markers")

    source = FakeSource(frames(1))
    source.start()
    loop = TableLoop(source, new_match(tmp_path), SceneSettle(), broken)
    (result,) = run(loop)
    # Nothing was seen in the Theatre during a throw: the rules reject it; nothing is applied.
    assert result.kind == "discrepancy" and loop.match.state.history() == []
    assert loop.latest_observation is not None and "too small" in loop.latest_observation.notes[0]
    assert scene(1).shape == (12, 16, 3)


class Unpluggable(FakeSource):
    """A webcam that can be unplugged (reads and opens fail) or hang (a read that never returns)."""

    def __init__(self) -> None:
        super().__init__([])
        self.plugged = threading.Event()
        self.plugged.set()
        self.flowing = threading.Event()
        self.flowing.set()

    def _open(self) -> None:
        if not self.plugged.is_set():
            raise CameraError("webcam 0 could not be opened (is it plugged in?)")

    def _grab(self):  # type: ignore[no-untyped-def]
        self.flowing.wait()
        if not self.plugged.is_set():
            raise CameraError("webcam 0 delivered no frame (unplugged?)")
        threading.Event().wait(0.02)
        self.t += 0.1
        return scene(1), self.t, f"cam-{self.t:.1f}", {}


def wait_for(service, state: str, seconds: float, frames_over: int = -1) -> float:  # type: ignore[no-untyped-def]
    """Seconds until the loop's state is ``state`` (and more than ``frames_over`` frames were read)."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        loop = service.view()["loop"]
        if loop["state"] == state and loop["frames"] > frames_over:
            break
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture
def webcam(monkeypatch: pytest.MonkeyPatch) -> Unpluggable:
    camera = Unpluggable()
    monkeypatch.setattr("hardware.sources.open_source", lambda text, realtime=True: camera)
    return camera


def test_serve_retries_a_lost_webcam_says_so_within_two_seconds_and_recovers_by_itself(webcam: Unpluggable, tmp_path: Path) -> None:
    service = open_table("webcam", str(tmp_path / "m.db"), "sevens", ["Ann", "Bo"], {"sv.rounds": "1"})
    assert isinstance(service.source, ReconnectingSource) and service.camera == "webcam:0"
    service.start()
    try:
        assert wait_for(service, "running", 5, frames_over=0) < 5
        webcam.plugged.clear()  # the cable is pulled
        assert wait_for(service, "camera lost", 2) < 2.0
        view = service.view()
        assert view["status"].startswith("Camera lost, retrying: webcam 0")
        time.sleep(0.6)  # a retry or two fails while it is away
        assert service.view()["loop"]["state"] == "camera lost"
        frames = view["loop"]["frames"]
        webcam.plugged.set()  # plugged back in: no one touches the referee
        assert wait_for(service, "running", 5, frames_over=frames) < 5
        assert service.source.reconnects == 1
    finally:
        started = time.monotonic()
        service.stop()
        assert time.monotonic() - started < 3


def test_a_webcam_that_hangs_instead_of_failing_is_shown_lost_then_running(webcam: Unpluggable, tmp_path: Path) -> None:
    service = open_table("webcam:0", str(tmp_path / "m.db"), "sevens", ["Ann", "Bo"], {"sv.rounds": "1"})
    service.start()
    try:
        assert wait_for(service, "running", 5, frames_over=0) < 5
        webcam.flowing.clear()  # a read that never returns
        assert wait_for(service, "camera lost", 2) < 2.0
        assert "no frame for" in service.view()["status"]
        frames = service.view()["loop"]["frames"]
        webcam.flowing.set()
        assert wait_for(service, "running", 2, frames_over=frames) < 2.0
    finally:
        service.stop()


def test_a_camera_missing_when_serve_starts_is_a_clear_error_not_an_endless_wait(webcam: Unpluggable, tmp_path: Path) -> None:
    webcam.plugged.clear()
    service = open_table("webcam", str(tmp_path / "m.db"), "sevens", ["Ann", "Bo"], {"sv.rounds": "1"})
    with pytest.raises(CameraError, match="could not be opened"):
        service.start()


# -- power loss at every write of a recorded game, as SQLite's own crash tests do -------------


def referee_to_end(folder: Path, db: Path, camera: str | None = None) -> dict:  # type: ignore[type-arg]
    """Referee the recorded game (resuming whatever ``db`` holds) to its end; the summary."""
    from web.serve_cli import summary

    service = open_table(camera or f"replay:{folder}", str(db), realtime=False, read="labels")
    service.start()
    assert service.wait(60)
    service.stop()
    result: dict = summary(service)  # type: ignore[type-arg]
    result["notes"] = service.store.notes + service.match.notes
    service.store.close()
    return result


def snapshots_after_every_commit(folder: Path, db: Path, into: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Referee the game once, copying the log's files right after every commit: each copy is
    the disk as a process killed at that moment leaves it."""
    import shutil

    from web.store import MatchStore

    copies: list[Path] = []
    original = MatchStore.append

    def append_then_copy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        event = original(self, *args, **kwargs)
        copy = into / f"after{len(copies) + 1:02d}"
        copy.mkdir()
        for suffix in ("", "-wal", ".journal"):
            if Path(f"{db}{suffix}").exists():
                shutil.copyfile(f"{db}{suffix}", copy / f"m.db{suffix}")
        copies.append(copy / "m.db")
        return event

    monkeypatch.setattr(MatchStore, "append", append_then_copy)
    referee_to_end(folder, db)
    monkeypatch.setattr(MatchStore, "append", original)
    return copies


@pytest.fixture(scope="module")
def sevens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.hardware.fakes import write_replay_game

    folder = tmp_path_factory.mktemp("replay") / "sevens"
    write_replay_game(folder)
    return folder


def test_killed_after_every_commit_of_a_recorded_game_it_resumes_with_nothing_confirmed_lost(
        sevens: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = referee_to_end(sevens, tmp_path / "reference.db")
    copies = snapshots_after_every_commit(sevens, tmp_path / "m.db", tmp_path, monkeypatch)
    assert len(copies) == len(reference["events"]) >= 5
    resumed = 0
    for k, copy in enumerate(copies, start=1):
        result = referee_to_end(sevens, copy)
        assert result["events"] == reference["events"], f"killed after commit {k}"
        assert result["scores"] == reference["scores"] and result["terminal"] and not result["notes"]
        resumed += 1
    assert resumed == len(copies)


def test_a_log_cut_at_random_lengths_believes_nothing_half_written_and_loses_nothing_confirmed(
        sevens: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    import sqlite3

    from web.store import open_store

    reference = referee_to_end(sevens, tmp_path / "reference.db")
    copies = snapshots_after_every_commit(sevens, tmp_path / "m.db", tmp_path, monkeypatch)
    rng = random.Random(54)
    resumed_whole = 0
    for k, copy in enumerate(copies, start=1):
        for part in ("wal", "main"):
            cut = copy.parent / f"cut-{part}" / "m.db"
            cut.parent.mkdir()
            for suffix in ("", "-wal", ".journal"):
                if Path(f"{copy}{suffix}").exists():
                    cut.with_name(f"m.db{suffix}").write_bytes(Path(f"{copy}{suffix}").read_bytes())
            if part == "main":  # everything in the main file, then the power goes mid-write of it
                with sqlite3.connect(cut) as db:
                    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            victim = cut if part == "main" else cut.with_name("m.db-wal")
            data = victim.read_bytes()
            victim.write_bytes(data[:rng.randrange(len(data))] if data else data)
            if part == "main":  # the journal rebuilds what the cut main file lost: all k confirmed events
                store = open_store(cut)
                assert [[e.kind, e.text, e.actor, e.frame_id] for e in store.events(1)] == reference["events"][:k], \
                    f"main cut after commit {k}: {store.notes}"
                store.close()
                resumed_whole += 1
            result = referee_to_end(sevens, cut)
            # Either the cut log is a clean prefix of what was committed and play resumes from it,
            # or it is named damaged, moved aside and the game refereed again from the start.
            assert result["events"] == reference["events"], f"{part} cut after commit {k}"
            assert result["scores"] == reference["scores"] and result["terminal"]
            assert all("moved aside" in note for note in result["notes"]), result["notes"]
    assert resumed_whole == len(copies)


def test_a_journal_cut_at_random_lengths_beside_a_sound_log_changes_nothing_and_is_made_whole_again(
        sevens: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from web.journal import read_journal
    from web.store import journal_rows, open_store, table_rows

    reference = referee_to_end(sevens, tmp_path / "reference.db")
    copies = snapshots_after_every_commit(sevens, tmp_path / "m.db", tmp_path, monkeypatch)
    rng = random.Random(5403)
    for k, copy in enumerate(copies, start=1):
        journal = Path(f"{copy}.journal")
        data = journal.read_bytes()
        journal.write_bytes(data[:rng.randrange(len(data))])
        store = open_store(copy)
        assert [[e.kind, e.text, e.actor, e.frame_id] for e in store.events(1)] == reference["events"][:k]
        assert store.notes == [], f"journal cut after commit {k}"
        records, torn, _ = read_journal(str(journal))
        assert not torn and journal_rows(records, str(journal)) == table_rows(store._db)
        store.close()
    result = referee_to_end(sevens, copies[len(copies) // 2])
    assert result["events"] == reference["events"] and result["terminal"] and not result["notes"]


def test_a_log_and_its_journal_both_damaged_is_a_named_error_with_a_way_forward_never_a_traceback(
        sevens: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main
    from web.store import LostLogError, open_store

    copies = snapshots_after_every_commit(sevens, tmp_path / "m.db", tmp_path, monkeypatch)
    db = copies[-1]
    journal = Path(f"{db}.journal")
    lines = journal.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"roll", b"rolL")  # bit rot in the middle of the journal
    journal.write_bytes(b"\n".join(lines))
    db.write_bytes(db.read_bytes()[:3000])
    Path(f"{db}-wal").unlink(missing_ok=True)
    before = sorted(p.name for p in db.parent.iterdir())
    with pytest.raises(LostLogError, match="damaged at line 2") as caught:
        open_store(db)
    assert f"mv {db} {db}.lost; mv {journal} {journal}.lost" in str(caught.value)
    assert sorted(p.name for p in db.parent.iterdir()) == before  # nothing moved, nothing believed
    assert main(["serve", "--camera", f"replay:{sevens}", "--fast", "--read", "labels", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"referee: the match log {db} is damaged" in err and "so is its journal" in err and "Traceback" not in err


def test_the_camera_is_one_match_however_its_path_is_spelled_and_a_resume_skips_ahead_at_once(
        sevens: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    copies = snapshots_after_every_commit(sevens, tmp_path / "m.db", tmp_path, monkeypatch)
    half = copies[len(copies) // 2]
    monkeypatch.chdir(sevens.parent)
    service = open_table(f"replay:./{sevens.name}/", str(half), realtime=True, read="labels")
    assert service.camera == f"replay:{os.path.realpath(sevens)}"
    assert len(service.match.events) == len(copies) // 2 + 1  # resumed, not a new match
    source = service.source
    assert source is not None
    frames = len(source.frames)  # type: ignore[attr-defined]
    skipped = service.match.last_frame()
    source.start()
    started = time.monotonic()
    first = source.read()
    while (frame := source.read()).frame_id != skipped:
        pass
    assert frame.timestamp - first.timestamp > 2.0  # in real time this took over two seconds
    assert time.monotonic() - started < 1.0, "the frames already ruled on came at once"
    assert source.position < frames  # type: ignore[attr-defined]
    service.stop()


# -- a full disk or a failing card while a game is played ----------------------------------


def test_a_full_disk_keeps_the_loop_going_and_says_why_and_a_tablet_gets_503_then_play_resumes(tmp_path: Path) -> None:
    from tests.web.conftest import csrf_of
    from tests.web.test_store import FullDisk
    from web.app import create_app
    from web.service import TableService, create_match
    from web.store import MatchStore

    store = MatchStore(tmp_path / "m.db")
    match = create_match(store, "sevens", ["Ann", "Bo"], {"sv.rounds": "1"})
    real = store._db
    store._db = FullDisk(real)  # type: ignore[assignment]
    camera = TableService(store, match, FakeSource(frames(1, 2)), settle=SceneSettle, read=SceneReader(SCENES))
    camera.start()
    assert camera.wait(10)
    loop = camera.view()["loop"]
    assert loop["state"] == "finished" and loop["settles"] == 2  # the loop went on through the failures
    assert f"the match log {tmp_path / 'm.db'} could not be written (database or disk is full)" in loop["last_problem"]
    assert match.events == [] and match.state.history() == []  # no ruling believed that was not committed

    app = create_app({"TESTING": True, "REFEREE_SERVICE": TableService(store, match), "REFEREE_PIN": "2468"})
    client = app.test_client()
    headers = {"X-CSRF-Token": csrf_of(client)}
    assert client.post("/api/login", json={"pin": "2468"}, headers=headers).status_code == 200
    refused = client.post("/api/action", json={"action": "roll 6 6 6 6 6 6"}, headers=headers)
    assert refused.status_code == 503 and "nothing was changed" in refused.get_json()["error"]
    assert client.get("/api/state").get_json()["history"] == []
    store._db = real  # space freed
    assert client.post("/api/action", json={"action": "roll 6 6 6 6 6 6"}, headers=headers).status_code == 200
    assert [e.text for e in store.open(match.id).events] == ["roll 6 6 6 6 6 6"]


def test_serve_on_a_damaged_log_says_where_it_was_moved_and_referees_on_a_fresh_one(
        sevens: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main

    db = tmp_path / "m.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)  # the header of a database, then garbage
    assert main(["serve", "--camera", f"replay:{sevens}", "--fast", "--read", "labels", "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert f"referee: the match log {db} was damaged" in captured.err and "moved aside to" in captured.err
    assert "Traceback" not in captured.err and "Game over. Winners: Bo" in captured.out
    assert len(list(tmp_path.glob("m.db.damaged-*"))) == 1
