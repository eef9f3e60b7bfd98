"""A fast estimate of the fewest plays that empty a large hand (the four-player game's 25 to
33 cards, where the exact search of :mod:`climbrl.envs.doudizhu.evaluator` can take seconds).

The estimate searches the chains only (chains, pair chains, airplanes) and counts what is
left rank by rank: a rank holding a bomb's cards is one bomb, a trio one play, pairs and
singles one play each; then every trio, and every trio of an airplane, takes one of those
pairs or singles along as its kicker (one play fewer each); the rocket is one play. Chains are
chosen by a depth-first search over their starting ranks, lowest first, memoised on the cards
left. It ignores four-with-two and the all-or-nothing kickers of an airplane, so it may be off
by a play or so; the bots only compare it between moves.
"""

from __future__ import annotations

from .cards import (BLACK_JOKER, CHAIN_RANKS, NUMBER_RANKS, RED_JOKER, UNIT, Setup, contains,
                    counts)
from .catalog import BOMB_WIDTH, SPECS, Kind

CHAIN_KINDS = (Kind.CHAIN, Kind.PAIR_CHAIN, Kind.AIRPLANE)
"""The kinds searched: ``(width, fewest links)`` of each from its shape."""
TRIO_WIDTH = SPECS[Kind.AIRPLANE].width


class PlayEstimator:
    """Estimates for the hands of one table (``setup``), memoised (bounded)."""

    _MEMO_LIMIT = 1 << 16

    def __init__(self, setup: Setup):
        self.setup = setup
        self._chains = [(SPECS[k].width, SPECS[k].min_length) for k in CHAIN_KINDS]
        self._memo: dict = {}
        """hands, and the search's subproblems ``(cards, start, units)``, to their plays"""

    def plays(self, hand: int) -> int:
        """The estimated fewest plays of ``hand`` (packed rank counts; 0 for no cards)."""
        known = self._memo.get(hand)
        if known is None:
            if len(self._memo) > self._MEMO_LIMIT:
                self._memo.clear()
            known = self._memo[hand] = self._search(list(counts(hand)), 0, 0, self._memo)
        return known

    def _search(self, c: list[int], start: int, units: int, seen: dict) -> int:
        """Fewest plays of the cards ``c`` with chains starting at rank ``start`` or above
        still to choose (``units``: trios of the airplanes chosen, each taking a kicker)."""
        key = (bytes(c), start, units)
        known = seen.get(key)
        if known is not None:
            return known
        best = self._rest(c, units)
        for r in range(start, CHAIN_RANKS):
            if not c[r]:
                continue
            for width, least in self._chains:
                end = r
                while end < CHAIN_RANKS and c[end] >= width:
                    end += 1
                longest = end - r
                if longest < least:
                    continue
                # the shortest and the longest chain only: enough for an estimate, and it
                # keeps the search small in a 33-card hand
                for stop in {r + least, end}:
                    for s in range(r, stop):
                        c[s] -= width
                    gain = stop - r if width == TRIO_WIDTH else 0
                    best = min(best, 1 + self._search(c, r, units + gain, seen))
                    for s in range(r, stop):
                        c[s] += width
        seen[key] = best
        return best

    def _rest(self, c: list[int], units: int) -> int:
        """Plays for the cards ``c`` left outside the chains, ``units`` airplane trios taking a
        kicker each."""
        plays = kickers = 0
        for r in range(NUMBER_RANKS):
            n = c[r]
            if n >= BOMB_WIDTH or n == TRIO_WIDTH:
                plays += 1
                units += n == TRIO_WIDTH
            elif n:
                kickers += 1
        jokers = c[BLACK_JOKER] * UNIT[BLACK_JOKER] + c[RED_JOKER] * UNIT[RED_JOKER]
        if jokers and contains(jokers, self.setup.rocket):
            plays += 1
        else:
            kickers += (c[BLACK_JOKER] > 0) + (c[RED_JOKER] > 0)
        return plays + kickers - min(units, kickers)
