"""Scripted players for Daifugo and President (one engine): ``easy``, ``medium``, ``hard``.

:mod:`.hand` analyses hands and moves, :mod:`.heuristic` holds the rule-based levels and
:mod:`.search` the determinized Monte Carlo player.
"""

from __future__ import annotations

from .heuristic import EasyPlayer, MediumPlayer, MediumWeights
from .search import HardPlayer

LEVELS = {"easy": EasyPlayer, "medium": MediumPlayer, "hard": HardPlayer}


def make(level: str, seed=None, **knobs):
    """The scripted player of ``level`` (``easy``, ``medium`` or ``hard``) with its knobs."""
    if level not in LEVELS:
        raise ValueError(f"unknown Daifugo level {level!r}; levels are {sorted(LEVELS)}")
    return LEVELS[level](seed, **knobs)


__all__ = ["LEVELS", "EasyPlayer", "HardPlayer", "MediumPlayer", "MediumWeights", "make"]
