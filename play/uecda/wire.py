"""The UECda framing: tables of exactly 480 bytes and integers of exactly 4 bytes, big-endian,
over one TCP connection, with a time limit on every read and a clean end when the other side
closes.

A :class:`Wire` may carry a recorder: every table and integer it reads or writes is handed to
``recorder(direction, kind, value)`` (``"in"``/``"out"``, ``"table"``/``"int"``), which is how
the conversations under ``tests/data/uecda/`` were recorded (:class:`JsonLinesRecorder`).

The cells of rows 5 and 6 that carry the game's state are named here.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Callable

import numpy as np

from .tables import TABLE_BYTES, pack, unpack

INT_BYTES = 4
PROTOCOL_VERSION = 20070
DEFAULT_PORT = 42485
#: characters of a name the profile table carries (row 1), and how many the server keeps
NAME_CELLS, NAME_KEPT = 15, 9
#: the server's one-integer answers
ACCEPTED, REFUSED = 9, 8
GAME_ON, GAME_OVER, ALL_OVER = 0, 1, 2

# row 5: the game's state; row 6: cards held, classes, seats
STATE_ROW, SEAT_ROW = 5, 6
EXCHANGE_FLAG = (STATE_ROW, 0)   # 1 in a game-start table
GIFT_COUNT = (STATE_ROW, 1)      # cards this player gives now
MY_TURN = (STATE_ROW, 2)         # 1 for the player to move
TO_MOVE = (STATE_ROW, 3)         # the player to move (in a pile table: the one who acted)
NEW_TRICK = (STATE_ROW, 4)       # 1 when the pile is empty
JACK_BACK = (STATE_ROW, 5)
REVOLUTION = (STATE_ROW, 6)
LOCK = (STATE_ROW, 7)
COUNTS_AT, CLASSES_AT, SEATS_AT = 0, 5, 10
PLAYERS = 5


class WireClosed(ConnectionError):
    """The other side closed the connection (or reset it)."""


class WireSilent(TimeoutError):
    """Nothing came within the time limit."""


class Wire:
    """One connection. ``timeout``: seconds any one read may wait (None: forever)."""

    def __init__(self, sock: socket.socket, timeout: float | None = None,
                 recorder: Callable[[str, str, object], None] | None = None):
        self.sock = sock
        self.timeout = timeout
        self.recorder = recorder
        sock.settimeout(timeout)
        # every message is small and answered at once: without this, Nagle's algorithm and
        # delayed acknowledgements hold each reply for tens of milliseconds
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _read(self, size: int) -> bytes:
        chunks, got = [], 0
        while got < size:
            try:
                chunk = self.sock.recv(size - got)
            except socket.timeout:
                raise WireSilent(f"nothing for {self.timeout:g} s") from None
            except OSError as err:
                raise WireClosed(f"connection lost: {err.strerror or err}") from None
            if not chunk:
                what = "mid-message" if got else "between messages"
                raise WireClosed(f"connection closed by the other side ({what})")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _write(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as err:
            raise WireClosed(f"connection lost: {err.strerror or err}") from None

    def read_table(self) -> np.ndarray:
        table = unpack(self._read(TABLE_BYTES))
        self._record("in", "table", table)
        return table

    def read_int(self) -> int:
        value = int.from_bytes(self._read(INT_BYTES), "big", signed=True)
        self._record("in", "int", value)
        return value

    def send_table(self, table) -> None:
        self._write(pack(table))
        self._record("out", "table", table)

    def send_int(self, value: int) -> None:
        self._write(int(value).to_bytes(INT_BYTES, "big", signed=True))
        self._record("out", "int", value)

    def _record(self, direction: str, kind: str, value) -> None:
        if self.recorder is not None:
            self.recorder(direction, kind, value)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class JsonLinesRecorder:
    """Writes each message as a JSON line: ``{"dir": "in", "int": 9}`` or ``{"dir": "out",
    "table": [[...15 ints], ... 8 rows]}`` (tables as numbers). Safe across threads."""

    def __init__(self, path):
        self.file = open(path, "w", encoding="utf-8")
        self.lock = threading.Lock()

    def __call__(self, direction: str, kind: str, value) -> None:
        data = np.asarray(value).tolist() if kind == "table" else int(value)
        with self.lock:
            self.file.write(json.dumps({"dir": direction, kind: data}, separators=(",", ":")) + "\n")

    def close(self) -> None:
        self.file.close()


def read_recording(path) -> list[dict]:
    """The messages of a :class:`JsonLinesRecorder` file (gzip-compressed when its name ends
    in ``.gz``, as the recordings under ``tests/data/uecda/`` are)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def profile_table(name: str) -> np.ndarray:
    """The first table a client sends: the protocol version and its name's characters."""
    from .tables import new_table

    table = new_table()
    table[0, 0] = PROTOCOL_VERSION
    for i, ch in enumerate(name[:NAME_CELLS]):
        table[1, i] = ord(ch)
    return table


def profile_name(table) -> str:
    """The name a profile table carries (the first :data:`NAME_KEPT` characters)."""
    out = []
    for value in np.asarray(table)[1, :NAME_KEPT]:
        value = int(value)
        if value <= 0:
            break
        out.append(chr(value) if 32 <= value < 127 else "?")
    return "".join(out)
