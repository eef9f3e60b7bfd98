"""Rooms on disk: one SQLite file (stdlib ``sqlite3``, write-ahead log).

A room is its settings and seed (one row of ``rooms``) plus the ops it executed, in order
(rows of ``ops``); ``touched`` is when it was last used (an op or a person joining), so that
rooms nobody uses any more can be dropped (:meth:`Store.expire`). Each op is committed before anyone hears of it (the ops of one turn of the
server's event loop in one transaction), so a server killed at any moment restarts with
every room where it was: :meth:`Store.rooms` gives them back to replay.
Tokens are stored as hashes only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    touched REAL
);
CREATE TABLE IF NOT EXISTS ops (
    room TEXT NOT NULL,
    n INTEGER NOT NULL,
    op TEXT NOT NULL,
    PRIMARY KEY (room, n)
);
"""


def default_path() -> Path:
    """``$XDG_DATA_HOME/climbrl/tables.db`` (``~/.local/share/climbrl/tables.db``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "climbrl" / "tables.db"


class Store:
    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None,
                                      check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as err:  # a folder, another kind of file, no permission
            raise ValueError(f"{str(self.path)!r} cannot be the rooms' SQLite file: {err}") \
                from None
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(rooms)")}
        if "touched" not in columns:  # a file written before rooms expired: last use = creation
            with self.db:
                self.db.execute("ALTER TABLE rooms ADD COLUMN touched REAL")
                self.db.execute("UPDATE rooms SET touched = created")
        self.pending: list[tuple[str, int, str]] = []

    def create_room(self, room_id: str, settings: dict[str, Any], seed: int,
                    ops: list[dict[str, Any]]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            now = time.time()
            self.db.execute("INSERT INTO rooms VALUES (?, ?, ?, ?, ?)",
                            (room_id, json.dumps(settings), seed, now, now))
            self.db.executemany("INSERT INTO ops VALUES (?, ?, ?)",
                                [(room_id, n, json.dumps(op)) for n, op in enumerate(ops)])

    def append(self, room_id: str, n: int, op: dict[str, Any]) -> None:
        """Queue one op; :meth:`flush` commits the queue (the server flushes before any frame
        about the op goes out)."""
        self.pending.append((room_id, n, json.dumps(op, separators=(",", ":"))))

    def flush(self) -> None:
        if not self.pending:
            return
        rows, self.pending = self.pending, []
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT INTO ops VALUES (?, ?, ?)", rows)
            self.db.executemany("UPDATE rooms SET touched = ? WHERE id = ?",
                                [(now, room_id) for room_id in {row[0] for row in rows}])

    def touch(self, room_id: str) -> None:
        """The room was used without an op (a person joined or came back)."""
        with self.db:
            self.db.execute("UPDATE rooms SET touched = ? WHERE id = ?", (time.time(), room_id))

    def unused_since(self, cutoff: float) -> list[str]:
        """The ids of the rooms last used before ``cutoff`` (a ``time.time()`` value)."""
        return [row[0] for row in
                self.db.execute("SELECT id FROM rooms WHERE touched < ? ORDER BY touched", (cutoff,))]

    def delete(self, room_ids: list[str]) -> None:
        """Drop rooms and their ops (one transaction)."""
        if not room_ids:
            return
        self.flush()
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("DELETE FROM ops WHERE room = ?", [(r,) for r in room_ids])
            self.db.executemany("DELETE FROM rooms WHERE id = ?", [(r,) for r in room_ids])

    def rooms(self) -> Iterator[tuple[str, dict[str, Any], int, list[dict[str, Any]]]]:
        """Every room as ``(id, settings, seed, ops)``, ops in order."""
        for room_id, settings, seed in self.db.execute("SELECT id, settings, seed FROM rooms ORDER BY created"):
            ops = [json.loads(row[0]) for row in
                   self.db.execute("SELECT op FROM ops WHERE room = ? ORDER BY n", (room_id,))]
            yield room_id, json.loads(settings), seed, ops

    def close(self) -> None:
        self.db.close()
