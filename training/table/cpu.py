"""CPU seats: ``policies.load`` players thinking in worker threads, never on the event loop.

:class:`CpuPool` keeps one player per (room, seat, level), bound to the room's engine, and
asks it for a move on a copy of the position (the player sees only that seat's view and
observation, like any player). A decision that runs past ``think_s`` is abandoned and a
uniformly random legal move is played instead, so a room never hangs on a slow CPU.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

import policies

log = logging.getLogger("climbrl.table")
DEFAULT_THINK_S = 5.0
#: the hard players' own search budget, well inside the thinking limit
HARD_TIME_MS = 1500
#: how often a worker thread lets the event loop run (seconds)
SWITCH_INTERVAL_S = 0.001


class CpuPool:
    def __init__(self, workers: int = 2, think_s: float = DEFAULT_THINK_S):
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cpu")
        self.think_s = think_s
        self._players: dict[tuple[str, int, str], Any] = {}
        sys.setswitchinterval(SWITCH_INTERVAL_S)

    def player(self, room, seat: int, level: str):
        """The room seat's CPU player (loaded on first use; call from a worker thread: loading
        reads the CPU config and may build tables)."""
        key = (room.id, seat, level)
        player = self._players.get(key)
        if player is None:
            seed = np.random.SeedSequence([room.seed, seat])
            player = self._players[key] = _load(room.game, level, seed)
        return player

    def forget(self, room_id: str) -> None:
        for key in [k for k in self._players if k[0] == room_id]:
            del self._players[key]

    async def decide(self, room, seat: int, level: str) -> int:
        """The CPU's move for ``seat`` in the room's current position."""
        table = room.table
        state = table.state.clone()
        engine = table.engine
        legal = list(state.legal_actions())

        def think() -> int:
            player = self.player(room, seat, level).bind(engine)
            mask = np.zeros(engine.num_actions, np.int8)
            mask[legal] = 1
            obs = {"observation": engine.observe(state, seat), "action_mask": mask}
            return int(player.act(obs, state.view(seat)))

        loop = asyncio.get_running_loop()
        try:
            action = await asyncio.wait_for(loop.run_in_executor(self.executor, think), self.think_s)
        except asyncio.TimeoutError:
            log.warning("room CPU seat %d (%s) ran past %.1f s; playing a random move", seat, level, self.think_s)
            action = legal[int(np.random.default_rng().integers(len(legal)))]
        if action not in legal:
            log.error("CPU seat %d (%s) chose illegal action %d; playing a random move", seat, level, action)
            action = legal[int(np.random.default_rng().integers(len(legal)))]
        return action

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def _load(game: str, level: str, seed):
    if level == "hard":
        try:
            return policies.load(game, level, seed=seed, time_ms=HARD_TIME_MS)
        except (ValueError, TypeError):
            pass  # a level without the knob (a trained CPU): its own budget
    return policies.load(game, level, seed=seed)
