"""Dou Dizhu endgames: set-up positions that name only the cards left (cards named nowhere
are out of play, as in Daifugo), written as data, played to the end by the engine and
through the env, whose observations and masks stay consistent. (Regression: a set-up needed
the whole deck, "hands[1] has 16 cards, not 17", so no endgame could be set up.)"""

from __future__ import annotations

import numpy as np
import pytest

from climbrl.envs import doudizhu_v1
from climbrl.envs.doudizhu import make_game
from climbrl.envs.doudizhu.cards import format_cards, size

SEEDS = range(3)
"""random lines of play per endgame"""

ENDGAMES = {
    # name: (players, reset options, a line of play, what its result says)
    "landlord-pair-goes-out": (
        3, {"hands": ["33", "4", "5"], "landlord": 0, "bid": 1},
        ["33"], {"winner": 0, "spring": False, "points": [20, -10, -10]}),
    "peasant-bomb-goes-out": (
        3, {"hands": ["34", "2222", "55"], "landlord": 0, "bid": 2},
        ["3", "2222"], {"winner": 1, "bombs": 1, "anti_spring": False,
                        "points": [-80, 40, 40]}),
    "peasant-tops-the-lead-and-goes-out": (
        3, {"hands": ["2", "3A", "KK"], "landlord": 1, "bid": 3},
        ["3", "pass", "2"], {"winner": 0, "points": [30, -60, 30]}),
    "landlord-with-the-kitty-still-in-hand": (
        3, {"hands": ["3BR", "44", "55"], "kitty": "BR", "landlord": 0, "bid": 1},
        ["BR", "pass", "pass", "3"], {"winner": 0, "bombs": 1}),
    "bidding-over-a-short-deal": (
        3, {"hands": ["345", "678", "9TJ"], "kitty": "Q", "first_bidder": 0},
        None, {}),
    "four-players-two-decks": (
        4, {"hands": ["3333", "44", "5", "6"], "landlord": 0, "bid": 1},
        ["3333"], {"winner": 0}),
}


def _game(players: int):
    return make_game("doudizhu", players)


def _cards_in_play(state) -> int:
    return sum(state.hands) + sum(state.played) + (0 if state.landlord >= 0 else state.kitty)


@pytest.mark.parametrize("name", [n for n, case in ENDGAMES.items() if case[2] is not None])
def test_an_endgame_plays_its_line_to_the_end(name):
    players, options, line, result = ENDGAMES[name]
    game = _game(players)
    state = game.new_state(np.random.default_rng(0), options)
    assert [format_cards(h) for h in state.hands][:1] == [options["hands"][0]]
    for move in line:
        assert not state.terminal
        state.apply(game.action_from_str(move, state))
    assert state.terminal
    assert {key: state.result[key] for key in result} == result
    assert state.result["deal"] is None  # no deal code says "out of play"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ENDGAMES)
def test_an_endgame_through_the_env_keeps_observation_and_mask_consistent(name, seed):
    players, options, _, _ = ENDGAMES[name]
    env = doudizhu_v1.env(players=players)
    env.reset(seed=seed, options=options)
    raw = env.unwrapped
    game, state = raw.game, raw.game_state
    in_play = _cards_in_play(state)
    named = sum(game.setup.parse(h) for h in options["hands"])
    assert state.out == game.setup.full_deck - named - (
        0 if "landlord" in options else game.setup.parse(options["kitty"]))
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter(max_iter=game.max_game_length + players):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = raw.game_state
        seat = raw.possible_agents.index(agent)
        legal = state.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)
        assert raw.observation_space(agent)["observation"].contains(obs["observation"])
        view = game.view(state, seat)
        unseen = game.setup.parse(view["unseen"])
        # the unseen cards are the others' (and the kitty before it is shown), never the out
        others = sum(h for s, h in enumerate(state.hands) if s != seat)
        assert unseen == others + (state.kitty if state.landlord < 0 else 0)
        assert _cards_in_play(state) == in_play or state.redeals  # a redeal deals anew
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    assert all(env.terminations.get(a, True) for a in raw.possible_agents)
    assert steps >= 1


def test_an_endgame_state_clones_and_rebuilds_from_a_view():
    game = _game(3)
    state = game.new_state(np.random.default_rng(0), ENDGAMES["peasant-tops-the-lead-and-goes-out"][1])
    twin = state.clone()
    assert twin.out == state.out and twin.hands == state.hands
    view = game.view(state, 0)
    rebuilt = game.from_view(view, state.hands)
    assert rebuilt.out == state.out
    assert game.observe(rebuilt, 0).tolist() == game.observe(state, 0).tolist()
    assert size(state.out) == game.setup.deck_size - 5
    with pytest.raises(ValueError, match="no deal code"):
        state.deal_code
    assert "set-up position" in game.render(state)
