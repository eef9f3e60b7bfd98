"""Time to strength: how strong the trainer's network is after M minutes of training on this
machine, against scripted-medium and scripted-hard (and, for Dou Dizhu, the same curve for
DouZero's own DMC trainer at equal wall time and cores).

    python -m climbrl.benchmarks.time_to_strength --game daifugo --config configs/daifugo4.yaml \\
        --marks 15 30 60 120 --deals 500 [--workers 2] [--out DIR]
    python -m climbrl.benchmarks.time_to_strength --game doudizhu --config configs/doudizhu.yaml \\
        --marks 15 30 60 120 --deals 500 --douzero-python .venv-douzero/bin/python
    python -m climbrl.benchmarks.time_to_strength --game daifugo --config daifugo4 --marks 15 30 \\
        --keep-only runs/<run>          # copy a long run's checkpoint as it passes each mark
    python -m climbrl.benchmarks.time_to_strength --game daifugo --config daifugo4 --marks 15 30 \\
        --deals 500 --eval-only runs/tts/marks/climbrl [15=path 30=path ...]

**Training.** One run, trained with successive ``climbrl train`` invocations (the first
``--config`` with ``--eval-every-frames 0``: the benchmark evaluates, not the trainer; then
``--resume``), each with the ``--minutes`` left to the next mark, counted in the trainer's own
record of wall time trained (the checkpoint's ``elapsed``, which the trainer's time budget
counts too). ``--train KEY=VALUE`` adds a setting to the first invocation (``actors=0`` for one
core). At each mark the checkpoint is copied to ``marks/climbrl/<M>min/`` with ``mark.json``
(minutes, seconds trained, frames) and exported (``climbrl export``, the CPU that is played).
DouZero (``--douzero-python P``, a Python where ``pip install douzero gitpython`` and climbrl's
requirements are installed) trains the same way through :mod:`climbrl.benchmarks.douzero_dmc` (its
trainer unchanged: CPU actor and learner, one actor, its default network) into
``marks/douzero/<M>min/`` (one weights file per position). ``--trainers douzero`` (or
``climbrl``) trains and evaluates that curve alone, so the two can run at different times on
the same core.

**Resuming.** Everything is kept in ``--out`` (default ``runs/tts/<game>-<config name>``):
the same command again skips the marks already kept and the evaluations already finished,
resumes a leg that was interrupted (from the trainer's last checkpoint: ``--checkpoint-minutes``,
default 5, bounds what a kill loses) and a tournament that was interrupted (``climbrl eval``'s
own per-deal store). Marks may be added later (``--marks 15 30 60 120 240``).

**Evaluation.** ``climbrl eval`` on ``--deals`` duplicate deals (one seed for every mark and
trainer, so every mark plays the same deals): Daifugo / President, the network in one seat
against three of the scripted level (table size and rules from the config, or ``--players``,
``--rounds``, ``--rule``); the figure is its points per round minus the scripted player's, with
the 95% interval. Dou Dizhu: DouZero's duel (``--landlord fixed``): WP as landlord against two
peasants of the level, and as both peasants against its landlord, with 95% intervals.

**Output.** A line per step as it goes; at the end a table per figure in the layout of
:mod:`climbrl.benchmarks.common`, ``results.json`` and ``results.md`` (the markdown table for the
docs, docs/strength.md) in ``--out``.

**Other modes.** ``--keep-only RUN`` trains nothing: it watches ``RUN/checkpoint.pt`` (any
climbrl run, started by anyone) and copies the first checkpoint the run writes after its wall
time passes each mark (so a mark is as late as the run's ``--checkpoint-minutes``; mark.json
records the time it holds; a mark the run passed before the watch began is reported missed).
``--eval-only SOURCE ...`` trains nothing: it evaluates the checkpoints of ``SOURCE``s at the
``--marks``: a marks folder (``<M>min/`` folders, as kept here or by ``--keep-only``) or
``M=SPEC`` (any player spec: a run folder, checkpoint, exported CPU, ``douzero:FOLDER``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from climbrl.training.errors import raise_on_sigterm

from .common import machine

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("daifugo", "president", "doudizhu")
OPPONENTS = ("scripted-medium", "scripted-hard")
OURS, DOUZERO = "climbrl", "douzero"
LABELS = {OURS: "climbrl", DOUZERO: "DouZero DMC"}
DEFAULT_OUT = Path("runs") / "tts"
MARKS_DIR, RUNS_DIR, EVAL_DIR, LOG_DIR = "marks", "runs", "eval", "logs"
MARK_FILE = "mark.json"
SETTINGS_FILE = "benchmark.json"
CHECKPOINT = "checkpoint.pt"
EXPORT_DIR = "cpu"
DOUZERO_XPID = "dmc"
DOUZERO_POSITIONS = ("landlord", "landlord_up", "landlord_down")
SECONDS_PER_MINUTE = 60.0
#: a leg ends within this of its mark: float rounding in the trainer's clock
TOLERANCE_SECONDS = 1.0
#: a run this far past a mark that was not kept cannot give that mark
MARK_SLACK_SECONDS = 10.0
#: a leg that adds less than this made no progress (the trainer stopped at once)
MIN_PROGRESS_SECONDS = 0.5
DEFAULT_CHECKPOINT_MINUTES = 5.0
DEFAULT_DEALS = 200
DEFAULT_WORKERS = 2
POLL_SECONDS = 10.0
STOP_WAIT_SECONDS = 120.0
LOG_TAIL_LINES = 3
TMP_SUFFIX = ".tmp"
DIGEST_CHARS = 8
LANDLORD, PEASANTS = "landlord", "peasants"


class BenchmarkError(Exception):
    """A mistake in the command, said in one line (exit status 2)."""


class BenchmarkFailed(BenchmarkError):
    """A failure while the work ran (a trainer or a tournament), in one line (exit status 1)."""


def say(text: str) -> None:
    print(text, flush=True)


def mark_name(minutes: float) -> str:
    """``15`` -> ``"15min"`` (``0.5`` -> ``"0.5min"``): a mark's folder."""
    return f"{minutes:g}min"


def write_json(path: Path, data: Any) -> None:
    """Atomically: a kill leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def copy_atomic(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.name + TMP_SUFFIX)
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def kept(marks_dir: Path, minutes: float) -> dict | None:
    """The record of a kept mark (``mark.json``), or None."""
    path = marks_dir / mark_name(minutes) / MARK_FILE
    return json.loads(path.read_text()) if path.is_file() else None


# -- running children --------------------------------------------------------------------------


def run_child(cmd: list[str], log: Path, env: dict | None = None) -> int:
    """Run ``cmd`` with its output appended to ``log``. Ctrl-C / SIGTERM here reach the child
    as one SIGINT (it saves and stops), then the interruption goes on up."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})})
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(STOP_WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise


def log_tail(log: Path) -> str:
    lines = [line.strip() for line in log.read_text().splitlines() if line.strip()]
    return " | ".join(lines[-LOG_TAIL_LINES:])


def check_child(rc: int, what: str, log: Path) -> None:
    if rc != 0:
        raise BenchmarkFailed(f"{what} failed (exit status {rc}): {log_tail(log)} (log: {log})")


# -- the trainers --------------------------------------------------------------------------------


@dataclass
class Curve:
    """One trainer's run and its marks: how far it has trained, one leg of training, and the
    copy of its checkpoint at a mark. :func:`train_to_marks` drives it."""

    name: str
    out: Path
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.out / LOG_DIR / f"{self.name}.log"

    @property
    def marks_dir(self) -> Path:
        return self.out / MARKS_DIR / self.name

    def trained(self) -> tuple[float, int]:
        """Seconds trained and frames of the run's latest checkpoint ((0, 0) before one)."""
        raise NotImplementedError

    def leg(self, minutes: float) -> None:
        """Train ``minutes`` more (a new run or a resumed one)."""
        raise NotImplementedError

    def keep(self, folder: Path) -> None:
        """Copy the run's latest checkpoint into ``folder``."""
        raise NotImplementedError

    def spec(self, folder: Path) -> str:
        """The player spec of a kept mark's folder."""
        return player_spec(folder)

    def python(self) -> str:
        """The Python that plays this trainer's checkpoints in ``climbrl eval``."""
        return sys.executable


@dataclass
class ClimbrlCurve(Curve):
    """``climbrl train`` through its command line."""

    config: str = ""
    settings: tuple[str, ...] = ()
    checkpoint_minutes: float = DEFAULT_CHECKPOINT_MINUTES

    @property
    def run_dir(self) -> Path:
        return self.out / RUNS_DIR / self.name

    def trained(self) -> tuple[float, int]:
        path = self.run_dir / CHECKPOINT
        if not path.is_file():
            return 0.0, 0
        return checkpoint_counters(path)

    def leg(self, minutes: float) -> None:
        cmd = [sys.executable, "-m", "climbrl.cli", "train"]
        if (self.run_dir / CHECKPOINT).is_file():
            cmd += ["--resume", str(self.run_dir)]
        else:  # a new run (a folder without a checkpoint holds nothing to lose)
            cmd += ["--config", self.config, "--runs-dir", str(self.run_dir.parent),
                    "--run-name", self.run_dir.name, "--overwrite", "--eval-every-frames", "0",
                    "--checkpoint-minutes", f"{self.checkpoint_minutes:g}"]
            for setting in self.settings:
                key, _, value = setting.partition("=")
                cmd += [f"--{key.strip().replace('_', '-')}", value.strip()]
        cmd += ["--minutes", repr(minutes)]
        check_child(run_child(cmd, self.log), "climbrl train", self.log)

    def keep(self, folder: Path) -> None:
        copy_atomic(self.run_dir / CHECKPOINT, folder / CHECKPOINT)
        export(folder, self.log)


@dataclass
class DouZeroCurve(Curve):
    """DouZero's DMC through :mod:`climbrl.benchmarks.douzero_dmc`, run by ``douzero_python``."""

    douzero_python: str = ""
    save_minutes: int = int(DEFAULT_CHECKPOINT_MINUTES)

    @property
    def run_dir(self) -> Path:
        return self.out / RUNS_DIR / self.name / DOUZERO_XPID

    def trained(self) -> tuple[float, int]:
        path = self.run_dir / "elapsed.json"
        if not (self.run_dir / "model.tar").is_file() or not path.is_file():
            return 0.0, 0
        data = json.loads(path.read_text())
        return float(data["elapsed"]), int(data["frames"])

    def leg(self, minutes: float) -> None:
        cmd = [self.douzero_python, "-m", "climbrl.benchmarks.douzero_dmc", "--minutes", repr(minutes),
               "--savedir", str(self.run_dir.parent), "--xpid", DOUZERO_XPID,
               "--save_interval", str(max(1, self.save_minutes))]
        rc = run_child(cmd, self.log, env=douzero_env())
        check_child(rc, "DouZero's DMC", self.log)

    def keep(self, folder: Path) -> None:
        from .douzero_player import weight_files

        for position, path in weight_files(self.run_dir).items():
            copy_atomic(path, folder / f"{position}.ckpt")

    def python(self) -> str:
        return self.douzero_python


def douzero_env() -> dict[str, str]:
    """The repository on the path of the DouZero Python (for climbrl.benchmarks.douzero_dmc)."""
    path = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def checkpoint_counters(path: Path) -> tuple[float, int]:
    """Seconds trained and frames recorded in a climbrl checkpoint."""
    from climbrl.training import checkpoint

    counters = checkpoint.load(path)["counters"]
    return float(counters["elapsed"]), int(counters["frames"])


def export(folder: Path, log: Path) -> None:
    """``climbrl export`` of a kept checkpoint into ``folder/cpu`` (the CPU evaluated); when it
    fails, a line says so and the checkpoint itself is evaluated."""
    if (folder / EXPORT_DIR / "cpu.json").is_file():
        return
    cmd = [sys.executable, "-m", "climbrl.cli", "export", str(folder / CHECKPOINT),
           "--out", str(folder / EXPORT_DIR)]
    if run_child(cmd, log) != 0:
        say(f"  export failed ({log_tail(log)}): the checkpoint itself is evaluated")


def player_spec(folder: Path) -> str:
    """The player spec of a kept mark: its exported CPU, its checkpoint, or DouZero's
    weights (``douzero:FOLDER``)."""
    if (folder / EXPORT_DIR / "cpu.json").is_file():
        return str(folder / EXPORT_DIR)
    if (folder / CHECKPOINT).is_file():
        return str(folder / CHECKPOINT)
    if all((folder / f"{p}.ckpt").is_file() for p in DOUZERO_POSITIONS):
        return f"douzero:{folder}"
    raise BenchmarkError(f"{str(folder)!r} holds no checkpoint ({CHECKPOINT}, {EXPORT_DIR}/ or "
                         "DouZero's <position>.ckpt files)")


# -- marks ----------------------------------------------------------------------------------------


def train_to_marks(curve: Curve, marks: list[float]) -> None:
    """Train ``curve`` up to each mark in turn and keep its checkpoint there; marks already
    kept are skipped, and a leg that was interrupted goes on from the run's last checkpoint."""
    tag = LABELS.get(curve.name, curve.name)
    for minutes in marks:
        record = kept(curve.marks_dir, minutes)
        if record is not None:
            say(f"[{tag} {mark_name(minutes)}] kept already: {record['elapsed']:.0f} s, "
                f"{record['frames']:,} frames")
            continue
        target = minutes * SECONDS_PER_MINUTE
        elapsed, frames = curve.trained()
        if elapsed > target + MARK_SLACK_SECONDS:
            raise BenchmarkError(
                f"the {tag} run in {curve.out} has trained {elapsed / 60:.2f} minutes, past the "
                f"mark of {minutes:g} minutes, which was not kept; use another --out")
        while elapsed < target - TOLERANCE_SECONDS:
            left = (target - elapsed) / SECONDS_PER_MINUTE
            how = "resuming" if elapsed else "starting"
            say(f"[{tag} {mark_name(minutes)}] {how} at {elapsed:.0f} s, {frames:,} frames: "
                f"training {left:.2f} minutes")
            curve.leg(left)
            now, frames = curve.trained()
            if now < elapsed + MIN_PROGRESS_SECONDS:
                raise BenchmarkFailed(f"{tag} trained nothing in a leg of {left:.2f} minutes: "
                                     f"{log_tail(curve.log)} (log: {curve.log})")
            elapsed = now
        folder = curve.marks_dir / mark_name(minutes)
        curve.keep(folder)
        write_json(folder / MARK_FILE, {"minutes": minutes, "elapsed": elapsed,
                                        "frames": frames, "trainer": curve.name})
        say(f"[{tag} {mark_name(minutes)}] kept: {elapsed:.0f} s, {frames:,} frames "
            f"-> {folder}")


def keep_only(run: Path, marks: list[float], marks_dir: Path,
              counters: Callable[[Path], tuple[float, int]] = checkpoint_counters,
              poll_seconds: float = POLL_SECONDS, sleep: Callable[[float], None] = time.sleep,
              ) -> dict[float, str]:
    """Watch the climbrl run ``run``; for each mark, copy the first checkpoint it writes with
    ``elapsed`` past the mark into ``marks_dir/<M>min/``. Returns mark -> "kept" / "missed";
    ends when every mark is settled."""
    source = run / CHECKPOINT if run.is_dir() else run
    status = {m: "kept" for m in marks if kept(marks_dir, m) is not None}
    # marks passed in a checkpoint written before the watch began are missed
    first = source.is_file()
    stamp = None
    while len(status) < len(marks):
        if source.is_file() and source.stat().st_mtime_ns != stamp:
            stamp = source.stat().st_mtime_ns
            staging = marks_dir / f".incoming{TMP_SUFFIX}"
            copy_atomic(source, staging)
            elapsed, frames = counters(staging)
            for minutes in marks:
                if minutes in status or elapsed < minutes * SECONDS_PER_MINUTE:
                    continue
                folder = marks_dir / mark_name(minutes)
                if first:
                    status[minutes] = "missed"
                    say(f"[keep {mark_name(minutes)}] missed: the run was at {elapsed:.0f} s "
                        "when the watch began")
                    continue
                copy_atomic(staging, folder / CHECKPOINT)
                write_json(folder / MARK_FILE, {"minutes": minutes, "elapsed": elapsed,
                                                "frames": frames, "trainer": OURS,
                                                "source": str(source)})
                status[minutes] = "kept"
                say(f"[keep {mark_name(minutes)}] kept: {elapsed:.0f} s, {frames:,} frames "
                    f"-> {folder}")
            first = False
            staging.unlink(missing_ok=True)
        if len(status) < len(marks):
            sleep(poll_seconds)
    return status


# -- evaluation -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """What every tournament of the benchmark shares."""

    game: str
    players: int
    rounds: int | None
    rules: tuple[str, ...]
    deals: int
    seed: int
    workers: int

    def lineup(self, spec: str, opponent: str) -> list[str]:
        return [spec] + [opponent] * (self.players - 1)

    def digest(self) -> str:
        """A short hash of the table (game, size, rounds, rules) for the tournaments' folders."""
        what = [self.game, str(self.players), str(self.rounds), *self.rules]
        return hashlib.sha1(" ".join(what).encode()).hexdigest()[:DIGEST_CHARS]

    def args(self) -> list[str]:
        out = ["--game", self.game, "--deals", str(self.deals), "--seed", str(self.seed),
               "--workers", str(self.workers), "--no-progress"]
        if self.game == "doudizhu":
            return out + ["--landlord", "fixed"]
        if self.rounds is not None:
            out += ["--rounds", str(self.rounds)]
        for rule in self.rules:
            out += ["--rule", rule]
        return out


def evaluate(table: Table, spec: str, opponent: str, out: Path, python: str,
             log: Path) -> dict:
    """``climbrl eval`` of ``spec`` against ``opponent`` into ``out`` (resumed if it was
    interrupted, read back at once if it is finished; refused, naming the weights, if a CPU
    at the same path has changed since); its figures (:func:`figures`)."""
    cmd = [python, "-m", "climbrl.cli", "eval", *table.args(), "--players",
           ",".join(table.lineup(spec, opponent)), "--out", str(out)]
    env = douzero_env() if spec.startswith("douzero:") else None
    check_child(run_child(cmd, log, env), f"climbrl eval of {spec} vs {opponent}", log)
    return figures(table.game, json.loads((out / "summary.json").read_text()), spec, opponent)


def figures(game: str, summary: dict, spec: str, opponent: str) -> dict:
    """The benchmark's figures from a ``summary.json``: Daifugo / President ``diff`` (points
    per round, spec minus opponent) and ``points``; Dou Dizhu ``WP`` and ``ADP`` per side; each
    ``{"mean", "low", "high"}``."""
    me = summary["players"][spec]
    if game == "doudizhu":
        return {side: {"WP": me[side]["WP"], "ADP": me[side]["ADP"], "deals": me[side]["deals"]}
                for side in (LANDLORD, PEASANTS)}
    pair = next(p for p in summary["pairs"] if {p["a"], p["b"]} == {spec, opponent})
    sign = 1 if pair["a"] == spec else -1
    lo, hi = sorted((sign * pair["low"], sign * pair["high"]))
    return {"diff": {"mean": sign * pair["mean"], "low": lo, "high": hi},
            "points": me["points_per_round"], "deals": pair["deals"]}


def evaluate_marks(table: Table, curves: dict[str, tuple[Callable[[float], str | None], str]],
                   marks: list[float], opponents: list[str], out: Path) -> list[dict]:
    """Every (trainer, mark, opponent) tournament; ``curves``: name -> (mark -> spec or None,
    python). Returns one row per tournament."""
    rows = []
    for name, (spec_of, python) in curves.items():
        tag = LABELS.get(name, name)
        for minutes in marks:
            spec = spec_of(minutes)
            if spec is None:
                say(f"[{tag} {mark_name(minutes)}] no checkpoint: not evaluated")
                continue
            for opponent in opponents:
                where = out / EVAL_DIR / (f"{name}-{mark_name(minutes)}-{opponent}"
                                          f"-d{table.deals}-s{table.seed}-{table.digest()}")
                say(f"[{tag} {mark_name(minutes)}] vs {opponent}: {table.deals} deals")
                result = evaluate(table, spec, opponent, where, python,
                                  out / LOG_DIR / f"{name}-eval.log")
                say(f"[{tag} {mark_name(minutes)}] vs {opponent}: {describe(table.game, result)}")
                rows.append({"trainer": name, "minutes": minutes, "opponent": opponent,
                             "spec": spec, **result})
    return rows


def interval(f: dict, digits: int = 3) -> str:
    return f"{f['mean']:+.{digits}f} [{f['low']:+.{digits}f}, {f['high']:+.{digits}f}]"


def share(f: dict) -> str:
    return f"{f['mean']:.3f} [{f['low']:.3f}, {f['high']:.3f}]"


def describe(game: str, result: dict) -> str:
    if game == "doudizhu":
        return (f"WP as landlord {share(result[LANDLORD]['WP'])}, as peasants "
                f"{share(result[PEASANTS]['WP'])}")
    return f"points/round difference {interval(result['diff'])}"


# -- report ---------------------------------------------------------------------------------------


def headlines(game: str) -> list[tuple[str, Callable[[dict], dict], str]]:
    """(title, row -> figure, unit) of each table."""
    if game == "doudizhu":
        return [("WP as landlord (95% interval)", lambda r: r[LANDLORD]["WP"], "WP"),
                ("WP as peasants (95% interval)", lambda r: r[PEASANTS]["WP"], "WP")]
    return [("points per round minus the opponent's (95% interval)",
             lambda r: r["diff"], "points/round")]


def print_tables(game: str, rows: list[dict]) -> None:
    """The layout of :func:`climbrl.benchmarks.common.print_table`, with the interval's ends for min
    and max."""
    for title, pick, unit in headlines(game):
        say(f"\n{title}")
        say(f"{'case':<44}{'mean':>14}{'low':>14}{'high':>14}  unit")
        for row in rows:
            name = (f"{LABELS.get(row['trainer'], row['trainer'])} {mark_name(row['minutes'])} "
                    f"vs {row['opponent']}")
            f = pick(row)
            say(f"{name:<44}{f['mean']:>14,.3f}{f['low']:>14,.3f}{f['high']:>14,.3f}  {unit}")


def markdown(game: str, rows: list[dict], marks: list[float], trained: dict) -> str:
    """The docs table (docs/strength.md): a row per trainer, opponent (and side), a column per mark."""
    head = "| trainer | against | " + " | ".join(f"{m:g} min" for m in marks) + " |"
    lines = [head, "|" + "---|" * (len(marks) + 2)]
    trainers = list(dict.fromkeys(r["trainer"] for r in rows)) or list(trained)
    for name in trainers:
        tag = LABELS.get(name, name)
        frames = [trained.get(name, {}).get(m) for m in marks]
        lines.append(f"| {tag} | (frames trained) | " + " | ".join(
            f"{f:,}" if f is not None else "" for f in frames) + " |")
        for opponent in list(dict.fromkeys(r["opponent"] for r in rows)):
            by_mark = {r["minutes"]: r for r in rows
                       if r["trainer"] == name and r["opponent"] == opponent}
            for title, pick, _unit in headlines(game):
                what = opponent if game != "doudizhu" else f"{opponent}, {title.split(' (')[0]}"
                cells = [(interval(pick(by_mark[m])) if game != "doudizhu"
                          else share(pick(by_mark[m]))) if m in by_mark else "" for m in marks]
                lines.append(f"| {tag} | {what} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# -- command line ---------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not the usage block
        raise BenchmarkError(message)


def build_parser() -> Parser:
    p = Parser(prog="python -m climbrl.benchmarks.time_to_strength",
               description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--config", required=True, help="training config: a file or a shipped name")
    p.add_argument("--marks", required=True, nargs="+", type=float,
                   help="minutes of training (cumulative), e.g. 15 30 60 120")
    p.add_argument("--deals", type=int, default=DEFAULT_DEALS,
                   help=f"duplicate deals per tournament (default {DEFAULT_DEALS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    p.add_argument("--workers", type=int, default=DEFAULT_WORKERS,
                   help=f"climbrl eval worker processes (default {DEFAULT_WORKERS})")
    p.add_argument("--out", default=None,
                   help=f"folder of the benchmark (default {DEFAULT_OUT}/<game>-<config name>)")
    p.add_argument("--opponents", nargs="+", default=list(OPPONENTS),
                   help=f"player specs to evaluate against (default {' '.join(OPPONENTS)})")
    p.add_argument("--douzero-python", default=None,
                   help="Dou Dizhu: also DouZero's DMC, run by this Python")
    p.add_argument("--trainers", nargs="+", choices=(OURS, DOUZERO), default=None,
                   help=f"which curves to train and evaluate (default: {OURS}, and {DOUZERO} "
                        "with --douzero-python); one at a time, each in its own marks folder")
    p.add_argument("--train", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting of the new run (climbrl train --KEY VALUE), e.g. actors=0")
    p.add_argument("--checkpoint-minutes", type=float, default=DEFAULT_CHECKPOINT_MINUTES,
                   help="checkpoint period of the runs: what a kill can lose (default "
                        f"{DEFAULT_CHECKPOINT_MINUTES:g})")
    p.add_argument("--players", type=int, default=None,
                   help="Daifugo/President table size of the evaluation (default: the config's)")
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds per match of the evaluation (default: the config's rules)")
    p.add_argument("--rule", action="append", default=None, metavar="NAME=VALUE",
                   help="house rule of the evaluation (default: the config's rules)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--keep-only", metavar="RUN", default=None,
                      help="train nothing: keep a climbrl run's checkpoints at the marks")
    mode.add_argument("--eval-only", metavar="SOURCE", nargs="+", default=None,
                      help="train nothing: evaluate a marks folder or M=SPEC checkpoints")
    return p


def check(args) -> dict:
    """Every check before any work; returns the config's settings."""
    marks = args.marks
    if any(m <= 0 for m in marks) or marks != sorted(set(marks)):
        raise BenchmarkError(f"--marks must be increasing minutes above 0, got "
                             f"{' '.join(f'{m:g}' for m in marks)}")
    if args.deals < 1:
        raise BenchmarkError(f"--deals must be at least 1, got {args.deals}")
    if args.workers < 1:
        raise BenchmarkError(f"--workers must be at least 1, got {args.workers}")
    if args.checkpoint_minutes <= 0:
        raise BenchmarkError(f"--checkpoint-minutes must be above 0, got "
                             f"{args.checkpoint_minutes:g}")
    for setting in args.train:
        if "=" not in setting or not setting.partition("=")[0].strip():
            raise BenchmarkError(f"--train needs KEY=VALUE, got {setting!r}")
    from climbrl.training.config import find_config, load_yaml

    try:
        settings = load_yaml(find_config(args.config))
    except (OSError, ValueError) as err:
        raise BenchmarkError(f"--config: {err}") from None
    if settings.get("game", "daifugo") != args.game:
        raise BenchmarkError(f"--config {args.config} trains {settings.get('game', 'daifugo')!r}, "
                             f"not --game {args.game}")
    if args.trainers is None:
        args.trainers = [OURS] + ([DOUZERO] if args.douzero_python is not None else [])
    if DOUZERO in args.trainers and args.douzero_python is None:
        raise BenchmarkError(f"--trainers {DOUZERO} needs --douzero-python")
    if args.douzero_python is not None:
        if args.game != "doudizhu":
            raise BenchmarkError("--douzero-python: DouZero plays Dou Dizhu only")
        try:
            probe = subprocess.run(
                [args.douzero_python, "-c", "import douzero.dmc, climbrl.training.evaluate"],
                capture_output=True, text=True, env={**os.environ, **douzero_env()})
            failed, said = probe.returncode != 0, probe.stderr
        except OSError as err:
            failed, said = True, err.strerror or str(err)
        if failed:
            last = (said.strip().splitlines() or ["it did not run"])[-1]
            raise BenchmarkError(
                f"--douzero-python {args.douzero_python}: cannot import DouZero's trainer and "
                f"climbrl ({last}); pip install douzero gitpython, and climbrl's requirements")
    if args.keep_only is not None and not Path(args.keep_only).exists():
        raise BenchmarkError(f"--keep-only {args.keep_only}: no such run folder or checkpoint")
    return settings


def eval_table(args, settings: dict) -> Table:
    from climbrl.training.evaluate import DEFAULT_TABLE

    rules = dict(settings.get("rules") or {})
    rounds = args.rounds if args.rounds is not None else rules.pop("rounds", None)
    rules.pop("rounds", None)
    if args.rule is not None:
        rule_args = tuple(args.rule)
    else:
        rule_args = tuple(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                          for k, v in rules.items())
    players = args.players or settings.get("players") or DEFAULT_TABLE[args.game]
    return Table(args.game, players, rounds, rule_args, args.deals, args.seed, args.workers)


def sources(args, trained: dict) -> dict[str, tuple[Callable[[float], str | None], str]]:
    """``--eval-only``: trainer name -> (mark -> spec, python); the frames of the marks
    folders' marks go to ``trained``."""
    curves: dict[str, dict[float, str]] = {}
    owner: dict[str, str] = {}  # curve name -> the source that named it

    def claim(name: str, source: str) -> dict[float, str]:
        if owner.setdefault(name, source) != source:
            raise BenchmarkError(f"--eval-only: {owner[name]!r} and {source!r} are both "
                                 f"called {name!r}; evaluate them one at a time")
        return curves.setdefault(name, {})

    for source in args.eval_only:
        minutes, eq, spec = source.partition("=")
        if eq:
            try:
                m = float(minutes)
            except ValueError:
                raise BenchmarkError(f"--eval-only {source!r}: M=SPEC needs minutes, got "
                                     f"{minutes!r}") from None
            name = DOUZERO if spec.startswith("douzero:") else OURS
            claim(name, "M=SPEC")[m] = spec
            continue
        folder = Path(source)
        if not folder.is_dir():
            raise BenchmarkError(f"--eval-only {source!r}: neither M=SPEC nor a marks folder")
        name = folder.name
        specs = claim(name, source)
        for m in args.marks:
            if (folder / mark_name(m)).is_dir():
                specs[m] = player_spec(folder / mark_name(m))
                record = kept(folder, m)
                if record is not None:
                    trained.setdefault(name, {})[m] = record["frames"]
    out_curves = {}
    for name, specs in curves.items():
        douzero = any(s.startswith("douzero:") for s in specs.values())
        if douzero and args.douzero_python is None:
            raise BenchmarkError("--eval-only: DouZero checkpoints need --douzero-python")
        python = args.douzero_python if douzero else sys.executable
        out_curves[name] = (specs.get, python)
    return out_curves


def guarded(prog: str, run: Callable[[Any], int], argv=None) -> int:
    """``run(argv)`` with its failures as one line on stderr and an exit status: 1 when the
    work failed, 2 for a mistake in the command, 130 when interrupted (the same command
    resumes)."""
    try:
        return run(argv)
    except BenchmarkFailed as err:
        print(f"{prog}: failed: {err}", file=sys.stderr)
        return 1
    except BenchmarkError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; the same command resumes", file=sys.stderr)
        return 130


def main(argv=None) -> int:
    return guarded("time_to_strength", _main, argv)


def _main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    settings = check(args)
    out = Path(args.out or DEFAULT_OUT / f"{args.game}-{Path(args.config).stem}").resolve()
    table = eval_table(args, settings)
    if args.keep_only is not None:
        status = keep_only(Path(args.keep_only), args.marks, out / MARKS_DIR / OURS)
        say(f"marks: {', '.join(f'{mark_name(m)} {s}' for m, s in sorted(status.items()))}")
        return 0
    if args.eval_only is not None:
        trained: dict[str, dict[float, int]] = {}
        curves = sources(args, trained)
    else:
        record = {"game": args.game, "config": str(args.config), "train": list(args.train)}
        settings_path = out / SETTINGS_FILE
        if settings_path.is_file():
            before = json.loads(settings_path.read_text())
            if before != record:
                raise BenchmarkError(f"--out {out} holds the benchmark of {before}, not of "
                                     f"{record}: use another --out")
        write_json(settings_path, record)
        runs: list[Curve] = []
        if OURS in args.trainers:
            runs.append(ClimbrlCurve(OURS, out, config=args.config, settings=tuple(args.train),
                                     checkpoint_minutes=args.checkpoint_minutes))
        if DOUZERO in args.trainers:
            runs.append(DouZeroCurve(DOUZERO, out, douzero_python=args.douzero_python,
                                     save_minutes=max(1, round(args.checkpoint_minutes))))
        say(f"time to strength: {args.game}, config {args.config}, marks "
            f"{' '.join(f'{m:g}' for m in args.marks)} minutes, in {out} ({machine()}, "
            f"{os.cpu_count()} cores)")
        with raise_on_sigterm():
            for curve in runs:
                train_to_marks(curve, args.marks)
        curves = {c.name: (lambda m, c=c: c.spec(c.marks_dir / mark_name(m))
                           if kept(c.marks_dir, m) else None, c.python()) for c in runs}
        trained = {c.name: {m: kept(c.marks_dir, m)["frames"] for m in args.marks} for c in runs}
    with raise_on_sigterm():
        rows = evaluate_marks(table, curves, args.marks, args.opponents, out)
    print_tables(args.game, rows)
    md = markdown(args.game, rows, args.marks, trained)
    say("\n" + md)
    write_json(out / "results.json", {"machine": machine(), "cpus": os.cpu_count(),
                                      "table": table.__dict__, "trained": {
                                          k: {f"{m:g}": v for m, v in d.items()}
                                          for k, d in trained.items()}, "rows": rows})
    (out / "results.md").write_text(md)
    say(f"wrote {out / 'results.json'}, {out / 'results.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
