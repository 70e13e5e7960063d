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


# -- the journal beside the log: a second record of every confirmed event ------------------


def played(path: Path) -> MatchStore:
    """A log holding one match of three events, and its journal."""
    store = MatchStore(path)
    match = store.open(sevens(store))
    match.apply("roll 6 6 6 6 6 6", "camera", "0006")
    match.apply("roll 1 1 1 1 1 1", "camera", "0015")
    match.undo()
    return store


def test_a_damaged_log_is_rebuilt_from_its_journal_with_every_confirmed_event(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = played(path)
    state = store.open(1).state
    store.close()
    path.write_bytes(path.read_bytes()[:2000])  # cut short mid-page
    Path(f"{path}-wal").unlink(missing_ok=True)
    rebuilt = open_store(path)
    (note,) = rebuilt.notes
    assert f"the match log {path} was damaged" in note and "moved aside to" in note
    assert f"rebuilt from its journal {path}.journal (1 match(es), 3 event(s))" in note
    assert rebuilt.open(1).state == state and rebuilt.open(1).redo_stack == ["roll 1 1 1 1 1 1"]
    aside = note.split("moved aside to ")[1].split(" and")[0]
    assert Path(aside).exists() and Path(f"{aside}.journal").exists()
    assert rebuilt.open(1).redo().seq == 4  # play goes on, journalled as before
    rebuilt.close()
    path.unlink()  # the log lost altogether: the journal alone brings the match back
    again = open_store(path)
    assert [e.kind for e in again.events(1)] == ["action", "action", "undo", "redo"]


def test_enospc_on_the_journal_write_is_a_log_write_error_and_changes_nothing(tmp_path: Path) -> None:
    import errno

    path = tmp_path / "m.db"
    store = played(path)
    match = store.open(1)
    journal = Path(f"{path}.journal")
    before = journal.read_bytes()
    assert store.journal is not None
    real_write = store.journal._write

    def half_then_full(data: bytes) -> None:
        real_write(data[: len(data) // 2])  # the disk fills up partway through the line
        raise OSError(errno.ENOSPC, "No space left on device")

    store.journal._write = half_then_full  # type: ignore[method-assign]
    with pytest.raises(LogWriteError, match=f"the journal {journal} could not be written \\(No space left on device\\): nothing was changed"):
        match.redo()
    assert journal.read_bytes() == before and len(store.events(1)) == 3 and match.redo_stack == ["roll 1 1 1 1 1 1"]
    store.journal._write = real_write  # type: ignore[method-assign]
    assert match.redo().seq == 4
    store.close()
    reopened = MatchStore(path)
    assert reopened.notes == [] and journal.read_bytes().startswith(before) and len(reopened.events(1)) == 4


class FailingCommit(FullDisk):
    """A connection whose COMMIT fails after the statements (and the journal write) succeeded."""

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            raise sqlite3.OperationalError(self.message)
        return self.db.execute(sql, *args)


def test_a_commit_that_fails_after_the_journal_write_leaves_the_change_in_neither_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = played(path)
    match = store.open(1)
    before = Path(f"{path}.journal").read_bytes()
    real = store._db
    store._db = FailingCommit(real, "disk I/O error")  # type: ignore[assignment]
    with pytest.raises(LogWriteError, match="could not be written \\(disk I/O error\\): nothing was changed"):
        match.apply("roll 2 2 2 2 2 2", "tablet")
    store._db = real
    assert Path(f"{path}.journal").read_bytes() == before and len(store.events(1)) == 3


def test_a_journal_line_with_a_bad_checksum_in_the_middle_is_refused_by_name_not_believed(tmp_path: Path) -> None:
    from web.journal import DamagedJournalError, read_journal
    from web.store import LostLogError

    path = tmp_path / "m.db"
    played(path).close()
    journal = Path(f"{path}.journal")
    lines = journal.read_bytes().split(b"\n")
    assert b'"text":"roll 1 1 1 1 1 1"' in lines[2]
    lines[2] = lines[2].replace(b"roll 1 1 1 1 1 1", b"roll 1 1 1 1 1 2")  # one bit flipped on the card
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(DamagedJournalError, match=f"the journal {journal} is damaged at line 3 \\(its checksum fails"):
        read_journal(str(journal))
    # Beside a sound log, the log wins: the journal is rewritten from it and the operator told.
    store = MatchStore(path)
    assert store.notes == [f"the journal {journal} is damaged at line 3 (its checksum fails, and sound lines follow it):"
                           f" rewritten from the match log {path}, which is sound"]
    assert [e.text for e in store.events(1)] == ["roll 6 6 6 6 6 6", "roll 1 1 1 1 1 1", "roll 1 1 1 1 1 1"]
    assert read_journal(str(journal)).torn is False
    store.close()
    # With the log damaged too, neither is believed: a named error, nothing moved.
    journal.write_bytes(b"\n".join(lines))
    path.write_bytes(b"\x00" * 3000)
    with pytest.raises(LostLogError, match="so is its journal") as caught:
        open_store(path)
    assert "line 3" in str(caught.value) and "mv " in str(caught.value) and ".recover" in str(caught.value)
    assert path.read_bytes() == b"\x00" * 3000 and journal.read_bytes() == b"\n".join(lines)


def test_a_torn_last_journal_line_is_ignored_and_cut_away(tmp_path: Path) -> None:
    from web.journal import read_journal

    path = tmp_path / "m.db"
    played(path).close()
    journal = Path(f"{path}.journal")
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'1234abcd {"op":"event","match_id":1,"seq":4,"te')  # power lost mid-write
    records, torn, _ = read_journal(str(journal))
    assert torn and len(records) == 4  # the match and its three events
    store = MatchStore(path)
    assert store.notes == [] and len(store.events(1)) == 3 and journal.read_bytes() == whole


def test_a_sound_log_wins_over_a_journal_holding_more_which_is_kept_aside(tmp_path: Path) -> None:
    import shutil

    from web.journal import read_journal
    from web.store import journal_rows, table_rows

    path = tmp_path / "m.db"
    store = played(path)
    store.close()
    shutil.copyfile(path, tmp_path / "two.db")  # the log as it was after the undo ...
    store = MatchStore(path)
    store.open(1).redo()
    store.close()
    journal = Path(f"{path}.journal")
    longer = journal.read_bytes()
    shutil.copyfile(tmp_path / "two.db", path)  # ... put back: sound, but one event behind its journal
    Path(f"{path}-wal").unlink(missing_ok=True)
    store = MatchStore(path)
    (note,) = store.notes
    assert f"the journal {journal} held 1 event(s) more than the match log {path}, which is sound and kept" in note
    kept = note.split("moved aside to ")[1].split(" and")[0]
    assert Path(kept).read_bytes() == longer and len(store.events(1)) == 3
    records, torn, _ = read_journal(str(journal))
    assert not torn and journal_rows(records, str(journal)) == table_rows(store._db)


def test_a_log_busy_with_another_writer_is_not_taken_for_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.db"
    played(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kwargs: connect(*args, **{**kwargs, "timeout": 0.1}))
    with pytest.raises(LogWriteError, match="database is locked"):
        open_store(path)
    holder.execute("ROLLBACK")
    holder.close()
    assert list(tmp_path.glob("m.db.damaged-*")) == [] and len(open_store(path).events(1)) == 3
