"""The actor/learner boundary. Actors ``put_batch`` training samples and ``fetch_weights``;
the learner ``get_batch``es and ``publish_weights``. The algorithm only speaks
:class:`Transport`, so a distributed backend (sockets, Ray, a parameter server) can replace the
two local ones here without touching it:

* :class:`InlineTransport`: the actor runs inside the learner process, stepped on demand: one
  core, fully deterministic (``--actors 0``; resumes exactly).
* :class:`LocalTransport`: actor processes (``torch.multiprocessing``, spawn) send batches
  through a bounded queue; the learner publishes weights into shared-memory tensors with a
  version counter that actors poll.

:class:`climbrl.training.ray_backend.RayTransport` is a third: Ray actors on the nodes of a cluster.
"""

from __future__ import annotations

import os
import queue
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import torch

StateDicts = dict[str, dict[str, torch.Tensor]]


@dataclass
class Batch:
    """``size`` samples of one role: observations, history rows, the move played and its
    Monte-Carlo target (the seat's return from that decision to the end of the episode)."""

    role: int
    obs: np.ndarray  # float32 [B, O]
    hist_actions: np.ndarray  # int16/int32 [B, H]
    hist_movers: np.ndarray  # int8 [B, H]
    actions: np.ndarray  # int32 [B]
    targets: np.ndarray  # float32 [B]
    others: np.ndarray | None = None  # int32 [B, K]: other legal moves, -1 padded (imitation)
    actor: int = 0
    episodes: list[dict] = field(default_factory=list)
    """stats of the episodes finished since the actor's last batch: ``returns`` by group name,
    ``length``"""

    @property
    def size(self) -> int:
        return len(self.actions)


class Transport(Protocol):
    def put_batch(self, batch: Batch) -> None:
        """Hand a batch to the learner; may drop it once the learner is gone."""

    def get_batch(self, timeout: float) -> Batch | None:
        """The next batch, or ``None`` when none came within ``timeout`` seconds."""

    def publish_weights(self, state_dicts: StateDicts) -> int:
        """Make new weights (role name -> state dict) visible to actors; returns the version."""

    def fetch_weights(self, have: int) -> tuple[int, StateDicts] | None:
        """Weights newer than version ``have``, or ``None``."""

    def close(self) -> None: ...


class InlineTransport:
    """Actor and learner in one process: ``get_batch`` steps the actor until a batch is ready."""

    def __init__(self):
        self.pending: deque[Batch] = deque()
        self.version = 0
        self.weights: StateDicts = {}
        self.step_actor: Callable[[], None] | None = None

    def put_batch(self, batch: Batch) -> None:
        self.pending.append(batch)

    def get_batch(self, timeout: float) -> Batch | None:
        while not self.pending:
            self.step_actor()
        return self.pending.popleft()

    def publish_weights(self, state_dicts: StateDicts) -> int:
        self.weights = state_dicts  # the actor copies them in load_state_dict
        self.version += 1
        return self.version

    def fetch_weights(self, have: int) -> tuple[int, StateDicts] | None:
        return None if have == self.version else (self.version, self.weights)

    def close(self) -> None:
        """Nothing to release; pending batches stay for the checkpoint."""


PUT_POLL_SECONDS = 0.1
"""how often an actor blocked on a full queue checks that the learner still runs"""


class LocalTransport:
    """Queues and shared memory between processes of one machine (picklable to spawn). Built
    in the learner, whose process id the actors (its children) check while they wait."""

    def __init__(self, ctx, state_dicts: StateDicts, queue_batches: int):
        self.learner_pid = os.getpid()
        self.queue = ctx.Queue(maxsize=queue_batches)
        self.stop = ctx.Event()
        self.lock = ctx.Lock()
        self.version = ctx.Value("q", 0, lock=False)
        self.shared = {
            role: {k: v.detach().clone().share_memory_() for k, v in sd.items()}
            for role, sd in state_dicts.items()
        }

    def learner_alive(self) -> bool:
        """In an actor: the learner that started it still runs (an orphan's parent changes)."""
        return os.getppid() == self.learner_pid

    def put_batch(self, batch: Batch) -> None:
        """Wait for room in the queue; give up (drop the batch) when the learner stops or
        dies, so an actor never blocks forever."""
        while not self.stop.is_set() and self.learner_alive():
            try:
                self.queue.put(batch, timeout=PUT_POLL_SECONDS)
                return
            except queue.Full:
                continue

    def get_batch(self, timeout: float) -> Batch | None:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def publish_weights(self, state_dicts: StateDicts) -> int:
        with self.lock:
            for role, sd in state_dicts.items():
                for k, v in sd.items():
                    self.shared[role][k].copy_(v)
            self.version.value += 1
            return self.version.value

    def fetch_weights(self, have: int) -> tuple[int, StateDicts] | None:
        if self.version.value == have:
            return None
        with self.lock:
            version = self.version.value
            weights = {role: {k: v.clone() for k, v in sd.items()}
                       for role, sd in self.shared.items()}
        return version, weights

    def close(self) -> None:
        self.stop.set()
        try:  # unblock actors waiting on a full queue
            while True:
                self.queue.get_nowait()
        except (queue.Empty, OSError, ValueError):
            pass
