"""Smoke test of the Dou Dizhu benchmark script with a tiny budget (speed is not asserted)."""

from __future__ import annotations

from benchmarks import doudizhu


def test_benchmark_runs(capsys):
    results = doudizhu.main(["--seconds", "0.05", "--hands", "50"])
    assert results["legal_moves"]["us_per_call"] > 0
    assert results["engine"]["steps_per_s"] > 0 and results["env"]["steps_per_s"] > 0
    assert "steps/s" in capsys.readouterr().out
