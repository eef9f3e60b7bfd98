"""Dou Dizhu: the pure rules engine (no PettingZoo, gymnasium or torch).

* :mod:`.cards` -- ranks, packed rank counts, card text.
* :mod:`.catalog` -- every play with its readings, the bidding actions, action features.
* :mod:`.moves` -- legal-play generation (leads and replies).
* :mod:`.engine` -- :class:`DoudizhuGame` and :class:`DoudizhuState` (deal, bidding, play,
  scoring, deal codes, views).
* :mod:`.observation` -- the seat-relative observation layout and writer.
* :mod:`.compiled` -- the optional compiled core (``_fast.c``, ``_engine.c``: the observation
  writer, the legal plays and the apply in C, used where it was built; ``CLIMBRL_PURE=1``
  keeps pure Python).
* :mod:`.evaluator` -- fewest plays to empty a hand, high cards, bombs, bid advice.
* :mod:`.roles` -- the networks the trainer trains, the two sides, the training starts.

The PettingZoo environment over it is :mod:`climbrl.envs.doudizhu_v1`.
"""

from .engine import DealError, DoudizhuConfig, DoudizhuGame, DoudizhuState, Phase

GAME = DoudizhuGame
"""the game class (``climbrl.envs.GAMES`` reads its class facts)"""


def make_game(name: str = "doudizhu", players: int | None = None, rules: dict | None = None,
              reward: str | None = None) -> DoudizhuGame:
    """The game at ``players`` seats (3, or 4: two packs), with the options ``rules`` and the
    ``reward`` mode over the defaults."""
    rules = dict(rules or {})
    if players is not None:
        rules["players"] = players
    if reward is not None:
        rules["reward"] = reward
    return DoudizhuGame(DoudizhuConfig(**rules))


def game_from_config(name: str, config: dict) -> DoudizhuGame:
    """The game of a recorded ``config_dict()``."""
    return make_game(name, rules={k: v for k, v in config.items() if k not in ("game", "version")})


__all__ = ["GAME", "game_from_config", "make_game", "DealError", "DoudizhuConfig", "DoudizhuGame", "DoudizhuState", "Phase"]
