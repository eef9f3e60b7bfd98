"""The laizi variant: the four cards of a rank drawn with each deal are wild.

A play is still a catalog id: the cards it reads as (``3333``, ``34567``). Which physical
cards leave the hand follows the project's ruling: the hand's own cards of each rank go
first, and wild cards make up for what it lacks (a wild card of the wild rank played as that
rank is simply itself). So a hand holds a play when, over the ranks 3..2, the cards it lacks
are no more than its wild cards (jokers are never stood in for).

A bomb is *soft* when a wild card stands in for one of its cards, *hard* when its four cards
are natural, and the four wild cards together are the *wild bomb*: rocket > wild bomb > hard
bombs > soft bombs > every other play; bombs of one tier compare by rank (:func:`bomb_tier`).

Legal plays are found by a scan of the catalog's rank counts with numpy (a hand's wild cards
may stand for any rank, which the structural generator of :mod:`climbrl.envs.doudizhu.moves` does
not model): about a millisecond a call, cached by the engine.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from .cards import NUM_RANKS, NUMBER_RANKS, UNIT, counts
from .catalog import Catalog

BEAT_CACHE = 1 << 10
"""Piles whose beaten-by masks are kept."""


class Tier(IntEnum):
    """How strong a bomb is before its rank."""

    SOFT = 0
    HARD = 1
    WILD = 2
    ROCKET = 3


def substitutes(hand: int, wild: int, cards: int) -> int:
    """How many wild cards stand in for another rank when ``hand`` plays ``cards``."""
    have = counts(hand)
    need = counts(cards)
    return sum(max(need[r] - have[r], 0) for r in range(NUMBER_RANKS) if r != wild)


def taken(hand: int, wild: int, cards: int) -> int:
    """The physical cards (packed) ``hand`` gives up to play ``cards``: its own cards of each
    rank first, wild cards for the rest."""
    have = counts(hand)
    need = counts(cards)
    out = 0
    wilds = 0
    for r in range(NUM_RANKS):
        if r == wild:
            wilds += need[r]
            continue
        own = min(need[r], have[r])
        out += own * UNIT[r]
        wilds += need[r] - own
    return out + wilds * UNIT[wild]


def bomb_tier(catalog: Catalog, action: int, wild: int, subs: int) -> int:
    """The power of a bomb or the rocket played with ``subs`` wild cards standing in, tier
    first (:class:`Tier`), then the catalog's power; ``-1`` for every other play."""
    power = catalog.bomb_power[action]
    if power < 0:
        return -1
    span = catalog.rocket_power + 1
    if action == catalog.ROCKET:
        return Tier.ROCKET * span
    if catalog.bomb_main[action] == wild:
        return Tier.WILD * span + power
    return (Tier.SOFT if subs else Tier.HARD) * span + power


class WildMoves:
    """Legal plays of a hand with wild cards, for one catalog (one pack)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        start = catalog.pass_segment.stop
        self._ids = np.arange(start, catalog.num_actions)
        rows = np.frombuffer(b"".join(counts(c) for c in catalog.cards[start:]), np.uint8)
        rows = rows.reshape(len(self._ids), NUM_RANKS).astype(np.int16)
        copies = catalog.setup.copies
        self._excess = [[np.maximum(rows[:, r] - held, 0).astype(np.uint8)
                         for held in range(copies[r] + 1)] for r in range(NUMBER_RANKS)]
        """``_excess[rank][held]``: per play, the cards of ``rank`` it needs beyond ``held``
        (one column a rank: summing columns is faster than reducing rows)"""
        self._needs = [(r, rows[:, r] > 0) for r in range(NUMBER_RANKS, NUM_RANKS)]
        """per joker rank, the plays that need it (no wild stands in for a joker)"""
        self._bombs = np.array([catalog.bomb_power[a] >= 0 for a in self._ids])
        # one row per reading of every play, for the beaten-by masks
        plays, kinds, lengths, mains = [], [], [], []
        for i, action in enumerate(self._ids):
            for kind, length, main in catalog.readings[action]:
                plays.append(i)
                kinds.append(kind)
                lengths.append(length)
                mains.append(main)
        self._reading = tuple(np.array(x, np.int32) for x in (plays, kinds, lengths, mains))
        self._beats: dict[int, np.ndarray] = {}

    def held(self, hand: int, wild: int) -> np.ndarray:
        """A mask over the plays (ids from ``pass_segment.stop``) that ``hand`` can make."""
        have = counts(hand)
        excess = self._excess
        short = excess[wild][0].copy()  # the wild rank: its cards are the wild ones
        for r in range(NUMBER_RANKS):
            if r != wild:
                short += excess[r][have[r]]
        ok = short <= have[wild]
        for r, needs in self._needs:
            if not have[r]:
                ok &= ~needs
        return ok

    def lead(self, hand: int, wild: int) -> list[int]:
        """Every play ``hand`` can lead."""
        return self._ids[self.held(hand, wild)].tolist()

    def replies(self, hand: int, wild: int, pile: int, pile_power: int) -> list[int]:
        """Every play of ``hand`` that beats ``pile`` (``pile_power``: its :func:`bomb_tier`)."""
        held = self.held(hand, wild)
        cat = self.catalog
        if pile_power >= 0:
            ids = self._ids[held & self._bombs].tolist()
            return [a for a in ids
                    if bomb_tier(cat, a, wild, substitutes(hand, wild, cat.cards[a])) > pile_power]
        return self._ids[held & (self._bombs | self._beaten_by(pile))].tolist()

    def _beaten_by(self, pile: int) -> np.ndarray:
        """A mask over the plays that beat the non-bomb ``pile`` by a reading."""
        mask = self._beats.get(pile)
        if mask is None:
            if len(self._beats) >= BEAT_CACHE:
                self._beats.clear()
            plays, kinds, lengths, mains = self._reading
            mask = np.zeros(len(self._ids), bool)
            for kind, length, main in self.catalog.readings[pile]:
                mask[plays[(kinds == kind) & (lengths == length) & (mains > main)]] = True
            self._beats[pile] = mask
        return mask


def holds(hand: int, wild: int, cards: int) -> bool:
    """Whether ``hand`` can play ``cards``: the jokers held, and the cards lacking of the ranks
    3..2 no more than its wild cards."""
    have = counts(hand)
    need = counts(cards)
    if any(need[r] > have[r] for r in range(NUMBER_RANKS, NUM_RANKS)):
        return False
    natural = [0 if r == wild else have[r] for r in range(NUMBER_RANKS)]
    return sum(max(need[r] - natural[r], 0) for r in range(NUMBER_RANKS)) <= have[wild]
