"""Observations and text rendering for Daifugo / President, written from ``(state, seat)`` only.

The observation is one float32 vector cut into named slices (:func:`build_layout`). Rows that
describe seats are seat-relative: row 0 is the observer, row 1 the next seat in turn order.
Card fields have one slot per (rank, suit), rank-major in the normal order (``3s 3h 3d 3c 4s
... 2c``), holding how many copies, then one slot with the number of jokers.

=============== ============ =============================================================
field           shape        content
=============== ============ =============================================================
hand            (K,)         own cards
played          (K,)         cards played this round with their suits shown (pile included)
pile_cards      (K,)         the cards of the play on the pile (of an unsuited play: its jokers)
gave            (K,)         cards this seat gave in this round's exchange
received        (K,)         cards this seat received in this round's exchange
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
round           (R,)         one-hot round of the match
scores          (P,)         points so far
phase           (3,)         one-hot: exchange, play, over
to_move         (P,)         one-hot seat to move
played_ranks    (13,)        real cards of this round's unsuited plays, per rank (*)
pile_ranks      (13,)        real cards of the pile's play per rank, when it is unsuited (*)
=============== ============ =============================================================

``K = 52 + (1 if jokers)``, ``P`` players, ``R`` rounds; the sizes are derived, never typed.

(*) Only under rules with *unsuited* plays, where the player names ranks and no suits: sets
of two decks (``7 7``) and any-suit runs (``3 4 5``). The engine picks which copies leave the
hand, so their suits would tell the other seats which cards stay in it; the observation
counts those cards by rank instead, and ``played``/``pile_cards`` leave them out. Rules
without unsuited plays (one deck, same-suit runs: every Daifugo preset) have neither field.
"""

from __future__ import annotations

import numpy as np

from ..core.bits import iter_bits
from ..core.layout import ObsLayout
from .cards import CARDS_PER_DECK, NUM_RANKS, NUM_SUITS, SUITS
from .catalog import KIND_NAMES

PILE_SHAPES = ("empty", "single", "set", "run")
FLAGS = ("revolution", "jack_back", "reversed", "locked")
PHASES = ("exchange", "play", "over")
CARD_FIELDS = ("hand", "played", "pile_cards", "gave", "received")
WORD = 64


def build_layout(game) -> ObsLayout:
    rules = game.rules
    deck = game.deck
    players = rules.players
    k = CARDS_PER_DECK + (1 if deck.jokers else 0)
    per_slot = max(deck.decks, deck.jokers)
    ranks = NUM_RANKS + 1
    rank_copies = deck.decks * NUM_SUITS
    points_lo = min(rules.points) * rules.rounds
    points_hi = max(rules.points) * rules.rounds
    return ObsLayout(
        [
            *[(name, (k,), 0, per_slot) for name in CARD_FIELDS],
            ("hand_counts", (players,), 0, deck.size),
            ("pile_shape", (len(PILE_SHAPES),)),
            ("pile_size", (1,), 0, max(rules.max_set_size, NUM_RANKS)),
            ("pile_low", (ranks,)),
            ("pile_high", (ranks,)),
            ("pile_owner", (players,)),
            ("passed", (players,)),
            ("active", (players,)),
            ("places", (players, players)),
            ("titles", (players, players)),
            ("flags", (len(FLAGS),)),
            ("lock_suits", (NUM_SUITS,)),
            ("to_give", (1,), 0, max(rules.exchange, default=0)),
            ("round", (rules.rounds,)),
            ("scores", (players,), points_lo, points_hi),
            ("phase", (len(PHASES),)),
            ("to_move", (players,)),
            *(
                [("played_ranks", (NUM_RANKS,), 0, rank_copies),
                 ("pile_ranks", (NUM_RANKS,), 0, rank_copies)]
                if game.catalog.has_unsuited
                else []
            ),
        ]
    )


class _Writer:
    """Precomputed offsets for one game, so ``observe`` is a handful of numpy writes."""

    def __init__(self, game):
        layout = game.layout
        deck = game.deck
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
        self.offset = {n: sl.start - self.card_end for n, sl in layout.slices.items()}
        self.has_unsuited = game.catalog.has_unsuited


def _writer(game) -> _Writer:
    w = game.__dict__.get("_obs_writer")
    if w is None:
        w = game._obs_writer = _Writer(game)
    return w


def observe(game, state, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    w = _writer(game)
    obs = np.empty(w.layout.size, np.float32) if out is None else out
    players = game.num_players
    order = [(seat + i) % players for i in range(players)]

    # the five card fields (contiguous at the start) in one unpack: each mask in its own
    # 64-bit-aligned block, copies of two decks added, then the joker count per field
    # an unsuited play's real cards are public by rank only (module docstring)
    cat = game.catalog
    a = state.pile
    pile_cards = state.pile_cards
    if w.has_unsuited and a >= 0 and cat.unsuited[a]:
        pile_cards &= game.deck.joker_mask
    packed = (
        state.hands[seat]
        | (state.played & ~state.unsuited) << w.stride
        | pile_cards << 2 * w.stride
        | state.gave[seat] << 3 * w.stride
        | state.received[seat] << 4 * w.stride
    )
    raw = np.frombuffer(packed.to_bytes(w.card_bytes, "little"), np.uint8)
    bits = np.unpackbits(raw, bitorder="little").reshape(w.card_rows, w.stride)
    cards = obs[: w.card_end].reshape(w.card_rows, w.card_slots)
    cards[:, :CARDS_PER_DECK] = bits[:, :CARDS_PER_DECK]
    for copy in range(1, w.decks):
        cards[:, :CARDS_PER_DECK] += bits[:, copy * CARDS_PER_DECK : (copy + 1) * CARDS_PER_DECK]
    if w.jokers:
        cards[:, CARDS_PER_DECK] = bits[:, w.real : w.real + w.jokers].sum(axis=1)

    # every other field: filled in a Python list, copied once
    tail = [0.0] * (w.layout.size - w.card_end)
    o = w.offset
    for row, s in enumerate(order):
        tail[o["hand_counts"] + row] = state.hands[s].bit_count()
        tail[o["passed"] + row] = state.passed >> s & 1
        tail[o["active"] + row] = state.active >> s & 1
        if state.places[s] >= 0:
            tail[o["places"] + row * players + state.places[s]] = 1
        if state.titles[s] >= 0:
            tail[o["titles"] + row * players + state.titles[s]] = 1
        tail[o["scores"] + row] = state.scores[s]
    if w.has_unsuited:
        deck = game.deck
        for r, n in enumerate(deck.rank_counts(state.unsuited)):
            tail[o["played_ranks"] + r] = n
        if a >= 0 and cat.unsuited[a]:
            for r, n in enumerate(deck.rank_counts(state.pile_cards)):
                tail[o["pile_ranks"] + r] = n
    if a >= 0:
        tail[o["pile_shape"] + cat.kind[a]] = 1
        tail[o["pile_size"]] = cat.msize[a]
        tail[o["pile_low"] + cat.low[a]] = 1
        tail[o["pile_high"] + cat.high[a]] = 1
        tail[o["pile_owner"] + (state.last_player - seat) % players] = 1
    else:
        tail[o["pile_shape"]] = 1
    f0 = o["flags"]
    tail[f0] = state.revolution
    tail[f0 + 1] = state.jack_back
    tail[f0 + 2] = state.revolution != state.jack_back
    tail[f0 + 3] = state.lock != 0
    for s in iter_bits(state.lock):
        tail[o["lock_suits"] + s] = 1
    tail[o["to_give"]] = sum(e[2] for e in state.pending if e[0] == seat)
    tail[o["round"] + min(state.round, game.rules.rounds - 1)] = 1
    tail[o["phase"] + state.phase] = 1
    if state.current_player >= 0:
        tail[o["to_move"] + (state.current_player - seat) % players] = 1
    obs[w.card_end :] = tail
    return obs


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
