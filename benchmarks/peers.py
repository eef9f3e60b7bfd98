"""The peer libraries of :mod:`climbrl.benchmarks.compare`: RLCard, DouZero and OpenSpiel, each seen
through one small adapter (random play loops, legal-move generation, positions set up from
our cards). Nothing here is imported by the project itself; every peer is optional.

Cards cross the boundary as our packed rank counts (:mod:`climbrl.envs.doudizhu.cards`):

==========  ==============================================  ===================================
peer        its card form                                   conversion
==========  ==============================================  ===================================
RLCard      text ``"33344BR"`` in rank order                the same text as ``format_cards``
DouZero     sorted ints, 3..14 for 3..A, 17 for 2,          rank index -> ``DOUZERO_CARD``
            20 black joker, 30 red joker
OpenSpiel   54 physical cards: ``suit * 13 + rank`` for     a suit is chosen per copy; text from
            3..2, 52 black joker, 53 red joker;             ``action_to_string`` with ``(BWJ)``
            plays are action ids                            and ``(CJ)`` for the jokers
==========  ==============================================  ===================================

A *position* for the legal-move cross-check is a deal with seat 0 as the landlord (RLCard and
DouZero have no bidding: the landlord is seat 0 / ``"landlord"``); either the landlord leads, or
it has led ``pile`` and seat 1 (DouZero's ``landlord_down``) replies.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from climbrl.envs.doudizhu.cards import (
    BLACK_JOKER,
    FULL_DECK,
    HAND_SIZE,
    KITTY_SIZE,
    LANDLORD_HAND_SIZE,
    NUM_RANKS,
    NUMBER_RANKS,
    RANKS,
    RED_JOKER,
    SUITS,
    counts,
    format_cards,
    parse,
)

PASS = -1
"""The pass in a set of legal plays (plays are packed cards, all > 0)."""
LANDLORD = 0
REPLIER = 1
"""Seat that replies to the landlord's lead: the next in play order (DouZero's landlord_down)."""

PEERS = {"rlcard": "rlcard", "douzero": "douzero", "openspiel": "pyspiel"}
"""Peer name -> the module whose import says it is installed."""
INSTALL_HINT = "pip install -e '.[bench]' (DouZero needs torch: pip install torch==2.13.0 first)"


def available(name: str) -> tuple[bool, str]:
    """Whether peer ``name`` imports, and a line saying why not."""
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; peers are {sorted(PEERS)}")
    module = PEERS[name]
    if importlib.util.find_spec(module) is None:
        return False, f"{name}: not installed ({INSTALL_HINT})"
    try:
        importlib.import_module(module)
    except Exception as e:  # a broken install is reported and skipped like a missing one
        return False, f"{name}: import failed ({type(e).__name__}: {e})"
    return True, ""


def play_rate(run: Callable[[], int], seconds: float) -> dict[str, float]:
    """Plays games with ``run`` (one game per call, returning its steps) for ``seconds``."""
    steps = games = 0
    start = time.perf_counter()
    while True:
        steps += run()
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed}


# -- RLCard -------------------------------------------------------------------------------------


class RLCardPeer:
    """RLCard 1.2: ``rlcard.make("doudizhu")`` and its ``DoudizhuGame``; legal moves from its
    judger (leads: ``playable_cards_from_hand``) and ``get_gt_cards`` (replies)."""

    name = "rlcard"

    def __init__(self) -> None:
        from rlcard.games.base import Card
        from rlcard.games.doudizhu.judger import DoudizhuJudger
        from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

        self._card = Card
        self._judger = DoudizhuJudger
        self._types = CARD_TYPE[0]
        self._gt_cards = get_gt_cards

    def env_game(self, seed: int) -> Callable[[], int]:
        """One random game through ``rlcard.make('doudizhu')`` (its state encoding and legal
        action features every step)."""
        import rlcard

        env = rlcard.make("doudizhu", config={"seed": seed})
        pick = random.Random(seed)

        def run() -> int:
            state, _ = env.reset()
            steps = 0
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[pick.randrange(len(legal))])
                steps += 1
            return steps

        return run

    def core_game(self, seed: int) -> Callable[[], int]:
        """One random game through RLCard's ``DoudizhuGame`` (text actions, no encoding)."""
        from rlcard.games.doudizhu.game import DoudizhuGame

        game = DoudizhuGame()
        game.np_random = np.random.RandomState(seed)
        pick = random.Random(seed)

        def run() -> int:
            state, _ = game.init_game()
            steps = 0
            while not game.is_over():
                legal = state["actions"]
                state, _ = game.step(legal[pick.randrange(len(legal))])
                steps += 1
            return steps

        return run

    def prepare_leads(self, hands: list[int]) -> list[str]:
        return [format_cards(h) for h in hands]

    def time_leads(self, prepared: list[str]) -> int:
        gen = self._judger.playable_cards_from_hand
        for text in prepared:
            gen(text)
        return len(prepared)

    def lead(self, hands: list[int]) -> set[int]:
        return {parse(t) for t in self._judger.playable_cards_from_hand(format_cards(hands[0]))}

    def reply(self, hands: list[int], pile: int) -> set[int] | None:
        """Seat 1's legal plays after the landlord led ``pile``; ``None`` if RLCard has no
        such play."""
        text = format_cards(pile)
        if text not in self._types or pile not in self.lead(hands):
            return None
        player = _Holder([self._make_card(ch) for ch in format_cards(hands[REPLIER])])
        leader = _Holder([], played_cards=text)
        return {PASS if t == "pass" else parse(t) for t in self._gt_cards(player, leader)}

    def _make_card(self, ch: str):
        if ch == RANKS[BLACK_JOKER]:
            return self._card("BJ", "")
        if ch == RANKS[RED_JOKER]:
            return self._card("RJ", "")
        return self._card("S", ch)


class _Holder:
    """The two fields of an RLCard player that ``get_gt_cards`` reads."""

    def __init__(self, current_hand: list, played_cards: str = "") -> None:
        self.current_hand = current_hand
        self.played_cards = played_cards


# -- DouZero ------------------------------------------------------------------------------------

DOUZERO_CARD = tuple(range(3, 15)) + (17, 20, 30)
"""DouZero's number for each of our rank indices (3..A = 3..14, 2 = 17, jokers 20 and 30)."""
DOUZERO_RANK = {card: r for r, card in enumerate(DOUZERO_CARD)}
DOUZERO_POSITIONS = ("landlord", "landlord_down", "landlord_up")
"""DouZero's positions in play order: our seats 0, 1, 2."""


def douzero_cards(packed: int) -> list[int]:
    return [DOUZERO_CARD[r] for r, n in enumerate(counts(packed)) for _ in range(n)]


def from_douzero(cards: list[int]) -> int:
    return parse("".join(RANKS[DOUZERO_RANK[c]] for c in cards)) if cards else PASS


class _RandomAgent:
    """A DouZero player choosing uniformly with its own ``random.Random``."""

    def __init__(self, pick: random.Random) -> None:
        self.pick = pick

    def act(self, infoset) -> list[int]:
        legal = infoset.legal_actions
        return legal[self.pick.randrange(len(legal))]


class DouZeroPeer:
    """DouZero 1.1: ``douzero.env.Env`` (observations for every legal move) and its ``GameEnv``
    core with random agents; legal moves from ``GameEnv.get_legal_card_play_actions``
    (``MovesGener`` for leads)."""

    name = "douzero"

    def __init__(self) -> None:
        from douzero.env import move_detector
        from douzero.env.game import GameEnv
        from douzero.env.move_generator import MovesGener

        self._game_env = GameEnv
        self._moves_gener = MovesGener
        self._detector = move_detector

    def env_game(self, seed: int) -> Callable[[], int]:
        """One random game through ``douzero.env.Env`` (its observation of every legal move
        each step; the deck comes from numpy's global RNG, as DouZero does)."""
        from douzero.env.env import Env

        env = Env("adp")
        pick = random.Random(seed)

        def run() -> int:
            env.reset()
            steps = 0
            done = False
            while not done:
                legal = env.infoset.legal_actions
                _, _, done, _ = env.step(legal[pick.randrange(len(legal))])
                steps += 1
            return steps

        return run

    def core_game(self, seed: int) -> Callable[[], int]:
        """One random game through DouZero's ``GameEnv`` (move generator, infosets)."""
        pick = random.Random(seed)
        rng = np.random.default_rng(seed)
        players = {p: _RandomAgent(pick) for p in DOUZERO_POSITIONS}
        game = self._game_env(players)
        deck = np.array(douzero_cards(FULL_DECK))

        def run() -> int:
            cards = rng.permutation(deck).tolist()
            game.reset()
            game.card_play_init({
                "landlord": sorted(cards[:LANDLORD_HAND_SIZE]),
                "landlord_down": sorted(cards[LANDLORD_HAND_SIZE:LANDLORD_HAND_SIZE + HAND_SIZE]),
                "landlord_up": sorted(cards[LANDLORD_HAND_SIZE + HAND_SIZE:]),
                "three_landlord_cards": sorted(cards[HAND_SIZE:LANDLORD_HAND_SIZE]),
            })
            steps = 0
            while not game.game_over:
                game.step()
                steps += 1
            return steps

        return run

    def prepare_leads(self, hands: list[int]) -> list[list[int]]:
        return [douzero_cards(h) for h in hands]

    def time_leads(self, prepared: list[list[int]]) -> int:
        gen = self._moves_gener
        for cards in prepared:
            gen(cards).gen_moves()
        return len(prepared)

    def lead(self, hands: list[int]) -> set[int]:
        return {from_douzero(m) for m in self._moves_gener(douzero_cards(hands[0])).gen_moves()}

    def reply(self, hands: list[int], pile: int) -> set[int] | None:
        """Seat 1 (``landlord_down``) after the landlord led ``pile``; ``None`` if DouZero
        neither generates nor types that play."""
        move = douzero_cards(pile)
        if self._detector.get_move_type(move)["type"] == self._detector.TYPE_15_WRONG:
            return None
        if pile not in self.lead(hands):
            return None
        game = self._game_env({p: None for p in DOUZERO_POSITIONS})
        for seat, position in enumerate(DOUZERO_POSITIONS):
            game.info_sets[position].player_hand_cards = douzero_cards(hands[seat])
        game.card_play_action_seq = [move]
        game.acting_player_position = DOUZERO_POSITIONS[REPLIER]
        return {from_douzero(m) for m in game.get_legal_card_play_actions()}


# -- OpenSpiel ----------------------------------------------------------------------------------

OPENSPIEL_JOKERS = {"(BWJ)": RANKS[BLACK_JOKER], "(CJ)": RANKS[RED_JOKER]}
OPENSPIEL_FIRST_JOKER = NUMBER_RANKS * SUITS
"""OpenSpiel's card id of the black joker (the red joker follows)."""
OPENSPIEL_TOP_BID = 3


class OpenSpielPeer:
    """OpenSpiel 2.0: the C++ ``dou_dizhu`` game through pyspiel. Its deal is chance actions,
    so a position is scripted: the first chance action puts the face-up card (which decides the
    first bidder) on the first card dealt, which goes to seat 0; card ``k`` of the deal goes to
    seat ``k % 3``, the three cards left are the kitty; seat 0 bids 3 and is the landlord with
    exactly our 20 cards."""

    name = "openspiel"

    def __init__(self) -> None:
        import pyspiel

        self.game = pyspiel.load_game("dou_dizhu")
        self._text: dict[int, int] = {}

    def game_loop(self, seed: int, observe: bool) -> Callable[[], int]:
        """One random game (chance outcomes drawn uniformly); ``observe`` also computes the
        observation tensor of the player to move at every decision. Steps are decisions
        (bids and plays), as in our engine; an all-pass auction ends OpenSpiel's game."""
        game = self.game
        pick = random.Random(seed)

        def run() -> int:
            state = game.new_initial_state()
            steps = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[pick.randrange(len(outcomes))][0])
                    continue
                if observe:
                    state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[pick.randrange(len(legal))])
                steps += 1
            return steps

        return run

    def position(self, hands: list[int], kitty: int):
        """A state where seat 0 is the landlord holding ``hands[0]`` (20 cards, the kitty
        among them) and leads; seats 1 and 2 hold ``hands[1]``, ``hands[2]``."""
        next_suit = [0] * NUM_RANKS

        def physical(packed: int) -> list[int]:
            out = []
            for r, n in enumerate(counts(packed)):
                for _ in range(n):
                    if r >= BLACK_JOKER:
                        out.append(OPENSPIEL_FIRST_JOKER + r - BLACK_JOKER)
                    else:
                        out.append(next_suit[r] * NUMBER_RANKS + r)
                        next_suit[r] += 1
            return out

        dealt = [physical(hands[0] - kitty), physical(hands[1]), physical(hands[2])]
        physical(kitty)  # the kitty's suits: whatever stays in OpenSpiel's deck
        state = self.game.new_initial_state()
        state.apply_action(0)  # the face-up card is the first one dealt: seat 0 bids first
        deal_base = min(a for a, _ in state.chance_outcomes())
        for k in range(sum(len(d) for d in dealt)):
            state.apply_action(deal_base + dealt[k % 3][k // 3])
        bid = [a for a in state.legal_actions() if state.action_to_string(0, a).endswith(
            str(OPENSPIEL_TOP_BID))]
        state.apply_action(bid[0])
        return state

    def cards_of(self, state, action: int) -> int:
        """Our packed cards of play ``action`` (``PASS`` for pass)."""
        packed = self._text.get(action)
        if packed is None:
            text = state.action_to_string(state.current_player(), action)
            if text == "Pass":
                packed = PASS
            else:
                for joker, ch in OPENSPIEL_JOKERS.items():
                    text = text.replace(joker, ch)
                packed = parse(text.replace("-", ""))
            self._text[action] = packed
        return packed

    def prepare_leads(self, hands: list[int]) -> list:
        """Positions for the timing: each 20-card hand as seat 0's landlord hand (its first 3
        cards stand for the kitty; the other seats get the rest of the deck)."""
        out = []
        for hand in hands:
            kitty = _first_cards(hand, KITTY_SIZE)
            rest = _split_rest(hand)
            out.append(self.position([hand, rest[0], rest[1]], kitty))
        return out

    def time_leads(self, prepared: list) -> int:
        for state in prepared:
            state.legal_actions()
        return len(prepared)

    def lead(self, hands: list[int], kitty: int) -> set[int]:
        state = self.position(hands, kitty)
        return {self.cards_of(state, a) for a in state.legal_actions()}

    def reply(self, hands: list[int], kitty: int, pile: int) -> set[int] | None:
        """Seat 1 after the landlord led ``pile`` (the first OpenSpiel play with those cards,
        e.g. one reading of ``333444555666``); ``None`` if OpenSpiel has no such play."""
        state = self.position(hands, kitty)
        plays = [a for a in state.legal_actions() if self.cards_of(state, a) == pile]
        if not plays:
            return None
        state.apply_action(plays[0])
        return {self.cards_of(state, a) for a in state.legal_actions()}


def _first_cards(hand: int, n: int) -> int:
    """The ``n`` lowest cards of ``hand``, packed."""
    return parse(format_cards(hand)[:n])


def _split_rest(hand: int) -> tuple[int, int]:
    """The cards outside a landlord's ``hand``, split in two hands (alternately)."""
    text = format_cards(FULL_DECK - hand)
    return parse(text[0::2]), parse(text[1::2])


def make(name: str) -> Any:
    """The adapter of an installed peer."""
    return {"rlcard": RLCardPeer, "douzero": DouZeroPeer, "openspiel": OpenSpielPeer}[name]()
