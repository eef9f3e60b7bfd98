"""Training runs from the outside: why a run stops, the command line's help, what TensorBoard
gets, the console output, run folders (no overwrite, one trainer, no escape, durable
checkpoints), settings checked before any work, and a killed trainer leaving nothing behind."""

from __future__ import annotations

import dataclasses
import errno
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from climbrl.training import checkpoint, dmc
from climbrl.cli import main
from climbrl.training.config import make_args
from climbrl.training.dmc import Args, train
from climbrl.training.progress import Progress
from climbrl.training.rundir import LOCK_FILE, RunFolderError, RunLock
from climbrl.training.stats import SHARE, mean_ci

from doudizhu_variants import VARIANTS
from trainer_helpers import SMALL, cli_overrides, small_args, wait_until_trained

ROOT = Path(__file__).resolve().parent.parent
BATCH = SMALL["batch_size"]
TINY_BUDGET_MINUTES = 0.002
"""a budget that has run out after the first batch (the first one is always trained)"""
KILL_WAIT_SECONDS = 10.0
"""how long the processes of a killed trainer may take to go"""
TRAIN_START_SECONDS = 180.0
"""how long a subprocess trainer (spawning its actor) may take to write a checkpoint"""


def _scalars(run_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return acc


# -- issue: --minutes on resume, and why a run stops ------------------------------------------


def test_minutes_is_the_budget_of_each_invocation_and_the_stop_is_explained(tmp_path, capsys):
    # regression: --minutes counted the run's total, so resuming with a budget smaller than
    # the time already trained exited at once, without a word
    first = train(small_args(tmp_path, minutes=TINY_BUDGET_MINUTES))
    assert first["stopped"].startswith("time budget reached")
    assert first["elapsed"] > TINY_BUDGET_MINUTES * 60
    frames = first["frames"]
    assert main(["train", "--resume", first["run_dir"], "--minutes",
                 str(TINY_BUDGET_MINUTES)]) == 0
    out = capsys.readouterr().out
    assert "time budget reached: 0.002 minutes of this invocation" in out
    data = checkpoint.load(first["run_dir"])
    assert data["counters"]["frames"] > frames
    assert data["counters"]["session"] == 1
    # the budget is not recorded as the run's: a resume without --minutes has none
    assert make_args(None, {"resume": first["run_dir"]}).minutes is None


def test_time_budget_of_1_minute_is_said_in_the_singular(tmp_path, monkeypatch):
    # regression: "time budget reached: 1 minutes of this invocation"
    monkeypatch.setattr(dmc, "SECONDS_PER_MINUTE", TINY_BUDGET_MINUTES * 60)  # 1 "minute" ends
    run = train(small_args(tmp_path, minutes=1))
    assert run["stopped"] == "time budget reached: 1 minute of this invocation"


def test_total_frames_counts_the_whole_run_and_says_so(tmp_path):
    run = train(small_args(tmp_path, total_frames=BATCH))
    assert run["stopped"] == f"total_frames reached: {BATCH} frames of {BATCH}"
    again = train(make_args(None, {"resume": run["run_dir"]}))
    assert again["frames"] == BATCH
    assert again["stopped"] == (f"total_frames reached: {BATCH} frames of {BATCH} before this "
                                "invocation (a larger --total-frames goes on)")


# -- issue: train --help -------------------------------------------------------------------------


def test_train_help_lists_every_setting_with_type_default_and_doc(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for f in dataclasses.fields(Args):
        assert f"--{f.name.replace('_', '-')}" in text
    assert "--total-frames INT|NULL stop once the run has trained" in text
    assert "--learning-rate FLOAT RMSprop step size (default: 0.0001)" in text
    assert "--state-layers LIST widths of the layers that encode the state (default: " \
           "[512, 512, 512, 512])" in text
    assert "(default: daifugo)" in text


def test_train_options_are_read_as_typed_settings(tmp_path):
    from climbrl.cli import _train_overrides, build_parser

    args, rest = build_parser().parse_known_args(
        ["train", "--minutes", "3", "--rules", "{lock: false}", "--overwrite",
         "--games_per_actor=8", "--reward", "null"])
    assert _train_overrides(args, rest) == {"minutes": 3.0, "rules": {"lock": False},
                                            "overwrite": True, "games_per_actor": 8,
                                            "reward": None}
    args, rest = build_parser().parse_known_args(["train", "--progress", "maybe"])
    with pytest.raises(ValueError, match="progress must be bool, got 'maybe'"):
        _train_overrides(args, rest)


# -- issue: TensorBoard --------------------------------------------------------------------------


def test_fps_leaves_out_the_evaluation_pauses(tmp_path, monkeypatch):
    # regression: charts/fps swung 1.8k-7.9k because the evaluations' time counted; here
    # each evaluation "takes" 1000 s of a fake clock, which would put fps near 0
    offset = [0.0]
    clock = time.perf_counter

    class FakeTime:
        time = staticmethod(time.time)

        @staticmethod
        def perf_counter():
            return clock() + offset[0]

    real_evaluate = dmc.evaluate

    def slow_evaluate(*a, **k):
        offset[0] += 1000.0
        return real_evaluate(*a, **k)

    monkeypatch.setattr(dmc, "time", FakeTime)
    monkeypatch.setattr(dmc, "evaluate", slow_evaluate)
    run = train(small_args(tmp_path, total_frames=BATCH * 6, eval_every_frames=BATCH * 2,
                           eval_harness=False, eval_deals=1, log_seconds=1e-6))
    assert offset[0] >= 3000
    fps = [e.value for e in _scalars(run["run_dir"]).Scalars("charts/fps")]
    assert len(fps) >= 3 and min(fps) > 10.0


def test_tensorboard_has_q_epsilon_lr_grad_norm_role_returns_and_hparams(tmp_path):
    # regression: Dou Dizhu logged charts/return/seat_* (only from deals nobody bid on:
    # always 0); q, epsilon, learning rate and gradient norms were missing; no HParams
    run = train(small_args(tmp_path, game="doudizhu", total_frames=BATCH * 4,
                           start={"fixed_landlord": 1.0}))
    acc = _scalars(run["run_dir"])
    tags = set(acc.Tags()["scalars"])
    assert {"charts/epsilon", "charts/learning_rate"} <= tags
    assert {"q/landlord", "grad_norm/landlord", "losses/landlord"} <= tags
    returns = {t for t in tags if t.startswith("charts/return/")}
    assert returns and not any("seat_" in t for t in returns)
    assert returns <= {f"charts/return/{r}" for r in ("landlord", "peasant_after",
                                                      "peasant_before")}
    assert acc.Scalars("charts/epsilon")[-1].value == pytest.approx(SMALL.get(
        "exploration", Args.exploration))
    hparams = acc.PluginTagToContent("hparams")
    assert {"_hparams_/experiment", "_hparams_/session_start_info"} <= set(hparams)
    assert b"learning_rate" in hparams["_hparams_/session_start_info"]


def test_share_intervals_stay_within_zero_and_one():
    # regression: WP_peasants_high reached 1.011 (the normal interval of a share near 1)
    values = [1.0] * 9 + [0.5]
    mean, low, high = mean_ci(values, bounds=SHARE)
    assert high == 1.0 and 0.0 <= low <= mean
    assert mean_ci(values)[2] > 1.0  # unclipped, for figures that are not shares
    assert mean_ci([0.0] * 9 + [0.5], bounds=SHARE)[1] == 0.0


# -- issue: the progress bar in a log file -------------------------------------------------------


def test_progress_prints_a_few_lines_instead_of_a_bar_when_not_a_terminal():
    # regression: the bar, redrawn many times a second, wrote 117 KB to a log in 3 minutes
    out = io.StringIO()
    progress = Progress("run", None, 0, enabled=True, seconds=3600, stream=out)
    for frames in range(0, 100_000, 64):
        progress.update(frames, frames / 1000)
    assert out.getvalue() == ""
    progress.note("eval vs random 2.10 pts/round")
    progress.close()
    assert out.getvalue() == f"run: {frames:,} frames, eval vs random 2.10 pts/round\n"
    every = io.StringIO()
    progress = Progress("run", None, 0, enabled=True, seconds=0.0, stream=every)
    progress.update(640, 1.0)
    progress.update(1280, 1.5)  # the rate over the active seconds between lines
    assert every.getvalue() == "run: 640 frames\nrun: 1,280 frames, 1,280 frames/s\n"


def test_training_to_a_log_file_writes_lines_not_a_bar(tmp_path, capsys):
    train(small_args(tmp_path, total_frames=BATCH * 4, progress=True, progress_seconds=3600))
    err = capsys.readouterr().err
    assert "\r" not in err and len(err.splitlines()) <= 2


# -- issue: run folders --------------------------------------------------------------------------


def test_new_run_refuses_to_overwrite_an_existing_run(tmp_path):
    # regression: the same --run-name (fixed in the shipped CPU configs) wiped the first run
    first = train(small_args(tmp_path, total_frames=BATCH))
    before = checkpoint.load(first["run_dir"])["counters"]
    with pytest.raises(RunFolderError, match="holds a run already: --resume .* continues it"):
        train(small_args(tmp_path, total_frames=BATCH * 2))
    assert checkpoint.load(first["run_dir"])["counters"] == before
    events = sorted(Path(first["run_dir"]).glob("events.out.tfevents.*"))
    again = train(small_args(tmp_path, total_frames=BATCH * 2, overwrite=True))
    assert again["run_dir"] == first["run_dir"]
    assert checkpoint.load(again["run_dir"])["counters"]["session"] == 0
    assert not any(p.exists() for p in events)  # the old logs went with the old run


def test_runs_without_a_name_get_a_fresh_folder_each(tmp_path):
    a = train(small_args(tmp_path, run_name=None, total_frames=BATCH))
    b = train(small_args(tmp_path, run_name=None, total_frames=BATCH))
    assert a["run_dir"] != b["run_dir"]
    assert checkpoint.load(a["run_dir"])["counters"]["frames"] == BATCH


def test_two_trainers_cannot_write_one_run_folder(tmp_path):
    run = train(small_args(tmp_path, total_frames=BATCH))
    with RunLock(Path(run["run_dir"])):  # another trainer holds the folder
        with pytest.raises(RunFolderError, match="is in use by another trainer"):
            train(make_args(None, {"resume": run["run_dir"], "total_frames": BATCH * 2}))
        assert (Path(run["run_dir"]) / LOCK_FILE).is_file()  # the refused one left it be
    assert train(make_args(None, {"resume": run["run_dir"],
                                  "total_frames": BATCH * 2}))["frames"] == BATCH * 2


def _record_lock_at_save(monkeypatch) -> list[bool]:
    """Whether the run folder's lock file was there at each checkpoint write."""
    seen, save = [], checkpoint.save

    def recording(path, payload):
        seen.append((Path(path).parent / LOCK_FILE).is_file())
        return save(path, payload)

    monkeypatch.setattr(checkpoint, "save", recording)
    return seen


def test_lock_file_is_kept_while_training_and_removed_at_the_end(tmp_path, monkeypatch):
    # regression: `.lock` stayed in the run folder after `climbrl train` exited
    seen = _record_lock_at_save(monkeypatch)
    run = train(small_args(tmp_path, total_frames=BATCH))
    assert seen == [True]
    assert not (Path(run["run_dir"]) / LOCK_FILE).exists()
    assert main(["train", "--resume", run["run_dir"], "--total-frames", str(BATCH * 2)]) == 0
    assert seen == [True, True]
    assert not (Path(run["run_dir"]) / LOCK_FILE).exists()


def test_lock_file_is_removed_when_training_fails(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the learner caught fire")

    seen = _record_lock_at_save(monkeypatch)
    monkeypatch.setattr(dmc, "learn", broken)
    with pytest.raises(RuntimeError, match="caught fire"):
        train(small_args(tmp_path, total_frames=BATCH))
    assert seen == [True]  # the checkpoint at the failure, lock held
    assert not (tmp_path / "runs" / "test" / LOCK_FILE).exists()


def test_a_lock_file_removed_while_another_trainer_waited_is_not_taken(tmp_path, monkeypatch):
    # the trainer before removes the file between the next one's open and its flock: the
    # next one must lock the folder's new file, not the removed one (two "holders" otherwise)
    folder = tmp_path / "run"
    first = RunLock(folder).acquire()
    opened = []
    real_open = open

    def racing_open(path, *args, **kwargs):
        f = real_open(path, *args, **kwargs)
        if Path(path).name == LOCK_FILE and not opened:
            opened.append(path)
            first.release()  # the holder lets go right after this open
        return f

    monkeypatch.setattr("builtins.open", racing_open)
    second = RunLock(folder).acquire()
    monkeypatch.undo()
    try:
        assert (folder / LOCK_FILE).is_file()
        with pytest.raises(RunFolderError, match="is in use by another trainer"):
            RunLock(folder).acquire()  # a third one sees the second's lock
    finally:
        second.release()
    assert not (folder / LOCK_FILE).exists()


@pytest.mark.parametrize("name", ["../../x", "../x", "a/b", "/tmp/x", "..", ".", ""])
def test_run_name_cannot_escape_runs_dir(tmp_path, name):
    with pytest.raises(ValueError, match="run_name"):
        train(small_args(tmp_path, run_name=name, total_frames=BATCH))
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


def test_resume_cannot_move_the_run(tmp_path):
    run = train(small_args(tmp_path, total_frames=BATCH))
    with pytest.raises(ValueError, match="a resumed run keeps its run_name"):
        make_args(None, {"resume": run["run_dir"], "run_name": "other"})


def test_checkpoint_is_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync") or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: calls.append("replace") or real_replace(a, b))
    checkpoint.save(tmp_path / checkpoint.FILENAME, {"x": 1})
    assert calls == ["fsync", "replace", "fsync"]  # the file, the rename, the folder


def _full_disk(monkeypatch):
    def write_half_then_fail(obj, f):
        f.write(b"PK\x03\x04 partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(checkpoint.torch, "save", write_half_then_fail)


def test_full_disk_keeps_the_previous_checkpoint_and_resume_works(tmp_path, monkeypatch):
    run = train(small_args(tmp_path, total_frames=BATCH))
    folder = Path(run["run_dir"])
    (folder / "checkpoint.pt.tmp").write_bytes(b"stale, from a killed run")
    with monkeypatch.context() as m:
        _full_disk(m)
        with pytest.raises(OSError) as err:
            train(make_args(None, {"resume": run["run_dir"], "total_frames": BATCH * 2}))
    message = str(err.value)
    assert "\n" not in message and "No space left on device" in message
    assert str(folder / checkpoint.FILENAME) in message
    assert checkpoint.load(folder)["counters"]["frames"] == BATCH  # intact
    assert sorted(p.name for p in folder.glob("*.tmp")) == ["checkpoint.pt.tmp"]  # no new one
    resumed = train(make_args(None, {"resume": run["run_dir"], "total_frames": BATCH * 2}))
    assert resumed["frames"] == BATCH * 2


def test_a_failed_periodic_checkpoint_is_one_warning_and_training_goes_on(tmp_path, capsys,
                                                                          monkeypatch):
    real_save = checkpoint.save
    failures = []

    def save(path, payload):
        if len(failures) < 2:  # the periodic ones; the last one at exit goes through
            failures.append(path)
            raise OSError(errno.ENOSPC, f"could not write {str(path)!r}: No space left")
        return real_save(path, payload)

    monkeypatch.setattr(checkpoint, "save", save)
    run = train(small_args(tmp_path, total_frames=BATCH * 3, checkpoint_minutes=1e-9))
    assert len(failures) == 2 and run["frames"] == BATCH * 3
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 2 and "No space left" in warnings[0]


# -- issue: settings checked before any work -----------------------------------------------------


@pytest.mark.parametrize("setting,value", [
    ("minutes", -1), ("minutes", 0), ("total_frames", -5), ("total_frames", 0), ("seed", -1),
    ("actors", -1), ("checkpoint_minutes", 0), ("progress_seconds", -3), ("backend", "slurm"),
    ("device", "tpu"), ("device", "meta")])
def test_bad_settings_are_refused_before_any_work(tmp_path, setting, value):
    # regression: --minutes -1 and --total-frames -5 ran 0 frames and wrote a checkpoint;
    # --seed -1 failed deep in numpy
    with pytest.raises(ValueError, match=f"bad value for {setting}: {value!r}"):
        train(small_args(tmp_path, **{setting: value}))
    assert not (tmp_path / "runs").exists()


def test_ray_settings_are_refused_where_they_cannot_work(tmp_path, monkeypatch, capsys):
    from climbrl.training import ray_backend

    with pytest.raises(ValueError, match="ray_address is a setting of backend ray"):
        small_args(tmp_path, ray_address="auto").validate()
    with pytest.raises(ValueError, match="backend ray needs actors of 1 or more"):
        small_args(tmp_path, backend="ray", actors=0).validate()
    monkeypatch.setattr(ray_backend, "available", lambda: False)
    with pytest.raises(ValueError, match=r"needs Ray, which is not installed: pip install "
                                         r"'climbrl\[ray\]'"):
        small_args(tmp_path, backend="ray", actors=1).validate()
    assert main(["eval", "--game", "daifugo", "--players", "random,random,random,random",
                 "--backend", "ray"]) == 2
    assert "needs Ray, which is not installed" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


@pytest.mark.skipif(dmc.torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_a_cuda_learner_without_cuda_is_refused_naming_the_device(tmp_path):
    with pytest.raises(ValueError, match="device 'cuda': torch finds no such CUDA device"):
        train(small_args(tmp_path, device="cuda"))
    assert small_args(tmp_path, device="auto").device == "auto"
    assert dmc.learner_device("auto").type == "cpu"


def test_settings_of_the_wrong_type_are_refused():
    with pytest.raises(ValueError, match="overwrite must be bool, got 'no'"):
        make_args(None, {"overwrite": "no"})
    with pytest.raises(ValueError, match="seed must be int, got 1.5"):
        Args(seed=1.5).validate()
    with pytest.raises(ValueError, match="unknown setting"):
        make_args(None, {"minuts": 3})


def test_rule_values_reach_the_game_as_written_and_fail_before_any_work(tmp_path,
                                                                        monkeypatch):
    # regression: rules: {lock: "no"} was read by truthiness (lock on) and stored so; the
    # trainer passes the text to the game, whose rules check refuses it, before any folder
    config = tmp_path / "c.yaml"
    config.write_text('game: daifugo\nplayers: 4\nrules: {lock: "no", rounds: 1}\n')
    args = make_args(config, {**SMALL, "runs_dir": str(tmp_path / "runs"), "actors": 0})
    assert args.rules == {"lock": "no", "rounds": 1}
    seen = []

    def strict_game(**kwargs):
        seen.append(kwargs["rules"])
        raise ValueError(f"rules 'daifugo': lock must be true or false, got "
                         f"{kwargs['rules']['lock']!r}")

    monkeypatch.setattr("climbrl.training.tables.make_game", strict_game)
    with pytest.raises(ValueError, match="lock must be true or false, got 'no'"):
        train(args)
    assert seen == [{"lock": "no", "rounds": 1}]
    assert not (tmp_path / "runs").exists()
    with pytest.raises(ValueError, match="rules must be dict"):
        make_args(None, ["--rules", "lock=no"])


def test_resuming_with_another_game_says_the_game_differs(tmp_path):
    # regression: it talked about reward and fixed_landlord instead
    folder = tmp_path / "runs" / "ddz"
    fake = {key: {} for key in checkpoint.REQUIRED + checkpoint.RESUMABLE}
    fake["args"] = dataclasses.asdict(Args(game="doudizhu", reward="score",
                                           start={"fixed_landlord": 0.9}, run_name="ddz"))
    checkpoint.save(folder / checkpoint.FILENAME, fake)
    with pytest.raises(ValueError, match="trains game 'doudizhu', not 'daifugo'"):
        make_args(None, {"resume": str(folder), "game": "daifugo"})


# -- issue: a killed trainer leaves no process ---------------------------------------------------


def _group_members(pgid: int) -> list[tuple[int, str]]:
    """Live (not zombie) processes of process group ``pgid``: (pid, command line)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (name) "
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            out.append((int(entry.name), cmd))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_train_leaves_no_process(tmp_path):
    # regression: after SIGKILL the actor (blocked in put_batch) and the multiprocessing
    # resource tracker lived on
    run_dir = tmp_path / "runs" / "kill"
    settings = {**SMALL, "runs_dir": tmp_path / "runs", "run_name": "kill", "actors": 1,
                "eval_every_frames": 0, "checkpoint_minutes": 0.01, "queue_batches": 1}
    cmd = [sys.executable, "-m", "climbrl.cli", "train", "--config",
           str(ROOT / "configs" / "daifugo4.yaml"), *cli_overrides(settings)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            start_new_session=True)  # its own process group, pgid = pid
    try:
        wait_until_trained(proc, run_dir, TRAIN_START_SECONDS)
        members = _group_members(proc.pid)
        assert len(members) >= 3, members  # the trainer, its actor, the resource tracker
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + KILL_WAIT_SECONDS
        while _group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _group_members(proc.pid) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid, _ in _group_members(proc.pid):
            os.kill(pid, signal.SIGKILL)
    frames = checkpoint.load(run_dir)["counters"]["frames"]
    assert main(["train", "--resume", str(run_dir), "--actors", "0",
                 "--total-frames", str(frames + BATCH)]) == 0
    data = checkpoint.load(run_dir)
    assert data["counters"]["frames"] >= frames + BATCH and data["counters"]["session"] == 1


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["ctrl-c", "sigterm"])
def test_interrupted_training_saves_then_exits_130_or_143(tmp_path, sig, status):
    # regression: Ctrl-C saved, printed "stopped by a signal" and exited 0 where the docs say
    # 130 (a script could not tell a finished run from a stopped one); .lock stayed behind
    run_dir = tmp_path / "runs" / "stop"
    settings = {**SMALL, "runs_dir": tmp_path / "runs", "run_name": "stop", "actors": 0,
                "eval_every_frames": 0, "checkpoint_minutes": 0.01}
    cmd = [sys.executable, "-m", "climbrl.cli", "train", "--config",
           str(ROOT / "configs" / "daifugo4.yaml"), *cli_overrides(settings)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        frames = wait_until_trained(proc, run_dir, TRAIN_START_SECONDS)
        assert (run_dir / LOCK_FILE).is_file()  # kept while the trainer runs
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=KILL_WAIT_SECONDS * 6)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == status, err
    assert f"stopped by a signal ({'Ctrl-C, ' if sig == signal.SIGINT else ''}" \
           f"{signal.Signals(sig).name})" in out
    assert f"checkpoint {run_dir / checkpoint.FILENAME}" in out
    assert checkpoint.load(run_dir)["counters"]["frames"] >= frames  # saved at the stop
    assert not (run_dir / LOCK_FILE).exists()


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "classic"])
def test_every_doudizhu_variant_trains(tmp_path, variant):
    """A few batches of each Dou Dizhu variant, bidding and fixed-landlord deals both: the
    landlord's network learns and the checkpoint records the variant's rules."""
    options = dict(VARIANTS[variant])
    players = options.pop("players", 3)
    run = train(small_args(tmp_path, game="doudizhu", players=players, rules=options,
                           total_frames=BATCH * 6, start={"fixed_landlord": 0.5}))
    tags = set(_scalars(run["run_dir"]).Tags()["scalars"])
    assert "losses/landlord" in tags
    config = checkpoint.load(run["run_dir"])["spec"]["config"]
    assert all(config[key] == value for key, value in VARIANTS[variant].items())
