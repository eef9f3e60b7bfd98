"""The Daifugo / President engine: pure Python, cards as bitmasks, moves as catalog ids. Where
the optional compiled core was built, observations are written by it
(:mod:`climbrl.envs.daifugo.compiled`).

:class:`DaifugoGame` holds the fixed facts of one :class:`~climbrl.envs.daifugo.rules.Rules` (catalog,
observation layout, deal-code tag) and makes :class:`DaifugoState` objects. A state is one
position of a match; ``legal_actions()`` lists catalog ids, ``apply(id)`` plays one for the
seat to move, ``clone()`` copies it cheaply for search. The rules and rulings followed are
those of ``docs/rules.md``; the comments name the rule each branch implements.

Turn flow. A match is ``rules.rounds`` rounds. A round starts with the deal; from round 2 the
lower places give their strongest cards automatically and the higher places choose cards to
give back one at a time (phase ``exchange``); then tricks are played (phase ``play``). Seats
that have finished, or that passed under strict passing, are skipped: they have no decision.

Turn order. Seats play in ``state.order`` (seat indices in turn order): index order unless
``rules.reseat_every`` draws it anew (the uecda preset: rounds 1, 4, 7, ...; a set-up from
``hands`` keeps index order until the next draw). "Next seat" always means next in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import dealcode
from ..core.bits import iter_bits, lowest_bits
from ..core.checks import as_action, as_int, as_int_in, as_sequence, reset_options
from ..core.compiled import CompiledWriter
from ..core.game import PLACES, GameDefaults, IllegalActionError
from .cards import (
    CARDS_PER_DECK,
    JOKER_RANK,
    JOKER_TEXT,
    NUM_RANKS,
    NUM_SUITS,
    RANK_2,
    RANK_3,
    RANK_8,
    RANK_J,
    SUIT_DIAMONDS,
    SUIT_NIBBLE,
    SUIT_SPADES,
    SUITS,
    card_index,
    parse_rank_suit,
)
from . import compiled
from .catalog import FEATURE_SCHEMA, GIVE, RUN, SET, SINGLE, Catalog, shared_catalog
from .rules import REVOLUTION_SIZE, Rules, seat_rows

PHASE_EXCHANGE, PHASE_PLAY, PHASE_OVER = range(3)
PHASE_NAMES = ("exchange", "play", "over")
REWARD_MODES = ("centered", "raw")
SEED_LIMIT = 1 << dealcode.SEED_BITS
RESET_OPTIONS = ("deal", "hands", "leader", "titles", "seed")
#: the RNG streams of a match besides the deals (``[seed, round, stream]``)
RESEAT_STREAM, STALL_STREAM = 1, 2
BYTE = 8
BYTE_VALUES = 1 << BYTE


class DaifugoGame(GameDefaults):
    """Fixed facts of one rules config. ``reward``: ``"centered"`` round points minus the mean
    of the round (each round sums to zero) or ``"raw"`` points. ``catalog``: the catalog of
    another game whose rules have the same :meth:`Catalog.key_of` (games of many tables then
    share one; building a catalog is the slow part)."""

    version = 1
    #: why an observation of an older version cannot be read by this one
    obsolete_versions = {
        0: "its observation was tied to one rule set, player count and round count",
    }
    #: the observation carries every rule that changes play, so one network reads every
    #: table of the game (:mod:`climbrl.envs.daifugo.observation`)
    observes_rules = True
    action_feature_schema = FEATURE_SCHEMA

    def __init__(self, rules: Rules | None = None, reward: str = "centered",
                 catalog: Catalog | None = None, pure: bool | None = None):
        """``pure``: true for the pure-Python observation writer even where the compiled core
        is built, false or ``None`` for the compiled one where it is (``None``: unless the
        environment variable ``CLIMBRL_PURE=1``; :mod:`climbrl.envs.daifugo.compiled`)."""
        from .observation import build_layout  # local: observation imports this module

        if rules is None:
            rules = Rules.preset("daifugo")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules (Rules.preset(...)), got {rules!r}")
        self.rules = rules
        if not isinstance(reward, str) or reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.reward_mode = reward
        self.name = rules.preset_name
        if catalog is not None and catalog.key != Catalog.key_of(rules):
            raise ValueError(f"catalog of rules {catalog.key} given for rules "
                             f"{Catalog.key_of(rules)}")
        self.catalog = cat = catalog or shared_catalog(rules)
        #: seat rows of the observation and of the history's movers: the largest table of
        #: the preset, whatever this table's size
        self.seat_rows = seat_rows(rules.preset_name)
        self.deck = deck = cat.deck
        self.num_players = rules.players
        self.num_actions = cat.size
        self.layout = build_layout(self)
        self.tag = f"{rules.players}P{rules.decks}D{rules.jokers}J"
        # a round is at most one play per card, each followed by passes: players - 1 of them
        # (a pile clears when the others have passed), or up to the stall guard's count when
        # the seat to lead may pass
        passes = rules.stall_passes - 1 if rules.lead_pass else rules.players - 1
        per_round = deck.size * (1 + passes) + sum(rules.exchange) + 1
        self.max_game_length = per_round * rules.rounds
        mean = sum(rules.points) / rules.players
        self.round_rewards = tuple(
            (p - mean if reward == "centered" else float(p)) for p in rules.points
        )
        self.spade_three = cat.single_id[RANK_3][SUIT_SPADES]
        self.diamond_three_bit = 1 << card_index(RANK_3, SUIT_DIAMONDS)
        self.suit_field = (1 << NUM_RANKS) - 1
        # tables of the catalog alone: built by its first game, shared by the others
        if cat.engine_tables is None:
            cat.engine_tables = self._catalog_tables()
        self.stronger, self.give_key, self._transpose, self.real_ranks = cat.engine_tables
        self._pure = pure
        self._compiled = compiled.load(pure)
        self._fast: CompiledWriter | None = None
        """the C writer, made on first use (:meth:`_fast_writer`)"""

    @property
    def compiled(self) -> bool:
        """Whether this game writes observations with the compiled core (``_fast``)."""
        return self._compiled is not None

    def _fast_writer(self) -> CompiledWriter | None:
        if self._fast is None and self._compiled is not None:
            self._fast = compiled.writer(self._compiled, self)
        return self._fast

    def __getstate__(self) -> dict:
        # the compiled core is loaded again where the game is loaded (it may not be built
        # there); the Python writer's tables are made again on first use
        state = {**self.__dict__, "_compiled": None, "_fast": None}
        state.pop("_obs_writer", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._compiled = compiled.load(self._pure)

    def _catalog_tables(self) -> tuple:
        cat, deck = self.catalog, self.deck
        # stronger[rev][p]: ranks that beat rank p in that order; with_equal adds p itself
        stronger = tuple(
            tuple(
                tuple(r for r in range(NUM_RANKS) if (r < p if rev else r > p))
                + ((p,) if equal else ())
                for p in range(NUM_RANKS)
            )
            for rev in (False, True)
            for equal in (False, True)
        )
        # strength for the exchange: normal order, jokers on top, spade > heart > diamond > club
        give_key = tuple(
            (JOKER_RANK, 0, i)
            if deck.is_joker(i)
            else (deck.rank_suit(i)[0], NUM_SUITS - deck.rank_suit(i)[1], i)
            for i in range(deck.size)
        )
        # suit_ranks tables: byte k of a 52-bit presence mask -> 4 packed 13-bit suit masks
        transpose = [
            [self._transpose_byte(k, b) for b in range(BYTE_VALUES)]
            for k in range((CARDS_PER_DECK + BYTE - 1) // BYTE)
        ]
        real_ranks = tuple(self._real_ranks(a) for a in range(cat.size))
        return stronger, give_key, transpose, real_ranks

    # -- tables --------------------------------------------------------------------------------

    @staticmethod
    def _transpose_byte(k: int, b: int) -> int:
        out = 0
        for bit in iter_bits(b):
            idx = k * BYTE + bit
            if idx < CARDS_PER_DECK:
                rank, suit = divmod(idx, NUM_SUITS)
                out |= 1 << (suit * NUM_RANKS + rank)
        return out

    def _real_ranks(self, a: int) -> int:
        """13-bit mask of the ranks of real cards in move ``a``."""
        cat = self.catalog
        kind, low = cat.kind[a], cat.low[a]
        if kind in (SINGLE, SET) and low < JOKER_RANK:
            return 1 << low
        if kind == RUN:
            m = cat.moves[a]
            return sum(1 << r for r in range(m.low, m.high + 1) if r not in m.joker_ranks)
        return 0

    def suit_ranks(self, presence: int) -> list[int]:
        """The 13-bit rank mask of each suit in a 52-bit presence mask."""
        packed = 0
        for k, table in enumerate(self._transpose):
            packed += table[(presence >> (k * BYTE)) & (BYTE_VALUES - 1)]
        f = self.suit_field
        return [(packed >> (s * NUM_RANKS)) & f for s in range(NUM_SUITS)]

    # -- protocol ------------------------------------------------------------------------------

    # -- what the trainer and the harness read (climbrl.envs.core.game) ------------------------------

    draws_tables = True
    scoring = PLACES

    @property
    def rounds(self) -> int:
        """rounds per match"""
        return self.rules.rounds

    @property
    def place_points(self) -> tuple[int, ...]:
        """points of each place of a round, first place first"""
        return tuple(self.rules.points)

    @staticmethod
    def round_of(state: DaifugoState) -> int:
        """The round under way (it moves on as a round ends)."""
        return state.round

    @staticmethod
    def places_of(state: DaifugoState) -> list[int]:
        """Each seat's place in the round just finished (0: first)."""
        return list(state.titles)

    @staticmethod
    def rule_fields() -> dict[str, str]:
        """The rules a table may set, name -> type name. The uecda preset's own rules
        (:attr:`Rules.UECDA_FIELDS`) are left out: the preset fixes them and the observation
        does not carry them, so a table must not vary them."""
        import dataclasses

        return {f.name: f.type for f in dataclasses.fields(Rules)
                if f.name != "preset_name" and f.name not in Rules.UECDA_FIELDS}

    def rules_for(self, players: int, **rules: Any) -> Rules:
        """The rules of this game's preset at ``players`` seats with ``rules`` over it."""
        return Rules.preset(self.rules.preset_name, players, **rules)

    @staticmethod
    def catalog_key_of(rules: Rules) -> tuple:
        return Catalog.key_of(rules)

    @staticmethod
    def make_catalog(rules: Rules) -> Catalog:
        return shared_catalog(rules)

    def with_rules(self, rules: Rules, catalog: Catalog | None = None) -> DaifugoGame:
        """The game of another table (``rules``), with this one's reward mode."""
        return type(self)(rules, self.reward_mode, catalog=catalog, pure=self._pure)

    def config_dict(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "reward": self.reward_mode}

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> DaifugoState:
        """A new match. ``options``:

        - ``{"deal": code}`` replays a deal (and, with the code's seed, the rounds after it);
        - ``{"hands": [text per seat], "leader": seat}`` sets up a position; cards named in no
          hand are out of play; ``leader`` defaults to the round-1 rule;
        - ``"titles": [place per seat]`` (with ``hands`` or ``deal``) starts the match as if a
          round had been played with those places: the exchange, the leader of rounds 2+ and
          the fall of the capital then apply (the deal code does not record titles);
        - ``"seed": int`` the match seed for the later rounds (default: drawn from ``rng``).

        A set-up whose exchange would leave a seat without cards (a giver holding fewer cards
        than it must give) is refused: every seat to move must have a legal move.
        """
        options = reset_options(options, RESET_OPTIONS, self.name.capitalize())
        if "deal" in options and "hands" in options:
            raise ValueError("give either a deal code or hands, not both")
        state = DaifugoState(self)
        titles = self._parse_titles(options.get("titles"))
        if "deal" in options:
            deal = dealcode.decode(self.tag, options["deal"], self.deck.size, self.num_players)
            hands = [0] * self.num_players
            for card, owner in enumerate(deal.owners):
                if owner < self.num_players:
                    hands[owner] |= 1 << card
            for seat, hand in enumerate(hands):
                if not hand:
                    raise ValueError(f"deal code {options['deal']!r} leaves seat {seat} no cards")
            leader = options.get("leader")
            if leader is None and titles is None:
                leader = deal.first_seat
            self._check_exchange(hands, titles)
            state._start_match(deal.seed, hands, self._check_leader(leader, titles, hands), titles,
                               self.seat_order(deal.seed, 0))
        elif "hands" in options:
            hands = self._parse_hands(options["hands"])
            leader = options.get("leader")
            if leader is None:
                leader = self._first_leader(hands, 0) if titles is None else None
            seed = self._seed(options, rng)
            self._check_exchange(hands, titles)
            state._start_match(seed, hands, self._check_leader(leader, titles, hands), titles,
                               tuple(range(self.num_players)))
        else:
            if titles is not None:
                raise ValueError("titles need a position: give hands or a deal code with them")
            if options.get("leader") is not None:
                raise ValueError("leader needs a position: give hands or a deal code with it")
            seed = self._seed(options, rng)
            order = self.seat_order(seed, 0)
            hands, first = self.deal(seed, 0, None, order)
            state._start_match(seed, hands, self._first_leader(hands, first), None, order)
        return state

    @staticmethod
    def _seed(options: dict, rng: np.random.Generator) -> int:
        seed = options.get("seed")
        if seed is None:
            return int(rng.integers(SEED_LIMIT, dtype=np.uint64))
        return as_int_in(seed, "seed", 0, SEED_LIMIT - 1)

    def _parse_titles(self, titles) -> list[int] | None:
        if titles is None:
            return None
        players = self.num_players
        places = [as_int(t, f"titles[{s}]") for s, t in enumerate(as_sequence(titles, "titles"))]
        if sorted(places) != list(range(players)):
            raise ValueError(
                f"titles must give each seat its place 0..{players - 1} once, got {titles!r}"
            )
        return places

    def _check_leader(self, leader, titles: list[int] | None, hands: list[int]) -> int:
        if leader is None:
            # rounds 2+: the last place (Daifugo), the top place (President) or the holder of
            # the 3 of diamonds (UECda; found again after the exchange) leads
            return self.later_leader(titles, hands)
        return as_int_in(leader, "leader", 0, self.num_players - 1)

    def _check_exchange(self, hands: list[int], titles: list[int] | None) -> None:
        """A set-up that starts with the exchange: each giver must hold the cards it gives,
        else the exchange would leave a seat that is still in the round with no cards."""
        if titles is None:
            return
        players = self.num_players
        seat_of = {p: s for s, p in enumerate(titles)}
        for tier, count in enumerate(self.rules.exchange):
            giver = seat_of[players - 1 - tier]
            held = hands[giver].bit_count()
            if held < count:
                raise ValueError(
                    f"seat {giver} (place {players - 1 - tier}) holds {held} card(s) but must "
                    f"give {count} in the exchange; give it at least {count}"
                )

    def _parse_hands(self, texts: Sequence[str]) -> list[int]:
        texts = as_sequence(texts, "hands")
        if len(texts) != self.num_players:
            raise ValueError(
                f"hands needs one string per seat ({self.num_players}), got {texts!r}"
            )
        taken = 0
        hands = []
        for seat, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"hands[{seat}] must be card text such as '3s 4h JK', got {text!r}")
            try:
                hand = self.deck.parse(text, taken)
            except ValueError as err:
                raise ValueError(f"hand of seat {seat}: {err}") from None
            if not hand:
                raise ValueError(f"hand of seat {seat} is empty")
            taken |= hand
            hands.append(hand)
        return hands

    def deal(self, seed: int, round_index: int, after_seat: int | None,
             order: Sequence[int] | None = None, first_seat: int | None = None
             ) -> tuple[list[int], int]:
        """Shuffle and deal round ``round_index`` of the match ``seed``: one card at a time in
        turn ``order`` (default: index order), starting at a seat drawn by the RNG, at the
        seat after ``after_seat`` or at ``first_seat`` when given. Returns the hands and the
        first seat dealt."""
        players = self.num_players
        rng = np.random.default_rng([seed, round_index])
        cards = rng.permutation(self.deck.size)
        order = tuple(range(players)) if order is None else tuple(order)
        first = order[int(rng.integers(players))]
        if after_seat is not None:
            first = order[(order.index(after_seat) + 1) % players]
        if first_seat is not None:
            first = first_seat
        start = order.index(first)
        hands = [0] * players
        for i, card in enumerate(cards.tolist()):
            hands[order[(start + i) % players]] |= 1 << card
        return hands, first

    def seat_order(self, seed: int, round_index: int) -> tuple[int, ...]:
        """The turn order of a round that draws one (``reseat_every``), else index order."""
        players = self.num_players
        every = self.rules.reseat_every
        if not every or round_index % every:
            return tuple(range(players))
        rng = np.random.default_rng([seed, round_index, RESEAT_STREAM])
        return tuple(int(s) for s in rng.permutation(players))

    def later_leader(self, titles: list[int], hands: list[int]) -> int:
        """The leader of a round after the first (``rules.later_leader``)."""
        rule = self.rules.later_leader
        if rule == "three_of_diamonds":
            return self._diamond_three_holder(hands, titles.index(0))
        return titles.index(self.num_players - 1 if rule == "last_place" else 0)

    def _diamond_three_holder(self, hands: list[int], otherwise: int) -> int:
        for seat, hand in enumerate(hands):
            if hand & self.diamond_three_bit:
                return seat
        return otherwise

    def _first_leader(self, hands: list[int], first_dealt: int) -> int:
        """Round 1: the holder of the 3 of diamonds, or the first seat dealt."""
        if self.rules.first_leader == "three_of_diamonds":
            return self._diamond_three_holder(hands, first_dealt)
        return first_dealt

    def cards_for(self, hand: int, action: int) -> int:
        """The physical cards that playing (or giving) ``action`` takes from ``hand``: the
        move's own cards when the catalog fixes them, else the lowest copies held. Bots use it
        to look at the hand a move leaves."""
        cat = self.catalog
        deck = self.deck
        cards = cat.cards[action]
        if cards is None:
            cards = 0
            m = cat.moves[action]
            if m.kind == SET and m.low < JOKER_RANK:
                cards = lowest_bits(hand & deck.rank_mask[m.low], m.size - m.jokers)
            elif m.kind == RUN:
                for r in range(m.low, m.high + 1):
                    if r not in m.joker_ranks:
                        pool = deck.rank_suit_mask[r][m.suit] if m.suit >= 0 else deck.rank_mask[r]
                        cards |= lowest_bits(hand & pool, 1)
            elif m.low < JOKER_RANK:
                cards = lowest_bits(hand & deck.rank_suit_mask[m.low][m.suit], 1)
        jokers = cat.njokers[action] if cat.low[action] < JOKER_RANK else cat.msize[action]
        if jokers:
            cards |= lowest_bits(hand & deck.joker_mask, jokers)
        return cards

    def observe(self, state: DaifugoState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        fast = self._fast or self._fast_writer()
        if fast is not None:
            return fast.write(state, seat, out)
        from .observation import observe

        return observe(self, state, seat, out)

    def seat_observer(self, seat: int):
        """An observer of ``seat`` whose ``observe(state)`` returns its own buffer: the
        compiled core's (written from scratch in C) where the game uses it, else one that keeps
        the observation between calls and rewrites only what changed
        (:class:`~climbrl.envs.daifugo.observation.SeatObserver`)."""
        fast = self._fast_writer()
        if fast is not None:
            return fast.seat_observer(seat)
        from .observation import SeatObserver

        return SeatObserver(self, seat)

    def action_to_str(self, action: int) -> str:
        return self.catalog.action_to_str(action)

    def action_from_str(self, text: str, state: DaifugoState | None = None) -> int:
        giving = state is not None and state.phase == PHASE_EXCHANGE
        return self.catalog.action_from_str(text, giving=giving)

    def render(self, state: DaifugoState) -> str:
        from .observation import render

        return render(self, state)

    def action_features(self) -> np.ndarray:
        """Static float32 features of every action id (see :meth:`Catalog.features`)."""
        return self.catalog.features()

    def move_classes(self) -> tuple[int, ...]:
        """Moves that differ in their suits alone play alike unless a rule reads suits."""
        if self.rules.suits_matter:
            return super().move_classes()
        return self.catalog.suit_free_classes()

    def recent_actions(self, state: DaifugoState, seat: int, count: int) -> np.ndarray:
        """The last ``count`` moves of this round as rows ``(mover's turns after seat, action id)``,
        oldest first, padded with ``(-1, -1)``; another seat's exchange give shows as id -1."""
        out = np.full((count, 2), -1, np.int64)
        rows = state.history[-count:] if count else []
        give = self.catalog.table["give"]
        players = self.num_players
        order = state.order
        at_seat = order.index(seat)
        for i, (mover, action) in enumerate(rows, start=count - len(rows)):
            out[i, 0] = (order.index(mover) - at_seat) % players
            out[i, 1] = -1 if (action in give and mover != seat) else action
        return out

    def from_view(
        self, view: dict[str, Any], hands: Sequence[str | int], seed: int = 0
    ) -> DaifugoState:
        """A state consistent with ``view`` (what one seat saw) in which the seats hold
        ``hands`` (text or masks; the viewer's own must match its view). Bots use it to
        search over guesses of the hidden hands. Facts the view does not give (other seats'
        exchange cards, the match seed) get neutral values."""
        deck = self.deck
        cat = self.catalog
        players = self.num_players
        seat = view["seat"]
        masks = []
        taken = 0
        for s, h in enumerate(hands):
            mask = deck.parse(h, taken) if isinstance(h, str) else int(h)
            if mask & taken:
                raise ValueError(f"hands given to from_view share cards (seat {s})")
            taken |= mask
            masks.append(mask)
        if len(masks) != players:
            raise ValueError(f"from_view needs {players} hands, got {len(masks)}")
        if deck.format(masks[seat]) != view["hand"]:
            raise ValueError("the viewer's hand differs from its view")
        for s in range(players):
            if masks[s].bit_count() != view["hand_counts"][s]:
                raise ValueError(
                    f"seat {s} holds {view['hand_counts'][s]} cards in the view, "
                    f"{masks[s].bit_count()} in the hands given"
                )
        st = DaifugoState(self)
        st.seed = seed
        st.round = view["round"]
        st.scores = list(view["scores"])
        st.reward_total = [0.0] * players
        st.titles = [-1 if p is None else p for p in view["title_places"]]
        st.terminal = view["phase"] == PHASE_NAMES[PHASE_OVER]
        st.winner = -1 if view["winner"] is None else view["winner"]
        st.steps = 0
        st.hands = masks
        st.deal_hands = tuple(masks)
        st.places = [-1 if p is None else p for p in view["places"]]
        placed = {p for p in st.places if p >= 0}
        st.next_top = next(p for p in range(players) if p not in placed) if len(placed) < players else players
        st.next_bottom = next((p for p in reversed(range(players)) if p not in placed), -1)
        st.active = sum(1 << s for s in range(players) if view["active"][s])
        st.revolution = view["revolution"]
        st.jack_back = view["jack_back"]
        st.played = deck.parse(view["played"], taken)
        # the unsuited plays' cards: any free copies of their ranks
        free = deck.real_mask & ~(taken | st.played)
        st.unsuited = cards_within(deck, free, view["played_ranks"])
        st.played |= st.unsuited
        st.hidden_out = deck.full & ~(taken | st.played)
        st.gave = [0] * players
        st.received = [0] * players
        st.gave[seat] = deck.parse(view["exchange"]["gave"])
        st.received[seat] = deck.parse(view["exchange"]["received"])
        st.history = []
        st.phase = PHASE_NAMES.index(view["phase"])
        st.current_player = view["current_player"]
        place = players - 1 if self.rules.later_leader == "last_place" else 0
        st.leader = st.titles.index(place) if place in st.titles else max(st.current_player, 0)
        st.deal_leader = st.leader
        st.pending = []
        if st.phase == PHASE_EXCHANGE:
            seat_of = {p: s for s, p in enumerate(st.titles)}
            started = False
            for tier, count in enumerate(self.rules.exchange):
                receiver, giver = seat_of[tier], seat_of[players - 1 - tier]
                if receiver == st.current_player:
                    started = True
                    left = view["exchange"]["to_give"] if receiver == seat else count
                    st.pending.append([receiver, giver, left])
                elif started:
                    st.pending.append([receiver, giver, count])
        pile = view["pile"]
        st._reset_pile()
        if pile is not None:
            st.pile = cat.action_from_str(pile["move"])
            within = st.played & ~st.unsuited
            if cat.unsuited[st.pile]:
                within = st.unsuited | (st.played & deck.joker_mask)
            st.pile_cards = cards_within(deck, within, pile["cards"])
            st.last_player = pile["by"]
            st.lock = sum(1 << SUITS.index(ch) for ch in (view["lock"] or ""))
            st.prev_suits = -1 if st.pile_cards & deck.joker_mask else cat.suits[st.pile]
            if self.rules.joker_suits:  # UECda: the joker counts as the suit it stands for
                st.prev_suits = -1 if cat.low[st.pile] == JOKER_RANK else cat.lock_suits[st.pile]
            st.jack_back = view["jack_back"]
        st.passed = sum(1 << s for s in range(players) if view["passed"][s])
        st.passed_pile = sum(1 << s for s in range(players) if view["passed_pile"][s])
        st.order = tuple(view["order"])
        # the passes in a row: the round's history ends with them
        st.pass_run = 0
        for _mover, text in reversed(view["history"]):
            if text != "pass":
                break
            st.pass_run += 1
        # who got the lead of an empty pile: the passes on it ran in turn order from that
        # seat to the seat to move, so walk back over the seats in the round that passed
        st.lead_seat = st.current_player
        if st.pile < 0 and st.passed and st.current_player >= 0:
            back = st.order[::-1]
            at = back.index(st.current_player)
            for step in range(1, players):
                s = back[(at + step) % players]
                if not st.active >> s & 1:
                    continue
                if not st.passed >> s & 1:
                    break
                st.lead_seat = s
        st._legal = None
        return st

    def info(self, state: DaifugoState, seat: int) -> dict[str, Any]:
        return {
            "round": state.round,
            "phase": PHASE_NAMES[state.phase],
            "title": state.title_of(seat),
            "score": state.scores[seat],
        }


def cards_within(deck, within: int, text: str) -> int:
    """The cards named by ``text``, each taken from the mask ``within`` (copies as held; a
    rank alone, ``7``, takes any copy of that rank); names with no copy left in ``within``
    are skipped."""
    out = 0
    for token in text.split():
        if token == JOKER_TEXT:
            pool = deck.joker_mask
        else:
            rank, suit = parse_rank_suit(token)
            pool = deck.rank_mask[rank] if suit is None else deck.rank_suit_mask[rank][suit]
        free = within & pool & ~out
        out |= free & -free
    return out


class DaifugoState:
    """One position of a Daifugo / President match. Read its fields; change it only through
    :meth:`apply`."""

    __slots__ = (
        "game",
        "hands",
        "phase",
        "current_player",
        "terminal",
        "round",
        "scores",
        "titles",
        "places",
        "next_top",
        "next_bottom",
        "active",
        "pile",
        "pile_cards",
        "last_player",
        "passed",
        "passed_pile",
        "lock",
        "prev_suits",
        "revolution",
        "jack_back",
        "played",
        "unsuited",
        "hidden_out",
        "gave",
        "received",
        "pending",
        "leader",
        "seed",
        "deal_hands",
        "deal_leader",
        "history",
        "steps",
        "winner",
        "reward_total",
        "order",
        "pass_run",
        "lead_seat",
        "_legal",
    )

    def __init__(self, game: DaifugoGame):
        self.game = game
        self._legal = None

    # -- set-up --------------------------------------------------------------------------------

    def _start_match(
        self, seed: int, hands: list[int], leader: int, titles: list[int] | None,
        order: tuple[int, ...],
    ) -> None:
        players = self.game.num_players
        self.order = order
        self.seed = seed
        self.round = 0 if titles is None else 1
        self.scores = [0] * players
        self.reward_total = [0.0] * players
        self.titles = [-1] * players if titles is None else titles[:]
        self.terminal = False
        self.winner = -1
        self.steps = 0
        self._start_round(hands, leader)

    def _start_round(self, hands: list[int], leader: int) -> None:
        game = self.game
        players = game.num_players
        self.hands = list(hands)
        self.deal_hands = tuple(hands)
        self.deal_leader = leader
        self.places = [-1] * players
        self.next_top = 0
        self.next_bottom = players - 1
        self.active = (1 << players) - 1
        self.revolution = False
        self.played = 0
        self.unsuited = 0
        self.hidden_out = 0
        self.gave = [0] * players
        self.received = [0] * players
        self.pending = []
        self.history = []
        self.leader = leader
        self.pass_run = 0
        self._reset_pile()
        if self.round > 0 and game.rules.exchange and not self.block_starts:
            self._automatic_gives()
        if self.pending:
            self.phase = PHASE_EXCHANGE
            self.current_player = self.pending[0][0]
        else:
            self._start_play()
        self._legal = None

    @property
    def block_starts(self) -> bool:
        """This round opens a class block (``rules.class_block``): no exchange."""
        block = self.game.rules.class_block
        return bool(block) and self.round % block == 0

    def _start_play(self) -> None:
        """The exchange is over (or there is none): the leader leads. Under the UECda rule
        the 3 of diamonds' holder after the exchange leads every round."""
        game = self.game
        if self.round > 0 and game.rules.later_leader == "three_of_diamonds":
            self.leader = game._diamond_three_holder(self.hands, self.leader)
        self.phase = PHASE_PLAY
        self.current_player = self.lead_seat = self.leader

    def _reset_pile(self) -> None:
        self.pile = -1
        self.pile_cards = 0
        self.last_player = -1
        self.passed = 0
        self.passed_pile = 0
        self.lock = 0
        self.prev_suits = -1
        self.jack_back = False

    def _automatic_gives(self) -> None:
        """Exchange, giving side: the k-th lowest place gives its strongest cards to the k-th
        highest (normal order, jokers on top, ties spade > heart > diamond > club)."""
        game = self.game
        players = game.num_players
        seat_of_place = {p: s for s, p in enumerate(self.titles)}
        key = game.give_key
        for tier, count in enumerate(game.rules.exchange):
            receiver = seat_of_place[tier]
            giver = seat_of_place[players - 1 - tier]
            cards = sorted(iter_bits(self.hands[giver]), key=key.__getitem__, reverse=True)[:count]
            mask = sum(1 << c for c in cards)
            self.hands[giver] ^= mask
            self.hands[receiver] |= mask
            self.gave[giver] |= mask
            self.received[receiver] |= mask
            self.pending.append([receiver, giver, count])

    # -- protocol ------------------------------------------------------------------------------

    def clone(self) -> DaifugoState:
        new = DaifugoState.__new__(DaifugoState)
        for name in DaifugoState.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands[:]
        new.scores = self.scores[:]
        new.reward_total = self.reward_total[:]
        new.titles = self.titles[:]
        new.places = self.places[:]
        new.gave = self.gave[:]
        new.received = self.received[:]
        new.pending = [p[:] for p in self.pending]
        new.history = self.history[:]
        return new

    @property
    def deal_code(self) -> str:
        """The code of this round's deal (hands as dealt, the round's leader, match seed)."""
        game = self.game
        owners = [game.num_players] * game.deck.size
        for seat, hand in enumerate(self.deal_hands):
            for card in iter_bits(hand):
                owners[card] = seat
        return dealcode.encode(
            game.tag, dealcode.Deal(tuple(owners), self.deal_leader, self.seed), game.num_players
        )

    def returns(self) -> list[float]:
        return self.reward_total[:]

    @property
    def reversed(self) -> bool:
        """The number order in force is reversed (revolution XOR jack back)."""
        return self.revolution != self.jack_back

    def title_of(self, seat: int) -> str | None:
        """The seat's title from the previous round (None in round 1)."""
        place = self.titles[seat]
        return None if place < 0 else self.game.rules.titles[place]

    # -- legal moves ---------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """The legal ids, in a new list (the caller's own: changing it changes nothing here)."""
        return list(self._legal_ids())

    def _legal_ids(self) -> list[int]:
        """The state's own list of the legal ids (made once per turn; never handed out)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return legal

    def _generate(self) -> list[int]:
        if self.terminal:
            return []
        game = self.game
        cat = game.catalog
        deck = game.deck
        hand = self.hands[self.current_player]
        pres = deck.presence(hand)
        jokers = (hand & deck.joker_mask).bit_count()
        if self.phase == PHASE_EXCHANGE:
            out = []
            gives = cat.gives_by
            for r in range(NUM_RANKS):
                held = (pres >> (r * NUM_SUITS)) & SUIT_NIBBLE
                if held:
                    out += gives[r][held]
            if jokers:
                out.append(cat.give_joker)
            return out
        pile = self.pile
        rules = game.rules
        if pile < 0:
            out = self._lead(hand, pres, jokers)
            if rules.lead_pass:
                out.insert(0, cat.pass_id)  # UECda: a pass on an empty pile is a pass
            return out
        out = [cat.pass_id]
        kind = cat.kind[pile]
        p = cat.low[pile]
        rev = self.revolution != self.jack_back
        lock = self.lock or SUIT_NIBBLE
        if kind == SINGLE:
            if p == JOKER_RANK:
                # spade three return: a single 3 of spades beats a single joker, even locked,
                # but not for a player who already passed on this pile
                if (
                    rules.spade_three_return
                    and pres & 1 << card_index(RANK_3, SUIT_SPADES)
                    and not self.passed_pile >> self.current_player & 1
                ):
                    out.append(game.spade_three)
                return out
            singles = cat.singles_by
            for r in game.stronger[2 * rev + rules.skip_on_equal][p]:
                held = (pres >> (r * NUM_SUITS)) & lock
                if held:
                    out += singles[r][held]
            if jokers:
                out.append(cat.joker_single)  # a joker beats any single, locked ones too
            return out
        if kind == SET:
            if p == JOKER_RANK:
                return out  # the pair of jokers cannot be beaten
            n = cat.msize[pile]
            sized = cat.sets_sized
            if cat.suited_sets:
                for r in game.stronger[2 * rev + rules.skip_on_equal][p]:
                    held = (pres >> (r * NUM_SUITS)) & lock
                    if held:
                        out += sized[r][held][jokers][n]
            else:
                rank_mask = deck.rank_mask
                for r in game.stronger[2 * rev + rules.skip_on_equal][p]:
                    held = (hand & rank_mask[r]).bit_count()
                    if held:
                        out += sized[r][held][jokers][n]
            if self.lock and rules.joker_suits:
                # the joker stands for a suit of the lock: the reply shows exactly its suits
                lock_suits = cat.lock_suits
                out = [a for a in out if a == cat.pass_id or lock_suits[a] == self.lock]
            if n == 2 and jokers == 2 and cat.joker_pair >= 0:
                out.append(cat.joker_pair)
            if rules.bombs and n in (2, 3):
                # bombs: a single top number (2, or 3 when reversed) or a joker beats a pair/triple
                top = RANK_3 if rev else RANK_2
                held = (pres >> (top * NUM_SUITS)) & lock
                if held:
                    out += cat.singles_by[top][held]
                if jokers:
                    out.append(cat.joker_single)
            return out
        # run: same length; the reply's lowest card beats the pile's highest in the order in force
        length, high = cat.msize[pile], cat.high[pile]
        if cat.suited_runs:
            suit_ranks = game.suit_ranks(pres)
            for s in iter_bits(lock) if self.lock else range(NUM_SUITS):
                if suit_ranks[s]:
                    group = cat.runs_from(s, suit_ranks[s], jokers)
                    out += cat.runs_beating(group, length, p, high, rev)
        else:
            group = cat.runs_from(-1, self._rank_presence(pres), jokers)
            out += cat.runs_beating(group, length, p, high, rev)
        return out

    def _lead(self, hand: int, pres: int, jokers: int) -> list[int]:
        """Every play the hand can make when leading (any shape)."""
        game = self.game
        cat = game.catalog
        out: list[int] = []
        singles, sets = cat.singles_by, cat.sets_by
        if cat.suited_sets:
            for r in range(NUM_RANKS):
                held = (pres >> (r * NUM_SUITS)) & SUIT_NIBBLE
                if held:
                    out += singles[r][held]
                    out += sets[r][held][jokers]
        else:
            rank_mask = game.deck.rank_mask
            for r in range(NUM_RANKS):
                held = (pres >> (r * NUM_SUITS)) & SUIT_NIBBLE
                if held:
                    out += singles[r][held]
                    out += sets[r][(hand & rank_mask[r]).bit_count()][jokers]
        if jokers:
            out.append(cat.joker_single)
            if jokers == 2 and cat.joker_pair >= 0:
                out.append(cat.joker_pair)
        if game.rules.runs:
            if cat.suited_runs:
                for s, ranks in enumerate(game.suit_ranks(pres)):
                    if ranks:
                        out += cat.runs_from(s, ranks, jokers).all
            else:
                out += cat.runs_from(-1, self._rank_presence(pres), jokers).all
        return out

    @staticmethod
    def _rank_presence(pres: int) -> int:
        out = 0
        for r in range(NUM_RANKS):
            if (pres >> (r * NUM_SUITS)) & SUIT_NIBBLE:
                out |= 1 << r
        return out

    # -- applying moves --------------------------------------------------------------------------

    def apply(self, action: int) -> list[float] | None:
        if type(action) is not int:
            action = as_action(action)
        legal = self._legal_ids()
        if action not in legal:
            self._raise_illegal(action)
        self._legal = None
        self.steps += 1
        seat = self.current_player
        self.history.append((seat, action))
        if self.phase == PHASE_EXCHANGE:
            self._give(seat, action)
            return None
        cat = self.game.catalog
        if action == cat.pass_id:
            self.passed |= 1 << seat
            self.passed_pile |= 1 << seat
            self.pass_run += 1
            stall = self.game.rules.stall_passes
            if stall and self.pass_run >= stall:
                return self._stall()
            if self.pile < 0:
                self._lead_passed(seat)
            else:
                self._advance(seat, skip=False)
            return None
        return self._play(seat, action)

    def _lead_passed(self, seat: int) -> None:
        """A pass on an empty pile (``lead_pass``): the next seat that has not passed leads;
        when every seat still in has passed, the passes are forgotten and the seat that got
        the lead leads again."""
        nxt = self._next_eligible(seat)
        if nxt < 0:
            self.passed = self.passed_pile = 0
            lead = self.lead_seat
            nxt = lead if self.active >> lead & 1 else self._next_active(lead)
        self.current_player = nxt

    def _stall(self) -> list[float]:
        """The stall guard: the seats still in take the remaining places in a random order
        (the match's RNG, so a replay places them alike), and the round ends."""
        rng = np.random.default_rng([self.seed, self.round, STALL_STREAM, self.steps])
        for seat in rng.permutation(sorted(iter_bits(self.active))).tolist():
            self.places[seat] = self.next_top
            self.next_top += 1
            self.hidden_out |= self.hands[seat]
            self.hands[seat] = 0
        self.active = 0
        return self._end_round()

    def _raise_illegal(self, action: int) -> None:
        if self.terminal:
            raise IllegalActionError("the match is over; no action is legal")
        try:
            text = self.game.action_to_str(action)
        except ValueError:
            raise IllegalActionError(f"action id {action} is not in the catalog") from None
        raise IllegalActionError(
            f"{text!r} (id {action}) is not legal for seat {self.current_player} now "
            f"(phase {PHASE_NAMES[self.phase]})"
        )

    def _take(self, seat: int, action: int) -> int:
        """Remove the physical cards of ``action`` from the seat's hand; return them."""
        cards = self.game.cards_for(self.hands[seat], action)
        self.hands[seat] ^= cards
        return cards

    def _give(self, seat: int, action: int) -> None:
        """Exchange, receiving side: give back one chosen card."""
        entry = self.pending[0]
        target = entry[1]
        card = self._take(seat, action)
        self.hands[target] |= card
        self.gave[seat] |= card
        self.received[target] |= card
        entry[2] -= 1
        if entry[2] == 0:
            self.pending.pop(0)
        if self.pending:
            self.current_player = self.pending[0][0]
        else:
            self._start_play()

    def _play(self, seat: int, action: int) -> list[float] | None:
        game = self.game
        rules = game.rules
        cat = game.catalog
        prev = self.pile
        reversed_before = self.revolution != self.jack_back
        cards = self._take(seat, action)
        joker_used = cards & game.deck.joker_mask
        self.pass_run = 0
        # lock: two consecutive joker-free plays with the same suit set lock the pile
        if rules.lock and rules.joker_suits:
            # UECda: a joker counts as the suit it stands for; a joker alone starts no lock
            # and lifts one
            if cat.low[action] == JOKER_RANK:
                self.lock = 0
                self.prev_suits = -1
            else:
                suits = cat.lock_suits[action]
                if not self.lock and prev >= 0 and self.prev_suits == suits:
                    self.lock = suits
                self.prev_suits = suits
        elif rules.lock:
            suits = cat.suits[action]
            if joker_used:
                self.prev_suits = -1
            else:
                if not self.lock and prev >= 0 and self.prev_suits == suits:
                    self.lock = suits
                self.prev_suits = suits
        skip = (
            rules.skip_on_equal
            and prev >= 0
            and cat.kind[action] == cat.kind[prev]
            and cat.low[action] == cat.low[prev] != JOKER_RANK
        )
        spade_three = (
            rules.spade_three_return and prev == cat.joker_single and action == game.spade_three
        )
        self.pile = action
        self.pile_cards = cards
        self.last_player = seat
        self.played |= cards
        if cat.unsuited[action]:
            self.unsuited |= cards & game.deck.real_mask
        if not rules.strict_pass:
            self.passed = 0
        kind = cat.kind[action]
        revolution = rules.revolution and (
            (kind == SET and cat.msize[action] >= REVOLUTION_SIZE)
            or (kind == RUN and 0 < rules.run_revolution <= cat.msize[action])
        )
        if revolution:
            self.revolution = not self.revolution
        real_ranks = game.real_ranks[action]
        if rules.jack_back and real_ranks >> RANK_J & 1:
            self.jack_back = not self.jack_back
        cut = spade_three or (rules.eight_cut and real_ranks >> RANK_8 & 1)
        if not self.hands[seat]:
            illegal = rules.illegal_finish and self._illegal_finish(
                action, cards, reversed_before, revolution
            )
            rewards = self._finish(seat, illegal)
            if rewards is not None:
                return rewards
        if cut:
            self._clear(seat)
        else:
            self._advance(seat, skip)
        return None

    def _illegal_finish(self, action: int, cards: int, reversed_before: bool, revolution: bool):
        """Finishing on a 2 (a 3 when the order in force is reversed), a joker, an 8 (eight cut
        on) or a play that triggers a revolution."""
        game = self.game
        real_ranks = game.real_ranks[action]
        top = RANK_3 if reversed_before else RANK_2
        return bool(
            cards & game.deck.joker_mask
            or real_ranks >> top & 1
            or (game.rules.eight_cut and real_ranks >> RANK_8 & 1)
            or revolution
        )

    def _next_eligible(self, seat: int) -> int:
        """The next seat after ``seat`` still in the round that has not passed; -1 if none."""
        return self._next_of(seat, self.active & ~self.passed)

    def _next_active(self, seat: int) -> int:
        return self._next_of(seat, self.active)

    def _next_of(self, seat: int, seats: int) -> int:
        """The next seat after ``seat`` in turn order within the mask ``seats``; -1 if none."""
        order = self.order
        players = len(order)
        at = order.index(seat)
        for step in range(1, players + 1):
            s = order[(at + step) % players]
            if seats >> s & 1:
                return s
        return -1

    def _advance(self, seat: int, skip: bool) -> None:
        """Give the turn to the next seat that may still reply, or clear the pile when every
        seat in the round other than the last player has passed."""
        nxt = self._next_eligible(seat)
        if skip and nxt >= 0 and nxt != self.last_player:
            nxt = self._next_eligible(nxt)  # skip on equal rank: the next player is skipped
        if nxt < 0 or nxt == self.last_player:
            self._clear(self.last_player)
        else:
            self.current_player = nxt

    def _clear(self, leader: int) -> None:
        """The pile clears; ``leader`` leads, or the next seat still in the round after it."""
        self._reset_pile()
        self.current_player = leader if self.active >> leader & 1 else self._next_active(leader)
        self.lead_seat = self.current_player

    def _finish(self, seat: int, illegal: bool) -> list[float] | None:
        """The seat emptied its hand. Returns the round's rewards when the round ends."""
        game = self.game
        rules = game.rules
        self.active &= ~(1 << seat)
        if illegal:
            self.places[seat] = self.next_bottom
            self.next_bottom -= 1
        else:
            place = self.places[seat] = self.next_top
            self.next_top += 1
            if place == 0 and rules.fall_of_capital and self.round > 0:
                fallen = self.titles.index(0)
                if fallen != seat and self.active >> fallen & 1:
                    # fall of the capital: the previous top player drops out, hand face down
                    self.hidden_out |= self.hands[fallen]
                    self.hands[fallen] = 0
                    self.active &= ~(1 << fallen)
                    self.places[fallen] = self.next_bottom
                    self.next_bottom -= 1
        if self.active.bit_count() <= 1:
            return self._end_round()
        return None

    def _end_round(self) -> list[float]:
        game = self.game
        rules = game.rules
        for seat in iter_bits(self.active):
            self.places[seat] = self.next_top
            self.hidden_out |= self.hands[seat]
            self.hands[seat] = 0
        rewards = [game.round_rewards[p] for p in self.places]
        for seat, place in enumerate(self.places):
            self.scores[seat] += rules.points[place]
            self.reward_total[seat] += rewards[seat]
        self.titles = self.places[:]
        self.round += 1
        if self.round >= rules.rounds:
            self.terminal = True
            self.phase = PHASE_OVER
            self.current_player = -1
            self.active = 0
            # highest total wins; a tie goes to the player placed higher in the final round
            self.winner = min(range(game.num_players), key=lambda s: (-self.scores[s], self.places[s]))
            return rewards
        players = game.num_players
        last = self.titles.index(players - 1)
        after = last if rules.later_dealing == "after_last_place" else None
        # UECda: the top place is dealt first, but a class block opens at a random seat
        first = None
        if rules.later_dealing == "top_place" and not self.block_starts:
            first = self.titles.index(0)
        self.order = game.seat_order(self.seed, self.round) if rules.reseat_every and (
            self.round % rules.reseat_every == 0) else self.order
        hands, _first = game.deal(self.seed, self.round, after, self.order, first)
        self._start_round(hands, game.later_leader(self.titles, hands))
        return rewards

    # -- what a seat may see -----------------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, as plain values; the documented structure bots and tests read.

        Keys: ``seat``, ``phase``, ``round`` (0-based), ``rounds``, ``current_player``, ``hand``
        (card text), ``hand_counts`` (cards per seat), ``pile`` (``None`` or a dict with
        ``move``, ``cards``, ``shape``, ``size``, ``by``), ``passed`` (per seat), ``active``
        (per seat still in the round), ``places`` (this round, ``None`` until placed),
        ``titles`` (last round's title per seat or ``None``), ``scores``, ``revolution``,
        ``jack_back``, ``reversed``, ``lock`` (suit letters or ``None``), ``exchange`` (cards
        this seat gave and received this round, and how many it still gives back),
        ``played`` (cards seen played this round with their suits), ``played_ranks`` (the real
        cards of this round's unsuited plays, by rank: ``"7 7 3 4 5"``), ``history`` (this
        round's moves as ``(seat, text)``; another seat's exchange give shows as ``give ?``),
        ``winner`` (once over), ``order`` (the seats in turn order).

        Nothing in it depends on another seat's hidden cards, so it is safe to send to that
        seat. In particular the engine, not the player, picks which copies leave the hand in an
        unsuited play (a two-deck set ``Q Q``, an any-suit run ``3 4 5``), so their suits are
        never shown: the pile's ``cards`` then reads ``Q Q`` and ``played_ranks`` counts them.
        """
        game = self.game
        deck = game.deck
        cat = game.catalog
        players = game.num_players
        pile = None
        if self.pile >= 0:
            pile = {
                "move": cat.action_to_str(self.pile),
                "cards": deck.format(self.pile_cards, suits=not cat.unsuited[self.pile]),
                "shape": ("pass", "single", "set", "run")[cat.kind[self.pile]],
                "size": cat.msize[self.pile],
                "by": self.last_player,
            }
        to_give = sum(e[2] for e in self.pending if e[0] == seat)
        return {
            "seat": seat,
            "phase": PHASE_NAMES[self.phase],
            "round": self.round if not self.terminal else self.round - 1,
            "rounds": game.rules.rounds,
            "current_player": self.current_player,
            "hand": deck.format(self.hands[seat]),
            "hand_counts": [self.hands[s].bit_count() for s in range(players)],
            "pile": pile,
            "passed": [bool(self.passed >> s & 1) for s in range(players)],
            "passed_pile": [bool(self.passed_pile >> s & 1) for s in range(players)],
            "active": [bool(self.active >> s & 1) for s in range(players)],
            "places": [None if p < 0 else p for p in self.places],
            "titles": [self.title_of(s) for s in range(players)],
            "title_places": [None if p < 0 else p for p in self.titles],
            "scores": self.scores[:],
            "revolution": self.revolution,
            "jack_back": self.jack_back,
            "reversed": self.reversed,
            "lock": "".join(SUITS[s] for s in iter_bits(self.lock)) or None,
            "exchange": {
                "gave": deck.format(self.gave[seat]),
                "received": deck.format(self.received[seat]),
                "to_give": to_give,
            },
            "played": deck.format(self.played & ~self.unsuited),
            "played_ranks": deck.format(self.unsuited, suits=False),
            "history": [
                (s, "give ?" if cat.kind[a] == GIVE and s != seat else cat.action_to_str(a))
                for s, a in self.history
            ],
            "winner": self.winner if self.terminal else None,
            "order": list(self.order),
        }

