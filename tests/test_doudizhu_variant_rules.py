"""Rule cases of the Dou Dizhu variants as data, each with its reasoning in a comment (the
rulings of docs/rules.md, Dou Dizhu: Variants)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.doudizhu import DoudizhuConfig, DoudizhuGame, Phase
from envs.doudizhu.cards import format_cards, parse, size

ROB = DoudizhuGame(DoudizhuConfig(bidding="rob"))


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def deal(game, first: int, hands=None, kitty=None, seed: int = 1):
    """A deal of ``game`` with ``first`` as first bidder (random cards unless given)."""
    if hands is None:
        state = game.new_state(rng(seed))
        hands = [format_cards(h) for h in state.hands]
        kitty = format_cards(state.kitty)
    return game.new_state(rng(seed), {"hands": hands, "kitty": kitty, "first_bidder": first})


def play(state, *moves: str):
    rewards = None
    for text in moves:
        rewards = state.apply(state.game.action_from_str(text, state))
    return rewards


# -- rob the landlord -----------------------------------------------------------------------

ROB_CASES = [
    # (first bidder, moves in turn, landlord (None: redeal), robs)
    (0, ["call", "pass", "pass"], 0, 0),  # nobody robs: the caller is landlord at bid 1
    (0, ["call", "rob", "pass", "pass"], 1, 1),  # 1 robs, 2 passes, caller 0 does not rob back
    (0, ["call", "rob", "rob", "pass"], 2, 2),  # the last to rob takes it: x4
    (0, ["call", "rob", "rob", "rob"], 0, 3),  # the caller robs back after two robs: x8
    (0, ["call", "pass", "rob", "rob"], 0, 2),  # 2 robs, the caller robs back
    (1, ["pass", "call", "rob", "pass"], 0, 1),  # 1 passed the call; 0 has not spoken: it robs
    (1, ["pass", "call", "pass"], 2, 0),  # 1 passed the call, so it may not rob: 2 keeps it
    (1, ["pass", "pass", "call"], 0, 0),  # the last seat calls: nobody is left to rob
    (2, ["pass", "pass", "pass"], None, 0),  # nobody calls: the cards are dealt again
]


@pytest.mark.parametrize("first, moves, landlord, robs", ROB_CASES)
def test_rob_bidding(first, moves, landlord, robs):
    state = deal(ROB, first)
    seats = []
    for text in moves:
        seats.append(state.current_player)
        play(state, text)
    # the first turns go round in seat order; only the caller speaks a second time
    caller = next((s for s, m in zip(seats, moves) if m == "call"), None)
    assert seats[:3] == [(first + i) % 3 for i in range(min(3, len(moves)))]
    assert seats[3:] == ([caller] if len(moves) > 3 else [])
    if landlord is None:
        assert state.phase == Phase.BIDDING and state.redeals == 1
        return
    assert state.phase == Phase.PLAY and (state.landlord, state.robs) == (landlord, robs)
    assert state.bid == 1 and state.current_player == landlord
    assert state.multiplier == 2 ** robs


@pytest.mark.parametrize("first, moves, wrong", [
    (0, [], "rob"),  # nobody has called yet: 'rob' is not a move
    (0, ["call"], "call"),  # once one seat called, the others rob or pass
    (0, ["call"], "bid 2"),  # no numbered bids in the rob bidding
    (0, ["call", "rob", "pass"], "call"),  # the caller's last turn is rob back or pass
])
def test_rob_bidding_refuses(first, moves, wrong):
    state = deal(ROB, first)
    play(state, *moves)
    with pytest.raises((IllegalActionError, ValueError)):
        play(state, wrong)


def test_robs_double_the_score():
    # Seat 0 calls, 1 and 2 rob, 0 robs back (3 robs); the landlord then plays a spring with a
    # bomb and the rocket: 10 x bid 1 x 2^(3 robs + 2 bombs) x spring 2 = 640 points; the
    # landlord wins 1280, each peasant loses 640.
    landlord = "3333456789TJQKA222BR"
    rest = format_cards(ROB.setup.full_deck - parse(landlord))
    hands = [format_cards(parse(landlord) - parse("2BR")), rest[0::2], rest[1::2]]
    state = deal(ROB, 0, hands, "2BR")
    play(state, "call", "rob", "rob", "rob")
    rewards = play(state, "456789TJQKA", "pass", "pass", "3333", "pass", "pass",
                   "BR", "pass", "pass", "222")
    r = state.result
    assert (r["robs"], r["bombs"], r["spring"]) == (3, 2, True)
    assert r["round_points"] == 640 and r["points"] == [1280, -640, -640]
    assert rewards == [128.0, -64.0, -64.0]


# -- open hand --------------------------------------------------------------------------------

OPEN = DoudizhuGame(DoudizhuConfig(open_hand=True))
SPRING_LANDLORD = "3333456789TJQKA222BR"


def open_deal(bid: int = 1, game=OPEN):
    """Seat 0 is landlord (bid skipped) with SPRING_LANDLORD; the others share the rest."""
    rest = format_cards(game.setup.full_deck - parse(SPRING_LANDLORD))
    hands = [SPRING_LANDLORD, rest[0::2], rest[1::2]]
    return game.new_state(rng(), {"hands": hands, "kitty": "2BR", "landlord": 0, "bid": bid})


def test_the_open_hand_landlord_first_chooses_to_show_or_not():
    state = open_deal()
    # the landlord holds the kitty but may not lead yet: it shows its hand or keeps it hidden
    assert state.phase == Phase.SHOW and state.current_player == 0
    assert {OPEN.action_to_str(a) for a in state.legal_actions()} == {"show", "hide"}
    with pytest.raises(IllegalActionError, match="show"):
        play(state, "3333")
    assert [state.view(s)["shown_hand"] for s in range(3)] == [None] * 3
    play(state, "show")
    # shown: every seat sees the landlord's cards, and the round doubles
    assert state.phase == Phase.PLAY and state.leading and state.multiplier == 2
    assert all(state.view(s)["shown_hand"] == SPRING_LANDLORD for s in range(3))
    obs = OPEN.layout.split(OPEN.observe(state, 1))
    assert obs["shown"][0] == 1 and obs["shown_hand"].sum() == 20
    play(state, "3333")  # the shown hand is the landlord's cards left
    assert state.view(2)["shown_hand"] == "456789TJQKA222BR"


def test_a_hidden_hand_stays_hidden():
    state = open_deal()
    play(state, "hide", "3333")
    assert state.multiplier == 2  # the bomb's doubling only
    assert all(state.view(s)["shown_hand"] is None for s in range(3))
    assert OPEN.layout.split(OPEN.observe(state, 1))["shown_hand"].sum() == 0


def test_showing_doubles_the_score():
    # bid 2, shown, a bomb and the rocket, a spring: 10 x 2 x 2 (shown) x 2^2 x 2 = 320 points;
    # the landlord wins 640, each peasant loses 320. The choice is not a play: the spring holds.
    state = open_deal(bid=2)
    rewards = play(state, "show", "456789TJQKA", "pass", "pass", "3333", "pass", "pass",
                   "BR", "pass", "pass", "222")
    r = state.result
    assert (r["shown"], r["bombs"], r["spring"]) == (True, 2, True)
    assert r["round_points"] == 320 and r["points"] == [640, -320, -320]
    assert rewards == [64.0, -32.0, -32.0]


def test_open_hand_with_the_rob_bidding():
    # the caller robs back, then shows: 2 robs and the hand shown double the round thrice
    game = DoudizhuGame(DoudizhuConfig(bidding="rob", open_hand=True))
    state = deal(game, 0)
    play(state, "call", "rob", "pass", "rob")
    assert state.phase == Phase.SHOW and state.current_player == 0 and state.robs == 2
    play(state, "show")
    assert state.multiplier == 8 and state.phase == Phase.PLAY


# -- four players -----------------------------------------------------------------------------

FOUR = DoudizhuGame(DoudizhuConfig(players=4))
FOUR_CAT = FOUR.catalog

FOUR_CASES = [
    # (hand, pile, play, legal) in the two-pack game (8 of each number, 2 of each joker)
    ("55555", "AAAA", "55555", True),  # a bomb of more cards beats one of fewer
    ("33333", "2222", "33333", True),  # ... whatever their ranks
    ("2222", "33333", "2222", False),
    ("66666", "55555", "66666", True),  # as many cards: the higher rank
    ("555555", "AAAAA", "555555", True),
    ("33333333", "2222222", "33333333", True),  # eight of a rank: the biggest bomb
    ("BBRR", "22222222", "BBRR", True),  # the rocket is all four jokers, above every bomb
    ("2222222", "BBRR", "2222222", False),  # nothing beats it
    ("BR", None, "BR", False),  # the two jokers of one pack are no rocket any more, nor a pair
    ("BBR", None, "BBR", False),
    ("BB", "22", "BB", True),  # two black jokers are a pair, above the 2s
    ("RR", "BB", "RR", True),
    ("333BB", None, "333BB", True),  # a joker pair may be a pair kicker
    ("333444BBRR", None, "333444BBRR", False),  # but the kickers never hold the rocket
    ("333444BR", None, "333444BR", True),  # B and R as two single kickers: fine
    ("6666BR", None, "6666BR", True),  # four with two singles: B and R
    ("66666", "5555", "66666", True),
    ("6666633", None, "6666633", False),  # five of a rank with a pair: no shape
    ("3344556677889TTJJQQKKAA", None, "3344556677889TTJJQQKKAA", False),  # a 9 is missing
    ("33445566778899TTJJQQKKAA", None, "33445566778899TTJJQQKKAA", True),  # twelve pairs
    ("3334445556667778889TTTJJJQQQKKK", None, "3334445556667778889TTTJJJQQQKKK", False),
    ("333444555666777888999TTTJJJQQQKKK", None, "333444555666777888999TTTJJJQQQKKK", True),
]


@pytest.mark.parametrize("hand, pile, play, legal", FOUR_CASES,
                         ids=[f"{c[2]}/{c[1]}" for c in FOUR_CASES])
def test_four_player_rule_case(hand, pile, play, legal):
    hand_cards = FOUR.setup.parse(hand)
    try:
        action = FOUR_CAT.action_from_str(play)
    except ValueError:
        assert not legal, f"{play} should be a legal play but no shape reads it"
        return
    if pile is None:
        assert (action in FOUR.moves.lead(hand_cards)) == legal
        return
    pile_action = FOUR_CAT.action_from_str(pile)
    assert (action in FOUR.moves.replies(hand_cards, pile_action)) == legal
    assert FOUR_CAT.beats(action, pile_action) == legal


def test_four_players_deal_score_and_codes():
    # 108 cards: 25 to each of four seats, 8 in the kitty; the landlord holds 33
    state = FOUR.new_state(rng(4))
    assert [size(h) for h in state.hands] == [25] * 4
    assert size(state.kitty) == 8 and state.deal_code.startswith("DDZ4-")
    with pytest.raises(ValueError, match="'DDZ'.*'DDZ4'"):
        FOUR.new_state(rng(), {"deal": DoudizhuGame().new_state(rng()).deal_code})
    # seat 2 bids 3 and takes the kitty; every seat plays in turn; then the landlord wins:
    # 10 x 3 = 30 a peasant, three times that for the landlord (one against three)
    play(state, *["pass"] * ((2 - state.first_bidder) % 4), "bid 3")
    assert state.landlord == 2 and size(state.hands[2]) == 33
    while not state.terminal:
        state.apply(state.legal_actions()[-1] if state.current_player == 2
                    else FOUR_CAT.PASS if state.pile >= 0 else state.legal_actions()[0])
    r = state.result
    sign = 1 if r["outcome"] == "landlord" else -1
    assert r["points"][2] == -3 * r["points"][0] == 3 * sign * r["round_points"]
    assert sum(r["points"]) == 0
