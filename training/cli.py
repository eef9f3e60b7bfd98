"""The ``climbrl`` command line.

- ``climbrl bench``: environment speed figures (:mod:`benchmarks.daifugo`; ``--compare``:
  :mod:`benchmarks.compare`);
- ``climbrl eval``: a duplicate-deal tournament (:mod:`training.evaluate`);
- ``climbrl play``: a match at the terminal against CPUs (:mod:`training.play`);
- ``climbrl train --config configs/daifugo4.yaml [--key value ...]`` or ``climbrl train
  --resume runs/<run-name>``: self-play training (:mod:`training.dmc`);
- ``climbrl export runs/<run-name> --out cpus/NAME``: a CPU player for onnxruntime
  (:mod:`training.export`).

Exit status: 0 done; 2 a mistake in the command (a bad option, value, player or file: one
line on stderr, :class:`training.errors.UsageError`); 1 a failure while the work ran (one
line); 130 on Ctrl-C and 143 on SIGTERM. ``CLIMBRL_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .errors import (
    RunError,
    Terminated,
    UsageError,
    debugging,
    one_line,
    raise_on_sigterm,
    user_input,
)

GAMES = ("daifugo", "president", "doudizhu")
EXIT_USAGE = 2
EXIT_FAILED = 1
#: 128 + the signal number, as a shell reports a process ended by it
EXIT_INTERRUPTED = 128 + 2
EXIT_TERMINATED = 128 + 15


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
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds per match (Daifugo/President; default: the env's, Daifugo 3, "
                        "President 5)")
    p.add_argument(
        "--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE",
        help="a house-rule switch of the env, e.g. --rule lock=false (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    from training.evaluate import DEFAULT_DEALS, DEFAULT_WORKERS

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
    ev.add_argument("--out", default=None,
                    help="output folder (default runs/eval/<game>-<players>-<hash of the "
                         "settings>); the same command with the same folder resumes")
    ev.add_argument("--overwrite", action="store_true",
                    help="start again in an --out that holds a tournament with other settings")
    ev.add_argument(
        "--landlord", choices=("bid", "fixed"), default="bid",
        help="Dou Dizhu: the bidding decides the landlord (bid), or DouZero's duel (fixed): "
        "the first player of --players is the landlord, then the roles swap",
    )
    ev.add_argument("--no-progress", action="store_true",
                    help="no progress bar (on a log, not a terminal, it is a line a minute)")

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
    pl.add_argument("--no-auto-pass", dest="auto_pass", action="store_false",
                    help="ask you even when pass is your only legal move (by default you pass "
                         "with a line saying so)")
    return parser


def main(argv=None) -> int:
    """Run one command; returns the exit status (module docstring)."""
    try:
        return _main(argv)
    except (KeyboardInterrupt, Exception) as err:
        if debugging():
            raise
        return _report(err)


def _report(err: BaseException) -> int:
    """One line on stderr for ``err``; returns the exit status."""
    if isinstance(err, Terminated):
        print("climbrl: stopped by SIGTERM", file=sys.stderr)
        return EXIT_TERMINATED
    if isinstance(err, KeyboardInterrupt):
        print("climbrl: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if isinstance(err, UsageError):
        print(f"climbrl: error: {one_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    said = one_line(err) if isinstance(err, RunError) else f"{type(err).__name__}: {one_line(err)}"
    print(f"climbrl: failed: {said} (CLIMBRL_DEBUG=1 shows the traceback)", file=sys.stderr)
    return EXIT_FAILED


def _main(argv=None) -> int:
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

    with user_input():
        args = make_args(config, overrides)
    summary = train(args)
    print(f"run {summary['run_dir']}: {summary['frames']} frames in "
          f"{summary['elapsed']:.0f} s; checkpoint {summary['checkpoint']}")
    if summary["evaluations"]:
        last = summary["evaluations"][-1]
        print(f"last evaluation: {last['text']}")
    return 0


def _eval(args) -> int:
    from training import evaluate

    # every check before the first game: the players, the rules, the output folder
    with user_input():
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
        evaluate.check(config)
        out = args.out or evaluate.default_out(config)
    with user_input(f"--out {str(out)!r}"):
        store = evaluate.open_store(config, out, overwrite=args.overwrite)
    if not evaluate.plot_available():
        print("matplotlib is not installed: no ladder.png this time "
              "(pip install 'climbrl[eval]')", file=sys.stderr)
    total = config.deals * len(config.lineups)
    if store.finished:
        print(f"resuming {out}: {len(store.finished)} of {total} deals already played",
              file=sys.stderr)
    start = time.perf_counter()
    try:
        with raise_on_sigterm():
            records = evaluate.run(config, store)
    except KeyboardInterrupt as stop:
        store.close()
        why = "stopped by SIGTERM" if isinstance(stop, Terminated) else "interrupted"
        print(f"climbrl: {why} after {len(store.finished)} of {total} deals, saved in "
              f"{store.games_path}; the same command resumes", file=sys.stderr)
        return EXIT_TERMINATED if isinstance(stop, Terminated) else EXIT_INTERRUPTED
    report = evaluate.summarize(config, records)
    print(evaluate.format_report(report))
    paths = [store.finish(), *evaluate.write_outputs(report, out).values()]
    print(f"\n{time.perf_counter() - start:.0f} s; wrote {', '.join(str(p) for p in paths)}")
    return 0


def _play(args) -> int:
    from training.play import Match

    with user_input():
        match = Match(args.game, args.cpus, args.rounds, args.seed, dict(args.rule), args.seat,
                      auto_pass=args.auto_pass)
    match.play()
    return 0


if __name__ == "__main__":
    sys.exit(main())
