"""Reading files pickled by climbrl 0.1, whose packages were top-level (``envs``,
``policies``, ``training``, ``benchmarks``): since 0.2 they are ``climbrl.envs`` and so on, and
the table server moved from ``training.table`` to ``climbrl.play.server``. A checkpoint or a
saved game pickles the classes of its engine states by module name; :class:`Unpickler`
reads either spelling, so a 0.1 run folder still resumes."""

from __future__ import annotations

import pickle
import types

MOVED = {
    "training.table": "climbrl.play.server",
    "training.play": "climbrl.play.terminal",
    "training.cli": "climbrl.cli",
}
"""modules of 0.1 that moved elsewhere than under ``climbrl.`` (their submodules follow)"""
OLD_PACKAGES = ("envs", "policies", "training", "benchmarks")
"""the top-level packages of 0.1, now subpackages of ``climbrl``"""


def current_module(module: str) -> str:
    """The module a 0.1 module name stands for today (other names unchanged)."""
    for old, new in MOVED.items():
        if module == old or module.startswith(old + "."):
            return new + module[len(old):]
    if module.partition(".")[0] in OLD_PACKAGES:
        return "climbrl." + module
    return module


class Unpickler(pickle.Unpickler):
    """A :class:`pickle.Unpickler` that finds 0.1's classes at their current modules."""

    def find_class(self, module: str, name: str):
        return super().find_class(current_module(module), name)


pickle_module = types.SimpleNamespace(Unpickler=Unpickler, load=pickle.load,
                                      __name__="climbrl.training.renamed")
"""for ``torch.load(..., pickle_module=pickle_module)``"""
