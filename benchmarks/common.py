"""Timing helpers shared by the benchmark scripts: interleaved repetitions, median and spread."""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable


def timed_rate(fn: Callable[[], int], seconds: float) -> float:
    """Runs ``fn`` (which returns a count of units done) until ``seconds`` pass; units/s."""
    done = 0
    start = time.perf_counter()
    while True:
        done += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def interleaved(cases: dict[str, Callable[[], float]], repeats: int) -> dict[str, list[float]]:
    """Runs every case once per repetition, in turn, so machine drift hits all alike."""
    out: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            out[name].append(fn())
    return out


def summary(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def print_table(title: str, results: dict[str, list[float]], unit: str) -> None:
    print(f"\n{title}")
    print(f"{'case':<44}{'median':>14}{'min':>14}{'max':>14}  unit")
    for name, values in results.items():
        med, lo, hi = summary(values)
        print(f"{name:<44}{med:>14,.1f}{lo:>14,.1f}{hi:>14,.1f}  {unit}")


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"
