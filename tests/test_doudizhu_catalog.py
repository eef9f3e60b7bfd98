"""The Dou Dizhu catalog: sizes counted by hand, text round trips, features."""

from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
import pytest

from climbrl.envs.doudizhu.cards import CardParseError, format_cards, parse
from climbrl.envs.doudizhu.catalog import ACTION_FEATURES, CatalogError, Kind, get_catalog

CAT = get_catalog()


def multisets(n: int, k: int) -> int:
    """Multisets of size k from n kinds (stars and bars)."""
    return comb(n + k - 1, k)


# Readings per kind, counted by hand. Ranks: 15 (13 number ranks 3..2, then B and R); chains use
# the 12 ranks 3..A, so a chain of length L has 12 - L + 1 = 13 - L starting ranks.
READINGS = {
    Kind.SINGLE: 15,  # any rank, jokers included
    Kind.PAIR: 13,  # number ranks only (one card of each joker)
    Kind.TRIO: 13,
    Kind.TRIO_SINGLE: 13 * 14,  # 13 trios x any of the 14 other ranks = 182
    Kind.TRIO_PAIR: 13 * 12,  # 13 trios x 12 other number ranks = 156
    Kind.CHAIN: sum(13 - n for n in range(5, 13)),  # 8+7+...+1 = 36
    Kind.PAIR_CHAIN: sum(13 - n for n in range(3, 11)),  # 10 pairs = 20 cards: 10+...+3 = 52
    Kind.AIRPLANE: sum(13 - n for n in range(2, 7)),  # 6 trios = 18 cards: 11+10+9+8+7 = 45
    # Airplane of n trios + n single kickers (4n <= 20 cards, so n <= 5). Kickers come from the
    # 13 - n number ranks outside the body (at most 4 each, which only bites at n = 5: the 13 - 5
    # = 8 "five of one rank" multisets) plus at most one joker (B or R, never both):
    #   M(13-n, n) + 2 * M(13-n, n-1), times the 13 - n bodies.
    # n=2: (66 + 2*11) * 11 = 968; n=3: (220 + 2*55) * 10 = 3300; n=4: (495 + 2*165) * 9 = 7425;
    # n=5: (792 - 8 + 2*330) * 8 = 11552. Total 23245.
    Kind.AIRPLANE_SINGLE: (66 + 2 * 11) * 11 + (220 + 2 * 55) * 10 + (495 + 2 * 165) * 9
    + (792 - 8 + 2 * 330) * 8,
    # Airplane of n trios + n pairs of distinct number ranks outside the body (5n <= 20, n <= 4):
    # C(13-n, n) * (13-n): n=2: 55*11 = 605; n=3: 120*10 = 1200; n=4: 126*9 = 1134. Total 2939.
    Kind.AIRPLANE_PAIR: 55 * 11 + 120 * 10 + 126 * 9,
    # Four + 2 singles: 13 quads x 2-multisets of the 12 other number ranks and the 2 jokers,
    # never B+R: C(14, 2) distinct + 12 equal (no joker pairs) - 1 rocket = 102; 13 * 102 = 1326.
    Kind.FOUR_TWO_SINGLE: 13 * (comb(14, 2) + 12 - 1),
    Kind.FOUR_TWO_PAIR: 13 * comb(12, 2),  # 2 distinct pairs of the 12 other ranks: 13 * 66 = 858
    Kind.BOMB: 13,
    Kind.ROCKET: 1,
}

# Plays with several readings (one id each), counted by hand. A body rank holds exactly 3 cards,
# so two airplane-with-singles readings of one play differ by whole trios sitting among the
# kickers: with n trios and n kickers that is possible for n >= 3 only.
#  n=3: 4 consecutive trios (12 - 4 + 1 = 9 plays): also a plain airplane of 4, so 3 readings.
#  n=4: 5 consecutive trios + 1 single outside them (8 runs x 10 ranks = 80 plays), 2 readings.
#  n=5: 6 consecutive trios + 2 singles outside, never B+R (7 runs x (C(9,2) + 7 - 1) = 294).
THREE_READINGS = 9
TWO_READINGS = 8 * 10 + 7 * (comb(9, 2) + 7 - 1)
# Each such play sits in one segment (its first reading's kind): the 9 in 'airplane', the rest
# in 'airplane_single'; every other play has a single reading.
SEGMENT_SIZES = dict(READINGS)
SEGMENT_SIZES[Kind.AIRPLANE_SINGLE] -= 2 * THREE_READINGS + TWO_READINGS  # 23245 - 18 - 374


def test_readings_per_kind_match_the_hand_count():
    counted = Counter(r.kind for rs in CAT.readings for r in rs)
    assert {k: counted[k] for k in Kind} == READINGS
    assert READINGS[Kind.AIRPLANE_SINGLE] == 23245
    assert sum(READINGS.values()) == 28894


def test_plays_with_several_readings_match_the_hand_count():
    by_count = Counter(len(rs) for rs in CAT.readings[CAT.pass_segment.stop :])
    assert by_count == {1: 28502 - TWO_READINGS - THREE_READINGS, 2: 374, 3: 9}


def test_segment_sizes_and_total():
    for kind in Kind:
        assert CAT.table[kind.label].size == SEGMENT_SIZES[kind], kind
    assert CAT.table["bid"].size == 4  # bid pass, bid 1, bid 2, bid 3
    assert CAT.table["pass"].size == 1
    # 28894 readings - 374 (second readings) - 2 * 9 (second and third) = 28502 plays,
    # + 4 bidding actions + pass = 28507.
    assert sum(SEGMENT_SIZES.values()) == 28502
    assert CAT.num_actions == 28507


def test_every_play_is_a_distinct_multiset_in_its_first_readings_segment():
    seen = set()
    for action in range(CAT.pass_segment.stop, CAT.num_actions):
        cards = CAT.cards[action]
        assert cards not in seen
        seen.add(cards)
        first = CAT.readings[action][0]
        assert CAT.table.segment_of(action).name == first.kind.label
        assert CAT.readings[action] == tuple(sorted(CAT.readings[action]))


def test_text_round_trip_over_every_id():
    for action in range(CAT.num_actions):
        text = CAT.action_to_str(action)
        assert CAT.action_from_str(text) == action, text
        if action >= CAT.pass_segment.stop:
            assert parse(text) == CAT.cards[action]
            assert format_cards(CAT.cards[action]) == text
            assert CAT.action_from_str(text[::-1].lower()) == action  # any order, any case


@pytest.mark.parametrize(
    "text, bidding, expected",
    [
        ("pass", False, "pass"),
        ("pass", True, "bid pass"),
        ("bid pass", False, "bid pass"),
        ("2", True, "bid 2"),
        ("bid 3", False, "bid 3"),
        ("10 10 10 j j", False, "TTTJJ"),
        ("rb", False, "BR"),
        ("44433", False, "33444"),
    ],
)
def test_action_text_forms(text, bidding, expected):
    assert CAT.action_to_str(CAT.action_from_str(text, bidding=bidding)) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("34", "no shape reads it"),
        ("3X", "bad card character 'X'"),
        ("33333", "too many cards of rank 3"),
        ("BB", "too many cards of rank B"),
        ("", "empty action text"),
        ("bid 4", "bids are"),
        ("JQKA2", "no shape reads it"),
    ],
)
def test_bad_action_text_names_the_problem(text, message):
    with pytest.raises(CatalogError, match=message) as err:
        CAT.action_from_str(text)
    assert isinstance(err.value, ValueError)


def test_card_parse_errors_are_value_errors():
    with pytest.raises(CardParseError, match="bad card character '1'"):
        parse("1")
    with pytest.raises(TypeError, match="got 33"):
        parse(33)


def test_action_ids_outside_the_catalog_are_refused():
    for bad in (-1, CAT.num_actions):
        with pytest.raises(ValueError, match="outside the catalog"):
            CAT.action_to_str(bad)


def test_action_features_table():
    feats = CAT.action_features()
    assert feats.shape == (CAT.num_actions, ACTION_FEATURES.size)
    assert feats.dtype == np.float32 and not feats.flags.writeable
    assert feats.min() >= 0.0 and feats.max() <= 1.0
    cols = ACTION_FEATURES.split(feats)
    # every action has exactly one of: a kind, pass, a bid
    kinds = cols["kind"].sum(1) + cols["pass"].sum(1) + cols["bid"].sum(1)
    assert np.all(kinds == 1)
    airplane = CAT.action_from_str("333444555666")
    np.testing.assert_allclose(cols["counts"][airplane][:4], 0.75)  # three of each of 3,4,5,6
    assert cols["kind"][airplane][Kind.AIRPLANE] == 1
    assert cols["cards"][airplane] == pytest.approx(12 / 20)
    assert cols["bid"][CAT.bid_action(2)][2] == 1


def test_play_values_paste_back():
    from climbrl.envs.doudizhu.catalog import Play, Reading  # noqa: F401 (used by eval)

    play = Play.parse("666555444333")
    assert repr(play) == "Play.parse('333444555666')" and eval(repr(play)) == play
    assert eval(repr(play.readings[0])) == play.readings[0]
    assert CAT.describe(play.action) == (
        "333444555666 (airplane x4 from 3, airplane_single x3 from 3, airplane_single x3 from 4)"
    )
    with pytest.raises(CatalogError, match="not a play"):
        CAT.play(CAT.PASS)
