"""Dou Dizhu rule cases as data: shapes, kicker limits, readings and what beats what.

Each case is ``(hand, pile, play, legal)``: can a player holding ``hand`` put down ``play`` when
``pile`` is the play to beat (``None``: leading a trick)? The comment says why, citing
docs/rules.md. A hand and its pile never use more copies of a rank than the
deck has. Every case is checked against the move generator and against the catalog's own
``beats`` (two independent paths).
"""

from __future__ import annotations

import pytest

from climbrl.envs.doudizhu.cards import FULL_DECK, contains, format_cards, parse
from climbrl.envs.doudizhu.catalog import CatalogError, Kind, Reading, get_catalog
from climbrl.envs.doudizhu.moves import MoveGenerator

CAT = get_catalog()
GEN = MoveGenerator(CAT)

CASES = [
    # -- single --------------------------------------------------------------------------------
    ("3", None, "3", True),  # a leader may play any shape
    ("4", "3", "4", True),  # higher single
    ("3", "3", "3", False),  # equal is not higher
    ("2", "A", "2", True),  # 2 is above A
    ("B", "2", "B", True),  # black joker above 2
    ("R", "B", "R", True),  # red joker above black joker
    ("2", "B", "2", False),  # a 2 never beats a joker
    ("44", "3", "44", False),  # same type and number of cards required
    # -- pair ----------------------------------------------------------------------------------
    ("44", "33", "44", True),
    ("22", "AA", "22", True),
    ("33", "44", "33", False),
    # -- trio ----------------------------------------------------------------------------------
    ("444", "333", "444", True),
    ("444", "33", "444", False),  # a trio does not beat a pair
    # -- trio + single -------------------------------------------------------------------------
    ("4443", "3335", "4443", True),  # main rank is the trio: 4 > 3, kicker 3 is irrelevant
    ("333B", None, "333B", True),  # a joker is a fine single kicker
    ("3335", "4446", "3335", False),
    ("4445", "33366", "4445", False),  # trio+1 does not beat trio+pair
    ("33335", None, "33335", False),  # kicker of the body's rank: 3333+5 is no shape
    # -- trio + pair ---------------------------------------------------------------------------
    ("44466", "33355", "44466", True),
    ("33322", None, "33322", True),  # a pair of 2s is a fine pair kicker
    ("333BR", None, "333BR", False),  # the two jokers are not a pair (and no rocket in kickers)
    # -- chain ---------------------------------------------------------------------------------
    ("34567", None, "34567", True),  # at least 5 cards
    ("3456", None, "3456", False),  # 4 cards: too short
    ("45678", "34567", "45678", True),
    ("456789", "34567", "456789", False),  # same length required
    ("TJQKA", None, "TJQKA", True),  # up to A
    ("JQKA2", None, "JQKA2", False),  # no chain through 2
    ("KA2BR", None, "KA2BR", False),  # nor through the jokers
    ("3456789TJQKA", None, "3456789TJQKA", True),  # the longest chain: 12 cards
    # -- pair chain ----------------------------------------------------------------------------
    ("334455", None, "334455", True),  # at least 3 pairs
    ("3344", None, "3344", False),
    ("445566", "334455", "445566", True),
    ("QQKKAA22", None, "QQKKAA22", False),  # no chain through 2
    ("33445566", "445566", "33445566", False),  # 4 pairs do not answer 3 pairs
    # -- airplane ------------------------------------------------------------------------------
    ("333444", None, "333444", True),
    ("555666", "333444", "555666", True),
    ("KKKAAA222", None, "KKKAAA222", False),  # no chain through 2 (and 3 kickers fit no shape)
    ("KKKAAA22", None, "KKKAAA22", True),  # KKK AAA + single kickers 2, 2: allowed
    # -- airplane + singles ----------------------------------------------------------------------
    ("33344456", None, "33344456", True),
    ("33344455", None, "33344455", True),  # single kickers may repeat a rank
    ("333444BR", None, "333444BR", False),  # never both jokers among kickers (that is a rocket)
    ("333444B2", None, "333444B2", True),  # one joker is fine
    ("33334445", None, "33334445", False),  # kicker 3 is a body rank
    ("55566678", "33344489", "55566678", True),
    ("444555678", None, "444555678", False),  # 2 trios + 3 kickers: wrong count
    # -- airplane + pairs ------------------------------------------------------------------------
    ("3334445566", None, "3334445566", True),
    ("3334445555", None, "3334445555", False),  # pair kickers must be distinct ranks
    ("333444BR22", None, "333444BR22", False),  # the jokers are not a pair
    ("333444556", None, "333444556", False),  # kickers all single or all pairs: no mixing
    # -- four + two ----------------------------------------------------------------------------
    ("999935", None, "999935", True),
    ("999955", None, "999955", True),  # the two singles may be equal
    ("9999BR", None, "9999BR", False),  # no rocket among kickers
    ("99993R", None, "99993R", True),
    ("99993355", None, "99993355", True),  # four + 2 pairs
    ("99993333", None, "99993333", False),  # the two pairs must differ
    ("99995", None, "99995", False),  # four + 1 is no shape
    ("TTTT34", "999935", "TTTT34", True),  # a higher four-with-two
    ("TTTT34", "99993355", "TTTT34", False),  # two singles do not answer two pairs
    ("TTTT34", "3", "TTTT34", False),  # four-with-two is not a bomb
    ("TTTT45", "3333", "TTTT45", False),  # and does not beat a bomb
    # -- bombs and the rocket ------------------------------------------------------------------
    ("3333", "999945", "3333", True),  # bomb over four-with-two
    ("2222", "3456789TJQKA", "2222", True),  # a bomb beats any non-bomb
    ("4444", "3333", "4444", True),  # higher bomb
    ("3333", "4444", "3333", False),
    ("BR", "2222", "BR", True),  # rocket over bomb
    ("2222", "BR", "2222", False),  # nothing beats the rocket
    ("BR", "2", "BR", True),  # the rocket beats everything
    # -- several readings ------------------------------------------------------------------------
    # 333444555666 is an airplane of 4 trios, or one of 3 trios with single kickers 6-6-6
    # (main 3) or 3-3-3 (main 4). Each reading beats piles of its own type and length.
    ("777888999TTT", "333444555666", "777888999TTT", True),  # airplane of 4: 7 > 3
    ("666777888999", "33344455589T", "666777888999", True),  # as 3 trios + kickers: 6 > 3
    ("777888999JQK", "333444555666", "777888999JQK", True),  # beats the pile's 3-trio reading
    ("333444555666", "777888999JQK", "333444555666", False),  # its best main, 4, is below 7
]


@pytest.mark.parametrize("hand, pile, play, legal", CASES, ids=[f"{c[2]}/{c[1]}" for c in CASES])
def test_rule_case(hand, pile, play, legal):
    hand_cards = parse(hand)
    if pile is not None:
        assert contains(FULL_DECK - hand_cards, parse(pile)), "hand + pile exceed the deck"
    try:
        action = CAT.action_from_str(play)
    except CatalogError:
        assert not legal, f"{play} should be a legal play but no shape reads it"
        return
    assert contains(hand_cards, CAT.cards[action])
    if pile is None:
        generated = GEN.lead(hand_cards)
        by_rule = True
    else:
        pile_action = CAT.action_from_str(pile)
        generated = GEN.replies(hand_cards, pile_action)
        by_rule = CAT.beats(action, pile_action)
    assert (action in generated) == legal
    assert by_rule == legal


@pytest.mark.parametrize(
    "play, readings",
    [
        (
            "333444555666",
            {
                Reading(Kind.AIRPLANE, 4, 0),
                Reading(Kind.AIRPLANE_SINGLE, 3, 0),  # 333444555 + 6, 6, 6
                Reading(Kind.AIRPLANE_SINGLE, 3, 1),  # 444555666 + 3, 3, 3
            },
        ),
        (
            "3334445556667778",  # 333444555666 + 7, 7, 7, 8 or 444555666777 + 3, 3, 3, 8
            {Reading(Kind.AIRPLANE_SINGLE, 4, 0), Reading(Kind.AIRPLANE_SINGLE, 4, 1)},
        ),
        ("999955", {Reading(Kind.FOUR_TWO_SINGLE, 1, 6)}),
        ("33344", {Reading(Kind.TRIO_PAIR, 1, 0)}),
        ("3333", {Reading(Kind.BOMB, 4, 0)}),  # never trio + its own 3; a bomb's length is its cards
        ("BR", {Reading(Kind.ROCKET, 1, 13)}),  # never a pair
        ("KKKAAA22", {Reading(Kind.AIRPLANE_SINGLE, 2, 10)}),
    ],
)
def test_readings(play, readings):
    assert set(CAT.readings[CAT.action_from_str(play)]) == readings


def test_kickers_never_use_a_body_rank_nor_both_jokers():
    rocket = parse("BR")
    for action in range(CAT.pass_segment.stop, CAT.num_actions):
        cards = CAT.cards[action]
        for kind, length, main in CAT.readings[action]:
            if kind in (Kind.ROCKET,):
                continue
            assert cards & rocket != rocket, format_cards(cards)
            if kind in (Kind.AIRPLANE_SINGLE, Kind.AIRPLANE_PAIR, Kind.TRIO_SINGLE, Kind.TRIO_PAIR):
                body = format_cards(cards)
                for r in range(main, main + length):
                    assert body.count("3456789TJQKA2"[r]) == 3, (body, kind)
