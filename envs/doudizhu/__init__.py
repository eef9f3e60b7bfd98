"""Dou Dizhu: the pure rules engine (no PettingZoo, gymnasium or torch).

* :mod:`.cards` -- ranks, packed rank counts, card text.
* :mod:`.catalog` -- every play with its readings, the bidding actions, action features.
* :mod:`.moves` -- legal-play generation (leads and replies).
* :mod:`.engine` -- :class:`DoudizhuGame` and :class:`DoudizhuState` (deal, bidding, play,
  scoring, deal codes, views).
* :mod:`.observation` -- the seat-relative observation layout and writer.
* :mod:`.evaluator` -- fewest plays to empty a hand, high cards, bombs, bid advice.

The PettingZoo environment over it is :mod:`envs.doudizhu_v1`.
"""

from .engine import DealError, DoudizhuConfig, DoudizhuGame, DoudizhuState, Phase

__all__ = ["DealError", "DoudizhuConfig", "DoudizhuGame", "DoudizhuState", "Phase"]
