"""CPU seats: ``climbrl.policies.load`` players thinking in worker processes (or threads), never on the
event loop.

:class:`CpuPool` hands a copy of the position to a worker, which asks a player of the room's
game, rules and level for a move; the player sees only that seat's view and observation, like
any player. The players keep nothing of a room between decisions, so a worker keeps one per
game, rules and level (a few, least recently used go first), reseeded for each decision from
the room's seed, the seat and the table's version. Worker processes run at a lower priority
(``nice``) than the server, so people's moves are answered first when the machine is busy.

A CPU's level stays honest under load:

- decisions wait in one queue, first come first served, for an idle worker; the thinking
  limit ``think_s`` starts when a worker starts the decision, not when it was queued;
- a decision past ``think_s`` is stopped in the worker itself (an alarm), and one no longer
  wanted (its room dropped) is stopped by a signal, so neither holds up the next; a random
  legal move is played for one that ran out of time, so a room never hangs on a slow CPU.
  The hard players also get their own search budget (``time_ms``) well inside that limit;
- :meth:`CpuPool.busy` says when a new CPU move would wait past ``max_wait_s`` for a worker
  (each level's decision time is a moving average): the server then refuses new rooms with
  CPUs rather than make every table slow;
- a worker that gives no answer ``HANG_GRACE_S`` past the limit is killed and replaced; a
  worker that stops is started again after a wait that doubles with each death in a row
  (reset by an answered decision), with a log line each time;
- a worker says when it has a decision and when it starts thinking it: one still setting up
  at that point (building an engine or loading a player for the first time, slow on a busy
  machine) is slow, not hung. Its decision is played at random and it may finish the set-up
  (``SETUP_LIMIT_S``), so that its replacement does not start the same set-up over.

A position travels to a worker process as its engine's fields without the engine (the
worker has its own engine for the same rules); threads share the engine and get a clone.
Threads cannot be stopped: a thread's decision past the limit or cancelled runs to its end.
A trained CPU's networks are loaded once per worker and shared by all its players.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import signal
import threading
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, NamedTuple

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
#: players kept per worker (least recently used go first): one per game, rules and level
MAX_PLAYERS = 16
BACKENDS = ("process", "thread")
DEFAULT_MAX_WAIT_S = 5.0
"""a new CPU move expected to wait longer than this for a worker: new CPU rooms are refused"""
#: the decision time of a level before any is measured (the hard players' budget; others
#: answer in milliseconds), and the weight of each new measurement in the moving average
PRIOR_DECISION_S = {"hard": HARD_TIME_MS / 1000}
DEFAULT_PRIOR_S = 0.05
AVERAGE_WEIGHT = 0.1
#: a worker with a decision this long past ``think_s`` (its own alarm stops the thinking at
#: the limit; this leaves room for loading a player or building an engine the first time) is
#: taken for hung: killed and replaced
HANG_GRACE_S = 5.0
#: the wait before starting a worker again after it stopped: doubles with each death in a row
BACKOFF_FIRST_S = 0.1
BACKOFF_MAX_S = 60.0
#: every worker dead this many times in a row (none answering): CPU moves are played at random
#: at once rather than wait for a worker that may never come
GIVE_UP_DEATHS = 4
#: how often :meth:`CpuPool.ready` looks whether every worker has started
READY_POLL_S = 0.05
#: how long a worker may set up one decision (build an engine, load a player) before it is
#: taken for hung; its decision is played at random at the usual limit meanwhile
SETUP_LIMIT_S = 120.0
#: what the server sends a worker to stop the decision it is thinking (its room was dropped)
STOP_SIGNAL = signal.SIGUSR1
#: a worker's answer: the action, an error, or the decision stopped (limit or server)
OK, FAILED, STOPPED = "ok", "failed", "stopped"
#: a worker's word on a decision before its answer: it has it (and sets up what it needs),
#: and it starts thinking it
STARTED, THINKING = "started", "thinking"


class Decision(NamedTuple):
    """What a worker needs for one decision (pickled to a worker process)."""

    game: str
    rules: dict
    level: str
    seed: list
    """the player's random stream for this decision: room seed, seat, table version"""
    seat: int
    position: Any
    """the state (threads: a clone) or its fields (:func:`pack_state`, processes)"""


class DecisionTimeout(Exception):
    """The decision ran past ``think_s`` (a random legal move is played for it)."""


class WorkerError(RuntimeError):
    """The worker died, hung, or none is running."""


class DecisionStopped(BaseException):
    """Raised in a worker process's decision by its alarm or the server's stop signal; not an
    ``Exception``, so a player's own ``except Exception`` does not swallow it."""


class Load:
    """How long each level's decisions take (a moving average, from a worker starting one to
    its answer): the wait a new CPU move can expect behind the queued ones; and counts."""

    def __init__(self):
        self.mean_s: dict[str, float] = {}
        self.decisions = 0
        self.timed_out = 0
        self.failed = 0

    def expected_s(self, level: str) -> float:
        return self.mean_s.get(level, PRIOR_DECISION_S.get(level, DEFAULT_PRIOR_S))

    def record(self, level: str, seconds: float) -> None:
        mean = self.expected_s(level)
        self.mean_s[level] = mean + AVERAGE_WEIGHT * (seconds - mean)

    def wait_s(self, queued: list[str], workers: int) -> float:
        return sum(self.expected_s(level) for level in queued) / max(1, workers)


class CpuPool:
    def __init__(self, workers: int = 2, think_s: float = DEFAULT_THINK_S, backend: str = "process",
                 max_wait_s: float = DEFAULT_MAX_WAIT_S):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if not (isinstance(workers, int) and workers >= 1):
            raise ValueError(f"workers must be 1 or more, got {workers!r}")
        if not think_s > 0:
            raise ValueError(f"think_s must be more than 0 seconds, got {think_s!r}")
        if not max_wait_s >= 0:
            raise ValueError(f"the CPU wait must be 0 (never refuse a room) or more seconds, got {max_wait_s!r}")
        self.backend = backend
        self.think_s = think_s
        self.workers = workers
        self.max_wait_s = max_wait_s
        self.load = Load()
        self.threads = Threads(workers, think_s, self.load) if backend == "thread" else None
        self.procs: Workers | None = None

    def warm_up(self) -> None:
        """Start the worker processes now (they take a second or two to import)."""
        if self.backend == "process" and self.procs is None:
            self.procs = Workers(self.workers, self.think_s, self.load)

    async def ready(self, timeout: float = 60.0) -> None:
        """Wait until every worker process has started (or ``timeout``)."""
        self.warm_up()
        if self.procs is not None:
            try:
                await asyncio.wait_for(self.procs.all_ready(), timeout)
            except asyncio.TimeoutError:
                log.error("the CPU worker processes did not start in %.0f s", timeout)

    @property
    def runner(self) -> Workers | Threads:
        self.warm_up()
        return self.procs if self.procs is not None else self.threads

    def wait_s(self, ahead: list[str] | None = None) -> float:
        """The seconds a new CPU move can expect to wait for a worker behind decisions of the
        levels ``ahead`` (default: those queued now)."""
        return self.load.wait_s(self.runner.queued() if ahead is None else ahead, self.workers)

    def busy(self, ahead: list[str] | None = None) -> bool:
        """A new CPU move would wait past ``max_wait_s``: time to refuse new CPU rooms."""
        return bool(self.max_wait_s) and self.wait_s(ahead) > self.max_wait_s

    def worker_pids(self) -> list[int | None]:
        """The worker processes' ids (None: one waiting to start again)."""
        return self.procs.pids() if self.procs is not None else []

    def stats(self) -> dict[str, Any]:
        """The CPUs' counters (``/healthz``): decisions, those played at random because they
        ran out of time or failed, the queue and the wait it means, worker restarts."""
        runner = self.runner
        return {"decisions": self.load.decisions, "timed_out": self.load.timed_out,
                "failed": self.load.failed, "queued": len(runner.queued()),
                "wait_s": round(self.wait_s(), 3), "restarts": getattr(runner, "restarts", 0)}

    async def decide(self, room, seat: int, level: str) -> int:
        """The CPU's move for ``seat`` in the room's current position."""
        table = room.table
        state = table.state
        legal = list(state.legal_actions())
        position: Any = pack_state(state) if self.backend == "process" else state.clone()
        decision = Decision(room.game, table.rules_dict(), level, [room.seed, seat, room.v], seat, position)
        self.load.decisions += 1
        try:
            action = await self.runner.run(decision)
        except DecisionTimeout:
            log.warning("a CPU (%s) ran past %.1f s; playing a random move", level, self.think_s)
            self.load.timed_out += 1
            action = -1
        except WorkerError as err:
            log.error("a CPU (%s) got no answer (%s); playing a random move", level, err)
            self.load.failed += 1
            action = -1
        except Exception:  # noqa: BLE001 - a player's error: the room goes on
            log.exception("a CPU (%s) failed; playing a random move", level)
            self.load.failed += 1
            action = -1
        if action not in legal:
            if action != -1:
                log.error("a CPU (%s) chose the illegal action %d; playing a random move", level, action)
            action = legal[int(np.random.default_rng().integers(len(legal)))]
        return action

    def close(self) -> None:
        if self.threads is not None:
            self.threads.close()
        if self.procs is not None:
            self.procs.close()


class Threads:
    """Decisions in worker threads (``--cpu-backend thread``): the limit starts when a thread
    starts the decision; a decision past it is abandoned (a thread cannot be stopped)."""

    def __init__(self, count: int, think_s: float, load: Load):
        self.executor = ThreadPoolExecutor(count, thread_name_prefix="cpu")
        self.think_s = think_s
        self.load = load
        self.waiting: dict[int, str] = {}
        self.ids = itertools.count()

    def queued(self) -> list[str]:
        """The levels of the decisions waiting for a thread."""
        return list(self.waiting.values())

    async def run(self, decision: Decision) -> int:
        loop = asyncio.get_running_loop()
        started = loop.create_future()
        job_id = next(self.ids)
        self.waiting[job_id] = decision.level

        def begin() -> None:
            if not started.done():
                started.set_result(loop.time())

        def work() -> int:
            loop.call_soon_threadsafe(begin)
            return think(decision)

        future = loop.run_in_executor(self.executor, work)
        try:
            began = await started
        except asyncio.CancelledError:
            future.cancel()
            raise
        finally:
            self.waiting.pop(job_id, None)
        try:
            return await asyncio.wait_for(future, self.think_s)
        except asyncio.TimeoutError:
            raise DecisionTimeout(f"past {self.think_s} s") from None
        finally:
            self.load.record(decision.level, loop.time() - began)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


@dataclass(eq=False)
class Job:
    id: int
    decision: Decision
    future: asyncio.Future
    started: float = 0.0
    stage: str = ""
    """what the worker said of it so far: nothing, ``STARTED`` or ``THINKING``"""
    thinking_at: float | None = None


@dataclass(eq=False)
class Slot:
    """One worker process: its pipe, whether it has started, the decision it is thinking."""

    proc: Any = None
    conn: Any = None
    ready: asyncio.Future | None = None
    job: Job | None = None
    deadline: asyncio.TimerHandle | None = None
    restart: asyncio.TimerHandle | None = None
    deaths: int = 0
    """deaths in a row (no decision answered since): the back-off before the next start"""

    def idle(self) -> bool:
        return self.conn is not None and self.job is None and self.ready is not None and self.ready.done()


class Workers:
    """Worker processes, each on a pipe the event loop reads without blocking: decisions wait
    in one queue and go to an idle, started worker one at a time; each answer resolves a
    future (no executor threads in the server)."""

    def __init__(self, count: int, think_s: float, load: Load):
        self.ctx = get_context("spawn")
        self.loop = asyncio.get_running_loop()
        self.ids = itertools.count()
        self.think_s = think_s
        self.load = load
        self.queue: deque[Job] = deque()
        self.restarts = 0
        self.closed = False
        self.slots = [Slot() for _ in range(count)]
        for slot in self.slots:
            self._start(slot)

    # -- the queue -------------------------------------------------------------------------

    def queued(self) -> list[str]:
        """The levels of the decisions waiting for a worker."""
        return [job.decision.level for job in self.queue if not job.future.done()]

    def pids(self) -> list[int | None]:
        return [slot.proc.pid if slot.proc is not None else None for slot in self.slots]

    async def all_ready(self) -> None:
        while not all(slot.idle() or slot.job is not None for slot in self.slots):
            await asyncio.sleep(READY_POLL_S)

    def run(self, decision: Decision) -> asyncio.Future:
        """The decision's action (a future): ``DecisionTimeout`` past the limit, ``WorkerError``
        when its worker died or hung, or none is running; cancelling it stops the decision."""
        job = Job(next(self.ids), decision, self.loop.create_future())
        if self._gave_up():
            job.future.set_exception(WorkerError("no CPU worker is running: they stop at start"))
            return job.future
        job.future.add_done_callback(lambda f, job=job: f.cancelled() and self._cancel(job))
        self.queue.append(job)
        self._feed()
        return job.future

    def _feed(self) -> None:
        """Every idle worker gets the next decision of the queue (one at a time in a worker's
        pipe, so a write never waits for the worker)."""
        for slot in self.slots:
            if not slot.idle():
                continue
            while self.queue and self.queue[0].future.done():
                self.queue.popleft()  # cancelled before it started
            if not self.queue:
                return
            job = self.queue.popleft()
            job.started = self.loop.time()
            slot.job = job
            try:
                slot.conn.send((job.id, job.decision, self.think_s))
            except (OSError, ValueError):
                self._lost(slot, "stopped")
                continue
            slot.deadline = self.loop.call_later(self.think_s + HANG_GRACE_S, self._overdue, slot, job)

    def _cancel(self, job: Job) -> None:
        """A decision no longer wanted: the worker thinking it stops it (a queued one is
        dropped when its turn comes)."""
        for slot in self.slots:
            if slot.job is job and slot.proc is not None:
                with contextlib.suppress(OSError):
                    os.kill(slot.proc.pid, STOP_SIGNAL)

    # -- the workers' answers --------------------------------------------------------------

    def _answer(self, slot: Slot) -> None:
        try:
            job_id, status, value = slot.conn.recv()
        except (EOFError, OSError):
            self._lost(slot, "stopped")
            return
        if job_id is None:  # the worker has started
            if not slot.ready.done():
                slot.ready.set_result(True)
        elif slot.job is not None and slot.job.id == job_id and status in (STARTED, THINKING):
            self._progress(slot, slot.job, status)
            return
        elif slot.job is not None and slot.job.id == job_id:
            job, slot.job = slot.job, None
            slot.deadline.cancel()
            slot.deaths = 0
            if not job.future.cancelled():
                since = job.thinking_at if job.thinking_at is not None else job.started
                self.load.record(job.decision.level, self.loop.time() - since)
            if not job.future.done():
                if status == OK:
                    job.future.set_result(value)
                elif status == STOPPED:
                    job.future.set_exception(DecisionTimeout(value))
                else:
                    job.future.set_exception(RuntimeError(value))
        self._feed()

    def _progress(self, slot: Slot, job: Job, stage: str) -> None:
        """The worker has the decision, or starts thinking it: from then on it has the
        thinking limit and the grace (its set-up is not counted)."""
        job.stage = stage
        if stage != THINKING:
            return
        job.thinking_at = self.loop.time()
        slot.deadline.cancel()
        # (a decision played at random while its worker set up is thought all the same, within
        # the limit: a stop signal sent now could reach the worker's next decision instead)
        slot.deadline = self.loop.call_later(self.think_s + HANG_GRACE_S, self._hung, slot, job)

    def _overdue(self, slot: Slot, job: Job) -> None:
        """No answer within the limit and the grace: a worker still setting up the decision
        is slow, not hung (its decision is played at random; it may finish the set-up), any
        other is hung."""
        if slot.job is not job or slot.proc is None:
            return
        if job.stage != STARTED:
            self._hung(slot, job)
            return
        waited = self.loop.time() - job.started
        log.warning("a CPU worker process (pid %d) is still setting up after %.1f s (building an "
                    "engine or loading a player); its move is played at random, and it has %.0f s "
                    "to finish", slot.proc.pid, waited, SETUP_LIMIT_S)
        if not job.future.done():
            job.future.set_exception(DecisionTimeout("still setting up"))
        slot.deadline = self.loop.call_later(max(0.0, SETUP_LIMIT_S - waited), self._hung, slot, job)

    def _hung(self, slot: Slot, job: Job) -> None:
        if slot.job is not job or slot.proc is None:
            return
        log.error("a CPU worker process (pid %d) did not answer in %.1f s; killing it",
                  slot.proc.pid, self.loop.time() - job.started)
        slot.proc.kill()
        self._lost(slot, "did not answer")

    # -- starting and stopping workers -----------------------------------------------------

    def _start(self, slot: Slot) -> None:
        slot.restart = None
        if self.closed:
            return
        ours, theirs = self.ctx.Pipe()
        try:
            proc = self.ctx.Process(target=_worker_main, args=(theirs,), daemon=True, name="climbrl-cpu")
            proc.start()
        except OSError as err:
            ours.close()
            theirs.close()
            self._retry(slot, f"could not start ({err})")
            return
        theirs.close()
        slot.proc, slot.conn, slot.ready = proc, ours, self.loop.create_future()
        self.loop.add_reader(ours.fileno(), self._answer, slot)
        self._feed()

    def _lost(self, slot: Slot, why: str) -> None:
        """The slot's worker died or hung: its decision fails, another starts after a wait."""
        job, slot.job = slot.job, None
        if slot.deadline is not None:
            slot.deadline.cancel()
        if slot.conn is not None:
            with contextlib.suppress(OSError, ValueError):
                self.loop.remove_reader(slot.conn.fileno())
            slot.conn.close()
        if slot.ready is not None and not slot.ready.done():
            slot.ready.cancel()
        code = None
        if slot.proc is not None:
            slot.proc.join(0)  # collect it if it has exited
            code = slot.proc.exitcode
        slot.proc = slot.conn = slot.ready = None
        if job is not None and not job.future.done():
            job.future.set_exception(WorkerError(f"the CPU worker {why}"))
        self._retry(slot, f"{why} (exit code {code})")

    def _retry(self, slot: Slot, why: str) -> None:
        slot.deaths += 1
        self.restarts += 1
        wait = min(BACKOFF_FIRST_S * 2 ** (slot.deaths - 1), BACKOFF_MAX_S)
        log.error("a CPU worker process %s; starting another in %.1f s", why, wait)
        slot.restart = self.loop.call_later(wait, self._start, slot)
        if self._gave_up():
            while self.queue:
                job = self.queue.popleft()
                if not job.future.done():
                    job.future.set_exception(WorkerError("no CPU worker is running: they stop at start"))

    def _gave_up(self) -> bool:
        return all(slot.deaths >= GIVE_UP_DEATHS for slot in self.slots)

    def close(self) -> None:
        self.closed = True
        for slot in self.slots:
            for handle in (slot.restart, slot.deadline):
                if handle is not None:
                    handle.cancel()
            if slot.conn is not None:
                with contextlib.suppress(OSError, ValueError):
                    self.loop.remove_reader(slot.conn.fileno())
                    slot.conn.close()
            if slot.proc is not None:
                slot.proc.terminate()


# -- in the worker ---------------------------------------------------------------------------

#: this worker's players, by thread, game, rules and level (least recently used first)
_players: OrderedDict = OrderedDict()
_players_lock = threading.Lock()
#: the trained CPUs' networks of this worker, loaded once and shared by its players
#: (``climbrl.policies.load``'s ``shared``)
_networks: dict = {}


class Guard:
    """A worker process's decision in progress: the server's stop signal raises
    :class:`DecisionStopped` in it, and so does its alarm once the player starts thinking
    (``think_s``; loading a player or building an engine the first time is not thinking). A
    stop during the set-up lets the set-up finish (the next decisions need it) and stops the
    decision as its thinking starts. A signal between decisions does nothing."""

    def __init__(self):
        self.busy = False
        self.thinking = False
        self.stop_wanted = False

    def install(self) -> None:
        signal.signal(signal.SIGALRM, self.stop)
        signal.signal(STOP_SIGNAL, self.stop)

    def stop(self, signum, frame) -> None:
        timed_out = signum == signal.SIGALRM
        if self.busy and self.thinking:
            self.busy = self.thinking = False
            raise DecisionStopped("past the thinking limit" if timed_out else "stopped by the server")
        if self.busy and not timed_out:
            self.stop_wanted = True

    @contextlib.contextmanager
    def decision(self):
        self.busy = True
        self.stop_wanted = False
        try:
            yield
        finally:
            self.busy = self.thinking = self.stop_wanted = False
            signal.setitimer(signal.ITIMER_REAL, 0)

    @contextlib.contextmanager
    def limit(self, seconds: float):
        """The thinking itself, stopped past ``seconds``."""
        if self.stop_wanted:
            self.busy = False
            raise DecisionStopped("stopped by the server")
        self.thinking = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            self.thinking = False
            signal.setitimer(signal.ITIMER_REAL, 0)


def _init_worker() -> None:
    try:
        os.nice(WORKER_NICE)
    except OSError:
        pass
    from .games import table_games

    table_games()  # the engines and players, imported once


def _worker_main(conn) -> None:
    """A worker process: decisions in, actions out, until the pipe closes."""
    guard = Guard()
    guard.install()
    _init_worker()
    conn.send((None, OK, "ready"))
    while True:
        try:
            job_id, decision, think_s = conn.recv()
        except (EOFError, OSError):
            return
        try:
            with guard.decision():
                conn.send((job_id, STARTED, None))
                answer = (job_id, OK, think(decision, _said_thinking(conn, job_id, guard.limit(think_s))))
        except DecisionStopped as stop:
            answer = (job_id, STOPPED, str(stop))
        except Exception as err:  # noqa: BLE001 - reported to the server, which plays on
            answer = (job_id, FAILED, f"{type(err).__name__}: {err}")
        conn.send(answer)


@contextlib.contextmanager
def _said_thinking(conn, job_id: int, limit):
    """``limit`` (the thinking), once the server is told that the thinking starts."""
    conn.send((job_id, THINKING, None))
    with limit:
        yield


def think(decision: Decision, thinking=None) -> int:
    """One decision (runs in a worker): a player of the room's game, rules and level acts on
    the position, its random stream seeded for this decision; ``thinking``: a context the
    player's act runs in (a worker process's time limit)."""
    game, rules, level, seed, seat, position = decision
    engine = _engine(game, rules) if isinstance(position, tuple) else position.game
    state = unpack_state(position, engine) if isinstance(position, tuple) else position
    player = _player(game, rules, level, engine)
    player.seed(np.random.SeedSequence(seed))
    observation, view = seat_observation(engine, state, seat), state.view(seat)
    with thinking if thinking is not None else contextlib.nullcontext():
        return int(player.act(observation, view))


def _player(game: str, rules: dict, level: str, engine):
    """The worker's player of a game, rules and level, bound to ``engine`` (loaded on first
    use; at most :data:`MAX_PLAYERS` kept, per thread: threads never share one)."""
    key = (threading.get_ident(), game, json.dumps(rules, sort_keys=True), level)
    with _players_lock:
        player = _players.get(key)
        if player is not None:
            _players.move_to_end(key)
    if player is None:
        player = _load(game, level, None)
    player.bind(engine)
    with _players_lock:
        _players[key] = player
        while len(_players) > MAX_PLAYERS:
            _players.popitem(last=False)
    return player


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
