"""The Daifugo / President rules engine (pure Python; no PettingZoo or torch).

>>> from climbrl.envs.daifugo import DaifugoGame, Rules
>>> game = DaifugoGame(Rules.preset("daifugo", players=4))
>>> game.catalog.action_to_str(game.catalog.action_from_str("3s JK=4s 5s"))
'3s JK=4s 5s'
"""

from .cards import Deck
from .catalog import Catalog, Move
from .engine import PHASE_EXCHANGE, PHASE_NAMES, PHASE_OVER, PHASE_PLAY, DaifugoGame, DaifugoState
from .rules import Rules

GAME = DaifugoGame
"""the game class (``climbrl.envs.GAMES`` reads its class facts)"""
DEFAULT_REWARD = "centered"


def make_game(name: str, players: int | None = None, rules: dict | None = None,
              reward: str | None = None) -> DaifugoGame:
    """The game of preset ``name`` (``daifugo``, ``president``) at ``players`` seats, with
    ``rules`` over the preset and the ``reward`` mode (default centered)."""
    return DaifugoGame(Rules.preset(name, players, **dict(rules or {})), reward or DEFAULT_REWARD)


def game_from_config(name: str, config: dict) -> DaifugoGame:
    """The game of a recorded ``config_dict()``."""
    return DaifugoGame(Rules.from_dict(config["rules"]), config["reward"])


__all__ = [
    "GAME",
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
    "game_from_config",
    "make_game",
]
