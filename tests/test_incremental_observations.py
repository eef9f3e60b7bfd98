"""The env's incremental observations (per-seat buffers rewritten only where the state
changed, masks from one preallocated buffer) against the from-scratch writer, step by step,
over random games of every preset (UECda's turn order redrawn included), player count and
variant; the agents observed are drawn
at random each step (sometimes none, sometimes all), so a seat's buffer catches up over
many steps as it does in play. Plus: an observation kept is never changed by later steps,
and the Daifugo action catalog is shared by the envs of the same rules."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
from doudizhu_variants import VARIANTS
from test_observation_oracle import DAIFUGO_TABLES

from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1, uecda_v1
from climbrl.envs.daifugo import compiled
from climbrl.envs.daifugo.rules import PRESET_PLAYERS

GAMES = 2
"""random games per table or variant"""
SHORT_HISTORIES = (1, 2, 4)
UECDA_ROUNDS = 7
"""UECda matches long enough for an exchange and a reseating (every 3 rounds)"""
"""Dou Dizhu histories shorter than the plays between two looks of a seat (written whole)"""
PILES_BEFORE_COPY = 3
"""steps ending on a pile, every seat observed, before a game is pickled and copied"""
STEPS_AFTER_COPY = 40
"""steps the original and its copies then play side by side"""
MODULES = {"daifugo": daifugo_v1, "president": president_v1}


def tables():
    for preset, switches in DAIFUGO_TABLES:
        for players in PRESET_PLAYERS[preset]:
            options = {"players": players, **switches}
            yield f"{preset} {players}p {switches}", MODULES[preset], options
    yield "uecda", uecda_v1, {"rounds": UECDA_ROUNDS}
    for name, options in VARIANTS.items():
        yield f"doudizhu {name}", doudizhu_v1, options
    for length in SHORT_HISTORIES:
        yield f"doudizhu history {length}", doudizhu_v1, {"history_length": length}


def make(module, options):
    try:
        return module.env(**options)
    except ValueError:
        pytest.skip("a switch this table cannot have")


def scratch(raw, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The observation and mask written from scratch (the engine's writer, a new mask)."""
    state = raw.game_state
    mask = np.zeros(raw.game.num_actions, np.int8)
    if seat == state.current_player and not state.terminal:
        mask[state.legal_actions()] = 1
    return raw.game.observe(state, seat), mask


@pytest.mark.parametrize("name, module, options", list(tables()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_incremental_matches_scratch_every_step(name, module, options):
    env = make(module, options)
    raw = env.unwrapped
    pick = random.Random(name)
    steps = 0
    for game in range(GAMES):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            seats = [s for s in range(raw.game.num_players) if pick.random() < 0.3]
            for seat in pick.sample(seats, len(seats)):
                got = env.observe(raw.possible_agents[seat])
                want_obs, want_mask = scratch(raw, seat)
                np.testing.assert_array_equal(got["observation"], want_obs,
                                              err_msg=f"{name} step {steps} seat {seat}")
                np.testing.assert_array_equal(got["action_mask"], want_mask)
            obs, _reward, term, trunc, _info = env.last()
            want_obs, want_mask = scratch(raw, raw.possible_agents.index(raw.agent_selection))
            np.testing.assert_array_equal(obs["observation"], want_obs)
            np.testing.assert_array_equal(obs["action_mask"], want_mask)
            if term or trunc:
                env.step(None)
                continue
            legal = env.legal_actions()
            env.step(legal[pick.randrange(len(legal))])
            steps += 1
    assert steps > 0


@pytest.mark.parametrize("module, options", [(daifugo_v1, {"players": 4}),
                                             (president_v1, {"players": 6}),
                                             (doudizhu_v1, {})])
def test_kept_observation_not_changed_by_later_steps(module, options):
    env = module.env(**options)
    env.reset(seed=1)
    kept = []
    for _agent in env.agent_iter(max_iter=200):
        obs, _reward, term, trunc, _info = env.last()
        kept.append((obs, {key: value.copy() for key, value in obs.items()}))
        legal = env.legal_actions()
        env.step(None if term or trunc else legal[0])
    assert len(kept) > 10
    for handed, copy in kept:
        for key, value in copy.items():
            np.testing.assert_array_equal(handed[key], value, err_msg=f"{key} changed")


def test_daifugo_catalog_shared_by_envs_of_the_same_rules():
    """The 4.9 MB action catalog was built again for every env instance."""
    first, second = daifugo_v1.raw_env(players=4), daifugo_v1.raw_env(players=4)
    assert first.game.catalog is second.game.catalog
    # the catalog reads only its key's rules: another player count shares it too
    assert daifugo_v1.raw_env(players=3).game.catalog is first.game.catalog
    assert daifugo_v1.raw_env(players=4, jokers=1).game.catalog is not first.game.catalog


def test_actor_observers_match_scratch_and_follow_the_slots_table():
    """The trainer's actor loop keeps an incremental observer per game slot and seat."""
    from climbrl.envs.daifugo import DaifugoGame, Rules
    from climbrl.envs.doudizhu import DoudizhuGame
    from climbrl.training.actor import seat_observer

    games = [DaifugoGame(Rules.preset("daifugo", 4)), DaifugoGame(Rules.preset("daifugo", 3)),
             DoudizhuGame()]
    rng = np.random.default_rng(0)
    pick = random.Random(0)
    held: dict = {}
    for game in games:  # one slot whose table changes between episodes
        state = game.new_state(rng)
        while not state.terminal:
            seat = state.current_player
            got = seat_observer(held, game, seat).observe(state)
            np.testing.assert_array_equal(got, game.observe(state, seat))
            legal = state.legal_actions()
            state.apply(legal[pick.randrange(len(legal))])
        assert len(held) <= game.num_players + 1  # this table's observers only


def test_incremental_pile_of_a_run_with_a_joker_below_the_3():
    """UECda's ``JK=below 3h 4h`` on the pile: its lowest rank reads as the 3, as from
    scratch; the incremental observer wrote it one slot lower, over ``pile_size``."""
    from climbrl.envs.daifugo import DaifugoGame, Rules
    from climbrl.envs.daifugo.catalog import BELOW_3, RUN

    game = DaifugoGame(Rules.preset("uecda", 5, rounds=1))
    cat = game.catalog
    below = {a for a in range(cat.size) if cat.kind[a] == RUN and cat.low[a] == BELOW_3}
    rng = np.random.default_rng(0)
    pick = random.Random(0)
    seen = 0
    while not seen:
        state = game.new_state(rng)
        observers = [game.seat_observer(seat) for seat in range(game.num_players)]
        while not state.terminal:
            for seat, observer in enumerate(observers):
                np.testing.assert_array_equal(observer.observe(state), game.observe(state, seat),
                                              err_msg=f"pile {state.pile}")
            seen += state.pile in below
            legal = state.legal_actions()
            ends = [a for a in legal if a in below]
            state.apply(ends[0] if ends else legal[pick.randrange(len(legal))])


@pytest.mark.parametrize("pure", [True, False], ids=["pure", "compiled"])
@pytest.mark.parametrize("module, options", [(daifugo_v1, {"players": 4}),
                                             (president_v1, {"players": 6}),
                                             (uecda_v1, {"rounds": 2})],
                         ids=["daifugo", "president", "uecda"])
def test_regression_pile_rows_left_the_game_unpicklable(monkeypatch, pure, module, options):
    """Once the pure-Python seat observer had written a pile, the catalog kept its rows as
    memoryviews: the game, its states and its catalog could no longer be pickled nor copied.
    Pickled and copied after a few piles, each copy's observers go on equal to the env's."""
    monkeypatch.setenv(compiled.PURE_ENV, "1" if pure else "0")
    env = module.env(**options)
    raw = env.unwrapped
    assert raw.game.compiled is (compiled.available() and not pure)
    env.reset(seed=3)
    pick = random.Random(3)
    piles = 0
    while piles < PILES_BEFORE_COPY:
        for agent in env.agents:
            env.observe(agent)
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
        piles += raw.game_state.pile >= 0
    # the env pickles as its options (gymnasium's EzPickle): a new env of the same table
    assert pickle.loads(pickle.dumps(env)).unwrapped.rules == raw.rules
    assert copy.deepcopy(env).unwrapped.rules == raw.rules
    assert pickle.loads(pickle.dumps(raw.game.catalog)).size == raw.game.catalog.size
    pair = (raw.game, raw.game_state)
    copies = [pickle.loads(pickle.dumps(pair)), copy.deepcopy(pair)]
    observers = [[game.seat_observer(seat) for seat in range(game.num_players)]
                 for game, _state in copies]
    for _step in range(STEPS_AFTER_COPY):
        if raw.game_state.terminal:
            break
        for agent in env.agents:
            seat = raw.possible_agents.index(agent)
            expected = env.observe(agent)["observation"]
            for (_game, state), seats in zip(copies, observers):
                np.testing.assert_array_equal(seats[seat].observe(state), expected)
        legal = env.legal_actions()
        action = legal[pick.randrange(len(legal))]
        env.step(action)
        for _game, state in copies:
            state.apply(action)
    # and again, the copies' own rows written
    for game, state in copies:
        loaded, _state = pickle.loads(pickle.dumps((game, state)))
        assert loaded.compiled is game.compiled
