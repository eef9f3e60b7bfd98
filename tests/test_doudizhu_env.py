"""The doudizhu_v1 PettingZoo environment: PettingZoo's own tests, the documented spaces and
layout, options, infos, rewards, the illegal-move treatment and the live-env conveniences."""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from climbrl import envs
from climbrl.envs import doudizhu_v1
from climbrl.envs.core.aec import IllegalMoveWarning

from doudizhu_variants import VARIANTS

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_pettingzoo_api():
    api_test(doudizhu_v1.env(), num_cycles=200)


def test_pettingzoo_seed():
    seed_test(doudizhu_v1.env, num_cycles=100)


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "classic"])
def test_pettingzoo_api_and_seed_of_every_variant(variant):
    api_test(doudizhu_v1.env(**VARIANTS[variant]), num_cycles=200)
    seed_test(lambda **kw: doudizhu_v1.env(**VARIANTS[variant], **kw), num_cycles=100)


def test_pettingzoo_render():
    render_test(lambda render_mode=None: doudizhu_v1.env(render_mode=render_mode))


def test_factories_names_and_registration():
    env = doudizhu_v1.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(doudizhu_v1.raw_env(), doudizhu_v1.raw_env)
    assert env.metadata["name"] == "doudizhu_v1"
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert "climbrl/doudizhu-v1" in envs.ENV_IDS
    assert pettingzoo.make("aec", "climbrl/doudizhu-v1").metadata["name"] == "doudizhu_v1"
    with pytest.raises(ValueError, match="reward"):
        doudizhu_v1.env(reward="money")


def test_docstring_tables_match_the_layout_and_the_catalog():
    doc = doudizhu_v1.__doc__
    env = doudizhu_v1.raw_env()
    layout = env.game.layout
    rows = re.findall(r"^\| (\w+) +\| \(([\d, ]+)\) +\| (\d+) +\|", doc, re.M)
    documented = {name: (tuple(int(x) for x in shape.split(",") if x.strip()), int(start))
                  for name, shape, start in rows}
    actual = {name: (shape, layout.slices[name].start) for name, shape in layout.fields.items()}
    assert documented == actual
    assert f"({layout.size},)" in doc
    seg_rows = re.findall(r"^\| (\w+) +\| (\d+)(?:\.\.(\d+))? +\| (\d+)", doc, re.M)
    table = env.game.catalog.table
    for name, start, stop, count in seg_rows:
        seg = table[name]
        assert (seg.start, seg.size) == (int(start), int(count)), name
        assert seg.stop - 1 == int(stop or start), name
    assert len(seg_rows) == len(table.segments)
    assert f"Discrete({env.game.num_actions})" in doc


def test_spaces():
    env = doudizhu_v1.env()
    env.reset(seed=0)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (env.unwrapped.game.layout.size,)
    assert space["action_mask"].shape == (28507,) and env.action_space("player_0").n == 28507
    obs = env.observe("player_0")
    assert space.contains(obs)


def test_roles_in_infos_after_bidding():
    env = doudizhu_v1.env()
    env.reset(seed=4)
    assert all(info["role"] == "undecided" for info in env.infos.values())
    env.step(env.action_from_str("bid 3"))
    landlord = env.agent_selection
    assert env.infos[landlord]["role"] == "landlord"
    assert sorted(info["role"] for info in env.infos.values()) == ["landlord", "peasant", "peasant"]
    obs = env.observe(landlord)["observation"]
    role = env.unwrapped.game.layout.split(obs)["role"]
    assert role.tolist() == [0, 1, 0]


def test_reset_options_through_the_env():
    env = doudizhu_v1.env()
    env.reset(seed=1)
    code = env.unwrapped.deal_code
    hands = [env.unwrapped.view(s)["hand"] for s in range(3)]
    env.reset(seed=2)
    env.reset(options={"deal": code})
    assert [env.unwrapped.view(a)["hand"] for a in env.possible_agents] == hands
    assert env.unwrapped.deal_code == code
    landlord_hand = "3333456789TJQKA222BR"
    rest = "444555666777888999TTTJJJQQQKKKAAA2"
    env.reset(options={"hands": [rest[0::2], landlord_hand, rest[1::2]], "kitty": "2BR",
                       "landlord": 1, "bid": 3})
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["role"] == "landlord"
    with pytest.raises(ValueError, match="kitty"):
        env.reset(options={"hands": hands})


def test_score_and_win_rewards():
    landlord_hand = "3333456789TJQKA222BR"
    rest = "444555666777888999TTTJJJQQQKKKAAA2"
    options = {"hands": [landlord_hand, rest[0::2], rest[1::2]], "kitty": "2BR",
               "landlord": 0, "bid": 1}
    script = ["456789TJQKA", "pass", "pass", "3333", "pass", "pass", "222", "pass", "pass", "BR"]
    for reward, expected in (("score", [16.0, -8.0, -8.0]), ("win", [1.0, -1.0, -1.0])):
        env = doudizhu_v1.env(reward=reward)
        env.reset(options=options)
        for text in script:
            env.step(env.action_from_str(text))
        # bid 1, bomb + rocket (x4), spring (x2): 80 points; landlord +160 = 16 units
        assert [env.rewards[a] for a in env.possible_agents] == expected
        assert env.infos["player_0"]["result"]["points"] == [160, -80, -80]
        assert all(env.terminations.values())


def test_illegal_move_ends_the_game_with_a_warning_naming_it():
    env = doudizhu_v1.env()
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.warns(IllegalMoveWarning, match="illegal move '33'"):
        env.step(env.action_from_str("33"))  # a play during bidding
    assert env.rewards[agent] == -1.0
    assert all(env.terminations.values())


def test_action_text_on_the_live_env():
    env = doudizhu_v1.env()
    env.reset(seed=0)
    assert env.action_to_str(env.action_from_str("pass")) == "bid pass"  # bidding phase
    assert env.action_to_str(env.action_from_str("bid 2")) == "bid 2"
    assert env.action_to_str(env.action_from_str("44433")) == "33444"
    view = env.unwrapped.view(env.agent_selection)
    assert view["legal"][0] == "bid pass"


def test_render_modes():
    env = doudizhu_v1.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Dou Dizhu [bidding]" in text and "player_2" in text
    with pytest.raises(ValueError, match="render_mode"):
        doudizhu_v1.env(render_mode="rgb_array")


def test_engine_modules_import_no_frameworks():
    forbidden = {"pettingzoo", "gymnasium", "torch"}
    files = sorted((ROOT / "envs" / "doudizhu").glob("*.py"))
    assert files
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{path.name} imports {name}"


def test_episode_bound_holds_under_an_always_pass_policy():
    env = doudizhu_v1.env(max_redeals=2)
    env.reset(seed=0)
    steps = 0
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else 0)  # id 0: bid pass
        steps += 1
    assert steps <= env.unwrapped.game.max_game_length + 3
    assert env.unwrapped.game_state.result["outcome"] == "no bid"
    np.testing.assert_array_equal(list(env.unwrapped.game_state.returns()), [0, 0, 0])
