"""The rules the UECda server plays, as our engine's :class:`Rules`.

Five players, one pack and one joker, revolution, eight cut, lock, the spade three's return,
same-suit runs; no jack back and no fall of the capital; 5/4/3/2/1 points by finishing
place; the 2-1 exchange. :func:`uecda_rules` takes ``Rules.preset("uecda")`` when the engine
has that preset, else builds the same switches by hand.
"""

from __future__ import annotations

from functools import lru_cache

from climbrl.envs.daifugo import DaifugoGame, Rules

PLAYERS = 5
JOKERS = 1
POINTS = (5, 4, 3, 2, 1)
TITLES = ("daifugo", "fugo", "heimin", "hinmin", "daihinmin")
EXCHANGE = (2, 1)


def uecda_rules() -> Rules:
    """One game (a round) of the UECda rules; the server and the client run the games."""
    try:
        return Rules.preset("uecda", rounds=1)
    except ValueError:
        return Rules(preset_name="uecda", players=PLAYERS, rounds=1, jokers=JOKERS,
                     jack_back=False, fall_of_capital=False, exchange=EXCHANGE, points=POINTS,
                     titles=TITLES)


@lru_cache(maxsize=1)
def uecda_game() -> DaifugoGame:
    """The engine game of :func:`uecda_rules` (built once: the catalog is the slow part)."""
    return DaifugoGame(uecda_rules(), reward="raw")
