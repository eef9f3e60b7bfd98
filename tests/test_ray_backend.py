"""The Ray backend on a local Ray instance (two CPUs, one session for the module): training
that reaches the learner, a resume of a local run, an actor killed and restarted while the
run goes on, and evaluation records identical to local workers'."""

from __future__ import annotations

import multiprocessing
import threading
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")

from climbrl.policies.spec import make_game, roles, seat_rows  # noqa: E402
from climbrl.training import checkpoint, dmc, evaluate, ray_backend  # noqa: E402
from climbrl.training.config import make_args  # noqa: E402
from climbrl.training.dmc import train  # noqa: E402

from trainer_helpers import SMALL, small_args  # noqa: E402

BATCH = SMALL["batch_size"]
WAIT_SECONDS = 120.0
"""how long a condition may take on a busy two-core machine (Ray starts processes)"""


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 1024**2)
    yield
    ray.shutdown()


@pytest.fixture
def transports(monkeypatch):
    """Every RayTransport the trainer builds, for the test to look at."""
    made = []

    class Recorded(ray_backend.RayTransport):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(ray_backend, "RayTransport", Recorded)
    return made


def _wait(condition, what: str, trainer: threading.Thread | None = None,
          outcome: dict | None = None) -> None:
    """Wait for ``condition``; fails after WAIT_SECONDS, or at once (with its error) when the
    ``trainer`` thread has ended."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert trainer is None or trainer.is_alive(), f"{what}: the run ended first: {outcome}"
        assert time.monotonic() < deadline, f"{what}: not within {WAIT_SECONDS:g} s"
        time.sleep(0.05)


def test_training_on_ray_actors_reaches_the_learner(tmp_path, transports):
    run = train(small_args(tmp_path, backend="ray", actors=2, total_frames=BATCH * 4))
    assert run["stopped"] == f"total_frames reached: {BATCH * 4} frames of {BATCH * 4}"
    (transport,) = transports
    assert sum(transport.batches) == 4  # every batch trained on came from a Ray actor
    assert transport.started is False  # it joined the running Ray and leaves it running
    assert ray.is_initialized()
    saved = checkpoint.load(run["run_dir"])
    assert saved["counters"]["updates"] == 4 and saved["args"]["backend"] == "ray"


def test_a_run_of_the_local_backend_resumes_on_ray(tmp_path, transports):
    first = train(small_args(tmp_path, actors=0, total_frames=BATCH))
    again = train(make_args(None, {"resume": first["run_dir"], "backend": "ray", "actors": 1,
                                   "total_frames": BATCH * 3}))
    assert again["frames"] == BATCH * 3 and sum(transports[0].batches) == 2
    saved = checkpoint.load(first["run_dir"])
    assert saved["counters"]["session"] == 1 and saved["args"]["backend"] == "ray"


class _StopWhenTold(dmc.StopRequest):
    """The trainer's Ctrl-C handler, asked by the test instead of a signal."""

    told = threading.Event()

    @property
    def requested(self) -> bool:
        return self.told.is_set()

    @requested.setter
    def requested(self, value) -> None:
        pass


def test_a_killed_actor_is_restarted_and_the_run_goes_on(tmp_path, transports, monkeypatch):
    monkeypatch.setattr(dmc, "StopRequest", _StopWhenTold)
    _StopWhenTold.told.clear()
    outcome = {}

    def run():
        try:
            outcome["run"] = train(small_args(tmp_path, backend="ray", actors=2))
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread
            outcome["error"] = err

    trainer = threading.Thread(target=run, daemon=True)
    trainer.start()
    try:
        _wait(lambda: transports and transports[0].batches[0] >= 1, "a batch of actor 0",
              trainer, outcome)
        transport = transports[0]
        ray.kill(transport.workers[0], no_restart=False)  # as if its process had crashed
        before = transport.batches[0]
        _wait(lambda: transport.restarts[0] == 1, "actor 0 restarted", trainer, outcome)
        _wait(lambda: transport.batches[0] > before + 1, "batches of the restarted actor",
              trainer, outcome)
        assert "error" not in outcome and trainer.is_alive()
    finally:
        _StopWhenTold.told.set()
        trainer.join(WAIT_SECONDS)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["run"]["stopped"] == "stopped by a signal (Ctrl-C or SIGTERM)"
    saved = checkpoint.load(outcome["run"]["run_dir"])
    assert saved["counters"]["frames"] == BATCH * sum(transport.batches)


def _worker(tmp_path):
    """A self-play worker as a Ray actor holds it (called here directly), with weights."""
    args = small_args(tmp_path, backend="ray", actors=1)
    game = make_game(**args.game_kwargs())
    return ray_backend.SelfPlayWorker(
        0, args.table_kwargs(), args.net_config(seat_rows(game)).to_dict(),
        args.games_per_actor, args.exploration, args.batch_size, [args.seed, 0, 0], args.start)


def test_a_restarted_actor_deals_new_games_once_it_hears_of_its_predecessor(tmp_path):
    first, restarted, again = (_worker(tmp_path) for _ in range(3))  # one seed: one deal
    weights = {name: net.state_dict() for name, net in
               zip(first.actor.role_names, first.actor.policy.nets)}
    for worker in (first, restarted, again):
        worker.transport.weights, worker.transport.version = weights, 1
    assert len({first.token, restarted.token, again.token}) == 3  # each start draws its own
    token, batch = first.next_batch(1, [None], None)
    assert token == first.token
    # the learner names the token it heard last: the first start's own replays its seed...
    _, same = again.next_batch(1, [None], again.token)
    assert np.array_equal(same.obs, batch.obs) and np.array_equal(same.actions, batch.actions)
    # ...a restart sent a request of the start before it deals its games again, once
    _, fresh = restarted.next_batch(1, [None], first.token)
    assert fresh.obs.shape == batch.obs.shape and not np.array_equal(fresh.obs, batch.obs)
    games = restarted.actor
    restarted.next_batch(1, [None], first.token)  # a later request of its predecessor's
    assert restarted.actor is games


def test_a_restart_is_heard_from_a_new_token_and_counted_once():
    # the bug it caught: a restart was counted when the restarted actor said so, from Ray's
    # record of the actor's restarts read as it started, and that record could still say none
    starts = ray_backend.Starts(2)
    heard = [starts.heard(0, token) for token in ("a", "a", "b", "a", "b", "c")]
    assert heard == [False, False, True, False, False, True] and starts.restarts == [2, 0]
    assert starts.last == ["c", None]  # a late batch of an earlier start changed nothing


def _transport(tmp_path, net_config=None):
    args = small_args(tmp_path, backend="ray", actors=1)
    game = make_game(**args.game_kwargs())
    config = args.net_config(seat_rows(game)).to_dict() if net_config is None else net_config
    return ray_backend.RayTransport(args, config, 0), roles(game)


def test_an_error_in_an_actor_ends_the_run_naming_it(tmp_path):
    transport, names = _transport(tmp_path)
    try:
        transport.publish_weights({name: {} for name in names})  # weights that do not fit
        with pytest.raises(RuntimeError, match=r"ray actor 0 failed: RuntimeError: .*Missing "
                                               "key"):
            while transport.get_batch(1.0) is None:
                pass
    finally:
        transport.close()


def test_an_actor_that_cannot_start_ends_the_run_naming_it(tmp_path):
    transport, _ = _transport(tmp_path, net_config={"lstm_width": 8})
    try:
        transport.publish_weights({})
        with pytest.raises(RuntimeError, match="ray actor 0 is gone and was not restarted"):
            while transport.get_batch(1.0) is None:
                pass
    finally:
        transport.close()


@pytest.mark.parametrize("game,lineup,landlord", [
    ("daifugo", ("medium", "random", "easy", "random"), "bid"),
    ("doudizhu", ("easy", "random", "random"), "fixed"),
])
def test_eval_on_ray_gives_the_records_of_local_workers(game, lineup, landlord, monkeypatch):
    # the local workers are spawned, not forked: a fork of this process, which runs Ray's
    # threads, can hang on a lock one of them held
    spawn = multiprocessing.get_context("spawn")
    monkeypatch.setattr(evaluate.multiprocessing, "get_context", lambda *_: spawn)
    config = evaluate.EvalConfig(game=game, lineups=(lineup,), deals=4, seed=5, workers=2,
                                 progress=False, sides=landlord)
    local = evaluate.run(config)
    spread = evaluate.run(config, map_chunks=ray_backend.map_chunks)
    assert len(local) == 4 * len(evaluate.arrangements(lineup, landlord))
    assert spread == local
