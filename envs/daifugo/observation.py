"""Observations and text rendering for Daifugo / President, written from ``(state, seat)`` only.

The observation is one float32 vector cut into named slices (:func:`build_layout`). Its size,
its fields and their bounds are the same for every table of a preset, whatever its rules,
player count or round count: one network reads every table of its game. Rows that describe
seats are seat-relative: row 0 is the observer, row 1 the next seat in turn order; there is a
row for every seat of the preset's largest table (``P``: Daifugo 4, President 8, UECda 5)
and the rows past this table's seats are zeros, with ``present`` 0. Card fields have one
slot per (rank, suit), rank-major in the normal order (``3s 3h 3d 3c 4s ... 2c``), holding
how many copies, then one slot with the number of jokers (0 when the deck has none).

=============== ============ =============================================================
field           shape        content
=============== ============ =============================================================
hand            (K,)         own cards
played          (K,)         cards played this round with their suits shown (pile included)
pile_cards      (K,)         the cards of the play on the pile (of an unsuited play: its jokers)
gave            (K,)         cards this seat gave in this round's exchange
received        (K,)         cards this seat received in this round's exchange
present         (P,)         1 for the rows of the seats at this table
hand_counts     (P,)         cards held per seat
pile_shape      (4,)         one-hot: empty, single, set, run
pile_size       (1,)         cards in the pile's play
pile_low        (14,)        one-hot lowest rank of the pile's play (13 = jokers alone)
pile_high       (14,)        one-hot highest rank
pile_owner      (P,)         one-hot seat that made the pile's play
passed          (P,)         seats that passed on this pile
active          (P,)         seats still in the round
places          (P, P)       one-hot place reached this round (finished seats)
titles          (P, P)       one-hot place in the previous round (title)
flags           (4,)         revolution, jack back, order reversed, pile locked
lock_suits      (4,)         the locked suits
to_give         (1,)         cards this seat still has to give back in the exchange
round           (1,)         rounds of the match already over (0 in the first)
rounds          (1,)         rounds in the match
rounds_left     (1,)         rounds still to come after this one
scores          (P,)         points so far over the most a match can give (rounds x the
                             largest points of a place, in absolute value): in [-1, 1]
phase           (3,)         one-hot: exchange, play, over
to_move         (P,)         one-hot seat to move
played_ranks    (13,)        real cards of this round's unsuited plays, per rank (*)
pile_ranks      (13,)        real cards of the pile's play per rank, when it is unsuited (*)
switches        (S,)         every on/off rule of :class:`~climbrl.envs.daifugo.rules.Rules` but
                             the uecda preset's own, in the order of :data:`SWITCHES`: 1 when on
choices         (C,)         one-hot per rule with named options (:data:`CHOICES`: run
                             suits, first leader, later leader, later dealing)
decks           (1,)         packs of 52 in the deck
jokers          (1,)         jokers in the deck
exchange        (P // 2,)    cards given per tier of the exchange (top pair first)
place_points    (P,)         points of each place (1st first) over the largest in absolute
                             value
=============== ============ =============================================================

``K = 52 + 1``, ``P`` the seat rows; ``S`` and ``C`` come from the rules config's fields; the
sizes are derived from the engine's limits, never typed.

(*) Rules with *unsuited* plays, where the player names ranks and no suits: sets of two
decks (``7 7``) and any-suit runs (``3 4 5``). The engine picks which copies leave the hand,
so their suits would tell the other seats which cards stay in it; the observation counts
those cards by rank instead, and ``played``/``pile_cards`` leave them out. Under rules
without unsuited plays (one deck, same-suit runs: every Daifugo preset) both fields are zeros.
"""

from __future__ import annotations

import dataclasses
from array import array
from functools import lru_cache
from math import ceil

import numpy as np

from ..core.bits import iter_bits
from ..core.layout import ObsLayout
from .cards import CARDS_PER_DECK, NUM_RANKS, NUM_SUITS, SUIT_NIBBLE, SUITS
from .catalog import KIND_NAMES, MAX_MOVE_SIZE
from .rules import (
    DEALING_LATER,
    LEADERS_FIRST,
    LEADERS_LATER,
    MAX_DECKS,
    MAX_JOKERS,
    MIN_PLAYERS,
    RUN_SUITS,
    Rules,
    max_rounds,
)

PILE_SHAPES = ("empty", "single", "set", "run")
FLAGS = ("revolution", "jack_back", "reversed", "locked")
PHASES = ("exchange", "play", "over")
CARD_FIELDS = ("hand", "played", "pile_cards", "gave", "received")
WORD = 64
#: the ``array`` type code of the observation's float32 entries
FLOAT32 = "f"
#: the on/off rules the observation carries, in the rules config's field order: those of
#: the daifugo and president presets (the switches added for the uecda preset are fixed by
#: it, so they are left out and every existing network keeps its observation)
SWITCHES = tuple(f.name for f in dataclasses.fields(Rules)
                 if f.type == "bool" and f.name not in Rules.UECDA_SWITCHES)
#: the rules with named options, and their options (one-hot each); an option outside these
#: (the uecda preset's) sets no slot of its rule
CHOICES = {
    "run_suits": RUN_SUITS,
    "first_leader": LEADERS_FIRST,
    "later_leader": tuple(o for o in LEADERS_LATER if o not in Rules.UECDA_OPTIONS["later_leader"]),
    "later_dealing": tuple(o for o in DEALING_LATER
                           if o not in Rules.UECDA_OPTIONS["later_dealing"]),
}
#: the most cards of any deck, and the most a hand is dealt (fewest players)
MAX_CARDS = MAX_DECKS * CARDS_PER_DECK + MAX_JOKERS
MAX_HAND = ceil(MAX_CARDS / MIN_PLAYERS)
CARD_SLOTS = CARDS_PER_DECK + 1
#: the real cards of one pack (a card field's slots but the jokers'), and the shift from a
#: card's bit to its rank (the four suits of a rank are one nibble)
ONE_DECK = (1 << CARDS_PER_DECK) - 1
RANK_SHIFT = (NUM_SUITS - 1).bit_length()
#: the pile's fields that its id alone sets, back to back in the layout
PILE_BLOCK = ("pile_shape", "pile_size", "pile_low", "pile_high")


def build_layout(game) -> ObsLayout:
    """The layout of a preset: it reads only ``game.seat_rows``, the preset's most rounds and
    the engine's limits."""
    rows = game.seat_rows
    most_rounds = max_rounds(game.rules.preset_name)
    ranks = NUM_RANKS + 1
    rank_copies = MAX_DECKS * NUM_SUITS
    return ObsLayout(
        [
            *[(name, (CARD_SLOTS,), 0, max(MAX_DECKS, MAX_JOKERS)) for name in CARD_FIELDS],
            ("present", (rows,)),
            ("hand_counts", (rows,), 0, MAX_CARDS),
            ("pile_shape", (len(PILE_SHAPES),)),
            ("pile_size", (1,), 0, MAX_MOVE_SIZE),
            ("pile_low", (ranks,)),
            ("pile_high", (ranks,)),
            ("pile_owner", (rows,)),
            ("passed", (rows,)),
            ("active", (rows,)),
            ("places", (rows, rows)),
            ("titles", (rows, rows)),
            ("flags", (len(FLAGS),)),
            ("lock_suits", (NUM_SUITS,)),
            ("to_give", (1,), 0, MAX_HAND),
            ("round", (1,), 0, most_rounds - 1),
            ("rounds", (1,), 0, most_rounds),
            ("rounds_left", (1,), 0, most_rounds - 1),
            ("scores", (rows,), -1, 1),
            ("phase", (len(PHASES),)),
            ("to_move", (rows,)),
            ("played_ranks", (NUM_RANKS,), 0, rank_copies),
            ("pile_ranks", (NUM_RANKS,), 0, rank_copies),
            ("switches", (len(SWITCHES),)),
            ("choices", (sum(len(options) for options in CHOICES.values()),)),
            ("decks", (1,), 0, MAX_DECKS),
            ("jokers", (1,), 0, MAX_JOKERS),
            ("exchange", (rows // 2,), 0, MAX_HAND),
            ("place_points", (rows,), -1, 1),
        ]
    )


def _largest(values) -> int:
    """The largest absolute value (1 when every value is 0), to scale points by."""
    return max(max(abs(v) for v in values), 1)


class _Writer:
    """Precomputed offsets for one game, so ``observe`` is a handful of numpy writes."""

    def __init__(self, game):
        layout = game.layout
        deck = game.deck
        rules = game.rules
        self.layout = layout
        self.sl = layout.slices
        self.words = (deck.size + WORD - 1) // WORD
        self.stride = self.words * WORD
        self.decks = deck.decks
        self.real = deck.real_cards
        self.jokers = deck.jokers
        self.card_fields = [layout.slices[n] for n in CARD_FIELDS]
        self.card_rows = len(CARD_FIELDS)
        self.card_slots = self.card_fields[0].stop - self.card_fields[0].start
        self.card_end = self.card_fields[-1].stop
        self.card_bytes = self.card_rows * self.stride // 8
        if list(layout.slices)[: self.card_rows] != list(CARD_FIELDS) or self.card_end != (
            self.card_rows * self.card_slots
        ):
            raise AssertionError("the card fields must open the layout, back to back")
        #: start of every other field, counted from the end of the card fields
        self.offset = o = {n: sl.start - self.card_end for n, sl in layout.slices.items()}
        self.has_unsuited = game.catalog.has_unsuited
        self.last_round = rules.rounds - 1
        self.score_scale = 1.0 / (rules.rounds * _largest(rules.points))
        # the fields that only the table sets (its seats and rules): written once here, each
        # observation starts from a copy
        tail = [0.0] * (layout.size - self.card_end)
        for row in range(game.num_players):
            tail[o["present"] + row] = 1.0
        for i, name in enumerate(SWITCHES):
            tail[o["switches"] + i] = float(getattr(rules, name))
        col = o["choices"]
        for name, options in CHOICES.items():
            value = getattr(rules, name)
            if value in options:
                tail[col + options.index(value)] = 1.0
            col += len(options)
        tail[o["rounds"]] = rules.rounds
        tail[o["decks"]] = rules.decks
        tail[o["jokers"]] = rules.jokers
        for tier, count in enumerate(rules.exchange):
            tail[o["exchange"] + tier] = count
        top = _largest(rules.points)
        for place, points in enumerate(rules.points):
            tail[o["place_points"] + place] = points / top
        self.template = np.array(tail, np.float32)
        #: absolute index of every field written per step (the card fields' joker slots:
        #: their last slot), so a step's values go in with one indexed write
        self.at = {n: sl.start for n, sl in layout.slices.items()}
        self.joker_slots = [sl.stop - 1 for sl in self.card_fields]
        self.joker_bits = (1 << deck.jokers) - 1
        # for SeatObserver: each field's start as an attribute (``hand_at``, ``passed_at``...)
        for name, start in self.at.items():
            setattr(self, f"{name}_at", start)
        self.real_mask = deck.real_mask
        self.catalog = game.catalog
        #: the fields ``pile_shape`` to ``pile_high``, back to back: a row per pile
        self.pile_block = layout.slices["pile_high"].stop - self.pile_shape_at
        #: the rows made so far, shared by every game of this catalog (float32 arrays, which
        #: a memoryview slice takes as they are and which pickle with the catalog)
        self.pile_rows: dict[int, array] = game.catalog.__dict__.setdefault(
            "_observed_pile_rows", {})
        if list(layout.slices).index("pile_high") - list(layout.slices).index("pile_shape") != (
                len(PILE_BLOCK) - 1):
            raise AssertionError(f"the fields {PILE_BLOCK} must be back to back")
        self.suit_rows, self.rank_start, self.below = _card_tables()


    def pile_row(self, a: int) -> array:
        """The fields ``pile_shape`` to ``pile_high`` of pile ``a`` (-1: none), made on first
        use: a row per pile met, of the catalog's ids. The catalog keeps them, so they are
        plain ``array('f')`` (a memoryview could not be pickled: neither could the catalog,
        nor a game or a state of it)."""
        row = self.pile_rows.get(a)
        if row is None:
            values = np.zeros(self.pile_block, np.float32)
            if a < 0:
                values[0] = 1
            else:
                cat, o = self.catalog, self.pile_shape_at
                values[cat.kind[a]] = 1
                values[self.pile_size_at - o] = cat.msize[a]
                # a joker below the 3 (UECda) reads as the 3: nothing is lower
                values[self.pile_low_at - o + max(cat.low[a], 0)] = 1
                values[self.pile_high_at - o + cat.high[a]] = 1
            row = self.pile_rows[a] = array(FLOAT32, values.tobytes())
        return row


@lru_cache(maxsize=1)
def _card_tables() -> tuple[list[memoryview], list[int], list[int]]:
    """What :meth:`SeatObserver._write_cards` reads, made once for every game:

    - the four slots of a rank in a card field, by the rank's suits held in the first pack
      (low nibble) and in the second (high nibble): each slot the copies held;
    - by the bit length of a mask of one pack's cards, the first bit of its highest card's
      rank;
    - by a bit, the mask of the bits below it."""
    table = np.array([[(suits >> s & 1) + (suits >> NUM_SUITS + s & 1) for s in range(NUM_SUITS)]
                      for suits in range(1 << 2 * NUM_SUITS)], np.float32)
    rank_start = [max(length - 1, 0) >> RANK_SHIFT << RANK_SHIFT
                  for length in range(CARDS_PER_DECK + 1)]
    return [memoryview(row) for row in table], rank_start, [(1 << bit) - 1
                                                             for bit in range(CARDS_PER_DECK)]


def _writer(game) -> _Writer:
    w = game.__dict__.get("_obs_writer")
    if w is None:
        w = game._obs_writer = _Writer(game)
    return w


def observe(game, state, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` (the module table), into ``out`` when given: every entry is
    written, whatever ``out`` held. A handful of numpy calls and no per-card Python loop: the
    card fields in one unpack, the table's fields in one copy of the template, and every value
    that the state sets in one indexed write."""
    w = _writer(game)
    obs = np.empty(w.layout.size, np.float32) if out is None else out
    players = game.num_players
    rows = game.seat_rows

    # the five card fields (contiguous at the start) in one unpack: each mask in its own
    # 64-bit-aligned block, copies of two decks added; the jokers are counted below
    # an unsuited play's real cards are public by rank only (module docstring)
    cat = game.catalog
    a = state.pile
    pile_cards = state.pile_cards
    if w.has_unsuited and a >= 0 and cat.unsuited[a]:
        pile_cards &= game.deck.joker_mask
    hand = state.hands[seat]
    played = state.played & ~state.unsuited
    gave = state.gave[seat]
    received = state.received[seat]
    stride = w.stride
    packed = hand | played << stride | pile_cards << 2 * stride | gave << 3 * stride | (
        received << 4 * stride)
    raw = np.frombuffer(packed.to_bytes(w.card_bytes, "little"), np.uint8)
    bits = np.unpackbits(raw, bitorder="little").reshape(w.card_rows, stride)
    cards = obs[: w.card_end].reshape(w.card_rows, w.card_slots)
    if w.decks == 1:
        cards[:, :CARDS_PER_DECK] = bits[:, :CARDS_PER_DECK]
    else:
        np.add(bits[:, :CARDS_PER_DECK], bits[:, CARDS_PER_DECK : 2 * CARDS_PER_DECK],
               out=cards[:, :CARDS_PER_DECK])
        for copy in range(2, w.decks):
            cards[:, :CARDS_PER_DECK] += bits[:, copy * CARDS_PER_DECK : (copy + 1) * CARDS_PER_DECK]

    # every other field: the table's (a copy of the template), then the state's values
    obs[w.card_end :] = w.template
    real, joker_bits = w.real, w.joker_bits
    at = w.at
    idx = list(w.joker_slots)
    vals = [(hand >> real & joker_bits).bit_count(), (played >> real & joker_bits).bit_count(),
            (pile_cards >> real & joker_bits).bit_count(),
            (gave >> real & joker_bits).bit_count(), (received >> real & joker_bits).bit_count()]
    scale = w.score_scale
    hand_counts, scores = at["hand_counts"], at["scores"]
    passed, active = state.passed, state.active
    places, titles = state.places, state.titles
    hands, points = state.hands, state.scores
    order = state.order
    at_seat = order.index(seat)
    for row in range(players):
        s = order[(at_seat + row) % players]
        idx += (hand_counts + row, scores + row)
        vals += (hands[s].bit_count(), points[s] * scale)
        if passed >> s & 1:
            idx.append(at["passed"] + row)
            vals.append(1)
        if active >> s & 1:
            idx.append(at["active"] + row)
            vals.append(1)
        if places[s] >= 0:
            idx.append(at["places"] + row * rows + places[s])
            vals.append(1)
        if titles[s] >= 0:
            idx.append(at["titles"] + row * rows + titles[s])
            vals.append(1)
    if w.has_unsuited:
        deck = game.deck
        start = at["played_ranks"]
        idx += range(start, start + NUM_RANKS)
        vals += deck.rank_counts(state.unsuited)
        if a >= 0 and cat.unsuited[a]:
            start = at["pile_ranks"]
            idx += range(start, start + NUM_RANKS)
            vals += deck.rank_counts(state.pile_cards)
    if a >= 0:
        # a joker below the 3 (UECda) reads as the 3: nothing is lower
        idx += (at["pile_shape"] + cat.kind[a], at["pile_size"],
                at["pile_low"] + max(cat.low[a], 0), at["pile_high"] + cat.high[a],
                at["pile_owner"] + (order.index(state.last_player) - at_seat) % players)
        vals += (1, cat.msize[a], 1, 1, 1)
    else:
        idx.append(at["pile_shape"])
        vals.append(1)
    f0 = at["flags"]
    idx += (f0, f0 + 1, f0 + 2, f0 + 3)
    vals += (state.revolution, state.jack_back, state.revolution != state.jack_back,
             state.lock != 0)
    for s in iter_bits(state.lock):
        idx.append(at["lock_suits"] + s)
        vals.append(1)
    current = min(state.round, w.last_round)
    idx += (at["to_give"], at["round"], at["rounds_left"], at["phase"] + state.phase)
    vals += (sum(e[2] for e in state.pending if e[0] == seat), current, w.last_round - current, 1)
    if state.current_player >= 0:
        idx.append(at["to_move"] + (order.index(state.current_player) - at_seat) % players)
        vals.append(1)
    obs[idx] = vals
    return obs


class SeatObserver:
    """One seat's observation kept between calls and rewritten only where the state changed:
    what the env hands out every step (:meth:`observe`), equal at every step to
    :func:`observe` from scratch.

    Every part of the observation is a function of a few state values, its *key*, kept from
    the last call: a card field of one mask, a per-seat field of one list or bit set, the pile
    of ``(pile, last player, pile cards)``, the flags of ``(revolution, jack back, lock)``,
    the turn of ``(cards to give, round, phase)``. A step compares the keys (a play changes
    the pile, the played cards, the hand count of the seat that played; most of the rest
    stays) and rewrites only the parts whose key changed, and of those only the entries that
    changed: a card field by rank, the four slots of a rank in one copy of a precomputed row
    (:func:`_card_tables`) for each rank whose bits changed; ``played_ranks`` by the
    ranks that changed; a per-seat field by the rows that changed; the pile's previous
    entries zeroed by index. Entries go through a memoryview (a numpy call per entry costs
    more than the few entries a step changes). A new state object (a reset) or a new turn
    order (the uecda preset's reseating: every row moves) is written from scratch. The
    buffer is the observer's: callers copy it."""

    def __init__(self, game, seat: int):
        self.game = game
        self.seat = seat
        self.w = w = _writer(game)
        self.buf = np.empty(w.layout.size, np.float32)
        self.mv = memoryview(self.buf)
        #: the row of each absolute seat (set from the turn order of the state written)
        self.row: list[int] = []
        self.order: tuple[int, ...] = ()
        self.state = None

    def observe(self, state) -> np.ndarray:
        """The observation of this seat in ``state`` (the observer's buffer, written in place)."""
        if state is not self.state or state.order != self.order:
            # a reset, or the seats drawn anew (the uecda preset's reseating): every row moves
            observe(self.game, state, self.seat, self.buf)
            self._remember(state)
            return self.buf
        seat = self.seat
        hands = state.hands
        hand = hands[seat]
        if hand != self.hand:
            self._write_cards(self.w.hand_at, self.hand, hand)
            self.hand = hand
        if state.played != self.played or state.unsuited != self.unsuited:
            self._write_played(state.played, state.unsuited)
        if (state.pile_cards != self.pile_cards or state.pile != self.pile
                or state.last_player != self.last_player):
            self._write_pile(state)
        if hands != self.hands:
            self._write_counts(hands)
        mv, row = self.mv, self.row
        if state.passed != self.passed:
            self._write_seat_bits(self.w.passed_at, self.passed, state.passed)
            self.passed = state.passed
        if state.active != self.active:
            self._write_seat_bits(self.w.active_at, self.active, state.active)
            self.active = state.active
        # the seat to move: one slot (its row, -1 once the game is over)
        mover = state.current_player
        if mover != self.mover:
            base = self.w.to_move_at
            if self.mover >= 0:
                mv[base + row[self.mover]] = 0
            if mover >= 0:
                mv[base + row[mover]] = 1
            self.mover = mover
        if (state.revolution != self.revolution or state.jack_back != self.jack_back
                or state.lock != self.lock):
            self._write_flags(state)
        if state.pending or state.phase != self.phase or state.round != self.round:
            self._write_turn(state)
        # what changes between rounds only, and the exchange's cards
        if state.gave[seat] != self.gave or state.received[seat] != self.received:
            self._write_exchanged(state)
        if state.scores != self.scores:
            self.scores = state.scores[:]
            base, scale = self.w.scores_at, self.w.score_scale
            for s, points in enumerate(self.scores):
                mv[base + row[s]] = points * scale
        if state.places != self.places:
            self._write_places(self.w.places_at, state.places, self.places)
            self.places = state.places[:]
        if state.titles != self.titles:
            self._write_places(self.w.titles_at, state.titles, self.titles)
            self.titles = state.titles[:]
        return self.buf

    def _write_cards(self, base: int, old: int, new: int) -> None:
        """The slots of the card field at ``base`` that differ between masks ``old`` and
        ``new``: the jokers' count when a joker's bit changed, and the four slots of every
        rank of which a copy's bit changed (highest rank first), from a precomputed row."""
        w = self.w
        mv = self.mv
        diff = old ^ new
        if diff >> w.real:
            mv[base + CARDS_PER_DECK] = (new >> w.real).bit_count()
        rows, rank_start, below = w.suit_rows, w.rank_start, w.below
        if w.decks == 1:
            diff &= ONE_DECK
            while diff:
                at = rank_start[diff.bit_length()]
                i = base + at
                mv[i : i + NUM_SUITS] = rows[new >> at & SUIT_NIBBLE]
                diff &= below[at]
            return
        second = new >> CARDS_PER_DECK
        diff = (diff | diff >> CARDS_PER_DECK) & ONE_DECK
        while diff:
            at = rank_start[diff.bit_length()]
            i = base + at
            mv[i : i + NUM_SUITS] = rows[new >> at & SUIT_NIBBLE
                                        | (second >> at & SUIT_NIBBLE) << NUM_SUITS]
            diff &= below[at]

    def _write_played(self, played: int, unsuited: int) -> None:
        """``played`` (the cards of suited plays) and ``played_ranks`` (the real cards of
        unsuited plays, by rank: the ranks whose bits changed)."""
        w = self.w
        self._write_cards(w.played_at, self.played & ~self.unsuited, played & ~unsuited)
        if unsuited != self.unsuited:
            mv, base, rank_mask = self.mv, w.played_ranks_at, self.game.deck.rank_mask
            diff = self.unsuited ^ unsuited
            diff = (diff | diff >> CARDS_PER_DECK) & ONE_DECK
            while diff:
                rank = (diff & -diff).bit_length() - 1 >> RANK_SHIFT
                mv[base + rank] = (unsuited & rank_mask[rank]).bit_count()
                diff &= ~(SUIT_NIBBLE << (rank << RANK_SHIFT))
        self.played, self.unsuited = played, unsuited

    def _pile_cards(self, state) -> int:
        """The ``pile_cards`` field's mask (module docstring: an unsuited play is public by
        rank, so only its jokers show)."""
        a = state.pile
        if self.w.has_unsuited and a >= 0 and self.game.catalog.unsuited[a]:
            return state.pile_cards & self.game.deck.joker_mask
        return state.pile_cards

    def _write_pile(self, state) -> None:
        """The pile's fields: ``pile_shape`` to ``pile_high`` in one copy of the pile's row
        (:meth:`_Writer.pile_row`), ``pile_owner``'s slot, the ``pile_ranks`` of an unsuited
        play (the previous ones zeroed) and the ``pile_cards`` that changed."""
        w, mv = self.w, self.mv
        a = state.pile
        start = w.pile_shape_at
        mv[start : start + w.pile_block] = w.pile_rows.get(a) or w.pile_row(a)
        owner = self.row[state.last_player] if a >= 0 else -1
        if owner != self.owner:
            if self.owner >= 0:
                mv[w.pile_owner_at + self.owner] = 0
            if owner >= 0:
                mv[w.pile_owner_at + owner] = 1
            self.owner = owner
        if self.pile_ranks or w.has_unsuited and a >= 0 and self.game.catalog.unsuited[a]:
            self._write_pile_ranks(state)
        shown = self._pile_cards(state)
        if shown != self.pile_shown:
            self._write_cards(w.pile_cards_at, self.pile_shown, shown)
            self.pile_shown = shown
        self.pile, self.last_player, self.pile_cards = a, state.last_player, state.pile_cards

    def _write_pile_ranks(self, state) -> None:
        """``pile_ranks``: the real cards of an unsuited play on the pile, per rank (the
        ranks of the previous one zeroed)."""
        w, mv = self.w, self.mv
        base = w.pile_ranks_at
        for rank in self.pile_ranks:
            mv[base + rank] = 0
        ranks = []
        a = state.pile
        if a >= 0 and self.game.catalog.unsuited[a]:
            rank_mask = self.game.deck.rank_mask
            cards = state.pile_cards & w.real_mask
            seen = (cards | cards >> CARDS_PER_DECK) & ONE_DECK
            while seen:
                rank = (seen & -seen).bit_length() - 1 >> RANK_SHIFT
                mv[base + rank] = (cards & rank_mask[rank]).bit_count()
                ranks.append(rank)
                seen &= ~(SUIT_NIBBLE << (rank << RANK_SHIFT))
        self.pile_ranks = ranks

    def _write_seat_bits(self, base: int, old: int, now: int) -> None:
        """Rewrite the slots of a per-seat bit field (``passed``, ``active``) whose seats'
        bits differ between ``old`` and ``now``, each at its seat's row."""
        mv, row, diff = self.mv, self.row, old ^ now
        while diff:
            s = diff.bit_length() - 1
            mv[base + row[s]] = now >> s & 1
            diff ^= 1 << s

    def _write_counts(self, hands: list[int]) -> None:
        """``hand_counts``: the rows of the hands that changed."""
        mv, base = self.mv, self.w.hand_counts_at
        for hand, seen, row in zip(hands, self.hands, self.row):
            if hand != seen:
                mv[base + row] = hand.bit_count()
        self.hands = hands[:]

    def _write_flags(self, state) -> None:
        """``flags`` and ``lock_suits``, every slot."""
        w, mv = self.w, self.mv
        self.revolution, self.jack_back, self.lock = state.revolution, state.jack_back, state.lock
        f0 = w.flags_at
        mv[f0] = state.revolution
        mv[f0 + 1] = state.jack_back
        mv[f0 + 2] = state.revolution != state.jack_back
        mv[f0 + 3] = state.lock != 0
        for suit in range(NUM_SUITS):
            mv[w.lock_suits_at + suit] = state.lock >> suit & 1

    def _write_turn(self, state) -> None:
        """The turn's fields but ``to_move`` (:meth:`observe` writes its one slot), when
        the cards to give, the round or the phase changed."""
        to_give = _to_give(state, self.seat)
        if to_give == self.to_give and state.phase == self.phase and state.round == self.round:
            return
        w, mv = self.w, self.mv
        mv[w.phase_at + self.phase] = 0
        mv[w.phase_at + state.phase] = 1
        current = min(state.round, w.last_round)
        mv[w.to_give_at] = to_give
        mv[w.round_at] = current
        mv[w.rounds_left_at] = w.last_round - current
        self.to_give, self.phase, self.round = to_give, state.phase, state.round

    def _write_exchanged(self, state) -> None:
        """``gave`` and ``received``: the cards this seat gave and received in the exchange."""
        w = self.w
        gave, received = state.gave[self.seat], state.received[self.seat]
        self._write_cards(w.gave_at, self.gave, gave)
        self._write_cards(w.received_at, self.received, received)
        self.gave, self.received = gave, received

    def _write_places(self, base: int, now: list[int], before: list[int]) -> None:
        """A ``(P, P)`` one-hot per seat field (places, titles): the rows that changed."""
        mv, row, rows = self.mv, self.row, self.game.seat_rows
        for s, (p, q) in enumerate(zip(now, before)):
            if p != q:
                if q >= 0:
                    mv[base + row[s] * rows + q] = 0
                if p >= 0:
                    mv[base + row[s] * rows + p] = 1

    def _remember(self, state) -> None:
        """The keys of what the from-scratch write just wrote for ``state``."""
        w, seat = self.w, self.seat
        self.state = state
        self.order = order = state.order
        at_seat, players = order.index(seat), len(order)
        self.row = [(order.index(s) - at_seat) % players for s in range(players)]
        self.hand = state.hands[seat]
        self.played, self.unsuited = state.played, state.unsuited
        self.pile, self.last_player, self.pile_cards = (state.pile, state.last_player,
                                                        state.pile_cards)
        self.pile_shown = self._pile_cards(state)
        self.owner = self.row[state.last_player] if state.pile >= 0 else -1
        ranks = self.buf[w.pile_ranks_at : w.pile_ranks_at + NUM_RANKS]
        self.pile_ranks = np.flatnonzero(ranks).tolist()
        self.gave, self.received = state.gave[seat], state.received[seat]
        self.hands = state.hands[:]
        self.passed, self.active = state.passed, state.active
        self.mover = state.current_player
        self.revolution, self.jack_back, self.lock = state.revolution, state.jack_back, state.lock
        self.to_give, self.phase, self.round = _to_give(state, seat), state.phase, state.round
        self.scores = state.scores[:]
        self.places, self.titles = state.places[:], state.titles[:]


def _to_give(state, seat: int) -> int:
    return sum(e[2] for e in state.pending if e[0] == seat) if state.pending else 0


def render(game, state) -> str:
    """A text picture of the table: state flags, pile, each seat's title, score and hand."""
    deck = game.deck
    cat = game.catalog
    rules = game.rules
    order_word = "reversed" if state.revolution != state.jack_back else "normal"
    flags = [f"order {order_word}"]
    if state.revolution:
        flags.append("REVOLUTION")
    if state.jack_back:
        flags.append("JACK BACK")
    if state.lock:
        flags.append("LOCK " + "".join(SUITS[s] for s in iter_bits(state.lock)))
    round_shown = min(state.round + 1, rules.rounds)
    lines = [
        f"{rules.preset_name} | round {round_shown}/{rules.rounds} | "
        f"phase {PHASES[state.phase]} | {' | '.join(flags)}"
    ]
    if state.pile >= 0:
        kind = KIND_NAMES[cat.kind[state.pile]]
        lines.append(
            f"pile: {cat.action_to_str(state.pile)}  ({kind}, by player_{state.last_player})"
        )
    else:
        lines.append("pile: (empty)")
    for s in range(game.num_players):
        title = state.title_of(s) or "-"
        marks = []
        if s == state.current_player:
            marks.append("<- to move")
        if state.passed >> s & 1:
            marks.append("passed")
        if state.places[s] >= 0:
            marks.append(f"out: {rules.titles[state.places[s]]}")
        lines.append(
            f"player_{s} [{title}] score {state.scores[s]:>3} "
            f"({state.hands[s].bit_count():>2}): {deck.format(state.hands[s])}  {' '.join(marks)}"
        )
    if state.terminal:
        lines.append(f"match over: winner player_{state.winner}, scores {state.scores}")
    return "\n".join(lines)
