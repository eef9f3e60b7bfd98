"""The mark bookkeeping of ``climbrl.benchmarks.time_to_strength``: a rerun skips the marks kept, an
interrupted leg goes on from the run's last checkpoint with nothing lost, ``--keep-only``
copies a watched run's checkpoints at the marks, bad options are one line; and one real run at
tiny marks through ``climbrl train`` / ``climbrl eval`` (no time is asserted)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from climbrl.benchmarks import time_to_strength as tts
from trainer_helpers import one_error_line


@dataclass
class FakeCurve(tts.Curve):
    """A trainer whose run is a JSON file of (seconds, frames): a leg adds its minutes (and a
    little overshoot, as the real trainer's last update does); ``cut`` interrupts the leg with
    that index after ``cut_fraction`` of it (a kill after a checkpoint)."""

    legs: list[float] = field(default_factory=list)
    cut: int | None = None
    cut_fraction: float = 0.5
    overshoot: float = 0.3
    stuck: bool = False

    @property
    def run(self) -> Path:
        return self.out / "fake-run.json"

    def trained(self):
        if not self.run.is_file():
            return 0.0, 0
        data = json.loads(self.run.read_text())
        return data["elapsed"], data["frames"]

    def _advance(self, seconds: float) -> None:
        elapsed, frames = self.trained()
        self.run.parent.mkdir(parents=True, exist_ok=True)
        self.run.write_text(json.dumps({"elapsed": elapsed + seconds,
                                        "frames": frames + int(seconds * 100)}))

    def leg(self, minutes: float) -> None:
        self.legs.append(minutes)
        if self.stuck:
            return
        if self.cut == len(self.legs) - 1:
            self._advance(minutes * 60 * self.cut_fraction)
            raise KeyboardInterrupt
        self._advance(minutes * 60 + self.overshoot)

    def keep(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "weights").write_text(self.run.read_text())


def kept_seconds(curve, minutes):
    return json.loads((curve.marks_dir / tts.mark_name(minutes) / "weights").read_text())[
        "elapsed"]


def test_marks_are_kept_at_their_time_and_a_rerun_skips_them(tmp_path, capsys):
    curve = FakeCurve("fake", tmp_path)
    tts.train_to_marks(curve, [1, 2, 4])
    assert curve.legs == pytest.approx([1, 1 - 0.3 / 60, 2 - 0.3 / 60])
    for minutes in (1, 2, 4):
        record = tts.kept(curve.marks_dir, minutes)
        assert minutes * 60 <= record["elapsed"] < minutes * 60 + 1
        assert kept_seconds(curve, minutes) == record["elapsed"]
    again = FakeCurve("fake", tmp_path)
    tts.train_to_marks(again, [1, 2, 4, 8])  # a mark added later trains only that leg
    assert again.legs == pytest.approx([4 - 0.3 / 60])
    assert capsys.readouterr().out.count("kept already") == 3


def test_an_interrupted_leg_resumes_from_the_last_checkpoint(tmp_path):
    curve = FakeCurve("fake", tmp_path, cut=1)  # the leg to mark 3 dies half way
    with pytest.raises(KeyboardInterrupt):
        tts.train_to_marks(curve, [1, 3])
    assert tts.kept(curve.marks_dir, 1) is not None and tts.kept(curve.marks_dir, 3) is None
    half = curve.trained()[0]
    assert 60 + 55 < half < 60 + 65  # one minute of the two was trained and saved
    again = FakeCurve("fake", tmp_path)
    tts.train_to_marks(again, [1, 3])
    assert again.legs == pytest.approx([(180 - half) / 60])  # only what was left
    assert 180 <= tts.kept(again.marks_dir, 3)["elapsed"] < 181


def test_a_run_past_a_mark_not_kept_is_refused(tmp_path):
    curve = FakeCurve("fake", tmp_path)
    curve._advance(200)
    with pytest.raises(tts.BenchmarkError, match="past the mark of 2 minutes"):
        tts.train_to_marks(curve, [2])


def test_a_leg_that_trains_nothing_is_an_error_not_a_loop(tmp_path):
    curve = FakeCurve("fake", tmp_path, stuck=True)
    curve.log.parent.mkdir(parents=True)
    curve.log.write_text("climbrl: failed: something\n")
    with pytest.raises(tts.BenchmarkError, match="trained nothing.*something"):
        tts.train_to_marks(curve, [1])
    assert len(curve.legs) == 1


class FakeRun:
    """A climbrl run that writes a checkpoint (here: its seconds as JSON) at given times,
    one per poll of the watch."""

    def __init__(self, folder: Path, times: list[float]):
        self.folder, self.times = folder, list(times)
        folder.mkdir(parents=True, exist_ok=True)

    def write(self) -> None:
        if self.times:
            seconds = self.times.pop(0)
            (self.folder / tts.CHECKPOINT).write_text(json.dumps([seconds, int(seconds) * 10]))

    @staticmethod
    def counters(path: Path):
        seconds, frames = json.loads(path.read_text())
        return seconds, frames


def test_keep_only_copies_the_first_checkpoint_past_each_mark(tmp_path):
    run = FakeRun(tmp_path / "run", [40, 70, 100, 130, 160])
    marks_dir = tmp_path / "marks"
    status = tts.keep_only(run.folder, [1, 2], marks_dir, counters=FakeRun.counters,
                           sleep=lambda s: run.write())
    assert status == {1: "kept", 2: "kept"}
    assert tts.kept(marks_dir, 1)["elapsed"] == 70
    assert tts.kept(marks_dir, 2)["elapsed"] == 130
    assert FakeRun.counters(marks_dir / "2min" / tts.CHECKPOINT) == (130, 1300)
    assert run.times == [160]  # it stopped once every mark was kept


def test_keep_only_reports_a_mark_passed_before_the_watch_began(tmp_path, capsys):
    run = FakeRun(tmp_path / "run", [90, 130])
    run.write()  # the run was at 90 s when the watch began
    marks_dir = tmp_path / "marks"
    status = tts.keep_only(run.folder, [1, 2], marks_dir, counters=FakeRun.counters,
                           sleep=lambda s: run.write())
    assert status == {1: "missed", 2: "kept"}
    assert tts.kept(marks_dir, 1) is None and tts.kept(marks_dir, 2)["elapsed"] == 130
    assert "missed" in capsys.readouterr().out


BASE = ["--game", "daifugo", "--config", "daifugo3"]


@pytest.mark.parametrize("argv, said", [
    (BASE + ["--marks", "2", "1"], "--marks must be increasing"),
    (BASE + ["--marks", "0"], "--marks must be increasing"),
    (BASE + ["--marks", "1", "--deals", "0"], "--deals must be at least 1"),
    (BASE + ["--marks", "1", "--bogus"], "unrecognized arguments: --bogus"),
    (BASE + ["--marks", "x"], "invalid float value: 'x'"),
    (BASE + ["--marks", "1", "--train", "actors"], "--train needs KEY=VALUE"),
    (["--game", "doudizhu", "--config", "daifugo3", "--marks", "1"], "trains 'daifugo'"),
    (BASE + ["--marks", "1", "--douzero-python", "python3"], "DouZero plays Dou Dizhu only"),
    (["--game", "doudizhu", "--config", "doudizhu", "--marks", "1", "--douzero-python",
      "/no/such/python"], "--douzero-python /no/such/python: cannot import"),
    (["--game", "doudizhu", "--config", "doudizhu", "--marks", "1", "--trainers", "douzero"],
     "--trainers douzero needs --douzero-python"),
    (BASE + ["--marks", "1", "--trainers", "nope"], "invalid choice: 'nope'"),
    (["--game", "daifugo", "--config", "nope.yaml", "--marks", "1"], "no training config"),
    (BASE + ["--marks", "1", "--keep-only", "/no/such/run"], "--keep-only /no/such/run"),
    (BASE + ["--marks", "1", "--eval-only", "x=cpus/daifugo"], "M=SPEC needs minutes"),
])
def test_a_bad_option_is_one_line(capsys, tmp_path, argv, said):
    assert tts.main(argv + ["--out", str(tmp_path / "out")]) == 2
    line = one_error_line(capsys)
    assert line.startswith("time_to_strength: error: ") and said in line, line


def test_an_out_folder_of_another_benchmark_is_refused(capsys, tmp_path):
    tts.write_json(tmp_path / tts.SETTINGS_FILE, {"game": "daifugo", "config": "daifugo4"})
    assert tts.main(BASE + ["--marks", "1", "--out", str(tmp_path)]) == 2
    assert "holds the benchmark of" in one_error_line(capsys)


def test_figures_are_the_checkpoints_side_of_the_pair():
    pair = {"a": "scripted-medium", "b": "me", "mean": 0.25, "low": 0.05, "high": 0.45,
            "deals": 9}
    summary = {"players": {"me": {"points_per_round": {"mean": 1.2}}}, "pairs": [pair]}
    got = tts.figures("daifugo", summary, "me", "scripted-medium")
    assert got["diff"] == {"mean": -0.25, "low": -0.45, "high": -0.05}


def test_a_real_run_at_tiny_marks_resumes_and_skips(tmp_path, capsys):
    """Through the real command lines: two legs of ``climbrl train`` (one process), the marks'
    checkpoints exported and evaluated; the same command again trains nothing."""
    pytest.importorskip("torch")
    out = tmp_path / "tts"
    argv = BASE + ["--marks", "0.05", "0.2", "--deals", "1", "--workers", "1", "--train",
                   "actors=0", "--opponents", "random", "--out", str(out)]
    assert tts.main(argv) == 0
    text = capsys.readouterr().out
    assert "[climbrl 0.05min] kept" in text and "[climbrl 0.2min] kept" in text
    for minutes in (0.05, 0.2):
        record = tts.kept(out / "marks" / "climbrl", minutes)
        assert record["elapsed"] >= minutes * 60 and record["frames"] > 0
    assert "| climbrl | random |" in (out / "results.md").read_text()
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [(r["minutes"], r["opponent"]) for r in rows] == [(0.05, "random"), (0.2, "random")]
    log = (out / "logs" / "climbrl.log").read_text()
    legs = log.count("climbrl.cli train")  # 1 when the first leg's last step passed both
    assert legs in (1, 2) and log.count("--resume") == legs - 1
    assert tts.main(argv) == 0
    assert capsys.readouterr().out.count("kept already") == 2
    assert (out / "logs" / "climbrl.log").read_text().count("climbrl.cli train") == legs


def test_eval_only_reads_a_marks_folder_and_refuses_two_sources_of_one_name(tmp_path, capsys):
    marks = tmp_path / "climbrl"
    for minutes, frames in ((15, 1000), (30, 2000)):
        folder = marks / tts.mark_name(minutes)
        folder.mkdir(parents=True)
        (folder / tts.CHECKPOINT).write_bytes(b"")
        tts.write_json(folder / tts.MARK_FILE, {"minutes": minutes, "frames": frames})
    args = tts.build_parser().parse_args(BASE + ["--marks", "15", "30", "60", "--eval-only",
                                                 str(marks)])
    trained: dict = {}
    (spec_of, python), = tts.sources(args, trained).values()
    assert spec_of(15) == str(marks / "15min" / tts.CHECKPOINT) and spec_of(60) is None
    assert trained == {"climbrl": {15: 1000, 30: 2000}}
    argv = BASE + ["--marks", "15", "--eval-only", str(marks), "15=cpus/daifugo", "--out",
                   str(tmp_path / "out")]
    assert tts.main(argv) == 2
    assert "are both called 'climbrl'" in one_error_line(capsys)


def test_a_tournament_that_fails_is_one_line_naming_it_with_status_1(tmp_path, capsys):
    argv = BASE + ["--marks", "15", "--eval-only", f"15={tmp_path / 'nope'}", "--deals", "1",
                   "--workers", "1", "--opponents", "random", "--out", str(tmp_path / "out")]
    assert tts.main(argv) == 1
    line = one_error_line(capsys)
    assert line.startswith("time_to_strength: failed: climbrl eval of ") and "nope" in line
