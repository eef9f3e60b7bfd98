"""Shared pieces of the table server tests: an app on a temporary database, a real uvicorn on
a loopback port, seeded bots, and the privacy watcher that inspects every message sent."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time

from climbrl.envs.core.bits import iter_bits
from climbrl.play.server import app as app_module
from climbrl.play.server.client import TableClient
from climbrl.play.server.guard import http_protocol

FAST = {"rate": 10_000, "burst": 10_000, "cpu_backend": "thread"}


def random_chooser(seed: int):
    rng = random.Random(seed)
    return lambda state: rng.choice(state["moves"])["action"]


def make_app(tmp_path, grace_s: float = 0.3, **kwargs):
    return app_module.create_app(str(tmp_path / "tables.db"), grace_s=grace_s, **{**FAST, **kwargs})


@contextlib.contextmanager
def live_server(tmp_path, grace_s: float = 0.3, **kwargs):
    """A real uvicorn serving the app on a free loopback port, in a thread; yields the ws URL
    and the app."""
    import uvicorn

    app = make_app(tmp_path, grace_s, **kwargs)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                            ws_max_size=1 << 16, http=http_protocol(app.state.server.header_timeout_s))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"ws://127.0.0.1:{port}/ws", app
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def connect(url: str) -> TableClient:
    return TableClient.connect(url, timeout=30)


# -- privacy -----------------------------------------------------------------------------------


def card_ids(message) -> set[int]:
    """Every card id a message names: card objects anywhere, and id lists under ``cards`` /
    ``playable``."""
    found: set[int] = set()

    def walk(x, key=None):
        if isinstance(x, dict):
            if {"id", "text", "rank", "suit"} <= x.keys():
                found.add(x["id"])
                return
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            if key in ("cards", "playable") and all(isinstance(v, int) for v in x):
                found.update(x)
            else:
                for v in x:
                    walk(v, key)

    walk(message)
    return found


def this_deal(message):
    """The message without the events before a new deal in it (their card ids name cards of
    the previous deal, which the new deal has dealt anew)."""
    events = message.get("events")
    if not events:
        return message
    starts = [i for i, e in enumerate(events) if e.get("type") == "start"]
    if not starts:
        return message
    return {**message, "events": events[starts[-1]:]}


def strings(message) -> set[str]:
    out: set[str] = set()

    def walk(x):
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(message)
    return out


def hidden_from(room, viewer: int | None) -> tuple[set[int], set[str]]:
    """The cards ``viewer`` (None: nobody's hand is shown) may not see now, and the secret
    deal codes."""
    table = room.table
    if table is None:
        return set(), set()
    st = table.state
    hidden: set[int] = set()
    if room.game == "doudizhu":
        if not st.terminal:
            kitty = set(table.kitty_ids) if st.landlord >= 0 else set()
            for seat in range(room.players):
                if seat != viewer and not (st.shown and seat == st.landlord):  # open hand
                    hidden |= set(table.held[seat]) - kitty
        codes = set() if st.terminal else {st.deal_code}
        return hidden, codes
    known = st.gave[viewer] if viewer is not None else 0
    for seat in range(room.players):
        if seat != viewer:
            hidden |= set(iter_bits(st.hands[seat] & ~known))
    codes = set() if st.terminal else set(table.deal_codes) | {st.deal_code}
    return hidden, codes


class PrivacyWatch:
    """Patches ``Connection.send`` to check every message against the room at that moment."""

    def __init__(self, monkeypatch):
        self.messages = 0
        self.violations: list[str] = []
        real = app_module.Connection.send
        watch = self

        def send(conn, message):
            room = conn.room
            if room is not None:
                if message.get("type") == "state":
                    viewer = message["seat"]
                elif room.mode == "local":
                    viewer = conn.revealed
                else:
                    viewer = conn.seats[0] if conn.seats else None
                hidden, codes = hidden_from(room, viewer)
                leaked = card_ids(this_deal(message)) & hidden
                if leaked:
                    watch.violations.append(f"{message.get('type')} to seat {viewer} names hidden cards {sorted(leaked)}")
                if strings(message) & codes:
                    watch.violations.append(f"{message.get('type')} to seat {viewer} carries a deal code")
                watch.messages += 1
            return real(conn, message)

        monkeypatch.setattr(app_module.Connection, "send", send)
