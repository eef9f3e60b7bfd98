"""Timing helpers shared by the benchmark scripts: interleaved repetitions, median and spread,
and the one output format of :mod:`climbrl.benchmarks.daifugo`, :mod:`climbrl.benchmarks.doudizhu` and
``climbrl bench`` (:mod:`climbrl.benchmarks.envs`): a line per measurement as it finishes, then a
table per unit of the median, min and max of the repetitions."""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Figures = dict[str, float]
"""one measurement: unit -> value (``{"steps/s": 20115.4, "games/s": 306.2}``)"""


def timed_rate(fn: Callable[[], int], seconds: float) -> float:
    """Runs ``fn`` (which returns a count of units done) until ``seconds`` pass; units/s."""
    done = 0
    start = time.perf_counter()
    while True:
        done += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def interleaved(cases: dict[str, Callable[[], Any]], repeats: int,
                report: Callable[[str, Any, int], None] | None = None) -> dict[str, list]:
    """Runs every case once per repetition, in turn, so machine drift hits all alike;
    ``report(name, value, repetition)`` hears of each measurement as it finishes."""
    out: dict[str, list] = {name: [] for name in cases}
    for repetition in range(repeats):
        for name, fn in cases.items():
            value = fn()
            out[name].append(value)
            if report is not None:
                report(name, value, repetition)
    return out


def measure(cases: dict[str, Callable[[], Figures]], repeats: int,
            tables: dict[str, str]) -> dict[str, dict[str, list[float]]]:
    """Interleaved repetitions of ``cases`` (each returns its :data:`Figures`), a progress line
    per measurement, then a table per unit (``tables``: unit -> title). Returns unit -> case ->
    the figures of the repetitions."""

    def report(name: str, figures: Figures, repetition: int) -> None:
        shown = ", ".join(f"{value:,.1f} {unit}" for unit, value in figures.items())
        print(f"  [{repetition + 1}/{repeats}] {name}: {shown}", flush=True)

    runs = interleaved(cases, repeats, report)
    results = {unit: {name: [figures[unit] for figures in runs[name]]
                      for name in cases if unit in runs[name][0]} for unit in tables}
    for unit, title in tables.items():
        print_table(title, results[unit], unit)
    return results


def summary(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def print_table(title: str, results: dict[str, list[float]], unit: str) -> None:
    print(f"\n{title}")
    print(f"{'case':<44}{'median':>14}{'min':>14}{'max':>14}  unit")
    for name, values in results.items():
        med, lo, hi = summary(values)
        print(f"{name:<44}{med:>14,.1f}{lo:>14,.1f}{hi:>14,.1f}  {unit}", flush=True)


def json_file(text: str) -> str:
    """``--json FILE``: a file that can be written, checked before any measurement (a folder
    that is not there would fail only at the end, the figures lost)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: no folder {str(folder)!r}")
    return text


def parser(description: str, seconds: float = 1.0, repeats: int = 3, prog: str | None = None,
           parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
           ) -> argparse.ArgumentParser:
    """The options every speed script takes: ``--seconds``, ``--repeats``, ``--seed``,
    ``--json`` (``parser_class``, ``prog``: as the ``climbrl bench`` command parses them)."""
    p = parser_class(prog=prog, description=description)
    p.add_argument("--seconds", type=float, default=seconds,
                   help=f"time per measurement (default {seconds:g})")
    p.add_argument("--repeats", type=int, default=repeats,
                   help=f"interleaved repetitions of every measurement (default {repeats})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=json_file, help="also write the figures to this JSON file")
    return p


def write_json(path: str | None, out: dict) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(out, f, indent=1)


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"


def compiled_core_line(compiled, game) -> str:
    """Whether ``game``, made now, writes its observations with its engine's compiled core
    (``compiled``: the engine's ``compiled`` module, e.g. :mod:`climbrl.envs.daifugo.compiled`),
    as the line the benchmarks print."""
    if game.compiled:
        return f"in use ({compiled.__package__}._fast)"
    if not compiled.available():
        return "not built (pure Python)"
    return f"built, not in use: {compiled.PURE_ENV}=1 (pure Python)"


RATIO = "env/engine"
"""the key of the median env/engine ratios in a benchmark's JSON"""
ENV_TARGET = 0.35
"""the least share of its engine's random-play steps/s an env should keep (observation and
mask every step)"""


def print_ratios(title: str, steps: dict[str, list[float]], pairs: dict[str, str],
                 target: float = ENV_TARGET) -> dict[str, float]:
    """For each ``env case -> engine case`` of ``pairs``, the env's steps/s over its engine's
    repetition by repetition (the two measured one after the other, so a slow spell of a shared
    machine slows both), and the median of those ratios, with the least and the most; a line
    per case, flagged when the median is below ``target``. More repetitions of shorter
    measurements (``--repeats 15 --seconds 0.2``) give a sturdier median where the machine's
    speed swings."""
    print(f"\n{title}")
    print(f"{'case':<44}{'env/engine':>14}{'min':>8}{'max':>8}  target >= {target:g}")
    ratios = {}
    for env_case, engine_case in pairs.items():
        each = [env / engine for env, engine in zip(steps[env_case], steps[engine_case])]
        ratio, lo, hi = summary(each)
        ratios[env_case] = ratio
        flag = "" if ratio >= target else "  (below target)"
        print(f"{env_case:<44}{ratio:>14.2f}{lo:>8.2f}{hi:>8.2f}{flag}", flush=True)
    return ratios


def env_bytes(make: Callable[[], Any]) -> tuple[int, int]:
    """``(bytes one env instance keeps, bytes of one observation and its mask)``: what making
    and resetting a second env of ``make()`` leaves allocated (so caches the first one filled,
    shared by every env of the game, are not counted), and the arrays ``last()`` hands out."""
    import tracemalloc

    make().reset(seed=0)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        env = make()
        env.reset(seed=0)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    obs = env.last()[0]
    return kept, sum(array.nbytes for array in obs.values())


def print_bytes(title: str, makers: dict[str, Callable[[], Any]]) -> None:
    """A line per env: :func:`env_bytes`."""
    print(f"\n{title}")
    print(f"{'case':<44}{'bytes/env':>14}{'bytes/obs':>14}")
    for name, make in makers.items():
        kept, per_obs = env_bytes(make)
        print(f"{name:<44}{kept:>14,}{per_obs:>14,}", flush=True)
