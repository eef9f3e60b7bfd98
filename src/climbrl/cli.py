"""The ``climbrl`` command line.

- ``climbrl bench``: environment speed figures of every game (:mod:`climbrl.benchmarks.envs`;
  ``--compare``: :mod:`climbrl.benchmarks.compare`);
- ``climbrl eval``: a duplicate-deal tournament (:mod:`climbrl.training.evaluate`);
- ``climbrl play``: a match at the terminal against CPUs (:mod:`climbrl.play.terminal`);
- ``climbrl train --config configs/daifugo4.yaml [--key value ...]`` or ``climbrl train
  --resume runs/<run-name>``: self-play training (:mod:`climbrl.training.dmc`);
- ``climbrl export runs/<run-name> --out cpus/NAME``: a CPU player for onnxruntime
  (:mod:`climbrl.training.export`);
- ``climbrl serve [--host 127.0.0.1] [--port 8000] [--db PATH]``: the table server for the
  browser page (:mod:`climbrl.play.server.app`);
- ``climbrl --version``: prints ``climbrl X.Y.Z`` (``climbrl.__version__``, the installed
  package's version).

Exit status, the same rule for every command: 0 done; 2 a mistake in the command, found
before any work starts, with one line on stderr that names it
(:class:`climbrl.training.errors.UsageError`): a bad option or value, an unknown player, or a
file or folder given on the command line that is missing, unreadable or of another kind
(``train --config`` / ``--resume``, ``export``'s checkpoint and ``--out``, a checkpoint or CPU
folder as an ``eval`` or ``play`` player, ``serve --db``, ``bench --json``); 1 a failure while
the work ran (one line); 130 on Ctrl-C and 143 on SIGTERM, after what was done is saved
(``train`` writes its checkpoint and says so, ``eval`` keeps the deals played: the same
command resumes either). ``CLIMBRL_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from climbrl import __version__, envs
from climbrl.training.errors import (
    RunError,
    Terminated,
    UsageError,
    debugging,
    one_line,
    raise_on_sigterm,
    user_input,
)

GAMES = tuple(envs.GAMES)
EXIT_USAGE = 2
EXIT_FAILED = 1
#: 128 + the signal number, as a shell reports a process ended by it
EXIT_INTERRUPTED = 128 + 2
EXIT_TERMINATED = 128 + 15


def _side_aliases() -> list[str]:
    """``--<lone side>`` of each game of sides (``--landlord``), for ``--sides``."""
    out = []
    for entry in envs.GAMES.values():
        try:
            sides = getattr(entry.game_class, "sides", ())
        except ValueError:
            continue  # an engine not importable here
        if sides and f"--{sides[0]}" not in out:
            out.append(f"--{sides[0]}")
    return out


def _specs(text: str) -> tuple[str, ...]:
    specs = tuple(s.strip() for s in text.split(",") if s.strip())
    if not specs:
        raise argparse.ArgumentTypeError(f"no player in {text!r}")
    return specs


class OneLineParser(argparse.ArgumentParser):
    """A mistake on the command line is one line on stderr (exit 2), not the usage block."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (--help for usage)\n")


def _room_days(text: str) -> float:
    try:
        days = float(text)
    except ValueError:
        days = float("nan")
    if not days >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"days, 0 or more (0 keeps every room), got {text!r}")
    return days


def _seconds(text: str, least: float = 0.0, none: str = "") -> float:
    """``text`` as seconds, ``least`` or more (more than ``least`` unless ``none`` says what
    ``least`` itself means)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not (seconds >= least if none else seconds > least):  # NaN too
        bound = f"{least:g} or more ({least:g} {none})" if none else f"more than {least:g}"
        raise argparse.ArgumentTypeError(f"seconds, {bound}, got {text!r}")
    return seconds


def _count(text: str, what: str) -> int:
    """``text`` as a whole number, 1 or more, of ``what``."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"a number of {what}, 1 or more, got {text!r}")
    return count


def _worker_count(text: str) -> int:
    return _count(text, "worker processes")


PORTS = range(1, 65536)
"""the TCP ports a server may listen on"""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if port not in PORTS:
        raise argparse.ArgumentTypeError(
            f"a TCP port, {PORTS.start} to {PORTS.stop - 1}, got {text!r}")
    return port


def _check_listen(host: str, port: int) -> None:
    """Refuse, as a mistake in the command, a host and port this machine cannot listen on (a
    port in use, an address not of this machine), before anything starts."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise UsageError(f"--host {host}: {err.strerror or err}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(address)
        except OSError as err:
            raise UsageError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None


def _rule(text: str) -> tuple[str, object]:
    from climbrl.policies.registry import knob_value

    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"--rule needs NAME=VALUE, got {text!r}")
    return name.strip(), knob_value(value.strip())


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=tuple(envs.GAMES))
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds per match (games scored by places; default: the env's, "
                        "UECda 5)")
    p.add_argument(
        "--rule", type=_rule, action="append", default=[], metavar="NAME=VALUE",
        help="a house-rule switch of the env, e.g. --rule lock=false (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    from climbrl.training.evaluate import DEFAULT_DEALS, DEFAULT_WORKERS

    parser = OneLineParser(prog="climbrl", description="climbrl command line")
    parser.add_argument("--version", action="version", version=f"climbrl {__version__}",
                        help="print climbrl's version (climbrl X.Y.Z) and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    bench_parser = sub.add_parser(
        "bench", help="print environment speed figures",
        description="Random-play speed of every game's engine and env, and legal-move times "
        "(climbrl.benchmarks.envs; about a minute), a line per measurement as it finishes. Options "
        "follow: --seconds S (per measurement, default 1), --repeats N (default 3), --seed N, "
        "--hands N (Dou Dizhu legal moves), --json FILE; with --compare, those of "
        "climbrl.benchmarks.compare (python -m climbrl.benchmarks.compare --help).")
    bench_parser.add_argument("--compare", action="store_true",
                              help="side by side with RLCard, DouZero and OpenSpiel "
                                   "(climbrl.benchmarks.compare; its options follow)")

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
    ev.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="ray: the deals run as Ray tasks over a cluster (--workers sizes the "
                    "chunks); same results as local workers")
    ev.add_argument("--ray-address", default=None,
                    help="--backend ray: the cluster (auto, HOST:PORT); default: Ray on this "
                    "machine")
    ev.add_argument(
        "--sides", *_side_aliases(), dest="sides", choices=("bid", "fixed"), default="bid",
        help="games of sides: the game decides them as it plays (bid), or DouZero's duel "
        "(fixed): the first player of --players is the lone side, then the roles swap; also "
        "spelt --<the lone side>",
    )
    ev.add_argument("--no-progress", action="store_true",
                    help="no progress bar (on a log, not a terminal, it is a line a minute)")

    _add_train(sub)
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

    sv = sub.add_parser("serve", help="the table server: play in a browser (docs/protocol.md)")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=_port, default=8000, help="TCP port, 1 to 65535")
    sv.add_argument("--db", default=None,
                    help="SQLite file of the rooms (default $XDG_DATA_HOME/climbrl/tables.db)")
    sv.add_argument("--grace", type=float, default=30.0,
                    help="seconds a disconnected person keeps a seat before a CPU plays it")
    sv.add_argument("--think", type=_seconds, default=5.0,
                    help="most seconds a CPU may think (from the moment a worker starts its decision)")
    sv.add_argument("--workers", type=_worker_count, default=2, help="CPU worker processes")
    sv.add_argument("--cpu-backend", choices=("process", "thread"), default="process",
                    help="where CPUs think: worker processes (default) or threads")
    sv.add_argument("--cpu-wait", type=lambda text: _seconds(text, 0.0, "never refuses"), default=5.0,
                    help="new rooms with CPUs are refused while a CPU move would wait longer than "
                         "this for a worker; 0 never refuses")
    sv.add_argument("--rate", type=float, default=20.0, help="messages per second per connection")
    sv.add_argument("--room-days", type=_room_days, default=7.0,
                    help="days a room nobody uses (no move, nobody joining) is kept before it is "
                         "dropped from the file; 0 keeps every room")
    sv.add_argument("--allow-origin", dest="allow_origins", action="append", default=[],
                    metavar="ORIGIN",
                    help="a page origin (https://cards.example) whose WebSockets are let in "
                         "besides the server's own; repeat for more")
    sv.add_argument("--work-per-s", type=_seconds, default=0.05,
                    help="seconds of server work (frames, hints, checks a connection asks for) "
                         "each connection may cost per second; past it those requests get busy")
    sv.add_argument("--work-burst", type=_seconds, default=0.5,
                    help="seconds of such work a connection may cost at once")
    sv.add_argument("--rooms-per-client", type=lambda t: _count(t, "rooms"), default=20,
                    help="rooms one client (IP address) may create in an hour; past it, "
                         "too_many_rooms")
    sv.add_argument("--max-rooms", type=lambda t: _count(t, "rooms"), default=2000,
                    help="rooms the server holds in all; past it new rooms get too_many_rooms")
    sv.add_argument("--connections-per-client", type=lambda t: _count(t, "connections"), default=32,
                    help="WebSockets one client (IP address) may hold open at once; past it, "
                         "too_many_connections")
    sv.add_argument("--idle", type=_seconds, default=120.0,
                    help="seconds a WebSocket may send nothing before it is closed (the page pings)")
    sv.add_argument("--header-timeout", type=_seconds, default=10.0,
                    help="seconds a client has from connecting to the end of its request headers")
    sv.add_argument("--seats-per-client", type=lambda t: _count(t, "seats"), default=1,
                    help="seats one client (IP address) may take in a friends room by joining "
                         "with its link; past it, already_seated")
    sv.add_argument("--unload-after", type=lambda text: _seconds(text, 0.0, "keeps every room in memory"),
                    default=300.0,
                    help="seconds after which a room nobody is connected to, where nothing "
                         "happens, leaves memory (it comes back from the file, as it was, when "
                         "someone joins); 0 keeps every room in memory")
    sv.set_defaults(func=_serve)
    _add_uecda(sub)
    return parser


def _add_uecda(sub) -> None:
    """``climbrl uecda play`` and ``climbrl uecda serve``: the UECda protocol (docs/uecda.md)."""
    from climbrl.play.uecda.client import DEFAULT_SILENCE_S, DEFAULT_THINK_S
    from climbrl.play.uecda.wire import DEFAULT_PORT

    uecda = sub.add_parser("uecda", help="the UECda computer-Daihinmin protocol (docs/uecda.md)")
    which = uecda.add_subparsers(dest="uecda_command", required=True, parser_class=OneLineParser)
    cl = which.add_parser("play", help="seat a player of ours on a UECda server (protocol 20070)")
    cl.add_argument("--host", default="127.0.0.1", help="the server's address")
    cl.add_argument("--port", type=_port, default=DEFAULT_PORT, help="TCP port, 1 to 65535")
    cl.add_argument("--cpu", default="scripted-hard",
                    help="the player: a name of the registry (scripted-hard, random...), a "
                         "checkpoint or search:PATH, as climbrl eval --players takes them")
    cl.add_argument("--name", default="climbrl", help="the name sent in the profile "
                    "(the server keeps 9 characters; --seats N adds 1..N)")
    cl.add_argument("--seats", type=lambda t: _count(t, "seats"), default=1,
                    help="clients to run at once (threads), 1 to 5")
    cl.add_argument("--think", type=_seconds, default=DEFAULT_THINK_S,
                    help="most seconds a decision may take; past it a fast scripted move is sent")
    cl.add_argument("--silence", type=_seconds, default=DEFAULT_SILENCE_S,
                    help="seconds without a message from the server before the client stops")
    cl.add_argument("--seed", type=int, default=None, help="the player's random seed")
    cl.add_argument("--record", default=None, metavar="FILE",
                    help="write the conversation as JSON lines (with --seats N: FILE.1..N)")
    cl.set_defaults(func=_uecda_play)
    sv = which.add_parser("serve", help="a UECda server of ours: 5 clients, the official "
                          "server's schedule (or --duplicate deals)")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=_port, default=DEFAULT_PORT, help="TCP port, 1 to 65535")
    sv.add_argument("--games", type=lambda t: _count(t, "games"), default=100,
                    help="games in all (with --duplicate rounded up to whole sets of 5 "
                    "rotations of a deal)")
    sv.add_argument("--duplicate", action="store_true",
                    help="duplicate deals: each deal replayed with the players rotated over the "
                    "seats, 95%% intervals over deals (default: the official server's schedule)")
    sv.add_argument("--seed", type=int, default=0, help="seed of the deals")
    sv.add_argument("--timeout", type=_seconds, default=DEFAULT_SILENCE_S,
                    help="seconds a client may take to answer before the run ends")
    sv.add_argument("--record", default=None, metavar="FILE",
                    help="write every client's conversation as JSON lines (FILE.0..4)")
    sv.set_defaults(func=_uecda_serve)


def _add_train(sub) -> None:
    """The train subcommand: ``--config`` plus every setting of ``climbrl.training.dmc.Args``, with
    its type, default and doc. Values are read as YAML and checked by ``climbrl.training.config``."""
    import dataclasses

    try:  # the settings live beside the trainer, which needs torch (the train extra)
        from climbrl.training.config import field_docs, type_text
        from climbrl.training.dmc import Args
    except ModuleNotFoundError as err:
        sub.add_parser("train", help=f"self-play training (needs the train extra: {err.name} "
                       "is missing; pip install 'climbrl[train]')")
        return

    train = sub.add_parser(
        "train", help="self-play training (Deep Monte-Carlo)", allow_abbrev=False,
        description="Train by self-play. Settings come from the Args defaults, then --config, "
        "then the command line; --resume RUN takes the run's recorded settings (all but "
        "--minutes, which is each invocation's budget). Values are YAML: --rules "
        "\"{lock: false}\", --state-layers \"[256, 256]\", --total-frames null.",
        epilog="The run stops at --minutes (this invocation), --total-frames (the whole run) "
        "or Ctrl-C / SIGTERM, and says which; it writes runs_dir/run_name/checkpoint.pt then "
        "(exit status 0; 130 after Ctrl-C, 143 after SIGTERM, the checkpoint written all "
        "the same). The run folder's .lock is there only while the trainer runs.")
    train.add_argument("--config", default=None,
                       help="YAML file of settings (configs/*.yaml)")
    docs = field_docs(Args)
    for f in dataclasses.fields(Args):
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        # the value stays text here (SUPPRESS: only given settings appear) and is read as
        # YAML against the setting's type in climbrl.training.config, as from a config file
        switch = {"nargs": "?", "const": "true"} if isinstance(default, bool) else {}
        train.add_argument(f"--{f.name.replace('_', '-')}", dest=f"setting_{f.name}",
                           default=argparse.SUPPRESS, metavar=type_text(f.name).upper(),
                           help=f"{docs.get(f.name, '')} (default: {_yaml_text(default)})",
                           **switch)
    for key, titles in envs.start_options().items():
        if key in docs:
            continue  # a setting of its own already
        doc = next(entry.game_class.start_options[key] for entry in envs.GAMES.values()
                   if entry.title in titles)
        train.add_argument(f"--{key.replace('_', '-')}", dest=f"setting_{key}",
                           default=argparse.SUPPRESS, metavar="VALUE",
                           help=f"{' / '.join(titles)} start option (into start): {doc}")


def _yaml_text(value) -> str:
    """A default as it would be typed (``null``, ``true``, ``[512, 512]``)."""
    import json

    return value if isinstance(value, str) else json.dumps(value)


def _train_overrides(args, rest: list[str]) -> dict:
    """The settings given on the command line: the train subparser's, then the ``--key_name``
    spellings it left in ``rest``."""
    from climbrl.training.config import parse_overrides, typed_value

    given = {key[len("setting_"):]: value for key, value in vars(args).items()
             if key.startswith("setting_")}
    out = {key: typed_value(key, text) for key, text in given.items()}
    return {**out, **parse_overrides(rest)}


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
    # one torch thread per process, set before anything imports torch: with torch's default
    # threads a trainer's actors, or a tournament's checkpoint players beside other work, fight
    # over the cores and run many times slower (the exported CPUs' ONNX sessions use one)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "bench":
        return _bench(args.compare, rest)
    if args.command == "train":
        with user_input():
            overrides = _train_overrides(args, rest)
        if not args.config and not overrides.get("resume"):
            parser.error("train needs --config FILE (or --resume RUN)")
        return _train(args.config, overrides)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "eval":
        return _eval(args)
    if getattr(args, "func", None) is not None:
        return args.func(args)
    if args.command == "export":
        return _export(args.checkpoint, args.out)
    return _play(args)


def _bench(compare: bool, rest: list[str]) -> int:
    """``climbrl bench [--compare]``: every option (``--json FILE`` included) is checked
    before the first measurement, a mistake in one line."""
    if compare:
        from climbrl.benchmarks import compare as bench
    else:
        from climbrl.benchmarks import envs as bench

    prog = "climbrl bench --compare" if compare else "climbrl bench"
    with user_input():
        options = bench.parse_args(rest, prog=prog, parser_class=OneLineParser)
    if compare:
        bench.run(options, rest)
    else:
        bench.run(options)
    return 0


def _export(checkpoint: str, out: str) -> int:
    """``climbrl export``: a missing, damaged or foreign checkpoint, or an ``--out`` that cannot
    be made, is the user's mistake (status 2), found before anything is written."""
    from pathlib import Path

    from climbrl.training.export import export, read_checkpoint

    with user_input():
        data = read_checkpoint(checkpoint)
    with user_input(f"--out {out!r}"):
        Path(out).mkdir(parents=True, exist_ok=True)
    print(f"wrote {export(checkpoint, out, data)}")
    return 0


def _train(config: str | None, overrides: dict) -> int:
    from climbrl.training.config import make_args
    from climbrl.training.dmc import train, uses_panel
    from climbrl.training.rundir import RunFolderError
    from climbrl.training.tables import Tables

    with user_input():  # the settings and the tables they make are the user's input
        args = make_args(config, overrides)
        args.validate()
        tables = Tables(**args.table_kwargs())
        if uses_panel(args):
            tables.panel(args.eval_tables)
    try:
        summary = train(args)
    except RunFolderError as err:  # a run folder in the way is the user's to settle
        raise UsageError(one_line(err)) from err
    print(f"{summary['stopped']}")
    print(f"run {summary['run_dir']}: {summary['frames']:,} frames, "
          f"{summary['elapsed']:.0f} s of training in all; checkpoint {summary['checkpoint']}")
    if summary["evaluations"]:
        last = summary["evaluations"][-1]
        print(f"last evaluation: {last['text']}")
    if summary["interrupted"]:  # saved, and said so: the status still tells a script why
        return EXIT_TERMINATED if summary["signal"] == "SIGTERM" else EXIT_INTERRUPTED
    return 0


def _eval(args) -> int:
    from climbrl.training import evaluate

    # every check before the first game: the players, the rules, the output folder
    with user_input():
        if args.pool:
            table = args.table or evaluate.DEFAULT_TABLE[args.game]
            lineups = evaluate.pool_lineups(args.pool, table, args.sides)
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
            sides=args.sides,
        )
        map_chunks = _map_chunks(args)
        config = evaluate.check(config)
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
            records = evaluate.run(config, store, map_chunks)
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


def _serve(args) -> int:
    try:
        from climbrl.play.server.app import create_app, run_app
    except ModuleNotFoundError as err:
        print(f"climbrl serve needs the serve extra (missing {err.name}): pip install 'climbrl[serve]'",
              file=sys.stderr)
        return 2
    _check_listen(args.host, args.port)
    with user_input("--db"):  # the rooms' file opened before the server listens
        app = create_app(args.db, args.grace, think_s=args.think, workers=args.workers,
                         rate=args.rate, burst=max(int(2 * args.rate), 1),
                         cpu_backend=args.cpu_backend, room_days=args.room_days,
                         cpu_wait_s=args.cpu_wait, allow_origins=tuple(args.allow_origins),
                         work_per_s=args.work_per_s, work_burst_s=args.work_burst,
                         rooms_per_client=args.rooms_per_client, max_rooms=args.max_rooms,
                         connections_per_client=args.connections_per_client, idle_s=args.idle,
                         header_timeout_s=args.header_timeout,
                         seats_per_client=args.seats_per_client, unload_s=args.unload_after)
    run_app(app, args.host, args.port)
    return 0


def _uecda_play(args) -> int:
    from climbrl.play.uecda import client
    from climbrl.play.uecda.wire import JsonLinesRecorder, PLAYERS

    if args.seats > PLAYERS:
        raise UsageError(f"--seats: a UECda table has {PLAYERS} seats, got {args.seats}")
    with user_input("--cpu"):
        client.load_player(args.cpu, args.seed)
    recorders = []
    if args.record is not None:
        with user_input(f"--record {args.record!r}"):
            paths = [args.record] if args.seats == 1 else [f"{args.record}.{i + 1}"
                                                            for i in range(args.seats)]
            recorders = [JsonLinesRecorder(path) for path in paths]
    try:
        results = client.play_seats(args.host, args.port, args.cpu, args.name, args.seats,
                                    think_s=args.think, seed=args.seed, silence_s=args.silence,
                                    recorders=recorders or None)
    finally:
        for recorder in recorders:
            recorder.close()
    failed = [r for r in results if isinstance(r, Exception)]
    for result in results:
        summary = getattr(result, "summary", result)
        if summary is not None:
            print(summary.text())
    for err in failed:
        print(f"climbrl: failed: {one_line(err)}", file=sys.stderr)
    return EXIT_FAILED if failed else 0


def _uecda_serve(args) -> int:
    from climbrl.play.uecda import server

    _check_listen(args.host, args.port)
    report = server.serve(args.host, args.port, args.games, args.seed, timeout_s=args.timeout,
                          record=args.record, duplicate=args.duplicate)
    print(server.format_report(report))
    return 0 if report["complete"] else EXIT_FAILED


def _map_chunks(args):
    """How ``climbrl eval`` spreads its deals: None (local workers) or over Ray."""
    if args.backend != "ray":
        if args.ray_address is not None:
            raise ValueError("--ray-address is an option of --backend ray")
        return None
    import functools

    from climbrl.training import ray_backend

    if not ray_backend.available():
        raise ValueError(f"--backend ray needs Ray, which is not installed: "
                         f"{ray_backend.INSTALL_HINT}")
    return functools.partial(ray_backend.map_chunks, address=args.ray_address)


def _play(args) -> int:
    from climbrl.play.terminal import Match

    with user_input():
        match = Match(args.game, args.cpus, args.rounds, args.seed, dict(args.rule), args.seat,
                      auto_pass=args.auto_pass)
    match.play()
    return 0


if __name__ == "__main__":
    sys.exit(main())
