"""The table server: a Starlette app with one WebSocket per client (``/ws``) and the page.

:class:`TableServer` holds the rooms, the store and the CPU pool; every client message is
parsed (:mod:`.protocol`), turned into room ops (:mod:`.rooms`), written to the store, and
answered with a ``state`` per connection (:mod:`.redact`). Everything that changes a room or
tells anyone about it holds the room's lock, so a room sees one change at a time and nobody
hears of an op before the store has committed it (:meth:`TableServer._execute`); when the
store refuses it, the room goes back to where it was and the mover gets ``store_failed``.
The store's SQLite calls run in its own thread (:class:`.store.Writer`) and CPU players think
in worker processes (:mod:`.cpu`), so neither holds up the event loop.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import re
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import protocol
from .cpu import DEFAULT_MAX_WAIT_S, DEFAULT_THINK_S, CpuPool
from .events import Event
from .guard import DEFAULT_HEADER_TIMEOUT_S, http_protocol
from .protocol import ProtocolError, error
from .redact import frame
from .rooms import (LEVELS, SEED_BITS, TABLE_GAMES, Room, RoomError, check_settings, game_options, new_room_id,
                    new_token, token_hash)
from .store import BUSY_TIMEOUT_S, Store, StoreError, Writer

log = logging.getLogger("climbrl.table")
STATIC = Path(__file__).resolve().parent.parent / "page"
"""the page's files (HTML, CSS, JavaScript), served under /static"""
ROOM_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
"""what a seat's token looks like (:func:`.rooms.new_token`); anything else holds no seat"""
DEFAULT_GRACE_S = 30.0
DEFAULT_ROOM_DAYS = 7.0
"""days a room nobody uses (no move, nobody joining or leaving) is kept; 0 keeps every room"""
SECONDS_PER_DAY = 86400.0
EXPIRY_CHECK_S = 3600.0
"""how often a running server drops the rooms unused for ``room_days``"""
DEFAULT_ROOMS_PER_CLIENT = 20
"""rooms one client (IP address) may create in :data:`ROOM_WINDOW_S`"""
ROOM_WINDOW_S = 3600.0
DEFAULT_MAX_ROOMS = 2000
"""rooms the server holds in all (its file, and the check at start-up, grow with them)"""
DEFAULT_UNLOAD_S = 300.0
"""a room nobody is connected to, where nothing has happened for this long, leaves memory (it
is rebuilt from the file when someone joins it); 0 keeps every room in memory"""
UNLOAD_CHECK_S = 10.0
"""how often a running server looks for such rooms (more often when ``unload_s`` is shorter)"""
DEFAULT_CONNECTIONS_PER_CLIENT = 32
"""WebSockets one client (IP address) may hold open at once"""
DEFAULT_IDLE_S = 120.0
"""a WebSocket that sends nothing for this long is closed (the page pings well within it)"""
DEFAULT_SEATS_PER_CLIENT = 1
"""seats one client (IP address) may take in a friends room by joining without a token"""
SWITCH_INTERVAL_S = 0.0005
"""how long a thread of the server holds the interpreter before another may run (Python's
default is 5 ms). An engine built in a thread (seconds for a four-player Dou Dizhu variant)
held the event loop up to that long after each of its socket writes, so every room's moves
took seconds while it was built; this lets the loop back in at once."""
CLOSING_S = 5.0
"""how long a connection closed by the server has to read what it was sent last"""
SEND_QUEUE = 256
POLICY_CLOSE = 1008
STORE_RETRY_S = 1.0
"""how long a CPU whose move the store refused waits before it tries again"""
PAGE_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
"""sent with every HTTP response: the page runs only its own files, in no other site's frame,
and a room link is never sent on as a referrer"""


def server_version() -> str:
    try:
        from importlib.metadata import version

        return f"climbrl {version('climbrl')}"
    except Exception:  # noqa: BLE001 - not installed: a source checkout
        return "climbrl"


def client_address(ws: WebSocket) -> str:
    """The client's IP address, what the per-client limits count by (uvicorn puts the one a
    proxy on this machine names in ``X-Forwarded-For`` there)."""
    return ws.client.host if ws.client is not None else ""


class Connection:
    """One WebSocket: the room it sits in, the seats it holds and its send queue."""

    def __init__(self, ws: WebSocket, rate: float, burst: int,
                 work: protocol.WorkBudget | None = None):
        self.ws = ws
        self.client = client_address(ws)
        self.work = work if work is not None else protocol.WorkBudget()
        """the work budget of the connection's client, shared by all its connections"""
        self.room: Room | None = None
        self.seats: list[int] = []
        self.revealed: int | None = None
        self.rate = protocol.RateLimit(rate, burst)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(SEND_QUEUE)
        self.closed = False
        self.hinting = False
        """a hint asked for on this connection is being worked out"""

    def close(self) -> None:
        """Close the socket once what was queued before has been sent."""
        if self.closed:
            return
        self.closed = True
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.queue = asyncio.Queue(1)
            self.queue.put_nowait(None)

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(json.dumps(message, separators=(",", ":")))
        except asyncio.QueueFull:
            log.warning("a connection stopped reading; closing it")
            self.closed = True
            self.queue = asyncio.Queue(1)
            self.queue.put_nowait(None)


class TableServer:
    def __init__(self, db: str | None = None, grace_s: float = DEFAULT_GRACE_S,
                 think_s: float = DEFAULT_THINK_S, workers: int = 2,
                 rate: float = protocol.RATE_PER_S, burst: int = protocol.BURST,
                 cpu_backend: str = "process", room_days: float = DEFAULT_ROOM_DAYS,
                 busy_timeout_s: float = BUSY_TIMEOUT_S,
                 cpu_wait_s: float = DEFAULT_MAX_WAIT_S,
                 allow_origins: tuple[str, ...] = (),
                 work_per_s: float = protocol.WORK_PER_S,
                 work_burst_s: float = protocol.WORK_BURST_S,
                 rooms_per_client: int = DEFAULT_ROOMS_PER_CLIENT,
                 max_rooms: int = DEFAULT_MAX_ROOMS,
                 connections_per_client: int = DEFAULT_CONNECTIONS_PER_CLIENT,
                 idle_s: float = DEFAULT_IDLE_S,
                 header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S,
                 seats_per_client: int = DEFAULT_SEATS_PER_CLIENT,
                 unload_s: float = DEFAULT_UNLOAD_S):
        if not room_days >= 0:
            raise ValueError(f"room_days must be 0 (keep every room) or more, got {room_days!r}")
        if not unload_s >= 0:
            raise ValueError(f"unload_s must be 0 (keep every room in memory) or more seconds, "
                             f"got {unload_s!r}")
        self.store = Store(db, busy_timeout_s)
        self.writer = Writer(self.store)
        self.room_days = room_days
        self.grace_s = grace_s
        self.allow_origins = {_origin(o) for o in allow_origins}
        self.rate = rate
        self.burst = burst
        self.work = (work_per_s, work_burst_s)
        self.rooms_per_client = rooms_per_client
        self.max_rooms = max_rooms
        self.connections_per_client = connections_per_client
        self.open: collections.Counter[str] = collections.Counter()
        """client address -> its WebSockets open now"""
        self.budgets: dict[str, protocol.WorkBudget] = {}
        """client address -> the work budget all its connections spend from (kept while it
        has a connection open or the budget has not refilled: reconnecting refills nothing)"""
        self.idle_s = idle_s
        self.seats_per_client = seats_per_client
        self.joined: dict[str, collections.Counter[str]] = {}
        """room id -> client address -> the seats it took by joining without a token (since
        this server started)"""
        self.header_timeout_s = header_timeout_s
        """read by :func:`run_app`: uvicorn closes a socket whose request headers take longer"""
        self.created: dict[str, collections.deque[float]] = {}
        """client address -> when it created its rooms of the last :data:`ROOM_WINDOW_S`"""
        self.pool = CpuPool(workers, think_s, cpu_backend, cpu_wait_s)
        self.held: set[str] = set()
        """the id of every room the server holds (in its file, not set aside), in memory or not"""
        self.rooms: dict[str, Room] = {}
        """the rooms in memory (:meth:`_load` brings one in, :meth:`unload_idle` takes it out)"""
        self.loading: dict[str, asyncio.Future] = {}
        """room id -> its replay from the file under way (a join and the start-up check share it)"""
        self.used: dict[str, float] = {}
        """room id (in memory) -> when something last happened in it (``time.monotonic()``)"""
        self.away_when_unloaded: dict[str, list[int]] = {}
        """room id (out of memory) -> the seats that were away when it left memory (who is
        away is no op, so the file does not know)"""
        self.unload_s = unload_s
        self.conns: dict[str, set[Connection]] = {}
        self.cpu_tasks: dict[str, asyncio.Task] = {}
        self.grace_tasks: dict[tuple[str, int], asyncio.Task] = {}
        self.hint_tasks: set[asyncio.Task] = set()
        self.locks: dict[str, asyncio.Lock] = {}
        self.restored = 0
        """rooms brought back into memory from the file"""
        self.set_aside = 0
        self._cpu_turn: asyncio.Lock | None = None
        self._checking: asyncio.Task | None = None

    # -- start and stop ----------------------------------------------------------------------

    async def restore(self) -> None:
        """Rooms unused for ``room_days`` are dropped, and the others are known by their ids:
        none is replayed yet, so the server listens at once. A room is rebuilt from its ops
        when someone first joins it (:meth:`_load`); meanwhile :meth:`check_stored` replays
        the others one at a time in the background, to set aside (in the file, logged with
        the reason) those that cannot be restored. Regression: every room was replayed before
        the server listened, a start-up that grew with the rooms (seconds for a thousand)."""
        await self.expire_rooms()
        self.held = set(await self.writer.call(self.store.room_ids))
        earlier = await self.writer.call(self.store.set_aside_rooms)
        log.info("%d rooms in the file, each restored when first joined; %d set aside earlier "
                 "(table set_aside)", len(self.held), len(earlier))

    async def check_stored(self) -> None:
        """Replay every stored room not in memory, one at a time (each in a thread), keeping
        none: a room that cannot be restored is set aside and logged now rather than when
        someone joins it. It starts once the usual engines are built, so that the joins of
        the first people back do not wait behind it."""
        prep = getattr(self, "_preparing", None)
        if prep is not None:
            await asyncio.wait([prep])
        checked = 0
        for room_id in sorted(self.held):
            if room_id in self.rooms:
                continue
            try:
                await self._load(room_id, install=False)
            except StoreError as err:
                log.error("checking room %s failed (it is checked when joined): %s", room_id, err)
            checked += 1
        log.info("checked %d stored rooms; %d set aside since the start", checked, self.set_aside)

    async def checked(self) -> None:
        """Wait for :meth:`check_stored` to be done."""
        if self._checking is not None:
            await asyncio.wait([self._checking])

    async def _load(self, room_id: str, install: bool = True) -> Room | None:
        """The room ``room_id`` in memory: replayed from the file unless it is there (one
        replay at a time per room, shared by whoever asks meanwhile); None when the server
        holds no such room or it cannot be restored (then set aside). ``install=False`` only
        replays it (the start-up check)."""
        room = self.rooms.get(room_id)
        if room is not None or room_id not in self.held:
            return room
        pending = self.loading.get(room_id)
        if pending is None:
            pending = self.loading[room_id] = asyncio.ensure_future(self._replay_stored(room_id))

            def done(future: asyncio.Future) -> None:
                if self.loading.get(room_id) is future:
                    del self.loading[room_id]

            pending.add_done_callback(done)
        room = await asyncio.shield(pending)
        if room is None or room_id not in self.held:  # set aside, or expired meanwhile
            return None
        if not install:
            return room
        if room_id not in self.rooms:  # the first of those who waited for it
            self._install(room)
        return self.rooms[room_id]

    async def _replay_stored(self, room_id: str) -> Room | None:
        stored = await self.writer.call(self.store.room, room_id)
        if stored is None:
            self.held.discard(room_id)
            return None
        try:
            return await asyncio.to_thread(_replay, room_id, *stored)
        except DamagedRoom as err:
            reason = str(err)
            log.error("room %s set aside, it cannot be restored: %s", room_id, reason)
            await self.writer.call(self.store.set_aside, room_id, reason)
            self.held.discard(room_id)
            self.set_aside += 1
            return None

    def _install(self, room: Room) -> None:
        """A room just replayed from the file takes its place: in a friends room the seats that
        were away when it left memory are away again; after a restart, its people get the
        grace to come back; its CPUs play on if it is their turn."""
        self.rooms[room.id] = room
        self.conns.setdefault(room.id, set())
        self.used[room.id] = time.monotonic()
        self.restored += 1
        away = self.away_when_unloaded.pop(room.id, None)
        if room.mode == "friends":
            for i, seat in enumerate(room.seats):
                if seat.kind != "human":
                    continue
                if away is None:
                    self._start_grace(room, i)
                else:
                    seat.away = i in away
        self.schedule_cpu(room)

    def unload_idle(self) -> list[str]:
        """Take out of memory the rooms nobody is connected to where nothing has happened for
        ``unload_s`` (no CPU to move, nobody's grace running, no op under way); returns their
        ids. Each stays in the file and comes back as it was when someone joins it.
        Regression: every room ever made or restored stayed in memory, its table, engine and
        hints with it."""
        if not self.unload_s:
            return []
        cutoff = time.monotonic() - self.unload_s
        gone = []
        for room_id, room in list(self.rooms.items()):
            lock = self.locks.get(room_id)
            if (self.used.get(room_id, cutoff) > cutoff or self.conns.get(room_id)
                    or room_id in self.cpu_tasks or (lock is not None and lock.locked())
                    or any((room_id, s) in self.grace_tasks for s in range(room.players))):
                continue
            away = [i for i, seat in enumerate(room.seats) if seat.away]
            if away:
                self.away_when_unloaded[room_id] = away
            for table in (self.rooms, self.conns, self.locks, self.used):
                table.pop(room_id, None)
            gone.append(room_id)
        if gone:
            log.info("%d rooms left memory (nothing happened in them for %g s)", len(gone),
                     self.unload_s)
        return gone

    async def _unload_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            self.unload_idle()

    async def startup(self) -> None:
        from .games import prepare_engines

        self._switch_interval = sys.getswitchinterval()  # given back at shutdown
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.pool.warm_up()
        await self.restore()
        # in the background: the usual tables' engines are built before the server is ready
        # (``/healthz``), and pinned, so none of their rooms builds one while rooms play
        # (Regression: the four-player Dou Dizhu engine was built by its first room, seconds
        # in a thread that held up every room's moves); rooms made meanwhile wait for them
        self._preparing = asyncio.gather(asyncio.to_thread(prepare_engines), self.pool.ready())
        self._preparing.add_done_callback(_logged("preparing the engines"))
        started = time.monotonic()

        def ready(future: asyncio.Future) -> None:
            if not future.cancelled() and future.exception() is None:
                log.info("ready: the usual engines built and the CPU workers started in %.1f s",
                         time.monotonic() - started)

        self._preparing.add_done_callback(ready)
        loop = asyncio.get_running_loop()
        self._checking = loop.create_task(self.check_stored())
        self._checking.add_done_callback(_logged("checking the stored rooms"))
        self._expiry = loop.create_task(self._expire_every(EXPIRY_CHECK_S))
        self._unloading = (loop.create_task(self._unload_every(min(self.unload_s, UNLOAD_CHECK_S)))
                           if self.unload_s else None)

    async def expire_rooms(self) -> list[str]:
        """Drop the rooms (from memory and the file) nobody has used for ``room_days``, none
        with a person connected now; returns their ids."""
        if not self.room_days:
            return []
        hour_ago = time.monotonic() - ROOM_WINDOW_S
        self.created = {c: t for c, t in self.created.items() if t and t[-1] > hour_ago}
        cutoff = time.time() - self.room_days * SECONDS_PER_DAY
        unused = await self.writer.call(self.store.unused_since, cutoff)
        gone = [r for r in unused if not self.conns.get(r)]
        for room_id in gone:
            self.held.discard(room_id)
            self.used.pop(room_id, None)
            self.away_when_unloaded.pop(room_id, None)
            self.rooms.pop(room_id, None)
            self.conns.pop(room_id, None)
            self.locks.pop(room_id, None)
            self.joined.pop(room_id, None)
            tasks = [self.cpu_tasks.pop(room_id, None)]
            tasks += [self.grace_tasks.pop(k) for k in list(self.grace_tasks) if k[0] == room_id]
            for task in filter(None, tasks):
                task.cancel()
        await self.writer.call(self.store.delete, gone)
        if gone:
            log.info("dropped %d rooms unused for %g days", len(gone), self.room_days)
        return gone

    async def _expire_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.expire_rooms()
            except StoreError as err:  # the next check tries again
                log.error("dropping unused rooms failed: %s", err)

    @property
    def ready(self) -> bool:
        """The default engines are built and the CPU workers have started."""
        prep = getattr(self, "_preparing", None)
        return prep is not None and prep.done()

    async def shutdown(self) -> None:
        prep = getattr(self, "_preparing", None)
        if prep is not None and not prep.done():
            prep.cancel()
        for name in ("_expiry", "_unloading", "_checking"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        for task in [*self.cpu_tasks.values(), *self.grace_tasks.values(), *self.hint_tasks]:
            task.cancel()
        self.pool.close()
        self.writer.close()
        if hasattr(self, "_switch_interval"):
            sys.setswitchinterval(self._switch_interval)

    # -- the socket ------------------------------------------------------------------------

    def origin_allowed(self, ws: WebSocket) -> bool:
        """A browser's socket comes from the page this server serves (its ``Origin`` names the
        ``Host`` it asked for) or from an origin allowed by ``--allow-origin``; a client that
        sends no ``Origin`` (no browser) is let in."""
        origin = ws.headers.get("origin")
        if origin is None:
            return True
        origin = _origin(origin)
        host = ws.headers.get("host", "").lower()
        return origin in self.allow_origins or origin.split("://", 1)[-1] == host

    async def websocket(self, ws: WebSocket) -> None:
        if not self.origin_allowed(ws):
            log.warning("refused a WebSocket from origin %s", ws.headers.get("origin"))
            await ws.close(POLICY_CLOSE)  # before the handshake: the browser gets HTTP 403
            return
        await ws.accept()
        client = client_address(ws)
        if self.open[client] >= self.connections_per_client:
            log.warning("refused a WebSocket: %d open from one address", self.open[client])
            await ws.send_text(json.dumps(error(
                "too_many_connections", f"this address has {self.open[client]} connections open, "
                "the most one may; close one first")))
            await ws.close(POLICY_CLOSE)
            return
        self.open[client] += 1
        budget = self.budgets.get(client)
        if budget is None:
            budget = self.budgets[client] = protocol.WorkBudget(*self.work)
        try:
            await self._serve_socket(ws, budget)
        finally:
            self.open[client] -= 1
            if not self.open[client]:
                del self.open[client]
                self._forget_budgets()

    def _forget_budgets(self) -> None:
        """Drop the work budgets of the clients with no connection open whose budget has
        refilled (the others are kept, so that reconnecting does not refill one)."""
        for client in [c for c, b in self.budgets.items() if c not in self.open and b.full]:
            del self.budgets[client]

    async def _serve_socket(self, ws: WebSocket, budget: protocol.WorkBudget) -> None:
        conn = Connection(ws, self.rate, self.burst, budget)
        writer = asyncio.create_task(self._writer(conn))
        conn.send({"type": "hello", "protocol": protocol.VERSION, "server": server_version(),
                   "limits": {"max_message_bytes": protocol.MAX_MESSAGE_BYTES,
                              "rate_per_s": self.rate, "burst": self.burst, "idle_s": self.idle_s},
                   "modes": ["cpu", "local", "friends"], "levels": list(LEVELS),
                   "grace_s": self.grace_s, "games": game_options()})
        try:
            while not conn.closed:
                try:
                    message = await asyncio.wait_for(ws.receive(), self.idle_s)
                except asyncio.TimeoutError:
                    conn.send(error("idle", f"nothing was sent for {self.idle_s:g} s; the "
                                    "connection is closed (ping keeps it open)"))
                    conn.close()  # the writer sends the error, then closes the socket
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(writer, CLOSING_S)
                    break
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                if not conn.rate.allow():
                    conn.send(error("rate_limited", "too many messages; slow down"))
                    if conn.rate.abusive:
                        await ws.close(POLICY_CLOSE)
                        break
                    continue
                await self.handle(conn, raw)
        except WebSocketDisconnect:
            pass
        finally:
            conn.closed = True
            writer.cancel()
            if conn.room is not None:
                async with self._lock(conn.room):
                    self._detach(conn)

    async def _writer(self, conn: Connection) -> None:
        try:
            while True:
                text = await conn.queue.get()
                if text is None:
                    await conn.ws.close(POLICY_CLOSE)
                    return
                await conn.ws.send_text(text)
        except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
            pass
        except Exception:  # noqa: BLE001 - a dead socket; the reader ends the connection
            pass

    async def handle(self, conn: Connection, raw: str | bytes) -> None:
        """Answer one message, holding the locks of the rooms it concerns."""
        re_id = None
        try:
            msg = protocol.parse(raw)
            re_id = msg.get("id")
            if msg["type"] in protocol.BUDGETED and not conn.work.allow():
                raise RoomError("busy", "your requests cost the server too much at once; wait a "
                                "moment")
            handler = getattr(self, f"on_{msg['type']}")
            if msg["type"] == "join" and ROOM_ID.match(msg["room"]):
                await self._load(msg["room"])  # out of memory: replayed from the file first
            async with contextlib.AsyncExitStack() as held:
                for room in self._rooms_of(conn, msg):
                    await held.enter_async_context(self._lock(room))
                done = handler(conn, msg)
                if asyncio.iscoroutine(done):
                    await done
        except ProtocolError as err:
            conn.send(error(err.code, str(err), err.re))
        except RoomError as err:
            conn.send(error(err.code, str(err), re_id))
        except StoreError as err:
            conn.send(_store_failed(err, re_id))

    def _rooms_of(self, conn: Connection, msg: dict[str, Any]) -> list[Room]:
        """The rooms a message may change or tell about: the connection's, and the one it
        joins; in one order (by id), so two connections never wait on each other."""
        rooms = {} if conn.room is None else {conn.room.id: conn.room}
        if msg["type"] == "join" and isinstance(msg.get("room"), str):
            room = self.rooms.get(msg["room"])
            if room is not None:
                rooms[room.id] = room
        return [rooms[k] for k in sorted(rooms)]

    def _lock(self, room: Room) -> asyncio.Lock:
        lock = self.locks.get(room.id)
        if lock is None:
            lock = self.locks[room.id] = asyncio.Lock()
        return lock

    # -- messages --------------------------------------------------------------------------

    def on_ping(self, conn, msg) -> None:
        conn.send(_reply({"type": "pong"}, msg))

    def _admit_room(self, conn: Connection) -> collections.deque[float]:
        """Refuse a new room past ``max_rooms`` in all or ``rooms_per_client`` created by the
        connection's client in the last hour (``too_many_rooms``); returns that client's log."""
        if len(self.held) >= self.max_rooms:
            raise RoomError("too_many_rooms", f"the server holds its most rooms ({self.max_rooms}); "
                            "try again later")
        stamps = self.created.setdefault(conn.client, collections.deque())
        cutoff = time.monotonic() - ROOM_WINDOW_S
        while stamps and stamps[0] < cutoff:
            stamps.popleft()
        if len(stamps) >= self.rooms_per_client:
            raise RoomError("too_many_rooms", f"you made {len(stamps)} rooms in the last hour, the most "
                            f"one address may; try again in {stamps[0] - cutoff:.0f} s")
        return stamps

    async def on_create(self, conn, msg) -> None:
        settings = check_settings(msg)
        self._admit_room(conn)
        if settings["mode"] != "friends" or settings["fill"]:  # it starts at once
            await self._prepared()
            await self._build_engine(settings)
        if settings["mode"] == "cpu" or settings["fill"]:
            self._admit_cpus()  # after the wait, as the room is made
        made = self._admit_room(conn)  # again: others made rooms meanwhile
        room_id = new_room_id()
        seed = secrets.randbits(SEED_BITS)
        token = new_token()
        room = Room(room_id, settings, seed)
        ops = Room.opening_ops(settings, token)
        for op in ops:
            room.execute(op)
        await self.writer.call(self.store.create_room, room_id, settings, seed, ops)
        made.append(time.monotonic())
        self.held.add(room_id)
        self.rooms[room_id] = room
        self.conns[room_id] = set()
        self.used[room_id] = time.monotonic()
        self._attach(conn, room, room.seats_of(token), token, msg, creator=True)
        self.schedule_cpu(room)

    async def _prepared(self) -> None:
        """Wait (on the event loop) until the usual engines are built, at start-up: a room
        whose match starts meanwhile is made once they are, finding its engine built if it
        is a usual one, and building another variant's only then (not beside them, each
        taking the interpreter from the rooms in play)."""
        prep = getattr(self, "_preparing", None)
        if prep is not None and not prep.done():
            await asyncio.wait([prep])

    @staticmethod
    async def _build_engine(settings: dict[str, Any]) -> None:
        """Build (or find built) the engine of a room about to start its match: the first room
        of a variant builds it (a second for some), in a thread, so the other rooms keep
        moving. A friends room builds it when its last seat is taken. Regression: every room
        built its engine when made, and a client making rooms it never played, each of other
        rules, filled the server's memory with engines."""
        await asyncio.to_thread(TABLE_GAMES[settings["game"]].build_engine, settings["players"],
                                settings["rounds"], settings["rules"])

    async def _starting(self, room: Room, empty_after: int) -> None:
        """The engine built before an op that leaves ``empty_after`` seats empty in a room
        whose match has not started (the op then starts it)."""
        if room.table is None and empty_after == 0:
            await self._prepared()
            await self._build_engine(room.settings)

    async def on_join(self, conn, msg) -> None:
        room_id = msg["room"]
        room = self.rooms.get(room_id) if ROOM_ID.match(room_id) else None
        if room is None:
            raise RoomError("no_room", "there is no such room")
        token = msg.get("token")
        if token is not None:
            seats = room.seats_of(token) if TOKEN.match(token) else []
            if not seats:
                raise RoomError("bad_token", "that token holds no seat in this room")
            self._replace(room, seats, conn)
            self._attach(conn, room, seats, token, msg, creator=0 in seats)
            return
        if conn.room is room and conn.seats:
            raise RoomError("already_seated", "this connection already holds a seat in this room; "
                            "the room's creator fills the others")
        if room.mode != "friends":
            raise RoomError("room_full", "this room takes no more people")
        seat = room.free_seat()
        if seat is None:
            raise RoomError("room_full", "every seat of this room is taken")
        taken = self.joined.setdefault(room.id, collections.Counter())
        if taken[conn.client] >= self.seats_per_client:
            raise RoomError("already_seated", f"this address has taken {taken[conn.client]} seat(s) "
                            "of this room, the most one may; the others are for other people")
        token = new_token()
        name = msg.get("name")
        from .rooms import clean_name

        await self._starting(room, sum(s.kind == "empty" for s in room.seats) - 1)
        await self._execute(room, {"op": "sit", "seat": seat, "token": token_hash(token),
                                   "name": clean_name(name, f"Player {seat + 1}")})
        taken[conn.client] += 1
        self._attach(conn, room, [seat], token, msg, creator=False)

    async def on_fill(self, conn, msg) -> None:
        room = self._room(conn)
        if room.mode != "friends" or 0 not in conn.seats:
            raise RoomError("not_allowed", "only the creator of a friends room fills seats")
        level = msg.get("level") or room.settings["level"]
        if level not in LEVELS:
            raise RoomError("bad_message", f"level must be one of {list(LEVELS)}, got {level!r}")
        self._admit_cpus()
        await self._starting(room, 0)
        await self._execute(room, {"op": "fill", "level": level}, origin=(conn, msg))

    async def on_move(self, conn, msg) -> None:
        room = self._room(conn)
        seat = self._acting_seat(conn, room, msg)
        if msg.get("v") is not None and msg["v"] != room.v:
            raise RoomError("stale", f"the table changed (version {room.v}, the move was for {msg['v']})")
        if room.turn != seat:
            raise RoomError("not_your_turn", "it is not your turn")
        op = {"op": "move", "seat": seat, "action": msg["action"]}
        if msg.get("cards") is not None and TABLE_GAMES[room.game].move_cards:
            op["cards"] = sorted(msg["cards"])
        await self._execute(room, op, origin=(conn, msg))

    def on_check(self, conn, msg) -> None:
        room = self._room(conn)
        seat = self._acting_seat(conn, room, msg)
        if room.table is None:
            raise RoomError("not_allowed", "the match has not started")
        started = time.thread_time()
        conn.send(_reply({"type": "checked", **room.table.check(seat, msg["cards"])}, msg))
        conn.work.spend(time.thread_time() - started)

    def on_hint(self, conn, msg) -> None:
        room = self._room(conn)
        seat = self._acting_seat(conn, room, msg)
        if room.table is None or room.turn != seat:
            raise RoomError("no_hint", "a hint is for the seat to move")
        if conn.hinting:  # its cost is known only once it is done: one at a time
            raise RoomError("busy", "a hint is being worked out for you; wait for it")
        conn.hinting = True
        # the position is read now, under the room's lock: a move right behind the hint must
        # not change what the hint is worked out for
        table = room.table
        work = (table, room.v, table.observation(seat), table.view(seat))
        task = asyncio.get_running_loop().create_task(self._hint(conn, room, seat, msg, work))
        self.hint_tasks.add(task)
        task.add_done_callback(self.hint_tasks.discard)

    async def _hint(self, conn, room: Room, seat: int, msg, work) -> None:
        """Work out a hint in a thread (ranking a big Dou Dizhu hand can take a few tenths of
        a second), then answer it if the table has not moved meanwhile. Every hint is
        answered: a hint, ``stale``, or ``store_failed``."""
        table, v, observation, view = work
        spent = [0.0]

        def work_out() -> tuple[int, int, int]:
            started = time.thread_time()
            try:
                return room.hint_ranker(seat).next_counted(observation, view)
            finally:
                spent[0] = time.thread_time() - started

        try:
            action, index, total = await asyncio.to_thread(work_out)
        except Exception:  # noqa: BLE001 - the ranker failed: the table moved under it
            log.exception("a hint failed")
            action = None
        finally:
            conn.hinting = False
        conn.work.spend(spent[0])
        async with self._lock(room):
            if (action is None or room.v != v or room.table is not table or room.turn != seat
                    or self.rooms.get(room.id) is not room):
                conn.send(error("stale", "the table changed while the hint was worked out", msg.get("id")))
                return
            if TABLE_GAMES[room.game].deals:  # the result card counts the hints (no frame:
                try:                               # the next one carries the count)
                    await self._execute(room, {"op": "hint", "seat": seat}, broadcast=False)
                except StoreError as err:
                    conn.send(_store_failed(err, msg.get("id")))
                    return
            reply = {"type": "hint", "action": action, "text": table.cat.action_to_str(action),
                     "label": table.label(action), "name": table.move_name(action),
                     "cards": _move_cards(table, seat, action),
                     "index": index % total, "of": total}
            if TABLE_GAMES[room.game].deals:
                reply["hints_used"] = table.hints_used
            conn.send(_reply(reply, msg))

    async def on_undo(self, conn, msg) -> None:
        room = self._room(conn)
        seat = self._acting_seat(conn, room, msg)
        await self._execute(room, {"op": "undo", "seat": seat}, origin=(conn, msg))

    def on_reveal(self, conn, msg) -> None:
        room = self._room(conn)
        seat = msg["seat"]
        if room.mode != "local" or seat not in conn.seats:
            raise RoomError("not_allowed", "reveal is for the seats of a room on one device")
        if room.turn != seat:
            raise RoomError("not_allowed", f"it is not seat {seat}'s decision")
        conn.revealed = seat
        conn.send(_reply(self._own_frame(conn, room), msg))

    async def on_settings(self, conn, msg) -> None:
        room = self._room(conn)
        changed = [s for s in conn.seats if room.seats[s].counter != msg["counter"]]
        if not changed:  # nothing to store, nothing new to show
            if msg.get("id") is not None:
                conn.send(_reply({"type": "settings", "counter": msg["counter"]}, msg))
            return
        for seat in changed:
            await self._execute(room, {"op": "counter", "seat": seat, "on": msg["counter"]}, broadcast=False)
        conn.send(_reply(self._own_frame(conn, room), msg))

    async def on_next(self, conn, msg) -> None:
        room = self._room(conn)
        await self._execute(room, {"op": "next"}, origin=(conn, msg))

    async def on_replay(self, conn, msg) -> None:
        room = self._room(conn)
        await self._execute(room, {"op": "replay"}, origin=(conn, msg))

    def on_leave(self, conn, msg) -> None:
        room = self._room(conn)
        seats = conn.seats
        self._detach(conn)
        if room.mode == "friends":
            for s in seats:
                if not self._held(room, s):
                    self._set_away(room, s, True)

    # -- internals -------------------------------------------------------------------------

    def _room(self, conn) -> Room:
        if conn.room is None:
            raise RoomError("not_joined", "create or join a room first")
        return conn.room

    def _acting_seat(self, conn, room, msg) -> int:
        seat = msg.get("seat")
        if seat is None:
            seat = conn.revealed if room.mode == "local" else (conn.seats[0] if conn.seats else None)
        if seat is None or seat not in conn.seats:
            raise RoomError("not_allowed", "that is not your seat" if seat is not None
                            else "lift the curtain first (reveal)")
        if room.mode == "local" and seat != conn.revealed:
            raise RoomError("not_allowed", "lift the curtain first (reveal)")
        return seat

    async def _execute(self, room: Room, op: dict[str, Any], broadcast: bool = True,
                       origin: tuple[Connection, dict] | None = None) -> None:
        """Apply ``op`` (:class:`RoomError`: nothing changed), commit it to the store, and only
        then tell the room's connections. The caller holds the room's lock, so nobody hears of
        the op before the commit. When the store refuses it (:class:`StoreError`) the room is
        rewound to its last stored op, and nobody has heard of it."""
        if self.rooms.get(room.id) is not room:  # it left memory (or the server) meanwhile
            raise RoomError("no_room", "this room is no longer open here; join it again")
        events = room.execute(op)
        self.used[room.id] = time.monotonic()
        try:
            await self.writer.call(self.store.append, room.id, op)
        except StoreError:
            room.rewind()
            raise
        if broadcast:
            self.broadcast(room, events, origin)
        self.schedule_cpu(room)

    def broadcast(self, room: Room, events: list[Event],
                  origin: tuple[Connection, dict] | None = None) -> None:
        """A ``state`` to every connection of the room; the one whose request caused it gets
        the request's ``id`` back as ``re``."""
        for conn in self.conns.get(room.id, ()):
            if room.mode == "local" and conn.revealed is not None and conn.revealed != room.turn:
                conn.revealed = None
            message = frame(room, conn.seats, conn.revealed, events)
            if origin is not None and origin[0] is conn:
                _reply(message, origin[1])
            conn.send(message)

    def _attach(self, conn, room: Room, seats: list[int], token: str, msg, creator: bool) -> None:
        if conn.room is not None:
            self._detach(conn)
        self.used[room.id] = time.monotonic()
        self.writer.touch_later(room.id)
        changed = []
        for s in seats:
            seat = room.seats[s]
            task = self.grace_tasks.pop((room.id, s), None)
            if task is not None:
                task.cancel()
            if not seat.connected or seat.away:
                seat.connected = True
                seat.away = False
                changed.append(s)
        if changed:
            self.broadcast(room, [Event({"type": "seat", **room.seat_event(s)}) for s in changed])
        conn.room = room
        conn.seats = seats
        conn.revealed = None
        self.conns[room.id].add(conn)
        conn.send(_reply({"type": "joined", "room": room.id, "link": f"/r/{room.id}",
                          "mode": room.mode, "seats": seats, "token": token, "creator": creator}, msg))
        conn.send(_reply(self._own_frame(conn, room), msg))
        self.schedule_cpu(room)

    def _admit_cpus(self) -> None:
        """Refuse new CPU seats while a CPU move would wait for a worker past ``cpu_wait_s``
        behind the CPUs to move now in every room (those of rooms just made included, before
        they ask): the tables already playing keep their CPUs' pace and level."""
        levels = [who[1] for room_id in self.cpu_tasks
                  if (room := self.rooms.get(room_id)) is not None and (who := room.cpu_to_move())]
        if self.pool.busy(levels):
            raise RoomError("busy", f"the computer players are busy (a CPU move waits about "
                                    f"{self.pool.wait_s(levels):.0f} s now); try again in a minute")

    def _own_frame(self, conn: Connection, room: Room) -> dict[str, Any]:
        """The ``state`` a connection asked for (joining, lifting the curtain, a setting); the
        time it took is spent from its client's work budget."""
        started = time.thread_time()
        message = frame(room, conn.seats, conn.revealed, [])
        conn.work.spend(time.thread_time() - started)
        return message

    def _replace(self, room: Room, seats: list[int], newcomer: Connection) -> None:
        """The connections holding any of ``seats`` (the same token, another tab or device) are
        told they were replaced, leave the room and are closed: a seat is played from one
        connection at a time."""
        for other in list(self.conns.get(room.id, ())):
            if other is newcomer or not set(other.seats) & set(seats):
                continue
            other.send(error("replaced", "this seat is now played from another connection "
                             "(the same room link and token)"))
            self._detach(other)
            other.close()

    def _held(self, room: Room, seat: int) -> bool:
        return any(seat in c.seats for c in self.conns.get(room.id, ()))

    def _detach(self, conn) -> None:
        room = conn.room
        if room is None:
            return
        self.conns.get(room.id, set()).discard(conn)
        if room.id in self.rooms:  # the room's idle clock starts when its people leave
            self.writer.touch_later(room.id)
            self.used[room.id] = time.monotonic()
        seats = conn.seats
        conn.room = None
        conn.seats = []
        changed = []
        for s in seats:
            if not self._held(room, s) and room.seats[s].connected:
                room.seats[s].connected = False
                changed.append(s)
                if room.mode == "friends":
                    self._start_grace(room, s)
        if changed:
            self.broadcast(room, [Event({"type": "seat", **room.seat_event(s)}) for s in changed])

    def _start_grace(self, room: Room, seat: int) -> None:
        key = (room.id, seat)
        old = self.grace_tasks.pop(key, None)
        if old is not None:
            old.cancel()

        async def wait() -> None:
            try:
                await asyncio.sleep(self.grace_s)
            except asyncio.CancelledError:
                return
            self.grace_tasks.pop(key, None)
            async with self._lock(room):
                if not self._held(room, seat):
                    self._set_away(room, seat, True)

        self.grace_tasks[key] = asyncio.get_running_loop().create_task(wait())

    def _set_away(self, room: Room, seat: int, away: bool) -> None:
        s = room.seats[seat]
        if s.away == away:
            return
        s.away = away
        self.broadcast(room, [Event({"type": "seat", **room.seat_event(seat)})])
        self.schedule_cpu(room)

    # -- CPUs ------------------------------------------------------------------------------

    def schedule_cpu(self, room: Room) -> None:
        if room.id in self.cpu_tasks or room.cpu_to_move() is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self.cpu_tasks[room.id] = loop.create_task(self._run_cpu(room))

    async def _run_cpu(self, room: Room) -> None:
        pace = room.settings["pace_ms"] / 1000.0
        try:
            while True:
                who = room.cpu_to_move()
                if who is None:
                    return
                v = room.v
                if pace:
                    await asyncio.sleep(pace)
                if room.v != v or room.cpu_to_move() != who:
                    continue
                action = await self.pool.decide(room, *who)
                # CPU moves go one at a time through a pass of the event loop, so people's
                # messages waiting meanwhile are answered first
                if self._cpu_turn is None:
                    self._cpu_turn = asyncio.Lock()
                async with self._cpu_turn:
                    await asyncio.sleep(0)
                async with self._lock(room):
                    if room.v != v or room.cpu_to_move() != who:
                        continue
                    try:
                        await self._execute(room, {"op": "move", "seat": who[0], "action": action})
                        continue
                    except StoreError as err:
                        log.error("a CPU move was not stored (it plays again in %g s): %s",
                                  STORE_RETRY_S, err)
                await asyncio.sleep(STORE_RETRY_S)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - keep the server up; the room waits for a person
            log.exception("a CPU move failed")
        finally:
            self.cpu_tasks.pop(room.id, None)


class DamagedRoom(ValueError):
    """A stored room that cannot be restored; the message says where and why."""


def _replay(room_id: str, settings: str, seed: int, ops: list[tuple[int, str]]) -> Room:
    """A stored room, its ops executed again (:class:`DamagedRoom` where that fails)."""
    try:
        room = Room(room_id, json.loads(settings), seed)
    except Exception as err:  # noqa: BLE001 - whatever the damage, it is this room's
        raise DamagedRoom(f"its settings: {type(err).__name__}: {err}") from err
    for expected, (n, text) in enumerate(ops):
        if n != expected:
            raise DamagedRoom(f"op {expected} is missing (the next stored is op {n})")
        try:
            room.execute(json.loads(text))
        except Exception as err:  # noqa: BLE001
            raise DamagedRoom(f"op {n}: {type(err).__name__}: {err}") from err
    return room


def _logged(what: str):
    """A done callback that retrieves a background future's outcome (cancelled at shutdown,
    or failed: logged as ``what`` failing)."""

    def retrieve(future: asyncio.Future) -> None:
        if not future.cancelled() and future.exception() is not None:
            err = future.exception()
            # the type too: a bare TimeoutError or a killed worker's error has no message
            log.error("%s failed: %r", what, err, exc_info=err)

    return retrieve


def _store_failed(err: StoreError, re: Any) -> dict[str, Any]:
    """The ``error`` for a request the store refused (logged with the file's reason; the
    person is told only that nothing changed)."""
    log.error("%s", err)
    return error("store_failed", "the server could not save that, so nothing changed; try again "
                 "in a moment", re)


def _origin(origin: str) -> str:
    """An origin as compared: lower case, no trailing slash."""
    return origin.strip().rstrip("/").lower()


def _reply(message: dict[str, Any], msg: dict[str, Any]) -> dict[str, Any]:
    if msg.get("id") is not None:
        message["re"] = msg["id"]
    return message


def _move_cards(table, seat: int, action: int) -> list[int]:
    return table.move_ids(seat, action)


def create_app(db: str | None = None, grace_s: float = DEFAULT_GRACE_S, **kwargs) -> Starlette:
    """The ASGI app; ``app.state.server`` is its :class:`TableServer`."""
    server = TableServer(db, grace_s, **kwargs)

    async def index(request):
        return FileResponse(STATIC / "index.html")

    async def health(request):
        checking = server._checking
        return JSONResponse({"ok": True, "rooms": len(server.held), "in_memory": len(server.rooms),
                             "checked": checking is not None and checking.done(), "ready": server.ready,
                             "cpu": server.pool.stats()})

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        await server.startup()
        yield
        await server.shutdown()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/r/{room_id}", index),
            Route("/healthz", health),
            WebSocketRoute("/ws", server.websocket),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    app.add_middleware(PageHeaders)
    return app


class PageHeaders:
    """ASGI middleware: :data:`PAGE_HEADERS` on every HTTP response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.encode(), v.encode()) for k, v in PAGE_HEADERS.items() if k.encode() not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return await self.app(scope, receive, with_headers)


def serve(host: str = "127.0.0.1", port: int = 8000, db: str | None = None,
          grace_s: float = DEFAULT_GRACE_S, **kwargs) -> None:
    """Run the server (``climbrl serve``) until interrupted."""
    run_app(create_app(db, grace_s, **kwargs), host, port)


def run_app(app: Starlette, host: str, port: int) -> None:
    """Serve ``app`` (:func:`create_app`'s) until interrupted."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    uvicorn.run(app, host=host, port=port, access_log=False, ws_max_size=1 << 16,
                log_level="info", http=http_protocol(app.state.server.header_timeout_s))
