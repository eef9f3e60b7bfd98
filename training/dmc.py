"""Deep Monte-Carlo self-play (DouZero's DMC) for every climbrl game, in one file.

Actors play many games at once with the current network, epsilon-greedy over the legal moves;
each decision's target is the deciding seat's return from that decision to the end of the
episode (for Daifugo the episode is the whole match). The learner fits q(state, move) to those
targets with MSE and RMSprop, one network per role (Daifugo / President: one shared
seat-relative network; Dou Dizhu: bidding, landlord and the two peasants), and publishes the
weights back to the actors.

    climbrl train --config configs/daifugo4.yaml --minutes 3
    climbrl train --resume runs/<run-name> --minutes 10     # 10 more minutes
    climbrl train --config configs/daifugo4.yaml --backend ray --ray-address auto --actors 8

Daifugo and President train one network for every table of the game: ``tables`` draws a
table per episode (players, rounds, switches; :mod:`climbrl.training.tables`) and evaluations play a
panel of tables (``eval_tables``), logging each table and the panel's mean.

``--backend ray`` runs the actors as Ray actors on a cluster (:mod:`climbrl.training.ray_backend`);
the learner is this process either way, on ``--device`` (cpu, cuda or auto). ``--minutes``
is the budget of one invocation (a resumed run gets it anew); ``--total-frames`` counts the
whole run. The summary says why the run stopped. TensorBoard: ``tensorboard
--logdir runs`` (``losses/``, ``q/``, ``grad_norm/``, ``charts/``, ``eval/``, and the
settings in the HParams dashboard).
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.tensorboard import SummaryWriter
from torch.utils.tensorboard.summary import hparams

from climbrl import envs
from climbrl.policies.network import NetConfig, build_network
from climbrl.policies.spec import (check_spec, episode_starter, features_digest, load_role_weights,
                           make_game, model_spec, roles, seat_rows)

from . import checkpoint
from .actor import NetPolicy, SelfPlayActor, actor_process
from .arena import evaluate, harness_figures
from .errors import one_line
from .opponents import check_opponent
from .progress import Progress, budget_reached
from .rundir import RunLock, check_run_name, claim_new, holds_run, run_folder
from .tables import Tables
from .transport import Batch, InlineTransport, LocalTransport

HISTORY_TURNS = 4
"""default history: this many turns of the table"""
STATS_WINDOW = 100
"""episodes averaged in the logged returns"""
SECONDS_PER_MINUTE = 60
JOIN_SECONDS = 5.0
POLL_SECONDS = 0.1
EVAL_CHECKPOINT = "eval.pt"
"""the weights the evaluation harness plays (written before each evaluation)"""
MAX_SEED = 2**63 - 1
BACKENDS = ("local", "ray")
SHARE_SLACK = 1e-9
"""rounding allowed when shares of episodes add up to 1"""


@dataclass
class Args:
    # -- game
    game: str = envs.DEFAULT_GAME
    """game to train: one of climbrl.envs.GAMES (daifugo, president, uecda, doudizhu)"""
    players: int | None = None
    """seats at the table (None: the game's default)"""
    rules: dict = field(default_factory=dict)
    """rule switches over the game's preset, e.g. {rounds: 3, lock: false}"""
    reward: str | None = None
    """the env's reward mode (None: its default; daifugo: centered, doudizhu: score)"""
    tables: dict | list | None = None
    """Daifugo / President: the tables to train on, one drawn per episode, each key on its
    own: players or a rule, as a list (equally likely), a mapping value -> weight, or for an
    on/off rule the chance that it is on, e.g. {players: [3, 4], rounds: [3, 5, 7], lock: 0.5}
    (climbrl.training.tables); keys not drawn come from players and rules. A list of such mappings,
    each with a weight, is a mixture: an episode draws one, then its keys. None: the one
    table of players and rules"""
    # -- run
    seed: int = 1
    """seed of the networks, the deals and the exploration (0 or more)"""
    run_name: str | None = None
    """name of the run folder under runs_dir, a plain folder name (None:
    {game}{players}__dmc__{seed}__{time}); a new run refuses a folder that holds a run"""
    runs_dir: str = "runs"
    """where TensorBoard logs and checkpoints go"""
    overwrite: bool = False
    """a new run may replace the run already in its folder (its checkpoint and logs)"""
    minutes: float | None = None
    """stop after this many minutes of this invocation (a resumed run gets a new budget; it is
    not taken from the run); None: no limit"""
    total_frames: int | None = None
    """stop once the run has trained on this many decisions in all (resumed sessions add up);
    None: no limit"""
    resume: str | None = None
    """continue the run of this folder (or checkpoint file); it goes on in that folder, with
    its recorded settings and the ones given with it"""
    init_from: str | None = None
    """a new run's networks start from these trained weights: a checkpoint (or its run
    folder) or an exported CPU folder (cpus/doudizhu) of the same game, network settings and
    roles; the optimizer, counters and games start afresh (climbrl.training.warm_start). A resumed
    run's weights are its checkpoint's"""
    checkpoint_minutes: float = 10.0
    """write runs/<run>/checkpoint.pt this often (and always at exit, Ctrl-C included)"""
    progress: bool = True
    """show progress: a bar on a terminal, else one line every progress_seconds"""
    progress_seconds: float = 30.0
    """seconds between progress lines when the output is not a terminal (a log file)"""
    # -- actors
    actors: int = 1
    """actor processes (backend ray: Ray actors); 0 runs the actor inside the learner (one
    core, resumes exactly)"""
    backend: str = "local"
    """where the actors run: local (processes of this machine) or ray (Ray actors on the nodes
    of a Ray cluster, one CPU each; pip install 'climbrl[ray]'); the learner is this process"""
    ray_address: str | None = None
    """backend ray: the cluster to join (auto: the one `ray start` runs on this machine;
    HOST:PORT: its head node); null: a Ray instance of the run's own on this machine. Not
    kept by a resumed run"""
    games_per_actor: int = 64
    """games each actor plays at once, batching the network over their decisions"""
    exploration: float = 0.01
    """epsilon: chance of a uniformly random legal move instead of the best one"""
    start: dict = field(default_factory=dict)
    """the training start options the game offers (its ``start_options``), e.g. Dou Dizhu's
    {fixed_landlord: 0.9}: the share of deals dealt with a random landlord at bid 1, skipping
    the bidding (DouZero's set-up); each option may also be given as a setting of its own
    (fixed_landlord: 0.9)"""
    opponents: dict = field(default_factory=dict)
    """players of the registry to train against, each with its share of the episodes, e.g.
    {scripted-medium: 0.3, scripted-hard: 0.1}: in those episodes the network holds one seat
    drawn at random and the player every other seat; the other episodes are self-play"""
    learn_opponents: bool = False
    """train on the opponents' decisions too (each a sample of its seat's return, as the
    network's own): the network learns what their moves are worth, not only its own"""
    imitation: float = 0.0
    """weight of the imitation loss on the opponents' decisions (with learn_opponents): the
    q of each of up to imitation_moves other legal moves is held imitation_margin below the
    q of the move the opponent played (a large-margin loss, as DQfD's on expert moves). A
    warm start by imitating a scripted player: opponents {scripted-medium: 1.0},
    learn_opponents, imitation 2; then go on with imitation 0. 0: off"""
    imitation_margin: float = 0.5
    """how far (in returns) the imitation loss holds the other moves below the one played"""
    imitation_moves: int = 16
    """other legal moves of each opponent decision the imitation loss reads, drawn at random"""
    queue_batches: int = 8
    """batches waiting between actors and learner before actors block"""
    # -- learner
    batch_size: int = 256
    """decisions per learner update (each update uses one role)"""
    learner_threads: int = 1
    """torch threads of the learner (more when the machine has cores beyond the actors')"""
    device: str = "cpu"
    """the learner's torch device: cpu, cuda, cuda:N, or auto (cuda when torch finds one);
    actors always play on the CPU"""
    learning_rate: float = 1e-4
    """RMSprop step size"""
    rmsprop_alpha: float = 0.99
    """RMSprop smoothing constant"""
    rmsprop_momentum: float = 0.0
    """RMSprop momentum"""
    rmsprop_eps: float = 1e-5
    """RMSprop epsilon (added to the denominator)"""
    max_grad_norm: float = 40.0
    """gradients are clipped to this norm"""
    # -- network
    history_length: int | None = None
    """recent moves the LSTM reads (None: HISTORY_TURNS turns of the table)"""
    history_group: int | None = None
    """moves per LSTM step (None: one per seat)"""
    lstm_hidden: int = 128
    """width of the LSTM over the recent moves"""
    state_layers: list = field(default_factory=lambda: [512, 512, 512, 512])
    """widths of the layers that encode the state"""
    pair_layers: list = field(default_factory=lambda: [512])
    """widths of the layers that score a (state, move) pair"""
    skip_fields: list = field(default_factory=list)
    """observation fields the network does not read (Dou Dizhu: its move history, which the
    LSTM reads already)"""
    # -- logging and evaluation
    log_seconds: float = 5.0
    """TensorBoard scalars this often"""
    eval_every_frames: int = 100_000
    """evaluate against eval_opponent every this many frames (and at the start); 0: never"""
    eval_deals: int = 25
    """deals per evaluation, each played with the network in every seat"""
    eval_opponent: str = "random"
    """who fills the other seats in evaluations: any player name of climbrl.policies.load (random,
    scripted-medium, hard...)"""
    eval_harness: bool = True
    """evaluate with the evaluation harness (climbrl.training.evaluate: duplicate deals, its figures);
    false: the trainer's own batched arena against random players (several times faster)"""
    eval_tables: list | None = None
    """the panel of tables each evaluation plays, e.g. [{players: 4}, {players: 3, rounds:
    7}] (each over the base table); its mean and each table's figures are logged. None: with
    tables, each player count at the base rules, each other round count, and one table with
    every drawn switch flipped; without, the run's one table"""

    def net_config(self, rows: int) -> NetConfig:
        """The network settings, ``rows`` the game's seat rows (the default history group)."""
        group = self.history_group or rows
        return NetConfig(
            history_length=self.history_length or HISTORY_TURNS * group,
            history_group=group,
            lstm_hidden=self.lstm_hidden,
            state_layers=tuple(self.state_layers),
            pair_layers=tuple(self.pair_layers),
            skip_fields=tuple(self.skip_fields),
        )

    def game_kwargs(self) -> dict[str, Any]:
        """The run's game: its players, rules (the game's ``match_rounds`` when they name no
        rounds: UECda's episode is 5 rounds, not the championship's 100) and reward."""
        rules = dict(self.rules)
        match_rounds = envs.game_entry(self.game).match_rounds if self.game in envs.GAMES else None
        if match_rounds is not None and "rounds" not in rules:
            rules["rounds"] = match_rounds
        return {"game": self.game, "players": self.players, "rules": rules,
                "reward": self.reward}

    def table_kwargs(self) -> dict[str, Any]:
        """The arguments of the run's :class:`~climbrl.training.tables.Tables`."""
        return {**self.game_kwargs(), "tables": self.tables}

    def validate(self) -> None:
        """Raise a ``ValueError`` naming the first bad setting and its value (types first)."""
        from .config import check_types

        check_types(self)
        checks = [
            ("seed", 0 <= self.seed <= MAX_SEED, "an integer from 0 to 2**63 - 1"),
            ("minutes", self.minutes is None or self.minutes > 0, "more than 0, or null"),
            ("total_frames", self.total_frames is None or self.total_frames >= 1,
             "at least 1, or null"),
            ("actors", self.actors >= 0, "0 or more"),
            ("games_per_actor", self.games_per_actor >= 1, "at least 1"),
            ("batch_size", self.batch_size >= 1, "at least 1"),
            ("queue_batches", self.queue_batches >= 1, "at least 1"),
            ("learner_threads", self.learner_threads >= 1, "at least 1"),
            ("exploration", 0.0 <= self.exploration <= 1.0, "a share in [0, 1]"),
            ("learning_rate", self.learning_rate > 0, "more than 0"),
            ("max_grad_norm", self.max_grad_norm > 0, "more than 0"),
            ("imitation", self.imitation >= 0, "0 (off) or more"),
            ("imitation_margin", self.imitation_margin > 0, "more than 0"),
            ("imitation_moves", self.imitation_moves >= 1, "at least 1"),
            ("eval_deals", self.eval_deals >= 1, "at least 1"),
            ("eval_every_frames", self.eval_every_frames >= 0, "0 (never) or more"),
            ("checkpoint_minutes", self.checkpoint_minutes > 0, "more than 0"),
            ("log_seconds", self.log_seconds > 0, "more than 0"),
            ("progress_seconds", self.progress_seconds > 0, "more than 0"),
        ]
        for name, ok, wanted in checks:
            if not ok:
                raise ValueError(f"bad value for {name}: {getattr(self, name)!r} (must be "
                                 f"{wanted})")
        if self.run_name is not None:
            check_run_name(self.run_name)
        if any(not isinstance(key, str) for key in self.rules):
            raise ValueError(f"rules must map rule names to values, got {self.rules!r}")
        self.check_start()
        self.check_opponents()
        self.check_backend()
        learner_device(self.device)

    def check_start(self) -> None:
        """The game offers every start option given, each with a good value (one line
        naming the option otherwise)."""
        if not self.start:
            return
        offered = envs.start_options()
        for key in self.start:
            if not isinstance(key, str) or key not in offered:
                raise ValueError(f"unknown start option {key!r}; start options are "
                                 f"{', '.join(offered) or 'none'}")
        entry = envs.game_entry(self.game)
        for key in self.start:
            if key not in entry.game_class.start_options:
                raise ValueError(f"{key} is a {' / '.join(offered[key])} setting; "
                                 f"{self.game!r} has no such start option")
        episode_starter(make_game(**self.game_kwargs()), self.start)  # the game checks values

    def check_opponents(self) -> None:
        """Each opponent a player of the game's registry with a share in (0, 1], the shares
        summing to 1 at most (one line naming the bad one otherwise)."""
        if not isinstance(self.opponents, dict):
            raise ValueError(f"opponents must map players to shares of the episodes, got "
                             f"{self.opponents!r}")
        for name, share in self.opponents.items():
            check_opponent(name, self.game, "opponents")
            if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
                raise ValueError(f"opponents: the share of {name!r} must be in (0, 1], got "
                                 f"{share!r}")
        total = sum(self.opponents.values())
        if total > 1 + SHARE_SLACK:
            raise ValueError(f"opponents: the shares sum to {total:g}, more than 1")
        if self.learn_opponents and not self.opponents:
            raise ValueError("learn_opponents trains on the opponents' decisions, and no "
                             "opponents are set (opponents: {scripted-medium: 0.5})")
        if self.imitation and not self.learn_opponents:
            raise ValueError("imitation is a loss on the opponents' decisions: it needs "
                             "learn_opponents (and opponents: {scripted-medium: 1.0})")

    @property
    def imitate(self) -> int:
        """other legal moves the actors keep with each opponent decision (0: imitation off)"""
        return self.imitation_moves if self.imitation else 0

    def check_backend(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"bad value for backend: {self.backend!r} (must be one of "
                             f"{', '.join(BACKENDS)})")
        if self.backend != "ray":
            if self.ray_address is not None:
                raise ValueError(f"ray_address is a setting of backend ray; backend is "
                                 f"{self.backend!r}")
            return
        from . import ray_backend

        if self.actors < 1:
            raise ValueError("backend ray needs actors of 1 or more (actors 0 plays inside "
                             "the learner, without Ray)")
        if not ray_backend.available():
            raise ValueError(f"backend ray needs Ray, which is not installed: "
                             f"{ray_backend.INSTALL_HINT}")


def learner_device(name: str) -> torch.device:
    """The torch device called ``name`` (``auto``: cuda when torch finds one, else cpu);
    ``ValueError`` naming it when it is not a device or not on this machine."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise ValueError(f"bad value for device: {name!r} (must be cpu, cuda, cuda:N or "
                         "auto)") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"bad value for device: {name!r} (must be cpu, cuda, cuda:N or auto)")
    if device.type == "cuda" and (not torch.cuda.is_available() or (
            device.index is not None and device.index >= torch.cuda.device_count())):
        raise ValueError(f"device {name!r}: torch finds no such CUDA device here "
                         f"({torch.cuda.device_count()} found); use cpu or auto")
    return device


def learn(net: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch,
          max_grad_norm: float, imitation: float = 0.0,
          margin: float = 0.5) -> tuple[float, float, float]:
    """One MSE step of q(state, move played) towards the Monte-Carlo return; returns the
    loss, the mean q of the moves played and the gradient norm before clipping.

    With ``imitation`` and a batch whose samples carry other legal moves (``batch.others``,
    an opponent's decisions), ``imitation`` times the large-margin loss is added: per such
    sample, ``max(0, max q(other) + margin - q(played))``, averaged over the batch."""
    device = next(net.parameters()).device
    codes = net.encode(torch.from_numpy(batch.obs).to(device),
                       torch.from_numpy(batch.hist_actions).to(device).long(),
                       torch.from_numpy(batch.hist_movers).to(device).long())
    rows = torch.arange(batch.size, device=device)
    q = net.score(codes, rows, torch.from_numpy(batch.actions).to(device).long())
    loss = F.mse_loss(q, torch.from_numpy(batch.targets).to(device))
    if imitation and batch.others is not None:
        loss = loss + imitation * margin_loss(net, codes, q, batch.others, margin)
    optimizer.zero_grad()
    loss.backward()
    grad_norm = nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item(), q.detach().mean().item(), grad_norm.item()


class StopRequest:
    """Ctrl-C / SIGTERM handler: the first signal asks the loop to stop after the current
    update (so the checkpoint is consistent); a second one interrupts at once."""

    def __init__(self):
        self.requested = False
        self.signal: int | None = None
        """the signal that asked (None: asked otherwise)"""
        self.previous: dict[int, Any] = {}

    def __call__(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.signal = signum

    def reason(self) -> str:
        """Why the run stopped, for the summary."""
        if self.signal is None:
            return "stopped by a signal (Ctrl-C or SIGTERM)"
        name = signal.Signals(self.signal).name
        return f"stopped by a signal ({'Ctrl-C, ' if self.signal == signal.SIGINT else ''}{name})"

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self)

    def uninstall(self) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)


PANEL = "panel"
"""the tag of the evaluation panel's mean figures"""


def headline(game, args: Args) -> list[str]:
    """The names of the evaluation's headline figures."""
    if not args.eval_harness:
        return ["return"]
    if getattr(game, "sides", ()):
        return [f"WP_{side}" for side in game.sides]
    return ["points_per_round"]


def uses_panel(args: Args) -> bool:
    """Evaluations play a panel of tables (with tables, or eval_tables given)."""
    return args.tables is not None or args.eval_tables is not None


def eval_tags(game, args: Args) -> list[str]:
    """The TensorBoard tags of the evaluation's headline figures (the HParams metrics)."""
    prefix = f"eval/{args.eval_opponent}/" + (f"{PANEL}/" if uses_panel(args) else "")
    if not args.eval_every_frames:
        return []
    return [prefix + name for name in headline(game, args)]


def tag_of(label: str) -> str:
    """A table's label as a TensorBoard tag part (no spaces)."""
    return label.replace(" ", "_")


def hparam_values(args: Args) -> dict[str, Any]:
    """The settings as the HParams dashboard takes them (numbers, strings and booleans)."""
    out: dict[str, Any] = {}
    settings = dataclasses.asdict(args)
    settings.update(settings.pop("start"))  # each start option as a setting of its own
    for key, value in settings.items():
        if value is None or isinstance(value, (bool, int, float, str)):
            out[key] = "none" if value is None else value
        else:
            out[key] = str(value)
    return out


def margin_loss(net: nn.Module, codes: torch.Tensor, q: torch.Tensor, others: np.ndarray,
                margin: float) -> torch.Tensor:
    """The large-margin imitation loss of a batch: ``others`` ``[B, K]`` (padded with -1;
    a row of -1 for a sample without them), ``q`` the q of the moves played; the mean over
    the batch of ``max(0, max_k q(other_k) + margin - q)`` (0 for a sample without others)."""
    rows, cols = np.nonzero(others >= 0)
    if not len(rows):
        return q.sum() * 0.0
    device = q.device
    seg = torch.from_numpy(rows).to(device)
    q_other = net.score(codes, seg, torch.from_numpy(others[rows, cols]).to(device).long())
    best = torch.full_like(q, -torch.inf).scatter_reduce(0, seg, q_other, "amax")
    has = torch.isfinite(best)
    gap = torch.where(has, best + margin - q, torch.zeros_like(q))
    return F.relu(gap).mean()


def train(args: Args) -> dict[str, Any]:
    """Run (or resume) a training run; returns a summary (frames, run directory, evaluations,
    ``stopped``: why it stopped). Every setting is checked before any work."""
    args.validate()
    saved = checkpoint.load(args.resume, resumable=True) if args.resume else None
    if saved is not None and saved["spec"]["game"] != args.game:
        raise ValueError(f"the run at {str(args.resume)!r} trains {saved['spec']['game']!r}, "
                         f"not {args.game!r}: a run keeps its game (start a new run for "
                         f"{args.game!r})")

    # -- seeding: one process-wide generator each, all from args.seed
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.learner_threads)

    # -- tables, game, networks, optimizers: sizes from the env's layout and action table
    tables = Tables(**args.table_kwargs())
    game = tables.base
    panel = tables.panel(args.eval_tables) if uses_panel(args) else []
    spec = model_spec(game)
    stack = features_digest(tables.features)
    """the stacked feature table the histories and batches index"""
    role_names = roles(game)
    net_cfg = args.net_config(seat_rows(game))
    device = learner_device(args.device)
    nets = [build_network(game, net_cfg, tables.features).to(device) for _ in role_names]
    optimizer_settings = {"lr": args.learning_rate, "alpha": args.rmsprop_alpha,
                          "momentum": args.rmsprop_momentum, "eps": args.rmsprop_eps}
    optimizers = [torch.optim.RMSprop(net.parameters(), **optimizer_settings) for net in nets]
    counters = {"frames": 0, "updates": 0, "episodes": 0, "elapsed": 0.0, "session": 0,
                "next_eval": 0}
    role_frames = [0] * len(role_names)
    evaluations: list[dict] = []
    table_counts: dict[str, int] = {}
    """episodes played at each table (by label), over the run"""
    started_from: dict | None = None
    """the weights an ``init_from`` run started from: their path and what their run did"""
    if saved is not None:
        where = str(checkpoint.checkpoint_path(args.resume))
        check_spec(saved["spec"], game, "checkpoint")
        if saved["network"] != net_cfg.to_dict():
            raise ValueError(f"network settings differ from the checkpoint's: "
                             f"{saved['network']} in it, {net_cfg.to_dict()} asked")
        for name, net, opt in zip(role_names, nets, optimizers):
            load_role_weights(net, saved["models"], name, repr(where))
            try:
                opt.load_state_dict(saved["optimizers"][name])
            except (KeyError, ValueError) as err:
                raise checkpoint.CheckpointError(
                    f"{where!r}: the optimizer state of role {name!r} does not fit its "
                    f"network ({one_line(err)})") from None
            for group in opt.param_groups:
                # the saved state carries the old settings: --learning-rate and the RMSprop
                # settings given with --resume take over (its running averages are kept)
                group.update(optimizer_settings)
        counters.update(saved["counters"])
        counters["session"] += 1
        role_frames = list(saved["role_frames"])
        evaluations = list(saved["evaluations"])
        table_counts = dict(saved.get("table_counts") or {})
        started_from = saved.get("started_from")
        torch.set_rng_state(saved["rng"]["torch"])
        random.setstate(saved["rng"]["python"])
    elif args.init_from is not None:
        from .errors import user_input
        from .warm_start import load_into

        with user_input():  # a path the user gave: its mistakes are theirs, said in one line
            started_from = load_into(nets, role_names, net_cfg, game, args.init_from)
    check_opponent(args.eval_opponent, game.name)

    # -- the run folder: the resumed run's own, or a new one that holds no run yet
    if saved is not None:
        run_dir = checkpoint.checkpoint_path(args.resume).parent
    elif args.run_name is not None:
        run_dir = run_folder(args.runs_dir, args.run_name)
    else:
        base = f"{game.name}{game.num_players}__dmc__{args.seed}__{int(time.time())}"
        run_dir, n = run_folder(args.runs_dir, base), 1
        while holds_run(run_dir):
            n += 1
            run_dir = run_folder(args.runs_dir, f"{base}-{n}")
    args.run_name, args.runs_dir = run_dir.name, str(run_dir.parent)
    run_name = run_dir.name
    ckpt_path = run_dir / checkpoint.FILENAME
    with RunLock(run_dir):
        if saved is None:
            claim_new(run_dir, args.overwrite)
        writer = SummaryWriter(str(run_dir), purge_step=counters["frames"] if saved else None)
        if saved is None:
            writer.add_text(
                "hyperparameters",
                "|param|value|\n|-|-|\n" + "\n".join(
                    f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
            )
            writer.add_text("spec", f"```\n{spec}\n```")
            metrics = {tag: 0.0 for tag in ["charts/fps"] + eval_tags(game, args)}
            for summary in hparams(hparam_values(args), metrics):
                writer.file_writer.add_summary(summary)

        # -- actors and the transport between them and the learner
        def state_dicts():
            """the weights on the CPU (the learner's own tensors when it trains there)"""
            return {n: {k: v.cpu() for k, v in net.state_dict().items()}
                    for n, net in zip(role_names, nets)}

        processes = []
        inline_actor = None
        if args.actors == 0:
            transport = InlineTransport()
            actor_nets = [build_network(game, net_cfg, tables.features).eval()
                          for _ in role_names]
            inline_actor = SelfPlayActor(
                tables, actor_nets, transport, args.games_per_actor, args.exploration,
                args.batch_size, np.random.default_rng([args.seed, 0, counters["session"]]),
                start=args.start, opponents=args.opponents,
                learn_opponents=args.learn_opponents, imitate=args.imitate)
            transport.step_actor = inline_actor.step
            saved_actor = saved.get("actor") if saved is not None else None
            if saved_actor is not None and saved_actor.get("features", stack) == stack:
                # (another tables setting stacks other catalogs: their games start anew)
                inline_actor.set_state(saved_actor["state"])
                transport.pending.extend(saved_actor["pending"])
            transport.publish_weights(state_dicts())
        elif args.backend == "ray":
            from .ray_backend import RayTransport

            transport = RayTransport(args, net_cfg.to_dict(), counters["session"])
            transport.publish_weights(state_dicts())
        else:
            os.environ["OMP_NUM_THREADS"] = "1"  # inherited by the spawned actors
            ctx = torch.multiprocessing.get_context("spawn")
            transport = LocalTransport(ctx, state_dicts(), args.queue_batches)
            transport.publish_weights(state_dicts())
            # actors start with Ctrl-C ignored (inherited through exec): the learner stops them;
            # each one exits by itself if the learner dies (climbrl.training.actor.exit_with_parent)
            main_thread = threading.current_thread() is threading.main_thread()
            previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN) if main_thread else None
            try:
                for a in range(args.actors):
                    p = ctx.Process(
                        target=actor_process, daemon=True,
                        args=(a, args.table_kwargs(), net_cfg.to_dict(), transport,
                              args.games_per_actor, args.exploration, args.batch_size,
                              [args.seed, a, counters["session"]], args.start,
                              args.opponents, args.learn_opponents, args.imitate))
                    p.start()
                    processes.append(p)
            finally:
                if main_thread:
                    signal.signal(signal.SIGINT, previous_int)

        # -- evaluation and checkpoint helpers
        eval_nets = nets if device.type == "cpu" and not panel else [
            build_network(game, net_cfg).eval() for _ in role_names]
        eval_policy = NetPolicy(game, eval_nets, cache_moves=True)
        use_harness = args.eval_harness

        def evaluate_table(table_game, game_kwargs: dict, path) -> tuple[dict, str]:
            """The figures of one table (the harness on ``path``, or the arena)."""
            vs = args.eval_opponent
            if use_harness:
                return harness_figures(game_kwargs, table_game, str(path), vs,
                                       args.eval_deals, args.seed)
            if table_game is game:
                policy = eval_policy
                if eval_nets is not nets:  # CPU copies of the learner's networks
                    weights = state_dicts()
                    for name, net in zip(role_names, eval_nets):
                        net.load_state_dict(weights[name])
            else:
                weights = state_dicts()
                table_nets = [build_network(table_game, net_cfg).eval() for _ in role_names]
                for name, net in zip(role_names, table_nets):
                    net.load_state_dict(weights[name])
                policy = NetPolicy(table_game, table_nets, cache_moves=True)
            policy.refresh()
            result = evaluate(table_game, policy, vs, args.eval_deals, args.seed)
            return ({"return": result.mean_return, "return_ci95": result.ci95,
                     "win_rate": result.win_rate}, f"return {result}")

        def run_evaluation() -> str:
            frames, vs = counters["frames"], args.eval_opponent
            path = run_dir / EVAL_CHECKPOINT
            if use_harness:
                checkpoint.save(path, {
                    "spec": spec, "network": net_cfg.to_dict(), "roles": list(role_names),
                    "models": state_dicts(), "counters": dict(counters),
                    "args": dataclasses.asdict(args)})
            if not panel:
                figures, text = evaluate_table(game, args.game_kwargs(), path)
            else:
                figures, parts, means = {}, [], {n: [] for n in headline(game, args)}
                for label, table in panel:
                    got, _ = evaluate_table(tables.game(table), tables.game_kwargs(table),
                                            path)
                    figures.update({f"{tag_of(label)}/{k}": v for k, v in got.items()})
                    for name in means:
                        means[name].append(got[name])
                    parts.append(f"{label} {got[headline(game, args)[0]]:.2f}")
                figures.update({f"{PANEL}/{n}": float(np.mean(v)) for n, v in means.items()})
                first = headline(game, args)[0]
                unit = "pts/round" if first == "points_per_round" else first
                text = (f"panel of {len(panel)} tables {figures[f'{PANEL}/{first}']:.2f} "
                        f"{unit} ({', '.join(parts)})")
            for name, value in figures.items():
                writer.add_scalar(f"eval/{vs}/{name}", value, frames)
            evaluations.append({"frames": frames, "opponent": vs, "figures": figures,
                                "text": text})
            return f"eval vs {vs} {text}"

        def save_checkpoint() -> None:
            actor = None
            if inline_actor is not None:
                actor = {"state": inline_actor.get_state(), "pending": list(transport.pending),
                         "features": stack}
            checkpoint.save(ckpt_path, {
                "spec": spec, "network": net_cfg.to_dict(), "roles": list(role_names),
                "args": dataclasses.asdict(args),
                "models": state_dicts(),
                "optimizers": {n: opt.state_dict() for n, opt in zip(role_names, optimizers)},
                "counters": dict(counters), "role_frames": role_frames,
                "rng": {"torch": torch.get_rng_state(), "python": random.getstate()},
                "actor": actor, "evaluations": evaluations, "table_counts": table_counts,
                "started_from": started_from,
            })

        # -- clocks: the budget counts this invocation's wall time; frames/s leave out the pauses
        # (evaluations, checkpoints)
        session_start = time.perf_counter()
        elapsed_before, frames_before = counters["elapsed"], counters["frames"]
        paused = 0.0

        def elapsed() -> float:
            return elapsed_before + time.perf_counter() - session_start

        def active() -> float:
            """seconds of this invocation spent training (evaluations and checkpoints out)"""
            return time.perf_counter() - session_start - paused

        def pause(work):
            nonlocal paused
            start = time.perf_counter()
            try:
                return work()
            finally:
                paused += time.perf_counter() - start

        def stop_reason() -> str | None:
            frames = counters["frames"]
            if args.total_frames is not None and frames >= args.total_frames:
                done = f"total_frames reached: {frames:,} frames of {args.total_frames:,}"
                if frames == frames_before:
                    done += " before this invocation (a larger --total-frames goes on)"
                return done
            if args.minutes is not None and (
                    time.perf_counter() - session_start >= args.minutes * SECONDS_PER_MINUTE):
                return budget_reached(args.minutes)
            return None

        progress = Progress(run_name, args.total_frames, counters["frames"], args.progress,
                            args.progress_seconds)
        if evaluations:
            progress.note(f"eval vs {evaluations[-1]['opponent']} {evaluations[-1]['text']}")
        last_log = last_ckpt = time.perf_counter()
        log_frames, log_paused = counters["frames"], 0.0
        stats: dict[str, list[list[float]]] = {
            key: [[] for _ in role_names] for key in ("losses", "q", "grad_norm")}
        returns: dict[str, deque] = {}
        lengths: deque = deque(maxlen=STATS_WINDOW)
        unscored: deque = deque(maxlen=STATS_WINDOW)

        def log_scalars(now: float) -> None:
            nonlocal last_log, log_frames, log_paused
            frames = counters["frames"]
            busy = (now - last_log) - (paused - log_paused)
            fps = (frames - log_frames) / max(busy, 1e-9)
            writer.add_scalar("charts/fps", fps, frames)
            writer.add_scalar("charts/episodes", counters["episodes"], frames)
            writer.add_scalar("charts/updates", counters["updates"], frames)
            writer.add_scalar("charts/epsilon", args.exploration, frames)
            writer.add_scalar("charts/learning_rate", optimizers[0].param_groups[0]["lr"], frames)
            if lengths:
                writer.add_scalar("charts/episode_length", np.mean(lengths), frames)
            if table_counts:
                writer.add_scalar("charts/tables_played", len(table_counts), frames)
            label = getattr(game, "unscored_label", None)
            if unscored and label:
                writer.add_scalar(f"charts/{label}", np.mean(unscored), frames)
            for name, values in returns.items():
                writer.add_scalar(f"charts/return/{name}", np.mean(values), frames)
            for r, (name, count) in enumerate(zip(role_names, role_frames)):
                for key, per_role in stats.items():
                    if per_role[r]:
                        writer.add_scalar(f"{key}/{name}", np.mean(per_role[r]), frames)
                        per_role[r].clear()
                writer.add_scalar(f"charts/frames/{name}", count, frames)
            last_log, log_frames, log_paused = now, frames, paused

        stopped = "error"
        stop = StopRequest()
        stop.install()
        try:
            while (reason := stop_reason()) is None and not stop.requested:
                if args.eval_every_frames and counters["frames"] >= counters["next_eval"]:
                    try:
                        progress.note(pause(run_evaluation))
                    except OSError as err:  # its snapshot could not be written (a full disk)
                        progress.write(f"warning: evaluation skipped: {err.strerror or err}")
                    counters["next_eval"] = counters["frames"] + args.eval_every_frames
                batch = transport.get_batch(POLL_SECONDS)
                if batch is None:
                    dead = [(i, p.exitcode) for i, p in enumerate(processes) if not p.is_alive()]
                    if dead:
                        raise RuntimeError(f"actor process(es) exited (actor, exit code): {dead}")
                else:
                    loss, q, grad_norm = learn(nets[batch.role], optimizers[batch.role], batch,
                                               args.max_grad_norm, args.imitation,
                                               args.imitation_margin)
                    for key, value in (("losses", loss), ("q", q), ("grad_norm", grad_norm)):
                        stats[key][batch.role].append(value)
                    transport.publish_weights(state_dicts())
                    counters["frames"] += batch.size
                    counters["updates"] += 1
                    role_frames[batch.role] += batch.size
                    for ep in batch.episodes:
                        counters["episodes"] += 1
                        if "table" in ep:
                            table_counts[ep["table"]] = table_counts.get(ep["table"], 0) + 1
                        lengths.append(ep["length"])
                        unscored.append(not ep["returns"])
                        for name, value in ep["returns"].items():
                            returns.setdefault(name, deque(maxlen=STATS_WINDOW)).append(value)
                    progress.update(counters["frames"], active())
                now = time.perf_counter()
                if now - last_log >= args.log_seconds:
                    log_scalars(now)
                if now - last_ckpt >= args.checkpoint_minutes * SECONDS_PER_MINUTE:
                    counters["elapsed"] = elapsed()
                    try:
                        pause(save_checkpoint)
                    except OSError as err:  # e.g. a full disk: keep training, try again later
                        progress.write(f"warning: {err.strerror or err}")
                    last_ckpt = time.perf_counter()
            stopped = reason or stop.reason()
        except KeyboardInterrupt:
            stopped = "interrupted (a second Ctrl-C)"
            stop.signal = stop.signal or signal.SIGINT
        finally:
            stop.uninstall()
            interrupted = stop.requested or stopped.startswith("interrupted")
            failed = stopped.startswith("error")
            counters["elapsed"] = elapsed()
            if counters["frames"] > log_frames:
                log_scalars(time.perf_counter())
            transport.close()
            for p in processes:
                p.join(JOIN_SECONDS)
                if p.is_alive():
                    p.terminate()
            try:
                if args.eval_every_frames and not (interrupted or failed) and (
                        not evaluations or counters["frames"] - evaluations[-1]["frames"]
                        >= args.eval_every_frames // 2):
                    progress.note(run_evaluation())
                save_checkpoint()
            finally:
                writer.flush()
                writer.close()
                progress.close()
        return {"run_dir": str(run_dir), "checkpoint": str(ckpt_path),
                "frames": counters["frames"], "elapsed": counters["elapsed"],
                "evaluations": evaluations, "interrupted": interrupted, "stopped": stopped,
                "signal": signal.Signals(stop.signal).name if interrupted and stop.signal
                else None,
                "tables": dict(table_counts)}
