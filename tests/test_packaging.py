"""Installability: the package list and dependency floors of pyproject.toml, a wheel holding
nothing but ``climbrl``, the shipped files (configs/ and cpus/) found from any folder, training
configs by name, the engines with numpy alone, and a project with its own ``envs`` and
``training`` packages beside climbrl. (The wheel itself is installed and smoke-tested by .ci/run
through .ci/wheel_smoke.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

import climbrl
from climbrl import policies
from climbrl.envs.doudizhu import compiled as compiled_core
from climbrl.policies import install
from climbrl.training.config import find_config, make_args, shipped_configs

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "climbrl"
#: dependencies tested at the versions the main CI job installs only (no floor job for them)
UNTESTED_FLOORS = {"torch", "tensorboard", "onnx"}


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _floor(requirement: str) -> tuple[str, str | None]:
    name, _, floor = re.match(r"([A-Za-z0-9_.-]+)(>=([0-9.]+))?", requirement).groups()
    return name.lower(), floor


def _version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _run(code: str, *path: Path) -> subprocess.CompletedProcess:
    """``code`` in a fresh Python whose import path starts with ``path`` (then the checkout)."""
    env_path = ":".join(str(p) for p in (*path, ROOT))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=path[0] if path else ROOT,
                          env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})


def test_pyproject_lists_every_package_of_the_tree():
    # regression: packages are listed by hand (the folders are mapped), so a new subpackage
    # left out of the list would be missing from the wheel
    setuptools = _pyproject()["tool"]["setuptools"]
    listed, mapping = set(setuptools["packages"]), setuptools["package-dir"]
    assert all(p == PACKAGE or p.startswith(PACKAGE + ".") for p in listed)
    found = set()
    for package, folder in mapping.items():
        assert package in listed and (ROOT / folder).is_dir(), (package, folder)
        for init in (ROOT / folder).rglob("__init__.py"):
            found.add(".".join([package, *init.parent.relative_to(ROOT / folder).parts]))
    assert found <= listed, f"missing from pyproject.toml: {sorted(found - listed)}"
    data = {package.rpartition(".")[2] for package in mapping if package.startswith("climbrl._data.")}
    assert data == set(install.FOLDERS)


def wheel_names(source: Path, folder: Path) -> list[str]:
    """The paths in the wheel ``pip wheel`` builds from ``source`` (a source tree or an
    sdist) into ``folder``."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                           str(folder), str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (wheel,) = folder.glob("climbrl-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_the_wheel_holds_nothing_but_climbrl(tmp_path):
    # regression: the wheel installed four generic top-level packages (envs, policies,
    # training, benchmarks), which clashed with a research project's own folders
    names = wheel_names(ROOT, tmp_path)
    top = {name.split("/")[0] for name in names}
    assert top == {PACKAGE, f"climbrl-{climbrl.__version__}.dist-info"}, sorted(top)
    for needed in ("climbrl/envs/daifugo/engine.py", "climbrl/play/page/index.html",
                   "climbrl/play/server/app.py", "climbrl/_data/configs/cpus.yaml",
                   "climbrl/_data/cpus/daifugo/cpu.json", "climbrl/cli.py"):
        assert needed in names, needed
    assert not [n for n in names if "/tests/" in n or n.endswith(".pt")]
    # the compiled core is built into the wheel (where this Python can compile), not its source
    compiled = [n for n in names if n.startswith("climbrl/envs/doudizhu/_fast")]
    if compiled_core.available():
        assert compiled and all(n.endswith((".so", ".pyd")) for n in compiled), compiled
    for source in ("doudizhu/_fast.c", "doudizhu/_engine.c", "doudizhu/_fast.h",
                   "daifugo/_fast.c", "core/_compiled.h"):
        assert f"climbrl/envs/{source}" not in names
    assert not [n for n in names if n.endswith((".c", ".h"))]


def test_pyproject_floors_are_the_tested_ones():
    floors = {}
    for line in [*(ROOT / ".ci/floors.txt").read_text().splitlines(),
                 *(ROOT / ".ci/floors-extras.txt").read_text().splitlines()]:
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            floors[name.lower()] = min(floors.get(name.lower(), version), version, key=_version)
    project = _pyproject()["project"]
    groups = [project["dependencies"]] + [project["optional-dependencies"][g]
                                          for g in ("train", "export", "eval")]
    for requirement in (r for group in groups for r in group):
        name, floor = _floor(requirement)
        if name in UNTESTED_FLOORS:
            continue
        assert name in floors, f"{requirement}: no floor in .ci/floors*.txt"
        assert floor and _version(floor) == _version(floors[name]), (
            f"{requirement}: the floor job tests {name}=={floors[name]}")


def test_shipped_folders_of_a_checkout_are_its_top_level_ones():
    assert install.shipped("configs") == ROOT / "configs"
    assert install.shipped("cpus") == ROOT / "cpus"
    assert policies.registry.CONFIG_PATH == ROOT / "configs" / "cpus.yaml"
    with pytest.raises(ValueError, match="'models'.*configs, cpus"):
        install.shipped("models")


def test_shipped_folders_prefer_the_copy_inside_the_package(tmp_path, monkeypatch):
    # a wheel holds climbrl/_data/configs: found there, whatever is beside site-packages
    (tmp_path / "configs").mkdir()
    monkeypatch.setattr(install, "PACKAGED", tmp_path)
    assert install.shipped("configs") == tmp_path / "configs"
    assert install.shipped("cpus") == ROOT / "cpus"  # no packaged copy: the checkout's


@pytest.mark.parametrize("name", ["daifugo4", "daifugo4.yaml", "configs/daifugo4.yaml"])
def test_a_shipped_config_is_found_by_name_from_any_folder(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_config(name) == ROOT / "configs" / "daifugo4.yaml"
    assert make_args(name).game == "daifugo"


def test_a_file_in_the_working_folder_wins_over_the_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "daifugo4.yaml").write_text("game: president\n")
    assert make_args("daifugo4.yaml").game == "president"
    assert make_args("daifugo4").game == "daifugo"  # no file called daifugo4: the shipped one


@pytest.mark.parametrize("name", ["nope", "nope.yaml", "cpus", "elsewhere/daifugo4.yaml"])
def test_a_missing_config_names_the_shipped_ones(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as err:
        find_config(name)
    message = str(err.value)
    assert "\n" not in message and repr(name) in message
    assert message.endswith("(" + ", ".join(shipped_configs()) + ")")
    assert "daifugo4" in shipped_configs() and "cpus" not in shipped_configs()


def test_cpu_levels_and_shipped_cpus_load_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert policies.load("daifugo", "hard").name == "hard"
    cpu = policies.load("daifugo", "cpus/daifugo", seed=0)
    assert cpu.name == "cpus/daifugo" and cpu.meta["trained"]["frames"] > 0
    with pytest.raises(ValueError, match="other/daifugo"):  # elsewhere: still an error
        policies.load("daifugo", "other/daifugo")


def test_engines_import_and_play_with_numpy_alone():
    # regression: `import envs` imported PettingZoo, so the pure engines needed it installed
    # (.ci/run also runs this script in a virtualenv holding numpy only)
    done = subprocess.run([sys.executable, str(ROOT / ".ci" / "numpy_only.py"), "--hide"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("played a game with numpy") == 2
    assert "need gymnasium and pettingzoo>=1.27" in done.stdout
    assert "the engines climbrl.envs.daifugo and climbrl.envs.doudizhu need numpy only" in done.stdout


def test_a_pettingzoo_without_registry_warns_and_registers_nothing(tmp_path):
    # pettingzoo 1.25 and 1.26 have no pettingzoo.register: `import envs` failed on them
    (tmp_path / "pettingzoo").mkdir()
    (tmp_path / "pettingzoo" / "__init__.py").write_text('__version__ = "1.26.1"\n')
    done = _run("""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from climbrl import envs
        print(*(w.message for w in caught))
        from climbrl.envs.daifugo import DaifugoGame
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pettingzoo 1.26.1 has no environment registry" in done.stdout
    assert "pip install 'pettingzoo>=1.27'" in done.stdout


def test_import_envs_registers_the_ids():
    import pettingzoo

    from climbrl import envs

    assert set(envs.ENV_IDS) <= set(pettingzoo.aec_registry)
    env = pettingzoo.make("aec", "climbrl/doudizhu-v1")
    assert env.unwrapped.metadata["name"] == "doudizhu_v1"


def test_a_project_with_its_own_envs_and_training_packages_imports_both(tmp_path):
    # regression: climbrl installed top-level envs and training packages, so a research
    # project with folders of those names got a refusal at import and had to rename them
    for name in ("envs", "training", "policies", "benchmarks"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"OWN = {name!r}\n")
    done = _run("""
        import warnings
        warnings.simplefilter("error")
        import benchmarks, envs, policies, training
        from climbrl import envs as climbrl_envs, policies as climbrl_policies
        from climbrl.training.evaluate import make_env
        import climbrl.cli
        assert (envs.OWN, training.OWN, policies.OWN, benchmarks.OWN) == (
            "envs", "training", "policies", "benchmarks")
        assert "daifugo" in climbrl_envs.GAMES
        assert climbrl_policies.load("daifugo", "random", seed=0).name == "random"
        print("both")
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["both"], done.stdout + done.stderr


def test_a_wheel_built_from_the_sdist_carries_every_compiled_core(tmp_path):
    # the sdist carries every C source and header MANIFEST.in names (and no build of them); a
    # wheel built from that sdist alone carries each compiled core (where this Python can
    # compile), not their sources
    from climbrl.envs.daifugo import compiled as daifugo_core
    from climbrl.envs.doudizhu import compiled as doudizhu_core

    sources = [line.split()[1] for line in (ROOT / "MANIFEST.in").read_text().splitlines()
               if line.startswith("include envs/") and line.endswith((".c", ".h"))]
    assert "envs/daifugo/_fast.c" in sources and "envs/doudizhu/_engine.c" in sources
    done = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base",
                           str(tmp_path), "sdist", "--dist-dir", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    (sdist,) = tmp_path.glob("climbrl-*.tar.gz")
    with tarfile.open(sdist) as archive:
        in_sdist = [name.partition("/")[2] for name in archive.getnames()]
    assert set(sources) <= set(in_sdist), sorted(set(sources) - set(in_sdist))
    assert not [n for n in in_sdist if n.endswith((".so", ".pyd"))]
    in_wheel = wheel_names(sdist, tmp_path)
    for game, core in (("daifugo", daifugo_core), ("doudizhu", doudizhu_core)):
        built = [n for n in in_wheel if n.startswith(f"climbrl/envs/{game}/_fast")]
        if core.available():
            assert built and all(n.endswith((".so", ".pyd")) for n in built), built
    assert not [n for n in in_wheel if n.endswith((".c", ".h"))]
