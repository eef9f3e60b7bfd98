"""Self-play training throughput: frames (decisions trained on by the learner) per second of
``climbrl train`` with N actor processes, and of DouZero's own DMC on the same machine.

    python -m climbrl.benchmarks.selfplay [--configs daifugo4 doudizhu]
        [--actors 1 2] [--seconds 45] [--warmup 15] [--douzero-python /path/to/python]
        [--backends local ray] [--repeats 1]

Each case runs as its own training process for ``warmup + seconds``; the rate is measured
over the last ``seconds`` only (start-up, spawning and the first episodes excluded), from the
learner's frame counter: our TensorBoard events, DouZero's log lines. DouZero has no bidding,
so for Dou Dizhu our play decisions (landlord and peasants) are shown apart. Cases run one after
the other, so they share the machine alike. ``--douzero-python``: a Python where
``pip install douzero gitpython`` worked (DouZero runs with ``--actor_device_cpu
--training_device cpu``, its default network, and ``--batch_size 8`` so that its frame counter
moves in steps of 800 instead of 3200; actors do the same work either way). ``--backends local
ray``: each case also with ``--backend ray`` (a Ray instance started by the trainer, inside
the warm-up), right after the local one, and the ratio ray / local. ``--repeats N`` runs
the whole sequence N times over and prints the median of each case (and of each ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from .common import machine

ROOT = Path(__file__).resolve().parent.parent
DOUZERO_DRIVER = """
import sys
from douzero.dmc import parser, train
if __name__ == "__main__":
    train(parser.parse_args(sys.argv[1:]))
"""
DOUZERO_LINE = re.compile(r" (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+)\] After (\d+) ")
DOUZERO_BATCH = 8
STOP_GRACE_SECONDS = 10


def _rate(points: list[tuple[float, int]], start: float) -> float:
    """Frames per second between the first point at or after ``start`` and the last one."""
    after = [p for p in points if p[0] >= start]
    if len(after) < 2 or after[-1][0] <= after[0][0]:
        return float("nan")
    (t0, f0), (t1, f1) = after[0], after[-1]
    return (f1 - f0) / (t1 - t0)


def ours(config: str, actors: int, seconds: float, warmup: float, workdir: Path,
         backend: str = "local") -> float:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    name = f"{Path(config).stem}_a{actors}_{backend}"
    cmd = [sys.executable, "-m", "climbrl.cli", "train", "--config", config,
           "--actors", str(actors), "--backend", backend,
           "--minutes", str((seconds + warmup) / 60),
           "--eval-every-frames", "0", "--progress", "false", "--log-seconds", "1",
           "--runs-dir", str(workdir), "--run-name", name]
    start = time.time()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "OMP_NUM_THREADS": "1"})
    acc = EventAccumulator(str(workdir / name))
    acc.Reload()
    points = [(e.wall_time, e.step) for e in acc.Scalars("charts/updates")]
    total = _rate(points, start + warmup)
    play = sum(_rate([(e.wall_time, int(e.value)) for e in acc.Scalars(tag)], start + warmup)
               for tag in acc.Tags()["scalars"]
               if tag.startswith("charts/frames/") and not tag.endswith("/bidding"))
    return total, play


def douzero(python: str, actors: int, seconds: float, warmup: float, workdir: Path) -> float:
    driver = workdir / "douzero_driver.py"
    driver.write_text(DOUZERO_DRIVER)
    log = workdir / f"douzero_a{actors}.log"
    cmd = [python, str(driver), "--actor_device_cpu", "--training_device", "cpu",
           "--num_actors", str(actors), "--batch_size", str(DOUZERO_BATCH),
           "--disable_checkpoint", "--savedir", str(workdir / "douzero"),
           "--xpid", f"a{actors}"]
    start = time.time()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env={**os.environ, "OMP_NUM_THREADS": "1"})
        time.sleep(warmup + seconds)
        # DouZero's learner threads keep the process alive after Ctrl-C: stop its group
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    points = []
    for line in log.read_text().splitlines():
        m = DOUZERO_LINE.search(line)
        if m:
            when = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            points.append((when, int(m.group(2))))
    if not points:
        raise RuntimeError(f"DouZero printed no progress; see {log}")
    return _rate(points, start + warmup)


def parameters(config: str) -> dict[str, int]:
    """Parameters of each role's network for a config (DouZero: 1.46M landlord, 1.52M
    peasant)."""
    from climbrl.policies.network import build_network
    from climbrl.policies.spec import make_game, roles, seat_rows
    from climbrl.training.config import make_args

    args = make_args(config)
    game = make_game(**args.game_kwargs())
    net = build_network(game, args.net_config(seat_rows(game)))
    count = sum(p.numel() for p in net.parameters())
    return {role: count for role in roles(game)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=["daifugo4", "doudizhu"],
                        help="training configs: files or shipped names")
    parser.add_argument("--actors", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--seconds", type=float, default=45.0, help="measured time per case")
    parser.add_argument("--warmup", type=float, default=15.0, help="unmeasured start per case")
    parser.add_argument("--douzero-python", help="a Python with douzero installed")
    parser.add_argument("--backends", nargs="+", choices=("local", "ray"), default=["local"],
                        help="trainer backends, each case run with each in turn")
    parser.add_argument("--repeats", type=int, default=1,
                        help="run every case this many times, interleaved; medians")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    results: dict[str, list[float]] = {}
    for config in args.configs:
        print(f"{Path(config).stem}: parameters per role {parameters(config)}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for rep in range(args.repeats):
            (work / f"r{rep}").mkdir()
            for actors in args.actors:
                for config in args.configs:
                    for backend in args.backends:
                        base = f"climbrl {Path(config).stem} actors={actors}"
                        key = base + ("" if backend == "local" else f" {backend}")
                        rate, play = ours(config, actors, args.seconds, args.warmup,
                                          work / f"r{rep}", backend)
                        results.setdefault(key, []).append(rate)
                        bidding = "doudizhu" in Path(config).stem
                        note = f"  ({play:,.0f} of them play decisions)" if bidding else ""
                        if backend != "local" and base in results:
                            ratio = rate / results[base][-1]
                            results.setdefault(f"{key} / local", []).append(ratio)
                            note += f"  ({ratio:.2f} x local)"
                        print(f"{key:<44}{rate:>10,.0f} frames/s{note}", flush=True)
                if args.douzero_python:
                    key = f"DouZero DMC actors={actors}"
                    results.setdefault(key, []).append(
                        douzero(args.douzero_python, actors, args.seconds, args.warmup,
                                work / f"r{rep}"))
                    print(f"{key:<44}{results[key][-1]:>10,.0f} frames/s", flush=True)
    if args.repeats > 1:
        print(f"medians of {args.repeats} interleaved runs:")
        for key, values in results.items():
            unit = "" if key.endswith("/ local") else " frames/s"
            print(f"{key:<44}{statistics.median(values):>10,.2f}{unit}", flush=True)
    out = {"machine": machine(), "cpus": os.cpu_count(), "frames_per_s": results}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
