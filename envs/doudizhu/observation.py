"""The Dou Dizhu observation: named slices of one float32 vector, seen from one seat.

Everything is seat-relative: ``relative seat`` 0 is the observer, 1 the next seat to play after
it, 2 the seat before it. Groups of cards are ``(15, 4)`` thermometers: row ``r`` is rank ``r``
(``3456789TJQKA2BR``), column ``j`` is 1 when the group holds more than ``j`` cards of it. All
values lie in ``[0, 1]``. Nothing private to another seat is written: other hands appear only
as counts, and the card counter ``unseen`` follows docs/rules.md (cards neither in the observer's
hand nor played).

==================  ==============  ======================================================
field               shape           meaning
==================  ==============  ======================================================
hand                (15, 4)         own cards
kitty               (15, 4)         the kitty once the landlord is known (else 0)
unseen              (15, 4)         cards not in the hand and not played yet
played              (3, 15, 4)      cards played so far, per relative seat
pile                (15, 4)         the play to beat (0 when leading)
trick               (3, 15, 4)      each relative seat's latest play in this trick
history             (H, 15, 4)      the last H plays and passes, most recent first
phase               (3,)            one-hot: bidding, play, over
role                (3,)            own role one-hot: undecided, landlord, peasant
landlord            (3,)            relative seat of the landlord (0 while bidding)
first_bidder        (3,)            relative seat of the first bidder
bids                (3, 5)          per relative seat one-hot: not yet, pass, 1, 2, 3
cards_left          (3,)            cards held per relative seat / 20
pile_owner          (3,)            relative seat that made the pile (0 when leading)
leading             (1,)            1 when the next play starts a trick
trick_pass          (3,)            1 when that relative seat passed in this trick
bombs               (1,)            bombs and rockets played / 14
history_seat        (H, 3)          relative seat of each history entry (0 if empty)
history_pass        (H,)            1 when that history entry is a pass
variant             (4,)            the variants on: rob, open hand, four players, laizi
==================  ==============  ======================================================

``H`` is ``config.history_length`` (15 by default). The variants change the fields so:

* ``bidding="rob"``: ``bids`` is ``(3, 4)``, per relative seat: not yet, passed (its latest
  move), called, robbed (several may be set: a caller that robbed back); and ``robs`` (1,) is
  the number of robs / the most possible (the seats, counting the rob back).
* ``open_hand``: ``phase`` is ``(4,)`` (its last entry: the landlord choosing to show its hand
  or not), ``shown_hand`` (15, 4) follows ``unseen`` (the landlord's cards once shown, else 0)
  and ``shown`` (1,) follows ``variant`` (1 once the landlord showed its hand).
* ``laizi``: ``wild`` (13,) is the wild rank one-hot (3..2), and ``pile_wilds`` (1,) the wild
  cards standing in for another rank in the pile / 4 (a bomb with any is soft). ``played``
  and ``unseen`` count the cards as they are (a wild 7 played as a 5 is a 7 there); ``pile``,
  ``trick`` and ``history`` show the plays as they read.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..core.layout import ObsLayout
from .bidding import CLASSIC, NOT_YET, NUM_BIDS, PASS_CODE
from .cards import COPIES, NUM_RANKS, NUMBER_RANKS, SUITS, THREE, size
from .config import VARIANT_FLAGS, Phase

if TYPE_CHECKING:
    from .engine import DoudizhuGame, DoudizhuState

DEPTH = max(COPIES)
"""Columns of a card thermometer (most copies of a rank)."""
CARD = (NUM_RANKS, DEPTH)
PHASES = 3
"""bidding, play, over; open hand adds the landlord's choice to show its hand"""
ROLES = 3
BID_STATES = NUM_BIDS + 2
"""Per seat: not yet, pass, bid 1..3."""
ROB_STATES = 4
"""Per seat, in the rob bidding: not yet, passed, called, robbed."""
ROB_PASSED, ROB_CALLED, ROB_ROBBED = 1, 2, 3
CARD_FIELDS = ("hand", "kitty", "unseen", "shown_hand", "played", "pile", "trick", "history")
"""The card fields, laid out first and contiguously so one table lookup writes them all
(``shown_hand`` only with open hand)."""



@lru_cache(maxsize=None)
def thermometer_rows(depth: int) -> tuple[np.ndarray, np.dtype]:
    """The thermometer rows of ``depth`` columns (row ``n``: a rank held ``n`` times), each
    viewed as one item of the returned dtype, so one flat ``take`` writes a row per rank count
    (faster than a 2-D ``take`` along an axis). Four columns are one ``complex128``; other
    depths (two packs: 8) one raw item of their bytes."""
    rows = np.array([[1.0 if j < n else 0.0 for j in range(depth)] for n in range(depth + 1)],
                    np.float32)
    item = np.dtype(np.complex128) if depth == DEPTH else np.dtype((np.void, rows.itemsize * depth))
    flat = rows.view(item).reshape(-1)
    flat.flags.writeable = False
    assert flat.size == depth + 1
    return flat, item


@lru_cache(maxsize=8)
def _card_bytes(catalog) -> tuple[bytes, ...]:
    """``[id]``: the rank counts of each action's cards as 15 bytes, plus one last all-zero
    entry, so ``[-1]`` (no play: an empty pile or trick slot) reads as no cards."""
    return tuple(c.to_bytes(NUM_RANKS, "little") for c in catalog.cards) + (bytes(NUM_RANKS),)


def build_layout(config) -> ObsLayout:
    """The layout of a :class:`~climbrl.envs.doudizhu.config.DoudizhuConfig` (see the module table)."""
    h = config.history_length
    players = config.players
    classic = config.bidding == CLASSIC
    card = (NUM_RANKS, config.setup.max_copies)
    shown_hand = [("shown_hand", card)] if config.open_hand else []
    fields = [
        ("hand", card),
        ("kitty", card),
        ("unseen", card),
        *shown_hand,
        ("played", (players, *card)),
        ("pile", card),
        ("trick", (players, *card)),
        ("history", (h, *card)),
        ("phase", (PHASES + config.open_hand,)),
        ("role", (ROLES,)),
        ("landlord", (players,)),
        ("first_bidder", (players,)),
        ("bids", (players, BID_STATES if classic else ROB_STATES)),
        ("cards_left", (players,)),
        ("pile_owner", (players,)),
        ("leading", (1,)),
        ("trick_pass", (players,)),
        ("bombs", (1,)),
        ("history_seat", (h, players)),
        ("history_pass", (h,)),
        ("variant", (len(VARIANT_FLAGS),)),
    ]
    if not classic:
        fields.append(("robs", (1,)))
    if config.open_hand:
        fields.append(("shown", (1,)))
    if config.laizi:
        fields += [("wild", (NUMBER_RANKS,)), ("pile_wilds", (1,))]
    return ObsLayout(fields)


class ObservationWriter:
    """Writes observations for one game (the layout and the catalog's card table)."""

    def __init__(self, game: DoudizhuGame):
        config = game.config
        players = game.num_players
        self.history_length = config.history_length
        self.layout = layout = build_layout(config)
        self.catalog = game.catalog
        self.players = players
        self._full_deck = game.setup.full_deck
        self._largest_hand = game.setup.landlord_hand_size
        self._max_bombs = game.max_bombs
        self._classic = config.bidding == CLASSIC
        self._open_hand = config.open_hand
        self._depth = game.setup.max_copies
        self._rows, self._row_item = thermometer_rows(self._depth)
        sl = layout.slices
        self._cards = slice(sl[CARD_FIELDS[0]].start, sl[CARD_FIELDS[-1]].stop)
        assert self._cards.stop - self._cards.start == sum(
            sl[f].stop - sl[f].start for f in CARD_FIELDS if f in sl
        ), "card fields must be contiguous"
        at = {name: s.start for name, s in sl.items()}
        self._at = at
        width = layout.fields["bids"][1]
        self._bids = [at["bids"] + rel * width for rel in range(players)]
        self._hist_seat = [at["history_seat"] + i * players for i in range(self.history_length)]
        self._hist_pass = [at["history_pass"] + i for i in range(self.history_length)]
        self._card_bytes = _card_bytes(self.catalog)
        self._rel = [[(seat + rel) % players for rel in range(players)] for seat in range(players)]
        self._rel_of = [[(other - seat) % players for other in range(players)]
                        for seat in range(players)]
        self._variant = [at["variant"] + i for i, on in enumerate(config.flags) if on]
        self._max_robs = game.auction.max_turns - 1

    def write(self, state: DoudizhuState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.zeros(self.layout.size, np.float32)
        else:
            out[:] = 0.0
        recent = state.history[-1 : -self.history_length - 1 : -1]
        raw = np.frombuffer(self.card_groups(state, seat)
                            + b"".join([self._card_bytes[a] for _, a in recent]), np.uint8)
        start = self._cards.start
        rows = out[start : start + raw.size * self._depth].view(self._row_item)
        self._rows.take(raw, out=rows)
        self.write_history_marks(out, seat, recent, 0)
        self.write_scalars(state, seat, out)
        return out

    def card_groups(self, state: DoudizhuState, seat: int) -> bytes:
        """The rank counts of every card field before ``history`` (a byte per rank), joined:
        the thermometer rows of the observation's first fields."""
        rel = self._rel[seat]
        hands = state.hands
        played = state.played
        trick = state.trick
        hand = hands[seat]
        card_bytes = self._card_bytes
        kitty = state.kitty.to_bytes(NUM_RANKS, "little") if state.landlord >= 0 else card_bytes[-1]
        if self.players == THREE.players:
            # the same groups as below, spelled out: a fifth of the writer's time in random play
            first, second, third = rel
            groups = [
                hand.to_bytes(NUM_RANKS, "little"),
                kitty,
                (self._full_deck - state.out - hand - played[0] - played[1] - played[2]).to_bytes(
                    NUM_RANKS, "little"),
                played[first].to_bytes(NUM_RANKS, "little"),
                played[second].to_bytes(NUM_RANKS, "little"),
                played[third].to_bytes(NUM_RANKS, "little"),
                card_bytes[state.pile],
                card_bytes[trick[first]],
                card_bytes[trick[second]],
                card_bytes[trick[third]],
            ]
        else:
            groups = [hand.to_bytes(NUM_RANKS, "little"), kitty,
                      (self._full_deck - state.out - hand - sum(played)).to_bytes(
                          NUM_RANKS, "little")]
            groups += [played[s].to_bytes(NUM_RANKS, "little") for s in rel]
            groups.append(card_bytes[state.pile])
            groups += [card_bytes[trick[s]] for s in rel]
        if self._open_hand:
            shown = hands[state.landlord] if state.shown else 0
            groups.insert(CARD_FIELDS.index("shown_hand"), shown.to_bytes(NUM_RANKS, "little"))
        return b"".join(groups)

    def write_history_marks(self, out: np.ndarray, seat: int, entries, first: int) -> None:
        """``history_seat`` and ``history_pass`` of ``entries`` (most recent first) from
        history row ``first`` on, into rows that hold zeros."""
        rel_of = self._rel_of[seat]
        hist_seat = self._hist_seat
        hist_pass = self._hist_pass
        pass_id = self.catalog.PASS
        ones = [hist_seat[i] + rel_of[s] for i, (s, _) in enumerate(entries, first)]
        ones += [hist_pass[i] for i, (_, a) in enumerate(entries, first) if a == pass_id]
        out[ones] = 1.0

    def write_scalars(self, state: DoudizhuState, seat: int, out: np.ndarray) -> None:
        """Every field after the card fields but the history's marks, into entries that hold
        zeros."""
        ones, values = self.scalars(state, seat)
        out[ones] = 1.0
        for i, value in values:
            out[i] = value

    def scalars(self, state: DoudizhuState, seat: int) -> tuple[list[int], list[tuple[int, float]]]:
        """The entries of :meth:`write_scalars`: the indices set to 1, and ``(index, value)``
        of the others that may not be zero."""
        at = self._at
        rel = self._rel[seat]
        rel_of = self._rel_of[seat]
        landlord = state.landlord
        ones = [
            at["phase"] + state.phase,
            at["first_bidder"] + rel_of[state.first_bidder],
        ]
        ones += self._variant
        if landlord >= 0:
            ones.append(at["role"] + (1 if landlord == seat else 2))
            ones.append(at["landlord"] + rel_of[landlord])
        else:
            ones.append(at["role"])
        bids = state.bids
        hands = state.hands
        largest = self._largest_hand
        at_left = at["cards_left"]
        values = [(at_left + i, size(hands[s]) / largest) for i, s in enumerate(rel)]
        values.append((at["bombs"], state.bombs / self._max_bombs))
        if self._classic:
            ones += [self._bids[i] + bids[s] + 1 for i, s in enumerate(rel)]
        else:
            ones += self._rob_bids(state, rel)
            values.append((at["robs"], state.robs / self._max_robs))
        if state.pile >= 0:
            ones.append(at["pile_owner"] + rel_of[state.pile_owner])
        elif state.phase == Phase.PLAY:
            ones.append(at["leading"])
        pass_id = self.catalog.PASS
        trick = state.trick
        ones += [at["trick_pass"] + i for i, s in enumerate(rel) if trick[s] == pass_id]
        if state.shown:
            ones.append(at["shown"])
        if state.wild >= 0:
            ones.append(at["wild"] + state.wild)
            values.append((at["pile_wilds"], state.pile_subs / SUITS))
        return ones, values

    def _rob_bids(self, state: DoudizhuState, rel: list[int]) -> list[int]:
        """The set flags of the rob bidding's ``bids`` field."""
        ones = []
        for i, s in enumerate(rel):
            code = state.bids[s]
            base = self._bids[i]
            if code == NOT_YET:
                ones.append(base)
                continue
            if code == PASS_CODE:
                ones.append(base + ROB_PASSED)
            if s == state.caller:
                ones.append(base + ROB_CALLED)
            if state.rob_seats >> s & 1:
                ones.append(base + ROB_ROBBED)
        return ones


class SeatObserver:
    """One seat's observation kept between calls and rewritten only where the state changed:
    what the env hands out every step (:meth:`observe`), equal at every step to
    :meth:`ObservationWriter.write` from scratch.

    The history, most recent first, is kept as bytes (a byte per rank of each entry, and
    the float32 bytes of ``history_seat`` and ``history_pass``), shifted by the plays made
    since the last call, so only those plays are encoded; the card fields are then one table
    lookup and the history's marks one copy. The scalar fields are written entry by entry
    through a memoryview, their previous entries zeroed. A new state object (a reset), a new
    history list (a redeal) or more new plays than the history holds: written from scratch.
    The buffer is the observer's: callers copy it."""

    def __init__(self, writer: ObservationWriter, seat: int):
        self.writer = writer
        self.seat = seat
        self.buf = np.zeros(writer.layout.size, np.float32)
        self.mv = memoryview(self.buf)
        sl = writer.layout.slices
        players, length = writer.players, writer.history_length
        self.cards = self.buf[writer._cards].view(writer._row_item)
        self.marks = self.buf[sl["history_seat"].start : sl["history_pass"].stop]
        one = np.float32(1.0).tobytes()
        zero = bytes(len(one))
        rel_of = writer._rel_of[seat]
        #: the float32 bytes of a history entry's ``history_seat`` row, by absolute seat
        self.seat_row = [b"".join(one if rel_of[s] == i else zero for i in range(players))
                         for s in range(players)]
        self.pass_flag = {True: one, False: zero}
        self.entry_sizes = (NUM_RANKS, players * len(one), len(one))
        self.empty = tuple(bytes(size * length) for size in self.entry_sizes)
        self.state = self.history = None
        self.length = 0

    def observe(self, state: DoudizhuState) -> np.ndarray:
        """The observation of this seat in ``state`` (the observer's buffer, written in place)."""
        writer, seat = self.writer, self.seat
        history = state.history
        new = len(history) - self.length
        if (state is not self.state or history is not self.history or new < 0
                or new >= writer.history_length):
            writer.write(state, seat, self.buf)
            self._remember(state)
            return self.buf
        if new:
            self.length += new
            self._shift(history[-1 : -new - 1 : -1])
        raw = np.frombuffer(writer.card_groups(state, seat) + self.history_cards, np.uint8)
        writer._rows.take(raw, out=self.cards)
        if new:
            self.marks[:] = np.frombuffer(self.history_seats + self.history_passes, np.float32)
        self._write_scalars(*writer.scalars(state, seat))
        return self.buf

    def _write_scalars(self, ones: list[int], values: list[tuple[int, float]]) -> None:
        """The scalar fields: the entries that changed since the last call."""
        mv = self.mv
        if ones != self.ones:
            now = set(ones)
            for i in self.ones:
                if i not in now:
                    mv[i] = 0.0
            for i in now.difference(self.ones):
                mv[i] = 1.0
            self.ones = ones
        if values != self.values:
            now = dict(values)
            for i, value in self.values:
                if i not in now:
                    mv[i] = 0.0
            before = dict(self.values)
            for i, value in values:
                if before.get(i) != value:
                    mv[i] = value
            self.values = values

    def _shift(self, entries) -> None:
        """The history's bytes with ``entries`` (most recent first) in front."""
        card_bytes = self.writer._card_bytes
        pass_id = self.writer.catalog.PASS
        # the bytes kept: all but the oldest entries' (never ``[:-0]``, which is empty)
        cards, seats, passes = (size * (self.writer.history_length - len(entries))
                                for size in self.entry_sizes)
        self.history_cards = (b"".join([card_bytes[a] for _, a in entries])
                              + self.history_cards[:cards])
        self.history_seats = (b"".join([self.seat_row[s] for s, _ in entries])
                              + self.history_seats[:seats])
        self.history_passes = (b"".join([self.pass_flag[a == pass_id] for _, a in entries])
                               + self.history_passes[:passes])

    def _remember(self, state: DoudizhuState) -> None:
        """What the from-scratch write just wrote for ``state``."""
        self.state, self.history, self.length = state, state.history, len(state.history)
        self.history_cards, self.history_seats, self.history_passes = self.empty
        self._shift(state.history[-1 : -self.writer.history_length - 1 : -1])
        self.ones, self.values = self.writer.scalars(state, self.seat)
