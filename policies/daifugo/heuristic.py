"""Rule-based Daifugo / President players: ``easy`` and ``medium``, and the move ranking the
hints and the ``hard`` player's candidate list use.

``medium`` follows the strategy tips of docs/rules.md, move by move:

- *play weak cards while you lead, as a set or a run*: a move costs the number of groups the
  hand keeps after it (:func:`~climbrl.policies.daifugo.hand.count_groups`) plus the strength of its
  top card, so the weakest whole group goes first;
- *do not break up a set*: breaking a group leaves as many groups as before, so passing is
  preferred to it;
- *save 2s, jokers and 8s for taking back the pile*: spending a control costs extra, except
  near the end (few groups left) or to block, and with one group left after it, a control
  goes first (take the lead, then finish);
- *decide on a revolution by the hand's strength*: a revolution scores by how much stronger
  the rest of the hand gets in the turned order;
- *watch how many cards are left*: with an opponent at 1-2 cards, passing costs extra, controls
  are free, the strongest reply is preferred, and leading a shape that small is avoided;
- the exchange: give back the cards whose loss costs least (weak loose singles, never
  controls).

``easy`` plays the weakest legal move that beats the pile, never holds back, leads its weakest
single and, one move in four, plays a uniformly random legal move instead ("makes mistakes",
docs/rules.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from climbrl.envs.daifugo.catalog import PASS
from climbrl.envs.daifugo.engine import DaifugoGame

from ..base import EasyMistakes, Player, Weights, legal_ids
from .hand import HandShape, MoveFacts, count_groups, is_control_move, revolution_gain

#: opponents with this many cards or fewer are about to finish (docs/rules.md: "one or two cards")
BLOCK_CARDS = 2
#: a hand of this many groups or fewer is "near the end": controls may be spent
ENDGAME_GROUPS = 2
PHASE_EXCHANGE = "exchange"


@dataclass(frozen=True)
class MediumWeights(Weights):
    """Weights of the medium player's move score (higher is better); each a knob."""


    group: float = 10.0
    """cost per group left in the hand after the move"""
    strength: float = 0.5
    """cost per strength step of the move's top card (play weak cards first)"""
    control: float = 12.0
    """cost of spending a control (2, joker, cutting 8) before the end"""
    pass_cost: float = 1.0
    """cost of passing instead of playing (giving up the lead)"""
    block: float = 25.0
    """cost of letting an opponent with 1-2 cards take the lead"""
    revolution: float = 0.3
    """score per point of hand strength a revolution gains (or loses)"""
    last_control: float = 20.0
    """bonus for spending a control when one group is left after it"""
    finish: float = 1000.0
    """score of a move that empties the hand (legal finish)"""


class DaifugoBot(Player):
    """Shared set-up of the scripted Daifugo / President players: per-game move facts."""

    game_types = (DaifugoGame,)
    family = "Daifugo / President"

    def bind(self, game) -> DaifugoBot:
        if game is not self.game:
            self.check_game(game)
            self.facts = game.derived(MoveFacts.build)
            self.pass_id = game.catalog.pass_id
        return super().bind(game)


class MediumPlayer(DaifugoBot):
    """The strategy tips of docs/rules.md as a move score (see the module docstring)."""

    name = "scripted-medium"

    def __init__(self, seed=None, **knobs):
        super().__init__(seed)
        self.weights = MediumWeights.from_knobs(knobs, self)

    def act(self, observation, view) -> int:
        return self.ranked(view, legal_ids(observation))[0]

    def ranked(self, view, legal: list[int]) -> list[int]:
        """``legal`` ordered best first (ties by id)."""
        scores = self.scores(view, legal)
        return sorted(legal, key=lambda a: (-scores[a], a))

    def scores(self, view, legal: list[int]) -> dict[int, float]:
        """The score of each legal move in this position."""
        game = self._require_game()
        w = self.weights
        deck = game.deck
        rules = game.rules
        cat = game.catalog
        facts = self.facts
        hand = deck.parse(view["hand"])
        rev = bool(view["reversed"])
        seat = view["seat"]
        runs, suited = rules.runs, cat.suited_runs
        giving = view["phase"] == PHASE_EXCHANGE
        leading = view["pile"] is None
        danger = min(
            (
                n
                for s, n in enumerate(view["hand_counts"])
                if s != seat and view["active"][s] and n
            ),
            default=deck.size,
        )
        blocking = danger <= BLOCK_CARDS and not giving
        groups_now = count_groups(HandShape(game, hand), runs, suited)
        out = {}
        for a in legal:
            if a == self.pass_id:
                out[a] = -w.group * groups_now - w.pass_cost - (w.block if blocking else 0.0)
                continue
            cards = game.cards_for(hand, a)
            after = hand ^ cards
            if not after and not giving:
                out[a] = -w.finish if self._illegal_finish(a, view) else w.finish
                continue
            shape = HandShape(game, after)
            groups = count_groups(shape, runs, suited)
            # weakest first; but to block, the strongest reply takes the pile for good
            sign = 1.0 if blocking and not leading else -1.0
            score = -w.group * groups + sign * w.strength * facts.top[rev][a]
            spends = is_control_move(game, facts, a, rev)
            near_end = groups <= ENDGAME_GROUPS
            if spends and not (near_end or blocking):
                score -= w.control
            if spends and groups <= 1:
                score += w.last_control  # take the lead with it, then finish on the last group
            if facts.revolution[a]:
                score += w.revolution * revolution_gain(shape, rev)
            if blocking and leading and cat.msize[a] <= danger and not spends:
                score -= w.block
            out[a] = score
        return out

    def _illegal_finish(self, action: int, view) -> bool:
        """Would finishing with ``action`` be an illegal finish (rule on)?"""
        game = self.game
        rules = game.rules
        if not rules.illegal_finish:
            return False
        cat = game.catalog
        rev = bool(view["reversed"])
        return bool(
            cat.njokers[action]
            or is_control_move(game, self.facts, action, rev)
            or self.facts.revolution[action]
        )


class EasyPlayer(EasyMistakes, DaifugoBot):
    """Weakest legal play, never holds back; a random move one time in four."""

    name = "scripted-easy"

    def ranked(self, view, legal: list[int]) -> list[int]:
        """Weakest first: plays before a pass, singles first when leading, jokers last."""
        game = self._require_game()
        cat = game.catalog
        top = self.facts.top[bool(view["reversed"])]

        def key(a: int):
            if cat.kind[a] == PASS:
                return (1, 0, 0, 0, a)
            return (0, cat.njokers[a], top[a], cat.msize[a], a)

        return sorted(legal, key=key)
