"""In-process self-play speed of the trainer's actor, for ``climbrl.benchmarks.compare``.

``frames_per_second(game, seconds)`` steps one :class:`~climbrl.training.actor.SelfPlayActor` (the
game's config from ``configs/``: its network, games per actor and exploration) in this
process (the shipped config named by the game's ``train_config`` in ``climbrl.envs.GAMES``), torch
on one thread, and counts decisions made and recorded (frames), the figure
DouZero's DMC actor loop is measured by (DouZero has no bidding: compare its frames with our
landlord and peasant decisions, ``frames_per_second_by_role``). It also times the learner on
the batches the actor made (samples per second of MSE/RMSprop updates), since with few cores
the learner is what bounds a whole training run (``python -m climbrl.benchmarks.selfplay`` measures
those end to end).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from climbrl import envs
from climbrl.policies.network import build_network
from climbrl.policies.spec import make_game, roles, seat_rows

from .actor import SelfPlayActor
from .config import make_args
from .dmc import learn
from .transport import InlineTransport

WARMUP_STEPS = 20
"""actor steps before timing (first weights, first legal-move cache fills)"""
LEARNER_SHARE = 0.5
"""part of ``seconds`` spent timing the learner"""


def frames_per_second(game: str, seconds: float, seed: int = 0) -> dict[str, float]:
    configs = {name: e.train_config for name, e in envs.GAMES.items() if e.train_config}
    if game not in configs:
        raise ValueError(f"unknown game {game!r}; games are {sorted(configs)}")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        args = make_args(configs[game])
        engine = make_game(**args.game_kwargs())
        cfg = args.net_config(seat_rows(engine))
        torch.manual_seed(seed)
        names = roles(engine)
        nets = [build_network(engine, cfg) for _ in names]
        transport = InlineTransport()
        actor = SelfPlayActor(engine, [build_network(engine, cfg).eval() for _ in names],
                              transport, args.games_per_actor, args.exploration,
                              args.batch_size, np.random.default_rng(seed),
                              start=args.start)
        transport.publish_weights({n: net.state_dict() for n, net in zip(names, nets)})
        for _ in range(WARMUP_STEPS):
            actor.step()
        frames, start = 0, time.perf_counter()
        before = actor.decisions.copy()
        while time.perf_counter() - start < seconds * (1 - LEARNER_SHARE):
            frames += actor.step()
        took = time.perf_counter() - start
        actor_rate = frames / took
        by_role = {n: float(c) / took for n, c in zip(names, actor.decisions - before)}
        while not transport.pending:
            actor.step()
        optimizers = [torch.optim.RMSprop(net.parameters(), lr=args.learning_rate)
                      for net in nets]
        samples, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds * LEARNER_SHARE:
            batch = transport.pending[samples // args.batch_size % len(transport.pending)]
            learn(nets[batch.role], optimizers[batch.role], batch, args.max_grad_norm)
            samples += batch.size
        learner_rate = samples / (time.perf_counter() - start)
    finally:
        torch.set_num_threads(threads)
    return {"frames_per_second": actor_rate, "frames_per_second_by_role": by_role,
            "learner_samples_per_second": learner_rate,
            "games_per_actor": args.games_per_actor,
            "parameters_per_role": sum(p.numel() for p in nets[0].parameters())}
