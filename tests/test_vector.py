"""The vector API (climbrl.envs.vector): VectorTables equals N PettingZoo envs stepped in
lockstep, the single-seat vector env equals N single-seat envs, MaskablePPO trains on its
stable_baselines3 VecEnv, and bad input is one clear error."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from climbrl.envs import ENV_MODULES
from climbrl.envs.vector import (
    NEXT_STEP,
    PLACEHOLDER_ACTION,
    VectorTables,
    make_vec,
    sb3_vec_env,
)
from climbrl.envs.wrappers import single_seat

TABLES = 3
SEED = 40
EPISODES = 4
"""episodes finished across the tables before a comparison stops (so some table plays a
second episode, reset without a seed)"""

GAMES = [
    ("daifugo", {"players": 3, "rounds": 1}),
    ("daifugo", {"players": 4, "rounds": 2, "lock": False, "illegal_finish": True}),
    ("president", {"players": 6, "rounds": 1, "runs": True}),
    ("uecda", {"rounds": 1}),
    ("doudizhu", {}),
    ("doudizhu", {"bidding": "rob", "open_hand": True}),
    ("doudizhu", {"players": 4}),
    ("doudizhu", {"laizi": True}),
]


def _env(game, kwargs):
    return importlib.import_module(ENV_MODULES[game]).env(**kwargs)


def _draw(masks, rng):
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize(("game", "kwargs"), GAMES, ids=lambda v: str(v))
def test_vector_tables_equal_independent_envs_stepped_alike(game, kwargs):
    players = kwargs.get("players")
    rules = {k: v for k, v in kwargs.items() if k != "players"}
    tables = VectorTables(game, TABLES, players=players, rules=rules, seed=SEED)
    envs = [_env(game, kwargs) for _ in range(TABLES)]
    for i, env in enumerate(envs):
        env.reset(seed=SEED + i)
    rng = np.random.default_rng(0)
    finished = 0
    while finished < EPISODES:
        obs, masks, seats = tables.observe()
        for i, env in enumerate(envs):
            agent = env.agent_selection
            want = env.observe(agent)
            assert seats[i] == env.unwrapped.possible_agents.index(agent)
            assert np.array_equal(obs[i], want["observation"])
            assert np.array_equal(masks[i], want["action_mask"].astype(bool))
            assert tables.legal_ids()[i] == env.legal_actions()
        actions = _draw(masks, rng)
        rewards, dones = tables.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            raw = env.unwrapped
            assert list(rewards[i]) == [raw.rewards[a] for a in raw.possible_agents]
            assert dones[i] == raw.game_state.terminal
            if dones[i]:
                finished += 1
                env.reset()


@pytest.mark.parametrize(("game", "kwargs"), [
    ("daifugo", {"players": 3, "rounds": 1, "opponents": ["easy", "random"]}),
    ("doudizhu", {"opponents": ["random", "easy"]}),
], ids=["daifugo", "doudizhu"])
def test_seat_vector_env_equals_single_seat_envs(game, kwargs):
    vec = make_vec(game, TABLES, seat=1, seed=SEED, **kwargs)
    assert vec.metadata["autoreset_mode"] == NEXT_STEP
    singles = [single_seat(game, seat=1, **kwargs) for _ in range(TABLES)]
    obs, _ = vec.reset()
    want = [env.reset(seed=SEED + i)[0] for i, env in enumerate(singles)]
    assert np.array_equal(obs, np.stack(want))
    rng = np.random.default_rng(1)
    ended = np.zeros(TABLES, bool)
    finished = 0
    while finished < EPISODES:
        masks = vec.action_masks()
        actions = _draw(masks, rng)
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        assert not truncated.any()
        assert np.array_equal(infos["action_mask"], vec.action_masks())
        for i, env in enumerate(singles):
            if ended[i]:  # next-step autoreset: the action was ignored, the table reset
                o, _ = env.reset()
                assert rewards[i] == 0 and not terminated[i]
            else:
                assert np.array_equal(masks[i], env.action_masks())
                o, r, t, _, _ = env.step(int(actions[i]))
                assert (rewards[i], terminated[i]) == (r, t)
            assert np.array_equal(obs[i], o)
            if terminated[i]:
                finished += 1
                assert np.flatnonzero(vec.action_masks()[i]).tolist() == [PLACEHOLDER_ACTION]
        ended = terminated


def test_same_seed_same_trajectories_and_no_seed_draws_entropy():
    def run(seed):
        vec = make_vec("daifugo", 2, opponents=["random"] * 3, rounds=1, seed=seed)
        obs, _ = vec.reset()
        seen = [obs]
        for _ in range(30):
            seen.append(vec.step(_first_legal(vec.action_masks()))[0])
        return np.stack(seen)

    assert np.array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))
    assert not np.array_equal(run(None), run(None))
    tables = [VectorTables("daifugo", 2, seed=None).observe()[0] for _ in range(2)]
    assert not np.array_equal(*tables)


def _first_legal(masks):
    return masks.argmax(axis=1)


def test_maskable_ppo_trains_on_the_sb3_vec_env():
    pytest.importorskip("sb3_contrib", reason="pip install -e '.[sb3]'")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    env = sb3_vec_env("daifugo", 4, opponents=["random"] * 2, players=3, rounds=1, seed=0)
    assert env.has_attr("action_masks")
    # an illegal action would be a ValueError here: the masks reach the policy
    model = MaskablePPO("MlpPolicy", VecMonitor(env), n_steps=64, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [32]}, seed=0)
    model.learn(256)
    assert model.num_timesteps == 256
    assert len(model.ep_info_buffer) > 0  # whole episodes ended and were reset meanwhile


def test_sb3_vec_env_resets_finished_tables_in_the_same_step():
    env = sb3_vec_env("doudizhu", 2, opponents=["random"] * 2, seed=3)
    obs = env.reset()
    ended = 0
    while ended < 2:
        env.step_async(_first_legal(env.action_masks()))
        obs, rewards, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert env.action_masks()[i].any()  # the new episode's first decision
    masks = np.stack(env.env_method("action_masks"))
    assert np.array_equal(masks, env.action_masks())


def test_copy_true_keeps_what_the_caller_holds_and_copy_false_hands_out_the_buffers():
    for copy in (True, False):
        vec = make_vec("daifugo", 2, opponents=["random"] * 3, rounds=1, seed=0, copy=copy)
        obs, _ = vec.reset()
        masks = vec.action_masks()
        kept, kept_masks = obs.copy(), masks.copy()
        new, *_ = vec.step(_first_legal(masks))
        assert (new is obs) is (not copy)
        if copy:
            assert np.array_equal(obs, kept) and np.array_equal(masks, kept_masks)
        else:  # the documented buffers: rewritten in place by the step
            assert not np.array_equal(obs, kept) and np.array_equal(obs, new)
        tables = VectorTables("doudizhu", 2, seed=0, copy=copy)
        obs, masks, seats = tables.observe()
        kept = obs.copy(), masks.copy(), seats.copy()
        tables.step(_first_legal(masks))
        unchanged = all(np.array_equal(a, b) for a, b in zip((obs, masks, seats), kept))
        assert unchanged is copy


@pytest.mark.parametrize("make", [
    lambda n: make_vec("daifugo", n, opponents=["random"] * 3, rounds=1, seed=0),
    lambda n: VectorTables("daifugo", n, seed=0),
], ids=["make_vec", "VectorTables"])
def test_bad_vector_inputs_are_one_clear_error(make):
    with pytest.raises(ValueError, match="must be at least 1|must be 1"):
        make(0)
    env = make(3)
    if not isinstance(env, VectorTables):
        env.reset()
    masks = env.action_masks() if hasattr(env, "action_masks") else env.observe()[1]
    before = (env.observe()[0] if isinstance(env, VectorTables) else env.tables.rows.obs).copy()
    good = _first_legal(masks)
    with pytest.raises(ValueError, match=r"shape \(3,\).*shape \(2,\)"):
        env.step(good[:2])
    with pytest.raises(TypeError, match="integer ids.*float"):
        env.step(good.astype(float))
    with pytest.raises(ValueError, match="table 1: action 99999 is outside"):
        env.step(np.array([good[0], 99999, good[2]]))
    bad = good.copy()
    bad[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(ValueError, match=f"table 2: action {bad[2]} .* is not legal"):
        env.step(bad)
    after = env.observe()[0] if isinstance(env, VectorTables) else env.tables.rows.obs
    assert np.array_equal(before, after)  # no table moved
