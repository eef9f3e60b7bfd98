"""Players: scripted CPUs, neural checkpoints and humans, all behind one protocol.

>>> from climbrl import policies
>>> player = policies.load("daifugo", "medium", seed=0)

Every player implements :class:`climbrl.policies.base.Player` (``bind(game)``, then
``act(observation, view) -> action id``); :func:`load` finds one by name or checkpoint path
(:mod:`climbrl.policies.registry`).
"""

from .base import Player, RandomPlayer, legal_ids
from .registry import GAMES, LEVELS, cpu_levels, known_names, load, parse_spec

__all__ = [
    "GAMES",
    "LEVELS",
    "Player",
    "RandomPlayer",
    "cpu_levels",
    "known_names",
    "legal_ids",
    "load",
    "parse_spec",
]
