"""DouZero's own DMC trainer (``douzero.dmc``) for a wall-time budget, resumable: one leg of
:mod:`climbrl.benchmarks.time_to_strength`. Run it with a Python where ``pip install douzero gitpython``
worked, from the repository root::

    python -m climbrl.benchmarks.douzero_dmc --minutes 15 --savedir runs/dz --xpid dmc [DouZero's options]

DouZero trains until its frame budget and has no time budget, so this driver adds one and
changes nothing else: its ``train(flags)`` runs as it is (its default network, actors and
learner threads), with ``--actor_device_cpu --training_device cpu --num_actors 1`` unless
given. When the budget is spent (or on SIGINT / SIGTERM) no new learner step starts, the steps
under way finish, and the driver writes DouZero's checkpoint itself, in DouZero's format
(``model.tar`` to resume, ``<position>_weights_<frames>.ckpt`` to play), then ends the actors
and exits; DouZero's own end would wait for every learner thread to gather one more batch.

Wall time is counted by the driver from ``train()`` on (actor start included), and recorded
next to each checkpoint (DouZero's periodic ones every ``--save_interval`` minutes too) in
``elapsed.json``: ``{"elapsed": seconds of training in the checkpoint, "frames": ...}``. The
same command with ``--load_model`` (added when ``model.tar`` exists) continues the run; a
killed leg loses what it trained since the last checkpoint. Older weights files are deleted
when newer ones are written. Every file is written atomically.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

ELAPSED_FILE = "elapsed.json"
MODEL_FILE = "model.tar"
WEIGHTS = re.compile(r"^(landlord|landlord_up|landlord_down)_weights_(\d+)\.ckpt$")
POSITIONS = ("landlord", "landlord_up", "landlord_down")
DEFAULTS = ("--actor_device_cpu", "--training_device", "cpu", "--num_actors", "1")
#: most seconds to wait for the learner steps under way when the budget ends
DRAIN_SECONDS = 60.0
POLL_SECONDS = 0.2
TMP_SUFFIX = ".tmp"


class _Stopped(Exception):
    """Raised in a learner thread once the budget is spent (no new step starts)."""


def read_elapsed(run: Path) -> dict:
    """``{"elapsed": s, "frames": n}`` of the run's checkpoint (zeros when there is none)."""
    path = run / ELAPSED_FILE
    if not (run / MODEL_FILE).is_file() or not path.is_file():
        return {"elapsed": 0.0, "frames": 0}
    return json.loads(path.read_text())


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + TMP_SUFFIX)
    tmp.write_text(json.dumps(data) + "\n")
    os.replace(tmp, path)


def prune_weights(run: Path) -> None:
    """Keep only the newest weights file of each position."""
    newest: dict[str, int] = {}
    files = []
    for path in run.iterdir():
        m = WEIGHTS.match(path.name)
        if m:
            files.append((m.group(1), int(m.group(2)), path))
            newest[m.group(1)] = max(newest.get(m.group(1), -1), int(m.group(2)))
    for position, frames, path in files:
        if frames < newest[position]:
            path.unlink(missing_ok=True)


def _actor(*args):
    """DouZero's actor, ending with the driver however the driver ends (SIGKILL included)."""
    from douzero.dmc import utils

    from climbrl.training.children import exit_with_parent

    exit_with_parent(os.getppid())
    return utils.act(*args)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--minutes", type=float, required=True, help="wall minutes of this leg")
    args, rest = p.parse_known_args(argv)
    if args.minutes <= 0:
        p.error(f"--minutes must be more than 0, got {args.minutes:g}")
    from douzero.dmc.arguments import parser as douzero_parser

    given = set(rest)
    defaults = [] if "--actor_device_cpu" in given else ["--actor_device_cpu"]
    for key, value in zip(DEFAULTS[1::2], DEFAULTS[2::2]):
        if key not in given:
            defaults += [key, value]
    flags = douzero_parser.parse_args(defaults + rest)
    return args, flags


def main(argv=None) -> int:
    args, flags = parse(argv)
    import torch
    from douzero.dmc import dmc, file_writer

    from climbrl.benchmarks.douzero_dmc import _actor  # by its module name: the spawned actors import it

    # DouZero's run metadata copies the whole environment into meta.json and fails outside a
    # git branch; the driver keeps only the dates and the arguments
    file_writer.gather_metadata = lambda: {
        "date_start": time.strftime("%Y-%m-%d %H:%M:%S"), "date_end": None,
        "successful": False, "git": None, "slurm": None}

    run = Path(os.path.expandvars(os.path.expanduser(flags.savedir))) / flags.xpid
    run.mkdir(parents=True, exist_ok=True)
    loaded = {}
    if (run / MODEL_FILE).is_file():
        flags.load_model = True
        loaded = torch.load(run / MODEL_FILE, map_location="cpu", weights_only=False)
    before = read_elapsed(run)
    T, B = flags.unroll_length, flags.batch_size
    lock = threading.Lock()
    state = {"frames": loaded.get("frames", 0),
             "position_frames": dict(loaded.get("position_frames", {p: 0 for p in POSITIONS})),
             "stats": dict(loaded.get("stats", {})), "in_flight": 0, "learner": None,
             "optimizers": None, "start": None}
    stop = threading.Event()
    save_lock = threading.Lock()
    real_save = torch.save

    def elapsed() -> float:
        return before["elapsed"] + time.perf_counter() - state["start"]

    def atomic_save(obj, path, *a, **k):
        """DouZero's saves, atomic; each model.tar records the training time it holds."""
        with save_lock:
            path = str(path)
            tmp = path + TMP_SUFFIX
            real_save(obj, tmp, *a, **k)
            os.replace(tmp, path)
            if Path(path).name == MODEL_FILE:
                _write_json(run / ELAPSED_FILE, {"elapsed": elapsed(), "frames": obj["frames"]})
            elif WEIGHTS.match(Path(path).name):
                prune_weights(run)

    torch.save = atomic_save
    original_get_batch, original_learn = dmc.get_batch, dmc.learn
    original_optimizers = dmc.create_optimizers

    def create_optimizers(flags, learner_model):
        state["learner"] = learner_model
        state["optimizers"] = original_optimizers(flags, learner_model)
        return state["optimizers"]

    def get_batch(*a, **k):
        if stop.is_set():
            raise _Stopped
        batch = original_get_batch(*a, **k)
        with lock:
            if stop.is_set():
                raise _Stopped
            state["in_flight"] += 1  # a learner step starts: the checkpoint waits for it
        return batch

    def learn(position, *a, **k):
        try:
            stats = original_learn(position, *a, **k)
            with lock:
                state["frames"] += T * B
                state["position_frames"][position] += T * B
                state["stats"].update(stats)
            return stats
        finally:
            with lock:
                state["in_flight"] -= 1

    dmc.get_batch, dmc.learn, dmc.create_optimizers, dmc.act = (
        get_batch, learn, create_optimizers, _actor)
    default_hook = threading.excepthook
    threading.excepthook = lambda e: None if e.exc_type is _Stopped else default_hook(e)

    def finish(why: str) -> None:
        stop.set()
        flags.save_interval = 10**9  # DouZero's own periodic checkpoint must not start now
        deadline = time.perf_counter() + DRAIN_SECONDS
        while time.perf_counter() < deadline:
            with lock:
                if not state["in_flight"]:
                    break
            time.sleep(POLL_SECONDS)
        learner, optimizers = state["learner"], state["optimizers"]
        if learner is not None:
            with lock:
                frames = state["frames"]
                models = learner.get_models()
                atomic_save({
                    "model_state_dict": {k: m.state_dict() for k, m in models.items()},
                    "optimizer_state_dict": {k: o.state_dict() for k, o in optimizers.items()},
                    "stats": state["stats"], "flags": vars(flags), "frames": frames,
                    "position_frames": state["position_frames"],
                }, run / MODEL_FILE)
                for position in POSITIONS:
                    atomic_save(models[position].state_dict(),
                                run / f"{position}_weights_{frames}.ckpt")
            print(f"douzero: {why}: {frames:,} frames, {elapsed():.0f} s of training in all; "
                  f"checkpoint {run / MODEL_FILE}", flush=True)
        for child in multiprocessing.active_children():
            child.terminate()
        for child in multiprocessing.active_children():
            child.join(5)
        sys.stdout.flush()
        os._exit(0)

    def on_signal(signum, frame):
        threading.Thread(target=finish, args=(f"stopped by {signal.Signals(signum).name}",),
                         daemon=True).start()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    from climbrl.training.progress import budget_reached

    timer = threading.Timer(args.minutes * 60, finish, args=(budget_reached(args.minutes),))
    timer.daemon = True
    state["start"] = time.perf_counter()
    timer.start()
    dmc.train(flags)
    # DouZero's train returned by itself (its --total_frames reached): its checkpoint is written
    finish("DouZero's own end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
