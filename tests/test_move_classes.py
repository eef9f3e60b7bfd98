"""``game.move_classes()``: moves that play alike share a class (the imitation loss and the
agreement benchmark read it). Cases as data: (rules, moves, same class?)."""

from __future__ import annotations

import pytest

from climbrl.envs.daifugo.rules import Rules
from climbrl.policies.spec import make_game

CASES = [
    # President reads no suits: a single or a set of the same number is one move
    ("president", {}, "4s", "4h", True),
    ("president", {}, "7s 7h", "7d 7c", True),
    ("president", {}, "7s 7h", "7s 7h 7d", False),  # a pair is not a triple
    ("president", {}, "4s", "5s", False),
    # the lock reads suits: 4s and 4h lock different piles
    ("daifugo", {}, "4s", "4h", False),
    # with every suit rule off, Daifugo's suits do not matter either...
    ("daifugo", {"lock": False, "spade_three_return": False, "run_suits": "any"}, "9s", "9d",
     True),
    # ...but same-suit runs do read them: which 9 is left decides the runs still possible
    ("daifugo", {"lock": False, "spade_three_return": False}, "9s", "9d", False),
    # the spade three's return: only the 3 of spades beats a joker
    ("daifugo", {"lock": False, "run_suits": "any"}, "3s", "3h", False),
]


@pytest.mark.parametrize("preset, rules, a, b, alike", CASES)
def test_moves_that_play_alike_share_a_class(preset, rules, a, b, alike):
    game = make_game(preset, 4, rules)
    classes = game.move_classes()
    ia, ib = game.action_from_str(a), game.action_from_str(b)
    assert (classes[ia] == classes[ib]) is alike
    assert classes[classes[ia]] == classes[ia]  # the class is its first member


def test_suits_matter_names_the_suit_rules():
    assert not Rules.preset("president", players=5).suits_matter
    assert Rules.preset("daifugo", players=4).suits_matter
    assert Rules.preset("president", players=4, runs=True, run_suits="same").suits_matter


def test_doudizhu_moves_are_each_their_own_class():
    game = make_game("doudizhu", 3)
    assert game.move_classes() == tuple(range(game.num_actions))
