"""The ``climbrl`` command line."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="climbrl", description="climbrl command line")
    sub = parser.add_subparsers(dest="command", required=True)
    bench_parser = sub.add_parser("bench", help="print environment speed figures")
    bench_parser.add_argument("--compare", action="store_true",
                              help="side by side with RLCard, DouZero and OpenSpiel "
                                   "(benchmarks.compare; its options follow)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "bench":
        if args.compare:
            from benchmarks.compare import main as bench
        else:
            from benchmarks.daifugo import main as bench

        bench(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
