"""The Dou Dizhu action catalog: every possible play, its readings, and the bidding actions.

A *play* is a rank multiset (see :mod:`climbrl.envs.doudizhu.cards`) that forms at least one legal
shape. One play may have several *readings* ``(kind, length, main)``: ``333444555666`` is an
airplane of 4 trios (main 3), an airplane of 3 trios 333444555 with single kickers 6-6-6
(main 3) and one of 3 trios 444555666 with kickers 3-3-3 (main 4). Every play gets one id, so
the policy never has to choose between readings; the engine lets a play beat the pile when any
of its readings does (see :meth:`Catalog.beats`).

Shapes (docs/rules.md, Dou Dizhu section)::

    kind              body                     kickers                 length
    single            1 card, any rank         -                       1
    pair              2 of a rank 3..2 (*)     -                       1
    trio              3 of a rank 3..2         -                       1
    trio_single       trio                     1 single                1
    trio_pair         trio                     1 pair                  1
    chain             1 card each, 3..A run    -                       5..12 cards
    pair_chain        2 cards each, 3..A run   -                       3..10 pairs (**)
    airplane          3 cards each, 3..A run   -                       2..6 trios (**)
    airplane_single   airplane                 1 single per trio       2..5 trios (**)
    airplane_pair     airplane                 1 pair per trio         2..4 trios (**)
    four_two_single   4 of a rank 3..2         2 singles               1
    four_two_pair     4 of a rank 3..2         2 pairs                 1
    bomb              4 of a rank 3..2 (*)     -                       its cards: 4 (*)
    rocket            every joker: B + R (*)   -                       1

Kickers are never of a body rank. Single kickers may repeat a rank but never hold the rocket
(both jokers); pair kickers are distinct ranks (the two jokers of a pack are not a pair). A
play never has more cards than the largest hand (20), which caps the lengths above. ``main``
is the body rank (the lowest rank of a chain body); two readings compare only with equal kind
and length.

(*) The four-player game (two packs, :func:`climbrl.envs.doudizhu.cards.setup_for`) differs: pairs
include ``BB`` and ``RR`` (two copies of a joker), so may pair kickers; bombs hold 4 to 8 cards
of a rank (a bomb's length is its number of cards); the rocket is all four jokers ``BBRR``
(kickers never hold all four). (**) Its 33-card hands allow longer pair chains (12 pairs) and
airplanes (11 trios bare, 8 with singles, 6 with pairs).

Ids are laid end to end in named segments (``catalog.table``)::

    bid (4: pass, 1, 2, 3) | pass (1) | single | pair | ... | bomb | rocket

With ``bidding="rob"`` the bid segment holds ``bid pass``, ``call`` and ``rob``; with
``open_hand`` a ``show`` segment (``show``, ``hide``: the landlord's choice to play with its
hand shown) follows it. A play sits in the segment of its first reading in the kind order
above, ordered inside it by (length, main, cards). Each catalog is built once per process
(:func:`get_catalog`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

from ..core.catalog import Segment, SegmentTable
from ..core.checks import as_action
from ..core.layout import ObsLayout
from .bidding import BID_STYLES, BIDDING_TEXTS, BIDDING_WORDS, CLASSIC, NUM_BIDS, SHOW_TEXTS
from .cards import (
    BLACK_JOKER,
    CHAIN_RANKS,
    NUM_RANKS,
    NUMBER_RANKS,
    RANKS,
    THREE,
    UNIT,
    CardParseError,
    Setup,
    contains,
    counts,
    format_cards,
    setup_for,
    size,
)


class Kind(IntEnum):
    """The 14 shapes, in catalog order."""

    SINGLE = 0
    PAIR = 1
    TRIO = 2
    TRIO_SINGLE = 3
    TRIO_PAIR = 4
    CHAIN = 5
    PAIR_CHAIN = 6
    AIRPLANE = 7
    AIRPLANE_SINGLE = 8
    AIRPLANE_PAIR = 9
    FOUR_TWO_SINGLE = 10
    FOUR_TWO_PAIR = 11
    BOMB = 12
    ROCKET = 13

    @property
    def label(self) -> str:
        return self.name.lower()


NUM_KINDS = len(Kind)
BOMB_WIDTH = 4
"""The fewest cards of a bomb (and the width of every bomb of one pack)."""


@dataclass(frozen=True)
class ShapeSpec:
    """How one kind is built: a body of ``length`` consecutive ranks with ``width`` cards each,
    plus ``kickers_per_unit * length`` kickers of ``kicker_width`` cards (1 single, 2 pair)."""

    kind: Kind
    width: int
    min_length: int = 1
    chain: bool = False
    kicker_width: int = 0
    kickers_per_unit: int = 0

    @property
    def cards_per_unit(self) -> int:
        return self.width + self.kicker_width * self.kickers_per_unit

    def max_length(self, setup: Setup = THREE) -> int:
        if not self.chain:
            return 1
        return min(CHAIN_RANKS, setup.landlord_hand_size // self.cards_per_unit)

    def lengths(self, setup: Setup = THREE) -> range:
        return range(self.min_length, self.max_length(setup) + 1)

    def main_ranks(self, setup: Setup = THREE) -> int:
        """Body ranks are ``0 .. main_ranks - 1``: chains up to A; bodies no wider than a joker's
        copies (singles; pairs with two packs) the jokers too; the rest 3..2."""
        if self.chain:
            return CHAIN_RANKS
        return NUM_RANKS if self.width <= setup.joker_copies else NUMBER_RANKS

    def kickers(self, length: int) -> int:
        return self.kickers_per_unit * length


SPECS: tuple[ShapeSpec, ...] = (
    ShapeSpec(Kind.SINGLE, 1),
    ShapeSpec(Kind.PAIR, 2),
    ShapeSpec(Kind.TRIO, 3),
    ShapeSpec(Kind.TRIO_SINGLE, 3, kicker_width=1, kickers_per_unit=1),
    ShapeSpec(Kind.TRIO_PAIR, 3, kicker_width=2, kickers_per_unit=1),
    ShapeSpec(Kind.CHAIN, 1, min_length=5, chain=True),
    ShapeSpec(Kind.PAIR_CHAIN, 2, min_length=3, chain=True),
    ShapeSpec(Kind.AIRPLANE, 3, min_length=2, chain=True),
    ShapeSpec(Kind.AIRPLANE_SINGLE, 3, 2, chain=True, kicker_width=1, kickers_per_unit=1),
    ShapeSpec(Kind.AIRPLANE_PAIR, 3, 2, chain=True, kicker_width=2, kickers_per_unit=1),
    ShapeSpec(Kind.FOUR_TWO_SINGLE, 4, kicker_width=1, kickers_per_unit=2),
    ShapeSpec(Kind.FOUR_TWO_PAIR, 4, kicker_width=2, kickers_per_unit=2),
    ShapeSpec(Kind.BOMB, BOMB_WIDTH),
)
"""Every kind but the rocket, indexed by ``Kind`` (bombs: the narrowest, see
:func:`enumerate_readings`)."""
assert all(spec.kind == i for i, spec in enumerate(SPECS))

ROCKET_CARDS = THREE.rocket
"""The rocket of one pack: ``B`` + ``R``."""
SEGMENT_BID = "bid"
SEGMENT_SHOW = "show"
SEGMENT_PASS = "pass"


class Reading(NamedTuple):
    """One way to read a play: its kind, length (cards, pairs or trios of a chain; a bomb's
    cards; 1 for the rest) and main rank index (body rank; lowest rank of a chain)."""

    kind: Kind
    length: int
    main: int

    def __repr__(self) -> str:
        return f"Reading(Kind.{self.kind.name}, {self.length}, {self.main})"

    def describe(self) -> str:
        """Human text: ``"airplane_single x3 from 4"``, ``"trio_pair 3"``, ``"bomb 3"``."""
        if self.length == 1 or self.kind == Kind.BOMB:
            return f"{self.kind.label} {RANKS[self.main]}"
        return f"{self.kind.label} x{self.length} from {RANKS[self.main]}"


@dataclass(frozen=True)
class Play:
    """One catalog play as a value: its id, its cards as text and its readings. The ``repr``
    pastes back: ``Play.parse('33344')`` (a play of the default catalog)."""

    action: int
    text: str
    readings: tuple[Reading, ...]

    @classmethod
    def parse(cls, text: str) -> Play:
        """The play written ``text`` (cards in any order); ``CatalogError`` if it is none."""
        catalog = get_catalog()
        return catalog.play(catalog.action_from_str(text))

    def __repr__(self) -> str:
        return f"Play.parse({self.text!r})"


class CatalogError(ValueError):
    """Text or an id that names no action of the catalog (a ``ValueError``)."""


def run_of(start: int, length: int, width: int) -> int:
    """Packed cards of ``width`` cards of each rank ``start .. start + length - 1``."""
    return sum(width * UNIT[r] for r in range(start, start + length))


def single_kicker_sets(avail: list[tuple[int, int]], count: int,
                       rocket: int = ROCKET_CARDS) -> list[int]:
    """Every multiset of ``count`` single kickers drawn from ``avail``, a list of ``(rank, cap)``,
    as packed ints; never one that holds the ``rocket``."""
    out: list[int] = []
    n = len(avail)

    def rec(i: int, left: int, acc: int) -> None:
        if not left:
            out.append(acc)
            return
        for j in range(i, n):
            r, cap = avail[j]
            unit = UNIT[r]
            for take in range(1, min(cap, left) + 1):
                rec(j + 1, left - take, acc + take * unit)

    rec(0, count, 0)
    return [k for k in out if not contains(k, rocket)]


def pair_kicker_sets(ranks: list[int], count: int, rocket: int = ROCKET_CARDS) -> list[int]:
    """Every set of ``count`` pair kickers of distinct ranks from ``ranks``, packed; never one
    that holds the ``rocket``."""
    sets = (sum(2 * UNIT[r] for r in combo) for combo in combinations(ranks, count))
    return [k for k in sets if not contains(k, rocket)]


def enumerate_readings(setup: Setup = THREE):
    """Yield ``(reading, body, kickers)`` packed for every reading of every legal play."""
    copies = setup.copies
    for spec in SPECS:
        if spec.kind == Kind.BOMB:
            for width in range(BOMB_WIDTH, setup.max_copies + 1):
                for main in range(spec.main_ranks(setup)):
                    yield Reading(Kind.BOMB, width, main), width * UNIT[main], 0
            continue
        for length in spec.lengths(setup):
            for main in range(spec.main_ranks(setup) - length + 1):
                body = run_of(main, length, spec.width)
                reading = Reading(spec.kind, length, main)
                if not spec.kicker_width:
                    yield reading, body, 0
                    continue
                body_ranks = range(main, main + length)
                k = spec.kickers(length)
                if spec.kicker_width == 1:
                    avail = [(r, copies[r]) for r in range(NUM_RANKS) if r not in body_ranks]
                    kicks = single_kicker_sets(avail, k, setup.rocket)
                else:
                    pairs = [r for r in range(NUM_RANKS) if r not in body_ranks and copies[r] >= 2]
                    kicks = pair_kicker_sets(pairs, k, setup.rocket)
                for kick in kicks:
                    yield reading, body, kick
    yield Reading(Kind.ROCKET, 1, BLACK_JOKER), setup.rocket, 0


ACTION_FEATURES = ObsLayout(
    [
        ("counts", (NUM_RANKS,)),
        ("kind", (NUM_KINDS,)),
        ("pass", (1,)),
        ("bid", (NUM_BIDS + 1,)),
        ("call", (1,)),
        ("rob", (1,)),
        ("show", (len(SHOW_TEXTS),)),
        ("length", (1,)),
        ("main", (1,)),
        ("cards", (1,)),
    ]
)
"""Columns of :meth:`Catalog.action_features`: rank counts / copies, one-hot kind of the first
reading, play pass, one-hot bid (pass, 1, 2, 3; the pass of every bidding), call and rob (the
rob bidding), show and hide (open hand), length / the longest, main rank / 14 and number of
cards / the largest hand (each scaled into [0, 1])."""


class Catalog:
    """Every action id of Dou Dizhu for one table (``setup``), bidding style and open-hand
    option, with its cards, readings and text. Immutable once built: the per-id tables are
    tuples; the generation dictionaries (``body_ids``, ``kicker_ids``, ``id_of_cards``) are
    shared by every game and must only be read."""

    def __init__(self, setup: Setup = THREE, bidding: str = CLASSIC, open_hand: bool = False):
        if bidding not in BID_STYLES:
            raise ValueError(f"bidding {bidding!r} is not one of {BID_STYLES}")
        self.setup = setup
        self.bidding = bidding
        self.open_hand = open_hand
        readings: dict[int, list[Reading]] = {}
        parts: list[tuple[Reading, int, int]] = []
        for reading, body, kick in enumerate_readings(setup):
            cards = body + kick
            readings.setdefault(cards, []).append(reading)
            parts.append((reading, body, kick))
        text = {}
        for cards, rs in readings.items():
            rs.sort()
            text[cards] = format_cards(cards)

        def order(cards: int):
            first = readings[cards][0]
            return (first.kind, first.length, first.main, text[cards])

        plays = sorted(readings, key=order)
        by_kind: list[list[int]] = [[] for _ in Kind]
        for cards in plays:
            by_kind[readings[cards][0].kind].append(cards)

        bid_texts = BIDDING_TEXTS[bidding]
        show_texts = SHOW_TEXTS if open_hand else ()
        self.table = SegmentTable()
        self.bid_segment = self.table.add(SEGMENT_BID, len(bid_texts))
        self.show_segment = (self.table.add(SEGMENT_SHOW, len(show_texts)) if open_hand
                             else Segment(SEGMENT_SHOW, self.table.size, 0))
        self.pass_segment = self.table.add(SEGMENT_PASS, 1)
        self.kind_segments = tuple(self.table.add(k.label, len(by_kind[k])) for k in Kind)
        self.num_actions = self.table.size
        self.PASS = self.pass_segment.start
        self.BID_PASS = self.bid_segment.start
        self.SHOW = self.show_segment.start
        """``SHOW`` shows the landlord's hand, ``SHOW + 1`` keeps it hidden (open hand only)."""

        n_special = self.pass_segment.stop
        self.cards: tuple[int, ...] = (0,) * n_special + tuple(plays)
        """``cards[id]``: packed cards of each action (0 for pass, bids and show)."""
        self.readings: tuple[tuple[Reading, ...], ...] = ((),) * n_special + tuple(
            tuple(readings[c]) for c in plays
        )
        self.id_of_cards: dict[int, int] = {c: n_special + i for i, c in enumerate(plays)}
        self.texts: tuple[str, ...] = (
            bid_texts + show_texts + ("pass",) + tuple(text[c] for c in plays)
        )
        self._special = {t: i for i, t in enumerate(self.texts[:n_special])}
        self.num_cards: tuple[int, ...] = tuple(size(c) for c in self.cards)

        # Generation tables: ids by body, and by body and kickers.
        self.body_ids: list[dict[tuple[int, int], int]] = [{} for _ in Kind]
        self.kicker_ids: list[dict[tuple[int, int], dict[int, int]]] = [{} for _ in Kind]
        for reading, body, kick in parts:
            action = self.id_of_cards[body + kick]
            key = (reading.length, reading.main)
            if reading.kind == Kind.ROCKET or not SPECS[reading.kind].kicker_width:
                self.body_ids[reading.kind][key] = action
            else:
                self.kicker_ids[reading.kind].setdefault(key, {})[kick] = action
        self.ROCKET = self.body_ids[Kind.ROCKET][(1, BLACK_JOKER)]
        bomb_main = [-1] * self.num_actions
        bomb_power = [-1] * self.num_actions
        for (width, main), action in self.body_ids[Kind.BOMB].items():
            bomb_main[action] = main
            bomb_power[action] = width * NUM_RANKS + main
        self.rocket_power = (setup.max_copies + 1) * NUM_RANKS
        """The power of the rocket: above every bomb."""
        bomb_power[self.ROCKET] = self.rocket_power
        self.bomb_main: tuple[int, ...] = tuple(bomb_main)
        """Rank of a bomb (``-1`` for every other action, the rocket included)."""
        self.bomb_power: tuple[int, ...] = tuple(bomb_power)
        """How strong a bomb or the rocket is (``-1`` for every other action): more cards first,
        then the higher rank; the rocket above all."""
        self._features: np.ndarray | None = None

    # -- ids and text ------------------------------------------------------------------------

    def bid_action(self, bid: int) -> int:
        """Id of the bidding move ``bid``: 0 = pass, then the segment's moves in order (the bids
        1..3, or ``call`` and ``rob``)."""
        if not 0 <= bid < self.bid_segment.size:
            raise CatalogError(f"bid {bid} is not 0 (pass) .. {self.bid_segment.size - 1}")
        return self.BID_PASS + bid

    def bid_of(self, action: int) -> int:
        """The bid of a bidding action (0 = pass); ``ValueError`` for other ids."""
        if action not in self.bid_segment:
            raise CatalogError(f"action {action} is not a bidding action")
        return action - self.BID_PASS

    def is_bid(self, action: int) -> bool:
        return action in self.bid_segment

    def is_show(self, action: int) -> bool:
        """Whether ``action`` is the open-hand choice (``show`` or ``hide``)."""
        return action in self.show_segment

    def action_to_str(self, action: int) -> str:
        """Text of ``action``: ``"bid pass"``, ``"bid 2"``, ``"call"``, ``"show"``, ``"pass"`` or
        the sorted cards."""
        if type(action) is not int:
            action = as_action(action)
        if not 0 <= action < self.num_actions:
            raise CatalogError(f"action id {action} is outside the catalog [0, {self.num_actions})")
        return self.texts[action]

    def action_from_str(self, text: str, bidding: bool = False) -> int:
        """Id of ``text``. ``"pass"`` means the bidding pass when ``bidding`` is true; so do
        ``"1"``..``"3"`` for bids. Cards may be in any order (``"43 33"`` is ``"33344"``)."""
        if not isinstance(text, str):
            raise TypeError(
                f"action text must be a string such as '33344' or 'pass', got {text!r} "
                f"(type {type(text).__name__})"
            )
        clean = " ".join(text.strip().lower().split())
        if clean == "bid 0" or (bidding and clean in ("pass", "0")):
            return self.BID_PASS
        if bidding and self.bidding == CLASSIC and clean in [str(b) for b in range(1, NUM_BIDS + 1)]:
            clean = f"bid {clean}"
        action = self._special.get(clean)
        if action is not None:
            return action
        if clean.startswith("bid") or clean in BIDDING_WORDS:
            bids = "', '".join(self.texts[self.bid_segment.start : self.bid_segment.stop])
            raise CatalogError(f"{text!r}: bids are '{bids}'")
        if clean in SHOW_TEXTS:
            raise CatalogError(f"{text!r}: only an open-hand game has "
                               f"'{SHOW_TEXTS[0]}' and '{SHOW_TEXTS[1]}'")
        if not clean:
            raise CatalogError("empty action text; write cards such as '33344', or 'pass'")
        try:
            cards = self.setup.parse(text)
        except CardParseError as e:
            raise CatalogError(str(e)) from None
        action = self.id_of_cards.get(cards)
        if action is None:
            raise CatalogError(
                f"{format_cards(cards)!r} is not a Dou Dizhu play: no shape reads it"
            )
        return action

    def play(self, action: int) -> Play:
        """The play ``action`` as a value; ``CatalogError`` for pass, bids and unknown ids."""
        if not self.pass_segment.stop <= action < self.num_actions:
            raise CatalogError(f"action {action} is not a play (pass, a bid or out of range)")
        return Play(action, self.texts[action], self.readings[action])

    def describe(self, action: int) -> str:
        """Human text with the readings, e.g. ``"33344 (trio_pair 3)"``."""
        text = self.action_to_str(action)
        if not self.readings[action]:
            return text
        return f"{text} ({', '.join(r.describe() for r in self.readings[action])})"

    # -- comparisons -------------------------------------------------------------------------

    def beats(self, action: int, pile: int) -> bool:
        """Whether play ``action`` beats play ``pile`` (docs/rules.md): the rocket beats everything,
        a bomb beats every non-bomb and weaker bombs (:attr:`bomb_power`), otherwise some reading
        of ``action`` must share kind and length with a reading of ``pile`` and have a higher
        main rank."""
        power = self.bomb_power[action]
        pile_power = self.bomb_power[pile]
        if power >= 0 or pile_power >= 0:
            return power > pile_power
        for kind, length, main in self.readings[action]:
            for pk, pl, pm in self.readings[pile]:
                if kind == pk and length == pl and main > pm:
                    return True
        return False

    # -- features ----------------------------------------------------------------------------

    def action_features(self) -> np.ndarray:
        """A read-only float32 table ``[num_actions, ACTION_FEATURES.size]`` describing every
        action (see :data:`ACTION_FEATURES`), for policies that embed actions. Built on first
        call."""
        if self._features is None:
            self._features = self._build_features()
        return self._features

    def _build_features(self) -> np.ndarray:
        lay = ACTION_FEATURES
        out = np.zeros((self.num_actions, lay.size), np.float32)
        col = {name: sl.start for name, sl in lay.slices.items()}
        out[self.BID_PASS, col["bid"]] = 1.0
        for action in list(self.bid_segment)[1:]:
            text = self.texts[action]
            if self.bidding == CLASSIC:
                out[action, col["bid"] + action - self.BID_PASS] = 1.0
            else:
                out[action, col[text]] = 1.0
        for action in self.show_segment:
            out[action, col["show"] + action - self.SHOW] = 1.0
        out[self.PASS, col["pass"]] = 1.0
        plays = np.arange(self.pass_segment.stop, self.num_actions)
        rank_counts = np.frombuffer(
            b"".join(counts(self.cards[a]) for a in plays), np.uint8
        ).reshape(len(plays), NUM_RANKS)
        out[plays, lay.slices["counts"]] = rank_counts / self.setup.max_copies
        first = np.array([self.readings[a][0] for a in plays], np.int64)
        longest = max(first[:, 1].max(), 1)
        out[plays, col["kind"] + first[:, 0]] = 1.0
        out[plays, col["length"]] = first[:, 1] / longest
        out[plays, col["main"]] = first[:, 2] / (NUM_RANKS - 1)
        out[plays, col["cards"]] = np.array(self.num_cards)[plays] / self.setup.landlord_hand_size
        out.flags.writeable = False
        return out


@lru_cache(maxsize=None)
def get_catalog(players: int = THREE.players, bidding: str = CLASSIC,
                open_hand: bool = False) -> Catalog:
    """The catalog of a table of ``players`` with a bidding style and the open-hand option
    (built on first use, then shared; it is immutable)."""
    return Catalog(setup_for(players), bidding, open_hand)
