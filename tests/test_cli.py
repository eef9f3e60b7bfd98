"""The command line's errors: a user's mistake is one line and status 2, a failure one line
and status 1, a traceback only with CLIMBRL_DEBUG=1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from climbrl import envs

from climbrl.training import evaluate
from trainer_helpers import one_error_line
from climbrl.cli import main as cli

CPU_DAIFUGO = Path(__file__).resolve().parents[1] / "cpus" / "daifugo"
SMALL_EVAL = ["eval", "--game", "daifugo", "--players", "random,random,random", "--deals", "1",
              "--workers", "1", "--no-progress"]


def test_a_mistyped_training_option_is_one_line(capsys):
    # '--minuts' printed a traceback
    assert cli(["train", "--config", "configs/daifugo4.yaml", "--minuts", "3"]) == 2
    line = one_error_line(capsys)
    assert line.startswith("climbrl: error: unknown option --minuts (did you mean --minutes?)")


def test_a_missing_config_file_is_one_line(capsys, tmp_path):
    missing = tmp_path / "nope.yaml"
    assert cli(["train", "--config", str(missing)]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"climbrl: error: no training config '{missing}'")
    assert "daifugo4" in line  # the shipped configs it could have meant


@pytest.mark.parametrize("rule, said", [("nope=1", "nope"), ("rounds=0", "rounds")])
def test_a_bad_rule_is_one_line(capsys, tmp_path, rule, said):
    assert cli(SMALL_EVAL + ["--rule", rule, "--out", str(tmp_path / "x")]) == 2
    assert said in one_error_line(capsys)


def test_a_uecda_eval_rotates_five_seats_over_short_matches(tmp_path):
    # regression: the UECda env's default match (a class block of 100 rounds) was every
    # tournament's match, a hundred rounds a game
    lineup = "scripted-medium," + ",".join(["random"] * 4)
    argv = ["eval", "--game", "uecda", "--players", lineup, "--deals", "1", "--workers", "1",
            "--no-progress"]
    assert cli(argv + ["--out", str(tmp_path / "a")]) == 0
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["config"]["rounds"] == envs.UECDA_MATCH_ROUNDS
    games = [json.loads(line) for line in (tmp_path / "a" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 5  # the lineup rotated over the 5 seats of the one deal
    assert cli(argv + ["--rounds", "2", "--out", str(tmp_path / "b")]) == 0
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["config"]["rounds"] == 2


def test_an_unknown_player_is_one_line(capsys, tmp_path):
    argv = ["eval", "--game", "daifugo", "--players", "random,hardd,random", "--out",
            str(tmp_path / "x")]
    assert cli(argv) == 2
    assert "player 'hardd'" in one_error_line(capsys)
    assert cli(["play", "--game", "daifugo", "--cpus", "random,hardd"]) == 2
    assert "hardd" in one_error_line(capsys)
    assert cli(["play", "--game", "daifugo", "--cpus", "random,random", "--seat", "5"]) == 2
    assert "seat must be 0..2, got 5" in one_error_line(capsys)


@pytest.mark.parametrize("game, cpus, said", [
    ("doudizhu", "medium", "Dou Dizhu seats 3 or 4 players: --cpus lists the 2 or 3 CPUs "
                           "besides you (got 1)"),
    ("doudizhu", "random,random,random,random", "Dou Dizhu seats 3 or 4 players: --cpus lists "
                                                "the 2 or 3 CPUs besides you (got 4)"),
    ("daifugo", "medium", "Daifugo seats 3 or 4 players: --cpus lists the 2 or 3 CPUs "
                          "besides you (got 1)"),
    ("president", "medium", "President seats 3 to 8 players: --cpus lists the 2 to 7 CPUs "
                            "besides you (got 1)"),
])
def test_play_with_too_few_cpus_says_how_many_to_list(capsys, game, cpus, said):
    # regression: `climbrl play --game doudizhu --cpus medium` said "players must be 3..4,
    # got 2", a count of players the command line never asked for
    assert cli(["play", "--game", game, "--cpus", cpus]) == 2
    assert one_error_line(capsys) == f"climbrl: error: {said}"


@pytest.mark.skipif(not (CPU_DAIFUGO / "cpu.json").exists(), reason="no shipped CPU")
def test_a_cpu_that_refuses_the_env_is_one_line_naming_it(capsys, tmp_path):
    # it died in 30 lines of concurrent.futures traceback, in a worker, after the start
    pytest.importorskip("onnxruntime")
    argv = ["eval", "--game", "president", "--players", f"{CPU_DAIFUGO},random,random,random",
            "--rounds", "1", "--deals", "2", "--out", str(tmp_path / "x")]
    assert cli(argv) == 2
    line = one_error_line(capsys)
    assert f"player '{CPU_DAIFUGO}'" in line and "trained on 'daifugo', not 'president'" in line
    assert not (tmp_path / "x").exists()  # refused before anything was written


def test_a_failure_while_running_is_one_line_with_status_1(capsys, monkeypatch, tmp_path):
    def broken(*args, **kwargs):
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(evaluate, "run", broken)
    assert cli(SMALL_EVAL + ["--out", str(tmp_path / "x")]) == 1
    assert one_error_line(capsys) == ("climbrl: failed: RuntimeError: the disk caught fire "
                                      "(CLIMBRL_DEBUG=1 shows the traceback)")
    monkeypatch.setenv("CLIMBRL_DEBUG", "1")
    with pytest.raises(RuntimeError, match="caught fire"):
        cli(SMALL_EVAL + ["--out", str(tmp_path / "x")])


def test_version_is_printed_by_climbrl_version(capsys):
    # regression: `climbrl --version` was an unknown option
    import climbrl

    with pytest.raises(SystemExit) as exit_:
        cli(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"climbrl {climbrl.__version__}\n"
    assert climbrl.__version__[0].isdigit()  # the installed version, not "0+unknown"


def test_unknown_flags_are_argparse_errors(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli(SMALL_EVAL + ["--minuts", "3"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --minuts 3" in capsys.readouterr().err


def test_a_tournament_of_checkpoint_players_runs_torch_on_one_thread(tmp_path):
    """`climbrl eval --workers 1` with a training checkpoint as a player ran it on torch's
    default threads (the tournament set OMP_NUM_THREADS after the players had imported torch):
    beside a training run the evaluation crawled. The command sets one thread first."""
    import os
    import subprocess
    import sys

    from climbrl.training.dmc import train
    from trainer_helpers import small_args

    if (os.cpu_count() or 1) < 2:
        pytest.skip("torch's default is one thread on a one-core machine")
    run = train(small_args(tmp_path, total_frames=64))
    argv = [*SMALL_EVAL[:3], "--players", f"{run['run_dir']},random,random,random",
            *SMALL_EVAL[5:], "--out", str(tmp_path / "ev")]
    script = ("from climbrl.cli import main\n"
              f"rc = main({argv!r})\n"
              "import torch\n"
              "print(rc, torch.get_num_threads())\n")
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=Path(__file__).resolve().parents[1], timeout=300)
    assert done.stdout.split()[-2:] == ["0", "1"], done.stdout + done.stderr


# -- one exit-status rule for every command: a file or folder given on the command line that is
# missing, unreadable or of another kind is a mistake in the command (status 2, one line
# naming it), found before any work starts

def _status(argv: list[str]) -> int:
    """The exit status of ``climbrl argv`` (argparse's mistakes exit through SystemExit)."""
    try:
        return cli(argv)
    except SystemExit as exit_:
        return exit_.code


def _no_work(monkeypatch) -> None:
    """Every command's work fails the test if it starts (a refusal must come first)."""
    import climbrl.benchmarks.compare
    import climbrl.benchmarks.envs
    import climbrl.play.terminal
    import climbrl.training.export

    def started(*args, **kwargs):
        raise AssertionError("the work started")

    for module, name in [(evaluate, "run"), (climbrl.training.export, "export"),
                         (climbrl.play.terminal.Match, "play"),
                         (climbrl.benchmarks.envs, "run"), (climbrl.benchmarks.compare, "run")]:
        monkeypatch.setattr(module, name, started)
    try:
        import climbrl.play.server.app
        import climbrl.training.dmc
    except ModuleNotFoundError:
        return
    monkeypatch.setattr(climbrl.play.server.app, "run_app", started)
    monkeypatch.setattr(climbrl.training.dmc, "train", started)


MISSING_ARGUMENTS = {
    "train --config": lambda bad, tmp: ["train", "--config", f"{bad}.yaml"],
    "train --resume": lambda bad, tmp: ["train", "--resume", bad],
    "eval --players": lambda bad, tmp: [*SMALL_EVAL[:3], "--players", f"{bad},random,random",
                                        "--out", str(tmp / "ev")],
    "eval --pool": lambda bad, tmp: [*SMALL_EVAL[:3], "--pool", f"{bad},random", "--out",
                                     str(tmp / "ev")],
    "export": lambda bad, tmp: ["export", bad, "--out", str(tmp / "cpu")],
    "play --cpus": lambda bad, tmp: ["play", "--game", "daifugo", "--cpus", f"{bad},random"],
    "bench --json": lambda bad, tmp: ["bench", "--json", f"{bad}/figures.json"],
    "bench --compare --json": lambda bad, tmp: ["bench", "--compare", "--json",
                                                f"{bad}/figures.json"],
}


@pytest.mark.parametrize("command", MISSING_ARGUMENTS)
def test_a_missing_file_or_folder_is_status_2_in_every_command(capsys, monkeypatch, tmp_path,
                                                               command):
    # regression: `climbrl export runs/nonexistent --out x` exited 1 with "failed:
    # CheckpointError" where `climbrl train --resume runs/nothere` exited 2; `bench --json
    # missing/x.json` measured for a minute, then failed
    _no_work(monkeypatch)
    bad = str(tmp_path / "no-such-thing")
    assert _status(MISSING_ARGUMENTS[command](bad, tmp_path)) == 2
    line = one_error_line(capsys)
    assert "no-such-thing" in line and "failed" not in line, line
    assert not (tmp_path / "ev").exists() and not (tmp_path / "cpu").exists()


FOREIGN_ARGUMENTS = {
    "train --config": lambda bad, tmp: ["train", "--config", bad],
    "train --resume": lambda bad, tmp: ["train", "--resume", bad],
    "eval --players": lambda bad, tmp: [*SMALL_EVAL[:3], "--players", f"{bad},random,random",
                                        "--out", str(tmp / "ev")],
    "export": lambda bad, tmp: ["export", bad, "--out", str(tmp / "cpu")],
    "play --cpus": lambda bad, tmp: ["play", "--game", "daifugo", "--cpus", f"{bad},random"],
    "serve --db": lambda bad, tmp: ["serve", "--db", bad],
}


@pytest.mark.parametrize("content", [b"game: [\n", b"\x00\xff\xfe not text"],
                         ids=["bad-yaml", "binary"])
@pytest.mark.parametrize("command", FOREIGN_ARGUMENTS)
def test_a_file_of_another_kind_is_status_2_in_every_command(capsys, monkeypatch, tmp_path,
                                                             command, content):
    # regression: a config that is not YAML, or a checkpoint that is not one, exited 1
    # ("failed: ParserError", "failed: CheckpointError") where a missing one exited 2
    if command == "serve --db":
        pytest.importorskip("uvicorn")
    _no_work(monkeypatch)
    bad = tmp_path / "foreign.file"
    bad.write_bytes(content)
    assert _status(FOREIGN_ARGUMENTS[command](str(bad), tmp_path)) == 2
    line = one_error_line(capsys)
    assert str(bad) in line and "failed" not in line, line


INTERRUPTED_COMMANDS = {
    "eval": (lambda tmp: SMALL_EVAL + ["--out", str(tmp / "ev")], "climbrl.training.evaluate",
             "run"),
    "play": (lambda tmp: ["play", "--game", "daifugo", "--cpus", "random,random"],
             "climbrl.play.terminal.Match", "play"),
    "bench": (lambda tmp: ["bench"], "climbrl.benchmarks.envs", "run"),
    "bench --compare": (lambda tmp: ["bench", "--compare"], "climbrl.benchmarks.compare", "run"),
    "serve": (lambda tmp: ["serve", "--db", str(tmp / "tables.db")], "climbrl.play.server.app",
              "run_app"),
}


@pytest.mark.parametrize("signal_name, status", [("SIGINT", 130), ("SIGTERM", 143)])
@pytest.mark.parametrize("command", INTERRUPTED_COMMANDS)
def test_an_interrupt_is_status_130_or_143_in_every_command(capsys, monkeypatch, tmp_path,
                                                            command, signal_name, status):
    # (`climbrl train`, which saves first, is tested on a real signal in test_trainer_runs)
    from climbrl.training.errors import Terminated

    argv, target, name = INTERRUPTED_COMMANDS[command]
    if command == "serve":
        pytest.importorskip("uvicorn")

    def interrupted(*args, **kwargs):
        raise Terminated("signal SIGTERM") if signal_name == "SIGTERM" else KeyboardInterrupt

    monkeypatch.setattr(f"{target}.{name}", interrupted)
    assert _status(argv(tmp_path)) == status
    line = one_error_line(capsys)
    assert line.startswith("climbrl: " + ("stopped by SIGTERM" if status == 143
                                          else "interrupted")), line



@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_a_port_outside_the_tcp_range_is_one_line(capsys, port):
    # regression: `climbrl serve --port 99999` printed http://127.0.0.1:99999 and listened on
    # another port
    assert _status(["serve", "--port", port]) == 2
    line = one_error_line(capsys)
    assert "a TCP port, 1 to 65535" in line and repr(port) in line, line


def test_a_busy_port_is_one_line_before_the_server_starts(capsys, monkeypatch, tmp_path):
    import socket

    pytest.importorskip("uvicorn")
    from climbrl.play.server import app

    monkeypatch.setattr(app, "run_app", lambda *a, **k: pytest.fail("the server started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert _status(["serve", "--port", str(port), "--db", str(tmp_path / "t.db")]) == 2
    line = one_error_line(capsys)
    assert f"cannot listen on 127.0.0.1:{port}" in line, line
    assert not (tmp_path / "t.db").exists()  # refused before the rooms file is made


@pytest.mark.parametrize("option", ["--work-per-s", "--work-burst", "--think"])
@pytest.mark.parametrize("value", ["-1", "0", "fast"])
def test_a_bad_server_budget_is_one_line(capsys, option, value):
    # regression: --work-per-s -1 started a server whose every request was refused busy
    assert _status(["serve", option, value]) == 2
    line = one_error_line(capsys)
    assert option in line and repr(value) in line, line


@pytest.mark.parametrize("option", ["--rooms-per-client", "--max-rooms", "--connections-per-client",
                                    "--seats-per-client"])
@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_room_cap_that_is_not_a_count_is_one_line(capsys, option, value):
    assert _status(["serve", option, value]) == 2
    line = one_error_line(capsys)
    assert option in line and "1 or more" in line and repr(value) in line, line


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_client_caps_reach_the_server(monkeypatch, tmp_path):
    pytest.importorskip("uvicorn")
    from climbrl.play.server import app

    seen = {}
    monkeypatch.setattr(app, "run_app", lambda served, *a, **k: seen.setdefault("server", served.state.server))
    assert _status(["serve", "--port", str(_free_port()), "--db", str(tmp_path / "t.db"),
                    "--rooms-per-client", "7", "--max-rooms", "70", "--connections-per-client", "3",
                    "--idle", "40", "--header-timeout", "4", "--seats-per-client", "2",
                    "--unload-after", "90"]) == 0
    server = seen["server"]
    assert (server.rooms_per_client, server.max_rooms, server.connections_per_client,
            server.idle_s, server.header_timeout_s, server.seats_per_client,
            server.unload_s) == (7, 70, 3, 40.0, 4.0, 2, 90.0)


@pytest.mark.parametrize("option", ["--idle", "--header-timeout"])
def test_a_connection_timeout_that_is_not_seconds_is_one_line(capsys, option):
    assert _status(["serve", option, "0"]) == 2
    line = one_error_line(capsys)
    assert option in line and "more than 0" in line, line


@pytest.mark.parametrize("value", ["-1", "later", "nan"])
def test_a_bad_unload_after_is_one_line(capsys, value):
    assert _status(["serve", "--unload-after", value]) == 2
    line = one_error_line(capsys)
    assert "--unload-after" in line and "0 or more" in line and repr(value) in line, line
