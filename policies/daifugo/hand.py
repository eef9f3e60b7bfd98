"""Hand and move analysis for the Daifugo / President bots.

Strength of a rank depends on the order in force: in the normal order rank index ``r`` (3 is
0, 2 is 12) has strength ``r``; reversed (revolution XOR jack back) it has ``12 - r``; jokers
alone have :data:`JOKER_STRENGTH` in both. A *group* is a play that empties part of a hand in
one go (a set, a run or a single); :func:`count_groups` estimates how few groups a hand splits
into, the number of turns it needs when it leads every time. The strategy tips of docs/rules.md are
written in these terms: fewer groups is better (do not break sets), play the weakest groups
first, keep the *controls* (2s, jokers and, with the eight cut, 8s) to retake the lead.
"""

from __future__ import annotations

from dataclasses import dataclass

from climbrl.envs.daifugo.cards import JOKER_RANK, NUM_RANKS, RANK_8
from climbrl.envs.daifugo.catalog import GIVE, PASS, SET
from climbrl.envs.daifugo.rules import MIN_RUN, REVOLUTION_SIZE

TOP_RANK = NUM_RANKS - 1
JOKER_STRENGTH = NUM_RANKS
#: rank strength from which a card counts as strong (A and 2 in the normal order)
STRONG_FROM = TOP_RANK - 1


def strength(rank: int, reversed_: bool) -> int:
    """Strength of ``rank`` in the order in force (jokers alone: :data:`JOKER_STRENGTH`)."""
    if rank >= JOKER_RANK:
        return JOKER_STRENGTH
    return TOP_RANK - rank if reversed_ else rank


@dataclass(frozen=True)
class MoveFacts:
    """Static facts of every catalog id, as tuples indexed by id (built once per game).

    ``top[rev][a]`` / ``bottom[rev][a]``: strength of the move's strongest / weakest card in
    that order; ``revolution[a]``: the move turns the order over; ``eight[a]``: it holds a real
    8 and the eight cut is on."""

    top: tuple[tuple[int, ...], tuple[int, ...]]
    bottom: tuple[tuple[int, ...], tuple[int, ...]]
    revolution: tuple[bool, ...]
    eight: tuple[bool, ...]

    @classmethod
    def build(cls, game) -> MoveFacts:
        cat = game.catalog
        rules = game.rules
        top, bottom = [], []
        for rev in (False, True):
            t, b = [], []
            for m in cat.moves:
                if m.kind == PASS:
                    t.append(-1)
                    b.append(-1)
                    continue
                lo, hi = strength(m.low, rev), strength(m.high, rev)
                t.append(max(lo, hi))
                b.append(min(lo, hi))
            top.append(tuple(t))
            bottom.append(tuple(b))
        revolution = tuple(
            rules.revolution and m.kind == SET and m.size >= REVOLUTION_SIZE for m in cat.moves
        )
        eight = tuple(
            rules.eight_cut and (bool(cat.has8[m.id]) or (m.kind == GIVE and m.low == RANK_8))
            for m in cat.moves
        )
        return cls((top[0], top[1]), (bottom[0], bottom[1]), revolution, eight)


class HandShape:
    """Counts of one hand: cards per rank, rank masks per suit, jokers, total."""

    __slots__ = ("counts", "suit_ranks", "jokers", "size")

    def __init__(self, game, hand: int):
        deck = game.deck
        self.counts = [(hand & m).bit_count() for m in deck.rank_mask]
        self.suit_ranks = game.suit_ranks(deck.presence(hand))
        self.jokers = deck.joker_count(hand)
        self.size = hand.bit_count()


def _segments(ranks: int) -> list[tuple[int, int]]:
    """Maximal runs of consecutive set bits of a 13-bit rank mask, as ``(low, length)``, only
    those at least :data:`MIN_RUN` long."""
    held = ranks
    for shift in range(1, MIN_RUN):
        held &= ranks >> shift
    if not held:  # no MIN_RUN consecutive ranks: the common case, without the walk
        return []
    out = []
    r = 0
    while r < NUM_RANKS:
        if ranks >> r & 1:
            start = r
            while r < NUM_RANKS and ranks >> r & 1:
                r += 1
            if r - start >= MIN_RUN:
                out.append((start, r - start))
        else:
            r += 1
    return out


def count_groups(shape: HandShape, runs: bool, suited_runs: bool) -> int:
    """How few plays (sets, runs, singles) the real cards of a hand split into; jokers are
    left out (they join any group or play alone as a control).

    Three cheap splits are tried and the smallest kept: numbers only (each rank one set or
    single); runs first, then the rest by number; runs only from ranks held once.
    """
    counts = shape.counts
    by_rank = sum(1 for c in counts if c)
    if not runs:
        return by_rank
    best = by_rank
    once = sum(1 << r for r in range(NUM_RANKS) if counts[r] == 1)
    for singles_only in (False, True):
        left = counts[:]
        groups = 0
        if suited_runs:
            for suit_mask in shape.suit_ranks:
                usable = suit_mask & once if singles_only else suit_mask
                for low, length in _segments(usable):
                    groups += 1
                    for r in range(low, low + length):
                        left[r] -= 1
        else:
            present = once if singles_only else sum(1 << r for r in range(NUM_RANKS) if counts[r])
            for low, length in _segments(present):
                groups += 1
                for r in range(low, low + length):
                    left[r] -= 1
        groups += sum(1 for c in left if c)
        best = min(best, groups)
    return best


def revolution_gain(shape: HandShape, reversed_: bool) -> int:
    """How much stronger the hand's real cards get if the order turns over (negative: weaker):
    the tip of docs/rules.md, a revolution is worth it with many weak cards and few strong ones."""
    gain = 0
    for r, c in enumerate(shape.counts):
        if c:
            gain += c * (strength(r, not reversed_) - strength(r, reversed_))
    return gain


def is_control_move(game, facts: MoveFacts, action: int, reversed_: bool) -> bool:
    """The move spends (or, in the exchange, gives away) a control: a joker, the top number in
    force, or a cutting 8."""
    cat = game.catalog
    if cat.kind[action] == PASS:
        return False
    return (
        cat.njokers[action] > 0
        or cat.low[action] == JOKER_RANK
        or facts.top[reversed_][action] >= TOP_RANK
        or facts.eight[action]
    )

