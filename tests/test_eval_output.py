"""``climbrl eval``'s output folder: checked before any game, written as deals finish,
resumed by the same command; optional matplotlib; workers that end with the tournament."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from climbrl.training import evaluate
from climbrl.cli import main as cli
from climbrl.training.results import GAMES_FILE

EVAL = ["eval", "--game", "daifugo", "--players", "random,easy,random", "--deals", "4",
        "--rounds", "1", "--workers", "1", "--no-progress", "--seed", "3"]
#: how long a test waits for processes to end (a bound, not a measurement)
PATIENCE_SECONDS = 20.0


def eval_into(out: Path, *extra: str) -> int:
    return cli([*EVAL, "--out", str(out), *extra])


def test_rounds_default_to_the_envs_own():
    # eval defaulted to 1 round where the env, play and the trained CPUs use 3
    daifugo = evaluate.EvalConfig("daifugo", (("random",) * 4,))
    president = evaluate.EvalConfig("president", (("random",) * 4,))
    assert daifugo.rounds is None
    assert evaluate.resolved_rounds(daifugo) == 3 and evaluate.resolved_rounds(president) == 5
    assert evaluate.settings(daifugo)["rounds"] == 3


def test_a_cut_short_eval_resumes_to_the_same_bytes(tmp_path, capsys):
    full, cut = tmp_path / "full", tmp_path / "cut"
    assert eval_into(full) == 0
    lines = (full / GAMES_FILE).read_text().splitlines(keepends=True)
    games_per_deal = 3
    # as a kill leaves it: two whole deals, one deal with a game missing, a torn last line
    cut.mkdir()
    (cut / "config.json").write_bytes((full / "config.json").read_bytes())
    kept = lines[: 2 * games_per_deal] + lines[2 * games_per_deal: 3 * games_per_deal - 1]
    (cut / GAMES_FILE).write_text("".join(kept) + lines[-1][:17])
    capsys.readouterr()
    assert eval_into(cut) == 0
    assert "resuming" in capsys.readouterr().err
    assert (cut / GAMES_FILE).read_bytes() == (full / GAMES_FILE).read_bytes()
    assert (cut / "summary.json").read_bytes() == (full / "summary.json").read_bytes()
    # once complete, the same command plays nothing and gives the same figures
    assert eval_into(full) == 0
    assert "4 of 4 deals already played" in capsys.readouterr().err
    assert (cut / "summary.json").read_bytes() == (full / "summary.json").read_bytes()


def test_an_out_with_other_settings_is_refused_unless_overwritten(tmp_path, capsys):
    out = tmp_path / "eval"
    assert eval_into(out) == 0
    capsys.readouterr()
    assert cli([*EVAL[:-1], "4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds a tournament with other settings (seed: 3 there, 4 here)" in err
    assert "--overwrite" in err
    assert cli([*EVAL[:-1], "4", "--out", str(out), "--overwrite"]) == 0
    assert json.loads((out / "config.json").read_text())["seed"] == 4


def test_out_is_checked_before_any_game(tmp_path, capsys, monkeypatch):
    def no_game(*args, **kwargs):
        raise AssertionError("a game was played before --out was checked")

    monkeypatch.setattr(evaluate, "play_game", no_game)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert eval_into(blocker) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert eval_into(blocker / "below") == 2


def test_eval_without_matplotlib_skips_the_plot_and_says_so_first(tmp_path, capsys, monkeypatch):
    # it played the whole tournament, then died on 'import matplotlib' before the table
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert not evaluate.plot_available()
    assert eval_into(tmp_path / "eval") == 0
    captured = capsys.readouterr()
    assert "matplotlib is not installed: no ladder.png" in captured.err
    assert "points/round" in captured.out
    assert (tmp_path / "eval" / "summary.json").exists()
    assert not (tmp_path / "eval" / "ladder.png").exists()


def test_the_table_is_printed_before_the_files_are_written(tmp_path, capsys, monkeypatch):
    def full_disk(report, out):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(evaluate, "write_outputs", full_disk)
    assert eval_into(tmp_path / "eval") == 1
    captured = capsys.readouterr()
    assert "points/round" in captured.out and "No space left on device" in captured.err


def test_default_out_is_the_same_for_the_same_command():
    one = evaluate.EvalConfig("daifugo", (("hard", "cpus/mine", "medium"),), seed=1)
    again = evaluate.EvalConfig("daifugo", (("hard", "cpus/mine", "medium"),), seed=1, workers=7)
    other = evaluate.EvalConfig("daifugo", (("hard", "cpus/mine", "medium"),), seed=2)
    assert evaluate.default_out(one) == evaluate.default_out(again)
    assert evaluate.default_out(one) != evaluate.default_out(other)
    assert evaluate.default_out(one).name.startswith("daifugo-hard-cpus_mine-medium-")


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the broken player reaches the workers by fork")
def test_a_worker_error_is_one_line_naming_the_player(monkeypatch):
    from climbrl.policies.base import RandomPlayer

    def broken(self, observation, view):
        raise ValueError("no legal move\nsecond line")

    monkeypatch.setattr(RandomPlayer, "act", broken)
    config = evaluate.EvalConfig("daifugo", (("easy", "random", "easy"),), deals=4, rounds=1,
                                 workers=2, progress=False)
    with pytest.raises(evaluate.PlayerError) as err:
        evaluate.run(config)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("player 'random' at seat ")
    assert "no legal move; second line" in message


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_on_a_log_is_a_line_a_minute(monkeypatch, capsys):
    # the bar wrote 117 KB in 3 minutes to a log
    clock = FakeClock()
    monkeypatch.setattr(evaluate.time, "monotonic", clock)
    bar = evaluate._progress(100, 10, True, "daifugo deals")  # stderr is captured: not a tty
    for _ in range(70):  # a deal a second
        clock.now += 1.0
        bar.update(1)
    bar.close()  # and a last line, the run having lasted a minute or more
    assert capsys.readouterr().err == ("daifugo deals: 70/100 (70%), 60 s\n"
                                       "daifugo deals: 80/100 (80%), 70 s\n")
    assert isinstance(evaluate._progress(1, 0, False, "x"), evaluate._NoProgress)


# -- killing a running eval ------------------------------------------------------------------


def children_of(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {PATIENCE_SECONDS} s for {what}")
        time.sleep(0.05)


def start_eval(out: Path, players: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "climbrl.cli", "eval", "--game", "daifugo", "--players",
            players, "--deals", "400", "--rounds", "1", "--workers", "2", "--no-progress",
            "--out", str(out)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_eval_leaves_no_worker(tmp_path, sig):
    # after SIGKILL or SIGTERM of 'climbrl eval --workers 2' both workers lived on
    out = tmp_path / "eval"
    proc = start_eval(out, "random,random,random")
    games = out / GAMES_FILE
    wait_for(lambda: games.exists() and games.stat().st_size > 0 or proc.poll() is not None,
             "the first deal")
    workers = children_of(proc.pid)
    assert proc.poll() is None, "the tournament ended before it could be killed"
    assert len(workers) == 2
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=PATIENCE_SECONDS)
    wait_for(lambda: not any(alive(w) for w in workers), "the workers to end")
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
        assert "stopped by SIGTERM after" in err.decode() and "Traceback" not in err.decode()
    # what was written are whole deals, as a fresh play of those deals gives them
    config = evaluate.EvalConfig("daifugo", (("random",) * 3,), deals=400, rounds=1, workers=1,
                                 progress=False)
    store = evaluate.open_store(config, out)
    done = sorted(store.finished)
    assert done
    table = evaluate._Table(config, 0)
    for _lineup, deal in done[:3]:
        assert [r for r in store.records() if r["deal"] == deal] == table.play_deal(deal)
    store.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_busy_in_a_deal_end_when_eval_is_killed(tmp_path):
    # a deal of this player takes minutes: a worker that only notices its parent's death
    # between deals would outlive the wait below by far
    proc = start_eval(tmp_path / "eval", "scripted-hard:rollouts=2000,random,random")
    wait_for(lambda: len(children_of(proc.pid)) == 2 or proc.poll() is not None, "the workers")
    workers = children_of(proc.pid)
    time.sleep(1.0)  # well into their first deal
    proc.kill()
    proc.communicate(timeout=PATIENCE_SECONDS)
    wait_for(lambda: not any(alive(w) for w in workers), "the workers to end")


def test_long_player_names_keep_their_columns_apart(tmp_path, capsys):
    # a checkpoint's path longer than the name column ran into the next name:
    # "/work/snaps/daifugo/1556.ptscripted-medium  -0.078 ± 0.315"
    import shutil

    cpu = tmp_path / ("a-cpu-folder-with-a-name-longer-than-the-column-" + "x" * 12)
    shutil.copytree(Path(__file__).resolve().parents[1] / "cpus" / "daifugo", cpu)
    assert cli(["eval", "--game", "daifugo", "--players", f"{cpu},random,random", "--deals", "2",
                "--rounds", "1", "--workers", "1", "--no-progress",
                "--out", str(tmp_path / "out")]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.find(str(cpu)) >= 0]
    assert len(rows) >= 3  # the players' table, the pairs' table and the ladder
    for row in rows:
        after = row[row.find(str(cpu)) + len(str(cpu)):]
        assert after.startswith("  ") and after.strip(), row
    pair = next(row for row in rows if row.startswith(str(cpu)) and "random" in row)
    assert pair[len(str(cpu)):].split()[0] == "random"


def test_a_folder_recorded_before_the_fingerprints_says_so(tmp_path, capsys):
    # a tournament folder written before `climbrl eval` recorded its networks' fingerprints
    # was refused with "weights: null there", as if it had recorded no network
    out = tmp_path / "eval"
    assert eval_into(out) == 0  # `easy` is a trained CPU: its weights are recorded
    config = json.loads((out / "config.json").read_text())
    assert config.pop("weights")
    (out / "config.json").write_text(json.dumps(config))
    capsys.readouterr()
    assert eval_into(out) == 2
    err = capsys.readouterr().err
    assert "(weights: not recorded there, {" in err and "null" not in err


def test_a_setting_recorded_as_null_differs_from_one_not_recorded(tmp_path):
    # the refusal listed only settings whose values differed, so null on one side and absent
    # on the other was refused with an empty list of differences
    from climbrl.training.results import ResultStore

    ResultStore(tmp_path, {"seed": 3, "rounds": None}, [1]).close()
    with pytest.raises(ValueError, match=r"\(rounds: null there, not recorded here\)"):
        ResultStore(tmp_path, {"seed": 3}, [1])


def test_a_cpu_exported_again_to_its_path_is_not_resumed(tmp_path, capsys):
    # `climbrl eval` resumed a finished tournament of `cpus/daifugo` after a new network had
    # been exported there, and printed the old network's figures as the new one's
    import shutil

    cpu = tmp_path / "cpu"
    shutil.copytree(Path(__file__).resolve().parents[1] / "cpus" / "daifugo", cpu)
    lineup = (str(cpu), "random", "random")
    before = evaluate.check(evaluate.EvalConfig("daifugo", (lineup,), deals=2, rounds=1))
    args = ["eval", "--game", "daifugo", "--players", ",".join(lineup), "--deals", "2",
            "--rounds", "1", "--workers", "1", "--no-progress", "--out", str(tmp_path / "out")]
    assert cli(args) == 0
    meta = json.loads((cpu / "cpu.json").read_text())
    meta["trained"] = {**meta["trained"], "minutes": meta["trained"]["minutes"] + 1}
    (cpu / "cpu.json").write_text(json.dumps(meta))
    after = evaluate.check(evaluate.EvalConfig("daifugo", (lineup,), deals=2, rounds=1))
    assert dict(before.weights).keys() == {str(cpu)}
    assert before.weights != after.weights
    assert evaluate.default_out(before) != evaluate.default_out(after)
    capsys.readouterr()
    assert cli(args) == 2
    err = capsys.readouterr().err
    assert "holds a tournament with other settings" in err and "weights" in err
    assert cli([*args, "--overwrite"]) == 0


def test_scripted_tournaments_keep_their_identity():
    # no trained player: no weights key, so their folders made before it still resume
    lineup = ("random", "scripted-medium", "scripted-hard")
    config = evaluate.check(evaluate.EvalConfig("daifugo", (lineup,)))
    assert config.weights == () and "weights" not in evaluate.settings(config)
