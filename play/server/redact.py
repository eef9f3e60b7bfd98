"""The one function that turns a room into what one connection may see.

A frame is built from an explicit list of fields: the table's public facts (the pile, the
flags, counts of cards, scores, the result once a deal is over), the seats' public tags, and
the private part (hand, legal moves, exchange cards, bid advice, card counter) of *one* seat
only: the connection's own, or in ``local`` mode the seat whose owner lifted the curtain.
Nothing is copied from an engine view wholesale, so a field added to a view never leaks.
"""

from __future__ import annotations

from typing import Any

from .events import Event

PROTOCOL = 1
PUBLIC_KEYS = ("phase", "round", "rounds", "pile", "last", "flags", "history", "match")
PRIVATE_KEYS = ("hand", "moves", "playable", "can_pass", "exchange")
DOUDIZHU_PUBLIC = ("first_bidder", "bids", "landlord", "bid", "kitty", "kitty_size", "bombs", "robs",
                   "shown_hand", "wild",
                   "multiplier",
                   "round_box", "hints_used", "undos", "replay", "deal", "deals")


def shown_seat(room, seats: list[int], revealed: int | None) -> int | None:
    """The seat whose hand a connection sees: its own, or in ``local`` mode the revealed one
    (only while it is that seat's decision or nobody's)."""
    if room.mode == "local":
        return revealed
    return seats[0] if seats else None


def frame(room, seats: list[int], revealed: int | None, events: list[Event]) -> dict[str, Any]:
    """The ``state`` message for a connection holding ``seats``."""
    table = room.table
    shown = shown_seat(room, seats, revealed)
    turn = room.turn
    out: dict[str, Any] = {
        "type": "state",
        "room": room.id,
        "v": room.v,
        "game": room.game,
        "mode": room.mode,
        "players": room.players,
        "rules": _rules(room),
        "started": table is not None,
        "seat": shown,
        "seats_held": list(seats),
        "turn": turn,
        "your_turn": turn is not None and turn == shown,
        "curtain": None,
        "events": [e.for_seats(seats) for e in events],
    }
    seat_rows = []
    for i, seat in enumerate(room.seats):
        row = seat.public(i)
        if table is not None:
            row.update(table.seat_public(i))
        seat_rows.append(row)
    out["seats"] = seat_rows
    if table is None:
        out.update({"phase": "waiting", "round": 0, "rounds": room.settings["rounds"], "pile": None,
                    "last": None, "flags": None, "history": [], "match": None, "hand": None,
                    "moves": None, "playable": None, "can_pass": False, "exchange": None})
        return out
    public = table.public()
    for key in PUBLIC_KEYS:
        out[key] = public[key]
    if room.mode == "local" and shown is None and turn is not None:
        out["curtain"] = {"seat": turn, "name": room.seats[turn].name}
    private = None
    if shown is not None:
        if room.game == "doudizhu":
            private = table.private(shown, counter=room.seats[shown].counter)
        else:
            private = table.private(shown)
    for key in PRIVATE_KEYS:
        out[key] = private.get(key) if private is not None else None
    if out["can_pass"] is None:
        out["can_pass"] = False
    if room.game == "doudizhu":
        ddz = {key: public["doudizhu"][key] for key in DOUDIZHU_PUBLIC}
        ddz["advice"] = private["advice"] if private is not None else None
        ddz["advice_facts"] = private["advice_facts"] if private is not None else None
        ddz["counter"] = private["counter"] if private is not None else None
        out["doudizhu"] = ddz
        out["result"] = public["result"]
        out["exchange"] = None
    return out


def _rules(room) -> dict[str, Any]:
    if room.table is None or room.game == "doudizhu":
        return dict(room.settings["rules"])
    rules = room.table.rules
    from .daifugo import switches

    return {name: getattr(rules, name) for name in switches(room.game)}
