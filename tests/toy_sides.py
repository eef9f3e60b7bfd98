"""The engine and PettingZoo module of :class:`toy_game.ToySidesGame` (a registered game
names one module for each)."""

from toy_game import ToySidesGame as GAME  # noqa: F401
from toy_game import game_from_config, make_game  # noqa: F401
from toy_game import sides_env as env  # noqa: F401

__all__ = ["GAME", "env", "game_from_config", "make_game"]
