"""The match log's tables: their schema, their rows as the journal records them, and a
database rebuilt from those records (``web.store`` keeps the log; ``web.journal`` the second
record beside it)."""

from __future__ import annotations

import sqlite3
from typing import Any

from web.journal import DamagedJournalError, Record

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    camera TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'playing'
);
CREATE TABLE IF NOT EXISTS events (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    actor TEXT NOT NULL,
    frame_id TEXT,
    detail TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS set_aside (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    actor TEXT NOT NULL,
    frame_id TEXT,
    detail TEXT NOT NULL,
    reason TEXT NOT NULL,
    moved REAL NOT NULL
);
"""

MATCH_COLUMNS = ("id", "created", "game", "players", "options", "camera", "status")
EVENT_COLUMNS = ("match_id", "seq", "at", "kind", "text", "actor", "frame_id", "detail")
ASIDE_COLUMNS = ("id", *EVENT_COLUMNS, "reason", "moved")
TableRows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]


def move_aside(db: sqlite3.Connection, match_id: int, from_seq: int, reason: str, moved: float) -> int:
    """Move the events of ``match_id`` from ``from_seq`` on to ``set_aside``; returns how many."""
    db.execute(
        "INSERT INTO set_aside (match_id, seq, at, kind, text, actor, frame_id, detail, reason, moved)"
        " SELECT match_id, seq, at, kind, text, actor, frame_id, detail, ?, ? FROM events"
        " WHERE match_id = ? AND seq >= ? ORDER BY seq", (reason, moved, match_id, from_seq))
    cursor = db.execute("DELETE FROM events WHERE match_id = ? AND seq >= ?", (match_id, from_seq))
    return int(cursor.rowcount)


def table_rows(db: sqlite3.Connection) -> TableRows:
    """Every row of the three tables, in order: what the database and its journal must agree on."""
    return (db.execute(f"SELECT {', '.join(MATCH_COLUMNS)} FROM matches ORDER BY id").fetchall(),
            db.execute(f"SELECT {', '.join(EVENT_COLUMNS)} FROM events ORDER BY match_id, seq").fetchall(),
            db.execute(f"SELECT {', '.join(ASIDE_COLUMNS)} FROM set_aside ORDER BY id").fetchall())


def snapshot(rows: TableRows) -> list[Record]:
    """Journal records that rebuild ``rows`` exactly."""
    matches, events, aside = rows
    return ([{"op": "match", **dict(zip(MATCH_COLUMNS, row, strict=True))} for row in matches]
            + [{"op": "event", **dict(zip(EVENT_COLUMNS, row, strict=True)), "status": None} for row in events]
            + [{"op": "aside_row", **dict(zip(ASIDE_COLUMNS, row, strict=True))} for row in aside])


def rebuilt(records: list[tuple[int, Record]], path: str, into: str = ":memory:") -> sqlite3.Connection:
    """A database holding what the journal's ``records`` say (committed, in ``into``).

    :raises DamagedJournalError: for a record that does not follow from the ones before it
        (an unknown match, a sequence number out of turn, a field missing).
    """
    db = sqlite3.connect(into, isolation_level=None)
    if into != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
    db.executescript(SCHEMA)
    db.execute("BEGIN")
    for line, record in records:
        try:
            _apply(db, record)
        except (KeyError, TypeError, ValueError, sqlite3.IntegrityError, sqlite3.InterfaceError,
                sqlite3.ProgrammingError) as exc:
            db.close()
            raise DamagedJournalError(path, line, f"it does not follow from the lines before it: {exc}") from None
    db.execute("COMMIT")
    return db


def journal_rows(records: list[tuple[int, Record]], path: str) -> TableRows:
    """Every row the journal's ``records`` say the database holds (``table_rows`` of them).

    :raises DamagedJournalError: as ``rebuilt`` does.
    """
    db = rebuilt(records, path)
    try:
        return table_rows(db)
    finally:
        db.close()


def _apply(db: sqlite3.Connection, record: Record) -> None:
    """Make one journal record's change in ``db``."""
    op = record["op"]
    if op == "match":
        db.execute(f"INSERT INTO matches ({', '.join(MATCH_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   tuple(record[c] for c in MATCH_COLUMNS))
    elif op == "status":
        _known_match(db, record["match_id"])
        db.execute("UPDATE matches SET status = ? WHERE id = ?", (record["status"], record["match_id"]))
    elif op == "event":
        _known_match(db, record["match_id"])
        (last,) = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?",
                             (record["match_id"],)).fetchone()
        if record["seq"] != last + 1:
            raise ValueError(f"event {record['seq']} of match {record['match_id']} after event {last}")
        db.execute(f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   tuple(record[c] for c in EVENT_COLUMNS))
        if record["status"] is not None:
            db.execute("UPDATE matches SET status = ? WHERE id = ?", (record["status"], record["match_id"]))
    elif op == "aside":
        _known_match(db, record["match_id"])
        move_aside(db, record["match_id"], record["seq"], record["reason"], record["moved"])
    elif op == "aside_row":
        db.execute(f"INSERT INTO set_aside ({', '.join(ASIDE_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   tuple(record[c] for c in ASIDE_COLUMNS))
    else:
        raise ValueError(f"unknown change {op!r}")


def _known_match(db: sqlite3.Connection, match_id: int) -> None:
    if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
        raise ValueError(f"no match {match_id} before it")
