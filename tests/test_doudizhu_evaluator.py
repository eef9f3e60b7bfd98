"""The Dou Dizhu hand evaluator: fewest plays (hand-counted cases and a brute-force check),
high cards, bombs, the bid advice of docs/rules.md, and the estimate of the two-pack game."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame
from climbrl.envs.doudizhu.cards import PHYSICAL_RANK, UNIT, parse, setup_for
from climbrl.envs.doudizhu.estimate import PlayEstimator
from climbrl.envs.doudizhu.evaluator import HandEvaluator, HandValue, bid_for
from climbrl.envs.doudizhu.catalog import get_catalog
from climbrl.envs.doudizhu.moves import MoveGenerator

EVAL = HandEvaluator()


@pytest.mark.parametrize(
    "hand, moves",
    [
        ("", 0),
        ("3", 1),
        ("34", 2),  # two singles
        ("33344", 1),  # trio + pair
        ("3456789", 1),  # one chain
        ("3456789TJQKA", 1),
        ("33334444", 2),  # 3333+44 then 44 (no shape holds all eight)
        ("333444555666777", 1),  # an airplane of 5 trios
        ("3334445556667778", 1),  # airplane 333444555666 with single kickers 7, 7, 7, 8
        ("BR", 1),  # the rocket
        ("B2", 2),
        ("33445566778899", 1),  # a pair chain of 7
        ("3344556677889", 2),  # pair chain + a single
        ("34567BR", 2),  # chain + rocket
    ],
)
def test_min_plays(hand, moves):
    assert EVAL.min_plays(parse(hand)) == moves


def test_min_plays_matches_breadth_first_search_on_small_hands():
    cat = get_catalog()
    gen = MoveGenerator(cat)

    @lru_cache(maxsize=None)
    def brute(hand: int) -> int:  # try every play, no pruning
        if not hand:
            return 0
        return 1 + min(brute(hand - cat.cards[a]) for a in gen.lead(hand))

    rng = np.random.default_rng(0)
    for _ in range(120):
        cards = rng.choice(54, int(rng.integers(1, 11)), replace=False)
        hand = sum(UNIT[PHYSICAL_RANK[c]] for c in cards)
        assert EVAL.min_plays(hand) == brute(hand)


def test_min_plays_stays_exact_when_searches_share_what_they_learned():
    """One evaluator keeps, for a hand searched in vain under a bound, that bound as a floor
    and answers later searches from it; hands played down card by card (each search meeting
    the sub-hands of the one before) still give the brute-force count."""
    cat = get_catalog()
    gen = MoveGenerator(cat)

    @lru_cache(maxsize=None)
    def brute(hand: int) -> int:
        if not hand:
            return 0
        return 1 + min(brute(hand - cat.cards[a]) for a in gen.lead(hand))

    shared = HandEvaluator()
    rng = np.random.default_rng(1)
    for _ in range(12):
        cards = list(rng.choice(54, 13, replace=False))
        while cards:
            hand = sum(UNIT[PHYSICAL_RANK[c]] for c in cards)
            assert shared.min_plays(hand) == brute(hand)
            cards.pop(int(rng.integers(len(cards))))
    assert shared._floor  # the floors were there to be used


def test_value_counts_high_cards_and_bombs():
    value = EVAL.value(parse("33334567892222BR"))
    assert (value.high_cards, value.bombs) == (6, 3)  # 2222 + B + R; bombs 3333, 2222, rocket


def test_seed_example_advice():
    value = HandValue(moves=7, high_cards=3, bombs=0)
    assert bid_for(value) == 1
    assert value.advice(1) == "3 high cards, 0 bombs, about 7 moves -> bid 1"


def test_bid_rule_and_the_highest_bid():
    strong = HandValue(moves=3, high_cards=4, bombs=1)  # 4 + 2 - 3 = 3 -> bid 3
    weak = HandValue(moves=10, high_cards=1, bombs=0)  # 1 - 10 = -9 -> pass
    assert bid_for(strong) == 3 and bid_for(weak) == 0
    assert bid_for(HandValue(moves=7, high_cards=4, bombs=0)) == 2  # -3
    assert bid_for(HandValue(moves=7, high_cards=3, bombs=0), high_bid=1) == 0  # not above 1
    assert EVAL.recommend_bid(parse("33456789TJQKA22BR"), high_bid=0) == 3


def test_advice_text_for_a_real_hand():
    text = EVAL.advice(parse("33456789TJQKA22BR"))
    assert text == "4 high cards, 1 bomb, about 4 moves -> bid 3"


# -- the estimate of the four-player game ------------------------------------------------------

ESTIMATE_CASES = [
    # (players, hand, plays)
    (3, "333444555666777", 1),  # one airplane
    (3, "33344455", 1),  # an airplane with the singles 5 and 5
    (3, "3334", 1),  # trio with a single
    (3, "34567TTT99", 2),  # a chain, and a trio that takes the pair along
    (3, "BR", 1),  # the rocket of one pack
    (4, "BR", 2),  # with two packs a black and a red joker are two singles
    (4, "BBRR", 1),  # the rocket of two packs
    (4, "55555", 1),  # a bomb of five
    (4, "55555555AAAAAAA", 2),  # two bombs
    (4, "334455667788", 1),  # a pair chain
    (4, "333444555666777888999TTTJJJQQQKKK", 1),  # an airplane of eleven trios
]


@pytest.mark.parametrize("players, hand, plays", ESTIMATE_CASES)
def test_estimate_cases(players, hand, plays):
    setup = setup_for(players)
    assert PlayEstimator(setup).plays(setup.parse(hand)) == plays


def test_estimate_is_close_to_the_exact_count():
    """On one-pack hands, where the exact search is fast, the estimate is mostly exact and
    never far (it ignores four-with-two and lets an airplane take fewer kickers)."""
    game = DoudizhuGame()
    estimator = PlayEstimator(game.setup)
    rng = np.random.default_rng(1)
    diffs = []
    for k in range(200):
        state = game.new_state(rng)
        hand = state.hands[0] + (state.kitty if k % 2 else 0)
        diffs.append(estimator.plays(hand) - EVAL.min_plays(hand))
    assert sum(d == 0 for d in diffs) >= 0.8 * len(diffs)
    assert max(abs(d) for d in diffs) <= 4


def test_the_four_player_evaluator_estimates():
    game = DoudizhuGame(DoudizhuConfig(players=4))
    assert not game.evaluator.exact and EVAL.exact
    hand = game.setup.parse("333444555666777888999TTTJJJQQQKKK")
    assert game.evaluator.min_plays(hand) == 1


def test_an_evaluator_pickled_before_the_floors_existed_reads_back():
    """Regression: a run saved by the version before the floors (its evaluator pickled without
    ``_floor``) failed to resume with an AttributeError."""
    import pickle

    old = HandEvaluator()
    old.min_plays("3334445556667778")
    del old.__dict__["_floor"]
    state = dict(old.__dict__)
    back = HandEvaluator.__new__(HandEvaluator)
    back.__setstate__(state)
    assert back.min_plays("3334445556667778") == 1
    copy = pickle.loads(pickle.dumps(EVAL))
    assert copy._memo == {0: 0} and copy.min_plays("33445566778899") == 1
