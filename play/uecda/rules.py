"""The rules the UECda server plays: the engine's ``Rules.preset("uecda")``.

Five players, one pack and one joker, 5/4/3/2/1 points by finishing place, the 2-1 exchange
(none in a class block's first game), reseating every 3 games, the 3 of diamonds' holder
leading, runs of 5+ revolting, the joker naming its suit in sets and standing past the 3 or
the 2 in runs, a pass on an empty pile, the stall guard (``docs/rules.md``, "UECda standard
rules"). The protocol code reads every rule from the preset; nothing is restated here.
"""

from __future__ import annotations

from functools import lru_cache

from climbrl.envs.daifugo import DaifugoGame, Rules

PRESET = "uecda"
#: the preset's fixed facts the protocol needs (read from it, not restated)
_PRESET = Rules.preset(PRESET, rounds=1)
PLAYERS = _PRESET.players
POINTS = _PRESET.points
EXCHANGE = _PRESET.exchange


def uecda_rules(rounds: int = 1) -> Rules:
    """A match of ``rounds`` games under the UECda rules (one game: a round)."""
    return Rules.preset(PRESET, rounds=rounds)


@lru_cache(maxsize=1)
def uecda_game() -> DaifugoGame:
    """The engine game of one UECda game (built once: the catalog is the slow part)."""
    return DaifugoGame(uecda_rules(), reward="raw")


def uecda_match(games: int) -> DaifugoGame:
    """The engine game of a match of ``games`` games (the official server's schedule: class
    blocks, reseating, the stall guard), sharing :func:`uecda_game`'s catalog."""
    return DaifugoGame(uecda_rules(games), reward="raw", catalog=uecda_game().catalog)
