"""Rule cases of the Dou Dizhu variants as data, each with its reasoning in a comment (the
rulings of docs/rules.md, Dou Dizhu: Variants)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from climbrl.envs.core.game import IllegalActionError
from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame, Phase, laizi
from climbrl.envs.doudizhu.cards import RANKS, UNIT, counts, format_cards, parse, size

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


# -- laizi ------------------------------------------------------------------------------------

LAIZI = DoudizhuGame(DoudizhuConfig(laizi=True))
WILD_MOVES = LAIZI.wild_moves
LAIZI_CAT = LAIZI.catalog

LAIZI_CASES = [
    # (hand, wild rank, pile's hand, pile, play, legal); the pile's hand says which cards made it
    ("3377", "7", None, None, "3333", True),  # two wild 7s stand in for two 3s: a soft bomb
    ("3377", "7", None, None, "7777", False),  # only two 7s
    ("7777", "7", None, None, "7777", True),  # the four wild cards: the wild bomb
    ("337", "7", None, None, "333", True),
    ("37", "7", None, None, "33", True),
    ("37", "7", None, None, "BR", False),  # a wild card never stands in for a joker
    ("B7", "7", None, None, "BR", False),
    ("345677", "7", None, None, "345678", True),  # one 7 is itself, the other the 8
    ("3456TJ77", "7", None, None, "3456789TJ", False),  # a 7, an 8 and a 9 lack: 3 > 2 wilds
    ("33344477", "7", None, None, "33344455", True),  # the wilds as the kickers 5, 5
    ("A7", "7", "KK", "KK", "AA", True),  # a wild card makes up the pair
    ("6677", "7", "5555", "5555", "6666", False),  # a soft bomb is below every hard bomb
    ("6677", "7", "5577", "5555", "6666", True),  # soft against soft: the rank decides
    ("3333", "7", "5577", "5555", "3333", True),  # hard beats soft, whatever the ranks
    ("7777", "7", "2222", "2222", "7777", True),  # the wild bomb beats every hard bomb
    ("BR", "7", "7777", "7777", "BR", True),  # and the rocket beats the wild bomb
    ("3377", "7", "22", "22", "3333", True),  # a soft bomb still beats any other play
    ("55557", "7", "4444", "4444", "5555", True),  # played hard: the hand holds four 5s
]


@pytest.mark.parametrize("hand, wild, pile_hand, pile, play, legal", LAIZI_CASES,
                         ids=[f"{c[4]}/{c[3]}/wild{c[1]}" for c in LAIZI_CASES])
def test_laizi_rule_case(hand, wild, pile_hand, pile, play, legal):
    w = RANKS.index(wild)
    cards = parse(hand)
    action = LAIZI_CAT.action_from_str(play)
    if pile is None:
        assert (action in WILD_MOVES.lead(cards, w)) == legal
        return
    pile_action = LAIZI_CAT.action_from_str(pile)
    subs = laizi.substitutes(parse(pile_hand), w, parse(pile))
    power = laizi.bomb_tier(LAIZI_CAT, pile_action, w, subs)
    assert (action in WILD_MOVES.replies(cards, w, pile_action, power)) == legal


@pytest.mark.parametrize("hand, play, given", [
    ("3377", "3333", "3377"),  # the two 3s, then two wild cards
    ("55557", "5", "5"),  # the hand's own 5 goes first (the wild card stays)
    ("345677", "345678", "345677"),
    ("33344477", "33344455", "33344477"),
])
def test_laizi_takes_the_hands_own_cards_first(hand, play, given):
    assert laizi.taken(parse(hand), RANKS.index("7"), parse(play)) == parse(given)


def test_laizi_plays_are_those_of_the_wild_cards_standing_for_any_rank():
    """Independently of the scan: the plays a hand can lead are those the ordinary generator
    finds in some hand where each wild card became a card of some rank 3..2."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        state = LAIZI.new_state(rng)
        wild = state.wild
        hand = state.hands[0]
        natural = list(counts(hand))
        wilds = natural[wild]
        natural[wild] = 0
        if wilds > 2:
            continue
        union = set()
        for ranks in itertools.combinations_with_replacement(range(13), wilds):
            virtual = natural[:]
            for r in ranks:
                virtual[r] += 1
            if max(virtual) <= 4:
                union |= set(LAIZI.moves.lead(sum(c * UNIT[r] for r, c in enumerate(virtual))))
        assert set(WILD_MOVES.lead(hand, wild)) == union


def test_laizi_deals_show_and_carry_the_wild_rank():
    base = LAIZI.new_state(rng(3))
    options = {"hands": [format_cards(h) for h in base.hands], "kitty": format_cards(base.kitty),
               "wild": "9"}  # set-up positions name the wild rank
    state = LAIZI.new_state(rng(), options)
    assert state.wild == RANKS.index("9")
    assert all(state.view(s)["wild"] == "9" for s in range(3))
    obs = LAIZI.layout.split(LAIZI.observe(state, 1))
    assert obs["wild"].argmax() == RANKS.index("9") and obs["wild"].sum() == 1
    replay = LAIZI.new_state(rng(8), {"deal": state.deal_code})
    assert replay.wild == state.wild  # the deal code carries it
    with pytest.raises(ValueError, match="wild"):
        LAIZI.new_state(rng(), {**options, "wild": "B"})
    with pytest.raises(ValueError, match="laizi"):
        DoudizhuGame().new_state(rng(), options)
    with pytest.raises(ValueError, match="three players"):
        DoudizhuConfig(laizi=True, players=4)


def test_a_soft_bomb_shows_its_wild_cards_and_doubles():
    # wild 7: seat 0 (landlord) plays 3377 as 3333, a soft bomb: two wild cards stand in
    landlord = "33778899TTJJQQKKA"
    rest = format_cards(LAIZI.setup.full_deck - parse(landlord) - parse("2BR"))
    state = LAIZI.new_state(rng(), {
        "hands": [landlord + "2BR", rest[0::2], rest[1::2]], "kitty": "2BR",
        "landlord": 0, "bid": 1, "wild": "7"})
    play(state, "3333")
    assert state.pile_subs == 2 and state.bombs == 1 and state.multiplier == 2
    view = state.view(1)
    assert view["pile"] == "3333" and view["pile_wilds"] == 2
    assert view["played"][0] == "3377"  # the cards as they are
    assert LAIZI.layout.split(LAIZI.observe(state, 1))["pile_wilds"][0] == 0.5
