"""Installability: the package list and dependency floors of pyproject.toml, the shipped files
(configs/ and cpus/) found from any folder, training configs by name, the engines with numpy
alone, and a foreign ``envs`` package refused. (The wheel itself is built, installed and
smoke-tested by .ci/run through .ci/wheel_smoke.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import policies
from policies import install
from training.config import find_config, make_args, shipped_configs

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_ROOTS = ("benchmarks", "envs", "policies", "training")
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
    # regression: packages are listed by hand (the data folders need a mapping), so a new
    # subpackage left out of the list would be missing from the wheel
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = {str(p.parent.relative_to(ROOT)).replace("/", ".")
             for root in PACKAGE_ROOTS for p in (ROOT / root).rglob("__init__.py")}
    assert found <= listed, f"missing from pyproject.toml: {sorted(found - listed)}"
    mapping = _pyproject()["tool"]["setuptools"]["package-dir"]
    assert {Path(folder).name for folder in mapping.values()} == set(install.FOLDERS)
    for package, folder in mapping.items():
        assert package in listed and package.startswith("policies._data.")
        assert (ROOT / folder).is_dir()


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
    # a wheel holds policies/_data/configs: found there, whatever is beside site-packages
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
    assert "the engines envs.daifugo and envs.doudizhu need numpy only" in done.stdout


def test_a_pettingzoo_without_registry_warns_and_registers_nothing(tmp_path):
    # pettingzoo 1.25 and 1.26 have no pettingzoo.register: `import envs` failed on them
    (tmp_path / "pettingzoo").mkdir()
    (tmp_path / "pettingzoo" / "__init__.py").write_text('__version__ = "1.26.1"\n')
    done = _run("""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import envs
        print(*(w.message for w in caught))
        from envs.daifugo import DaifugoGame
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pettingzoo 1.26.1 has no environment registry" in done.stdout
    assert "pip install 'pettingzoo>=1.27'" in done.stdout


def test_import_envs_registers_the_ids():
    import pettingzoo

    import envs

    assert set(envs.ENV_IDS) <= set(pettingzoo.aec_registry)
    env = pettingzoo.make("aec", "climbrl/doudizhu-v1")
    assert env.unwrapped.metadata["name"] == "doudizhu_v1"


@pytest.mark.parametrize("module", ["policies", "training", "training.cli"])
def test_a_foreign_envs_package_is_refused_with_one_message(module, tmp_path):
    # PyPI has a package called envs: installed with climbrl it shadows ours
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "__init__.py").write_text("")
    done = _run(f"import {module}", tmp_path)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (f"ImportError: the 'envs' package at {tmp_path / 'envs' / '__init__.py'} "
                    "is not climbrl's (another package named envs is installed): install "
                    "climbrl in its own virtualenv")
