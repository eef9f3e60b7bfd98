"""The Ray backend: self-play actors as Ray actors on the nodes of a Ray cluster, and the
evaluation harness's deals spread over it (``pip install 'climbrl[ray]'``).

Training (``climbrl train --backend ray [--ray-address auto|HOST:PORT]``): the learner stays
one process, the Ray driver; each actor is a Ray actor (one CPU, one torch thread) that plays
the same :class:`~climbrl.training.actor.SelfPlayActor` games as the local backend's processes.
:class:`RayTransport` is the learner's side of :class:`~climbrl.training.transport.Transport`:

* batches: the learner keeps ``depth`` requests for a batch waiting at each actor; an actor
  plays until it has a batch and returns it through the object store straight to the learner,
  then takes its next request. At most ``depth`` batches wait per actor, and an actor never
  idles while the learner trains;
* weights: at most one ``ray.put`` per publish (numpy arrays, which Ray stores without
  pickling them): requests go out to an actor once it owes half its ``depth``, each carrying
  the reference of the newest weights at that moment, with their version; the actor fetches
  them when that version is newer than its own;
* failures: an actor whose process dies (a crash, a lost node) is restarted by Ray
  (``max_restarts``) and its waiting requests run again there (``max_task_retries``): the run
  goes on. Each start of an actor draws a token that comes back with its batches, and each
  request names the token the learner last heard from that actor: a token the learner has
  not heard before is a restart (counted, and a warning says so), and a restarted actor that
  is sent the token of the one before it deals its games again from a fresh seed, so that it
  does not replay the games its predecessor had played. An exception in an actor's code ends
  the run with that exception. When the learner dies, Ray ends its actors.

Evaluation (``climbrl eval --backend ray``): :func:`map_chunks` runs the harness's chunks of
deals as Ray tasks. Players are re-seeded before every game, so the records are the ones of
local worker processes for the same seed.

Every node needs climbrl installed (the same version) and any file a path names (checkpoints
given as players).
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import secrets
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import torch

from .actor import build_actor
from .transport import Batch, InlineTransport, StateDicts

ACTOR_CPUS = 1
"""CPUs each self-play actor and each evaluation chunk reserves"""
MIN_DEPTH = 2
"""requests waiting at each actor: one it plays for, one that follows without a pause"""
RESTARTS = -1
"""how often Ray restarts an actor whose process died (-1: always)"""
TOKEN_BYTES = 8
"""the size of the token each start of an actor draws"""
INSTALL_HINT = "pip install 'climbrl[ray]'"
log = logging.getLogger(__name__)


def available() -> bool:
    """Whether Ray can be imported here (without importing it)."""
    return importlib.util.find_spec("ray") is not None


def _ray():
    try:
        import ray
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(f"the ray backend needs Ray: {INSTALL_HINT}") from err
    return ray


def connect(address: str | None, cpus: int = 0) -> bool:
    """Join the Ray cluster at ``address`` (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``), or
    start a Ray instance on this machine (``None``) with at least ``cpus`` CPUs; nothing when
    Ray is running in this process already. Returns whether this call started Ray (then the
    caller shuts it down). ``ValueError`` when the cluster cannot be reached or has fewer than
    ``cpus`` CPUs."""
    ray = _ray()
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"address": address, "logging_level": logging.WARNING}
    if address is None:  # a new instance, even where `ray start` runs one
        options.update(address="local", num_cpus=max(os.cpu_count() or 1, cpus),
                       include_dashboard=False)
    try:
        ray.init(**options)
    except ConnectionError as err:
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: "
                         f"{str(err).splitlines()[0]}") from None
    have = ray.cluster_resources().get("CPU", 0)
    if have < cpus:
        ray.shutdown()
        raise ValueError(f"the Ray cluster at {address!r} has {have:g} CPUs, fewer than the "
                         f"{cpus} actors asked (each takes {ACTOR_CPUS})")
    return True


# -- training ----------------------------------------------------------------------------------


class SelfPlayWorker:
    """The inside of one Ray actor: a self-play actor stepped on demand (as the inline
    transport does), one batch per :meth:`next_batch` request."""

    def __init__(self, actor_id: int, game_kwargs: dict, net_config: dict, games: int,
                 epsilon: float, batch_size: int, seed: list[int], start: dict | None,
                 opponents: dict | None = None, learn_opponents: bool = False,
                 imitate: int = 0):
        self.token = secrets.token_hex(TOKEN_BYTES)
        """this start of the actor (a restart by Ray draws another)"""
        self.seed = seed
        self.reseeded = False
        self.transport = InlineTransport()
        self.build = partial(build_actor, actor_id, game_kwargs, net_config, self.transport,
                             games, epsilon, batch_size, start=start, opponents=opponents,
                             learn_opponents=learn_opponents, imitate=imitate)
        self.deal(seed)

    def deal(self, seed: list[int]) -> None:
        """Games dealt from ``seed``, stepped by this worker's transport."""
        self.actor = self.build(seed)
        self.transport.step_actor = self.actor.step

    def next_batch(self, version: int, weights: list, heard: str | None = None
                   ) -> tuple[str, Batch]:
        """Play until a batch is ready, with the weights of ``version`` (``weights``: their
        object reference, in a list so that Ray passes the reference, not the value);
        ``heard``: the token of this actor's batch the learner last received. Returns this
        start's token and the batch."""
        if heard is not None and heard != self.token and not self.reseeded:
            # a restart, sent a request of its predecessor's: new games, not a replay of those
            self.deal([*self.seed, int(np.random.SeedSequence().entropy)])
            self.reseeded = True
        if version != self.transport.version:
            arrays = _ray().get(weights[0])
            with warnings.catch_warnings():  # read-only views: load_state_dict copies them
                warnings.filterwarnings("ignore", "The given NumPy array is not writable")
                self.transport.weights = {
                    role: {k: torch.from_numpy(v) for k, v in sd.items()}
                    for role, sd in arrays.items()}
            self.transport.version = version
        return self.token, self.transport.get_batch(0.0)


def _owned(batch: Batch) -> Batch:
    """The batch with arrays of its own (Ray hands out read-only views of the object store)."""
    return replace(batch, obs=np.array(batch.obs), hist_actions=np.array(batch.hist_actions),
                   hist_movers=np.array(batch.hist_movers), actions=np.array(batch.actions),
                   targets=np.array(batch.targets))


class Starts:
    """The starts of each actor the learner has heard from, by their tokens (module
    docstring, failures)."""

    def __init__(self, actors: int):
        self.tokens: list[set[str]] = [set() for _ in range(actors)]
        self.last: list[str | None] = [None] * actors
        """the token of each actor's newest start heard from: what its requests name"""

    @property
    def restarts(self) -> list[int]:
        """each actor's restarts heard of: its starts after the first"""
        return [max(len(tokens) - 1, 0) for tokens in self.tokens]

    def heard(self, actor: int, token: str) -> bool:
        """A batch of ``actor``'s start ``token`` came: whether it is a restart heard of now."""
        if token in self.tokens[actor]:  # that start's again, or a late one of an earlier
            return False
        self.tokens[actor].add(token)
        self.last[actor] = token
        return len(self.tokens[actor]) > 1


class RayTransport:
    """The learner's side of the Ray backend (module docstring): starts ``args.actors`` Ray
    actors for the run of ``args`` (a :class:`climbrl.training.dmc.Args`) in its ``session``; call
    :meth:`publish_weights` once before the first :meth:`get_batch`."""

    def __init__(self, args, net_config: dict, session: int):
        ray = _ray()
        self.ray = ray
        self.started = connect(args.ray_address, args.actors * ACTOR_CPUS)
        worker = ray.remote(num_cpus=ACTOR_CPUS, max_restarts=RESTARTS,
                            max_task_retries=-1)(SelfPlayWorker)
        self.workers = [
            worker.remote(a, args.table_kwargs(), net_config, args.games_per_actor,
                          args.exploration, args.batch_size, [args.seed, a, session],
                          args.start, args.opponents, args.learn_opponents, args.imitate)
            for a in range(args.actors)
        ]
        self.depth = max(MIN_DEPTH, math.ceil(args.queue_batches / args.actors))
        self.send_at = self.depth // 2
        """requests an actor owes before they go out together, with one ray.put"""
        self.owed = [self.depth] * args.actors
        """requests to send to each actor (with the next weights)"""
        self.pending: dict[Any, int] = {}
        """object reference of each waiting request -> its actor"""
        self.version = 0
        self.state: StateDicts = {}
        """the newest weights published (the learner's tensors: not copied until sent)"""
        self.weights = None
        self.weights_version = 0
        """the object reference of the weights of that version, the last ones put"""
        self.batches = [0] * args.actors
        self.starts = Starts(args.actors)

    @property
    def restarts(self) -> list[int]:
        return self.starts.restarts

    def _request(self) -> None:
        for a, owed in enumerate(self.owed):
            if owed < self.send_at or not self.version:
                continue
            if self.weights_version != self.version:
                self.weights = self.ray.put({
                    role: {k: v.detach().cpu().numpy() for k, v in sd.items()}
                    for role, sd in self.state.items()})
                self.weights_version = self.version
            for _ in range(owed):
                ref = self.workers[a].next_batch.remote(self.version, [self.weights],
                                                        self.starts.last[a])
                self.pending[ref] = a
            self.owed[a] = 0

    def publish_weights(self, state_dicts: StateDicts) -> int:
        self.state = state_dicts
        self.version += 1
        self._request()
        return self.version

    def get_batch(self, timeout: float) -> Batch | None:
        self._request()
        ready, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=timeout)
        if not ready:
            return None
        a = self.pending.pop(ready[0])
        self.owed[a] += 1
        try:
            token, batch = self.ray.get(ready[0])
        except self.ray.exceptions.RayTaskError as err:
            cause = getattr(err, "cause", None) or err
            raise RuntimeError(f"ray actor {a} failed: {type(cause).__name__}: "
                               f"{str(cause).strip().splitlines()[-1]}") from err
        except self.ray.exceptions.RayActorError as err:
            raise RuntimeError(f"ray actor {a} is gone and was not restarted: "
                               f"{str(err).strip().splitlines()[0]}") from err
        if self.starts.heard(a, token):
            log.warning("ray actor %d was restarted (its process had died); the run goes on",
                        a)
        self.batches[a] += 1
        return _owned(batch)

    def put_batch(self, batch: Batch) -> None:
        raise TypeError("RayTransport is the learner's side: actors return their batches")

    def fetch_weights(self, have: int) -> None:
        raise TypeError("RayTransport is the learner's side: requests carry the weights")

    def close(self) -> None:
        """End the actors (and the Ray instance this transport started)."""
        for ref in self.pending:
            self.ray.cancel(ref, force=False)
        self.pending.clear()
        for worker in self.workers:
            self.ray.kill(worker, no_restart=True)
        if self.started:
            self.ray.shutdown()


# -- evaluation --------------------------------------------------------------------------------


def _call(function: Callable, task: tuple) -> Any:
    return function(*task)


def map_chunks(function: Callable, tasks: Iterable[tuple], address: str | None = None
               ) -> Iterator[tuple[tuple, Any]]:
    """Run ``function(*task)`` for every task as a Ray task (one CPU each) on the cluster at
    ``address`` (``None``: a Ray instance on this machine); yields ``(task, result)`` as they
    finish. A task whose worker dies runs again (Ray's retries)."""
    ray = _ray()
    started = connect(address)
    try:
        remote = ray.remote(num_cpus=ACTOR_CPUS)(_call)
        shared = ray.put(function)
        refs = {remote.remote(shared, task): task for task in tasks}
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            yield refs.pop(ready[0]), ray.get(ready[0])
    finally:
        if started:
            ray.shutdown()
