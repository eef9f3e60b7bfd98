"""Stand-ins for the CPU worker processes' entry point (``climbrl.play.server.cpu._worker_main``),
in a module of their own so that a spawned worker imports them without the tests around them.

A test swaps one in with ``monkeypatch.setattr(cpu, "_worker_main", ...)``: the server starts
its workers on whatever that name holds."""

from __future__ import annotations

import contextlib
import time

SLEEP_PREFIX = "sleep:"
"""a fake level naming how long the sleepy worker's decision takes: ``"sleep:0.4"``"""
SETUP_PREFIX = "setup:"
"""a fake level naming how long the sleepy worker sets up before it thinks (at once):
``"setup:12"``, as a worker building an engine on a busy machine"""


def exit_at_once(conn) -> None:
    """A worker that stops as soon as it starts (a broken install, say)."""
    conn.close()


def sleepy_worker(conn) -> None:
    """The real worker loop, its decisions made by :func:`sleepy_think`."""
    from climbrl.play.server import cpu

    cpu.think = sleepy_think
    cpu._worker_main(conn)


def sleepy_think(job, *thinking) -> int:
    """Sleep the seconds the job's level names (thinking, or setting up before the thinking),
    then play the highest legal action (so a test tells a decision that was thought from one
    played at random)."""
    from climbrl.play.server import cpu

    game, rules, level, position = job[0], job[1], job[2], job[-1]
    prefix, seconds = level.split(":")
    if prefix + ":" == SETUP_PREFIX:
        time.sleep(float(seconds))
    with thinking[0] if thinking else contextlib.nullcontext():
        if prefix + ":" == SLEEP_PREFIX:
            time.sleep(float(seconds))
    return max(cpu.unpack_state(position, cpu._engine(game, rules)).legal_actions())
