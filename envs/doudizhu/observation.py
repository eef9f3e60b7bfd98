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
==================  ==============  ======================================================

``H`` is ``config.history_length`` (15 by default).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..core.layout import ObsLayout
from .cards import COPIES, FULL_DECK, LANDLORD_HAND_SIZE, NUM_RANKS, PLAYERS, size
from .catalog import NUM_BIDS

if TYPE_CHECKING:
    from .engine import DoudizhuGame, DoudizhuState

DEPTH = max(COPIES)
"""Columns of a card thermometer (most copies of a rank)."""
CARD = (NUM_RANKS, DEPTH)
PHASES = 3
ROLES = 3
BID_STATES = NUM_BIDS + 2
"""Per seat: not yet, pass, bid 1..3."""
CARD_FIELDS = ("hand", "kitty", "unseen", "played", "pile", "trick", "history")
"""The card fields, laid out first and contiguously so one table lookup writes them all."""

_THERMO = np.array([[1.0 if j < n else 0.0 for j in range(DEPTH)] for n in range(DEPTH + 1)],
                   np.float32)
"""``_THERMO[n]``: the thermometer row of a rank held ``n`` times."""
_THERMO.flags.writeable = False
_THERMO_ROWS = _THERMO.view(np.complex128).reshape(-1)
"""``_THERMO`` with each 4-float row viewed as one 16-byte item, so one flat ``take`` writes a
row per rank count (faster than a 2-D ``take`` along an axis)."""
assert _THERMO_ROWS.size == DEPTH + 1


@lru_cache(maxsize=4)
def _card_bytes(catalog) -> tuple[bytes, ...]:
    """``[id]``: the rank counts of each action's cards as 15 bytes, plus one last all-zero
    entry, so ``[-1]`` (no play: an empty pile or trick slot) reads as no cards."""
    return tuple(c.to_bytes(NUM_RANKS, "little") for c in catalog.cards) + (bytes(NUM_RANKS),)


def build_layout(history_length: int) -> ObsLayout:
    h = history_length
    return ObsLayout(
        [
            ("hand", CARD),
            ("kitty", CARD),
            ("unseen", CARD),
            ("played", (PLAYERS, *CARD)),
            ("pile", CARD),
            ("trick", (PLAYERS, *CARD)),
            ("history", (h, *CARD)),
            ("phase", (PHASES,)),
            ("role", (ROLES,)),
            ("landlord", (PLAYERS,)),
            ("first_bidder", (PLAYERS,)),
            ("bids", (PLAYERS, BID_STATES)),
            ("cards_left", (PLAYERS,)),
            ("pile_owner", (PLAYERS,)),
            ("leading", (1,)),
            ("trick_pass", (PLAYERS,)),
            ("bombs", (1,)),
            ("history_seat", (h, PLAYERS)),
            ("history_pass", (h,)),
        ]
    )


class ObservationWriter:
    """Writes observations for one game (the layout and the catalog's card table)."""

    def __init__(self, game: DoudizhuGame):
        from .engine import MAX_BOMBS

        self.history_length = game.config.history_length
        self.layout = layout = build_layout(self.history_length)
        self.catalog = game.catalog
        self._max_bombs = MAX_BOMBS
        sl = layout.slices
        self._cards = slice(sl[CARD_FIELDS[0]].start, sl[CARD_FIELDS[-1]].stop)
        assert self._cards.stop - self._cards.start == sum(
            sl[f].stop - sl[f].start for f in CARD_FIELDS
        ), "card fields must be contiguous"
        self._card_groups = (self._cards.stop - self._cards.start) // (NUM_RANKS * DEPTH)
        at = {name: s.start for name, s in sl.items()}
        self._at = at
        self._bids = [at["bids"] + rel * BID_STATES for rel in range(PLAYERS)]
        self._hist_seat = [at["history_seat"] + i * PLAYERS for i in range(self.history_length)]
        self._hist_pass = [at["history_pass"] + i for i in range(self.history_length)]
        self._card_bytes = _card_bytes(self.catalog)
        self._rel = [[(seat + rel) % PLAYERS for rel in range(PLAYERS)] for seat in range(PLAYERS)]
        self._rel_of = [[(other - seat) % PLAYERS for other in range(PLAYERS)]
                        for seat in range(PLAYERS)]

    def write(self, state: DoudizhuState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.zeros(self.layout.size, np.float32)
        else:
            out[:] = 0.0
        at = self._at
        rel = self._rel[seat]
        rel_of = self._rel_of[seat]
        hands = state.hands
        played = state.played
        trick = state.trick
        landlord = state.landlord
        hand = hands[seat]
        pile = state.pile
        recent = state.history[-1 : -self.history_length - 1 : -1]
        card_bytes = self._card_bytes
        first, second, third = rel
        groups = [
            hand.to_bytes(NUM_RANKS, "little"),
            state.kitty.to_bytes(NUM_RANKS, "little") if landlord >= 0 else card_bytes[-1],
            (FULL_DECK - hand - played[0] - played[1] - played[2]).to_bytes(NUM_RANKS, "little"),
            played[first].to_bytes(NUM_RANKS, "little"),
            played[second].to_bytes(NUM_RANKS, "little"),
            played[third].to_bytes(NUM_RANKS, "little"),
            card_bytes[pile],
            card_bytes[trick[first]],
            card_bytes[trick[second]],
            card_bytes[trick[third]],
        ]
        groups += [card_bytes[a] for _, a in recent]
        raw = np.frombuffer(b"".join(groups), np.uint8)
        start = self._cards.start
        rows = out[start : start + raw.size * DEPTH].view(np.complex128)
        _THERMO_ROWS.take(raw, out=rows)

        ones = [
            at["phase"] + state.phase,
            at["first_bidder"] + rel_of[state.first_bidder],
        ]
        if landlord >= 0:
            ones.append(at["role"] + (1 if landlord == seat else 2))
            ones.append(at["landlord"] + rel_of[landlord])
        else:
            ones.append(at["role"])
        bids = state.bids
        ones += [self._bids[i] + bids[s] + 1 for i, s in enumerate(rel)]
        if pile >= 0:
            ones.append(at["pile_owner"] + rel_of[state.pile_owner])
        elif landlord >= 0 and not state.terminal:
            ones.append(at["leading"])
        pass_id = self.catalog.PASS
        ones += [at["trick_pass"] + i for i, s in enumerate(rel) if trick[s] == pass_id]
        hist_seat = self._hist_seat
        hist_pass = self._hist_pass
        ones += [hist_seat[i] + rel_of[s] for i, (s, _) in enumerate(recent)]
        ones += [hist_pass[i] for i, (_, a) in enumerate(recent) if a == pass_id]
        out[ones] = 1.0
        left = at["cards_left"]
        out[left : left + PLAYERS] = (
            size(hands[first]) / LANDLORD_HAND_SIZE,
            size(hands[second]) / LANDLORD_HAND_SIZE,
            size(hands[third]) / LANDLORD_HAND_SIZE,
        )
        out[at["bombs"]] = state.bombs / self._max_bombs
        return out
