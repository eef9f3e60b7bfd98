"""``climbrl.benchmarks.agreement``: the share of a scripted player's decisions a CPU repeats."""

from __future__ import annotations

from climbrl.benchmarks.agreement import agreement, main


def test_the_teacher_agrees_with_itself_and_random_does_not():
    out = agreement("president", 4, 3, "scripted-medium", ["scripted-medium", "random"],
                    games=2, seed=0)
    assert out["decisions"] > 50
    assert out["agreement"]["scripted-medium"] == 1.0  # the same bot, the same choices
    assert out["agreement"]["random"] < 0.6


def test_the_command_prints_each_cpu_with_its_interval(capsys, tmp_path):
    main(["--game", "daifugo", "--players", "3", "--cpus", "random", "--games", "1",
          "--json", str(tmp_path / "a.json")])
    printed = capsys.readouterr().out
    assert "decisions of scripted-medium" in printed and " ± " in printed
    assert (tmp_path / "a.json").is_file()
