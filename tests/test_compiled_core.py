"""The compiled core of Dou Dizhu (``climbrl.envs.doudizhu._fast``, envs/doudizhu/_fast.c)
against the pure-Python reference: random playouts of every variant through the env, with and
without it, equal move for move, legal set for legal set, state for state, observation and
mask for observation and mask, reward for reward; the build here produced it; and
``CLIMBRL_PURE=1`` runs pure Python."""

from __future__ import annotations

import pickle
import random
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import numpy as np
import pytest

from climbrl.benchmarks import doudizhu as doudizhu_bench
from climbrl.envs import doudizhu, doudizhu_v1
from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame, compiled
from climbrl.envs.doudizhu.observation import SeatObserver

from doudizhu_variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
BUILT = compiled.available()
needs_build = pytest.mark.skipif(not BUILT, reason="the compiled core (_fast) is not built here: "
                                 "no C compiler or Python headers at install time")
GAMES_PER_VARIANT = 12
EXTRA_CONFIGS = {
    "short_history": {"history_length": 1},
    "long_history_win": {"history_length": 40, "reward": "win"},
}
"""configurations beside the variants: the history window at both ends, the other reward"""
STATE_FIELDS = tuple(s for s in DoudizhuGame().new_state(np.random.default_rng(0)).__slots__
                     if s not in ("game", "_legal", "_code"))
"""every attribute of a state but its game and its caches"""


def _can_compile() -> bool:
    """Whether this Python could build the extension (a C compiler and the Python headers)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(cc) is not None and headers.is_file()


def _env(monkeypatch, pure: bool, **options):
    """``doudizhu_v1.env(**options)`` made with ``CLIMBRL_PURE`` set as ``pure`` says."""
    monkeypatch.setenv(compiled.PURE_ENV, "1" if pure else "0")
    env = doudizhu_v1.env(**options)
    assert env.unwrapped.game.compiled is (not pure and BUILT)
    return env


def _state_facts(state) -> dict:
    return {name: getattr(state, name) for name in STATE_FIELDS}


def _play_both(monkeypatch, options: dict, games: int, seed: int, reset_options=None) -> int:
    """Random playouts of the env with and without the compiled core, side by side, compared
    at every step; returns the steps compared."""
    fast, pure = _env(monkeypatch, False, **options), _env(monkeypatch, True, **options)
    pick = random.Random(seed)
    steps = 0
    for game in range(games):
        for env in (fast, pure):
            env.reset(seed=seed * 1000 + game, options=reset_options)
        for agent in pure.agent_iter():
            assert fast.agent_selection == agent
            got, want = fast.last(), pure.last()
            obs_f, reward_f, term_f, trunc_f, info_f = got
            obs_p, reward_p, term_p, trunc_p, info_p = want
            where = f"{options} game {game} step {steps}"
            assert np.array_equal(obs_f["observation"], obs_p["observation"]), where
            assert obs_f["observation"].dtype == np.float32
            assert np.array_equal(obs_f["action_mask"], obs_p["action_mask"]), where
            assert (reward_f, term_f, trunc_f, info_f) == (reward_p, term_p, trunc_p, info_p), where
            assert _state_facts(fast.unwrapped.game_state) == _state_facts(pure.unwrapped.game_state)
            state = fast.unwrapped.game_state
            for seat in range(len(pure.possible_agents)):  # every seat, from scratch too
                scratch = fast.unwrapped.game.observe(state, seat)
                assert np.array_equal(scratch, pure.unwrapped.game.observe(state, seat)), where
            if term_p or trunc_p:
                action = None
            else:
                legal = pure.legal_actions()
                assert fast.legal_actions() == legal, where
                action = legal[pick.randrange(len(legal))]
            fast.step(action)
            pure.step(action)
            steps += 1
        assert fast.rewards == pure.rewards
        assert fast.unwrapped._cumulative_rewards == pure.unwrapped._cumulative_rewards
    return steps


@pytest.mark.skipif(not _can_compile(), reason="no C compiler or Python headers: the optional "
                    "extension cannot have been built")
def test_the_install_built_the_compiled_core():
    # CI installs with pip install -e '.[test]' where a compiler exists: the equality tests
    # below must not skip there (a broken build would otherwise run pure Python unnoticed)
    assert BUILT, ("climbrl.envs.doudizhu._fast did not import: the optional extension was "
                   "not built by the install (rerun pip install -e . and read its output)")
    assert DoudizhuGame(pure=False).compiled
    assert doudizhu_v1.env().unwrapped.game.compiled or compiled.pure_requested()


@needs_build
@pytest.mark.parametrize("name", [*VARIANTS, *EXTRA_CONFIGS])
def test_random_playouts_equal_with_and_without_the_compiled_core(name, monkeypatch):
    options = VARIANTS.get(name, EXTRA_CONFIGS.get(name))
    games = GAMES_PER_VARIANT // 2 if DoudizhuConfig(**options).players == 4 else GAMES_PER_VARIANT
    assert _play_both(monkeypatch, options, games, seed=len(name)) > games * 20


@needs_build
@pytest.mark.parametrize("name", ["classic", "four", "laizi_rob_open"])
def test_set_up_endgames_equal_with_and_without_the_compiled_core(name, monkeypatch):
    # cards named nowhere are out of play: the unseen cards leave them out
    players = DoudizhuConfig(**VARIANTS[name]).players
    options = {"hands": ["3334", "55", "6", "7"][:players], "landlord": 0, "bid": 1}
    if "laizi" in name:
        options["wild"] = "5"
    _play_both(monkeypatch, VARIANTS[name], 4, seed=3, reset_options=options)


@needs_build
def test_seat_observers_of_the_compiled_core_write_their_own_buffers():
    game = DoudizhuGame(pure=False)
    state = game.new_state(np.random.default_rng(0))
    observers = [game.seat_observer(seat) for seat in range(game.num_players)]
    buffers = [observer.observe(state) for observer in observers]
    assert buffers[0] is observers[0].observe(state) and buffers[0] is not buffers[1]
    for seat, buf in enumerate(buffers):
        assert np.array_equal(buf, game._writer.write(state, seat))


@needs_build
def test_the_compiled_writer_refuses_bad_input_with_an_error():
    game = DoudizhuGame(pure=False)
    state = game.new_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat 3 is outside 0..2"):
        game.observe(state, 3)
    with pytest.raises(ValueError, match="float32 buffer of 1602 entries"):
        game.observe(state, 0, np.zeros(1602, np.float64))
    with pytest.raises(ValueError, match="float32 buffer of 1602 entries"):
        game.observe(state, 0, np.zeros(1601, np.float32))
    state.history.append((0, game.num_actions))
    with pytest.raises(ValueError, match=f"action id {game.num_actions} is outside the catalog"):
        game.observe(state, 0)


@needs_build
def test_a_pickled_game_rebuilds_its_compiled_writer():
    for pure in (False, True):
        game = pickle.loads(pickle.dumps(DoudizhuGame(pure=pure)))
        assert game.compiled is not pure
        state = game.new_state(np.random.default_rng(1))
        assert np.array_equal(game.observe(state, 1), game._writer.write(state, 1))


def test_climbrl_pure_runs_pure_python(monkeypatch):
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    game = DoudizhuGame()
    assert not game.compiled and compiled.load() is None
    assert isinstance(game.seat_observer(0), SeatObserver)
    env = doudizhu_v1.env()
    assert not env.unwrapped.game.compiled
    env.reset(seed=0)
    assert env.last()[0]["observation"].shape == (1602,)
    monkeypatch.setenv(compiled.PURE_ENV, "0")
    assert DoudizhuGame().compiled is BUILT
    assert DoudizhuGame(pure=True).compiled is False


def test_climbrl_pure_in_a_fresh_process_never_imports_the_extension():
    code = textwrap.dedent("""
        import sys
        from climbrl.envs import doudizhu_v1
        env = doudizhu_v1.env()
        env.reset(seed=0)
        env.last()
        print(env.unwrapped.game.compiled, 'climbrl.envs.doudizhu._fast' in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={"CLIMBRL_PURE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("value", ["yes", "2", "true"])
def test_a_bad_climbrl_pure_value_is_named(value, monkeypatch):
    monkeypatch.setenv(compiled.PURE_ENV, value)
    with pytest.raises(ValueError, match=f"^CLIMBRL_PURE must be 1 .* got '{value}'$"):
        DoudizhuGame()


def test_a_bad_pure_argument_is_named():
    with pytest.raises(TypeError, match="^pure must be True, False or None, got 'yes'$"):
        DoudizhuGame(pure="yes")


def test_a_missing_extension_falls_back_to_pure_python(monkeypatch):
    # where the optional extension was not built, the import fails: the game runs Python
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "climbrl.envs.doudizhu._fast", None)
    monkeypatch.delattr(doudizhu, "_fast", raising=False)
    assert not compiled.available()
    game = DoudizhuGame()
    assert not game.compiled and isinstance(game.seat_observer(0), SeatObserver)
    env = doudizhu_v1.env()
    env.reset(seed=2)
    for agent in env.agent_iter():
        _obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.legal_actions()[0])
    assert sum(env.unwrapped._cumulative_rewards.values()) == 0


def test_the_sdist_and_the_build_name_the_c_source():
    source = "envs/doudizhu/_fast.c"
    assert (ROOT / source).is_file()
    assert source in (ROOT / "MANIFEST.in").read_text().split()
    assert f'"{source}"' in (ROOT / "setup.py").read_text()
    assert "optional=True" in (ROOT / "setup.py").read_text()


def test_the_benchmarks_say_whether_the_compiled_core_is_in_use(monkeypatch):
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    pure = doudizhu_bench.compiled_core()
    monkeypatch.setenv(compiled.PURE_ENV, "0")
    default = doudizhu_bench.compiled_core()
    if BUILT:
        assert (pure, default) == ("built, not in use: CLIMBRL_PURE=1 (pure Python)",
                                   "in use (climbrl.envs.doudizhu._fast)")
    else:
        assert pure == default == "not built (pure Python)"
