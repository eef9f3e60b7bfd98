"""The PettingZoo side of Daifugo / President: PettingZoo's own api/seed/render tests on every
preset and house-rule switch, and the adapter's promises (masks, rewards, deals, text)."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs  # noqa: F401  (registers the environments)
from climbrl.envs import daifugo_v1, president_v1, uecda_v1
from climbrl.envs.core.aec import IllegalMoveWarning
from climbrl.envs.daifugo.rules import Rules

ENV_CONFIGS = [
    (daifugo_v1, dict(players=4)),
    (daifugo_v1, dict(players=3)),
    *[(daifugo_v1, {"players": 4, rule: False}) for rule in Rules.HOUSE_RULES if rule != "illegal_finish"],
    (daifugo_v1, dict(players=4, illegal_finish=True)),
    *[(president_v1, dict(players=n)) for n in (3, 5, 6, 8)],
    (uecda_v1, dict(rounds=4)),
]
ENV_IDS = [f"{m.NAME}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for m, kw in ENV_CONFIGS]


@pytest.mark.parametrize("module,kwargs", ENV_CONFIGS, ids=ENV_IDS)
def test_pettingzoo_api_seed_render(module, kwargs):
    api_test(module.env(**kwargs), num_cycles=200)
    seed_test(lambda **kw: module.env(**kwargs, **kw), num_cycles=200)
    render_test(lambda **kw: module.env(**kwargs, **kw))


def test_make_through_the_registry():
    env = pettingzoo.make("aec", "climbrl/daifugo-v1", players=3)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "daifugo_v1"
    assert len(env.possible_agents) == 3
    env = pettingzoo.make("aec", "climbrl/president-v1", players=6)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "president_v1"


def test_uecda_through_the_registry():
    env = pettingzoo.make("aec", "climbrl/uecda-v1", rounds=2)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "uecda_v1"
    assert len(env.possible_agents) == 5
    assert env.unwrapped.rules == Rules.preset("uecda", rounds=2)


def test_uecda_default_match_is_one_class_block():
    env = uecda_v1.env()
    env.reset(seed=1)
    assert env.unwrapped.rules.rounds == env.unwrapped.rules.class_block == 100


def test_uecda_observation_rows_follow_the_turn_order():
    """Row 1 of a seat's observation is the seat that plays after it (the reseating draws
    the turn order; index order is not it)."""
    env = uecda_v1.env(rounds=1)
    env.reset(seed=3)
    game, state = env.unwrapped.game, env.unwrapped.game_state
    assert state.order != tuple(range(5)), "pick a seed that draws another order"
    counts = game.layout.slices["hand_counts"]
    for seat in range(5):
        rows = game.observe(state, seat)[counts]
        at = state.order.index(seat)
        want = [state.hands[state.order[(at + r) % 5]].bit_count() for r in range(5)]
        assert rows.tolist() == want


def _random_match(env, rng):
    """Random play to the end; returns per-agent reward sums and per-step reward rows."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert set(legal) == set(env.unwrapped.legal_actions())
        env.step(int(rng.choice(legal)))
    return totals


def test_masks_and_centered_rewards():
    env = daifugo_v1.env(players=4, rounds=3)
    env.reset(seed=5)
    for agent in env.possible_agents:
        if agent != env.agent_selection:
            assert not env.observe(agent)["action_mask"].any(), "mask of a waiting agent"
    totals = _random_match(env, np.random.default_rng(0))
    assert abs(sum(totals.values())) < 1e-9
    scores = env.unwrapped.game_state.scores
    # centred rewards: each round 3/2/1/0 minus 1.5
    assert np.allclose([totals[a] for a in env.possible_agents], np.array(scores) - 1.5 * 3)


def test_raw_rewards_switch():
    env = daifugo_v1.env(players=3, rounds=2, reward="raw")
    env.reset(seed=1)
    totals = _random_match(env, np.random.default_rng(1))
    assert [totals[a] for a in env.possible_agents] == env.unwrapped.game_state.scores
    assert sum(totals.values()) == 2 * (2 + 1 + 0)


def test_illegal_move_terminates_with_a_warning_naming_it():
    env = daifugo_v1.env(players=4)
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    text = env.unwrapped.action_to_str(bad)
    with pytest.warns(IllegalMoveWarning, match=text):
        env.step(bad)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    assert sum(r for a, r in env.rewards.items() if a != agent) == 0


def test_deal_code_replays_through_the_env():
    env = daifugo_v1.env(players=4)
    env.reset(seed=11)
    code = env.unwrapped.deal_code
    hands = [env.unwrapped.view(s)["hand"] for s in range(4)]
    env.reset(seed=12)
    env.reset(options={"deal": code})
    assert [env.unwrapped.view(s)["hand"] for s in range(4)] == hands
    with pytest.raises(ValueError, match="checksum|base 32"):
        env.reset(options={"deal": code[:-2] + "ZZ"})
    with pytest.raises(ValueError, match="for '3P1D2J'|needs"):
        daifugo_v1.env(players=3).reset(options={"deal": code})


def test_hands_option_and_text_actions():
    env = daifugo_v1.env(players=4)
    env.reset(options={"hands": ["3s 4s 5s JK", "7h 7d", "9c", "Kd"], "leader": 0})
    u = env.unwrapped
    assert env.agent_selection == "player_0"
    a = u.action_from_str("3s JK=4s 5s")
    assert u.action_to_str(a) == "3s JK=4s 5s"
    assert a in u.legal_actions()
    env.step(a)
    view = u.view("player_1")
    assert view["pile"]["move"] == "3s JK=4s 5s"
    assert view["hand"] == "7d 7h" or view["hand"] == "7h 7d"
    assert view["hand_counts"] == [1, 2, 1, 1]
    with pytest.raises(ValueError, match="7h"):
        env.reset(options={"hands": ["7h", "7h", "9c", "Kd"]})
    with pytest.raises(ValueError, match="one string per seat"):
        env.reset(options={"hands": ["7h", "8h"]})
    with pytest.raises(ValueError, match="bad card 'Xq'"):
        env.reset(options={"hands": ["Xq", "8h", "9c", "Kd"]})


def test_bad_options_fail_loudly():
    with pytest.raises(ValueError, match="unknown rule option"):
        daifugo_v1.env(players=4, lokc=True)
    with pytest.raises(ValueError, match="3 or 4 players"):
        daifugo_v1.env(players=5)
    with pytest.raises(ValueError, match="render_mode"):
        daifugo_v1.env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="reward"):
        daifugo_v1.env(reward="points")
    env = daifugo_v1.env()
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(options={"dael": "x"})


def test_human_render_prints(capsys):
    env = daifugo_v1.env(render_mode="human")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.reset(seed=0)
    out = capsys.readouterr().out
    assert "player_0" in out and "round 1/3" in out


def test_observation_is_seat_relative_and_private():
    env = daifugo_v1.env(players=4)
    env.reset(options={"hands": ["3s 4s", "5h 6h 7h", "9c", "Kd Kc"], "leader": 0})
    u = env.unwrapped
    layout = u.game.layout
    obs1 = layout.split(env.observe("player_1")["observation"])
    assert list(obs1["hand_counts"]) == [3, 1, 2, 2]  # row 0 is player_1 itself
    assert obs1["hand"].sum() == 3
    # nothing of another seat's hand: changing player_2's cards leaves player_1's view equal
    env2 = daifugo_v1.env(players=4)
    env2.reset(options={"hands": ["3s 4s", "5h 6h 7h", "Tc", "Kd Kc"], "leader": 0})
    np.testing.assert_array_equal(
        env.observe("player_1")["observation"], env2.observe("player_1")["observation"]
    )


def test_engine_modules_import_no_framework():
    """The rules stay pure: no pettingzoo, gymnasium or torch import in the engine modules."""
    import ast
    import pathlib

    root = pathlib.Path(envs.__file__).parent
    files = list((root / "daifugo").glob("*.py")) + [
        p for p in (root / "core").glob("*.py") if p.name != "aec.py"
    ]
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in {"pettingzoo", "gymnasium", "torch"}, path


def test_regression_state_method_not_hidden():
    """Bug: the adapter kept the engine state in ``self.state``, hiding PettingZoo's
    ``AECEnv.state()``; calling it raised ``TypeError: object is not callable``."""
    env = daifugo_v1.env()
    env.reset(seed=0)
    with pytest.raises(NotImplementedError):
        env.state()
