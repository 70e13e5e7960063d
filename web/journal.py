"""The match log's journal: a second, independent record of every change, to rebuild a lost database.

Beside the SQLite match log ``m.db`` lies ``m.db.journal``, one line per change: a CRC-32 of
the line's JSON, a space, and the JSON (the match id, the event's sequence number and every
column written). The database stays the primary record; the journal is what SQLite-backed
systems keep so that a database file cut short or corrupted by the card does not take the
confirmed events of a live game with it (``web.store.open_store`` rebuilds from it).

What is guaranteed, and why:

- **Written ahead, fsynced before the commit.** ``MatchStore`` writes a change's lines and
  ``fsync``s the journal inside the database transaction, then commits (``synchronous=FULL``).
  So every event a caller was handed (committed, hence shown to the players, DESIGN.md step 6)
  is on disk twice, in two files that fail independently.
- **Nothing that failed is kept.** When the journal write or the commit fails (a full disk, an
  I/O error), the journal is cut back to where it was and the transaction rolled back: the
  caller gets ``LogWriteError`` and neither file holds the change.
- **A torn write costs at most the last, unconfirmed change.** Power lost during the journal
  write leaves a last line whose checksum fails; it was never committed nor shown, and is
  ignored (and cut away when the log is next opened). Power lost between the journal's fsync and
  the commit leaves one whole line the database lacks: while the database is sound it wins and
  the journal is rewritten from it (a journal holding events the database lacks is copied aside
  first, never thrown away); if the database is lost as well, that line — a complete, legal
  decision nobody had been shown — comes back with the rest.
- **Nothing half-written is believed.** A line that fails its checksum with sound lines after
  it is not a torn write but damage (bit rot, a bad sector): it is refused by name
  (``DamagedJournalError``), never read as data, and nothing after it is guessed at.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any, NamedTuple

SUFFIX = ".journal"

Record = dict[str, Any]


class DamagedJournalError(ValueError):
    """The journal holds a line that is not what was written (a bad checksum with sound lines
    after it, or a line that does not follow from the ones before)."""

    def __init__(self, path: str, line: int, why: str) -> None:
        super().__init__(f"the journal {path} is damaged at line {line} ({why})")
        self.path = path
        self.line = line
        self.why = why


def journal_path(db_path: str) -> str:
    """The journal beside the database ``db_path``."""
    return db_path + SUFFIX


def encode(record: Record) -> bytes:
    """One journal line: the CRC-32 of the JSON, a space, the JSON, a newline."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":")).encode("ascii")
    return b"%08x %s\n" % (zlib.crc32(body), body)


def _decode(line: bytes) -> Record | None:
    """The record of a line, or None when its checksum or JSON fails."""
    checksum, _, body = line.partition(b" ")
    try:
        if len(checksum) != 8 or int(checksum, 16) != zlib.crc32(body):
            return None
        record = json.loads(body)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class Contents(NamedTuple):
    """What a journal holds."""

    records: list[tuple[int, Record]]
    """The sound records, each with its line number (from 1)."""
    torn: bool
    """Whether a torn tail (a last line that failed its checksum, or one cut short) was ignored."""
    sound_length: int
    """Bytes up to the end of the last sound line: the journal without its torn tail."""


def read_journal(path: str) -> Contents:
    """The sound records of the journal at ``path``; a missing journal has none.

    :raises DamagedJournalError: for a line that fails its checksum with a sound line after it.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return Contents([], False, 0)
    lines = data.split(b"\n")
    tail = lines.pop()  # what follows the last newline: empty unless the last write was cut short
    records: list[tuple[int, Record]] = []
    first_bad: int | None = None
    sound_length = end = 0
    for number, line in enumerate(lines, start=1):
        end += len(line) + 1
        record = _decode(line)
        if record is None:
            first_bad = first_bad or number
            continue
        if first_bad is not None:
            raise DamagedJournalError(path, first_bad, "its checksum fails, and sound lines follow it")
        records.append((number, record))
        sound_length = end
    return Contents(records, first_bad is not None or tail != b"", sound_length)


class Journal:
    """The journal file, open for appending; writes are fsynced before they return."""

    def __init__(self, path: str) -> None:
        self.path = path
        created = not os.path.exists(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if created:
            _sync_folder(path)

    def size(self) -> int:
        """The journal's length in bytes."""
        return os.fstat(self._fd).st_size

    def append(self, records: list[Record]) -> None:
        """Write ``records`` and fsync; on failure cut the journal back to where it was.

        :raises OSError: when the write or the fsync fails (the journal is as it was).
        """
        start = self.size()
        try:
            self._write(b"".join(encode(record) for record in records))
            os.fsync(self._fd)
        except OSError:
            self.cut_back(start)
            raise

    def cut_back(self, length: int) -> None:
        """Drop what was written past ``length`` (a change whose commit failed, a torn tail)."""
        try:
            os.ftruncate(self._fd, length)
            os.fsync(self._fd)
        except OSError:
            pass  # left as a torn tail: rewritten from the database when it is next opened

    def rewrite(self, records: list[Record]) -> None:
        """Replace the journal's contents by ``records`` (in place, so another process appending
        to it keeps writing to the same file).

        :raises OSError: when the write fails.
        """
        os.ftruncate(self._fd, 0)
        self._write(b"".join(encode(record) for record in records))
        os.fsync(self._fd)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        """Close the file."""
        os.close(self._fd)


def _sync_folder(path: str) -> None:
    """Make a new file's name durable, as its contents are by fsync."""
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
