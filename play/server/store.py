"""Rooms on disk: one SQLite file (stdlib ``sqlite3``, write-ahead log).

A room is its settings and seed (one row of ``rooms``) plus the ops it executed, in order
(rows of ``ops``, numbered 0, 1, 2... per room); ``touched`` is when it was last used (an op or
a person joining), so that rooms nobody uses any more can be dropped (:meth:`Store.unused_since`).

Each op is committed before anyone hears of it, in a transaction of its own room (a failed
write of one room leaves every other room's ops alone), and its number is the room's highest
stored plus one, given by the file in that transaction: numbers are never reused and never
skip. A server killed at any moment restarts with every room where it was: :meth:`Store.room`
gives one back to replay (:meth:`Store.room_ids` names them all). A room that cannot be replayed is set aside (:meth:`Store.set_aside`):
it stays in the file, listed in ``set_aside`` with the reason, and the server opens the others.

Every SQLite call of a running server goes through :class:`Writer`, the store's own thread, so
a busy or slow file never holds up the event loop. The file holds each room's seed (from which
every hidden hand follows): it is created readable by its owner only, and an existing file
readable by others is made so (with a warning). Tokens are stored as hashes only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

log = logging.getLogger("climbrl.table")

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
CREATE TABLE IF NOT EXISTS set_aside (
    room TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""
FILE_MODE = 0o600
"""the rooms file and its -wal and -shm: the owner reads and writes, nobody else"""
FOLDER_MODE = 0o700
"""a folder made for the rooms file"""
OTHERS = stat.S_IRWXG | stat.S_IRWXO
SIDE_FILES = ("-wal", "-shm")
BUSY_TIMEOUT_S = 5.0
"""how long a write waits for another process's lock on the file before it fails"""


class StoreError(RuntimeError):
    """A write the rooms file did not take (the message says why); nothing of it was stored."""


def default_path() -> Path:
    """``$XDG_DATA_HOME/climbrl/tables.db`` (``~/.local/share/climbrl/tables.db``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "climbrl" / "tables.db"


def private_file(path: Path) -> None:
    """Create ``path`` (empty) readable by its owner only, unless it exists; an existing file
    (or its -wal / -shm) that others may read is made so, with a warning. SQLite gives the
    -wal and -shm it creates the mode of the main file."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        return
    except FileExistsError:
        pass
    for p in [path] + [Path(f"{path}{side}") for side in SIDE_FILES]:
        try:
            mode = stat.S_IMODE(p.stat().st_mode)
        except FileNotFoundError:
            continue
        if not mode & OTHERS:
            continue
        try:
            os.chmod(p, FILE_MODE)
            log.warning("%s was open to others (mode %o) and holds every room's seed: made it %o",
                        p, mode, FILE_MODE)
        except OSError as err:
            log.warning("%s is open to others (mode %o) and holds every room's seed; could not "
                        "make it %o: %s", p, mode, FILE_MODE, err)


class Store:
    """The rooms file. Not thread-safe: a running server calls it from :class:`Writer`'s thread
    only."""

    def __init__(self, path: str | os.PathLike | None = None, busy_timeout_s: float = BUSY_TIMEOUT_S):
        self.path = Path(path) if path is not None else default_path()
        if str(self.path) != ":memory:":
            private_file(self.path)
        try:
            self.db = sqlite3.connect(str(self.path), timeout=busy_timeout_s,
                                      isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as err:  # a folder, another kind of file, no permission
            raise ValueError(f"{str(self.path)!r} cannot be the rooms' SQLite file: {err}") \
                from None
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(rooms)")}
        if "touched" not in columns:  # a file written before rooms expired: last use = creation
            with self._write():
                self.db.execute("ALTER TABLE rooms ADD COLUMN touched REAL")
                self.db.execute("UPDATE rooms SET touched = created")

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """A write transaction that takes the file's write lock first (waiting up to the busy
        timeout): commits on leaving; on any error (the commit's own too) rolls back, so the
        next write starts clean."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                try:
                    self.db.execute("ROLLBACK")
                except sqlite3.Error as err:
                    log.error("the rooms file could not roll back a failed write: %s", err)
            raise

    def create_room(self, room_id: str, settings: dict[str, Any], seed: int,
                    ops: list[dict[str, Any]]) -> None:
        with self._write():
            now = time.time()
            self.db.execute("INSERT INTO rooms VALUES (?, ?, ?, ?, ?)",
                            (room_id, json.dumps(settings), seed, now, now))
            self.db.executemany("INSERT INTO ops VALUES (?, ?, ?)",
                                [(room_id, n, _text(op)) for n, op in enumerate(ops)])

    def append(self, room_id: str, op: dict[str, Any]) -> int:
        """Commit one op of a room as its next (its highest stored number plus one; one
        transaction); returns its number."""
        with self._write():
            n = self.db.execute("SELECT COALESCE(MAX(n) + 1, 0) FROM ops WHERE room = ?",
                                (room_id,)).fetchone()[0]
            self.db.execute("INSERT INTO ops VALUES (?, ?, ?)", (room_id, n, _text(op)))
            self.db.execute("UPDATE rooms SET touched = ? WHERE id = ?", (time.time(), room_id))
        return n

    def touch(self, *room_ids: str) -> None:
        """The rooms were used without an op (a person joined, came back or left); one
        transaction."""
        now = time.time()
        with self._write():
            self.db.executemany("UPDATE rooms SET touched = ? WHERE id = ?", [(now, r) for r in room_ids])

    def unused_since(self, cutoff: float) -> list[str]:
        """The ids of the rooms last used before ``cutoff`` (a ``time.time()`` value); rooms set
        aside stay."""
        return [row[0] for row in self.db.execute(
            "SELECT id FROM rooms WHERE touched < ? AND id NOT IN (SELECT room FROM set_aside) "
            "ORDER BY touched", (cutoff,))]

    def delete(self, room_ids: list[str]) -> None:
        """Drop rooms and their ops (one transaction)."""
        if not room_ids:
            return
        with self._write():
            self.db.executemany("DELETE FROM ops WHERE room = ?", [(r,) for r in room_ids])
            self.db.executemany("DELETE FROM rooms WHERE id = ?", [(r,) for r in room_ids])

    def rooms(self) -> Iterator[tuple[str, str, int, list[tuple[int, str]]]]:
        """Every room not set aside as ``(id, settings, seed, ops)``, as stored: settings as
        JSON text, ops as ``(n, JSON text)`` in order (a damaged row is the caller's to find)."""
        rows = self.db.execute("SELECT id, settings, seed FROM rooms WHERE id NOT IN "
                               "(SELECT room FROM set_aside) ORDER BY created").fetchall()
        for room_id, settings, seed in rows:
            ops = self.db.execute("SELECT n, op FROM ops WHERE room = ? ORDER BY n", (room_id,)).fetchall()
            yield room_id, settings, seed, ops

    def room_ids(self) -> list[str]:
        """The id of every room not set aside (one query: what a server starting up reads)."""
        return [row[0] for row in self.db.execute(
            "SELECT id FROM rooms WHERE id NOT IN (SELECT room FROM set_aside)")]

    def room(self, room_id: str) -> tuple[str, int, list[tuple[int, str]]] | None:
        """One room not set aside as ``(settings, seed, ops)``, as :meth:`rooms` gives it;
        None when the file has no such room."""
        row = self.db.execute("SELECT settings, seed FROM rooms WHERE id = ? AND id NOT IN "
                              "(SELECT room FROM set_aside)", (room_id,)).fetchone()
        if row is None:
            return None
        ops = self.db.execute("SELECT n, op FROM ops WHERE room = ? ORDER BY n", (room_id,)).fetchall()
        return row[0], row[1], ops

    def set_aside(self, room_id: str, reason: str) -> None:
        """Keep a room that cannot be restored out of the server (its rows stay in the file)."""
        with self._write():
            self.db.execute("INSERT OR REPLACE INTO set_aside VALUES (?, ?, ?)",
                            (room_id, reason, time.time()))

    def set_aside_rooms(self) -> list[tuple[str, str]]:
        """``(room id, reason)`` of every room set aside."""
        return self.db.execute("SELECT room, reason FROM set_aside ORDER BY at").fetchall()

    def close(self) -> None:
        self.db.close()


def _text(op: dict[str, Any]) -> str:
    return json.dumps(op, separators=(",", ":"))


class Writer:
    """The store's own thread: every call of a running server's :class:`Store` runs there, one
    at a time, so the event loop never waits on the file. :meth:`call` awaits the result (an
    SQLite error is :class:`StoreError`; a caller cancelled meanwhile leaves the call to finish);
    :meth:`later` does not wait (a failure is logged)."""

    def __init__(self, store: Store):
        self.store = store
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="climbrl-rooms-file")
        self._touched: set[str] = set()
        self._touch_lock = threading.Lock()

    async def call(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.shield(asyncio.wrap_future(self.thread.submit(method, *args)))
        except sqlite3.Error as err:
            raise StoreError(f"the rooms file {self.store.path} did not take it: "
                             f"{type(err).__name__}: {err}") from err

    def later(self, method: Callable[..., Any], *args: Any) -> None:
        try:
            self.thread.submit(method, *args).add_done_callback(_log_failure)
        except RuntimeError:  # the server is stopping: the file is closed
            log.warning("the rooms file is closed; %s not done", getattr(method, "__name__", method))

    def touch_later(self, room_id: str) -> None:
        """:meth:`Store.touch` the room soon, without waiting: the rooms touched meanwhile go
        in one transaction, queued once. Regression: each join and leave was a write of its
        own, queued before the moves that came after it; a client making rooms at its rate
        limit (a join and a leave each) held up every room's moves behind those writes."""
        with self._touch_lock:
            first = not self._touched
            self._touched.add(room_id)
        if first:
            self.later(self._touch_all)

    def _touch_all(self) -> None:
        with self._touch_lock:
            rooms, self._touched = self._touched, set()
        if rooms:
            self.store.touch(*sorted(rooms))

    def close(self) -> None:
        """Wait for the writes queued, then close the file."""
        self.thread.shutdown(wait=True)
        self.store.close()


def _log_failure(future: Future) -> None:
    err = future.exception()
    if err is not None:
        log.error("the rooms file did not take a write: %s: %s", type(err).__name__, err)
