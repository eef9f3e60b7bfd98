"""CPU seats: ``climbrl.policies.load`` players thinking in worker processes (or threads), never on the
event loop.

:class:`CpuPool` hands a copy of the position to a worker, which asks the seat's player (one
per room, seat and level, loaded on first use and kept) for a move; the player sees only that
seat's view and observation, like any player. Worker processes run at a lower priority
(``nice``) than the server, so people's moves are answered first when the machine is busy.
A decision that runs past ``think_s`` is abandoned and a uniformly random legal move is played
instead, so a room never hangs on a slow CPU; the hard players also get their own search
budget (``time_ms``) well inside that limit.

A position travels to a worker process as its engine's fields without the engine (the
worker has its own engine for the same rules); threads share the engine and get a clone.
A trained CPU's networks are loaded once per worker and shared by all its seats.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import get_context
from typing import Any

import numpy as np

from climbrl import policies
from climbrl.envs.core.game import seat_observation

log = logging.getLogger("climbrl.table")
DEFAULT_THINK_S = 5.0
#: the hard players' own search budget, well inside the thinking limit
HARD_TIME_MS = 1500
#: how much lower worker processes run than the server (``os.nice`` increment): enough for
#: the server to come first, little enough not to starve the CPUs on a machine doing other work
WORKER_NICE = 4
#: players kept per worker (least recently used go first)
MAX_PLAYERS = 2048
BACKENDS = ("process", "thread")


class CpuPool:
    def __init__(self, workers: int = 2, think_s: float = DEFAULT_THINK_S, backend: str = "process"):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        self.backend = backend
        self.think_s = think_s
        self.workers = workers
        self.threads = ThreadPoolExecutor(workers, thread_name_prefix="cpu") if backend == "thread" else None
        self.procs: Workers | None = None

    def warm_up(self) -> None:
        """Start the worker processes now (they take a second or two to import)."""
        if self.backend == "process" and self.procs is None:
            self.procs = Workers(self.workers)

    async def ready(self, timeout: float = 60.0) -> None:
        """Wait until every worker process has started (or ``timeout``)."""
        self.warm_up()
        if self.procs is not None:
            waits = [slot["ready"] for slot in self.procs.slots]
            try:
                await asyncio.wait_for(asyncio.gather(*waits), timeout)
            except asyncio.TimeoutError:
                log.error("the CPU worker processes did not start in %.0f s", timeout)

    async def decide(self, room, seat: int, level: str) -> int:
        """The CPU's move for ``seat`` in the room's current position."""
        table = room.table
        state = table.state
        legal = list(state.legal_actions())
        if self.backend == "process":
            position: Any = pack_state(state)
            rules = table.rules_dict()
        else:
            position, rules = state.clone(), None
        job = (room.game, rules, level, (room.id, seat, level), [room.seed, seat], seat, position)
        try:
            if self.backend == "process":
                self.warm_up()
                pending = self.procs.submit(job)
            else:
                pending = asyncio.get_running_loop().run_in_executor(self.threads, think, job)
            action = await asyncio.wait_for(pending, self.think_s)
        except asyncio.TimeoutError:
            log.warning("a CPU (%s) ran past %.1f s; playing a random move", level, self.think_s)
            action = -1
        except Exception:  # noqa: BLE001 - a crashed worker: the room goes on
            log.exception("a CPU (%s) failed; playing a random move", level)
            action = -1
        if action not in legal:
            if action != -1:
                log.error("a CPU (%s) chose the illegal action %d; playing a random move", level, action)
            action = legal[int(np.random.default_rng().integers(len(legal)))]
        return action

    def close(self) -> None:
        if self.threads is not None:
            self.threads.shutdown(wait=False, cancel_futures=True)
        if self.procs is not None:
            self.procs.close()


class Workers:
    """Worker processes, each on a pipe the event loop reads without blocking: jobs wait in
    the least busy worker's queue and go down its pipe one at a time; each answer resolves a
    future (no executor threads in the server)."""

    def __init__(self, count: int):
        self.ctx = get_context("spawn")
        self.loop = asyncio.get_running_loop()
        self.ids = itertools.count()
        self.slots: list[dict[str, Any]] = [self._start() for _ in range(max(1, count))]

    def _start(self) -> dict[str, Any]:
        ours, theirs = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker_main, args=(theirs,), daemon=True, name="climbrl-cpu")
        proc.start()
        theirs.close()
        slot = {"proc": proc, "conn": ours, "jobs": {}, "queue": deque(), "busy": False,
                "ready": self.loop.create_future()}
        self.loop.add_reader(ours.fileno(), self._answer, slot)
        return slot

    def submit(self, job) -> asyncio.Future:
        slot = min(self.slots, key=lambda s: len(s["jobs"]))
        job_id = next(self.ids)
        future = self.loop.create_future()
        future.add_done_callback(lambda f, jobs=slot["jobs"], i=job_id: f.cancelled() and jobs.pop(i, None))
        slot["jobs"][job_id] = future
        slot["queue"].append((job_id, job))
        self._feed(slot)
        return future

    @staticmethod
    def _feed(slot) -> None:
        """One job at a time in a worker's pipe, so a write never waits for the worker."""
        queue = slot["queue"]
        while queue and slot["jobs"].get(queue[0][0]) is None:
            queue.popleft()  # abandoned (past the thinking limit) before it started
        if not slot["busy"] and queue:
            slot["busy"] = True
            slot["conn"].send(queue.popleft())

    def _answer(self, slot) -> None:
        try:
            job_id, ok, value = slot["conn"].recv()
        except (EOFError, OSError):
            self._restart(slot)
            return
        if job_id is None:  # the worker has started
            if not slot["ready"].done():
                slot["ready"].set_result(True)
            return
        slot["busy"] = False
        future = slot["jobs"].pop(job_id, None)
        if future is not None and not future.done():
            if ok:
                future.set_result(value)
            else:
                future.set_exception(RuntimeError(value))
        self._feed(slot)

    def _restart(self, slot) -> None:
        log.error("a CPU worker process stopped; starting another")
        self.loop.remove_reader(slot["conn"].fileno())
        for future in slot["jobs"].values():
            if not future.done():
                future.set_exception(RuntimeError("the CPU worker stopped"))
        slot["conn"].close()
        self.slots[self.slots.index(slot)] = self._start()

    def close(self) -> None:
        for slot in self.slots:
            try:
                self.loop.remove_reader(slot["conn"].fileno())
                slot["conn"].close()
            except (OSError, ValueError):
                pass
            slot["proc"].terminate()


# -- in the worker ---------------------------------------------------------------------------

_players: OrderedDict = OrderedDict()
#: the trained CPUs' networks of this worker, loaded once and shared by its players
#: (``climbrl.policies.load``'s ``shared``)
_networks: dict = {}


def _init_worker() -> None:
    try:
        os.nice(WORKER_NICE)
    except OSError:
        pass
    from .games import table_games

    table_games()  # the engines and players, imported once


def _worker_main(conn) -> None:
    """A worker process: decisions in, actions out, until the pipe closes."""
    _init_worker()
    conn.send((None, True, "ready"))
    while True:
        try:
            job_id, job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send((job_id, True, think(job)))
        except Exception as err:  # noqa: BLE001 - reported to the server, which plays on
            conn.send((job_id, False, f"{type(err).__name__}: {err}"))


def think(job) -> int:
    """One decision (runs in a worker): the seat's player acts on the position."""
    game, rules, level, key, seed, seat, position = job
    engine = _engine(game, rules) if rules is not None else position.game
    state = unpack_state(position, engine) if isinstance(position, tuple) else position
    player = _players.get(key)
    if player is None:
        player = _players[key] = _load(game, level, np.random.SeedSequence(seed))
        if len(_players) > MAX_PLAYERS:
            _players.popitem(last=False)
    else:
        _players.move_to_end(key)
    player.bind(engine)
    return int(player.act(seat_observation(engine, state, seat), state.view(seat)))


def _engine(game: str, rules: dict | None):
    from .games import table_games

    return table_games()[game].engine(rules)


def pack_state(state) -> tuple:
    """A position's fields without its engine (``__slots__`` order), for another process."""
    return tuple(getattr(state, name) for name in type(state).__slots__ if name != "game") + (type(state),)


def unpack_state(packed: tuple, engine):
    cls = packed[-1]
    state = cls.__new__(cls)
    names = [n for n in cls.__slots__ if n != "game"]
    for name, value in zip(names, packed):
        setattr(state, name, value)
    state.game = engine
    return state


def _load(game: str, level: str, seed):
    if level == "hard":
        try:
            return policies.load(game, level, seed=seed, shared=_networks, time_ms=HARD_TIME_MS)
        except (ValueError, TypeError):
            pass  # a level without the knob (a trained CPU): its own budget
    return policies.load(game, level, seed=seed, shared=_networks)
