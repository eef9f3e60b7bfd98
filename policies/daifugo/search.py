"""The ``hard`` Daifugo / President player: determinized Monte Carlo, as the Hard level of
docs/rules.md and the UECda programs play.

Each decision:

1. the candidates are the ``candidates`` best legal moves by the medium player's score (a
   forced move is played at once);
2. a *determinization* deals the cards this seat cannot see to the other seats at random, but
   consistently with its view (:class:`HandSampler`): hand counts, the cards played this round,
   the cards it gave in the exchange (its partner still holds those not yet played), and, when
   it received the strongest cards of a lower place, that this seat holds nothing stronger;
3. :meth:`~climbrl.envs.daifugo.engine.DaifugoGame.from_view` rebuilds the position with those hands,
   and every candidate is played out from it once with the fast rollout policy
   (:class:`RolloutPolicy`) on the pure engine, to the moment this seat's place in the round
   is known; the value is that place's points;
4. steps 2-3 repeat until the budget is spent (``rollouts`` playouts in all, or ``time_ms``);
   every candidate is played out from the same determinizations with the same rollout seeds,
   and the medium choice stands unless another candidate's mean points beat it by more than
   ``switch_z`` standard errors of the paired difference (a few playouts are noisy: a bare
   argmax over them plays worse than the medium player it starts from).

Every random draw comes from the player's seeded generator, so a seeded match replays.
"""

from __future__ import annotations

import random

from climbrl.envs.core.bits import bit_list
from climbrl.envs.daifugo.cards import JOKER_RANK, parse_rank_suit
from climbrl.envs.daifugo.catalog import SET, SINGLE
from climbrl.envs.daifugo.engine import PHASE_PLAY, cards_within

from ..base import legal_ids
from ..montecarlo import DeterminizedSearch
from .hand import STRONG_FROM
from .heuristic import PHASE_EXCHANGE, MediumPlayer

DEFAULT_ROLLOUTS = 100
DEFAULT_CANDIDATES = 6
#: rollout policy: chance of a uniformly random legal move
ROLLOUT_EPSILON = 0.1
#: rollout policy: chance of holding back a strong card (A, 2, joker) while the hand is long
ROLLOUT_HOLD = 0.6
#: rollout policy: hands with more cards than this hold strong cards back
ROLLOUT_HOLD_CARDS = 3
#: lead key: one strength step outweighs any size difference
LEAD_SIZE_SPAN = 32
#: lead and reply keys: a move using jokers comes after every move without
JOKER_KEY = 1000
#: reply key: breaking a set costs as much as this many strength steps
BREAK_KEY = 8


class RolloutPolicy:
    """A fast scripted policy for playouts on the engine state: lead the weakest card with as
    many cards as go with it, reply with the weakest card that beats, hold strong cards back
    now and then while the hand is long; a random move one time in ten."""

    def __init__(self, game, facts):
        cat = game.catalog
        self.pass_id = cat.pass_id
        self.rank_mask = game.deck.rank_mask
        #: the real rank of a single or set (None for runs and jokers alone): a reply of that
        #: rank that leaves cards of it in the hand breaks a set
        self.set_rank = tuple(
            m.low if m.kind in (SINGLE, SET) and m.low < JOKER_RANK else None for m in cat.moves
        )
        self.real_size = tuple(m.size - m.jokers for m in cat.moves)
        self.lead_key = tuple(
            tuple(
                facts.bottom[rev][a] * LEAD_SIZE_SPAN - cat.msize[a] + JOKER_KEY * cat.njokers[a]
                for a in range(cat.size)
            )
            for rev in (0, 1)
        )
        self.reply_key = tuple(
            tuple(facts.top[rev][a] + JOKER_KEY * cat.njokers[a] for a in range(cat.size))
            for rev in (0, 1)
        )
        self.strong = tuple(
            tuple(
                facts.top[rev][a] >= STRONG_FROM or cat.njokers[a] > 0
                for a in range(cat.size)
            )
            for rev in (0, 1)
        )

    def choose(self, state, legal: list[int], rnd: random.Random) -> int:
        if rnd.random() < ROLLOUT_EPSILON:
            return legal[rnd.randrange(len(legal))]
        rev = state.revolution != state.jack_back
        # a pass comes first among the legal moves, on an empty pile too (``lead_pass``,
        # UECda): leading, it is never chosen (it gives the lead away for nothing)
        plays = legal[1:] if legal[0] == self.pass_id else legal
        if state.pile < 0:
            return min(plays, key=self.lead_key[rev].__getitem__)
        hand = state.hands[state.current_player]
        key = self.reply_key[rev]
        set_rank, real_size, rank_mask = self.set_rank, self.real_size, self.rank_mask
        best, best_key = plays[0], None
        for a in plays:
            k = key[a]
            r = set_rank[a]
            if r is not None and (hand & rank_mask[r]).bit_count() != real_size[a]:
                k += BREAK_KEY
            if best_key is None or k < best_key:
                best, best_key = a, k
        if (
            self.strong[rev][best]
            and state.hands[state.current_player].bit_count() > ROLLOUT_HOLD_CARDS
            and rnd.random() < ROLLOUT_HOLD
        ):
            return self.pass_id
        return best

    def playout(self, state, seat: int, first: int, rnd: random.Random) -> int:
        """Play ``first``, then play ``state`` on until ``seat``'s place in the round is known;
        returns the place."""
        action = first
        while True:
            if state.apply(action) is not None:
                return state.titles[seat]  # the round ended: its places became the titles
            place = state.places[seat]
            if place >= 0:
                return place
            legal = state.legal_actions()
            action = legal[0] if len(legal) == 1 else self.choose(state, legal, rnd)


def copies_of(deck, cards: int) -> int:
    """Every copy of the cards in the mask ``cards``: for each card, all cards of its name
    (a joker: every joker)."""
    out = deck.joker_mask if cards & deck.joker_mask else 0
    for card in bit_list(cards & deck.real_mask):
        rank, suit = deck.rank_suit(card)
        out |= deck.rank_suit_mask[rank][suit]
    return out


class HandSampler:
    """Deals the cards one seat cannot see to the others, consistently with its view."""

    def __init__(self, game, view):
        deck = game.deck
        rules = game.rules
        players = game.num_players
        seat = view["seat"]
        self.game = game
        self.seat = seat
        self.own = own = deck.parse(view["hand"])
        played = deck.parse(view["played"], own)
        unknown = deck.full & ~own & ~played
        # unsuited plays are public by rank only: each sample retires that many unknown
        # copies of the rank, drawn at random
        ranks = [parse_rank_suit(token)[0] for token in view["played_ranks"].split()]
        self.retired = [(deck.rank_mask[r], ranks.count(r)) for r in sorted(set(ranks))]
        self.need = list(view["hand_counts"])
        self.need[seat] = 0
        self.fixed = [0] * players
        self.fixed[seat] = own
        self.allowed: list[int | None] = [None] * players  # None: any unknown card
        place = view["title_places"][seat]
        tiers = len(rules.exchange)
        if view["round"] > 0 and place is not None and (place < tiers or place >= players - tiers):
            partner = view["title_places"].index(players - 1 - place)
            # the cards this seat gave are still with its partner, unless played since; a
            # card with an identical copy seen elsewhere (the two jokers, two decks) may be
            # the one played or handed back, so only the others are sure
            gave = cards_within(deck, unknown, view["exchange"]["gave"])
            gave &= ~copies_of(deck, played | own)
            for rank_mask, _n in self.retired:
                gave &= ~rank_mask  # one of these may be among the cards played by rank
            if view["active"][partner] and gave.bit_count() <= view["hand_counts"][partner]:
                self.fixed[partner] = gave
                self.need[partner] -= gave.bit_count()
                unknown &= ~gave
            if place < tiers:
                # it received its partner's strongest cards: the partner kept only weaker ones
                received = deck.parse(view["exchange"]["received"])
                key = game.give_key
                floor = min(key[c][:2] for c in bit_list(received)) if received else None
                if floor is not None:
                    self.allowed[partner] = sum(
                        1 << c for c in bit_list(unknown) if key[c][:2] <= floor
                    )
        self.unknown = unknown
        # constrained seats draw first, while their cards are still in the pool
        self.order = sorted(range(players), key=lambda s: self.allowed[s] is None)

    def sample(self, rng) -> list[int]:
        """One guess of every seat's hand (masks; the viewer's own as it is)."""
        hands = self.fixed[:]
        pool = self.unknown
        for rank_mask, n in self.retired:
            copies = bit_list(pool & rank_mask)
            for i in rng.choice(len(copies), size=n, replace=False).tolist():
                pool &= ~(1 << copies[i])
        for s in self.order:
            n = self.need[s]
            if n <= 0:
                continue
            allowed = self.allowed[s]
            cards = bit_list(pool if allowed is None else allowed & pool)
            if len(cards) < n:
                cards = bit_list(pool)  # the constraint cannot hold: drop it
            picked = rng.choice(len(cards), size=n, replace=False)
            mask = 0
            for i in picked.tolist():
                mask |= 1 << cards[i]
            hands[s] |= mask
            pool &= ~mask
        return hands


class HardPlayer(DeterminizedSearch, MediumPlayer):
    """Determinized Monte Carlo over the medium player's best candidates (module docstring).

    Knobs: ``rollouts`` (playouts per decision), ``time_ms`` (a wall-clock cap per decision;
    0 = none; a timed player no longer replays exactly), ``candidates`` (moves searched),
    ``switch_z`` (how sure the search must be to overrule the medium choice), and the medium
    weights.
    """

    name = "scripted-hard"
    default_rollouts = DEFAULT_ROLLOUTS
    default_candidates = DEFAULT_CANDIDATES

    def bind(self, game) -> HardPlayer:
        if game is not self.game:
            super().bind(game)
            self.rollout = RolloutPolicy(game, self.facts)
        return self

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        if len(legal) == 1:
            return legal[0]
        ranked = self.ranked(view, legal)
        if view["phase"] == PHASE_EXCHANGE:
            return ranked[0]
        candidates = ranked[: self.candidates]
        if len(candidates) == 1:
            return candidates[0]
        return self.search(view, candidates)

    def sampler(self, game, view) -> HandSampler:
        return HandSampler(game, view)

    def root(self, game, view, hands):
        root = game.from_view(view, hands)
        return root if root.phase == PHASE_PLAY else None

    def rollout_move(self, state, legal: list[int], rnd: random.Random) -> int:
        return self.rollout.choose(state, legal, rnd)

    def playout_value(self, state, seat: int, action: int, rnd: random.Random) -> float:
        """The points of ``seat``'s place in the round."""
        return self.game.rules.points[self.rollout.playout(state, seat, action, rnd)]
