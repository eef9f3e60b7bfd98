"""Rooms: a game, its rules, its seats and the match being played, driven by *ops*.

Every change to a room is an op (a small dict): a person sitting down, the computer filling a
seat, a move, an undo, the next deal... :meth:`Room.execute` checks and applies one op and
returns the events it caused; the server writes each op it executed to the store, and
restoring a room is executing its ops again in order (the engines are deterministic given
the room's seed). Nothing here does I/O or knows about connections.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np

from climbrl import policies

from .events import Event
from .games import TableGame, table_games
from .match import EngineTable

GAMES = tuple(table_games())
MODES = ("cpu", "local", "friends")
LEVELS = policies.LEVELS
TABLE_GAMES: dict[str, TableGame] = table_games()
"""the adapter of each game (:mod:`.games`)"""
COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "teal", "pink")
DEFAULT_LEVEL = "medium"
DEFAULT_PACE_MS = 700
MAX_PACE_MS = 3000
MAX_NAME = 24
ROOM_ID_BYTES = 16
TOKEN_BYTES = 32
SEED_BITS = 63
QUIET_OPS = ("hint", "counter")
"""ops that change nothing another seat sees now: the table's version stays (a move sent on
it is not stale), and nobody is sent a frame for them"""


class RoomError(ValueError):
    """A request the room refuses; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def new_room_id() -> str:
    return secrets.token_urlsafe(ROOM_ID_BYTES)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_name(name: Any, default: str) -> str:
    if name is None:
        return default
    if not isinstance(name, str):
        raise RoomError("bad_message", f"a name must be text, got {type(name).__name__}")
    name = " ".join(name.split())[:MAX_NAME]
    return name or default


def game_options() -> dict[str, Any]:
    """What a lobby may choose, per game (the ``hello`` message's ``games``)."""
    out = {}
    for name, game in TABLE_GAMES.items():
        out[name] = {
            "players": list(game.players),
            "default_players": game.default_players,
            "rounds": list(game.rounds),
            "default_rounds": game.default_rounds,
            "rules": game.rule_options(),
        }
        if not game.counter:
            out[name]["counter"] = False
    return out


@dataclass
class Seat:
    name: str
    colour: str
    kind: str = "empty"  # human | cpu | empty
    level: str | None = None  # a CPU's level; for a person, the level that stands in
    token: str | None = None  # hash of the person's token
    connected: bool = False
    away: bool = False
    counter: bool = False

    def public(self, index: int) -> dict[str, Any]:
        return {"seat": index, "name": self.name, "colour": self.colour, "kind": self.kind,
                "level": self.level if self.kind == "cpu" else None,
                "connected": self.connected if self.kind == "human" else True,
                "away": self.away}


def check_settings(msg: dict[str, Any]) -> dict[str, Any]:
    """The settings of a new room from a ``create`` message; :class:`RoomError` naming the bad
    field."""
    game = msg.get("game")
    if game not in GAMES:
        raise RoomError("bad_message", f"game must be one of {list(GAMES)}, got {game!r}")
    table_game = TABLE_GAMES[game]
    players = msg.get("players", table_game.default_players)
    if players not in table_game.players or isinstance(players, bool):
        raise RoomError("bad_message",
                        f"players for {game} must be one of {list(table_game.players)}, got {players!r}")
    rounds = msg.get("rounds", table_game.default_rounds)
    if rounds not in table_game.rounds or isinstance(rounds, bool):
        raise RoomError("bad_message",
                        f"rounds for {game} must be one of {list(table_game.rounds)}, got {rounds!r}")
    rules = msg.get("rules") or {}
    if not isinstance(rules, dict):
        raise RoomError("bad_message", "rules must be an object of switches")
    for key, value in rules.items():
        if not table_game.check_rule_value(key, value):
            raise RoomError("bad_rules", f"rule {key!r} got {value!r}")
    try:
        table_game.check_rules(players, rounds, rules)
    except (ValueError, TypeError) as err:
        raise RoomError("bad_rules", str(err)) from None
    mode = msg.get("mode", "cpu")
    if mode not in MODES:
        raise RoomError("bad_message", f"mode must be one of {list(MODES)}, got {mode!r}")
    level = msg.get("level", DEFAULT_LEVEL)
    if level not in LEVELS:
        raise RoomError("bad_message", f"level must be one of {list(LEVELS)}, got {level!r}")
    pace = msg.get("pace_ms", DEFAULT_PACE_MS)
    if not isinstance(pace, int) or isinstance(pace, bool) or not 0 <= pace <= MAX_PACE_MS:
        raise RoomError("bad_message", f"pace_ms must be an integer 0..{MAX_PACE_MS}, got {pace!r}")
    counter = msg.get("counter", False)
    if not isinstance(counter, bool):
        raise RoomError("bad_message", f"counter must be true or false, got {counter!r}")
    names = msg.get("names")
    if names is not None and (not isinstance(names, list) or len(names) > players):
        raise RoomError("bad_message", f"names must be a list of at most {players} names")
    fill = msg.get("fill", False)
    if not isinstance(fill, bool):
        raise RoomError("bad_message", f"fill must be true or false, got {fill!r}")
    return {"game": game, "players": players, "rounds": rounds, "rules": dict(rules),
            "mode": mode, "level": level, "pace_ms": pace, "counter": counter,
            "name": clean_name(msg.get("name"), "You" if mode == "cpu" else "Player 1"),
            "names": [clean_name(n, f"Player {i + 1}") for i, n in enumerate(names or [])],
            "fill": fill}


class Room:
    """One room. Build it with :meth:`create` (new) or :meth:`restore` (from its ops)."""

    def __init__(self, room_id: str, settings: dict[str, Any], seed: int):
        self.id = room_id
        self.settings = settings
        self.seed = seed
        self.game = settings["game"]
        self.mode = settings["mode"]
        self.players = settings["players"]
        self._fresh()

    def _fresh(self) -> None:
        """The room before its first op."""
        self.seats = [Seat(name=f"Seat {i + 1}", colour=COLOURS[i]) for i in range(self.players)]
        self.table: EngineTable | None = None
        self.match_no = 0
        self.v = 0
        self.ops = 0
        self.log: list[dict[str, Any]] = []
        """every op executed, in order (what :meth:`rewind` executes again)"""
        self.hints: dict[int, Any] = {}

    # -- building --------------------------------------------------------------------------

    @classmethod
    def opening_ops(cls, settings: dict[str, Any], token: str) -> list[dict[str, Any]]:
        """The ops that open a room: its creator sits down (every seat in ``local`` mode);
        in ``cpu`` mode, or ``friends`` with ``fill``, CPUs take the other seats."""
        th = token_hash(token)
        n = settings["players"]
        ops: list[dict[str, Any]] = []
        if settings["mode"] == "local":
            names = settings["names"]
            for s in range(n):
                ops.append({"op": "sit", "seat": s, "token": th,
                            "name": names[s] if s < len(names) else f"Player {s + 1}"})
            return ops
        ops.append({"op": "sit", "seat": 0, "token": th, "name": settings["name"]})
        if settings["mode"] == "cpu" or settings["fill"]:
            ops.append({"op": "fill", "level": settings["level"]})
        return ops

    # -- ops -------------------------------------------------------------------------------

    def execute(self, op: dict[str, Any]) -> list[Event]:
        """Apply one op; :class:`RoomError` (nothing changed) when the room refuses it."""
        kind = op["op"]
        handler = getattr(self, f"_op_{kind}", None)
        if handler is None:
            raise RoomError("bad_message", f"unknown op {kind!r}")
        events = handler(op)
        if kind not in QUIET_OPS:
            self.v += 1
        self.ops += 1
        self.log.append(op)
        return events

    def rewind(self) -> None:
        """Take back the last op: the room is built again from its settings and seed and the
        ops before it (the server's way back when the store refused the op). Who is connected
        or away is no op, and stays."""
        presence = [(s.connected, s.away) for s in self.seats]
        ops = self.log[:-1]
        self._fresh()
        for op in ops:
            self.execute(op)
        for seat, (connected, away) in zip(self.seats, presence):
            seat.connected, seat.away = connected, away

    def _op_sit(self, op) -> list[Event]:
        seat = self.seats[op["seat"]]
        if seat.kind != "empty":
            raise RoomError("room_full", "that seat is taken")
        seat.kind = "human"
        seat.name = op["name"]
        seat.token = op["token"]
        seat.level = self.settings["level"]
        seat.counter = self.settings["counter"]
        events = [Event({"type": "seat", **self.seat_event(op["seat"])})]
        return events + self._maybe_start()

    def _op_fill(self, op) -> list[Event]:
        if op["level"] not in LEVELS:
            raise RoomError("bad_message", f"level must be one of {list(LEVELS)}, got {op['level']!r}")
        events = []
        n = 0
        for i, seat in enumerate(self.seats):
            if seat.kind == "empty":
                n += 1
                seat.kind = "cpu"
                seat.level = op["level"]
                seat.name = f"CPU {i}"
                events.append(Event({"type": "seat", **self.seat_event(i)}))
        if not n:
            raise RoomError("not_allowed", "there is no empty seat to fill")
        return events + self._maybe_start()

    def _maybe_start(self) -> list[Event]:
        if self.table is not None or any(s.kind == "empty" for s in self.seats):
            return []
        self._new_match()
        return [Event({"type": "start", "round": 0})]

    def _new_match(self) -> None:
        seed = int(np.random.SeedSequence([self.seed, self.match_no]).generate_state(1, np.uint64)[0])
        st = self.settings
        self.table = TABLE_GAMES[self.game].new_table(self.players, st["rounds"], st["rules"],
                                                      seed)
        self.hints = {}

    def _op_move(self, op) -> list[Event]:
        table = self._require_table()
        seat = op["seat"]
        if table.turn != seat:
            raise RoomError("not_your_turn", f"it is not seat {seat}'s turn")
        action = op["action"]
        if action not in table.legal():
            raise RoomError("illegal", f"action {action} is not a legal move now")
        try:
            return table.apply(seat, action, op.get("cards"))
        except ValueError as err:
            raise RoomError("illegal", str(err)) from None

    def _op_undo(self, op) -> list[Event]:
        table = self._require_table()
        if not TABLE_GAMES[self.game].deals or self.mode != "cpu":
            raise RoomError("no_undo", "undo is only for Dou Dizhu against the computer")
        try:
            return table.undo(op["seat"])
        except ValueError as err:
            raise RoomError("no_undo", str(err)) from None

    def _op_next(self, op) -> list[Event]:
        table = self._require_table()
        if table.over:
            self.match_no += 1
            self._new_match()
            return [Event({"type": "start", "round": 0})]
        if not table.deal_over or not TABLE_GAMES[self.game].deals:
            raise RoomError("not_allowed", "the deal is not over")
        return table.next_deal()

    def _op_replay(self, op) -> list[Event]:
        table = self._require_table()
        if not TABLE_GAMES[self.game].deals or not table.deal_over:
            raise RoomError("not_allowed", "replay deal is for a finished Dou Dizhu deal")
        return table.replay()

    def _op_hint(self, op) -> list[Event]:
        table = self._require_table()
        if table.turn != op["seat"]:
            raise RoomError("no_hint", "a hint is for the seat to move")
        if TABLE_GAMES[self.game].deals:  # the result card counts the hints
            table.hints_used += 1
        return []

    def _op_counter(self, op) -> list[Event]:
        self.seats[op["seat"]].counter = bool(op["on"])
        return []

    def _require_table(self):
        if self.table is None:
            raise RoomError("not_allowed", "the match has not started: seats are still empty")
        return self.table

    def seat_event(self, i: int) -> dict[str, Any]:
        s = self.seats[i]
        return {"seat": i, "name": s.name, "kind": s.kind, "away": s.away, "connected": s.connected}

    # -- questions ---------------------------------------------------------------------------

    def seats_of(self, token: str) -> list[int]:
        th = token_hash(token)
        return [i for i, s in enumerate(self.seats) if s.kind == "human" and s.token == th]

    def free_seat(self) -> int | None:
        for i, s in enumerate(self.seats):
            if s.kind == "empty":
                return i
        return None

    @property
    def turn(self) -> int | None:
        return None if self.table is None else self.table.turn

    def cpu_to_move(self) -> tuple[int, str] | None:
        """The seat a CPU must play now and its level (a CPU seat, or a person away)."""
        seat = self.turn
        if seat is None:
            return None
        s = self.seats[seat]
        if s.kind == "cpu":
            return seat, s.level
        if s.kind == "human" and s.away:
            return seat, s.level or DEFAULT_LEVEL
        return None

    def hint_ranker(self, seat: int):
        """The seat's hint cycle (:class:`climbrl.policies.hints.Hints` over the scripted medium)."""
        from climbrl.policies.hints import Hints

        hints = self.hints.get(seat)
        if hints is None:
            ranker = policies.load(self.game, "scripted-medium").bind(self.table.engine)
            hints = self.hints[seat] = Hints(ranker)
        return hints
