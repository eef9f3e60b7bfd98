"""climbrl side by side with RLCard, DouZero and OpenSpiel: speed and Dou Dizhu correctness.

    python -m climbrl.benchmarks.compare [--seconds 1] [--repeats 5] [--json PATH]
    climbrl bench --compare [same options]

One process run, every figure with interleaved repetitions (each repetition runs every case
once, in turn, so machine drift hits all alike), reported as median and spread (min, max):

* Dou Dizhu random play, games/s and steps/s: our engine (``climbrl.benchmarks.doudizhu.bench_engine``:
  bidding included; one ``DoudizhuGame`` for all repetitions, each dealing new games), our
  wrapped PettingZoo env (``bench_env``: observation and mask every step; ``env()`` as users
  get it, and ``raw_env()`` to show what PettingZoo's ``OrderEnforcingWrapper`` costs),
  RLCard's env and game core, DouZero's env and ``GameEnv`` core, OpenSpiel's C++ game with
  and without its observation tensor each step. Moves are uniform over the legal ones, drawn
  with ``random.Random``.
* Legal-move generation for the same fresh 20-card landlord hands leading a trick
  (``climbrl.benchmarks.doudizhu.landlord_hands``), microseconds per call: ours twice, with its
  per-rank-mask tables warmed on 20,000 *other* hands (its steady state; no hand timed was
  seen before: the target uses this one) and as a new generator whose first table fills are
  counted (``bench_legal_moves``); RLCard's judger, DouZero's ``MovesGener``, OpenSpiel's
  ``legal_actions`` on positions scripted to hold exactly those 20 cards (no cache anywhere).
* Daifugo and President random play, steps/s, engine and env (``climbrl.benchmarks.daifugo``).
* Self-play frames/s: ours through ``climbrl.training.benchmark.frames_per_second`` when that module
  exists, next to DouZero's DMC actor loop (see :func:`douzero_dmc_fps`).
* The Dou Dizhu legal-move cross-check of :mod:`climbrl.benchmarks.crosscheck`.

Peers that are not installed are skipped with a line saying so
(``pip install -e '.[bench]'``). The ratios of the targets are computed from the medians of
this one run (and, in a second column, from the best repetitions).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import itertools
import json
import logging
import os
import platform
import sys
import time
from collections.abc import Callable
from statistics import median

from . import crosscheck, peers
from .common import json_file, machine, print_table, summary, timed_rate
from .doudizhu import compiled_core

SECTIONS = ("doudizhu", "legal", "daifugo", "trainer", "check")
DAIFUGO_CONFIGS = (("daifugo", 3), ("daifugo", 4), ("president", 3), ("president", 4),
                   ("president", 6))
"""Daifugo seats 3-4 players, President 3-8: the 3, 4 and 6 player tables of the issue."""
TRAINER_GAME = "doudizhu"
DMC_BUFFERS = 2
"""Shared-memory rollout buffers given to DouZero's actor (it only cycles through them)."""

OUR_ENGINE = "ours: engine"
OUR_ENV = "ours: doudizhu_v1.env()"
OUR_RAW_ENV = "ours: raw_env() (no order wrapper)"
RLCARD_ENV = "rlcard: env"
RLCARD_CORE = "rlcard: game core"
OURS_LEGAL = "ours: lead, tables warmed on other hands"
OURS_LEGAL_COLD = "ours: lead, new generator (fills counted)"
WARM_HANDS = 20000
PASSES = 5
"""Passes over the hands in each legal-move repetition, the fastest kept: one pass takes a few
milliseconds, so a moment of contention for the CPU would otherwise decide it."""
"""Other hands that fill our generator's per-rank-mask tables before the timed (fresh) hands:
the generator's steady state in a long run; the new-generator figure is printed too."""
OPENSPIEL_LEGAL = "openspiel: legal_actions (C++)"
OPENSPIEL_OBSERVED = "openspiel: C++ game + observation"
OURS_TRAINER = "ours: climbrl.training.benchmark"
DMC_ACTOR = "douzero: DMC actor loop"

TARGETS = (
    # (what, numerator case, denominator case, figure, goal: at least this ratio)
    ("engine vs RLCard game core, steps/s", OUR_ENGINE, RLCARD_CORE, "steps_per_s", 10.0),
    ("wrapped env vs RLCard env, steps/s", OUR_ENV, RLCARD_ENV, "steps_per_s", 5.0),
    ("OpenSpiel C++ time / our time, legal moves", OPENSPIEL_LEGAL, OURS_LEGAL, "us", 0.5),
    ("wrapped env vs OpenSpiel C++ + observation, steps/s", OUR_ENV, OPENSPIEL_OBSERVED,
     "steps_per_s", 0.5),
    ("trainer vs DouZero DMC, frames/s", OURS_TRAINER, DMC_ACTOR, "frames_per_s", 3.0),
)
"""The issue's targets as ratios; the legal-move one is "within 2x of OpenSpiel": OpenSpiel's
microseconds over ours must be at least 0.5."""


def positive(kind: type, name: str) -> Callable[[str], float]:
    """An argparse type: a number > 0, or an error naming the option."""

    def convert(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be > 0, got {text!r}")
        return value

    return convert


def parse_args(argv: list[str] | None, prog: str = "python -m climbrl.benchmarks.compare",
               parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
               ) -> argparse.Namespace:
    """The options (``parser_class``, ``prog``: as the ``climbrl bench --compare`` command
    parses them); a ``ValueError`` for a bad subset or count."""
    parser = parser_class(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive(float, "--seconds"), default=1.0,
                        help="time per measurement (default 1)")
    parser.add_argument("--repeats", type=positive(int, "--repeats"), default=5,
                        help="interleaved repetitions of every measurement (default 5)")
    parser.add_argument("--hands", type=positive(int, "--hands"), default=300,
                        help="fresh 20-card hands for the legal-move timing (default 300)")
    parser.add_argument("--check-deals", type=positive(int, "--check-deals"), default=500,
                        help="random deals for the cross-check (default 500)")
    parser.add_argument("--examples", type=int, default=3,
                        help="disagreements printed per peer and class; 0 prints all "
                             "(the JSON file always has all)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated subset of {','.join(SECTIONS)}")
    parser.add_argument("--peers", default=",".join(peers.PEERS),
                        help=f"comma-separated subset of {','.join(peers.PEERS)}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=json_file,
                        help="also write every figure to this JSON file")
    args = parser.parse_args(argv)
    args.sections = _subset(args.sections, SECTIONS, "--sections")
    args.peers = _subset(args.peers, tuple(peers.PEERS), "--peers")
    if args.examples < 0:
        raise ValueError(f"--examples must be >= 0, got {args.examples}")
    return args


def _subset(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in allowed]
    if bad:
        raise ValueError(f"{option}: unknown {bad}; choose from {list(allowed)}")
    return names


# -- repetitions --------------------------------------------------------------------------------


def interleave_dicts(cases: dict[str, Callable[[], dict[str, float]]],
                     repeats: int) -> dict[str, dict[str, list[float]]]:
    """Like :func:`climbrl.benchmarks.common.interleaved` for cases returning several figures."""
    out: dict[str, dict[str, list[float]]] = {name: {} for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            for key, value in fn().items():
                out[name].setdefault(key, []).append(value)
    return out


def column(results: dict[str, dict[str, list[float]]], key: str) -> dict[str, list[float]]:
    return {name: figures[key] for name, figures in results.items() if key in figures}


# -- sections -----------------------------------------------------------------------------------


def doudizhu_play(installed: dict, seconds: float, repeats: int, seed: int) -> dict:
    from climbrl.envs import doudizhu_v1
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    from .doudizhu import bench_engine, bench_env, compiled_core

    print(f"Dou Dizhu compiled core: {compiled_core()}", flush=True)
    # made once and kept across repetitions, as the peers' objects are (and a training run's);
    # each repetition deals new games (another seed) so no position is replayed
    game, env, raw = DoudizhuGame(), doudizhu_v1.env(), doudizhu_v1.raw_env()
    deals = itertools.count(seed)
    cases: dict[str, Callable[[], dict[str, float]]] = {
        OUR_ENGINE: lambda: bench_engine(seconds, next(deals), game=game),
        OUR_ENV: lambda: bench_env(seconds, next(deals), env=env),
        OUR_RAW_ENV: lambda: bench_env(seconds, next(deals), env=raw),
    }
    if "rlcard" in installed:
        p = installed["rlcard"]
        cases[RLCARD_ENV] = _played(p.env_game(seed), seconds)
        cases[RLCARD_CORE] = _played(p.core_game(seed), seconds)
    if "douzero" in installed:
        p = installed["douzero"]
        cases["douzero: env"] = _played(p.env_game(seed), seconds)
        cases["douzero: GameEnv core"] = _played(p.core_game(seed), seconds)
    if "openspiel" in installed:
        p = installed["openspiel"]
        cases["openspiel: C++ game"] = _played(p.game_loop(seed, observe=False), seconds)
        cases[OPENSPIEL_OBSERVED] = _played(
            p.game_loop(seed, observe=True), seconds)
    results = interleave_dicts(cases, repeats)
    print_table("Dou Dizhu random play, steps/s (ours and OpenSpiel count bids as steps)",
                column(results, "steps_per_s"), "steps/s")
    print_table("Dou Dizhu random play, games/s", column(results, "games_per_s"), "games/s")
    return results


def _played(run: Callable[[], int], seconds: float) -> Callable[[], dict[str, float]]:
    return lambda: peers.play_rate(run, seconds)


def legal_moves(installed: dict, hands_count: int, repeats: int, seed: int) -> dict:
    from climbrl.envs.doudizhu.catalog import get_catalog
    from climbrl.envs.doudizhu.moves import MoveGenerator

    from .doudizhu import bench_legal_moves, landlord_hands

    hands = landlord_hands(hands_count, seed)
    warm = MoveGenerator(get_catalog())
    for hand in landlord_hands(WARM_HANDS, seed + 1):
        warm.lead(hand)

    def ours_warm() -> float:
        return min(_timed_pass(warm.lead, hands) for _ in range(PASSES))

    cases: dict[str, Callable[[], float]] = {
        OURS_LEGAL: ours_warm,
        OURS_LEGAL_COLD: lambda: min(bench_legal_moves(hands_count, seed)["us_per_call"]
                                     for _ in range(PASSES)),
    }
    labels = {"rlcard": "rlcard: judger", "douzero": "douzero: MovesGener",
              "openspiel": OPENSPIEL_LEGAL}
    for name, peer in installed.items():
        cases[labels[name]] = lambda peer=peer: _us_per_call(peer, hands)
    results = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            results[name].append(fn())
    print_table(f"Legal moves of the same {hands_count} fresh 20-card landlord hands, leading "
                f"(each repetition: the best of {PASSES} passes)", results, "us/call")
    return results


def _timed_pass(generate: Callable[[int], list], hands: list[int]) -> float:
    start = time.perf_counter()
    for hand in hands:
        generate(hand)
    return (time.perf_counter() - start) / len(hands) * 1e6


def _us_per_call(peer, hands: list[int]) -> float:
    """Microseconds per legal-move call of ``peer`` on ``hands`` (positions prepared untimed),
    the best of :data:`PASSES` passes."""
    prepared = peer.prepare_leads(hands)
    best = float("inf")
    for _ in range(PASSES):
        start = time.perf_counter()
        calls = peer.time_leads(prepared)
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def daifugo_play(seconds: float, repeats: int, seed: int) -> dict:
    from climbrl.envs import daifugo_v1, president_v1
    from climbrl.envs.daifugo import DaifugoGame, Rules

    from .daifugo import engine_steps, env_steps

    modules = {"daifugo": daifugo_v1, "president": president_v1}
    cases = {}
    for preset, players in DAIFUGO_CONFIGS:
        game = DaifugoGame(Rules.preset(preset, players))
        cases[f"{preset} {players}p engine"] = (
            lambda run=engine_steps(game, seed): timed_rate(run, seconds))
        cases[f"{preset} {players}p env()"] = (
            lambda run=env_steps(modules[preset], players, seed): timed_rate(run, seconds))
    results = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            results[name].append(fn())
    print_table("Daifugo and President random play, steps/s", results, "steps/s")
    return results


def trainer(installed: dict, seconds: float, repeats: int) -> dict:
    """Our trainer's frames/s (``climbrl.training.benchmark.frames_per_second``) next to DouZero's DMC
    actor loop, both with torch on one thread."""
    cases: dict[str, Callable[[], float]] = {}
    if importlib.util.find_spec("climbrl.training.benchmark") is None:
        print("\nskipped: our trainer's frames/s (climbrl.training.benchmark does not exist yet)")
    else:
        from climbrl.training.benchmark import frames_per_second

        cases[OURS_TRAINER] = lambda: _frames(frames_per_second(TRAINER_GAME, seconds))
    if "douzero" in installed:
        try:
            importlib.import_module("douzero.dmc")
        except ImportError as e:  # douzero.dmc imports GitPython without declaring it
            print(f"\nskipped: DouZero's DMC ({e}; pip install gitpython)")
        else:
            cases[DMC_ACTOR] = lambda: douzero_dmc_fps(seconds)
    if not cases:
        return {}
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        results = {name: [] for name in cases}
        for _ in range(repeats):
            for name, fn in cases.items():
                results[name].append(fn())
    finally:
        torch.set_num_threads(threads)
    print_table("Self-play frames/s (decisions made and recorded; torch on 1 thread)",
                results, "frames/s")
    return results


def _frames(value) -> float:
    """Frames/s from ``frames_per_second``: a number, or a mapping with that key."""
    if isinstance(value, dict):
        value = value["frames_per_second"]
    return float(value)


class _TimedModel:
    """DouZero's ``Model`` counting forward passes (one per decision) and ending the actor
    loop with the ``KeyboardInterrupt`` it treats as a clean stop once ``seconds`` pass."""

    def __init__(self, model, seconds: float):
        self.model = model
        self.seconds = seconds
        self.frames = 0
        self.start = 0.0
        self.elapsed = 0.0

    def forward(self, position, z, x, training=False, flags=None):
        now = time.perf_counter()
        if not self.frames:
            self.start = now
        elif now - self.start >= self.seconds:
            self.elapsed = now - self.start
            raise KeyboardInterrupt
        self.frames += 1
        return self.model.forward(position, z, x, training, flags)


class _Cycle:
    """A free-buffer queue that always has a buffer."""

    def __init__(self, size: int):
        self.size = size
        self.next = 0

    def get(self) -> int:
        self.next = (self.next + 1) % self.size
        return self.next


class _Sink:
    def put(self, index: int) -> None:
        pass


def douzero_dmc_fps(seconds: float) -> float:
    """Frames/s of DouZero's DMC actor: ``douzero.dmc.utils.act`` itself, in this process,
    with one CPU actor and DouZero's own network (an LSTM of 128 over the move history and five
    512-wide layers: the size of our trainer's default, LSTM 128 and 4 x 512 state layers plus
    a 512 pair layer). Each decision scores every legal move with the network, epsilon-greedy,
    steps DouZero's env (its observation of every legal move) and fills the rollout buffers;
    a frame is one decision, as in DMC's own fps log. The learner is left out: with one actor
    it can train on no more frames than the actor makes."""
    from douzero.dmc.arguments import parser
    from douzero.dmc.models import Model
    from douzero.dmc.utils import act, create_buffers
    from douzero.dmc.utils import log as douzero_log

    flags = parser.parse_args(["--actor_device_cpu", "--training_device", "cpu",
                               "--num_actors", "1", "--num_buffers", str(DMC_BUFFERS)])
    model = Model(device="cpu")
    model.eval()
    buffers = create_buffers(flags, ["cpu"])["cpu"]
    timed = _TimedModel(model, seconds)
    positions = peers.DOUZERO_POSITIONS
    level = douzero_log.level
    douzero_log.setLevel(logging.WARNING)
    try:
        act(0, "cpu", {p: _Cycle(DMC_BUFFERS) for p in positions},
            {p: _Sink() for p in positions}, timed, buffers, flags)
    finally:
        douzero_log.setLevel(level)
    return timed.frames / timed.elapsed if timed.elapsed else 0.0


def cross_check(installed: dict, deals: int, seed: int, examples: int) -> dict:
    if not installed:
        print("\nskipped: the cross-check (no peer installed)")
        return {}
    result = crosscheck.run_check(installed, deals, seed)
    print(f"\nDou Dizhu legal moves: ours vs each peer on {deals} random deals and "
          f"{len(crosscheck.EDGE_POSITIONS)} hand-made positions (landlord leading, seat 1 "
          f"replying)")
    for name, counted in result["compared"].items():
        print(f"  {name}: " + ", ".join(f"{v} {k}" for k, v in sorted(counted.items())))
    print(f"{'peer':<10}{'class':<70}{'count':>7}")
    loud = []
    for name, classes in result["classes"].items():
        if not classes:
            print(f"{name:<10}{'(no disagreement)':<70}{0:>7}")
        for klass, n in classes.most_common():
            print(f"{name:<10}{klass:<70}{n:>7}")
    shown: dict[tuple[str, str], int] = {}
    print("\nexamples (play, who allows it, position):")
    for d in result["disagreements"]:
        key = (d.peer, d.klass)
        shown[key] = shown.get(key, 0) + 1
        if d.klass.startswith("bug: ours"):
            loud.append(d)
        if not examples or shown[key] <= examples or d.klass.startswith("bug: ours"):
            print("  " + d.line())
    if loud:
        print(f"\n!!! OUR ENGINE DISAGREES WITH docs/rules.md on {len(loud)} plays (see 'bug: ours' "
              "above) !!!")
    return {
        "deals": deals,
        "edge_positions": [list(e) for e in crosscheck.EDGE_POSITIONS],
        "compared": {k: dict(v) for k, v in result["compared"].items()},
        "classes": {k: dict(v) for k, v in result["classes"].items()},
        "disagreements": [vars(d) for d in result["disagreements"]],
    }


# -- targets ------------------------------------------------------------------------------------


def targets(figures: dict[str, dict[str, list[float]]]) -> list[dict]:
    """Each target's ratio of medians, or why it could not be computed."""
    print(f"\n{'target (ratio of medians; best: of the best repetitions)':<58}{'ratio':>8}"
          f"{'best':>8}{'goal':>8}  met")
    out = []
    for what, num, den, key, goal in TARGETS:
        a, b = figures.get(key, {}).get(num), figures.get(key, {}).get(den)
        if not a or not b:
            missing = num if not a else den
            print(f"{what:<58}{'-':>8}{'-':>8}{goal:>8.2f}  not measured ({missing} missing)")
            out.append({"target": what, "ratio": None, "best": None, "goal": goal, "met": None})
            continue
        ratio = median(a) / median(b)
        # the best repetition of a rate is its largest; of a time (us), its smallest
        best = max(a) / max(b) if key != "us" else min(a) / min(b)
        met = ratio >= goal
        print(f"{what:<58}{ratio:>8.2f}{best:>8.2f}{goal:>8.2f}  {'yes' if met else 'NO'}")
        out.append({"target": what, "ratio": ratio, "best": best, "goal": goal, "met": met})
    return out


def describe_machine() -> str:
    """``climbrl.benchmarks.common.machine()`` with the CPU model and count, and the OS."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith("model name")), "")
    except OSError:
        pass
    cpu = f"{model}, " if model else ""
    return f"{cpu}{os.cpu_count()} CPUs, {machine()}, {platform.system()} {platform.release()}"


def main(argv: list[str] | None = None) -> dict:
    return run(parse_args(argv), argv)


def run(args: argparse.Namespace, argv: list[str] | None = None) -> dict:
    """The comparison of ``args`` (``argv``: the command line, recorded with the figures)."""
    command = "python -m climbrl.benchmarks.compare " + " ".join(sys.argv[1:] if argv is None else argv)
    print(f"machine: {describe_machine()}")
    print(f"command: {command.strip()}")
    installed = {}
    skipped = []
    for name in args.peers:
        ok, why = peers.available(name)
        if ok:
            installed[name] = peers.make(name)
        else:
            skipped.append(why)
            print(f"skipped: {why}")
    out: dict = {"machine": describe_machine(), "command": command.strip(),
                 "compiled_core": compiled_core(), "seconds": args.seconds,
                 "repeats": args.repeats, "peers": sorted(installed), "skipped": skipped}
    figures: dict[str, dict[str, list[float]]] = {}
    if "doudizhu" in args.sections:
        play = doudizhu_play(installed, args.seconds, args.repeats, args.seed)
        out["doudizhu_play"] = play
        for key in ("steps_per_s", "games_per_s"):
            figures[key] = column(play, key)
    if "legal" in args.sections:
        out["legal_us"] = figures["us"] = legal_moves(installed, args.hands, args.repeats,
                                                      args.seed)
    if "daifugo" in args.sections:
        out["daifugo_steps_per_s"] = daifugo_play(args.seconds, args.repeats, args.seed)
    if "trainer" in args.sections:
        out["trainer_frames_per_s"] = figures["frames_per_s"] = trainer(
            installed, args.seconds, args.repeats)
    out["targets"] = targets(figures)
    if "check" in args.sections:
        out["check"] = cross_check(installed, args.check_deals, args.seed, args.examples)
    out["summary"] = {
        section: {name: dict(zip(("median", "min", "max"), summary(v))) for name, v in data.items()}
        for section, data in figures.items()
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        print(f"\nwrote {args.json}")
    return out


if __name__ == "__main__":
    main()
