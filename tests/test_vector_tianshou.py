"""Tianshou's vector path (climbrl.envs.vector.tianshou_vec_env): its collectors collect from
the tables with masked policies, each table plays what a single-seat env of its seed plays,
and bad input is one clear error. Skipped only when tianshou is not installed."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from climbrl.envs.vector import tianshou_vec_env
from climbrl.envs.wrappers import single_seat

TABLES = 3
SEED = 40
EPISODES = 4
"""episodes finished across the tables before a comparison stops (so some table is reset by
id and plays a second episode)"""
DAIFUGO = {"players": 3, "rounds": 1, "opponents": ["easy", "random"]}


@pytest.fixture
def tianshou(monkeypatch):
    # Tianshou's replay buffers are numba functions: compiling them takes ~20 s, more than
    # these tests play; run them as Python (read when numba is first imported)
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    return pytest.importorskip("tianshou", reason="the tianshou extra is not installed: "
                               "pip install -e '.[tianshou]'")


def _legal_acts(buffer):
    """Whether every stored move was legal under the mask stored with it."""
    idx = buffer.sample_indices(0)  # every filled slot of every table's buffer
    return len(idx) > 0 and all(buffer.obs.mask[i][buffer.act[i]] for i in idx)


def _nth_legal(mask, n):
    """The ``n``-th legal id, counted round the legal ids: a fixed sequence of moves."""
    legal = np.flatnonzero(mask)
    return legal[n % len(legal)]


#: more decisions than one seat of a 3-player Daifugo round can take: at most 18 plays (each
#: plays a card or more of its 18), and a pass only after another seat played (at most 36
#: cards between them), so every table ends a round within these steps. Regression: 24 steps
#: a table (96 in all) left every round unfinished in one run (the policies are not seeded)
ROUND_DECISIONS = 18 + 36 + 1


def test_a_collector_collects_n_steps_with_masked_policies(tianshou):
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import BaseVectorEnv
    from tianshou.utils.net.common import Net

    envs = tianshou_vec_env("daifugo", 4, opponents=["random"] * 2, players=3, rounds=1, seed=0)
    assert isinstance(envs, BaseVectorEnv) and len(envs) == 4
    space = envs.action_space[0]
    shape = envs.observation_space[0]["obs"].shape
    dqn = DiscreteQLearningPolicy(model=Net(state_shape=shape, action_shape=space.n,
                                            hidden_sizes=[16]),
                                  action_space=space, eps_inference=0.3)
    random = MARLRandomDiscreteMaskedOffPolicyAlgorithm(space)
    for policy in (dqn, random):
        collector = Collector(policy, envs, VectorReplayBuffer(4 * ROUND_DECISIONS, 4), exploration_noise=True)
        # an illegal move would be a ValueError from the tables: the masks reach the policy
        collected = collector.collect(n_step=4 * ROUND_DECISIONS, reset_before_collect=True)
        assert collected.n_collected_steps == 4 * ROUND_DECISIONS
        assert collected.n_collected_episodes > 0  # finished tables were reset by id
        assert _legal_acts(collector.buffer)
    # random collection (a trainer's warm-up) samples each table's action space: legal ids
    collector = Collector(dqn, envs, VectorReplayBuffer(400, 4))
    assert collector.collect(n_step=96, random=True, reset_before_collect=True
                             ).n_collected_steps == 96
    assert _legal_acts(collector.buffer)


@pytest.mark.parametrize(("game", "kwargs"), [
    ("daifugo", DAIFUGO),
    ("doudizhu", {"opponents": ["random", "easy"]}),
], ids=["daifugo", "doudizhu"])
def test_tables_equal_single_seat_envs_for_a_fixed_action_sequence(tianshou, game, kwargs):
    envs = tianshou_vec_env(game, TABLES, seat=1, seed=SEED, **kwargs)
    singles = [single_seat(game, seat=1, **kwargs) for _ in range(TABLES)]
    obs, infos = envs.reset()
    assert [info["env_id"] for info in infos] == list(range(TABLES))
    for i, env in enumerate(singles):
        o, _ = env.reset(seed=SEED + i)
        assert np.array_equal(obs.obs[i], o) and np.array_equal(obs.mask[i], env.action_masks())
    finished, turn = 0, 0
    while finished < EPISODES:
        # some steps play a subset of the tables, in another order (as a collector may)
        ids = np.arange(TABLES) if turn % 2 else np.arange(TABLES)[::-1][:2]
        turn += 1
        actions = np.array([_nth_legal(singles[i].action_masks(), turn) for i in ids])
        obs, rewards, terminated, truncated, infos = envs.step(actions, ids)
        assert not truncated.any()
        for k, i in enumerate(ids):
            o, r, t, _, _ = singles[i].step(int(actions[k]))
            assert (rewards[k], terminated[k], infos[k]["env_id"]) == (r, t, i)
            assert np.array_equal(obs.obs[k], o)
            assert np.array_equal(obs.mask[k], singles[i].action_masks())
        done = ids[terminated]
        if len(done):
            finished += len(done)
            obs, _ = envs.reset(env_id=done)
            for k, i in enumerate(done):  # a later episode: each table's generator goes on
                assert np.array_equal(obs.obs[k], singles[i].reset()[0])
                assert np.array_equal(obs.mask[k], singles[i].action_masks())
    # reseeding a table listed alone gives it its own seed: s + its index
    obs, _ = envs.reset(env_id=[2], seed=7)
    assert np.array_equal(obs.obs[0], singles[2].reset(seed=9)[0])
    assert envs.seed(3) == [[3], [4], [5]]
    obs, _ = envs.reset()
    assert np.array_equal(obs.obs[1], singles[1].reset(seed=4)[0])


def test_same_seed_same_random_collection(tianshou):
    envs = [tianshou_vec_env("daifugo", 2, opponents=["random"] * 3, rounds=1, seed=s)
            for s in (5, 5, 6)]
    runs = []
    for venv in envs:
        obs, _ = venv.reset()
        seen = [obs.obs]
        for _ in range(12):
            # the action spaces sample legal ids from a stream seeded with the table
            acts = np.array([space.sample() for space in venv.action_space])
            obs, _r, terminated, _t, _i = venv.step(acts)
            seen.append(obs.obs)
            if terminated.any():
                venv.reset(env_id=np.flatnonzero(terminated))
        runs.append(np.stack(seen))
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2])


def test_bad_tianshou_vector_inputs_are_one_clear_error(tianshou, monkeypatch):
    with pytest.raises(ValueError, match="num_envs must be"):
        tianshou_vec_env("daifugo", 0, rounds=1)
    envs = tianshou_vec_env("daifugo", TABLES, opponents=["random"] * 3, rounds=1, seed=0)
    with pytest.raises(RuntimeError, match="table 0 has not been reset"):
        envs.step(np.zeros(TABLES, int))
    obs, _ = envs.reset()
    good = obs.mask.argmax(axis=1)
    with pytest.raises(ValueError, match=r"env id 3 is outside 0\.\.2"):
        envs.step(good[:1], [3])
    with pytest.raises(ValueError, match="must not repeat"):
        envs.reset(env_id=[1, 1])
    with pytest.raises(TypeError, match="env ids must be an integer"):
        envs.step(good[:1], [0.5])
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\)"):
        envs.step(good, [0, 1])
    with pytest.raises(TypeError, match="integer ids.*float"):
        envs.step(good.astype(float))
    bad = int(np.flatnonzero(~obs.mask[2])[0])
    # the error names the table by its id, not by its place in the list
    with pytest.raises(ValueError, match=f"table 2: action {bad} .* is not legal"):
        envs.step(np.array([bad, good[0]]), [2, 0])
    with pytest.raises(ValueError, match="table 1: action 99999 is outside"):
        envs.step(np.array([99999]), 1)
    with pytest.raises(TypeError, match="reset\\(\\) takes env_id, seed and options.*'foo'"):
        envs.reset(foo=1)
    with pytest.raises(AttributeError, match="no attribute 'nope'; they have action_space"):
        envs.get_env_attr("nope")
    with pytest.raises(AttributeError, match="cannot be set"):
        envs.set_env_attr("seat", 2)
    assert np.array_equal(envs.tables.rows.obs, obs.obs)  # no table moved
    # a finished table is stepped again only after its reset
    while True:
        _o, _r, terminated, _t, _i = envs.step(envs.tables.rows.masks[[0]].argmax(axis=1), [0])
        if terminated[0]:
            break
    with pytest.raises(RuntimeError, match=r"table 0: its episode ended; reset\(env_id=\[0\]\)"):
        envs.step(np.zeros(1, int), [0])
    envs.close()
    with pytest.raises(AssertionError, match="cannot be called after close"):
        envs.reset()
    # without tianshou: one line that says what to install
    for name in ("tianshou", "tianshou.data", "tianshou.env"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "climbrl.envs.tianshou_vector")
    with pytest.raises(ImportError, match=r"needs tianshou .*pip install 'climbrl\[tianshou\]'"):
        tianshou_vec_env("daifugo", 1, rounds=1)


def test_the_benchmark_steps_both_tianshou_vector_envs(tianshou):
    from climbrl.benchmarks.vector import dummy_case, tianshou_case

    for case in (tianshou_case, dummy_case):
        run = case("daifugo", 2, 0)
        assert sum(run() for _ in range(40)) == 80  # episodes end and are reset by id
