"""The Daifugo / President rules engine (pure Python; no PettingZoo or torch).

>>> from envs.daifugo import DaifugoGame, Rules
>>> game = DaifugoGame(Rules.preset("daifugo", players=4))
>>> game.catalog.action_to_str(game.catalog.action_from_str("3s JK=4s 5s"))
'3s JK=4s 5s'
"""

from .cards import Deck
from .catalog import Catalog, Move
from .engine import PHASE_EXCHANGE, PHASE_NAMES, PHASE_OVER, PHASE_PLAY, DaifugoGame, DaifugoState
from .rules import Rules

__all__ = [
    "PHASE_EXCHANGE",
    "PHASE_NAMES",
    "PHASE_OVER",
    "PHASE_PLAY",
    "Catalog",
    "DaifugoGame",
    "DaifugoState",
    "Deck",
    "Move",
    "Rules",
]
