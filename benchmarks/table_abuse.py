"""Abusive clients of the table server that stay inside its documented limits, run beside the
load benchmark's rooms (``python -m climbrl.benchmarks.table --abuse``), in a process of
their own so that their work does not slow the measuring bots:

  * ``settings`` and ``hint`` spam: :data:`SPAMMERS` connections, each in a 4-player Dou Dizhu
    room of its own (the heaviest frames), play until a turn of theirs with at least
    :data:`CAMP_MOVES` legal moves (or any turn after :data:`CAMP_AFTER_S`), then stop moving
    and send ``settings`` (answered with a full state frame, the whole list of moves) and
    ``hint`` in turn, one every ``1 / (0.9 * rate)`` seconds (just under
    :data:`~climbrl.play.server.protocol.RATE_PER_S`);
  * room-creation spam: :data:`CREATORS` connections send ``create`` at the rate limit, each a
    room of its own rules (``friends`` mode: no CPU, which admission control would refuse);
  * slow-header HTTP clients: :data:`SLOW_SOCKETS` sockets send one header line every
    :data:`SLOW_HEADER_S` seconds and never finish the request;
  * idle WebSockets: :data:`IDLE_SOCKETS` connect, read the ``hello`` and send nothing.

Addresses (:class:`Addresses`): each kind is one client of its own, connecting from
127.0.9.x: the spammers share one address (so one work budget), the creators another (so one
``--rooms-per-client``), the idle WebSockets come from as many addresses as the default
``--connections-per-client`` needs; with ``addressed=False`` everything comes from 127.0.0.1
(the old way, the server's caps raised).

:func:`run_abusers` runs them (all, or the :data:`KINDS` asked for) until told to stop and
returns what happened to them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import Any

from climbrl.play.server.app import DEFAULT_CONNECTIONS_PER_CLIENT
from climbrl.play.server.protocol import RATE_PER_S

KINDS = ("spam", "create", "slow", "idle")
"""settings/hint spam, room-creation spam, slow-header HTTP clients, idle WebSockets"""
SPAMMERS = 4
CREATORS = 5
SLOW_SOCKETS = 200
IDLE_SOCKETS = 300
SPAM_SHARE = 0.9
"""the spammers send this share of the rate limit"""
SLOW_HEADER_S = 4.0
"""a slow client sends one header line this often"""
CAMP_MOVES = 100
"""a spammer stops moving on a turn with at least this many legal moves"""
CAMP_AFTER_S = 15.0
"""...or on any turn once it has played this long"""
MAX_FRAME = 1 << 24
RETRY_S = 1.0
"""a spammer refused its room (the CPUs busy) asks again this often"""
STOP_GRACE_S = SLOW_HEADER_S + 2.0
"""how long the clients have to stop once told"""
CONNECT_TIMEOUT_S = 30.0
HEAD_START_S = 15.0
"""the room creators wait this long at most for the spammers to have their rooms: they share
one address, and so one ``--rooms-per-client`` cap, which the creators would use up first"""
SPAM_GAME = {"game": "doudizhu", "players": 4, "mode": "cpu", "pace_ms": 0}
ABUSER_NET = "127.0.9."
SPAM_HOST, CREATE_HOST, SLOW_HOST, FIRST_IDLE_HOST = 1, 2, 3, 10
"""the last byte of each kind's address (the idle sockets' first; they take the next ones)"""


class Addresses:
    """Where each abuser connects from: an address of 127.0.9.x per kind (``addressed``), or
    None for all (127.0.0.1)."""

    def __init__(self, addressed: bool = True):
        self.addressed = addressed

    def _host(self, last: int) -> dict[str, Any]:
        return {"local_addr": (f"{ABUSER_NET}{last}", 0)} if self.addressed else {}

    def spam(self) -> dict[str, Any]:
        return self._host(SPAM_HOST)

    def create(self) -> dict[str, Any]:
        return self._host(CREATE_HOST)

    def slow(self) -> dict[str, Any]:
        return self._host(SLOW_HOST)

    def idle(self, i: int) -> dict[str, Any]:
        """The ``i``-th idle socket's: at most the default connections per address."""
        return self._host(FIRST_IDLE_HOST + i // DEFAULT_CONNECTIONS_PER_CLIENT)


class AbuseStats:
    """What the abusers sent and got back."""

    def __init__(self):
        self.sent: Counter[str] = Counter()
        self.answers: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.frame_bytes = 0
        self.biggest_moves = 0
        self.closed_by_server: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.slow_open = 0
        self.idle_open = 0

    def as_dict(self) -> dict[str, Any]:
        return {"sent": dict(self.sent), "answers": dict(self.answers), "errors": dict(self.errors),
                "frame_mb": self.frame_bytes / 1e6, "biggest_moves": self.biggest_moves,
                "closed_by_server": dict(self.closed_by_server), "failed": dict(self.failed),
                "slow_open": self.slow_open, "idle_open": self.idle_open}


def _count(stats: AbuseStats, who: str, msg: dict[str, Any], size: int) -> None:
    kind = msg.get("type")
    stats.answers[f"{who}:{kind}"] += 1
    if kind == "error":
        stats.errors[f"{who}:{msg.get('code')}"] += 1
    if kind == "state":
        stats.frame_bytes += size
        stats.biggest_moves = max(stats.biggest_moves, len(msg.get("moves") or ()))


async def _paced(interval: float, stop: asyncio.Event, step) -> None:
    """Calls ``step()`` every ``interval`` seconds on a fixed schedule until ``stop``."""
    due = time.monotonic()
    while not stop.is_set():
        await step()
        due += interval
        delay = due - time.monotonic()
        if delay > 0:
            try:
                await asyncio.wait_for(stop.wait(), delay)
            except asyncio.TimeoutError:
                pass
        else:  # fell behind: no catching up in a burst
            due = time.monotonic()


async def spammer(url: str, seed: int, level: str, stop: asyncio.Event, stats: AbuseStats,
                  seated: asyncio.Semaphore | None = None, where: dict[str, Any] | None = None) -> None:
    """``settings`` and ``hint`` just under the rate limit from a 4-player Dou Dizhu room (a
    ``create`` refused as ``busy`` is asked again every :data:`RETRY_S`); ``seated`` is
    released once it has its room."""
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    who = "spam"
    async with connect(url, max_size=MAX_FRAME, open_timeout=CONNECT_TIMEOUT_S, **(where or {})) as ws:
        await ws.recv()  # hello
        state: dict[str, Any] = {}
        start = time.monotonic()
        asked = {"hint": 0, "settings": 0}
        room = [None]
        create = {"waiting": False, "refused_at": -RETRY_S}

        async def read() -> None:
            async for raw in ws:
                msg = json.loads(raw)
                _count(stats, who, msg, len(raw))
                if msg.get("type") == "joined":
                    room[0] = msg["room"]
                    create["waiting"] = False
                    if seated is not None:
                        seated.release()
                if msg.get("type") == "error" and msg.get("re") == "create":
                    create.update(waiting=False, refused_at=time.monotonic())
                if msg.get("type") == "state":
                    state.update(msg)

        reader = asyncio.create_task(read())
        counter = [False]
        acted = [-1]

        def choose() -> dict[str, Any] | None:
            if room[0] is None:
                if create["waiting"] or time.monotonic() - create["refused_at"] < RETRY_S:
                    return None
                create["waiting"] = True
                return {"type": "create", "id": "create", "level": level, "rounds": 1, **SPAM_GAME}
            mine = state.get("your_turn") and state.get("moves")
            camping = mine and (len(state["moves"]) >= CAMP_MOVES or time.monotonic() - start >= CAMP_AFTER_S)
            fresh = state.get("v") != acted[0]
            if fresh and (state.get("match") or {}).get("over") or fresh and state.get("result") and state.get("turn") is None:
                acted[0] = state["v"]
                return {"type": "next"}
            if mine and not camping and fresh:
                acted[0] = state["v"]
                return {"type": "move", "action": rng.choice(state["moves"])["action"], "v": state["v"]}
            if not camping:  # a settings op bumps the version, and the room's CPUs think again
                return None
            if asked["hint"] <= asked["settings"]:
                asked["hint"] += 1
                return {"type": "hint"}
            asked["settings"] += 1
            counter[0] = not counter[0]
            return {"type": "settings", "counter": counter[0]}

        async def step() -> None:
            if reader.done():
                stop_reason = "closed" if reader.exception() is None else type(reader.exception()).__name__
                stats.closed_by_server[f"{who}:{stop_reason}"] += 1
                raise _Done
            message = choose()
            if message is not None:
                stats.sent[f"{who}:{message['type']}"] += 1
                await ws.send(json.dumps(message))

        try:
            await _paced(1.0 / (SPAM_SHARE * RATE_PER_S), stop, step)
        except _Done:
            pass
        finally:
            reader.cancel()


def _rules(options: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random choice of every rule of a game (the ``hello``'s ``games``)."""
    out = {}
    for rule in options:
        choices = rule.get("choices") or [True, False]
        out[rule["name"]] = rng.choice(choices)
    return out


async def creator(url: str, seed: int, stop: asyncio.Event, stats: AbuseStats,
                  head_start=None, where: dict[str, Any] | None = None) -> None:
    """``create`` at the rate limit, every room with rules of its own: the next as soon as
    the last is answered (``joined`` or an ``error``) and the rate allows, so what the server
    has not read yet never piles up. ``head_start``: awaited first (the spammers' rooms)."""
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    who = "create"
    async with connect(url, max_size=MAX_FRAME, open_timeout=CONNECT_TIMEOUT_S, **(where or {})) as ws:
        games = json.loads(await ws.recv())["games"]
        if head_start is not None:  # connected first: the idle sockets take the others
            await head_start
        names = sorted(games)
        answered = asyncio.Event()
        answered.set()

        async def read() -> None:
            async for raw in ws:
                msg = json.loads(raw)
                _count(stats, who, msg, len(raw))
                if msg.get("type") in ("joined", "error"):
                    answered.set()

        reader = asyncio.create_task(read())

        async def step() -> None:
            waiting = [asyncio.create_task(answered.wait()), asyncio.create_task(stop.wait())]
            await asyncio.wait([*waiting, reader], return_when=asyncio.FIRST_COMPLETED)
            for task in waiting:
                task.cancel()
            if reader.done():
                stats.closed_by_server[who] += 1
                raise _Done
            if stop.is_set():
                return
            answered.clear()
            game = rng.choice(names)
            options = games[game]
            stats.sent[f"{who}:create"] += 1
            await ws.send(json.dumps({"type": "create", "game": game, "mode": "friends",
                                      "players": rng.choice(options["players"]),
                                      "rounds": rng.choice(options["rounds"]),
                                      "rules": _rules(options["rules"], rng)}))

        try:
            await _paced(1.0 / RATE_PER_S, stop, step)
        except _Done:
            pass
        finally:
            reader.cancel()


async def slow_headers(port: int, n: int, stop: asyncio.Event, stats: AbuseStats,
                       where: dict[str, Any] | None = None) -> None:
    """An HTTP request whose headers never end: a line every :data:`SLOW_HEADER_S` seconds."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, **(where or {})),
                                                CONNECT_TIMEOUT_S)
    except (OSError, asyncio.TimeoutError) as err:
        stats.failed[f"slow:{type(err).__name__}"] += 1
        return
    writer.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
    line = 0
    try:
        while not stop.is_set():
            try:
                data = await asyncio.wait_for(reader.read(1024), SLOW_HEADER_S)
            except asyncio.TimeoutError:
                line += 1
                writer.write(f"X-Slow-{n}-{line}: {'x' * 16}\r\n".encode())
                await writer.drain()
                continue
            stats.closed_by_server["slow" if not data else "slow:answered"] += 1
            return
        stats.slow_open += 1
    except OSError:
        stats.closed_by_server["slow"] += 1
    finally:
        writer.close()


async def idle_socket(url: str, stop: asyncio.Event, stats: AbuseStats,
                      where: dict[str, Any] | None = None) -> None:
    """A WebSocket that reads the ``hello`` and then sends nothing (it answers the server's
    pings, as a browser does)."""
    from websockets.asyncio.client import connect

    try:
        async with connect(url, ping_interval=None, open_timeout=CONNECT_TIMEOUT_S, **(where or {})) as ws:
            await ws.recv()
            closed = asyncio.create_task(ws.wait_closed())
            await asyncio.wait([closed, asyncio.create_task(stop.wait())],
                               return_when=asyncio.FIRST_COMPLETED)
            if closed.done():
                stats.closed_by_server["idle"] += 1
            else:
                stats.idle_open += 1
                closed.cancel()
    except Exception as err:  # noqa: BLE001 - a refused or dropped connection is a figure
        stats.failed[f"idle:{type(err).__name__}"] += 1


class _Done(Exception):
    """A paced client's connection is gone."""


async def abuse(port: int, seed: int, level: str, stop: asyncio.Event, kinds=KINDS,
                addressed: bool = True) -> AbuseStats:
    """The abusive clients of ``kinds`` (:data:`KINDS`) at once until ``stop``, from the
    addresses of :class:`Addresses`; what happened to them."""
    url = f"ws://127.0.0.1:{port}/ws"
    at = Addresses(addressed)
    stats = AbuseStats()
    tasks = []
    seated = asyncio.Semaphore(0)

    async def spammers_seated() -> None:
        """Every spammer has its room (or :data:`HEAD_START_S` passed)."""
        async def all_seated():
            for _ in range(SPAMMERS):
                await seated.acquire()
        try:
            await asyncio.wait_for(all_seated(), HEAD_START_S)
        except asyncio.TimeoutError:
            pass

    head_start = asyncio.ensure_future(spammers_seated()) if "spam" in kinds else None
    if "spam" in kinds:
        tasks += [spammer(url, seed + i, level, stop, stats, seated, at.spam()) for i in range(SPAMMERS)]
    if "create" in kinds:
        tasks += [creator(url, seed + SPAMMERS + i, stop, stats, head_start, at.create())
                  for i in range(CREATORS)]
    if "slow" in kinds:
        tasks += [slow_headers(port, i, stop, stats, at.slow()) for i in range(SLOW_SOCKETS)]
    if "idle" in kinds:
        tasks += [idle_socket(url, stop, stats, at.idle(i)) for i in range(IDLE_SOCKETS)]
    running = [asyncio.create_task(t) for t in tasks]
    await stop.wait()
    done, pending = await asyncio.wait(running, timeout=STOP_GRACE_S)
    for t in pending:  # a send the server does not read, a close it does not answer
        t.cancel()
        stats.failed["still sending when stopped"] += 1
    for t in done:
        if t.exception() is not None:
            stats.failed[type(t.exception()).__name__] += 1
    return stats


def run_abusers(port: int, seed: int, level: str, kinds: tuple[str, ...], conn,
                addressed: bool = True) -> None:
    """The abusers' process: run until ``conn`` (a pipe) says stop, then send back the
    :class:`AbuseStats` as a dict, with the CPU time the abusers took (``cpu_s``: they share
    the machine with the server)."""

    async def main() -> AbuseStats:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(conn.fileno(), stop.set)
        try:
            return await abuse(port, seed, level, stop, kinds, addressed)
        finally:
            loop.remove_reader(conn.fileno())

    stats = asyncio.run(main())
    conn.recv()
    conn.send({**stats.as_dict(), "cpu_s": time.process_time()})
