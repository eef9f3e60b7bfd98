"""The observation writers as they were before the incremental ones, kept verbatim as the
oracle of ``test_observation_oracle``: every observation and mask the environments hand out
must equal what these build from scratch. Not used by the package."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from climbrl.envs.core.bits import iter_bits
from climbrl.envs.daifugo.cards import CARDS_PER_DECK
from climbrl.envs.daifugo.observation import CARD_FIELDS, CHOICES, SWITCHES, WORD
from climbrl.envs.doudizhu.bidding import CLASSIC, NOT_YET, PASS_CODE
from climbrl.envs.doudizhu.cards import NUM_RANKS, SUITS, THREE, size
from climbrl.envs.doudizhu.config import Phase
from climbrl.envs.doudizhu.observation import CARD_FIELDS as DDZ_CARD_FIELDS
from climbrl.envs.doudizhu.observation import ROB_CALLED, ROB_PASSED, ROB_ROBBED
from climbrl.envs.doudizhu.observation import build_layout, thermometer_rows


# -- Daifugo / President -------------------------------------------------------------------

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
            tail[col + options.index(getattr(rules, name))] = 1.0
            col += len(options)
        tail[o["rounds"]] = rules.rounds
        tail[o["decks"]] = rules.decks
        tail[o["jokers"]] = rules.jokers
        for tier, count in enumerate(rules.exchange):
            tail[o["exchange"] + tier] = count
        top = _largest(rules.points)
        for place, points in enumerate(rules.points):
            tail[o["place_points"] + place] = points / top
        self.template = tail


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
            tail[col + options.index(getattr(rules, name))] = 1.0
            col += len(options)
        tail[o["rounds"]] = rules.rounds
        tail[o["decks"]] = rules.decks
        tail[o["jokers"]] = rules.jokers
        for tier, count in enumerate(rules.exchange):
            tail[o["exchange"] + tier] = count
        top = _largest(rules.points)
        for place, points in enumerate(rules.points):
            tail[o["place_points"] + place] = points / top
        self.template = tail


def _writer(game) -> _Writer:
    w = game.__dict__.get("_oracle_writer")
    if w is None:
        w = game._oracle_writer = _Writer(game)
    return w


def daifugo_observe(game, state, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    w = _writer(game)
    obs = np.empty(w.layout.size, np.float32) if out is None else out
    players = game.num_players
    rows = game.seat_rows
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
    else:
        cards[:, CARDS_PER_DECK] = 0

    # every other field: a copy of the table's fields, the state's written in, copied once
    tail = w.template.copy()
    o = w.offset
    scale = w.score_scale
    for row, s in enumerate(order):
        tail[o["hand_counts"] + row] = state.hands[s].bit_count()
        tail[o["passed"] + row] = state.passed >> s & 1
        tail[o["active"] + row] = state.active >> s & 1
        if state.places[s] >= 0:
            tail[o["places"] + row * rows + state.places[s]] = 1
        if state.titles[s] >= 0:
            tail[o["titles"] + row * rows + state.titles[s]] = 1
        tail[o["scores"] + row] = state.scores[s] * scale
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
    current = min(state.round, w.last_round)
    tail[o["round"]] = current
    tail[o["rounds_left"]] = w.last_round - current
    tail[o["phase"] + state.phase] = 1
    if state.current_player >= 0:
        tail[o["to_move"] + (state.current_player - seat) % players] = 1
    obs[w.card_end :] = tail
    return obs



# -- Dou Dizhu -----------------------------------------------------------------------------

@lru_cache(maxsize=8)
def _card_bytes(catalog) -> tuple[bytes, ...]:
    """``[id]``: the rank counts of each action's cards as 15 bytes, plus one last all-zero
    entry, so ``[-1]`` (no play: an empty pile or trick slot) reads as no cards."""
    return tuple(c.to_bytes(NUM_RANKS, "little") for c in catalog.cards) + (bytes(NUM_RANKS),)


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
        self._cards = slice(sl[DDZ_CARD_FIELDS[0]].start, sl[DDZ_CARD_FIELDS[-1]].stop)
        assert self._cards.stop - self._cards.start == sum(
            sl[f].stop - sl[f].start for f in DDZ_CARD_FIELDS if f in sl
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
        kitty = state.kitty.to_bytes(NUM_RANKS, "little") if landlord >= 0 else card_bytes[-1]
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
                card_bytes[pile],
                card_bytes[trick[first]],
                card_bytes[trick[second]],
                card_bytes[trick[third]],
            ]
            largest = self._largest_hand
            left = (size(hands[first]) / largest, size(hands[second]) / largest,
                    size(hands[third]) / largest)
        else:
            groups = [hand.to_bytes(NUM_RANKS, "little"), kitty,
                      (self._full_deck - state.out - hand - sum(played)).to_bytes(
                          NUM_RANKS, "little")]
            groups += [played[s].to_bytes(NUM_RANKS, "little") for s in rel]
            groups.append(card_bytes[pile])
            groups += [card_bytes[trick[s]] for s in rel]
            left = [size(hands[s]) / self._largest_hand for s in rel]
        if self._open_hand:
            shown = hands[landlord] if state.shown else 0
            groups.insert(DDZ_CARD_FIELDS.index("shown_hand"), shown.to_bytes(NUM_RANKS, "little"))
        groups += [card_bytes[a] for _, a in recent]
        raw = np.frombuffer(b"".join(groups), np.uint8)
        start = self._cards.start
        rows = out[start : start + raw.size * self._depth].view(self._row_item)
        self._rows.take(raw, out=rows)

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
        if self._classic:
            ones += [self._bids[i] + bids[s] + 1 for i, s in enumerate(rel)]
        else:
            ones += self._rob_bids(state, rel)
            out[at["robs"]] = state.robs / self._max_robs
        if pile >= 0:
            ones.append(at["pile_owner"] + rel_of[state.pile_owner])
        elif state.phase == Phase.PLAY:
            ones.append(at["leading"])
        pass_id = self.catalog.PASS
        ones += [at["trick_pass"] + i for i, s in enumerate(rel) if trick[s] == pass_id]
        hist_seat = self._hist_seat
        hist_pass = self._hist_pass
        ones += [hist_seat[i] + rel_of[s] for i, (s, _) in enumerate(recent)]
        ones += [hist_pass[i] for i, (_, a) in enumerate(recent) if a == pass_id]
        out[ones] = 1.0
        at_left = at["cards_left"]
        out[at_left : at_left + self.players] = left
        out[at["bombs"]] = state.bombs / self._max_bombs
        if state.shown:
            out[at["shown"]] = 1.0
        if state.wild >= 0:
            out[at["wild"] + state.wild] = 1.0
            out[at["pile_wilds"]] = state.pile_subs / SUITS
        return out

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


def ddz_writer(game) -> ObservationWriter:
    w = game.__dict__.get("_oracle_writer")
    if w is None:
        w = game._oracle_writer = ObservationWriter(game)
    return w


def oracle_observe(game, state, seat: int) -> np.ndarray:
    """Today's from-scratch observation of ``seat`` (either game)."""
    if hasattr(game, "_writer"):
        return ddz_writer(game).write(state, seat)
    return daifugo_observe(game, state, seat)


def oracle_mask(game, state, seat: int) -> np.ndarray:
    """Today's mask (``seat_observation``'s): the legal ids of the seat to move, else zeros."""
    mask = np.zeros(game.num_actions, np.int8)
    if seat == state.current_player and not state.terminal:
        mask[state.legal_actions()] = 1
    return mask
