"""Determinized Monte Carlo for the Dou Dizhu ``hard`` player (the same scheme as the Daifugo
one, :mod:`climbrl.policies.daifugo.search`).

Each play decision (bidding follows the hand evaluator): the candidates are the Hard
player's best moves by its card-counting score; a determinization deals the cards this seat
has not seen to the other two seats by their card counts (the landlord keeps the kitty cards
it has not played: the kitty is shown to all); :meth:`DoudizhuGame.from_view` makes the engine position
from the view and those hands; each candidate is played out once with :class:`RolloutPolicy`; the
value is this seat's side winning (+1) or losing (-1) times the stake. The scripted choice
stands unless another candidate beats it significantly (:mod:`climbrl.policies.montecarlo`).
"""

from __future__ import annotations

import random

from climbrl.envs.doudizhu.cards import NUM_RANKS, UNIT, counts, parse

from ..base import legal_ids
from ..montecarlo import DeterminizedSearch
from .heuristic import HardPlayer

DEFAULT_ROLLOUTS = 60
DEFAULT_CANDIDATES = 4
ROLLOUT_EPSILON = 0.05
#: lead key: one rank step outweighs any size difference
LEAD_SIZE_SPAN = 32
#: rollout keys: a bomb, the rocket or a 2/joker comes after every plain play
CONTROL_KEY = 1000
NOT_BID = -1
PASS_TEXT = "pass"


class HandSampler:
    """Deals the unseen cards to the other two seats, consistently with the view."""

    def __init__(self, view: dict):
        seat = view["seat"]
        landlord = view["landlord"]
        left = view["cards_left"]
        self.seat = seat
        self.own = parse(view["hand"])
        unseen = counts(parse(view["unseen"]))
        self.fixed = [0] * len(left)
        self.fixed[seat] = self.own
        if view.get("shown_hand") is not None and landlord != seat:
            # open hand: the landlord's cards are in the view
            shown = parse(view["shown_hand"])
            self.fixed[landlord] = shown
            unseen = bytes(u - k for u, k in zip(unseen, counts(shown)))
        elif landlord != seat:
            # the landlord still holds the kitty cards of ranks it has not played as many of
            kitty = counts(parse(view["kitty"]))
            played = counts(parse(view["played"][landlord]))
            kept = [max(0, kitty[r] - played[r]) for r in range(NUM_RANKS)]
            self.fixed[landlord] = sum(k * UNIT[r] for r, k in enumerate(kept))
            unseen = bytes(u - k for u, k in zip(unseen, kept))
        self.pool = [r for r in range(NUM_RANKS) for _ in range(unseen[r])]
        fixed_size = [sum(counts(h)) for h in self.fixed]
        self.need = [0 if s == seat else left[s] - fixed_size[s] for s in range(len(left))]

    def sample(self, rng) -> list[int]:
        order = rng.permutation(len(self.pool)).tolist()
        hands = self.fixed[:]
        at = 0
        for s, n in enumerate(self.need):
            for i in order[at : at + n]:
                hands[s] += UNIT[self.pool[i]]
            at += n
        return hands


class RolloutPolicy:
    """A fast playout policy: lead the lowest play with the most cards, answer with the lowest
    play that beats, never beat the partner, keep 2s, jokers and bombs for later; a random
    move one time in twenty."""

    def __init__(self, game, main, control, bomb):
        cat = game.catalog
        self.pass_id = cat.PASS
        size = cat.num_cards
        self.lead_key = tuple(
            main[a] * LEAD_SIZE_SPAN - size[a] + CONTROL_KEY * (control[a] or bomb[a])
            for a in range(cat.num_actions)
        )
        self.reply_key = tuple(
            main[a] + CONTROL_KEY * bomb[a] for a in range(cat.num_actions)
        )

    def choose(self, state, legal: list[int], rnd: random.Random) -> int:
        """The policy's move among ``legal`` (two or more)."""
        if rnd.random() < ROLLOUT_EPSILON:
            return legal[rnd.randrange(len(legal))]
        if state.pile < 0:
            return min(legal, key=self.lead_key.__getitem__)
        landlord = state.landlord
        if state.current_player != landlord and state.pile_owner != landlord:
            return self.pass_id  # the partner's play stands
        return min(legal[1:], key=self.reply_key.__getitem__)

    def playout(self, state, seat: int, first: int, rnd: random.Random) -> float:
        """Play ``first`` then on to the end; ``seat``'s return (in stakes)."""
        action = first
        while True:
            rewards = state.apply(action)
            if rewards is not None:
                return rewards[seat]
            legal = state.legal_actions()
            action = legal[0] if len(legal) == 1 else self.choose(state, legal, rnd)


class SearchPlayer(DeterminizedSearch, HardPlayer):
    """Hard with determinized Monte Carlo on top (module docstring). Knobs: ``rollouts``,
    ``time_ms``, ``candidates``, ``switch_z`` (as the Daifugo hard player) and Hard's own."""

    name = "scripted-hard"
    default_rollouts = DEFAULT_ROLLOUTS
    default_candidates = DEFAULT_CANDIDATES

    def bind(self, game) -> SearchPlayer:
        if game is not self.game:
            super().bind(game)
            self.rollout = RolloutPolicy(game, self.main, self.control, self.bomb)
        return self

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        first = self.declare(view, legal)
        if first is not None:
            return first
        if not self.evaluator.exact or view.get("wild"):
            # two packs, or wild cards: a playout costs seconds (33-card hands; a scan of the
            # catalog for each move); Hard's own choice stands
            return self.ranked(view, legal)[0]
        if len(legal) == 1:
            return legal[0]
        candidates = self.ranked(view, legal)[: self.candidates]
        if len(candidates) == 1:
            return candidates[0]
        return self.search(view, candidates)

    def sampler(self, game, view) -> HandSampler:
        return HandSampler(view)

    def rollout_move(self, state, legal: list[int], rnd: random.Random) -> int:
        return self.rollout.choose(state, legal, rnd)

    def playout_value(self, state, seat: int, action: int, rnd: random.Random) -> float:
        """``seat``'s return in stakes."""
        return self.rollout.playout(state, seat, action, rnd)


__all__ = ["HandSampler", "RolloutPolicy", "SearchPlayer"]
