"""The games the table server seats, each through an adapter of its own module
(:mod:`.daifugo`, :mod:`.doudizhu`): what a lobby may choose, how a room's rules are checked,
the table of a match, and what the room offers beyond moves. Rooms and the server pick the
adapter by the room's game and never branch on its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TableGame:
    """One game of the lobby."""

    name: str
    players: tuple[int, ...]
    default_players: int
    rounds: tuple[int, ...]
    """the round (or deal) counts a room may play"""
    default_rounds: int
    rule_options: Callable[[], list[dict[str, Any]]]
    """the lobby's rules: name, default (and choices)"""
    check_rules: Callable[[int, int, dict[str, Any]], None]
    """``(players, rounds, rules)``: ``ValueError`` (or ``TypeError``) naming a bad rule"""
    new_table: Callable[[int, int, dict[str, Any], int], Any]
    """``(players, rounds, rules, seed)``: the table of a new match"""
    check_rule_value: Callable[[str, Any], bool]
    """a switch's value has the right type (before :attr:`check_rules`)"""
    counter: bool = True
    """the lobby offers the card counter"""
    deals: bool = False
    """a match is several scored deals: the next deal, replaying one, undo against the
    computer, the hints counted on the result card"""
    move_cards: bool = False
    """a move may say which cards it uses (wild cards)"""
    engine: Callable[[dict[str, Any]], Any] | None = None
    """the engine of a table's ``rules_dict()`` (what a CPU worker process rebuilds)"""
    prepare: Callable[[], None] | None = None
    """build the engines of the lobby's usual tables ahead of the first room"""
    build_engine: Callable[[int, int, dict[str, Any]], Any] = lambda players, rounds, rules: None
    """``(players, rounds, rules)``: build (or find built) the engine of a new room's table,
    which the server does in a thread before making the room"""


def table_games() -> dict[str, TableGame]:
    """Every game of the lobby, by name, in the lobby's order."""
    from .daifugo import TABLE_GAMES as CLIMBING_GAMES
    from .doudizhu import TABLE_GAME

    return {**{g.name: g for g in CLIMBING_GAMES}, TABLE_GAME.name: TABLE_GAME}


def prepare_engines() -> None:
    """Build and pin every game's usual engines, those of the lobby's tables with their
    default rules (Daifugo and President: a quarter of a second; Dou Dizhu's three- and
    four-player tables: seconds and about 50 MB), so that no room of theirs builds one while
    rooms play."""
    for game in table_games().values():
        if game.prepare is not None:
            game.prepare()
