"""The compiled core of Dou Dizhu (``climbrl.envs.doudizhu._fast``: envs/doudizhu/_fast.c, the
observation writer, and _engine.c, legal plays, apply, observation with mask) against the
pure-Python reference: random playouts of every variant through the env, with and without it,
equal move for move, legal list for legal list (order included), state for state, observation
and mask for observation and mask, reward for reward; set-up endgames for the rare shapes
(bombs, rockets, pair chains, airplanes with wings, laizi wild cards); the C legal plays against
the Python generators on rich random hands, leading and replying, and the C apply against the
Python one; the build here produced it; and ``CLIMBRL_PURE=1`` runs pure Python."""

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
from climbrl.envs.core.game import IllegalActionError
from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame, Phase, compiled, laizi
from climbrl.envs.doudizhu.cards import NUMBER_RANKS, UNIT
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
    assert DoudizhuGame(pure=False)._core is not None  # the engine core (_engine.c) too
    assert doudizhu_v1.env().unwrapped.game.compiled or compiled.pure_requested()


@needs_build
@pytest.mark.parametrize("name", [*VARIANTS, *EXTRA_CONFIGS])
def test_random_playouts_equal_with_and_without_the_compiled_core(name, monkeypatch):
    options = VARIANTS.get(name, EXTRA_CONFIGS.get(name))
    games = GAMES_PER_VARIANT // 2 if DoudizhuConfig(**options).players == 4 else GAMES_PER_VARIANT
    assert _play_both(monkeypatch, options, games, seed=len(name)) > games * 20


ENDGAMES = {
    "bombs_and_rocket": ("classic", ["3333BR2", "4444A", "55556"], {}),
    "pair_chains_and_wings": ("classic", ["333444555JQK7", "66778899TT", "TTJJQQKKAA2"], {}),
    "four_with_two": ("rob_open", ["77778899", "JJJJQKK", "2222AA3"], {}),
    "airplanes_with_pairs": ("classic", ["333444555666778899", "TTTJJJQQ", "KKKAAA22"], {}),
    "laizi_planes_with_wilds": ("laizi", ["3334445555JJ", "66677789", "TTTJJQQ"], {"wild": "5"}),
    "laizi_soft_and_wild_bombs": ("laizi_rob_open", ["33377779BR", "3444A", "88882"],
                                  {"wild": "7"}),
    "four_wide_bombs": ("four", ["33333333BBRR", "44444", "555555", "6666666K"], {}),
    "four_joker_pairs": ("four_rob_open", ["BBRR333444", "44455", "555666", "7778889"], {}),
}
"""set-up endgames (variant, hands with the landlord's first, extra reset options) that reach
the rare branches of the move generators and the apply"""


@needs_build
@pytest.mark.parametrize("name", ENDGAMES)
def test_rare_shapes_play_alike_with_and_without_the_compiled_core(name, monkeypatch):
    variant, hands, extra = ENDGAMES[name]
    options = {"hands": hands, "landlord": 0, "bid": 1, **extra}
    assert _play_both(monkeypatch, VARIANTS[variant], 8, seed=len(name),
                      reset_options=options) > 8 * 3


def _rich_hand(pick: random.Random, copies: tuple[int, ...], most: int) -> int:
    """A random hand of at most ``most`` cards drawing every rank's count uniformly (so far
    more trios, bombs and jokers than a deal gives: airplanes, wings and bombs galore)."""
    cards = [r for r, c in enumerate(copies) for _ in range(pick.randint(0, c))]
    pick.shuffle(cards)
    return sum(UNIT[r] for r in cards[: pick.randint(1, most)])


def _piles(pick: random.Random, pure: DoudizhuGame, state, count: int) -> list[int]:
    """Piles to reply to: plays other rich hands lead (kicker shapes most), a bomb, the
    rocket, and no pile (-1: leading)."""
    cat, setup = pure.catalog, pure.setup
    out = [-1, cat.ROCKET, pick.choice([a for a in range(cat.num_actions)
                                         if cat.bomb_power[a] >= 0])]
    while len(out) < count:
        state.hands[0] = _rich_hand(pick, setup.copies, setup.landlord_hand_size)
        state.pile = -1
        leads = pure.legal_for(state)
        out.append(leads[-1 - pick.randrange(min(len(leads), 40))] if pick.random() < 0.5
                   else pick.choice(leads))
    return out


@needs_build
@pytest.mark.parametrize("name", ["classic", "four", "laizi"])
def test_compiled_legal_plays_equal_the_python_generators_in_order(name):
    # leads and replies of rich random hands, and the apply of some of their plays: the C
    # lists must be the Python generator's, order included, and the C apply its twin
    pure, fast = game_pair(name)
    pick = random.Random(7)
    setup = pure.setup
    state = pure.new_state(np.random.default_rng(0), {
        "hands": ["3", "4", "5", "6"][: pure.num_players], "landlord": 0, "bid": 1})
    hands = 40 if name == "laizi" else 150
    compared = 0
    for _ in range(hands):
        piles = _piles(pick, pure, state, 6)
        state.hands[0] = _rich_hand(pick, setup.copies, setup.landlord_hand_size)
        state.wild = pick.randrange(NUMBER_RANKS) if name == "laizi" else -1
        for pile in piles:
            state.pile = pile
            state.pile_owner = -1 if pile < 0 else 1
            state.pile_power = -1
            if pile >= 0 and state.wild >= 0:
                state.pile_power = laizi.bomb_tier(pure.catalog, pile, state.wild,
                                                   pick.randint(0, 1))
            want = list(pure.legal_for(state))
            assert list(fast._core.legal(state)) == want, (name, state.hands[0], pile)
            compared += len(want)
            for action in pick.sample(want, min(3, len(want))):
                _apply_alike(pure, fast, state, action)
    assert compared > hands * 20


def game_pair(name: str) -> tuple[DoudizhuGame, DoudizhuGame]:
    config = DoudizhuConfig(**VARIANTS[name])
    return DoudizhuGame(config, pure=True), DoudizhuGame(config, pure=False)


def _apply_alike(pure: DoudizhuGame, fast: DoudizhuGame, state, action: int) -> None:
    """``action`` applied to copies of ``state`` by the Python and the C apply: the same
    result and the same state after."""
    python, c = state.clone(), state.clone()
    c.game = fast
    python.history, c.history = [], []
    python._legal = c._legal = None
    assert python.apply(action) == c.apply(action)
    assert _state_facts(c) == _state_facts(python)


@needs_build
def test_an_illegal_move_gets_the_same_error_with_the_compiled_core():
    for name in ("classic", "laizi"):
        pure, fast = game_pair(name)
        messages = []
        for game in (pure, fast):
            state = game.new_state(np.random.default_rng(3), {
                "hands": ["33345", "66", "7"], "landlord": 0, "bid": 1, "wild": "9"}
                if name == "laizi" else {"hands": ["33345", "66", "7"], "landlord": 0,
                                         "bid": 1})
            legal = state.legal_actions()  # cached: apply takes the fast path
            state.apply(game.action_from_str("333"))
            assert state.legal_actions()[0] == game.catalog.PASS
            errors = []
            for bad in ("444", "3", "pass"):
                try:
                    state.clone().apply(game.action_from_str(bad) if bad != "pass"
                                        else game.catalog.PASS + game.num_actions)
                except IllegalActionError as err:
                    errors.append(str(err))
            state.apply(np.int64(game.catalog.PASS))  # not an int: the checked path
            messages.append((legal, errors, _state_facts(state)))
        assert messages[0] == messages[1]
        assert len(messages[0][1]) == 3


@needs_build
def test_the_games_of_one_catalog_share_one_compiled_engine():
    # regression: an engine per game made every env hold its own 3 MB of catalog tables
    first, second = DoudizhuGame(pure=False), DoudizhuGame(DoudizhuConfig(history_length=3),
                                                           pure=False)
    assert first._core is second._core
    assert DoudizhuGame(DoudizhuConfig(players=4), pure=False)._core is not first._core
    state = second.new_state(np.random.default_rng(4))
    assert np.array_equal(second.fresh_observation(state, 1)["observation"],
                          second._writer.write(state, 1))


@needs_build
def test_the_env_computes_the_legal_list_once_a_turn(monkeypatch):
    # the C observation caches the legal tuple on the state; legal_actions reads it
    env = _env(monkeypatch, False)
    env.reset(seed=5)
    for _ in range(60):
        env.last()
        state = env.unwrapped.game_state
        if state.terminal:
            break
        cached = state._legal
        assert cached is not None and env.legal_actions() == list(cached)
        assert state._legal is cached
        env.step(env.legal_actions()[-1])


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


def test_the_sdist_and_the_build_name_the_c_sources():
    for source in ("envs/doudizhu/_fast.c", "envs/doudizhu/_engine.c", "envs/doudizhu/_fast.h"):
        assert (ROOT / source).is_file()
        assert source in (ROOT / "MANIFEST.in").read_text().split()
        if source.endswith(".c"):
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
