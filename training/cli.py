"""The ``climbrl`` command line.

    climbrl bench [--compare]                       environment speed figures
    climbrl train --config configs/daifugo4.yaml [--key value ...]
    climbrl train --resume runs/<run-name> [--minutes 10]
    climbrl export runs/<run-name> --out cpus/NAME   a CPU player for onnxruntime
"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="climbrl", description="climbrl command line")
    sub = parser.add_subparsers(dest="command", required=True)
    bench_parser = sub.add_parser("bench", help="print environment speed figures")
    bench_parser.add_argument("--compare", action="store_true",
                              help="side by side with RLCard, DouZero and OpenSpiel "
                                   "(benchmarks.compare; its options follow)")
    train = sub.add_parser(
        "train", help="self-play training (Deep Monte-Carlo)",
        description="Train by self-play. Any setting of training.dmc.Args can be given as "
        "--key value after the config (e.g. --minutes 3 --actors 2).")
    train.add_argument("--config", help="YAML file of settings (configs/*.yaml)")
    export = sub.add_parser("export", help="write a checkpoint as an onnxruntime CPU player")
    export.add_argument("checkpoint", help="checkpoint file or run directory")
    export.add_argument("--out", required=True, help="directory to write (e.g. cpus/NAME)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "bench":
        if args.compare:
            from benchmarks.compare import main as bench
        else:
            from benchmarks.daifugo import main as bench

        bench(rest)
    elif args.command == "train":
        # one thread per process: with torch's default threads, actor processes on a small
        # machine fight over the cores and run many times slower
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from .config import make_args
        from .dmc import train as run

        if not args.config and "--resume" not in " ".join(rest):
            parser.error("train needs --config FILE (or --resume RUN)")
        summary = run(make_args(args.config, rest))
        print(f"run {summary['run_dir']}: {summary['frames']} frames in "
              f"{summary['elapsed']:.0f} s; checkpoint {summary['checkpoint']}")
        if summary["evaluations"]:
            last = summary["evaluations"][-1]
            print(f"last evaluation: {last['text']}")
    elif args.command == "export":
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        from .export import export as run_export

        out = run_export(args.checkpoint, args.out)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
