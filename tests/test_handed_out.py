"""What the engines and envs hand out is the caller's own: a legal list changed by its caller
changes nothing in the game, and an observation or mask kept is never written again. Dou
Dizhu's compiled core hands a vector or mask out again once every caller has let go of it
(``_engine.c``, "arrays handed out again"): these tests hold on to some, write into others
before letting go, and check each one handed out against pure Python."""

from __future__ import annotations

import gc
import random
import weakref

import numpy as np
import pytest
from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1, uecda_v1
from climbrl.envs.core.game import seat_observation
from climbrl.envs.daifugo import DaifugoGame, Rules
from climbrl.envs.daifugo import observation as daifugo_observation
from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame, compiled

needs_build = pytest.mark.skipif(not compiled.available(), reason="the compiled core (_fast) "
                                 "is not built here")

ENGINES = {
    "daifugo": lambda pure: DaifugoGame(Rules.preset("daifugo", 4), pure=pure),
    "doudizhu": lambda pure: DoudizhuGame(DoudizhuConfig(), pure=pure),
    "doudizhu4": lambda pure: DoudizhuGame(DoudizhuConfig(players=4), pure=pure),
}
ENVS = {"daifugo4": (daifugo_v1, {"players": 4}), "president6": (president_v1, {"players": 6}),
        "uecda": (uecda_v1, {}), "doudizhu": (doudizhu_v1, {}),
        "doudizhu4": (doudizhu_v1, {"players": 4})}
FOUR_PLAYERS = {"players": 4}


@pytest.mark.parametrize("pure", [True, False], ids=["pure", "compiled"])
@pytest.mark.parametrize("name", ENGINES)
def test_regression_a_changed_legal_list_changed_the_game(name, pure):
    # Daifugo's State.legal_actions() returned the state's own cached list: a caller that
    # cleared or trimmed it (legal.remove(PASS) to pick a play) made legal moves illegal
    game = ENGINES[name](pure)
    state = game.new_state(np.random.default_rng(3))
    pick = random.Random(3)
    for _ in range(40):
        if state.terminal:
            break
        legal = state.legal_actions()
        chosen = legal[pick.randrange(len(legal))]
        want = list(legal)
        legal.clear()
        assert state.legal_actions() == want
        assert state.legal_actions() is not state.legal_actions()
        state.apply(chosen)


@pytest.mark.parametrize("name", ENVS)
def test_the_envs_legal_list_is_the_callers_own(name):
    module, kwargs = ENVS[name]
    env = module.env(**kwargs)
    env.reset(seed=5)
    legal = env.legal_actions()
    want = list(legal)
    legal.append(-1)
    legal.remove(want[0])
    assert env.legal_actions() == want
    env.step(want[0])


def _play(env, pick: random.Random, steps: int, each) -> None:
    """Random moves from the env's own legal list, ``each(env)`` before every move."""
    for _ in range(steps):
        if not env.agents:
            env.reset(seed=pick.randrange(1000))
        each(env)
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])


def _reference(env, agent) -> dict[str, np.ndarray]:
    """The observation and mask of ``agent`` as pure Python writes them."""
    raw = env.unwrapped
    game, state, seat = raw.game, raw.game_state, raw._seat[agent]
    if isinstance(game, DoudizhuGame):
        vector = game._writer.write(state, seat)  # the Python ObservationWriter
    else:
        vector = daifugo_observation.observe(game, state, seat)
    return seat_observation(game, state, seat, vector)


def _assert_same(got: dict, want: dict, where: str) -> None:
    for key in ("observation", "action_mask"):
        assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape, where
        assert np.array_equal(got[key], want[key]), f"{where}: {key} differs"
        assert got[key].flags.writeable, where


@pytest.mark.parametrize("name", ENVS)
def test_observations_kept_are_never_written_again(name):
    module, kwargs = ENVS[name]
    env = module.env(**kwargs)
    env.reset(seed=11)
    kept = []

    def keep(env):
        # every third observation kept, with a copy of what it held then
        for agent in env.agents:
            obs = env.observe(agent)
            if len(kept) % 3 == 0:
                kept.append((obs, {k: v.copy() for k, v in obs.items()}))

    _play(env, random.Random(11), 150, keep)
    assert kept
    for i, (obs, then) in enumerate(kept):
        _assert_same(obs, then, f"kept observation {i}")


@pytest.mark.parametrize("name", ["doudizhu", "doudizhu4", "daifugo4"])
def test_a_mask_written_into_and_let_go_never_comes_back_dirty(name):
    # a caller may write into its mask (all ones, a stray one, its dtype's bytes) before it
    # lets go; an array handed out again must still be exactly the legal moves
    module, kwargs = ENVS[name]
    env = module.env(**kwargs)
    env.reset(seed=21)
    pick = random.Random(21)
    writes = [
        lambda m: m.fill(1),
        lambda m: m.__setitem__(pick.randrange(m.size), 1),
        lambda m: m.__setitem__(slice(-3, None), 7),
        lambda m: None,
    ]

    def scribble(env):
        agent = env.agent_selection
        obs = env.last()[0]
        _assert_same(obs, _reference(env, agent), f"{name} {agent}")
        pick.choice(writes)(obs["action_mask"])
        obs["observation"][:] = 0.5
        del obs  # let go: the core may hand these arrays out again

    _play(env, pick, 400, scribble)


@needs_build
def test_the_compiled_core_hands_a_let_go_mask_out_again_and_never_a_held_one():
    # a test of the mechanism itself: without it the scribble test above would pass trivially
    env = doudizhu_v1.env(**FOUR_PLAYERS)
    env.reset(seed=2)
    agent = env.agent_selection
    first = env.observe(agent)
    mask_id, held = id(first["action_mask"]), first["action_mask"]
    second = env.observe(agent)
    assert second["action_mask"] is not held and second["observation"] is not first["observation"]
    del first, held
    gc.collect()
    third = env.observe(agent)
    assert id(third["action_mask"]) == mask_id  # the let-go mask, rewritten
    _assert_same(third, _reference(env, agent), "handed out again")
    view = third["action_mask"][:10]
    frozen = third["action_mask"]
    frozen.flags.writeable = False
    del third, frozen
    fourth = env.observe(agent)  # the one a view still holds and the frozen one: never reused
    assert not np.shares_memory(fourth["action_mask"], view)
    _assert_same(fourth, _reference(env, agent), "after a frozen mask")
    # one a weak reference still reaches is let go of, never rewritten under it
    del fourth
    mask = env.last()[0]["action_mask"]
    weak = weakref.ref(mask)
    del mask
    env.step(env.legal_actions()[0])
    fifth = env.last()[0]
    assert weak() is None
    _assert_same(fifth, _reference(env, env.agent_selection), "after a weakly held mask")
