"""The Dou Dizhu engine: bidding, redeals, the trick flow, scoring, deal codes, set-up options,
views and observations. Scripted games as data: every move is card text."""

from __future__ import annotations

import numpy as np
import pytest

from climbrl.envs.core.game import IllegalActionError
from climbrl.envs.doudizhu.cards import FULL_DECK, format_cards, parse, size
from climbrl.envs.doudizhu.engine import DealError, DoudizhuConfig, DoudizhuGame, Phase

GAME = DoudizhuGame()
WIN_GAME = DoudizhuGame(DoudizhuConfig(reward="win"))


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def deal_with(landlord_cards: str, kitty: str, game=GAME, landlord=0, bid=1, **extra):
    """A deal where seat ``landlord`` holds ``landlord_cards`` (20, kitty included) and the other
    two seats share the rest of the deck, dealt alternately from the lowest card."""
    rest = format_cards(FULL_DECK - parse(landlord_cards))
    hands = [""] * 3
    hands[landlord] = landlord_cards
    hands[(landlord + 1) % 3] = rest[0::2]
    hands[(landlord + 2) % 3] = rest[1::2]
    options = {"hands": hands, "kitty": kitty, "landlord": landlord, "bid": bid, **extra}
    return game.new_state(rng(), options)


def play(state, *moves: str):
    """Apply each move (card text, ``pass`` or a bid) for the seat to move; return the last
    step's rewards."""
    rewards = None
    for text in moves:
        rewards = state.apply(state.game.action_from_str(text, state))
    return rewards


def legal_texts(state) -> set[str]:
    return {state.game.action_to_str(a) for a in state.legal_actions()}


# -- bidding ---------------------------------------------------------------------------------

def fresh(seed=1, first=0):
    state = GAME.new_state(rng(seed))
    hands = [format_cards(h) for h in state.hands]
    options = {"hands": hands, "kitty": format_cards(state.kitty), "first_bidder": first}
    return GAME.new_state(rng(seed), options)


def test_bid_of_3_ends_bidding_at_once():
    state = fresh(first=1)
    kitty = state.kitty
    hand = state.hands[1]
    play(state, "bid 3")
    assert state.phase == Phase.PLAY
    assert (state.landlord, state.bid, state.current_player) == (1, 3, 1)
    assert state.hands[1] == hand + kitty and size(state.hands[1]) == 20
    assert state.bids == [-1, 3, -1]  # the others never bid


def test_highest_bidder_becomes_landlord():
    state = fresh(first=2)
    play(state, "bid pass", "bid 1", "bid 2")  # seats 2, 0, 1
    assert (state.landlord, state.bid, state.current_player) == (1, 2, 1)
    state = fresh(first=0)
    play(state, "bid 1", "pass", "pass")  # 'pass' means 'bid pass' while bidding
    assert (state.landlord, state.bid) == (0, 1)


def test_a_bid_must_top_the_highest():
    state = fresh(first=0)
    play(state, "bid 2")
    assert legal_texts(state) == {"bid pass", "bid 3"}
    for text in ("bid 1", "bid 2", "33"):
        with pytest.raises(IllegalActionError):
            state.apply(GAME.action_from_str(text, state))


def test_redeal_after_three_passes_continues_the_episode():
    state = fresh(seed=5, first=0)
    code = state.deal_code
    before = (state.hands[:], state.kitty)
    assert play(state, "pass", "pass", "pass") is None
    assert state.phase == Phase.BIDDING and not state.terminal
    assert state.redeals == 1
    assert (state.hands, state.kitty) != before
    assert sorted(size(h) for h in state.hands) == [17, 17, 17] and size(state.kitty) == 3
    assert state.bids == [-1, -1, -1] and state.current_player == state.first_bidder
    # the redeal is drawn from the deal's seed: replaying the code replays it
    replay = GAME.new_state(rng(99), {"deal": code})
    play(replay, "pass", "pass", "pass")
    assert replay.deal_code == state.deal_code


def test_too_many_redeals_end_the_episode_unscored():
    game = DoudizhuGame(DoudizhuConfig(max_redeals=1))
    state = game.new_state(rng(3))
    assert play(state, "pass", "pass", "pass") is None  # redeal 1
    assert play(state, "pass", "pass", "pass") == [0.0, 0.0, 0.0]
    assert state.terminal and state.result["outcome"] == "no bid"
    assert state.returns() == [0.0, 0.0, 0.0]


# -- the trick -------------------------------------------------------------------------------

SPRING_LANDLORD = "3333456789TJQKA222BR"
# the peasants get 445667889TTJQQKAA (seat 1) and 455677899TJJQKKA2 (seat 2)


def test_the_landlord_leads_and_cannot_pass():
    state = deal_with(SPRING_LANDLORD, "2BR")
    assert state.current_player == 0 and state.leading
    assert "pass" not in legal_texts(state)
    with pytest.raises(IllegalActionError, match="must play"):
        play(state, "pass")


def test_passing_never_locks_a_player_out():
    state = deal_with(SPRING_LANDLORD, "2BR")
    play(state, "4", "pass", "5", "6")  # seat 1 passed on this pile...
    assert state.current_player == 1
    play(state, "7")  # ...and may still play on it
    assert state.pile_owner == 1


def test_two_passes_in_a_row_give_the_lead_to_the_last_player():
    state = deal_with(SPRING_LANDLORD, "2BR")
    play(state, "4", "5", "pass", "pass")
    assert state.current_player == 1 and state.leading
    assert state.pile == -1 and state.trick == [-1, -1, -1]
    assert "pass" not in legal_texts(state)
    assert "33" not in legal_texts(state) and "44" in legal_texts(state)  # any shape it holds


def test_a_reply_must_match_type_and_length():
    state = deal_with(SPRING_LANDLORD, "2BR")
    play(state, "45678")
    legal = legal_texts(state)
    assert "pass" in legal and "56789" in legal  # seat 1 holds 5 6 7 8 9
    assert all(len(t) == 5 or t == "pass" for t in legal)  # no bomb, no rocket in this hand


# -- scoring ---------------------------------------------------------------------------------

def test_spring_with_a_bomb_and_the_rocket():
    # Landlord bids 2, plays a chain, a bomb, the rocket and 222; no peasant plays a card.
    state = deal_with(SPRING_LANDLORD, "2BR", bid=2)
    rewards = play(
        state,
        "456789TJQKA", "pass", "pass",
        "3333", "pass", "pass",  # bomb: k = 1
        "BR", "pass", "pass",  # rocket: k = 2
        "222",
    )
    r = state.result
    assert r["spring"] and not r["anti_spring"] and r["bombs"] == 2
    # 10 x bid 2 x 2^2 x spring 2 = 160: the landlord wins 320, each peasant loses 160
    assert r["round_points"] == 160 and r["points"] == [320, -160, -160]
    assert rewards == [32.0, -16.0, -16.0]  # score rewards are points / 10
    assert state.returns() == rewards and state.terminal


def test_anti_spring():
    # Landlord (bid 1) leads one 3 and then passes for good; seat 1 plays out single by single.
    state = deal_with("33334444555566667777", "777", bid=1)
    peasant = format_cards(state.hands[1])
    assert peasant == "8899TTJJQQKKAA22B"
    moves = ["3", peasant[0], "pass", "pass"]
    for card in peasant[1:]:
        moves += [card, "pass", "pass"]
    rewards = play(state, *moves[:-2])
    r = state.result
    assert r["anti_spring"] and not r["spring"] and r["winner"] == 1
    # 10 x 1 x 2^0 x anti-spring 2 = 20: the landlord loses 40, each peasant wins 20
    assert r["points"] == [-40, 20, 20]
    assert rewards == [-4.0, 2.0, 2.0]


def test_no_spring_once_a_peasant_has_played():
    state = deal_with(SPRING_LANDLORD, "2BR", bid=3)
    rewards = play(
        state,
        "4", "5", "pass", "6", "pass", "pass",  # seat 1 played a 5: no spring any more
        "3333", "pass", "pass",
        "789TJQKA", "pass", "pass",
        "BR", "pass", "pass",
        "222", "pass", "pass",
        "5",
    )
    r = state.result
    assert r["winner"] == 0 and not r["spring"] and r["bombs"] == 2
    # 10 x 3 x 2^2 = 120, no spring doubling
    assert r["points"] == [240, -120, -120] and rewards == [24.0, -12.0, -12.0]


def test_win_rewards_by_side():
    state = deal_with(SPRING_LANDLORD, "2BR", game=WIN_GAME, bid=2)
    rewards = play(state, "456789TJQKA", "pass", "pass", "3333", "pass", "pass", "BR", "pass",
                   "pass", "222")
    assert rewards == [1.0, -1.0, -1.0]
    assert state.result["points"] == [320, -160, -160]  # points are reported either way


# -- deal codes and options --------------------------------------------------------------------

def test_deal_code_replays_hands_kitty_and_first_bidder():
    for seed in range(20):
        state = GAME.new_state(rng(seed))
        replay = GAME.new_state(rng(seed + 1000), {"deal": state.deal_code})
        assert replay.hands == state.hands and replay.kitty == state.kitty
        assert replay.first_bidder == state.first_bidder and replay.seed == state.seed
        assert replay.deal_code == state.deal_code


def test_same_rng_seed_same_deal():
    a, b = GAME.new_state(rng(7)), GAME.new_state(rng(7))
    assert a.deal_code == b.deal_code


@pytest.mark.parametrize(
    "code, message",
    [
        ("XYZ-123", "is for 'XYZ'"),
        ("DDZ-", "checksum"),
        ("DDZ-U0", "not base 32"),
        ("nonsense", "not of the form"),
    ],
)
def test_bad_deal_codes(code, message):
    with pytest.raises(ValueError, match=message):
        GAME.new_state(rng(), {"deal": code})


def test_mistyped_deal_code_fails_its_checksum():
    code = GAME.new_state(rng(1)).deal_code
    typo = code[:-3] + ("0" if code[-3] != "0" else "1") + code[-2:]
    with pytest.raises(DealError, match="checksum"):
        GAME.new_state(rng(), {"deal": typo})


HANDS = ["33334444555566667", "7778888999TTTTJJJ", "JQQQQKKKKAAAA2222"]
KITTY = "9BR"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"hands": HANDS}, "needs 'kitty'"),
        ({"hands": HANDS[:2], "kitty": KITTY}, "list of 3 card strings"),
        ({"hands": [HANDS[0] + "X", *HANDS[1:]], "kitty": KITTY},
         r"hands\[0\]: bad card character 'X'"),
        ({"hands": [HANDS[0] + "8", *HANDS[1:]], "kitty": KITTY},
         r"hands\[0\] has 18 cards; a deal gives at most 17"),
        ({"hands": [HANDS[0][:-1] + "2", *HANDS[1:]], "kitty": KITTY},
         r"card '2' is named 5 times \(hands\[0\], hands\[2\]\); the deck has 4"),
        ({"hands": ["B", "B", "3"], "kitty": ""},
         r"card 'B' is named 2 times \(hands\[0\], hands\[1\]\); the deck has 1"),
        ({"hands": ["33", "", "4"], "kitty": ""}, r"hands\[1\] is empty"),
        ({"hands": HANDS, "kitty": "89TJ"}, "kitty has 4 cards; a deal's kitty has 3"),
        ({"hands": HANDS, "kitty": "BRR"}, "kitty: .*too many cards of rank R"),
        ({"hands": HANDS, "kitty": KITTY, "first_bidder": 3}, "'first_bidder' must be 0..2"),
        ({"hands": HANDS, "kitty": KITTY, "landlord": 0}, "go together"),
        ({"hands": HANDS, "kitty": KITTY, "landlord": 0, "bid": 4}, "'bid' must be 1..3"),
        ({"hands": HANDS, "kitty": KITTY, "landlord": 0, "bid": 1}, "must include the kitty"),
        ({"hands": [HANDS[0] + "9BR8", *HANDS[1:]], "landlord": 0, "bid": 1},
         r"hands\[0\] has 21 cards; a deal gives at most 20 \(the landlord's"),
        ({"hands": [HANDS[0] + "9BR", *HANDS[1:]], "kitty": "8BR", "landlord": 0, "bid": 1},
         "must include the kitty"),
        ({"hands": HANDS, "kitty": KITTY, "deal": "DDZ-0"}, "drop"),
        ({"landlord": 1, "bid": 1}, "need 'hands'"),
        ({"hands": 3, "kitty": KITTY}, "list of 3 card strings"),
        ({"hands": HANDS, "kitty": KITTY, "landlord": True, "bid": 1}, "'landlord' must be 0..2"),
    ],
)
def test_bad_options_raise_clear_errors(options, message):
    with pytest.raises(DealError, match=message) as err:
        GAME.new_state(rng(), options)
    assert isinstance(err.value, ValueError)


def test_hands_option_sets_the_deal_and_its_code():
    state = GAME.new_state(rng(), {"hands": HANDS, "kitty": KITTY, "first_bidder": 2})
    assert [format_cards(h) for h in state.hands] == HANDS
    assert format_cards(state.kitty) == "9BR" and state.current_player == 2
    replay = GAME.new_state(rng(), {"deal": state.deal_code})
    assert replay.hands == state.hands and replay.first_bidder == 2


def test_landlord_option_skips_bidding():
    state = GAME.new_state(
        rng(), {"hands": [HANDS[0] + KITTY, *HANDS[1:]], "kitty": KITTY, "landlord": 0, "bid": 2}
    )
    assert state.phase == Phase.PLAY and state.current_player == 0
    assert (state.landlord, state.bid) == (0, 2) and size(state.hands[0]) == 20
    assert GAME.view(state, 1)["kitty"] == "9BR"


def test_unknown_options_are_ignored_with_a_warning():
    with pytest.warns(UserWarning, match="ignored unknown reset option"):
        GAME.new_state(rng(), {"colour": "red"})


# -- clone, views, observations --------------------------------------------------------------

def test_clone_copies_every_field_and_is_independent():
    state = deal_with(SPRING_LANDLORD, "2BR")
    play(state, "4", "5")
    copy = state.clone()
    for name in type(state).__slots__:
        assert getattr(copy, name) == getattr(state, name), name
    play(copy, "pass", "pass")
    assert state.current_player == 2 and state.pile >= 0 and len(state.history) == 2


def test_view_shows_only_what_the_seat_may_see():
    state = fresh(first=0)
    view = state.view(1)
    assert view["hand"] == format_cards(state.hands[1]) and view["kitty"] is None
    assert "legal" not in view and "hands" not in view
    mover = state.view(0)
    assert mover["legal"] == ["bid pass", "bid 1", "bid 2", "bid 3"]
    assert "-> " in mover["advice"]
    play(state, "bid 3")
    view = state.view(1)
    assert view["kitty"] == format_cards(state.kitty) and view["role"] == "peasant"
    assert view["cards_left"] == [20, 17, 17] and view["landlord"] == 0


def test_observation_hides_the_other_hands():
    # Seats 1 and 2 swap a 3 for an A: seat 0 must see exactly the same vector.
    a = ["3456789TJQKA2BR33", "3445566778899TTJJ", "QQQKKKAAA22245689"]
    b = [a[0], a[1].replace("3", "A", 1), a[2].replace("A", "3", 1)]
    kitty = format_cards(FULL_DECK - sum(parse(h) for h in a))
    sa = GAME.new_state(rng(), {"hands": a, "kitty": kitty, "first_bidder": 0})
    sb = GAME.new_state(rng(), {"hands": b, "kitty": kitty, "first_bidder": 0})
    np.testing.assert_array_equal(GAME.observe(sa, 0), GAME.observe(sb, 0))
    assert not np.array_equal(GAME.observe(sa, 1), GAME.observe(sb, 1))


def test_observation_fields():
    state = deal_with(SPRING_LANDLORD, "2BR", bid=2)
    play(state, "4", "5")
    lay = GAME.layout
    obs = lay.split(GAME.observe(state, 2))  # seat 2: relative 1 = landlord (seat 0)
    assert obs["role"].tolist() == [0, 0, 1] and obs["landlord"].tolist() == [0, 1, 0]
    assert obs["phase"].tolist() == [0, 1, 0]
    assert obs["pile_owner"].tolist() == [0, 0, 1]  # seat 1 made the pile
    assert obs["hand"].sum() == 17 and obs["kitty"].sum() == 3
    assert obs["cards_left"].tolist() == pytest.approx([17 / 20, 19 / 20, 16 / 20])
    assert obs["played"][1].sum() == 1 and obs["played"][2].sum() == 1
    assert obs["history_seat"][:2].tolist() == [[0, 0, 1], [0, 1, 0]]  # seat 1, then seat 0
    # unseen: 54 - 17 in hand - 2 played
    assert obs["unseen"].sum() == 54 - 17 - 2
    lo, hi = lay.low_high()
    full = GAME.observe(state, 2)
    assert np.all(full >= lo) and np.all(full <= hi)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"reward": "money"}, ValueError, "reward 'money' is not one of"),
        ({"max_redeals": -1}, ValueError, "max_redeals must be at least 0, got -1"),
        ({"history_length": 0}, ValueError, r"history_length must be 1\.\.\d+, got 0"),
        ({"history_length": 10**6}, ValueError, r"history_length must be 1\.\.\d+"),
        ({"base_points": 2.5}, TypeError, "base_points must be an integer, got 2.5"),
        ({"max_redeals": True}, TypeError, "max_redeals must be an integer, got True"),
    ],
)
def test_config_validation(kwargs, error, message):
    with pytest.raises(error, match=message):
        DoudizhuConfig(**kwargs)


def test_config_dict_and_history_length_shape_the_layout():
    game = DoudizhuGame(DoudizhuConfig(history_length=4))
    assert game.config_dict() == {"game": "doudizhu", "version": 1, "reward": "score",
                                  "base_points": 10, "max_redeals": 16, "history_length": 4,
                                  "players": 3, "bidding": "bid", "open_hand": False,
                                  "laizi": False}
    assert game.layout.fields["history"] == (4, 15, 4)
    state = game.new_state(rng(0))
    while not state.terminal:
        state.apply(state.legal_actions()[-1])
        assert game.observe(state, 0).shape == (game.layout.size,)


def test_every_view_key_is_documented():
    doc = DoudizhuGame.view.__doc__
    rng_ = rng(8)
    state = GAME.new_state(rng_)
    keys = set()
    while True:
        for seat in range(3):
            keys |= set(state.view(seat))
        if state.terminal:
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng_.integers(len(legal)))])
    assert {"advice", "legal", "result", "hands"} <= keys
    for key in keys:
        assert f"``{key}``" in doc, key
