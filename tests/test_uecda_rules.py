"""The UECda standard rules (``Rules.preset("uecda")``): the position cases of
``uecda_cases.py`` and the rules of a match (deal, exchange blocks, reseating, leader)."""

from __future__ import annotations

import numpy as np
import pytest

from daifugo_helpers import game_for, position
from test_daifugo_rules import check_case
from uecda_cases import UECDA_CASES
from climbrl.envs.daifugo import PHASE_EXCHANGE, PHASE_PLAY, DaifugoGame, Rules

CASES = [{**case, "preset": "uecda"} for case in UECDA_CASES]
PLAYERS = 5
#: a hand of the deal: 53 cards over five seats, the first three dealt get one more
BIG, SMALL = 11, 10


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_uecda_case(case):
    check_case(case)


def test_preset_is_the_standard_configuration():
    rules = Rules.preset("uecda")
    assert (rules.players, rules.decks, rules.jokers, rules.jokers_wild) == (5, 1, 1, True)
    assert rules.points == (5, 4, 3, 2, 1) and rules.exchange == (2, 1)
    assert rules.titles == ("Grand Millionaire", "Millionaire", "Commoner", "Poor", "Very Poor")
    assert not (rules.jack_back or rules.fall_of_capital or rules.illegal_finish)
    assert (rules.class_block, rules.reseat_every, rules.stall_passes) == (100, 3, 20)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_preset_refuses_other_tables(players):
    with pytest.raises(ValueError, match="uecda preset is for 5 players"):
        Rules.preset("uecda", players)


@pytest.mark.parametrize("option, value, message", [
    ("stall_passes", 0, "lead_pass needs stall_passes"),
    ("stall_passes", 3, "at least the players"),
    ("run_revolution", 2, "run_revolution must be 0"),
    ("reseat_every", -1, "reseat_every must be 0"),
    ("rounds", 1001, "rounds must be 1..1000"),
])
def test_bad_uecda_options_are_refused(option, value, message):
    with pytest.raises(ValueError, match=message):
        Rules.preset("uecda", **{option: value})


def test_long_matches_only_for_uecda():
    assert Rules.preset("uecda", rounds=1000).rounds == 1000
    with pytest.raises(ValueError, match="rounds must be 1..20"):
        Rules.preset("daifugo", rounds=100)


def play_rounds(game: DaifugoGame, seed: int):
    """A random match; yields the state at the start of each round (before any move)."""
    rng = np.random.default_rng(seed)
    state = game.new_state(rng)
    yield state.clone()
    while not state.terminal:
        legal = state.legal_actions()
        if state.apply(legal[rng.integers(len(legal))]) is not None and not state.terminal:
            yield state.clone()


def test_deal_11_11_11_10_10_from_the_top_class():
    """Each round after the first deals in turn order from the top class: it and the next two
    seats get 11 cards, the last two 10 (before the exchange)."""
    game = game_for("uecda", PLAYERS, (("rounds", 4),))
    for seed in range(3):
        for start in list(play_rounds(game, seed))[1:]:
            order = start.order
            top = start.titles.index(0)
            for k in range(PLAYERS):
                seat = order[(order.index(top) + k) % PLAYERS]
                assert start.deal_hands[seat].bit_count() == (BIG if k < 3 else SMALL)


def test_first_round_deals_11_11_11_10_10_in_turn_order():
    game = game_for("uecda", PLAYERS, (("rounds", 1),))
    for seed in range(5):
        start = game.new_state(np.random.default_rng(seed))
        sizes = [start.hands[s].bit_count() for s in start.order]
        dealt = [BIG, BIG, BIG, SMALL, SMALL]
        assert any(sizes[k:] + sizes[:k] == dealt for k in range(PLAYERS)), sizes


def test_diamond_three_leads_every_round():
    game = game_for("uecda", PLAYERS, (("rounds", 5),))
    for start in play_rounds(game, 1):
        if start.phase == PHASE_PLAY:
            assert start.hands[start.current_player] & game.diamond_three_bit


def test_reseat_every_three_rounds():
    """The turn order is drawn at rounds 1, 4, 7 (0-based 0, 3, 6) and kept in between."""
    game = game_for("uecda", PLAYERS, (("rounds", 7),))
    changed = 0
    for seed in range(4):
        orders = [start.order for start in play_rounds(game, seed)]
        assert orders[0] == orders[1] == orders[2]
        assert orders[3] == orders[4] == orders[5]
        assert orders[3] == game.seat_order(seed_of(game, seed), 3)
        changed += orders[3] != orders[0]
    assert changed, "the order was never drawn anew"


def seed_of(game, seed: int) -> int:
    return game.new_state(np.random.default_rng(seed)).seed


def test_reseat_off_keeps_index_order():
    game = game_for("uecda", PLAYERS, (("reseat_every", 0), ("rounds", 4)))
    assert {start.order for start in play_rounds(game, 2)} == {tuple(range(PLAYERS))}


def test_no_exchange_in_a_class_blocks_first_round():
    """class_block=2: rounds 0 and 2 open a block (no exchange), rounds 1 and 3 exchange."""
    game = game_for("uecda", PLAYERS, (("class_block", 2), ("rounds", 4)))
    starts = list(play_rounds(game, 3))
    assert [s.phase == PHASE_EXCHANGE for s in starts] == [False, True, False, True]
    assert not any(starts[2].received)


def test_class_blocks_first_round_deals_from_a_random_seat():
    """A block's first round is not dealt from the top class (drawn; over seeds, some other
    seat is dealt first)."""
    game = game_for("uecda", PLAYERS, (("class_block", 2), ("rounds", 3)))
    elsewhere = 0
    for seed in range(8):
        start = list(play_rounds(game, seed))[2]
        top = start.titles.index(0)
        order = start.order
        seat_after_top = order[(order.index(top) + 3) % PLAYERS]
        elsewhere += start.deal_hands[seat_after_top].bit_count() == BIG
    assert elsewhere


def test_stall_guard_replays_alike():
    """The stall guard's random places come from the match seed: a replay places alike."""
    case = {**next(c for c in CASES if c["name"] == "stall_guard_after_20_passes")}
    _, a = position(case)
    _, b = position(case)
    assert a.titles == b.titles and sorted(a.titles) == list(range(PLAYERS))


def test_lead_pass_only_where_switched_on():
    game = game_for("daifugo", 4)
    state = game.new_state(np.random.default_rng(0))
    assert game.catalog.pass_id not in state.legal_actions()


@pytest.mark.parametrize("name", ["scripted-easy", "scripted-medium"])
def test_scripted_bots_play_the_preset(name):
    """The Daifugo bots play a UECda match to its end with legal moves only (the env ends a
    match early on a masked move)."""
    from climbrl import policies
    from climbrl.envs import uecda_v1

    rounds = 2
    env = uecda_v1.env(rounds=rounds)
    env.reset(seed=4)
    players = {}
    for i, agent in enumerate(env.possible_agents):
        players[agent] = policies.load("daifugo", name, seed=i)
        players[agent].bind(env.unwrapped.game)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = players[agent].act(obs, env.unwrapped.view(env.possible_agents.index(agent)))
        assert obs["action_mask"][action], f"{name} chose a masked move"
        env.step(action)
    state = env.unwrapped.game_state
    assert state.terminal and sum(state.scores) == rounds * sum(Rules.preset("uecda").points)


@pytest.mark.parametrize("key", Rules.UECDA_FIELDS)
def test_training_tables_cannot_vary_the_unobserved_uecda_rules(key):
    """The uecda preset's own rules are not in the observation, so a training table that
    varied them would change the game unseen: the trainer's table keys leave them out."""
    from climbrl.training.tables import Tables

    with pytest.raises(ValueError, match="unknown key"):
        Tables._distribution(key, [0, 1], DaifugoGame.rule_fields())
