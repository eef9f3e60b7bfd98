"""What every game's optional compiled core must do, whatever the game: Dou Dizhu's
(``climbrl.envs.doudizhu._fast``) and Daifugo / President / UECda's
(``climbrl.envs.daifugo._fast``), each test run for both. The install here built it; a build
with no compiler goes on without it; ``CLIMBRL_PURE=1`` (or ``pure=True``) runs pure Python and
never imports it; a bad ``CLIMBRL_PURE`` or ``pure`` is named; a missing extension falls back
to Python; seat observers write their own buffers; the C writer refuses a bad seat or buffer;
a pickled game loads its core again; the sdist and the build name the C sources; the benchmarks
say whether it is in use. Each game's own checks (its playouts both ways, its rule positions,
its bad states) are in tests/test_compiled_core.py (Dou Dizhu) and
tests/test_compiled_daifugo.py (Daifugo, President, UECda)."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from climbrl.benchmarks import daifugo as daifugo_bench
from climbrl.benchmarks import doudizhu as doudizhu_bench
from climbrl.envs import daifugo, doudizhu
from climbrl.envs.daifugo import Catalog, DaifugoGame, Rules
from climbrl.envs.daifugo import compiled as daifugo_compiled
from climbrl.envs.daifugo import observation as daifugo_observation
from climbrl.envs.doudizhu import DoudizhuGame
from climbrl.envs.doudizhu import compiled as doudizhu_compiled
from climbrl.envs.doudizhu import observation as doudizhu_observation
from compiled_helpers import needs_compiler

ROOT = Path(__file__).resolve().parent.parent
SHARED_HEADER = "envs/core/_compiled.h"
"""the C header both extensions include"""



def _daifugo_game(pure: bool | None = None) -> DaifugoGame:
    # a catalog of its own: the Python incremental observer leaves unpicklable rows in the
    # shared one (the compiled core does not)
    rules = Rules.preset("daifugo", 4)
    return DaifugoGame(rules, pure=pure, catalog=Catalog(rules))


def _doudizhu_reference(game: DoudizhuGame, state, seat: int) -> np.ndarray:
    return game._writer.write(state, seat)  # the Python ObservationWriter, whatever the core


@dataclass(frozen=True)
class Core:
    """One game's compiled core and what its tests make."""

    name: str
    package: ModuleType
    """the engine's package (``climbrl.envs.<game>``), which holds ``_fast`` once imported"""
    compiled: ModuleType
    """the engine's ``compiled`` module (``load``, ``available``, ``PURE_ENV``)"""
    game: Callable[..., object]
    """a game factory: ``game(pure=None)``"""
    env_module: str
    env_options: dict
    """the env a test plays: ``env_module.env(**env_options)`` (a fresh process too)"""
    reference: Callable[..., np.ndarray]
    """the pure-Python observation, from scratch: ``reference(game, state, seat)``"""
    seat_observer: type
    """the pure-Python seat observer a game without its core hands out"""
    bench: ModuleType
    """the game's benchmark module (its ``compiled_core()`` line)"""
    sources: tuple[str, ...] = field(default=())
    """the extension's C sources and headers, from the checkout's root"""

    @property
    def extension(self) -> str:
        return f"{self.package.__name__}._fast"

    def env(self):
        return importlib.import_module(self.env_module).env(**self.env_options)

    def built(self) -> bool:
        return self.compiled.available()


CORES = [
    Core("doudizhu", doudizhu, doudizhu_compiled, DoudizhuGame, "climbrl.envs.doudizhu_v1", {},
         _doudizhu_reference, doudizhu_observation.SeatObserver, doudizhu_bench,
         ("envs/doudizhu/_fast.c", "envs/doudizhu/_engine.c", "envs/doudizhu/_fast.h")),
    Core("daifugo", daifugo, daifugo_compiled, _daifugo_game, "climbrl.envs.daifugo_v1",
         {"players": 3, "rounds": 1}, daifugo_observation.observe,
         daifugo_observation.SeatObserver, daifugo_bench, ("envs/daifugo/_fast.c",)),
]


@pytest.fixture(params=CORES, ids=lambda core: core.name)
def core(request) -> Core:
    return request.param


def _needs_build(core: Core) -> None:
    if not core.built():
        pytest.skip(f"the compiled core ({core.extension}) is not built here: no C compiler "
                    "or Python headers at install time")


@needs_compiler
def test_the_install_built_the_compiled_core(core):
    # CI installs with pip install -e '.[test]' where a compiler exists: the equality tests
    # must not skip there (a broken build would otherwise run pure Python unnoticed)
    assert core.built(), (f"{core.extension} did not import: the optional extension was not "
                          "built by the install (rerun pip install -e . and read its output)")
    assert core.game(pure=False).compiled
    assert core.env().unwrapped.game.compiled or core.compiled.pure_requested()


def test_a_build_without_a_compiler_goes_on_without_the_extensions(tmp_path):
    # optional=True: a compiler that fails leaves each extension out, the build succeeds
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
         "--build-temp", str(tmp_path / "temp")],
        capture_output=True, text=True, cwd=ROOT,
        env={"CC": "/bin/false", "LDSHARED": "/bin/false", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.rglob("_fast*")), "an extension was built with no compiler"
    for core in CORES:
        assert core.extension in done.stderr + done.stdout


def test_climbrl_pure_runs_pure_python(core, monkeypatch):
    monkeypatch.setenv(core.compiled.PURE_ENV, "1")
    game = core.game()
    assert not game.compiled and core.compiled.load() is None
    assert isinstance(game.seat_observer(0), core.seat_observer)
    env = core.env()
    assert not env.unwrapped.game.compiled
    env.reset(seed=0)
    assert env.last()[0]["observation"].shape == (env.unwrapped.game.layout.size,)
    monkeypatch.setenv(core.compiled.PURE_ENV, "0")
    assert core.game().compiled is core.built()
    assert core.game(pure=True).compiled is False


def test_climbrl_pure_in_a_fresh_process_never_imports_the_extension(core):
    code = textwrap.dedent(f"""
        import importlib, sys
        env = importlib.import_module({core.env_module!r}).env(**{core.env_options!r})
        env.reset(seed=0)
        env.last()
        print(env.unwrapped.game.compiled, {core.extension!r} in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={"CLIMBRL_PURE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("value", ["yes", "2", "true"])
def test_a_bad_climbrl_pure_value_is_named(core, value, monkeypatch):
    monkeypatch.setenv(core.compiled.PURE_ENV, value)
    with pytest.raises(ValueError, match=f"^CLIMBRL_PURE must be 1 .* got '{value}'$"):
        core.game()


def test_a_bad_pure_argument_is_named(core):
    with pytest.raises(TypeError, match="^pure must be True, False or None, got 'yes'$"):
        core.game(pure="yes")


def test_a_missing_extension_falls_back_to_pure_python(core, monkeypatch):
    # where the optional extension was not built, the import fails: the game runs Python
    monkeypatch.delenv(core.compiled.PURE_ENV, raising=False)
    monkeypatch.setitem(sys.modules, core.extension, None)
    monkeypatch.delattr(core.package, "_fast", raising=False)
    assert not core.compiled.available()
    game = core.game()
    assert not game.compiled and isinstance(game.seat_observer(0), core.seat_observer)
    env = core.env()
    env.reset(seed=2)
    for _agent in env.agent_iter():
        _obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.legal_actions()[0])
    assert sum(env.unwrapped._cumulative_rewards.values()) == 0


def test_seat_observers_of_the_compiled_core_write_their_own_buffers(core):
    _needs_build(core)
    game = core.game(pure=False)
    state = game.new_state(np.random.default_rng(0))
    observers = [game.seat_observer(seat) for seat in range(game.num_players)]
    buffers = [observer.observe(state) for observer in observers]
    assert buffers[0] is observers[0].observe(state) and buffers[0] is not buffers[1]
    for seat, buf in enumerate(buffers):
        assert np.array_equal(buf, core.reference(game, state, seat))
        assert observers[seat].seat == seat and observers[seat].buf is buf
    out = np.full(game.layout.size, 7, np.float32)  # every entry written, whatever out held
    assert game.observe(state, 1, out) is out and np.array_equal(out, buffers[1])


def test_the_compiled_writer_refuses_a_bad_seat_or_buffer_with_an_error(core):
    _needs_build(core)
    game = core.game(pure=False)
    state = game.new_state(np.random.default_rng(0))
    players, size = game.num_players, game.layout.size
    with pytest.raises(ValueError, match=rf"^seat {players} is outside 0..{players - 1}$"):
        game.observe(state, players)
    with pytest.raises(ValueError, match=f"float32 buffer of {size} entries"):
        game.observe(state, 0, np.zeros(size, np.float64))
    with pytest.raises(ValueError, match=f"float32 buffer of {size} entries"):
        game.observe(state, 0, np.zeros(size - 1, np.float32))


def test_a_pickled_game_loads_the_compiled_core_again(core):
    for pure in (False, True):
        game = core.game(pure=pure)
        state = game.new_state(np.random.default_rng(1))
        game.observe(state, 1)  # the C writer made before pickling is not pickled
        loaded = pickle.loads(pickle.dumps(game))
        assert loaded.compiled is (core.built() and not pure)
        state = loaded.new_state(np.random.default_rng(1))
        assert np.array_equal(loaded.observe(state, 1), core.reference(loaded, state, 1))


def test_the_sdist_and_the_build_name_the_c_sources(core):
    manifest = (ROOT / "MANIFEST.in").read_text().split()
    setup = (ROOT / "setup.py").read_text()
    for source in (*core.sources, SHARED_HEADER):
        assert (ROOT / source).is_file()
        assert source in manifest
        if source.endswith(".c"):
            assert f'"{source}"' in setup
    assert f'"{core.extension}"' in setup and "optional=True" in setup


def test_the_benchmarks_say_whether_the_compiled_core_is_in_use(core, monkeypatch):
    monkeypatch.setenv(core.compiled.PURE_ENV, "1")
    pure = core.bench.compiled_core()
    monkeypatch.setenv(core.compiled.PURE_ENV, "0")
    default = core.bench.compiled_core()
    if core.built():
        assert (pure, default) == ("built, not in use: CLIMBRL_PURE=1 (pure Python)",
                                   f"in use ({core.extension})")
    else:
        assert pure == default == "not built (pure Python)"
