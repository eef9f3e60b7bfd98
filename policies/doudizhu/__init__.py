"""Scripted Dou Dizhu players after the CPU levels of docs/rules.md: ``easy``, ``medium``, ``hard``
(:mod:`.heuristic`), and the terminal table text (:mod:`.talk`)."""

from __future__ import annotations

from .heuristic import DoudizhuWeights, EasyPlayer, HardPlayer, MediumPlayer
from .search import SearchPlayer

LEVELS = {"easy": EasyPlayer, "medium": MediumPlayer, "hard": SearchPlayer}


def make(level: str, seed=None, **knobs):
    """The scripted player of ``level`` (``easy``, ``medium`` or ``hard``) with its knobs."""
    if level not in LEVELS:
        raise ValueError(f"unknown Dou Dizhu level {level!r}; levels are {sorted(LEVELS)}")
    return LEVELS[level](seed, **knobs)


__all__ = [
    "LEVELS",
    "DoudizhuWeights",
    "EasyPlayer",
    "HardPlayer",
    "MediumPlayer",
    "SearchPlayer",
    "make",
]
