"""The ``climbrl`` command line.

- ``climbrl bench``: environment speed figures (:mod:`benchmarks.daifugo`; ``--compare``:
  :mod:`benchmarks.compare`);
- ``climbrl eval``: a duplicate-deal tournament (:mod:`training.evaluate`);
- ``climbrl play``: a match at the terminal against CPUs (:mod:`training.play`);
- ``climbrl train --config configs/daifugo4.yaml [--key value ...]`` or ``climbrl train
  --resume runs/<run-name>``: self-play training (:mod:`training.dmc`);
- ``climbrl export runs/<run-name> --out cpus/NAME``: a CPU player for onnxruntime
  (:mod:`training.export`);
- ``climbrl serve [--host 127.0.0.1] [--port 8000] [--db PATH]``: the table server for the
  browser page (:mod:`training.table.app`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

GAMES = ("daifugo", "president", "doudizhu")


def _specs(text: str) -> tuple[str, ...]:
    specs = tuple(s.strip() for s in text.split(",") if s.strip())
    if not specs:
        raise argparse.ArgumentTypeError(f"no player in {text!r}")
    return specs


def _rule(text: str) -> tuple[str, object]:
    from policies.registry import knob_value

    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"--rule needs NAME=VALUE, got {text!r}")
    return name.strip(), knob_value(value.strip())


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--rounds", type=int, default=None, help="rounds per match (Daifugo/President)")
    p.add_argument(
        "--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE",
        help="a house-rule switch of the env, e.g. --rule lock=false (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    from training.evaluate import DEFAULT_DEALS, DEFAULT_ROUNDS, DEFAULT_WORKERS

    parser = argparse.ArgumentParser(prog="climbrl", description="climbrl command line")
    sub = parser.add_subparsers(dest="command", required=True)
    bench_parser = sub.add_parser("bench", help="print environment speed figures")
    bench_parser.add_argument("--compare", action="store_true",
                              help="side by side with RLCard, DouZero and OpenSpiel "
                                   "(benchmarks.compare; its options follow)")

    ev = sub.add_parser(
        "eval",
        help="duplicate-deal tournament between players",
        description="Players are names (random, easy, medium, hard, scripted-hard:rollouts=400) "
        "or checkpoint paths. --players seats one lineup (rotated over the seats); --pool plays "
        "every two players against each other (A B A B) and ranks the whole pool.",
    )
    _add_common(ev)
    who = ev.add_mutually_exclusive_group(required=True)
    who.add_argument("--players", type=_specs, help="one player per seat, comma separated")
    who.add_argument("--pool", type=_specs, help="players to rank, comma separated")
    ev.add_argument("--table", type=int, default=None, help="table size in --pool mode")
    ev.add_argument("--deals", type=int, default=DEFAULT_DEALS)
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    ev.add_argument("--out", default=None, help="output folder (default runs/eval/<game>-<time>)")
    ev.add_argument(
        "--landlord", choices=("bid", "fixed"), default="bid",
        help="Dou Dizhu: the bidding decides the landlord (bid), or DouZero's duel (fixed): "
        "the first player of --players is the landlord, then the roles swap",
    )
    ev.add_argument("--no-progress", action="store_true")
    ev.set_defaults(rounds=DEFAULT_ROUNDS)

    train = sub.add_parser(
        "train", help="self-play training (Deep Monte-Carlo)",
        description="Train by self-play. Any setting of training.dmc.Args can be given as "
        "--key value after the config (e.g. --minutes 3 --actors 2).")
    train.add_argument("--config", help="YAML file of settings (configs/*.yaml)")
    export = sub.add_parser("export", help="write a checkpoint as an onnxruntime CPU player")
    export.add_argument("checkpoint", help="checkpoint file or run directory")
    export.add_argument("--out", required=True, help="directory to write (e.g. cpus/NAME)")

    pl = sub.add_parser("play", help="play at the terminal against CPUs")
    _add_common(pl)
    pl.add_argument("--cpus", type=_specs, required=True, help="the CPUs, comma separated")
    pl.add_argument("--seed", type=int, default=None)
    pl.add_argument("--seat", type=int, default=0, help="your seat")

    sv = sub.add_parser("serve", help="the table server: play in a browser (docs/protocol.md)")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--db", default=None,
                    help="SQLite file of the rooms (default $XDG_DATA_HOME/climbrl/tables.db)")
    sv.add_argument("--grace", type=float, default=30.0,
                    help="seconds a disconnected person keeps a seat before a CPU plays it")
    sv.add_argument("--think", type=float, default=5.0, help="most seconds a CPU may think")
    sv.add_argument("--workers", type=int, default=2, help="CPU worker processes")
    sv.add_argument("--cpu-backend", choices=("process", "thread"), default="process",
                    help="where CPUs think: worker processes (default) or threads")
    sv.add_argument("--rate", type=float, default=20.0, help="messages per second per connection")
    sv.set_defaults(func=_serve)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "bench":
        if args.compare:
            from benchmarks.compare import main as bench
        else:
            from benchmarks.daifugo import main as bench

        bench(rest)
        return 0
    if args.command == "train":
        if not args.config and "--resume" not in " ".join(rest):
            parser.error("train needs --config FILE (or --resume RUN)")
        return _train(args.config, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "eval":
        return _eval(args)
    if getattr(args, "func", None) is not None:
        return args.func(args)
    if args.command == "export":
        from training.export import export

        print(f"wrote {export(args.checkpoint, args.out)}")
        return 0
    return _play(args)


def _train(config: str | None, overrides: list[str]) -> int:
    # one thread per process: with torch's default threads, actor processes on a small
    # machine fight over the cores and run many times slower
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from training.config import make_args
    from training.dmc import train

    summary = train(make_args(config, overrides))
    print(f"run {summary['run_dir']}: {summary['frames']} frames in "
          f"{summary['elapsed']:.0f} s; checkpoint {summary['checkpoint']}")
    if summary["evaluations"]:
        last = summary["evaluations"][-1]
        print(f"last evaluation: {last['text']}")
    return 0


def _eval(args) -> int:
    from training import evaluate

    if args.pool:
        table = args.table or evaluate.DEFAULT_TABLE[args.game]
        lineups = evaluate.pool_lineups(args.pool, table, args.landlord)
    else:
        lineups = (args.players,)
    config = evaluate.EvalConfig(
        game=args.game,
        lineups=lineups,
        deals=args.deals,
        rounds=args.rounds,
        seed=args.seed,
        workers=args.workers,
        rules=tuple(args.rule),
        progress=not args.no_progress,
        landlord=args.landlord,
    )
    start = time.perf_counter()
    records = evaluate.run(config)
    report = evaluate.summarize(config, records)
    out = args.out or f"runs/eval/{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    paths = evaluate.write_outputs(report, out)
    print(evaluate.format_report(report))
    print(f"\n{time.perf_counter() - start:.0f} s; wrote {', '.join(str(p) for p in paths.values())}")
    return 0


def _serve(args) -> int:
    try:
        from training.table.app import serve
    except ModuleNotFoundError as err:
        print(f"climbrl serve needs the serve extra (missing {err.name}): pip install 'climbrl[serve]'",
              file=sys.stderr)
        return 2
    serve(args.host, args.port, args.db, args.grace, think_s=args.think, workers=args.workers,
          rate=args.rate, burst=max(int(2 * args.rate), 1), cpu_backend=args.cpu_backend)
    return 0


def _play(args) -> int:
    from training.play import play_match

    play_match(args.game, args.cpus, args.rounds, args.seed, dict(args.rule), args.seat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
