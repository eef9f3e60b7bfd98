"""The client messages of the table protocol (``docs/protocol.md``): their schemas, the size
and rate limits, and :func:`parse`, which turns raw text into a checked message or raises
:class:`ProtocolError` with the code and a message naming what is wrong."""

from __future__ import annotations

import json
import time
from typing import Any

VERSION = 1
MAX_MESSAGE_BYTES = 4096
RATE_PER_S = 20.0
BURST = 40
WORK_PER_S = 0.05
"""seconds of server work (building frames, ranking hints) a client (IP address: all its
connections together) may cost per second on average..."""
WORK_BURST_S = 0.5
"""...and at most at once: past it, its messages get ``busy`` until the budget refills"""
BUDGETED = ("create", "join", "check", "hint", "reveal", "settings")
"""the requests answered ``busy`` while a client's work budget is spent (what they cost is
spent from it); moves and the rest of a game go on"""
#: messages over the rate limit before the connection is closed
MAX_OVERRUN = 200
MAX_ID_CHARS = 64
MAX_CARDS = 40
MAX_TEXT = 64

INT, STR, BOOL, LIST, DICT = "int", "str", "bool", "list", "dict"
_CHECKS = {
    INT: lambda v: isinstance(v, int) and not isinstance(v, bool),
    STR: lambda v: isinstance(v, str),
    BOOL: lambda v: isinstance(v, bool),
    LIST: lambda v: isinstance(v, list),
    DICT: lambda v: isinstance(v, dict),
}
_TYPE_WORDS = {INT: "an integer", STR: "text", BOOL: "true or false", LIST: "a list", DICT: "an object"}

#: type -> {field: (kind, required)}; every message may also carry "type" and "id"
SCHEMAS: dict[str, dict[str, tuple[str, bool]]] = {
    "create": {"game": (STR, True), "players": (INT, False), "rounds": (INT, False),
               "rules": (DICT, False), "mode": (STR, False), "level": (STR, False),
               "name": (STR, False), "names": (LIST, False), "fill": (BOOL, False),
               "counter": (BOOL, False), "pace_ms": (INT, False)},
    "join": {"room": (STR, True), "token": (STR, False), "name": (STR, False)},
    "fill": {"level": (STR, False)},
    "move": {"action": (INT, True), "seat": (INT, False), "v": (INT, False), "cards": (LIST, False)},
    "check": {"cards": (LIST, True), "seat": (INT, False)},
    "hint": {"seat": (INT, False)},
    "undo": {"seat": (INT, False)},
    "reveal": {"seat": (INT, True)},
    "settings": {"counter": (BOOL, True)},
    "next": {},
    "replay": {},
    "leave": {},
    "ping": {},
}


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, re: Any = None):
        super().__init__(message)
        self.code = code
        self.re = re


def parse(raw: str | bytes) -> dict[str, Any]:
    """A checked client message; :class:`ProtocolError` for anything else."""
    size = message_bytes(raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_big", f"message of {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    try:
        msg = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as err:
        raise ProtocolError("bad_json", f"not JSON: {err}") from None
    except RecursionError:
        raise ProtocolError("bad_json", "not JSON this server reads: nested too deep") from None
    if not isinstance(msg, dict):
        raise ProtocolError("bad_message", f"a message is a JSON object, got {type(msg).__name__}")
    re = msg.get("id")
    if re is not None and not (
        (isinstance(re, int) and not isinstance(re, bool) and abs(re) < 2**53)
        or (isinstance(re, str) and len(re) <= MAX_ID_CHARS)
    ):
        raise ProtocolError("bad_message", f"id must be a number or text of at most {MAX_ID_CHARS} characters")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in SCHEMAS:
        raise ProtocolError("bad_message", f"unknown message type {kind!r}; types are {sorted(SCHEMAS)}", re)
    schema = SCHEMAS[kind]
    for key, value in msg.items():
        if key in ("type", "id"):
            continue
        if key not in schema:
            raise ProtocolError("bad_message", f"{kind}: unknown field {key!r}", re)
        want, _ = schema[key]
        if value is not None and not _CHECKS[want](value):
            raise ProtocolError("bad_message", f"{kind}: {key} must be {_TYPE_WORDS[want]}, got {value!r}"[:200], re)
        if want == STR and value is not None and len(value) > MAX_TEXT:
            raise ProtocolError("bad_message", f"{kind}: {key} is longer than {MAX_TEXT} characters", re)
    for key, (_, required) in schema.items():
        if required and msg.get(key) is None:
            raise ProtocolError("bad_message", f"{kind}: field {key!r} is required", re)
    cards = msg.get("cards")
    if cards is not None:
        if len(cards) > MAX_CARDS or not all(_CHECKS[INT](c) and 0 <= c < 1024 for c in cards):
            raise ProtocolError("bad_message", f"{kind}: cards must be a list of card ids", re)
        if len(set(cards)) != len(cards):
            raise ProtocolError("bad_message", f"{kind}: a card is named twice", re)
    return msg


def message_bytes(raw: str | bytes) -> int:
    """The size of a message in bytes (text as UTF-8, the way it came over the socket; a
    lone surrogate counts as its three bytes)."""
    if isinstance(raw, bytes) or len(raw) > MAX_MESSAGE_BYTES:  # text is at least 1 byte a character
        return len(raw)
    return len(raw.encode("utf-8", "surrogatepass"))


class RateLimit:
    """A token bucket per connection: ``rate`` messages per second, bursts of ``burst``."""

    def __init__(self, rate: float = RATE_PER_S, burst: int = BURST):
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.overrun = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.overrun += 1
        return False

    @property
    def abusive(self) -> bool:
        return self.overrun > MAX_OVERRUN


class WorkBudget:
    """A token bucket of server time per client, shared by all its connections (more of them
    buy no more work): what their requests cost is spent after them (:meth:`spend`), and
    while the bucket is empty their requests are refused. A request costs the CPU time of the
    thread that did its work (``time.thread_time``), not the wall time: on a busy server a
    request waits for the processor, and that wait is not the client's doing."""

    def __init__(self, rate_s: float = WORK_PER_S, burst_s: float = WORK_BURST_S):
        self.rate_s = rate_s
        self.burst_s = burst_s
        self.left = burst_s
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.left = min(self.burst_s, self.left + (now - self.stamp) * self.rate_s)
        self.stamp = now

    def allow(self) -> bool:
        self._refill()
        return self.left > 0

    def spend(self, seconds: float) -> None:
        self._refill()
        self.left -= seconds

    @property
    def full(self) -> bool:
        """Refilled to its burst: forgetting it gives its client nothing more."""
        self._refill()
        return self.left >= self.burst_s


def error(code: str, message: str, re: Any = None) -> dict[str, Any]:
    out = {"type": "error", "code": code, "message": message}
    if re is not None:
        out["re"] = re
    return out
