"""A Dou Dizhu match at the table: deals in a row, each a :class:`~climbrl.envs.doudizhu.engine.DoudizhuState`.

The engine holds ranks only (suits never matter in Dou Dizhu); the table also keeps which
physical cards each seat holds (the deal code names them), so a page can draw real cards and
a play takes the very cards the person lifted. A match is ``rounds`` scored deals; "replay
deal" plays the same cards again unscored; undo (against the computer) rebuilds the deal
from its code and the moves before that person's previous decision.

The variants are the room's rule switches (:data:`RULES`): ``rob`` (call and rob the
landlord), ``open_hand`` (the landlord may play with its hand shown to all) and ``laizi``
(a rank's cards are wild each deal: a play takes the seat's own cards first, then wild ones).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from climbrl.envs.doudizhu import laizi
from climbrl.envs.doudizhu.bidding import CLASSIC, PASS_CODE, ROB
from climbrl.envs.doudizhu.cards import (BLACK_JOKER, NUM_RANKS, PACK_SIZE, PACKS_MAX, RANKS, RED_JOKER,
                                 card_rank, counts)
from climbrl.envs.doudizhu.catalog import CatalogError, Kind
from climbrl.envs.doudizhu.config import DoudizhuConfig
from climbrl.envs.doudizhu.deal import kitty_owner
from climbrl.envs.doudizhu.engine import DoudizhuGame, Phase
from climbrl.policies.doudizhu.talk import DoudizhuTalk

from .events import Event
from .match import EngineTable, checked
from .shared import Shared

SUIT_LETTERS = "shdc"
KIND_LABELS = {
    Kind.SINGLE: "Single", Kind.PAIR: "Pair", Kind.TRIO: "Trio", Kind.TRIO_SINGLE: "Trio + 1",
    Kind.TRIO_PAIR: "Trio + pair", Kind.CHAIN: "Straight", Kind.PAIR_CHAIN: "Pair straight",
    Kind.AIRPLANE: "Airplane", Kind.AIRPLANE_SINGLE: "Airplane + singles",
    Kind.AIRPLANE_PAIR: "Airplane + pairs", Kind.FOUR_TWO_SINGLE: "Four + 2",
    Kind.FOUR_TWO_PAIR: "Four + 2 pairs", Kind.BOMB: "Bomb", Kind.ROCKET: "Rocket",
}
#: the card counter's order: red joker, black joker, 2, A, K ... 3
COUNTER_ORDER = tuple(reversed(range(NUM_RANKS)))
RULES = ("rob", "open_hand", "laizi")
"""The room's rule switches (each off by default): the variants."""
PLAYERS = (3, 4)
"""the player counts of the lobby's tables"""
#: the rob bidding's buttons: (no caller yet, after a call) for the pass, and its moves
ROB_LABELS = {PASS_CODE: ("No call", "No rob"), 1: ("Call", "Call"), 2: ("Rob", "Rob")}
ROB_SAID = {PASS_CODE: "passed", 1: "called", 2: "robbed"}
SHOW_LABELS = ("Show my hand (×2)", "Keep it hidden")
"""the open-hand choice's buttons: show, hide"""
TIER_LABELS = {laizi.Tier.SOFT: "Soft bomb", laizi.Tier.WILD: "Wild bomb"}
"""laizi: the names of the bombs that are not plain (hard) bombs"""
#: the codes of the rob bidding's moves (:data:`ROB_LABELS`): (no caller yet, after a call)
ROB_CODES = {PASS_CODE: ("no_call", "no_rob"), 1: ("call", "call"), 2: ("rob", "rob")}
SHOW_CODES = ("show", "hide")
TIER_CODES = {laizi.Tier.SOFT: "soft_bomb", laizi.Tier.WILD: "wild_bomb"}


def card_object(index: int) -> dict[str, Any]:
    """The page's card ``index`` (0..53 the first pack, 54..107 the second)."""
    rank = card_rank(index)
    if rank == BLACK_JOKER:
        return {"id": index, "text": "BJ", "rank": "B", "suit": None}
    if rank == RED_JOKER:
        return {"id": index, "text": "RJ", "rank": "R", "suit": None}
    suit = SUIT_LETTERS[index % PACK_SIZE % len(SUIT_LETTERS)]
    return {"id": index, "text": RANKS[rank] + suit, "rank": RANKS[rank], "suit": suit}


CARD_OBJECTS = tuple(card_object(i) for i in range(PACKS_MAX * PACK_SIZE))
RANK_OF = tuple(card["rank"] for card in CARD_OBJECTS)
"""the rank letter of each physical card"""


def make_config(players: int = 3, rules: dict[str, Any] | None = None) -> DoudizhuConfig:
    """The engine config of a room's players and switches (:data:`RULES`); ``ValueError``
    naming an unknown switch."""
    rules = dict(rules or {})
    unknown = sorted(set(rules) - set(RULES))
    if unknown:
        raise ValueError(f"unknown Dou Dizhu rule(s) {unknown}; the rules are {list(RULES)}")
    return DoudizhuConfig(players=players, bidding=ROB if rules.get("rob") else CLASSIC,
                          open_hand=bool(rules.get("open_hand")), laizi=bool(rules.get("laizi")))


ENGINES_KEPT = 4
"""engines kept while no table plays them (megabytes each, up to seconds to build)"""
ENGINES = Shared(DoudizhuGame, ENGINES_KEPT)


def shared_engine(config: DoudizhuConfig | None = None) -> DoudizhuGame:
    """The Dou Dizhu engine of a config, shared by every room that plays it (it holds no
    position, only tables and caches), kept while a table plays it and for the
    :data:`ENGINES_KEPT` last asked for."""
    config = config or DoudizhuConfig()
    return ENGINES(config, config)


shared_engine.cache_clear = ENGINES.cache_clear


def prepare_engines(players: tuple[int, ...] = PLAYERS) -> None:
    """Build and pin the engine of each player count of the lobby with its default rules
    (:data:`RULES` all off; the four-player one takes seconds and about 40 MB), so that no
    room of the usual tables builds one while the server plays. The ten other variants are
    built when a room first plays them (each up to seconds and 15 to 40 MB: all twelve took
    20 s and 200 MB, too much for every start)."""
    for n in players:
        config = make_config(n)
        ENGINES.pin(config, config)


class DoudizhuTable(EngineTable):
    """A match of ``rounds`` scored Dou Dizhu deals for one room."""

    name = "doudizhu"

    def __init__(self, rounds: int, seed: int, players: int = 3,
                 rules: dict[str, Any] | None = None):
        self.config = make_config(players, rules)
        self.engine = shared_engine(self.config)
        self.players = players = self.engine.num_players
        self.cat = self.engine.catalog
        self.talk = DoudizhuTalk(self.engine)
        self.rounds = rounds
        self.seed = seed
        self.scores = [0] * players
        self.deal_no = 0
        self.replaying = False
        self.rounds_log: list[dict[str, Any]] = []
        self.hints_used = 0
        self.undos = 0
        self._advice: dict[tuple[int, int], str] = {}
        self._start(self._new_code(0))

    # -- deals -----------------------------------------------------------------------------

    def _new_code(self, deal_no: int) -> str:
        return self.engine.new_state(np.random.default_rng([self.seed, deal_no])).deal_code

    def _start(self, code: str) -> None:
        self.code = code
        self.state = self.engine.new_state(None, {"deal": code})
        self.moves: list[tuple[int, int, list[int] | None]] = []
        self._pile_cards: list[dict[str, Any]] = []
        self._deal_cards()

    def _deal_cards(self) -> None:
        owners = self.state.owners
        self.held = [sorted(i for i, o in enumerate(owners) if o == s) for s in range(self.players)]
        kitty = kitty_owner(self.engine.setup)
        self.kitty_ids = sorted(i for i, o in enumerate(owners) if o == kitty)
        self._redeals = self.state.redeals
        self._landlord = -1

    @property
    def over(self) -> bool:
        """The match is over (every scored deal played)."""
        return self.state.terminal and not self.replaying and self.deal_no + 1 >= self.rounds

    @property
    def deal_over(self) -> bool:
        return self.state.terminal

    @property
    def turn(self) -> int | None:
        return None if self.state.terminal else self.state.current_player

    def next_deal(self) -> list[Event]:
        """After a deal: the next scored deal (``ValueError`` while the deal is on or when the
        match is over)."""
        if not self.state.terminal:
            raise ValueError("the deal is not over")
        if self.over:
            raise ValueError("the match is over")
        if not self.replaying:
            self.deal_no += 1
        self.replaying = False
        self._start(self._new_code(self.deal_no))
        self.hints_used = self.undos = 0
        return [Event({"type": "start", "round": self.deal_no, "replay": False})]

    def replay(self) -> list[Event]:
        """The deal just played, again, unscored."""
        if not self.state.terminal:
            raise ValueError("the deal is not over")
        self.replaying = True
        self._start(self.code)
        self.hints_used = self.undos = 0
        return [Event({"type": "start", "round": self.deal_no, "replay": True})]

    # -- moves -----------------------------------------------------------------------------

    def legal(self) -> list[int]:
        return self.state.legal_actions()

    def rules_dict(self) -> dict[str, Any]:
        """The engine config as plain values (what a CPU worker rebuilds the engine from)."""
        return asdict(self.config)

    def label(self, action: int, subs: int | None = None) -> str:
        """The name of ``action``'s shape (laizi: a bomb with ``subs`` wild cards standing in,
        or as the seat to move would play it, is a soft bomb)."""
        cat = self.cat
        if cat.is_bid(action):
            bid = cat.bid_of(action)
            if self.engine.auction.style == ROB:
                return ROB_LABELS[bid][self.state.caller >= 0]
            return "no bid" if bid == 0 else f"bid {bid}"
        if cat.is_show(action):
            return SHOW_LABELS[action - cat.SHOW]
        if action == cat.PASS:
            return "pass"
        st = self.state
        if st.wild >= 0 and cat.bomb_power[action] >= 0 and action != cat.ROCKET:
            if subs is None:
                hand = st.hands[st.current_player] if not st.terminal else 0
                subs = laizi.substitutes(hand, st.wild, cat.cards[action])
            tier = laizi.bomb_tier(cat, action, st.wild, subs) // (cat.rocket_power + 1)
            if tier in TIER_LABELS:
                return TIER_LABELS[tier]
        names = []
        for reading in cat.readings[action]:
            name = KIND_LABELS[reading.kind]
            if name not in names:
                names.append(name)
        return " / ".join(names)

    def move_name(self, action: int, subs: int | None = None) -> dict[str, Any]:
        """:meth:`label` as a code and values, for a page to say in its language
        (docs/protocol.md, "Move names")."""
        cat = self.cat
        if cat.is_bid(action):
            bid = cat.bid_of(action)
            if self.engine.auction.style == ROB:
                return {"code": ROB_CODES[bid][self.state.caller >= 0]}
            return {"code": "bid", "bid": bid}
        if cat.is_show(action):
            return {"code": SHOW_CODES[action - cat.SHOW]}
        if action == cat.PASS:
            return {"code": "pass"}
        label = self.label(action, subs)
        for tier, code in TIER_CODES.items():
            if label == TIER_LABELS[tier]:
                return {"code": code}
        kinds = []
        for reading in cat.readings[action]:
            if reading.kind.label not in kinds:
                kinds.append(reading.kind.label)
        return {"code": "shape", "kinds": kinds}

    def shape(self, action: int) -> str:
        cat = self.cat
        if cat.is_bid(action):
            return "bid"
        if cat.is_show(action):
            return "show"
        if action == cat.PASS:
            return "pass"
        return cat.readings[action][0].kind.label

    def move_ids(self, seat: int, action: int) -> list[int]:
        """The physical cards a play takes from ``seat`` by default: the first held of each rank
        (laizi: of each rank it gives, its own cards first and wild cards for the rest)."""
        need = list(counts(self._given(seat, action)))
        out = []
        for i in self.held[seat]:
            r = card_rank(i)
            if need[r]:
                need[r] -= 1
                out.append(i)
        return out

    def apply(self, seat: int, action: int, cards=None) -> list[Event]:
        st = self.state
        cat = self.cat
        if st.terminal or st.current_player != seat:
            raise ValueError("not this seat's turn")
        if not st.is_legal(action):
            raise ValueError(f"action {action} is not a legal move now")
        taken = self._taken(seat, action, cards)
        bombs_before = st.bombs
        st.apply(action)
        self.moves.append((seat, action, taken if cards is not None else None))
        events: list[Event] = []
        if cat.is_bid(action):
            code = cat.bid_of(action)
            event = {"type": "bid", "seat": seat, "bid": code}
            if self.engine.auction.style == ROB:
                event["said"] = ROB_SAID[code]
            events.append(Event(event))
            if st.redeals != self._redeals:
                self._deal_cards()
                events.append(Event({"type": "redeal"}))
            elif st.landlord >= 0 and self._landlord < 0:
                self._landlord = st.landlord
                self.held[st.landlord] = sorted(self.held[st.landlord] + self.kitty_ids)
                events.append(Event({"type": "landlord", "seat": st.landlord, "bid": st.bid,
                                     "robs": st.robs,
                                     "kitty": [CARD_OBJECTS[i] for i in self.kitty_ids]}))
        elif cat.is_show(action):
            events.append(Event({"type": "show", "seat": seat, "shown": st.shown,
                                 "multiplier": st.multiplier}))
        elif action == cat.PASS:
            events.append(Event({"type": "pass", "seat": seat}))
            if st.pile < 0 and not st.terminal:
                events.append(Event({"type": "clear", "leader": st.current_player}))
        else:
            for i in taken:
                self.held[seat].remove(i)
            self._pile_cards = [CARD_OBJECTS[i] for i in taken]
            events.append(Event({"type": "play", "seat": seat, "text": cat.action_to_str(action),
                                 "label": self.label(action, st.pile_subs),
                                 "name": self.move_name(action, st.pile_subs),
                                 "cards": [CARD_OBJECTS[i] for i in taken]}))
            if st.bombs != bombs_before:
                events.append(Event({"type": "bomb", "seat": seat, "rocket": action == cat.ROCKET,
                                     "multiplier": st.multiplier}))
        if st.terminal:
            events += self._deal_end()
        return events

    def _taken(self, seat: int, action: int, cards) -> list[int]:
        cat = self.cat
        if not cat.cards[action]:
            return []  # a bid, the open-hand choice, a pass
        if cards is None:
            return self.move_ids(seat, action)
        held = set(self.held[seat])
        if len(set(cards)) != len(cards) or not set(cards) <= held:
            raise ValueError("the cards named are not all in this seat's hand")
        got = [0] * NUM_RANKS
        for i in cards:
            got[card_rank(i)] += 1
        if bytes(got) != counts(self._given(seat, action)):
            raise ValueError(f"the cards named are not the cards of {cat.action_to_str(action)!r}")
        return sorted(cards)

    def _given(self, seat: int, action: int) -> int:
        """The ranks (packed) ``seat`` gives up to play ``action`` now."""
        st = self.state
        return self.engine.cards_given(st.hands[seat], action, st.wild)

    def _deal_end(self) -> list[Event]:
        result = self.result()
        if result["scored"]:
            self.scores = [a + b for a, b in zip(self.scores, result["points"])]
            result["scores"] = self.scores[:]
            self.rounds_log.append({"round": self.deal_no, "points": result["points"],
                                    "scores": self.scores[:], "landlord": result.get("landlord"),
                                    "outcome": result["outcome"]})
        events = [Event({"type": "deal_end", "result": result})]
        if self.over:
            best = max(range(self.players), key=lambda s: self.scores[s])
            events.append(Event({"type": "match_end", "winner": best, "scores": self.scores[:]}))
        return events

    def undo(self, seat: int) -> list[Event]:
        """Back to ``seat``'s previous decision of this deal; ``ValueError`` when it has none."""
        last = max((i for i, m in enumerate(self.moves) if m[0] == seat), default=None)
        if last is None:
            raise ValueError("no decision of yours to take back in this deal")
        if self.state.terminal:
            raise ValueError("the deal is over")
        keep = self.moves[:last]
        self._start(self.code)
        for s, a, cards in keep:
            self.apply(s, a, cards)
        self.undos += 1
        return [Event({"type": "undo", "seat": seat})]

    # -- what a seat sees ------------------------------------------------------------------

    def result(self) -> dict[str, Any] | None:
        st = self.state
        if st.result is None:
            return None
        r = dict(st.result)
        multipliers = []
        if r["outcome"] != "no bid":
            multipliers.append({"name": "bid", "value": r["bid"]})
            multipliers += [{"name": "rob", "value": 2}] * r["robs"]
            if r["shown"]:
                multipliers.append({"name": "shown", "value": 2})
            multipliers += [{"name": "bomb", "value": 2}] * r["bombs"]
            if r["spring"]:
                multipliers.append({"name": "spring", "value": 2})
            if r["anti_spring"]:
                multipliers.append({"name": "anti_spring", "value": 2})
            r["landlord"] = st.landlord
        r.update({
            "multipliers": multipliers,
            "scored": not self.replaying,
            "hands": [[CARD_OBJECTS[i] for i in self.held[s]] for s in range(self.players)],
            "kitty": [CARD_OBJECTS[i] for i in self.kitty_ids],
            "deal_code": self.code,
            "hints_used": self.hints_used,
            "undos": self.undos,
            "scores": self.scores[:],
        })
        return r

    def seat_public(self, seat: int) -> dict[str, Any]:
        st = self.state
        bid = st.bids[seat]
        role = None if st.landlord < 0 else ("landlord" if seat == st.landlord else "peasant")
        passed = st.trick[seat] == self.cat.PASS and not st.terminal
        out = {"cards": len(self.held[seat]), "title": None, "passed": passed,
               "place": None, "score": self.scores[seat], "role": role,
               "bid": None if bid < 0 else bid}
        if self.engine.auction.style == ROB and bid >= 0:
            out["bid_label"] = ROB_SAID[bid]
        return out

    def public(self) -> dict[str, Any]:
        st = self.state
        cat = self.cat
        pile = None
        if st.pile >= 0:
            pile = {"by": st.pile_owner, "text": cat.action_to_str(st.pile),
                    "label": self.label(st.pile, st.pile_subs),
                    "name": self.move_name(st.pile, st.pile_subs),
                    "wilds": st.pile_subs,
                    "cards": self._pile_cards}
        last = None
        if st.history:
            s, a = st.history[-1]
            last = {"seat": s, "text": cat.action_to_str(a)}
        base = self.engine.config.base_points
        multiplier = st.multiplier
        return {
            "phase": st.phase.label,
            "round": self.deal_no,
            "rounds": self.rounds,
            "pile": pile,
            "last": last,
            "flags": {"revolution": False, "jack_back": False, "lock": None, "reversed": False},
            "history": self.rounds_log,
            "match": {"over": self.over, "scores": self.scores[:],
                      "winner": max(range(self.players), key=lambda s: self.scores[s]) if self.over else None,
                      "deals": None},
            "doudizhu": {
                "first_bidder": st.first_bidder,
                "bids": [None if b < 0 else b for b in st.bids],
                "landlord": st.landlord if st.landlord >= 0 else None,
                "bid": st.bid or st.high_bid,
                "kitty": [CARD_OBJECTS[i] for i in self.kitty_ids] if st.landlord >= 0 else None,
                "kitty_size": len(self.kitty_ids),
                "wild": RANKS[st.wild] if st.wild >= 0 else None,
                "bombs": st.bombs,
                "robs": st.robs,
                "shown_hand": ([CARD_OBJECTS[i] for i in self.held[st.landlord]] if st.shown
                               else None),
                "multiplier": multiplier,
                "round_box": {"base": base, "bid": st.bid or st.high_bid, "multiplier": multiplier,
                              "points": base * (st.bid or st.high_bid) * multiplier},
                "hints_used": self.hints_used,
                "undos": self.undos,
                "replay": self.replaying,
                "deal": self.deal_no + 1,
                "deals": self.rounds,
            },
            "result": self.result(),
        }

    def private(self, seat: int, counter: bool = False) -> dict[str, Any]:
        st = self.state
        out: dict[str, Any] = {
            "hand": [CARD_OBJECTS[i] for i in self.held[seat]],
            "moves": None,
            "playable": None,
            "can_pass": False,
            "advice": None,
            "advice_facts": None,
            "counter": None,
        }
        if counter:
            unseen = counts(self._unseen(seat))
            out["counter"] = {RANKS[r]: unseen[r] for r in COUNTER_ORDER}
        if self.turn == seat:
            moves = []
            playable = set()
            for a in self.legal():
                ids = self.move_ids(seat, a)
                playable.update(ids)
                moves.append({"action": a, "text": self.cat.action_to_str(a), "label": self.label(a),
                              "name": self.move_name(a), "shape": self.shape(a), "cards": ids,
                              "any_suit": bool(self.cat.cards[a])})
            out["moves"] = moves
            out["playable"] = sorted(playable)
            out["can_pass"] = self.cat.PASS in self.legal()
            if st.phase == Phase.BIDDING:
                key = (st.hands[seat], st.high_bid, st.caller, st.num_bids)
                if key not in self._advice:
                    self._advice[key] = (self.engine.advice(st, seat), self.engine.advice_facts(st, seat))
                out["advice"], out["advice_facts"] = self._advice[key]
        return out

    def _unseen(self, seat: int) -> int:
        return self.engine.setup.full_deck - self.state.hands[seat] - sum(self.state.played)

    # -- checking a selection ----------------------------------------------------------------

    def check(self, seat: int, ids: list[int]) -> dict[str, Any]:

        st = self.state
        held = set(self.held[seat])
        bad = [i for i in ids if i not in held]
        if bad:
            return checked(ids, None, [], f"card {bad[0]} is not in your hand", reason_code="not_in_hand")
        if st.phase == Phase.BIDDING:
            return checked(ids, None, [], "it is the bidding: bid or pass", reason_code="bidding")
        if st.phase == Phase.SHOW:
            return checked(ids, None, [], "the landlord first shows its hand or keeps it hidden",
                           reason_code="show")
        if st.wild >= 0:
            return self._check_wild(seat, ids)
        text = "".join(RANK_OF[i] for i in ids)
        try:
            action = self.cat.action_from_str(text)
        except CatalogError:
            return checked(ids, None, [], "not a Dou Dizhu combination", reason_code="no_play")
        label = self.label(action)
        name = self.move_name(action)
        if self.turn != seat:
            return checked(ids, label, [], "it is not your turn", name, "not_your_turn")
        legal = self.legal()
        if action in legal:
            entry = {"action": action, "text": self.cat.action_to_str(action), "label": label, "name": name}
            return checked(ids, label, [entry], None, name)
        reason = self.talk.explain(action, st.view(seat), legal)
        return checked(ids, label, [], reason, name, "not_now")

    def _check_wild(self, seat: int, ids: list[int]) -> dict[str, Any]:
        """Laizi: the plays the lifted cards make now (the wild ones may stand for several
        ranks: one entry each), else why they make none."""
        st = self.state
        got = [0] * NUM_RANKS
        for i in ids:
            got[card_rank(i)] += 1
        lifted = bytes(got)
        if self.turn != seat:
            return checked(ids, None, [], "it is not your turn", reason_code="not_your_turn")
        entries = [{"action": a, "text": self.cat.action_to_str(a), "label": self.label(a), "name": self.move_name(a)}
                   for a in self.legal() if self.cat.cards[a]
                   and counts(self._given(seat, a)) == lifted]
        if entries:
            return checked(ids, entries[0]["label"], entries, None, entries[0]["name"])
        text = "".join(RANK_OF[i] for i in ids)
        try:
            action = self.cat.action_from_str(text)
        except CatalogError:
            return checked(ids, None, [], "not a play now (wild cards stand in only for cards "
                                          "your hand lacks)", reason_code="no_play")
        return checked(ids, self.label(action), [],
                       self.talk.explain(action, st.view(seat), self.legal()), self.move_name(action), "not_now")


def _table_game():
    from .games import TableGame

    return TableGame(
        name="doudizhu", players=PLAYERS, default_players=3, rounds=(1, 3, 5, 7),
        default_rounds=1,
        rule_options=lambda: [{"name": name, "default": False} for name in RULES],
        check_rules=lambda players, rounds, rules: make_config(players, rules),
        new_table=lambda players, rounds, rules, seed: DoudizhuTable(rounds, seed, players,
                                                                     rules),
        check_rule_value=lambda key, value: isinstance(value, bool),
        counter=False, deals=True, move_cards=True, prepare=prepare_engines,
        engine=lambda rules: shared_engine(DoudizhuConfig(**rules)),
        build_engine=lambda players, rounds, rules: shared_engine(make_config(players, rules)),
    )


TABLE_GAME = _table_game()
"""the lobby's Dou Dizhu (:class:`.games.TableGame`)"""
