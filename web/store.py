"""The match log: every match and every event of it in SQLite, committed before anyone is told.

A match is its game, players and options plus an append-only list of events. Replaying the
events in order rebuilds the match exactly (state, redo stack, pending question or
discrepancy), which is how a restarted service resumes where it was. Event kinds:

- ``action``: a rules action applied (``text``), by ``camera`` (with the frame that justified
  it) or by the ``tablet``;
- ``undo`` / ``redo``: take back the last action / apply the last action undone again;
- ``ruling``: a settled frame that changed nothing in the rules: the table matches (forced
  moves confirmed), a discrepancy, or a question (with what was seen, so it can be answered
  after a restart);
- ``answer``: the players' answer to a question.

The database runs in WAL mode with ``synchronous=FULL``: a transaction that returned is on
disk even if the Pi's power cord is kicked the next moment. Every change is also written ahead
to the journal beside it (``web.journal``: ``m.db.journal``, fsynced before the commit), a
second record in a second file from which a damaged database is rebuilt.

When the file fails, the error names it and says what to do: a damaged log (not a database,
cut short, failing its integrity check) is ``DamagedLogError``, and ``open_store`` moves it aside
and rebuilds it from the journal (or starts a fresh one when there is none); a log and journal
both damaged is ``LostLogError``, which says how to go on; a write that fails (a full disk, an
I/O error) is ``LogWriteError`` and changes nothing; an event that no longer replays is set
aside (table ``set_aside``, with why) and the match resumes up to it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import State, find_game
from referee.actions import Action
from referee.errors import IllegalActionError, InvalidActionError
from web.journal import Contents, DamagedJournalError, Journal, Record, journal_path, read_journal
from web.store_tables import (
    EVENT_COLUMNS,
    MATCH_COLUMNS,
    SCHEMA,
    journal_rows,
    move_aside,
    rebuilt,
    snapshot,
    table_rows,
)

EVENT_KINDS = ("action", "undo", "redo", "ruling", "answer")


@dataclass(frozen=True)
class Event:
    """One line of a match log."""

    seq: int
    """1, 2, 3 ... within the match."""
    at: float
    """Wall-clock time (Unix seconds) it was committed."""
    kind: str
    """One of ``EVENT_KINDS``."""
    text: str
    """The action's text form, or the ruling in words."""
    actor: str
    """``camera``, ``tablet``, ``players`` (an answer) or a name."""
    frame_id: str | None = None
    """The frame that justified a camera event."""
    detail: dict[str, Any] = field(default_factory=dict)
    """Kind-specific data (a ruling's problems, a question's choices and reads)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-friendly form (``matches export``, the dashboard's log)."""
        return {"seq": self.seq, "at": self.at, "kind": self.kind, "text": self.text, "actor": self.actor,
                "frame": self.frame_id, "detail": self.detail}


@dataclass(frozen=True)
class MatchInfo:
    """A match as ``matches list`` shows it."""

    id: int
    created: float
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    camera: str
    status: str
    events: int

    def to_json(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"id": self.id, "created": self.created, "game": self.game, "players": list(self.players),
                "options": self.options, "camera": self.camera, "status": self.status, "events": self.events}


class StoreError(ValueError):
    """A match id that does not exist, or a log that does not replay."""


class DamagedLogError(StoreError):
    """The match log's file is not a sound SQLite database (corrupt, cut short, not one at all)."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(
            f"the match log {path} is damaged ({why}): `referee serve --db {path}` moves it aside and rebuilds"
            f" it from its journal (or starts a fresh one); to save what can be saved first:"
            f" sqlite3 {path} .recover > saved.sql")
        self.path = path
        self.why = why


class LogWriteError(StoreError):
    """A change could not be committed (a full disk, an I/O error): nothing was changed."""


class LostLogError(StoreError):
    """The match log is damaged and its journal too: neither is believed, nothing is changed."""

    def __init__(self, damaged: DamagedLogError, journal: DamagedJournalError) -> None:
        path = damaged.path
        super().__init__(
            f"the match log {path} is damaged ({damaged.why}) and so is its journal: {journal}; nothing was"
            f" changed. To start a fresh log, move its files aside (mv {path} {path}.lost; mv {journal.path}"
            f" {journal.path}.lost; and {path}-wal, {path}-shm if there are any) and start again; what can be"
            f" saved is in the journal's lines before line {journal.line} and in: sqlite3 {path} .recover > saved.sql")
        self.path = path
        self.journal = journal


class MatchStore:
    """The SQLite file holding every match; safe to share between the loop and web threads."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.RLock()
        self.notes: list[str] = []
        """What was done about a damaged file on opening (``open_store``), for the operator."""
        self.journal: Journal | None = None
        """The journal every change is written ahead to (none for ``:memory:``)."""
        self._staged: list[Record] = []
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a commit is exactly where we say.
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            (verdict,) = self._db.execute("PRAGMA quick_check(1)").fetchone()
            if verdict != "ok":
                raise sqlite3.DatabaseError(str(verdict))
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise DamagedLogError(self.path, str(exc)) from None
        if self.path != ":memory:":
            try:
                self.journal = Journal(journal_path(self.path))
                self._match_journal()
            except OSError as exc:
                self.close()
                raise LogWriteError(f"the journal {journal_path(self.path)} could not be opened or written"
                                    f" ({exc.strerror or exc}); free some space or check the disk,"
                                    " then try again") from None
            except BaseException:
                self.close()
                raise

    def _match_journal(self) -> None:
        """Make the journal say what the (sound) database says: cut a torn tail away, and rewrite
        it from the database when it is lost, short, damaged, or holds a line never committed.
        A journal holding events the database lacks is first copied aside, for whoever wants them."""
        assert self.journal is not None
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")  # no other writer between its journal line and commit
                ours = table_rows(self._db)
                damage: DamagedJournalError | None = None
                try:
                    contents = read_journal(self.journal.path)
                    theirs = journal_rows(contents.records, self.journal.path) if contents.records else None
                except DamagedJournalError as exc:
                    damage, contents, theirs = exc, Contents([], True, 0), None
                if not ours[0] and (contents.records or damage is not None):
                    why = str(damage) if damage is not None else \
                        f"its journal {self.journal.path} holds {len(contents.records)} change(s) it lacks"
                    raise DamagedLogError(self.path, f"it holds no match, but {why}")
                if theirs == (ours if ours[0] else None):
                    if contents.torn:
                        self.journal.cut_back(contents.sound_length)
                else:
                    if theirs is not None and len(theirs[1]) > len(ours[1]):
                        kept = f"{self.journal.path}.replaced-{time.strftime('%Y%m%d-%H%M%S')}"
                        shutil.copyfile(self.journal.path, kept)
                        self.notes.append(
                            f"the journal {self.journal.path} held {len(theirs[1]) - len(ours[1])} event(s)"
                            f" more than the match log {self.path}, which is sound and kept: the journal was"
                            f" moved aside to {kept} and rewritten from the log")
                    self.journal.rewrite(snapshot(ours))
                if damage is not None:
                    self.notes.append(f"{damage}: rewritten from the match log {self.path}, which is sound")
                self._db.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):  # busy (another writer) is no damage: only "malformed" is
                    raise self._write_error(exc) from None
                if isinstance(exc, OSError):
                    raise LogWriteError(f"the journal {self.journal.path} could not be written ({exc.strerror or exc});"
                                        " free some space or check the disk, then try again") from None
                raise

    def close(self) -> None:
        """Close the database and its journal."""
        with self._lock:
            self._db.close()
            if self.journal is not None:
                self.journal.close()
                self.journal = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; what the body ``_stage``s is journalled (fsynced) before the commit."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._write_error(exc) from None
            self._staged = []
            journalled: int | None = None
            try:
                yield self._db
                if self.journal is not None and self._staged:
                    start = self.journal.size()
                    try:
                        self.journal.append(self._staged)
                    except OSError as exc:
                        raise LogWriteError(
                            f"the journal {self.journal.path} could not be written ({exc.strerror or exc}): nothing was"
                            " changed; free some space or check the disk, then try again") from None
                    journalled = start
                self._db.execute("COMMIT")
            except BaseException as exc:
                if journalled is not None and self.journal is not None:
                    self.journal.cut_back(journalled)  # the commit failed: the change is in neither file
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # a failed COMMIT may have rolled back already
                if isinstance(exc, sqlite3.Error):
                    raise self._write_error(exc) from None
                raise
            finally:
                self._staged = []

    def _stage(self, record: Record) -> None:
        """Journal ``record`` with the transaction in progress."""
        self._staged.append(record)

    def _write_error(self, exc: sqlite3.Error) -> StoreError:
        if isinstance(exc, sqlite3.OperationalError | sqlite3.IntegrityError) or "malformed" not in str(exc):
            return LogWriteError(f"the match log {self.path} could not be written ({exc}): nothing was changed;"
                                 " free some space or check the disk, then try again")
        return DamagedLogError(self.path, str(exc))

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as exc:
                raise DamagedLogError(self.path, str(exc)) from None

    # -- matches ---------------------------------------------------------------------------

    def create(self, game: str, players: list[str], options: Mapping[str, Any], camera: str = "") -> int:
        """Record a new match; returns its id."""
        with self._transaction() as db:
            row = (self._clock(), game, json.dumps(list(players)), json.dumps(dict(options)), camera)
            cursor = db.execute(
                "INSERT INTO matches (created, game, players, options, camera) VALUES (?, ?, ?, ?, ?)", row)
            assert cursor.lastrowid is not None
            self._stage({"op": "match", **dict(zip(MATCH_COLUMNS, (cursor.lastrowid, *row, "playing"), strict=True))})
            return int(cursor.lastrowid)

    def info(self, match_id: int) -> MatchInfo:
        """One match's summary.

        :raises StoreError: for an unknown id.
        """
        rows = self._infos("WHERE m.id = ?", (match_id,))
        if not rows:
            raise StoreError(f"no match {match_id} in {self.path}")
        return rows[0]

    def matches(self) -> list[MatchInfo]:
        """Every match, newest first."""
        return self._infos("", ())[::-1]

    def _infos(self, where: str, args: tuple[Any, ...]) -> list[MatchInfo]:
        rows = self._query(
            "SELECT m.id, m.created, m.game, m.players, m.options, m.camera, m.status,"
            " (SELECT COUNT(*) FROM events e WHERE e.match_id = m.id)"
            f" FROM matches m {where} ORDER BY m.id", args)
        return [MatchInfo(r[0], r[1], r[2], tuple(json.loads(r[3])), json.loads(r[4]), r[5], r[6], r[7]) for r in rows]

    def latest_playing(self, camera: str | None = None, identity: Callable[[str], str] | None = None) -> int | None:
        """The newest match still in play (on ``camera``, when given), to resume after a restart.

        ``identity`` spells a stored camera the way ``camera`` is spelled (a log written before
        camera names were normalised); a stored name it rejects is another camera.
        """
        for info in self.matches():
            if info.status == "playing" and (camera is None or _same_camera(info.camera, camera, identity)):
                return info.id
        return None

    def set_status(self, match_id: int, status: str) -> None:
        """Mark a match ``playing``, ``over`` or ``abandoned``."""
        with self._transaction() as db:
            db.execute("UPDATE matches SET status = ? WHERE id = ?", (status, match_id))
            self._stage({"op": "status", "match_id": match_id, "status": status})

    # -- events ----------------------------------------------------------------------------

    def append(self, match_id: int, kind: str, text: str, actor: str, frame_id: str | None = None,
               detail: Mapping[str, Any] | None = None, status: str | None = None) -> Event:
        """Commit one event (and optionally the match's new status) and return it."""
        assert kind in EVENT_KINDS, kind
        with self._transaction() as db:
            (last,) = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?", (match_id,)).fetchone()
            event = Event(int(last) + 1, self._clock(), kind, text, actor, frame_id, dict(detail or {}))
            row = (match_id, event.seq, event.at, kind, text, actor, frame_id, json.dumps(event.detail))
            db.execute(
                "INSERT INTO events (match_id, seq, at, kind, text, actor, frame_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            if status is not None:
                db.execute("UPDATE matches SET status = ? WHERE id = ?", (status, match_id))
            self._stage({"op": "event", **dict(zip(EVENT_COLUMNS, row, strict=True)), "status": status})
        return event

    def events(self, match_id: int) -> list[Event]:
        """A match's events, oldest first."""
        rows = self._query(
            "SELECT seq, at, kind, text, actor, frame_id, detail FROM events WHERE match_id = ? ORDER BY seq",
            (match_id,))
        return [Event(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6])) for r in rows]

    def open(self, match_id: int, set_aside: bool = False) -> Match:
        """The match rebuilt from its log.

        With ``set_aside``, an event that does not replay (a rule changed since it was logged,
        a hand-edited log) is moved with every later one to the ``set_aside`` table with the
        reason, in one transaction, and the match resumes up to it (``Match.notes`` says so).

        :raises StoreError: for an unknown id, or a log that does not replay (without ``set_aside``).
        """
        info = self.info(match_id)
        state = find_game(info.game)(list(info.players), info.options).new_state()
        match = Match(self, match_id, state)
        for event in self.events(match_id):
            try:
                match._replay(event)
            except (IllegalActionError, InvalidActionError, IndexError, KeyError) as exc:
                reason = f"event {event.seq} ({event.kind} {event.text!r}) does not replay: {exc or type(exc).__name__}"
                if not set_aside:
                    raise StoreError(f"match {match_id}: {reason}") from None
                moved = self._set_aside(match_id, event.seq, reason)
                match.notes.append(f"match {match_id}: {reason}; it and {moved - 1} later event(s) were set aside"
                                   f" (table set_aside in {self.path}) and the match resumes before it")
                break
        return match

    def _set_aside(self, match_id: int, from_seq: int, reason: str) -> int:
        """Move the events of ``match_id`` from ``from_seq`` on to ``set_aside``; returns how many."""
        with self._transaction() as db:
            moved = self._clock()
            self._stage({"op": "aside", "match_id": match_id, "seq": from_seq, "reason": reason, "moved": moved})
            return move_aside(db, match_id, from_seq, reason, moved)

    def set_aside_events(self, match_id: int) -> list[tuple[Event, str]]:
        """The events of a match set aside, each with why, oldest first."""
        rows = self._query(
            "SELECT seq, at, kind, text, actor, frame_id, detail, reason FROM set_aside WHERE match_id = ? ORDER BY id",
            (match_id,))
        return [(Event(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6])), r[7]) for r in rows]

    def export(self, match_id: int) -> dict[str, Any]:
        """A match as one JSON document: its summary, its log, and the final state."""
        match = self.open(match_id)
        return {"match": self.info(match_id).to_json(), "events": [e.to_json() for e in match.events],
                "state": match.state.to_json()}


def _same_camera(stored: str, camera: str, identity: Callable[[str], str] | None) -> bool:
    if stored == camera or identity is None:
        return stored == camera
    try:
        return identity(stored) == camera
    except ValueError:
        return False


def open_store(path: str | Path, clock: Callable[[], float] = time.time) -> MatchStore:
    """The match log at ``path``; a damaged one is moved aside (with its ``-wal`` and ``-shm``
    files) to ``PATH.damaged-YYYYmmdd-HHMMSS`` and rebuilt from its journal (a copy of which
    goes beside it), or a fresh log started when there is no journal, ``notes`` saying which.

    :raises LostLogError: when the journal is damaged too (nothing is moved or changed).
    """
    try:
        return MatchStore(path, clock)
    except DamagedLogError as exc:
        journal = journal_path(exc.path)
        try:
            records = read_journal(journal).records
            rebuilt(records, journal).close()  # every line follows from the ones before it
        except DamagedJournalError as damage:
            raise LostLogError(exc, damage) from None
        aside = f"{exc.path}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(exc.path + suffix):
                os.replace(exc.path + suffix, aside + suffix)
        if not records:
            if os.path.exists(journal):
                os.replace(journal, aside + ".journal")  # a torn line at most: nothing to rebuild from
            store = MatchStore(path, clock)
            store.notes.append(f"the match log {exc.path} was damaged ({exc.why}): moved aside to {aside}"
                               " and a fresh log started")
            return store
        try:
            shutil.copyfile(journal, aside + ".journal")  # as it was, beside the damaged file
            rebuilt(records, journal, into=exc.path).close()
        except (OSError, sqlite3.Error) as failed:
            raise LogWriteError(f"the match log {exc.path} could not be rebuilt from its journal {journal} ({failed}):"
                                f" the damaged file is at {aside} and the journal unchanged; free some space or"
                                " check the disk, then try again") from None
        store = MatchStore(path, clock)
        matches, events, _ = table_rows(store._db)
        store.notes.append(f"the match log {exc.path} was damaged ({exc.why}): moved aside to {aside} and rebuilt"
                           f" from its journal {journal} ({len(matches)} match(es), {len(events)} event(s))")
        return store


class Match:
    """One match in play: the rules state plus its log. Every change is committed first.

    Methods that change the match return the committed ``Event``; only then may the caller
    tell anyone (the tablets, the terminal).
    """

    def __init__(self, store: MatchStore, match_id: int, state: State) -> None:
        self.store = store
        self.id = match_id
        self.state = state
        self.events: list[Event] = []
        self.redo_stack: list[str] = []
        """Actions undone, the most recent last: ``redo`` applies them again."""
        self.pending: Event | None = None
        """The discrepancy or question waiting for the players, if any."""
        self.lock = threading.RLock()
        self.notes: list[str] = []
        """What was set aside when the match was opened (``MatchStore.open``)."""

    @property
    def status(self) -> str:
        """``over`` once the game has ended, else ``playing``."""
        return "over" if self.state.is_terminal() else "playing"

    def parse(self, action: Action | str) -> Action:
        """The action, parsed if given as text.

        :raises InvalidActionError: for text that is no action of this game.
        """
        return self.state.game.parse_action(action) if isinstance(action, str) else action

    def apply(self, action: Action | str, actor: str, frame_id: str | None = None,
              detail: Mapping[str, Any] | None = None) -> Event:
        """Check, commit and apply an action.

        :raises InvalidActionError: for text that does not parse.
        :raises IllegalActionError: for an action the rules forbid now.
        """
        with self.lock:
            parsed = self.parse(action)
            error = self.state.why_illegal(parsed)
            if error is not None:
                raise error
            self.state.apply(parsed)
            try:
                event = self._commit("action", str(parsed), actor, frame_id, detail)
            except BaseException:
                self.state.undo()
                raise
            self.redo_stack.clear()
            self.pending = None
            return event

    def undo(self, actor: str = "tablet") -> Event:
        """Take back the last action.

        :raises IllegalActionError: when nothing has been played.
        """
        with self.lock:
            if not self.state.history():
                raise IllegalActionError("there is nothing to undo")
            undone = self.state.undo()
            try:
                event = self._commit("undo", str(undone), actor)
            except BaseException:
                self.state.apply(undone)
                raise
            self.redo_stack.append(str(undone))
            self.pending = None
            return event

    def redo(self, actor: str = "tablet") -> Event:
        """Apply again the action last undone.

        :raises IllegalActionError: when there is nothing to redo.
        """
        with self.lock:
            if not self.redo_stack:
                raise IllegalActionError("there is nothing to redo")
            text = self.redo_stack[-1]
            self.state.apply(text)
            try:
                event = self._commit("redo", text, actor)
            except BaseException:
                self.state.undo()
                raise
            self.redo_stack.pop()
            self.pending = None
            return event

    def record(self, kind: str, text: str, actor: str, frame_id: str | None = None,
               detail: Mapping[str, Any] | None = None) -> Event:
        """Commit a ``ruling`` or ``answer`` (events that do not change the rules state)."""
        assert kind in ("ruling", "answer")
        with self.lock:
            event = self._commit(kind, text, actor, frame_id, detail)
            self._note_pending(event)
            return event

    def last_frame(self) -> str | None:
        """The frame of the newest camera event: a replay resumes after it."""
        for event in reversed(self.events):
            if event.frame_id is not None:
                return event.frame_id
        return None

    def _commit(self, kind: str, text: str, actor: str, frame_id: str | None = None,
                detail: Mapping[str, Any] | None = None) -> Event:
        # A state-changing event carries the match's status after it, in the same transaction.
        status = self.status if kind in ("action", "undo", "redo") else None
        event = self.store.append(self.id, kind, text, actor, frame_id, detail, status=status)
        self.events.append(event)
        return event

    def _note_pending(self, event: Event) -> None:
        if event.kind == "ruling" and event.detail.get("ruling") in ("discrepancy", "question"):
            self.pending = event
        else:
            self.pending = None

    def _replay(self, event: Event) -> None:
        """Apply one logged event while rebuilding the match (no commit)."""
        if event.kind == "action":
            self.state.apply(event.text)
            self.redo_stack.clear()
            self.pending = None
        elif event.kind == "undo":
            self.redo_stack.append(str(self.state.undo()))
            self.pending = None
        elif event.kind == "redo":
            self.state.apply(self.redo_stack.pop())
            self.pending = None
        else:
            self._note_pending(event)
        self.events.append(event)
