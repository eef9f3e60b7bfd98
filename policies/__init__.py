"""Players: scripted CPUs, neural checkpoints and humans, all behind one protocol.

>>> import policies
>>> player = policies.load("daifugo", "medium", seed=0)

Every player implements :class:`policies.base.Player` (``bind(game)``, then
``act(observation, view) -> action id``); :func:`load` finds one by name or checkpoint path
(:mod:`policies.registry`).

Importing it checks that ``envs`` is climbrl's (:func:`policies.install.check_envs`).
"""

from .install import check_envs

check_envs()  # first: the modules below read climbrl's envs (its registry of games)

from .base import Player, RandomPlayer, legal_ids  # noqa: E402
from .registry import GAMES, LEVELS, cpu_levels, known_names, load, parse_spec  # noqa: E402

__all__ = [
    "GAMES",
    "LEVELS",
    "Player",
    "RandomPlayer",
    "check_envs",
    "cpu_levels",
    "known_names",
    "legal_ids",
    "load",
    "parse_spec",
]
