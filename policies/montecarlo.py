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

import numpy as np

#: a candidate replaces the scripted choice only when better by this many standard errors
DEFAULT_SWITCH_Z = 1.5
#: fewer playouts per candidate than this: keep the scripted choice
MIN_SAMPLES = 3


def paired_pick(values: list[list[float]], z: float = DEFAULT_SWITCH_Z) -> int:
    """Index of the chosen candidate given each one's playout values (index 0 is kept unless
    another candidate's mean paired gain over it exceeds ``z`` standard errors)."""
    base = np.asarray(values[0], dtype=float)
    if base.size < MIN_SAMPLES:
        return 0
    best, best_gain = 0, 0.0
    for i in range(1, len(values)):
        diff = np.asarray(values[i], dtype=float) - base
        gain = float(diff.mean())
        se = float(diff.std(ddof=1)) / math.sqrt(diff.size)
        if gain > best_gain and gain > z * se:
            best, best_gain = i, gain
    return best


def check_budget(rollouts, time_ms, candidates, switch_z) -> tuple[int, float, int, float]:
    """The search knobs, validated: ``ValueError`` naming a bad one."""
    if int(rollouts) < 1:
        raise ValueError(f"rollouts must be at least 1, got {rollouts!r}")
    if float(time_ms) < 0:
        raise ValueError(f"time_ms must be >= 0, got {time_ms!r}")
    if int(candidates) < 1:
        raise ValueError(f"candidates must be at least 1, got {candidates!r}")
    if float(switch_z) < 0:
        raise ValueError(f"switch_z must be >= 0, got {switch_z!r}")
    return int(rollouts), float(time_ms), int(candidates), float(switch_z)
