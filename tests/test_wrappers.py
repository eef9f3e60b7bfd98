"""The envs in other trainers: the single-seat Gymnasium env (alone and under sb3-contrib's
MaskablePPO), Tianshou's PettingZooEnv with a DQN per seat, and RLlib's PettingZooEnv with its
action-masking RLModule. Each trainer's test is skipped when its extra is not installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from climbrl.envs.core.aec import IllegalMoveWarning
from climbrl.envs.wrappers import RLlibObservations, make, rllib_env, single_seat, tianshou_env

CENTERED_4P = {1.5, 0.5, -0.5, -1.5}
"""a round's rewards at a four-player Daifugo table (3/2/1/0 points minus their mean)"""


def _play(env, seed, choose=lambda legal, rng: legal[int(rng.integers(len(legal)))]):
    """One episode of ``env`` with legal moves; the observations and rewards."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen, rewards, done = [obs], [], False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        assert len(legal) > 0  # the agent is only asked when it has a move
        obs, reward, done, truncated, info = env.step(choose(legal, rng))
        assert not truncated and info["action_mask"].dtype == bool
        seen.append(obs)
        rewards.append(reward)
    assert not env.action_masks().any()
    return seen, rewards


def test_single_seat_plays_whole_matches_against_registry_opponents():
    env = single_seat("daifugo", seat=2, opponents=["medium", "easy", "random"], rounds=2)
    assert env.observation_space.shape == (env.raw.game.layout.size,)
    assert env.action_space.n == env.raw.game.num_actions
    for seed in range(3):
        _, rewards = _play(env, seed)
        # two rounds: two nonzero round rewards reach the seat, whoever moved last
        got = [r for r in rewards if r != 0]
        assert len(got) == 2 and set(got) <= CENTERED_4P
        assert env.raw.game_state.terminal


def test_single_seat_dou_dizhu_seats_three():
    env = single_seat("doudizhu", seat=1, opponents=["easy", "random"])
    _, rewards = _play(env, 4)
    assert env.raw.game_state.terminal
    assert sum(rewards) == env.raw.game_state.returns()[1]


def test_single_seat_episodes_follow_the_reset_seed_opponents_included():
    # the opponents are random players: without seeds derived from reset(seed) their moves,
    # and so the agent's observations, would differ between the two runs
    def episode(seed):
        env = single_seat("daifugo", seat=0, opponents=["random"] * 3, rounds=1)
        return _play(env, seed, choose=lambda legal, rng: legal[0])

    first, again, other = episode(11), episode(11), episode(12)
    assert len(first[0]) == len(again[0])
    assert all(np.array_equal(a, b) for a, b in zip(first[0], again[0]))
    assert first[1] == again[1]
    assert len(first[0]) != len(other[0]) or any(
        not np.array_equal(a, b) for a, b in zip(first[0], other[0]))


def test_single_seat_passes_gymnasium_env_checker():
    env = single_seat("daifugo", seat=1, opponents=["random"] * 2, rounds=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalMoveWarning)  # the checker samples any action
        check_env(env, skip_render_check=True)


def test_single_seat_takes_player_objects_and_refuses_bad_tables():
    from climbrl import policies

    mine = policies.load("daifugo", "medium")
    env = single_seat("daifugo", seat=0, opponents=[mine, "random"])
    assert env.opponents[1] is mine and env.raw.game.num_players == 3
    with pytest.raises(ValueError, match="needs 3 opponents, got 2"):
        single_seat("daifugo", opponents=["random"] * 2, players=4)
    with pytest.raises(ValueError, match="doudizhu with 3 players needs 2 opponents, got 3"):
        single_seat("doudizhu", opponents=["random"] * 3)
    with pytest.raises(ValueError, match="seat must be an integer from 0 to 3, got 4"):
        single_seat("daifugo", seat=4, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="unknown player 'mediun'"):
        single_seat("daifugo", opponents=["mediun"] * 3)
    with pytest.raises(TypeError, match="opponents must be a list"):
        single_seat("daifugo", opponents="medium")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        single_seat("chess", opponents=["random"])


def test_single_seat_step_after_the_end_says_reset():
    env = single_seat("daifugo", opponents=["random"] * 3, rounds=1)
    _play(env, 0)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_maskable_ppo_trains_on_a_single_seat_unchanged():
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="the sb3 extra is not installed: "
                                      "pip install -e '.[sb3]'")
    env = single_seat("daifugo", seat=0, opponents=["easy"] * 3, rounds=1)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1,
                                    policy_kwargs={"net_arch": [32]}, seed=0, device="cpu")
    model.learn(64)  # two rollouts, two updates
    assert model.num_timesteps == 64 and model._n_updates == 2
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_tianshou_collects_and_updates_a_dqn_per_seat(monkeypatch):
    # Tianshou's replay buffers are numba functions: compiling them takes ~20 s, more than
    # the whole test plays; run them as Python (read when numba is first imported)
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    pytest.importorskip("tianshou", reason="the tianshou extra is not installed: "
                        "pip install -e '.[tianshou]'")
    import torch
    from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net
    from tianshou.utils.torch_utils import policy_within_training_step

    env = tianshou_env("daifugo", players=3, rounds=1)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"agent_id", "obs", "mask"} and sum(obs["mask"]) > 0
    algorithms = [
        DQN(policy=DiscreteQLearningPolicy(
                model=Net(state_shape=env.observation_space["observation"].shape,
                          action_shape=env.action_space.n, hidden_sizes=[32]),
                action_space=env.action_space, eps_training=0.1),
            optim=AdamOptimizerFactory(lr=1e-3))
        for _ in env.agents
    ]
    marl = MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)
    envs = DummyVectorEnv([lambda: tianshou_env("daifugo", players=3, rounds=1)])
    collector = Collector(marl, envs, VectorReplayBuffer(256, 1), exploration_noise=True)
    collected = collector.collect(n_step=96, reset_before_collect=True)
    assert collected.n_collected_steps == 96
    buffer = collector.buffer
    # every stored move was legal for the seat that made it
    assert all(buffer.obs.mask[i][buffer.act[i]] for i in range(len(buffer)))
    before = [p.detach().clone() for p in algorithms[0].policy.model.parameters()]
    with policy_within_training_step(marl.policy):  # what a Tianshou trainer does
        marl.update(buffer=buffer, sample_size=32)
    after = list(algorithms[0].policy.model.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after))


def test_rllib_observations_carry_the_keys_of_its_action_masking_module():
    env = RLlibObservations(make("daifugo", players=4, rounds=1))
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert set(obs) == {"observations", "action_mask"}
    assert obs["action_mask"].dtype == np.float32 and obs["action_mask"].sum() > 0
    assert env.observation_space(agent).contains(obs)
    env.close()


def test_rllib_ppo_with_the_action_masking_module_trains_an_iteration(tmp_path):
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed: "
                        "pip install -e '.[rllib]'")
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule)
    from ray.tune.registry import register_env

    env = rllib_env("daifugo", players=3, rounds=1)
    obs, _ = env.reset(seed=0)
    (agent, first), = obs.items()
    assert env.observation_space[agent].contains(first)
    register_env("climbrl-daifugo3", lambda _: rllib_env("daifugo", players=3, rounds=1))
    config = (
        PPOConfig()
        .environment("climbrl-daifugo3")
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent, *a, **k: "shared")
        .rl_module(rl_module_spec=RLModuleSpec(
            module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [32]}))
        .env_runners(num_env_runners=0, rollout_fragment_length=64)
        .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
        .debugging(seed=0)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 1024**2)
    try:
        with warnings.catch_warnings():  # RLlib's env check steps random (illegal) actions
            warnings.simplefilter("ignore", IllegalMoveWarning)
            algo = config.build_algo()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IllegalMoveWarning)
            result = algo.train()
        algo.stop()
    finally:
        ray.shutdown()
    assert not [w for w in caught if w.category is IllegalMoveWarning]  # the mask held
    learners = result["learners"]["shared"]
    assert np.isfinite(learners["policy_loss"])
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 64
