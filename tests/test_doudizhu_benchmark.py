"""Smoke tests of the speed scripts with a tiny budget (speed is not asserted): Dou Dizhu,
Daifugo/President, and ``climbrl bench`` running both in one format."""

from __future__ import annotations

import json
import re

from climbrl.benchmarks import daifugo, doudizhu
from climbrl.cli import main as climbrl

TINY = ["--seconds", "0.02", "--repeats", "2"]
TABLE_HEADER = re.compile(r"^case +median +min +max  unit$", re.M)


def test_doudizhu_benchmark_runs(capsys):
    results = doudizhu.main(TINY + ["--hands", "50"])
    assert all(v > 0 for values in results["us/call"].values() for v in values)
    steps = results["steps/s"]
    # the classic engine, env() and raw_env(), and each variant's engine and env()
    assert set(steps) == set(results["games/s"]) and len(steps) == 3 + 2 * len(doudizhu.VARIANTS)
    assert all(len(values) == 2 and min(values) > 0 for values in steps.values())
    out = capsys.readouterr().out
    assert len(TABLE_HEADER.findall(out)) == 3  # legal moves, steps/s, games/s
    assert f"compiled core: {results['compiled_core']}\n" in out


def test_daifugo_benchmark_runs(capsys):
    results = daifugo.main(TINY)
    assert len(results["steps/s"]) == 2 * len(daifugo.CONFIGS)
    assert len(results["us/call"]) == len(daifugo.CONFIGS)
    assert len(TABLE_HEADER.findall(capsys.readouterr().out)) == 2


def test_climbrl_bench_covers_every_game_and_reports_as_it_goes(tmp_path, capsys):
    # regression: it ran Daifugo/President only and printed nothing for half a minute
    path = tmp_path / "bench.json"
    assert climbrl(["bench", *TINY, "--hands", "20", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    figures = json.loads(path.read_text())
    assert set(figures) == {"machine", "daifugo", "doudizhu"}
    cases = [case for game in ("daifugo", "doudizhu") for unit in figures[game]
             for case in figures[game][unit]]
    progress = re.findall(r"^  \[(\d)/2\] (.+?): ", out, re.M)
    # a line per case and repetition, each printed before its table
    assert sorted(progress) == sorted({(str(r), c) for r in (1, 2) for c in cases})
    assert out.index("[2/2] doudizhu engine") < out.rindex("Dou Dizhu random play, steps/s")
    assert len(TABLE_HEADER.findall(out)) == 5
