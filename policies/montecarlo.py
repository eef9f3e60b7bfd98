"""What the determinized Monte Carlo players share: choosing among candidates from paired
playout values.

Each candidate is played out from the same determinizations with the same rollout seeds, so
the values of two candidates pair up. The first candidate (the scripted player's own choice)
stands unless another beats it by more than ``z`` standard errors of the paired difference:
a bare argmax over a few dozen noisy playouts plays worse than the scripted player it starts
from.
"""

from __future__ import annotations

import math
import random
import time

import numpy as np

from climbrl.envs.core.checks import as_int_in, as_real

#: a candidate replaces the scripted choice only when better by this many standard errors
DEFAULT_SWITCH_Z = 1.5
#: fewer playouts per candidate than this: keep the scripted choice
MIN_SAMPLES = 3
SEED_BITS = 63
MS = 1000.0


def paired_pick(values: list[list[float]], z: float = DEFAULT_SWITCH_Z,
                bonus: list[float] | None = None) -> int:
    """Index of the chosen candidate given each one's playout values (index 0 is kept unless
    another candidate's mean paired gain over it exceeds ``z`` standard errors). ``bonus[i]``,
    when given, is added to candidate ``i``'s gain (a prior from another judge of the moves)."""
    base = np.asarray(values[0], dtype=float)
    if base.size < MIN_SAMPLES:
        return 0
    best, best_gain = 0, 0.0
    for i in range(1, len(values)):
        diff = np.asarray(values[i], dtype=float) - base
        gain = float(diff.mean()) + (bonus[i] if bonus is not None else 0.0)
        se = float(diff.std(ddof=1)) / math.sqrt(diff.size)
        if gain > best_gain and gain > z * se:
            best, best_gain = i, gain
    return best


def check_budget(rollouts, time_ms, candidates, switch_z) -> tuple[int, float, int, float]:
    """The search knobs, validated: ``ValueError`` naming a bad one (``TypeError`` for one
    that is not a number: ``rollouts=2.7`` is not taken as 2)."""
    if as_real(time_ms, "time_ms") < 0:
        raise ValueError(f"time_ms must be >= 0, got {time_ms!r}")
    if as_real(switch_z, "switch_z") < 0:
        raise ValueError(f"switch_z must be >= 0, got {switch_z!r}")
    return (as_int_in(rollouts, "rollouts", 1), float(time_ms),
            as_int_in(candidates, "candidates", 1), float(switch_z))


class DeterminizedSearch:
    """The search half of a hard player, mixed in before its scripted player class: the budget
    knobs (``rollouts``, ``time_ms``, ``candidates``, ``switch_z``; the game's defaults in
    ``default_rollouts`` and ``default_candidates``) and the loop of :meth:`search`. The game
    module supplies :meth:`sampler` (hidden hands consistent with a view), :meth:`root` (the
    position rebuilt with them), :meth:`playout_value` (one candidate played out) and
    :meth:`rollout_move` (its rollout policy's move)."""

    default_rollouts: int
    default_candidates: int
    KNOBS = ("rollouts", "time_ms", "candidates", "switch_z")

    def __init__(self, seed=None, rollouts: int | None = None, time_ms: float = 0.0,
                 candidates: int | None = None, switch_z: float = DEFAULT_SWITCH_Z, **knobs):
        super().__init__(seed, **knobs)
        self.rollouts, self.time_ms, self.candidates, self.switch_z = check_budget(
            self.default_rollouts if rollouts is None else rollouts, time_ms,
            self.default_candidates if candidates is None else candidates, switch_z,
        )

    def sampler(self, game, view):
        raise NotImplementedError

    def root(self, game, view, hands):
        """The position to play the candidates out from, or None to stop searching."""
        return game.from_view(view, hands)

    def playout_value(self, state, seat: int, action: int, rnd: random.Random) -> float:
        raise NotImplementedError

    def search(self, view, candidates: list[int]) -> int:
        """The scripted choice ``candidates[0]``, unless another candidate's mean playout value
        beats it by more than ``switch_z`` standard errors of the paired difference (the same
        determinization and the same rollout seed for every candidate)."""
        return candidates[paired_pick(self.playout_values(view, candidates), self.switch_z)]

    def playout_values(self, view, candidates: list[int]) -> list[list[float]]:
        """Each candidate's playout values, paired: entry ``j`` of every list comes from the
        same determinization and rollout seed (the budget: ``rollouts``, ``time_ms``)."""
        seat = view["seat"]
        values: list[list[float]] = [[] for _ in candidates]
        for root, seed in self.determinizations(view, len(candidates)):
            for i, action in enumerate(candidates):
                values[i].append(self.playout_value(root.clone(), seat, action, random.Random(seed)))
        return values

    def determinizations(self, view, per_root: int):
        """``(root, rollout seed)`` pairs, one per guess of the hidden hands, until the budget
        is spent (``rollouts`` playouts counting ``per_root`` for each, or ``time_ms`` after
        the pair in hand has been played out)."""
        game = self._require_game()
        sampler = self.sampler(game, view)
        rnd = random.Random(int(self.rng.integers(1 << SEED_BITS)))
        deadline = time.perf_counter() + self.time_ms / MS if self.time_ms else None
        done = 0
        while done < self.rollouts:
            root = self.root(game, view, sampler.sample(self.rng))
            if root is None:
                return
            yield root, rnd.getrandbits(SEED_BITS)
            done += per_root
            if deadline is not None and time.perf_counter() > deadline:
                return

    def rollout_move(self, state, legal: list[int], rnd: random.Random) -> int:
        """The fast rollout policy's move in ``state`` (``legal``: its legal moves, two or
        more), for playouts cut short by another player (:mod:`climbrl.policies.search`)."""
        raise NotImplementedError
