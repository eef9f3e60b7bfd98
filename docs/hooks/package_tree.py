"""MkDocs hook: lets mkdocstrings read ``climbrl`` from its sources.

The package is put together from several top-level folders of the repository
(``[tool.setuptools.package-dir]`` of pyproject.toml: ``climbrl.envs`` is ``envs/``), which
the static analysis of mkdocstrings cannot follow. Before mkdocstrings starts, this hook lays
the package out as an installed one would be, in a temporary folder of symbolic links to the
sources, and gives that folder to the python handler as its search path; the folder is
removed after the build.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import tomllib
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
#: the handler option that carries the folder (read back to remove it after the build)
PATHS = "paths"


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """Each package of pyproject.toml's package-dir and the folder that holds it."""
    project = tomllib.loads((root / "pyproject.toml").read_text())
    mapping = project["tool"]["setuptools"]["package-dir"]
    return {name: root / folder for name, folder in mapping.items()}


def lay_out(tree: Path, packages: dict[str, Path]) -> None:
    """A folder per package under ``tree``, holding links to its source folder's entries
    (those that are not packages of their own)."""
    for name in sorted(packages):  # a package before its subpackages
        target = tree.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for entry in packages[name].iterdir():
            link = target / entry.name
            if not link.exists() and entry.name != "__pycache__":
                link.symlink_to(entry)


def _handler_options(config) -> dict:
    return config.plugins["mkdocstrings"].config["handlers"].setdefault("python", {})


@event_priority(100)  # before mkdocstrings reads its handler's options
def on_config(config):
    tree = Path(tempfile.mkdtemp(prefix="climbrl-docs-"))
    atexit.register(shutil.rmtree, tree, True)  # a failed build too
    lay_out(tree, package_dirs())
    _handler_options(config)[PATHS] = [str(tree)]
    return config


def on_post_build(config):
    for path in _handler_options(config).get(PATHS, []):
        shutil.rmtree(path, ignore_errors=True)

