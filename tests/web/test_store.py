"""The match log: commit, undo/redo, rulings, resume exactly, list and export (SQLite, WAL)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from referee.errors import IllegalActionError
from web.cli import main
from web.store import DamagedLogError, LogWriteError, MatchStore, StoreError, open_store


def sevens(store: MatchStore) -> int:
    return store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}, camera="replay:x")


def test_every_event_is_committed_with_time_actor_and_frame(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db", clock=lambda: 1000.0)
    match = store.open(sevens(store))
    event = match.apply("roll 6 6 6 6 6 6", "camera", "0007", {"ruling": "chance"})
    assert (event.seq, event.at, event.actor, event.frame_id) == (1, 1000.0, "camera", "0007")
    # A second connection sees it at once: it was committed before apply returned.
    other = sqlite3.connect(tmp_path / "m.db")
    assert other.execute("SELECT kind, text, actor, frame_id FROM events").fetchall() == [
        ("action", "roll 6 6 6 6 6 6", "camera", "0007")]
    assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_illegal_actions_are_not_logged(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(sevens(store))
    with pytest.raises(IllegalActionError, match="SV-2.2"):
        match.apply("roll 1 2", "tablet")
    assert match.events == [] and store.events(match.id) == []


def test_undo_redo_and_rulings_resume_exactly(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = MatchStore(path)
    match = store.open(sevens(store))
    match.apply("roll 6 6 6 6 6 6", "camera", "1")
    match.apply("roll 1 1 1 1 1 1", "camera", "2")
    match.apply("roll 1 2 4 6 3 3", "camera", "3")
    match.undo()
    match.redo()
    match.undo()
    match.record("ruling", "Is this d6 showing 4?", "camera", "4", {"ruling": "question", "refs": [2], "choices": ["4", "5"], "seen": []})
    store.close()

    again = MatchStore(path).open(match.id)
    assert again.state == match.state
    assert again.redo_stack == ["roll 1 2 4 6 3 3"] == match.redo_stack
    assert again.pending is not None and again.pending.text == "Is this d6 showing 4?"
    assert [e.kind for e in again.events] == ["action", "action", "action", "undo", "redo", "undo", "ruling"]
    assert again.last_frame() == "4"


def test_a_new_action_clears_redo_and_nothing_to_undo_is_an_error(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(sevens(store))
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        match.undo()
    match.apply("roll 6 6 6 6 6 6", "camera")
    match.undo()
    match.apply("roll 5 5 5 5 5 5", "tablet")
    with pytest.raises(IllegalActionError, match="nothing to redo"):
        match.redo()


def test_list_status_and_export(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    first = sevens(store)
    second = store.create("sevens", ["Cy", "Di"], {"sv.rounds": 2})
    match = store.open(first)
    match.apply("roll 6 6 6 6 6 6", "camera", "9")
    assert [info.id for info in store.matches()] == [second, first]
    assert store.latest_playing("replay:x") == first
    store.set_status(first, "abandoned")
    assert store.latest_playing("replay:x") is None
    exported = store.export(first)
    assert exported["match"]["players"] == ["Ann", "Bo"] and exported["events"][0]["frame"] == "9"
    assert exported["state"]["log"] == ["roll 6 6 6 6 6 6"]
    with pytest.raises(StoreError, match="no match 99"):
        store.open(99)


def test_a_log_that_does_not_replay_is_named(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match_id = sevens(store)
    store.append(match_id, "action", "roll 1 2", "tablet")
    with pytest.raises(StoreError, match="event 1 .*does not replay"):
        store.open(match_id)


def test_a_damaged_log_is_named_and_open_store_moves_it_aside_and_starts_fresh(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    path.write_bytes(b"this is not a database, it is a shopping list\n" * 100)
    with pytest.raises(DamagedLogError, match=f"the match log {path} is damaged") as caught:
        MatchStore(path)
    assert "sqlite3" in str(caught.value) and ".recover" in str(caught.value)
    store = open_store(path)
    (note,) = store.notes
    aside = note.split("moved aside to ")[1].split(" and")[0]
    assert Path(aside).read_bytes().startswith(b"this is not a database")
    assert store.matches() == [] and store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}) == 1


def test_matches_names_a_damaged_log_and_how_to_recover_without_a_traceback(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "m.db"
    path.write_bytes(b"\x00" * 3000)
    for what in (["list"], ["show", "1"]):
        assert main(["matches", *what, "--db", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"the match log {path} is damaged" in err and "moves it aside" in err and "Traceback" not in err


def test_an_event_that_no_longer_replays_is_set_aside_with_why_and_the_match_resumes_before_it(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))
    match.apply("roll 6 6 6 6 6 6", "camera", "0006")
    match.apply("roll 1 1 1 1 1 1", "camera", "0015")
    match.undo()
    store.close()
    with sqlite3.connect(tmp_path / "m.db") as db:  # a hand edit: the second roll is no roll at all
        db.execute("UPDATE events SET text = 'roll 9 9' WHERE seq = 2")
    store = MatchStore(tmp_path / "m.db")
    with pytest.raises(StoreError, match="event 2"):
        store.open(1)
    resumed = store.open(1, set_aside=True)
    assert [str(a) for a in resumed.state.history()] == ["roll 6 6 6 6 6 6"] and len(resumed.events) == 1
    assert "event 2 (action 'roll 9 9') does not replay" in resumed.notes[0] and "1 later event(s)" in resumed.notes[0]
    assert [(e.seq, e.kind) for e, _ in store.set_aside_events(1)] == [(2, "action"), (3, "undo")]
    assert resumed.apply("roll 1 1 1 1 1 1", "camera", "0015").seq == 2  # play goes on after it
    assert [str(a) for a in store.open(1).state.history()] == ["roll 6 6 6 6 6 6", "roll 1 1 1 1 1 1"]


class FullDisk:
    """A connection whose writes fail as SQLite's do on a full disk (ENOSPC) or a failing card."""

    def __init__(self, db: Any, message: str = "database or disk is full") -> None:
        self.db = db
        self.message = message

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith(("INSERT", "UPDATE", "COMMIT")):
            raise sqlite3.OperationalError(self.message)
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def test_a_full_disk_or_io_error_changes_nothing_names_the_file_and_play_resumes_when_it_clears(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.db")
    match = store.open(store.create("sevens", ["Ann", "Bo"], {"sv.rounds": 1}))
    match.apply("roll 6 6 6 6 6 6", "camera", "0006")
    real = store._db
    for message in ("database or disk is full", "disk I/O error"):
        store._db = FullDisk(real, message)  # type: ignore[assignment]
        with pytest.raises(LogWriteError, match=f"the match log {tmp_path / 'm.db'} could not be written \\({message}\\): nothing was changed"):
            match.apply("roll 1 1 1 1 1 1", "camera", "0015")
        with pytest.raises(LogWriteError):
            match.undo()
        assert [str(a) for a in match.state.history()] == ["roll 6 6 6 6 6 6"] and len(match.events) == 1
    store._db = real
    match.apply("roll 1 1 1 1 1 1", "camera", "0015")
    assert [e.text for e in store.open(match.id).events] == ["roll 6 6 6 6 6 6", "roll 1 1 1 1 1 1"]
