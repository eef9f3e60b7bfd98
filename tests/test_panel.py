"""``climbrl.benchmarks.panel``: the verdict of an interval, a real (tiny) panel through ``climbrl
eval`` read back by a second run without playing again, and bad options in one line."""

from __future__ import annotations

import json

import pytest

from climbrl.benchmarks import panel
from trainer_helpers import one_error_line


@pytest.mark.parametrize("low, high, mark, expected", [
    (0.01, 0.2, 0.0, "above"),
    (-0.2, -0.01, 0.0, "below"),
    (-0.1, 0.1, 0.0, "level"),
    (0.0, 0.1, 0.0, "level"),      # touching the mark is not above it
    (0.51, 0.6, 0.5, "above"),     # Dou Dizhu: a WP against 0.5
    (0.3, 0.49, 0.5, "below"),
    (float("nan"), float("nan"), 0.0, "level"),  # one deal: no interval
])
def test_verdict(low, high, mark, expected):
    assert panel.verdict(low, high, mark) == expected


def test_every_table_names_a_legal_eval():
    for game, tables in panel.TABLES.items():
        for name, (players, rounds, rules) in tables.items():
            assert (rounds is None) == (game == "doudizhu"), name
            assert all("=" in rule for rule in rules), name


def test_a_panel_plays_each_table_once_and_a_rerun_reads_it_back(tmp_path, capsys):
    out = tmp_path / "panel"
    argv = ["--game", "daifugo", "--player", "scripted-easy", "--against", "random",
            "--tables", "3p", "4p-off", "--deals", "2", "--seed", "3", "--out", str(out)]
    assert panel.main(argv) == 0
    first = json.loads((out / "results.json").read_text())
    assert [r["table"] for r in first["rows"]] == ["3p", "4p-off"]
    assert "--rule lock=false" in first["rows"][1]["options"]
    md = (out / "results.md").read_text()
    assert "| 3p | 3 players --rounds 3 | 2 |" in md
    assert panel.main(argv) == 0  # the tournaments are finished: resumed, not replayed
    log = (out / "eval.log").read_text()
    assert log.count("$ ") == 4 and log.count("2 of 2 deals already played") == 2
    assert json.loads((out / "results.json").read_text())["rows"] == first["rows"]
    capsys.readouterr()


@pytest.mark.parametrize("argv, words", [
    (["--game", "daifugo", "--player", "x", "--tables", "5p"], "unknown daifugo table '5p'"),
    (["--game", "president", "--player", "x", "--deals", "0"], "--deals must be 1 or more"),
    (["--game", "chess", "--player", "x"], "invalid choice: 'chess'"),
])
def test_bad_options_are_one_line(argv, words, capsys):
    assert panel.main(argv) == 2
    assert words in one_error_line(capsys)
