"""The match log: commit, undo/redo, rulings, resume exactly, list and export (SQLite, WAL)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.errors import IllegalActionError
from web.store import MatchStore, StoreError


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
