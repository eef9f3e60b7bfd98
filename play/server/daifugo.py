"""A Daifugo / President match at the table: the engine's state plus what the table shows.

:class:`DaifugoTable` wraps one :class:`~climbrl.envs.daifugo.engine.DaifugoState` (the whole match:
the engine deals every round from the match seed). It applies moves for a seat, turns each
step into the events a page announces (a play, an eight cut, a lock, a finish...), and
answers what one seat may see. It reads the engine's state; it never decides a rule itself,
except to *name* what a move just did (a revolution is a set of four or more on a revolution
table) for the announcement.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from climbrl.envs.core.bits import iter_bits
from climbrl.envs.daifugo.cards import JOKER_RANK, RANK_8, RANK_J, RANKS, SUITS
from climbrl.envs.daifugo.catalog import GIVE, KIND_NAMES, PASS, RUN, SET, SINGLE, Catalog
from climbrl.envs.daifugo.engine import PHASE_EXCHANGE, PHASE_NAMES, DaifugoGame
from climbrl.envs.daifugo.rules import REVOLUTION_SIZE, Rules
from climbrl.policies.daifugo.talk import DaifugoTalk

from .events import Event
from .match import EngineTable, checked
from .shared import Shared

RANK_WORDS = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUIT_WORDS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
SET_WORDS = {2: "pair of", 3: "three", 4: "four", 5: "five", 6: "six"}
#: the president switches a room may set (the rest of the preset stays)
PRESIDENT_SWITCHES = ("revolution", "jokers", "decks", "skip_on_equal", "runs", "bombs", "strict_pass")


def title_code(title: str) -> str:
    """``Grand Millionaire`` -> ``grand_millionaire``, ``Vice-Scum`` -> ``vice_scum``."""
    return "_".join(title.lower().replace("-", " ").split())


def rank_word(rank: int, plural: bool = False) -> str:
    text = RANKS[rank]
    word = RANK_WORDS.get(text, text)
    return word + "s" if plural else word


def switches(game: str) -> tuple[str, ...]:
    return Rules.HOUSE_RULES if game == "daifugo" else PRESIDENT_SWITCHES


def make_rules(game: str, players: int, rounds: int, rules: dict[str, Any]) -> Rules:
    """The engine rules of a room; ``ValueError`` naming an unknown switch or a refused mix."""
    allowed = switches(game)
    unknown = sorted(set(rules) - set(allowed))
    if unknown:
        raise ValueError(f"unknown rule(s) {unknown} for {game}; rules are {list(allowed)}")
    overrides = {k: v for k, v in rules.items() if v is not None}
    return Rules.preset(game, players, rounds=rounds, **overrides)


CATALOGS_KEPT = 6
"""catalogs kept while no table plays them (a few megabytes each, a fifth of a second to build)"""
ENGINES_KEPT = CATALOGS_KEPT
"""engines kept while no table plays them (a few kilobytes over their catalog, a few
milliseconds to build on it); no more than the catalogs, so the engines kept keep no catalog
beyond those"""
CATALOGS = Shared(Catalog, CATALOGS_KEPT)
"""one catalog per :meth:`Catalog.key_of` (the deck and the runs; house rules leave it alone)"""
ENGINES = Shared(lambda rules, catalog: DaifugoGame(rules, catalog=catalog), ENGINES_KEPT)


def engine_for(rules: Rules, pin: bool = False) -> DaifugoGame:
    """One engine per rules config, shared by every room that plays it, on a catalog shared by
    every rules config with its key (an engine holds no position). The catalog is asked for
    each time, so the last engines asked for are on the last catalogs asked for. Regression:
    every rules config built a catalog of its own and 64 engines were kept, used or not: a
    client making rooms of random rules grew the server by hundreds of megabytes. ``pin``:
    the engine and its catalog are kept for good (:meth:`.shared.Shared.pin`)."""
    catalogs, engines = (CATALOGS.pin, ENGINES.pin) if pin else (CATALOGS, ENGINES)
    catalog = catalogs(Catalog.key_of(rules), rules)
    return engines(rules, rules, catalog)


def _prepare(game: str) -> None:
    """Build and pin the engine of every table of ``game`` the lobby offers with its default
    rules: each player count and round count (three catalogs and a few dozen engines in all,
    a quarter of a second and a few megabytes)."""
    for players in PLAYER_CHOICES[game]:
        for rounds in ROUND_CHOICES:
            engine_for(make_rules(game, players, rounds, {}), pin=True)


def _rule_options(game: str) -> list[dict[str, Any]]:
    base = Rules.preset(game, DEFAULT_PLAYERS[game])
    rules = []
    for name in switches(game):
        entry: dict[str, Any] = {"name": name, "default": getattr(base, name)}
        if name == "jokers":
            entry["choices"] = [0, 1, 2]
        if name == "decks":
            entry["default"] = None
            entry["choices"] = [1, 2]
        rules.append(entry)
    return rules


def _rule_value_ok(key: str, value: Any) -> bool:
    if key in ("jokers", "decks"):
        return value is None or (isinstance(value, int) and not isinstance(value, bool))
    return isinstance(value, bool)


ROUND_CHOICES = (3, 5, 7)
DEFAULT_ROUNDS = {"daifugo": 3, "president": 5}
PLAYER_CHOICES = {"daifugo": (3, 4), "president": tuple(range(3, 9))}
DEFAULT_PLAYERS = {"daifugo": 4, "president": 4}


def _table_game(game: str):
    from .games import TableGame

    return TableGame(
        name=game, players=PLAYER_CHOICES[game], default_players=DEFAULT_PLAYERS[game],
        rounds=ROUND_CHOICES, default_rounds=DEFAULT_ROUNDS[game],
        rule_options=lambda: _rule_options(game),
        check_rules=lambda players, rounds, rules: make_rules(game, players, rounds, rules),
        new_table=lambda players, rounds, rules, seed: DaifugoTable(game, players, rounds, rules,
                                                                    seed),
        check_rule_value=_rule_value_ok, prepare=lambda: _prepare(game),
        engine=lambda rules: engine_for(Rules.from_dict(rules)),
        build_engine=lambda players, rounds, rules: engine_for(make_rules(game, players, rounds, rules)),
    )


class DaifugoTable(EngineTable):
    """One match of Daifugo or President."""

    def __init__(self, game: str, players: int, rounds: int, rules: dict[str, Any], seed: int):
        self.name = game
        self.rules = make_rules(game, players, rounds, rules)
        self.engine = engine_for(self.rules)
        self.deck = deck = self.engine.deck
        self.cat = self.engine.catalog
        self.players = players
        self.talk = DaifugoTalk(self.engine)
        self.card_objects = tuple(self._card_object(i) for i in range(deck.size))
        self.state = self.engine.new_state(np.random.default_rng(0), {"seed": seed})
        self.deal_codes = [self.state.deal_code]
        self.rounds_log: list[dict[str, Any]] = []

    # -- cards -----------------------------------------------------------------------------

    def _card_object(self, index: int) -> dict[str, Any]:
        if self.deck.is_joker(index):
            return {"id": index, "text": "JK", "rank": "JK", "suit": None}
        rank, suit = self.deck.rank_suit(index)
        return {"id": index, "text": RANKS[rank] + SUITS[suit], "rank": RANKS[rank], "suit": SUITS[suit]}

    def cards(self, mask: int) -> list[dict[str, Any]]:
        key = self.deck.sort_key
        return [self.card_objects[i] for i in sorted(iter_bits(mask), key=key)]

    def ids(self, mask: int) -> list[int]:
        return sorted(iter_bits(mask), key=self.deck.sort_key)

    def mask_of(self, ids) -> int:
        mask = 0
        for i in ids:
            mask |= 1 << i
        return mask

    # -- the match -------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return None if self.state.terminal else self.state.current_player

    @property
    def over(self) -> bool:
        return self.state.terminal

    @property
    def deal_over(self) -> bool:
        return self.state.terminal

    def legal(self) -> list[int]:
        return list(self.state.legal_actions())

    def label(self, action: int) -> str:
        """A short human name of a move: ``pair of 7s``, ``run 3-5 of spades (joker as 4s)``."""
        cat = self.cat
        m = cat.moves[action]
        if m.kind == PASS:
            return "pass"
        if m.kind == GIVE:
            return "give " + ("joker" if m.low == JOKER_RANK else RANKS[m.low] + SUITS[m.suit])
        if m.low == JOKER_RANK:
            return "joker" if m.size == 1 else "pair of jokers"
        if m.kind == SINGLE:
            return f"single {rank_word(m.low)}"
        jokers = "" if not m.jokers else (" with a joker" if m.jokers == 1 else f" with {m.jokers} jokers")
        if m.kind == SET:
            head = SET_WORDS.get(m.size, str(m.size))
            return f"{head} {rank_word(m.low, True)}{jokers}"
        suit = f" of {SUIT_WORDS[SUITS[m.suit]]}" if m.suit >= 0 else ""
        stand = ""
        if m.joker_ranks:
            letter = SUITS[m.suit] if m.suit >= 0 else ""
            stand = " (joker as " + ", ".join(RANKS[r] + letter for r in m.joker_ranks) + ")"
        return f"run {rank_word(m.low)}-{rank_word(m.high)}{suit}{stand}"

    def move_name(self, action: int) -> dict[str, Any]:
        """The move's name as a code and values, for a page to say in its language
        (docs/protocol.md, "Move names"); :meth:`label` is the same in English."""
        m = self.cat.moves[action]
        if m.kind == PASS:
            return {"code": "pass"}
        if m.kind == GIVE:
            return {"code": "give", "card": "JK" if m.low == JOKER_RANK else RANKS[m.low] + SUITS[m.suit]}
        if m.low == JOKER_RANK:
            return {"code": "joker" if m.size == 1 else "joker_pair"}
        if m.kind == SINGLE:
            return {"code": "single", "rank": RANKS[m.low]}
        if m.kind == SET:
            return {"code": "set", "size": m.size, "rank": RANKS[m.low], "jokers": m.jokers}
        letter = SUITS[m.suit] if m.suit >= 0 else ""
        return {"code": "run", "low": RANKS[m.low], "high": RANKS[m.high], "suit": letter or None,
                "jokers_as": [RANKS[r] + letter for r in m.joker_ranks]}

    def title_code(self, place: int) -> str:
        """The code of the title of ``place`` (``grand_millionaire``, ``vice_scum``): its English
        name in lower case with ``_`` between words, which a page translates."""
        return title_code(self.rules.titles[place])

    def shape(self, action: int) -> str:
        return KIND_NAMES[self.cat.kind[action]]

    def any_suit(self, action: int) -> bool:
        """Whether the move takes any cards of its ranks (two-deck sets, any-suit runs)."""
        cat = self.cat
        kind = cat.kind[action]
        if kind == SET and cat.low[action] < JOKER_RANK:
            return not cat.suited_sets
        return kind == RUN and cat.moves[action].suit < 0

    def rules_dict(self) -> dict[str, Any]:
        """The rules as plain values (what a CPU worker rebuilds the engine from)."""
        return self.rules.to_dict()

    def move_ids(self, seat: int, action: int) -> list[int]:
        """The ids of the cards ``seat``'s move ``action`` takes from its hand."""
        return self.ids(self.move_cards(seat, action))

    def move_cards(self, seat: int, action: int) -> int:
        if self.cat.kind[action] == PASS:
            return 0
        return self.engine.cards_for(self.state.hands[seat], action)

    def apply(self, seat: int, action: int, cards=None) -> list[Event]:
        """Play ``action`` for ``seat`` (the seat to move; ``cards`` is ignored: the engine
        takes the cards). Returns the events. ``ValueError`` for an illegal move."""
        st = self.state
        cat = self.cat
        rules = self.rules
        if st.terminal or st.current_player != seat:
            raise ValueError("not this seat's turn")
        if action not in st.legal_actions():
            raise ValueError(f"action {action} is not a legal move now")
        round_before = st.round
        phase_before = st.phase
        pile_before = st.pile
        jack_before = st.jack_back
        revolution_before = st.revolution
        lock_before = st.lock
        next_top_before = st.next_top
        places_before = st.places[:]
        titles_before = st.titles[:]
        target = st.pending[0][1] if phase_before == PHASE_EXCHANGE else None
        taken = self.move_cards(seat, action)
        st.apply(action)
        events: list[Event] = []
        if phase_before == PHASE_EXCHANGE:
            events.append(Event.private(
                {"type": "give", "from": seat, "to": target, "count": 1, "cards": None},
                {s: {"cards": self.cards(taken)} for s in (seat, target)},
            ))
        elif action == cat.pass_id:
            events.append(Event({"type": "pass", "seat": seat}))
        else:
            events.append(Event({
                "type": "play", "seat": seat, "text": cat.action_to_str(action),
                "label": self.label(action), "name": self.move_name(action), "cards": self.cards(taken),
            }))
            real = self.engine.real_ranks[action]
            if rules.revolution and cat.kind[action] == SET and cat.msize[action] >= REVOLUTION_SIZE:
                events.append(Event({"type": "revolution", "seat": seat, "on": not revolution_before}))
            if rules.jack_back and real >> RANK_J & 1:
                events.append(Event({"type": "jack_back", "seat": seat, "on": not jack_before}))
            if (rules.spade_three_return and pile_before == cat.joker_single
                    and action == self.engine.spade_three):
                events.append(Event({"type": "spade_three", "seat": seat}))
            elif rules.eight_cut and real >> RANK_8 & 1:
                events.append(Event({"type": "eight_cut", "seat": seat}))
            if st.round == round_before and st.lock and not lock_before:
                suits = "".join(SUITS[s] for s in iter_bits(st.lock))
                events.append(Event({"type": "lock", "seat": seat, "suits": suits}))
        round_over = st.round != round_before
        places_after = st.titles if round_over else st.places
        titles = rules.titles
        fallen = None
        if (rules.fall_of_capital and round_before > 0 and places_after[seat] == 0
                and titles_before[seat] != 0):
            fallen = titles_before.index(0)
        newly = [s for s in range(self.players) if places_before[s] < 0 and places_after[s] >= 0]
        for s in sorted(newly, key=lambda s: (s != seat, s == fallen)):
            place = places_after[s]
            if s == fallen:
                events.append(Event({"type": "fall", "seat": s, "place": place}))
            else:
                illegal = s == seat and place != next_top_before
                events.append(Event({"type": "finish", "seat": s, "place": place,
                                     "title": titles[place], "title_code": self.title_code(place),
                                     "illegal": illegal}))
        if round_over:
            events += self._round_end(round_before)
        elif phase_before != PHASE_EXCHANGE and st.pile < 0 and not st.terminal:
            events.append(Event({"type": "clear", "leader": st.current_player}))
        return events

    def _round_end(self, round_index: int) -> list[Event]:
        st = self.state
        rules = self.rules
        places = st.titles[:]
        entry = {
            "round": round_index,
            "places": places,
            "titles": [rules.titles[p] for p in places],
            "title_codes": [self.title_code(p) for p in places],
            "points": [rules.points[p] for p in places],
            "scores": st.scores[:],
        }
        self.rounds_log.append(entry)
        events = [Event({"type": "round_end", **entry})]
        if st.terminal:
            events.append(Event({"type": "match_end", "winner": st.winner, "scores": st.scores[:]}))
            return events
        self.deal_codes.append(st.deal_code)
        events.append(Event({"type": "start", "round": st.round}))
        for receiver, giver, count in st.pending:
            given = st.gave[giver]
            events.append(Event.private(
                {"type": "give", "from": giver, "to": receiver, "count": count, "cards": None},
                {s: {"cards": self.cards(given)} for s in (giver, receiver)},
            ))
        return events

    # -- what a seat sees ------------------------------------------------------------------

    def seat_public(self, seat: int) -> dict[str, Any]:
        st = self.state
        place = st.places[seat] if not st.terminal else st.titles[seat]
        title = st.title_of(seat) if not st.terminal or st.round > 1 else None
        return {
            "cards": st.hands[seat].bit_count(),
            "title": title,
            "title_code": title_code(title) if title else None,
            "passed": bool(st.passed >> seat & 1) and not st.terminal,
            "place": None if place < 0 else place,
            "score": st.scores[seat],
        }

    def public(self) -> dict[str, Any]:
        st = self.state
        cat = self.cat
        pile = None
        if st.pile >= 0:
            pile = {"by": st.last_player, "text": cat.action_to_str(st.pile),
                    "label": self.label(st.pile), "name": self.move_name(st.pile), "cards": self.cards(st.pile_cards)}
        last = None
        for s, a in reversed(st.history):
            if cat.kind[a] != GIVE:
                last = {"seat": s, "text": cat.action_to_str(a)}
                break
        return {
            "phase": PHASE_NAMES[st.phase],
            "round": st.round if not st.terminal else st.round - 1,
            "rounds": self.rules.rounds,
            "pile": pile,
            "last": last,
            "flags": {
                "revolution": st.revolution,
                "jack_back": st.jack_back,
                "lock": "".join(SUITS[s] for s in iter_bits(st.lock)) or None,
                "reversed": st.reversed,
            },
            "history": self.rounds_log,
            "match": {
                "over": st.terminal,
                "winner": st.winner if st.terminal else None,
                "scores": st.scores[:],
                "deals": self.deal_codes[:] if st.terminal else None,
            },
        }

    def private(self, seat: int) -> dict[str, Any]:
        st = self.state
        to_give = sum(e[2] for e in st.pending if e[0] == seat)
        out = {
            "hand": self.cards(st.hands[seat]),
            "exchange": {
                "gave": self.cards(st.gave[seat]),
                "received": self.cards(st.received[seat]),
                "to_give": to_give,
            },
            "moves": None,
            "playable": None,
            "can_pass": False,
        }
        if self.turn == seat:
            moves = []
            playable = 0
            for a in self.legal():
                taken = self.move_cards(seat, a)
                playable |= taken
                moves.append({"action": a, "text": self.cat.action_to_str(a), "label": self.label(a),
                              "name": self.move_name(a), "shape": self.shape(a), "cards": self.ids(taken),
                              "any_suit": self.any_suit(a)})
            out["moves"] = moves
            out["playable"] = self.ids(playable)
            out["can_pass"] = self.cat.pass_id in st.legal_actions()
        return out

    # -- checking a selection ----------------------------------------------------------------

    def candidates(self, mask: int) -> list[int]:
        """Every catalog id these exact cards could be played as (several when a joker can
        stand for different cards)."""
        cat = self.cat
        deck = self.deck
        if not mask:
            return []
        if self.state.phase == PHASE_EXCHANGE:
            if mask.bit_count() != 1:
                return []
            try:
                return [cat.action_from_str("give " + deck.card_text(next(iter_bits(mask))))]
            except ValueError:
                return []
        jokers = (mask & deck.joker_mask).bit_count()
        real = [deck.rank_suit(i) for i in iter_bits(mask & ~deck.joker_mask)]
        texts = []
        if not real or len({r for r, _ in real}) == 1:
            texts.append(" ".join([RANKS[r] + SUITS[s] for r, s in real] + ["JK"] * jokers))
        if self.rules.runs and len(real) + jokers >= 3 and len({r for r, _ in real}) == len(real) and real:
            texts += self._run_texts(real, jokers)
        out = []
        for text in texts:
            try:
                a = cat.action_from_str(text)
            except ValueError:
                continue
            if a not in out:
                out.append(a)
        return out

    def _run_texts(self, real: list[tuple[int, int]], jokers: int) -> list[str]:
        ranks = sorted(r for r, _ in real)
        suit_of = dict(real)
        length = len(real) + jokers
        suit = real[0][1]
        out = []
        for low in range(max(0, ranks[-1] - length + 1), min(ranks[0], len(RANKS) - length) + 1):
            parts = []
            for r in range(low, low + length):
                if r in suit_of:
                    parts.append(RANKS[r] + SUITS[suit_of[r]])
                else:
                    parts.append("JK=" + RANKS[r] + SUITS[suit])
            out.append(" ".join(parts))
        return out

    def check(self, seat: int, ids: list[int]) -> dict[str, Any]:
        st = self.state
        mask = self.mask_of(ids)
        if mask & ~st.hands[seat]:
            bad = next(iter_bits(mask & ~st.hands[seat]))
            text = self.deck.card_text(bad) if bad < self.deck.size else str(bad)
            return checked(ids, None, [], f"{text} (card {bad}) is not in your hand", reason_code="not_in_hand")
        found = self.candidates(mask)
        if not found:
            return checked(ids, None, [], self._no_play(mask), reason_code="no_play")
        label = self.label(found[0])
        legal = st.legal_actions() if self.turn == seat else []
        playable = [a for a in found if a in legal]
        actions = [{"action": a, "text": self.cat.action_to_str(a), "label": self.label(a), "name": self.move_name(a)}
                   for a in playable]
        if playable:
            return checked(ids, self.label(playable[0]), actions, None, self.move_name(playable[0]))
        name = self.move_name(found[0])
        if self.turn != seat:
            return checked(ids, label, [], "it is not your turn", name, "not_your_turn")
        view = st.view(seat)
        return checked(ids, label, [], self.talk.explain(found[0], view, legal), name, "not_now")

    def _no_play(self, mask: int) -> str:
        text = self.deck.format(mask)
        if self.state.phase == PHASE_EXCHANGE:
            return f"{text}: give back one card at a time"
        return f"{text} is no play: not one number{' and not a run' if self.rules.runs else ''}"


TABLE_GAMES = (_table_game("daifugo"), _table_game("president"))
"""the lobby's Daifugo and President (:class:`.games.TableGame`)"""
