"""climbrl: PettingZoo environments, scripted bots, a self-play trainer and a browser table
for the climbing card games Daifugo, President and Dou Dizhu.

The subpackages:

- :mod:`climbrl.envs`: the rules engines (numpy alone) and their PettingZoo environments;
- :mod:`climbrl.policies`: every player behind one protocol (scripted bots, trained CPUs,
  search, people), found by name with :func:`climbrl.policies.load`;
- :mod:`climbrl.training`: the self-play trainer, the evaluation harness and the export of
  CPU players;
- :mod:`climbrl.play`: where people play: the table server and its browser page, and the
  terminal;
- :mod:`climbrl.benchmarks`: scripts that print speed and strength figures;
- :mod:`climbrl.cli`: the ``climbrl`` command.

Importing ``climbrl`` itself imports none of them (nor numpy).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("climbrl")
except PackageNotFoundError:  # pragma: no cover - run from a tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
