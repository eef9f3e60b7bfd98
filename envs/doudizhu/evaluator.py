"""Hand evaluation for bidding and for bots: the fewest plays that empty a hand, high cards,
bombs, and the bid advice of docs/rules.md ("3 high cards, 0 bombs, about 7 moves -> bid 1").

:meth:`HandEvaluator.min_plays` is exact with one pack. It searches the hand's own plays depth
first with memoisation on the remaining cards, branching only on plays that hold the hand's
lowest rank (some play must take that card, and the order of plays does not change their
number), and stops a branch as soon as it cannot beat the best count found so far. With two
packs (the four-player game: 25 to 33 cards, where that search can take seconds) it is the
estimate of :mod:`climbrl.envs.doudizhu.estimate`. Hands are card text (``"33344BR"``) or packed rank
counts.

The bid rule follows the advice of docs/rules.md ("count your high cards -- jokers, 2s and bombs -- and
how many plays you need; with few high cards and many plays, do not become landlord"):
``strength = high_cards + 2 * bombs - moves``; bid 3 from ``BID_THRESHOLDS[3]`` up, 2 from
``BID_THRESHOLDS[2]``, 1 from ``BID_THRESHOLDS[1]``, otherwise pass. The example there (3 high
cards, 0 bombs, 7 moves: strength -4) gives bid 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import (
    BLACK_JOKER,
    BYTE_BITS,
    NUM_RANKS,
    NUMBER_RANKS,
    RED_JOKER,
    THREE,
    TWO,
    Setup,
    contains,
    counts,
    size,
)
from .catalog import BOMB_WIDTH, NUM_BIDS, get_catalog
from .estimate import PlayEstimator
from .moves import MoveGenerator

BID_THRESHOLDS = {3: -1, 2: -3, 1: -5}
"""Least strength for each bid (see the module docstring)."""
BOMB_WEIGHT = 2
"""A bomb or the rocket counts as this many high cards in the strength."""
SHOW_FROM_STRENGTH = BID_THRESHOLDS[3] + 2
"""Open hand: the advice shows a landlord's hand from this strength up (a hand well above
what a bid of 3 needs: showing it doubles the stake and tells the peasants every card)."""


@dataclass(frozen=True)
class HandValue:
    """What the bid advice looks at."""

    moves: int
    """Fewest plays that empty the hand."""
    high_cards: int
    """Jokers and 2s."""
    bombs: int
    """Four-of-a-kinds, plus 1 for the rocket."""

    @property
    def strength(self) -> int:
        return self.high_cards + BOMB_WEIGHT * self.bombs - self.moves

    def advice(self, bid: int) -> str:
        """The bid advice line (docs/rules.md), e.g. ``"3 high cards, 0 bombs, about 7 moves -> bid 1"``."""
        return self.line("pass" if bid == 0 else f"bid {bid}")

    def line(self, action: str) -> str:
        """The advice line ending in the move ``action`` (``"bid 1"``, ``"call"``, ``"pass"``)."""
        cards = "card" if self.high_cards == 1 else "cards"
        bombs = "bomb" if self.bombs == 1 else "bombs"
        moves = "move" if self.moves == 1 else "moves"
        return (
            f"{self.high_cards} high {cards}, {self.bombs} {bombs}, about {self.moves} {moves}"
            f" -> {action}"
        )


def as_hand(hand: int | str, setup: Setup = THREE) -> int:
    """A hand given as card text (``"33344BR"``) or as packed rank counts, packed (within the
    deck of ``setup``)."""
    if isinstance(hand, str):
        return setup.parse(hand)
    if type(hand) is not int:
        raise TypeError(
            f"a hand is card text such as '33344' or packed rank counts, got {hand!r} "
            f"(type {type(hand).__name__})"
        )
    if hand < 0 or hand >> (BYTE_BITS * NUM_RANKS) or not contains(setup.full_deck, hand):
        raise ValueError(
            f"{hand!r} is not a packed hand: each byte counts a rank, within its copies"
        )
    return hand


class HandEvaluator:
    """Evaluates hands, given as card text (``"33344BR"``) or packed rank counts (see
    :mod:`climbrl.envs.doudizhu.cards`); keeps a bounded memo of sub-hand results.

    >>> HandEvaluator().min_plays("333444555666777")
    1
    """

    _MEMO_LIMIT = 1 << 18

    def __init__(self, moves: MoveGenerator | None = None):
        self.moves = moves or MoveGenerator(get_catalog())
        self.setup = self.moves.catalog.setup
        self._rocket = self.setup.rocket
        self._cards = self.moves.catalog.cards
        self._memo: dict[int, int] = {0: 0}
        self._floor: dict[int, int] = {}
        """a bound a search of the hand did not get under: its plays are at least that many"""
        self.exact = self.setup.packs == 1
        """whether :meth:`min_plays` is exact (one pack) or estimated (two packs)"""
        self._estimator = None if self.exact else PlayEstimator(self.setup)

    def __getstate__(self) -> dict:
        # the memos are caches: a pickled evaluator (in a saved game) leaves them behind
        return {**self.__dict__, "_memo": {0: 0}, "_floor": {}}

    def __setstate__(self, state: dict) -> None:
        # an evaluator pickled by an older version may lack a cache added since
        self.__dict__.update({**state, "_memo": {0: 0}, "_floor": {}})

    def min_plays(self, hand: int | str) -> int:
        """Fewest plays that empty ``hand`` (0 for no cards; estimated with two packs)."""
        hand = as_hand(hand, self.setup)
        if not self.exact:
            return self._estimator.plays(hand)
        if len(self._memo) + len(self._floor) > self._MEMO_LIMIT:
            self._memo, self._floor = {0: 0}, {}
        return self._solve(hand, size(hand))

    def _solve(self, hand: int, bound: int) -> int:
        """Fewest plays for ``hand`` if fewer than ``bound``, else some value ``>= bound``."""
        memo = self._memo
        known = memo.get(hand)
        if known is not None:
            return known
        if bound <= 1:
            return 1  # the caller can do no better anyway; not memoised
        floor = self._floor.get(hand, 0)
        if floor >= bound:
            return floor  # searched before with this bound or a higher one, in vain
        low = (hand & -hand).bit_length() - 1
        low_byte = 0xFF << (low - low % 8)
        cards = self._cards
        plays = [cards[a] for a in self.moves.lead(hand) if cards[a] & low_byte]
        plays.sort(key=size, reverse=True)
        best = bound
        exact = True
        for p in plays:
            if p == hand:
                best = 1
                break
            sub = self._solve(hand - p, best - 1)
            if sub + 1 < best:
                best = sub + 1
                if best == 1:
                    break
        else:
            exact = best < bound
        if exact:
            memo[hand] = best
        else:  # above any floor it had: a floor at or above bound returned at the start
            self._floor[hand] = bound
        return best

    def value(self, hand: int | str) -> HandValue:
        hand = as_hand(hand, self.setup)
        c = counts(hand)
        high = c[TWO] + c[BLACK_JOKER] + c[RED_JOKER]
        bombs = sum(1 for r in range(NUMBER_RANKS) if c[r] >= BOMB_WIDTH)
        if contains(hand, self._rocket):
            bombs += 1
        return HandValue(self.min_plays(hand), high, bombs)

    def recommend_bid(self, hand: int | str, high_bid: int = 0) -> int:
        """The bid the advice gives for ``hand`` (0 = pass), never at or below ``high_bid``
        (then it passes)."""
        return bid_for(self.value(hand), high_bid)

    def advise_show(self, hand: int | str) -> bool:
        """Open hand: whether the landlord holding ``hand`` should show it
        (:data:`SHOW_FROM_STRENGTH`)."""
        return self.value(hand).strength >= SHOW_FROM_STRENGTH

    def advice(self, hand: int | str, high_bid: int = 0) -> str:
        value = self.value(hand)
        return value.advice(bid_for(value, high_bid))


def bid_for(value: HandValue, high_bid: int = 0) -> int:
    """The bid for ``value`` under :data:`BID_THRESHOLDS`, or 0 when not above ``high_bid``."""
    for bid in range(NUM_BIDS, 0, -1):
        if value.strength >= BID_THRESHOLDS[bid]:
            return bid if bid > high_bid else 0
    return 0
