"""The lean AEC core: PettingZoo's per-agent dicts made once and updated in place, and the
checking layer of ``env()`` answering a loop's calls directly with the stock order wrapper's
errors and warnings."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1, uecda_v1
from climbrl.envs.core.aec import IllegalMoveWarning
from climbrl.envs.core.game import seat_observation

ENVS = [(daifugo_v1, {"players": 4}), (president_v1, {"players": 6}),
        (uecda_v1, {"rounds": 2}), (doudizhu_v1, {})]
ENV_IDS = ["daifugo4", "president6", "uecda", "doudizhu"]
DICTS = ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos")


def _random_step(env, pick: random.Random) -> None:
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env.step(None)
    else:
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])


def test_kept_infos_and_rewards_dicts_see_the_round_end():
    # regression: infos was a new dict at every round end (and the per-agent dicts new at
    # every reset and end), so a caller that kept env.infos read the last round's infos
    env = daifugo_v1.env(players=4, rounds=2)
    env.reset(seed=3)
    kept = {name: getattr(env.unwrapped, name) for name in DICTS}
    round_before = kept["infos"]["player_0"]["round"]
    pick = random.Random(3)
    while not any(env.rewards.values()):
        _random_step(env, pick)
    for name in DICTS:
        assert getattr(env.unwrapped, name) is kept[name], name
    assert kept["infos"]["player_0"]["round"] == round_before + 1
    assert sorted(kept["rewards"].values()) == [-1.5, -0.5, 0.5, 1.5]
    env.reset(seed=4)
    for name in DICTS:
        assert getattr(env.unwrapped, name) is kept[name], name
    assert set(kept["rewards"].values()) == {0.0} and len(kept["infos"]) == 4


@pytest.mark.parametrize("module, kwargs", ENVS, ids=ENV_IDS)
def test_rewards_and_dicts_as_pettingzoo_keeps_them_over_a_whole_episode(module, kwargs):
    # every step: the dicts hold the live agents, the cumulative rewards add up to the
    # returns of the engine, and last() answers what the dicts and the mask say
    env = module.env(**kwargs)
    env.reset(seed=1)
    raw = env.unwrapped
    pick = random.Random(1)
    totals = dict.fromkeys(raw.possible_agents, 0.0)
    while env.agents:
        for name in DICTS:
            assert list(getattr(raw, name)) == env.agents, name
        for agent, reward in env.rewards.items():
            totals[agent] += reward
        obs, cumulative, term, trunc, info = env.last()
        agent = env.agent_selection
        seat = raw.possible_agents.index(agent)
        assert (cumulative, term, trunc, info) == (
            raw._cumulative_rewards[agent], env.terminations[agent], env.truncations[agent],
            env.infos[agent])
        expected = seat_observation(raw.game, raw.game_state, seat)
        np.testing.assert_array_equal(obs["observation"], expected["observation"])
        np.testing.assert_array_equal(obs["action_mask"], expected["action_mask"])
        assert obs["action_mask"].dtype == np.int8
        _random_step(env, pick)
    assert totals == pytest.approx(dict(zip(raw.possible_agents, raw.game_state.returns())))


def test_the_checking_layer_is_pettingzoos_order_wrapper_reading_the_env_directly():
    env = daifugo_v1.env()
    assert isinstance(env, AECEnv) and isinstance(env, OrderEnforcingWrapper)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    env.reset(seed=0)
    raw = env.unwrapped
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        assert getattr(env, name) is getattr(raw, name), name
    assert env.num_agents == 4


def _misuse(env, case: str):
    """What ``case`` does to a fresh ``env``: the exception or warnings it raised, as text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if case == "step before reset":
                env.step(0)
            elif case == "observe before reset":
                env.observe("player_0")
            elif case == "last before reset":
                env.last()
            elif case == "agent_iter before reset":
                env.agent_iter()
            else:
                env.reset(seed=0)
                legal = env.legal_actions()
                if case == "illegal action":
                    env.step(next(a for a in range(env.action_space("player_0").n)
                                  if a not in legal))
                elif case == "action out of range":
                    env.step(10**9)
                elif case == "float action":
                    env.step(1.5)
                elif case == "stepping after the end":
                    env.step(next(a for a in range(env.action_space("player_0").n)
                                  if a not in legal))
                    while env.agents:
                        env.step(None)
                    env.step(None)
                elif case == "two steps in one turn of agent_iter":
                    for _agent in env.agent_iter():
                        env.step(env.legal_actions()[0])
                        env.step(env.legal_actions()[0])
                        env.step(None)  # never reached: the iterator refuses first
                elif case == "a live agent stepped with None":
                    env.step(None)
                elif case == "a turn of agent_iter without a step":
                    for _agent in env.agent_iter():
                        pass
        except Exception as err:  # noqa: BLE001 (compared, not handled)
            return f"{type(err).__name__}: {err}"
    return sorted(f"{w.category.__name__}: {w.message}" for w in caught)


MISUSES = ["step before reset", "observe before reset", "last before reset",
           "agent_iter before reset", "illegal action", "action out of range", "float action",
           "stepping after the end", "two steps in one turn of agent_iter",
           "a live agent stepped with None", "a turn of agent_iter without a step"]


@pytest.mark.parametrize("case", MISUSES)
@pytest.mark.parametrize("module, kwargs", [ENVS[0], ENVS[3]], ids=["daifugo4", "doudizhu"])
def test_the_checking_layer_gives_the_stock_wrappers_errors(module, kwargs, case):
    ours = _misuse(module.env(**kwargs), case)
    stock = _misuse(OrderEnforcingWrapper(module.raw_env(**kwargs)), case)
    assert ours == stock
    assert ours  # every misuse is said, as an error or a warning


def test_an_illegal_or_out_of_range_action_ends_the_game_naming_it():
    env = daifugo_v1.env(players=4)
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.warns(IllegalMoveWarning, match=r"id 1000000000 \(not in the catalog\)"):
        env.step(10**9)
    assert env.rewards[agent] == -1.0 and all(env.terminations.values())


@pytest.mark.parametrize("module, kwargs", ENVS, ids=ENV_IDS)
@pytest.mark.parametrize("copy_env", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))],
                         ids=["deepcopy", "pickle"])
def test_regression_a_copied_env_claimed_a_reset_its_copy_never_had(module, kwargs, copy_env):
    # an env pickles (and deep-copies) as a fresh env of its options (PettingZoo's EzPickle);
    # the checking layer kept saying it had been reset, so the copy's first step or last()
    # died on a missing attribute instead of PettingZoo's "reset first" error
    env = module.env(**kwargs)
    env.reset(seed=4)
    for _ in range(3):
        env.step(env.legal_actions()[0])
    twin = copy_env(env)
    with pytest.raises(AssertionError, match="reset"):
        twin.step(0)
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        twin.agent_selection  # noqa: B018 (the access is the test)
    twin.reset(seed=4)
    env.reset(seed=4)
    pick = random.Random(4)
    for agent in twin.agent_iter():
        assert agent == env.agent_selection
        obs, _, term, trunc, _ = twin.last()
        mine = env.last()[0]
        assert all(np.array_equal(obs[k], mine[k]) for k in obs)
        action = None if term or trunc else pick.choice(twin.legal_actions())
        twin.step(action)
        env.step(action)
