"""Every game's environment speed in one run: what ``climbrl bench`` prints.

    python -m climbrl.benchmarks.envs [--seconds 1] [--repeats 3] [--seed 0] [--hands 20000] [--json FILE]

Daifugo and President (:mod:`climbrl.benchmarks.daifugo`), then Dou Dizhu (:mod:`climbrl.benchmarks.doudizhu`),
in one format (:func:`climbrl.benchmarks.common.measure`): a line per measurement as it finishes, then
the tables of medians. The JSON file holds ``machine`` and each script's figures by game.
"""

from __future__ import annotations

import argparse

from . import daifugo, doudizhu
from .common import machine, parser, write_json


def parse_args(argv: list[str] | None, prog: str | None = None,
               parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
               ) -> argparse.Namespace:
    p = parser(__doc__.splitlines()[0], prog=prog, parser_class=parser_class)
    p.add_argument("--hands", type=int, default=20000,
                   help="Dou Dizhu hands for the legal-move timing")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    return run(parse_args(argv))


def run(args: argparse.Namespace) -> dict:
    print(f"machine: {machine()}", flush=True)
    print("\nDaifugo and President", flush=True)
    out = {"machine": machine(),
           "daifugo": daifugo.measure_all(args.seconds, args.repeats, args.seed)}
    print("\nDou Dizhu", flush=True)
    out["doudizhu"] = doudizhu.measure_all(args.seconds, args.repeats, args.seed, args.hands)
    write_json(args.json, out)
    return out


if __name__ == "__main__":
    main()
