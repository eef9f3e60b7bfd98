"""Scripted Dou Dizhu players, after the CPU levels described in docs/rules.md:

- ``easy`` ("Fácil": makes mistakes, barely cooperates): plays the weakest play that beats the
  pile whoever made it, leads its weakest card, bids by the hand evaluator; one move in four
  is a random legal move instead.
- ``medium`` ("Normal"): breaks combinations sensibly -- a play costs the fewest plays the hand
  still needs after it (the engine's exact :meth:`~climbrl.envs.doudizhu.evaluator.HandEvaluator.min_plays`)
  plus the rank of its main card, so low cards leave first in chains and pairs while 2s,
  jokers and bombs are kept to retake the lead; does not beat its partner; when the landlord
  has one card left it leads pairs or longer and answers a single with its highest; lets a
  partner with one or two cards go out by leading low; bids as the evaluator advises.
- ``hard`` ("Difícil"): everything in Normal plus card counting from the cards not yet seen:
  near the end it first plays what nobody can beat, and it bombs without hesitation when the
  bomb leaves a hand it can finish in one more play.
"""

from __future__ import annotations

from dataclasses import dataclass

from climbrl.envs.doudizhu.cards import BLACK_JOKER, RANKS, TWO, counts
from climbrl.envs.core.checks import as_int_in
from climbrl.envs.doudizhu.catalog import Kind
from climbrl.envs.doudizhu.engine import DoudizhuGame

from ..base import EasyMistakes, Player, Weights, legal_ids

PHASE_BIDDING = "bidding"
PHASE_SHOW = "show"
LANDLORD = "landlord"
PEASANT = "peasant"
#: a hand that needs this many plays or fewer is near the end
ENDGAME_PLAYS = 2
#: hard: near the end means this many plays or fewer
HARD_ENDGAME_PLAYS = 3
#: an opponent with this many cards or fewer is about to go out
BLOCK_CARDS = 1
#: a partner with this many cards or fewer is fed low leads
FEED_CARDS = 2


@dataclass(frozen=True)
class DoudizhuWeights(Weights):
    """Weights of the Normal player's move score (higher is better); each a knob."""


    plays: float = 10.0
    """cost per play the hand still needs after the move"""
    rank: float = 0.5
    """cost per rank step of the move's main card (low cards first)"""
    control: float = 8.0
    """cost of spending a 2 or a joker before the end"""
    bomb: float = 20.0
    """cost of a bomb or the rocket before the end (it doubles the stakes both ways)"""
    pass_cost: float = 20.0
    """cost of passing instead of playing (the opponents keep the lead): more than one extra
    play, so a combination is broken to stay in the trick, but not two"""
    partner: float = 30.0
    """cost of beating the partner's play"""
    block: float = 25.0
    """cost of letting a landlord with one card go out (leading a single, passing)"""
    feed: float = 15.0
    """bonus for leading low to a partner with one or two cards"""
    safe: float = 30.0
    """hard: bonus near the end for a play nobody can beat"""
    finish: float = 1000.0
    """score of a play that empties the hand"""


@dataclass(frozen=True)
class ActionFacts:
    """Per catalog id (tuples indexed by id, built once per game): the main rank of the move's
    first reading (-1 for none), whether it holds a control card (a 2 or a joker), whether it
    is a bomb or the rocket, and its first reading's kind (-1 for none)."""

    main: tuple[int, ...]
    control: tuple[bool, ...]
    bomb: tuple[bool, ...]
    kind: tuple[int, ...]

    @classmethod
    def build(cls, game) -> ActionFacts:
        cat = game.catalog
        main, control, bomb = [], [], []
        for a in range(cat.num_actions):
            readings = cat.readings[a]
            main.append(readings[0].main if readings else -1)
            c = counts(cat.cards[a])
            control.append(bool(c[TWO] or sum(c[BLACK_JOKER:])))
            bomb.append(a == cat.ROCKET or cat.bomb_main[a] >= 0)
        kind = tuple(r[0].kind if r else -1 for r in cat.readings)
        return cls(tuple(main), tuple(control), tuple(bomb), kind)


class DoudizhuBot(Player):
    """Shared set-up: per-action facts of the catalog (main rank, controls, bombs)."""

    game_types = (DoudizhuGame,)
    family = "Dou Dizhu"

    def bind(self, game) -> DoudizhuBot:
        if game is not self.game:
            self.check_game(game)
            self.cat = game.catalog
            self.moves = game.moves
            self.evaluator = game.evaluator
            facts = game.derived(ActionFacts.build)
            self.main, self.control, self.bomb = facts.main, facts.control, facts.bomb
            self.kind = facts.kind
        return super().bind(game)

    def declare(self, view, legal: list[int]) -> int | None:
        """The move before the play: a bid, or the landlord's open-hand choice (None in the
        play)."""
        if view["phase"] == PHASE_BIDDING:
            return self.bid(view, legal)
        if view["phase"] == PHASE_SHOW:
            shows = self.evaluator.advise_show(self.game.setup.parse(view["hand"]))
            return self.cat.SHOW if shows else self.cat.SHOW + 1
        return None

    def bid(self, view, legal: list[int]) -> int:
        """The evaluator's advice (the bid advice line of docs/rules.md) as a legal bid action
        (in the rob bidding: call what it would bid on, rob what it would bid 2 on)."""
        hand = self.game.setup.parse(view["hand"])
        code = self.game.auction.advised(self.evaluator.recommend_bid(hand), view)
        action = self.cat.bid_action(code)
        return action if action in legal else self.cat.BID_PASS


class MediumPlayer(DoudizhuBot):
    """Normal: see the module docstring."""

    name = "scripted-medium"
    endgame_plays = ENDGAME_PLAYS

    def __init__(self, seed=None, **knobs):
        super().__init__(seed)
        self.weights = DoudizhuWeights.from_knobs(knobs, self)

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        first = self.declare(view, legal)
        return first if first is not None else self.ranked(view, legal)[0]

    def ranked(self, view, legal: list[int]) -> list[int]:
        """``legal`` best first (bids: the advised bid first)."""
        first = self.declare(view, legal)
        if first is not None:
            return [first] + [a for a in legal if a != first]
        candidates = self.worth_scoring(legal)
        scores = self.scores(view, candidates)
        best = sorted(candidates, key=lambda a: (-scores[a], a))
        if len(candidates) < len(legal):
            scored = set(candidates)
            best += [a for a in legal if a not in scored]
        return best

    def worth_scoring(self, legal: list[int]) -> list[int]:
        """The moves worth scoring: every legal move with one pack; with two packs (where a
        33-card hand has thousands of plays and its plays are estimated) one play per shape,
        the one with the weakest kickers (the lowest id), the others ranked after them."""
        if self.evaluator.exact:
            return legal
        first: dict = {}
        for a in sorted(legal):
            first.setdefault(self.cat.readings[a][:1], a)
        return list(first.values())

    def scores(self, view, legal: list[int]) -> dict[int, float]:
        self._require_game()
        w = self.weights
        cat = self.cat
        ev = self.evaluator
        game = self.game
        seat = view["seat"]
        hand = game.setup.parse(view["hand"])
        wild = RANKS.index(view["wild"]) if view.get("wild") else -1
        landlord = view["landlord"]
        peasant = view["role"] == PEASANT
        left = view["cards_left"]
        partners = [s for s in range(len(left)) if s not in (seat, landlord)] if peasant else []
        leading = view["pile"] is None
        pile_owner = view["pile_owner"]
        pile_kind = None if leading else self.kind[cat.action_from_str(view["pile"])]
        partner_pile = peasant and pile_owner in partners
        opponents = [landlord] if peasant else [o for o in range(len(left)) if o != seat]
        # an opponent about to go out: Normal watches the landlord, Hard every opponent
        landlord_last = (peasant or self.block_any) and min(left[o] for o in opponents) <= BLOCK_CARDS
        partner_left = min((left[p] for p in partners), default=0)
        feed = peasant and leading and partner_left <= FEED_CARDS
        now = ev.min_plays(hand)
        out = {}
        for a in legal:
            if a == cat.PASS:
                score = -w.plays * now - w.pass_cost
                if partner_pile:
                    score += w.partner
                elif landlord_last and pile_owner in opponents:
                    score -= w.block
                out[a] = score
                continue
            given = game.cards_given(hand, a, wild)
            rest = hand - given
            if not rest:
                out[a] = w.finish
                continue
            need = ev.min_plays(rest)
            near_end = need <= self.endgame_plays
            blocking = landlord_last and pile_kind == Kind.SINGLE
            sign = 1.0 if blocking else -1.0
            score = -w.plays * need + sign * w.rank * self.main[a]
            # laizi: a wild card spent is a high card spent
            control = self.control[a] or (wild >= 0 and counts(given)[wild] > 0)
            if control and not (near_end or blocking):
                score -= w.control
            if self.bomb[a] and not near_end:
                score -= w.bomb
            if partner_pile:
                score -= w.partner
            if landlord_last and leading and self.kind[a] == Kind.SINGLE and not self.safe_single(view, a):
                score -= w.block
            if feed and self.kind[a] in (Kind.SINGLE, Kind.PAIR) and cat.num_cards[a] <= partner_left:
                score += w.feed - w.rank * self.main[a]
            out[a] = score + self.extra(view, a, rest, need)
        return out

    #: block every opponent about to go out (Hard), or only the landlord (Normal)
    block_any = False

    def extra(self, view, action: int, rest: int, need: int) -> float:
        """Hook for the hard player's card counting (0 for Normal)."""
        return 0.0

    def safe_single(self, view, action: int) -> bool:
        """Whether leading this single is known to be safe (Normal does not count cards)."""
        return False


class HardPlayer(MediumPlayer):
    """Difícil: Normal plus card counting (module docstring). Knob ``endgame``: how few plays
    left count as "the end", where unbeatable plays go first."""

    name = "scripted-hard"
    KNOBS = ("endgame",)

    def __init__(self, seed=None, endgame: int = HARD_ENDGAME_PLAYS, **knobs):
        super().__init__(seed, **knobs)
        self.endgame_plays = as_int_in(endgame, "endgame", 1)

    def extra(self, view, action: int, rest: int, need: int) -> float:
        w = self.weights
        if self.bomb[action] and need <= 1:
            return w.finish / 2  # the bomb, then one play: out
        if need <= self.endgame_plays and self.unbeatable(view, action):
            return w.safe
        return 0.0

    block_any = True

    def safe_single(self, view, action: int) -> bool:
        return self.unbeatable(view, action)

    def unbeatable(self, view, action: int) -> bool:
        """No play made of the cards this seat has not seen beats ``action``."""
        unseen = self.game.setup.parse(view["unseen"])
        return not self.moves.replies(unseen, action)


class EasyPlayer(EasyMistakes, DoudizhuBot):
    """Fácil: weakest play that beats the pile, whoever made it; random one move in four."""

    name = "scripted-easy"

    def ranked(self, view, legal: list[int]) -> list[int]:
        self._require_game()
        first = self.declare(view, legal)
        if first is not None:
            return [first] + [a for a in legal if a != first]
        cat = self.cat

        def key(a: int):
            if a == cat.PASS:
                return (1, 0, 0, a)
            return (0, self.main[a], cat.num_cards[a], a)

        return sorted(legal, key=key)
