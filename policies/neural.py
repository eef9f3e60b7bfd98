"""Neural CPU players: a trained network behind ``player.act(observation, view) -> int``.

``load(path, game)`` takes either

* an exported CPU directory (``climbrl export``): ``cpu.json`` plus one ONNX model per role,
  run with onnxruntime (numpy only: no torch needed), or
* a training checkpoint (``runs/<run>/checkpoint.pt`` or the run directory), run with torch.

Either way the recorded spec (what the network reads: game, env version, observation layout,
action features' schema; see :func:`climbrl.policies.spec.check_spec`) is checked against the game
the player is bound to (``game`` at load when it is an engine or an env; a game name only has
to match, and the engine is rebuilt from the spec at the first move unless ``bind`` gives
one), and a mismatch raises a ``ValueError`` naming what differs. A Daifugo or President
player plays every table of its game: any rules, player count, round count and reward mode
(it scores the moves of the catalog of the game it is bound to); a model trained on the v0
observation is refused in one line (retrain it).

``observation`` is what PettingZoo gives the agent (a dict with ``"observation"`` and
``"action_mask"``); ``view`` is ``state.view(seat)``, whose ``history`` supplies the recent
moves. Weaker levels: ``temperature`` samples moves with probability proportional to
``exp(q / temperature)`` (q in the env's reward units) instead of taking the best, and
``top_k`` keeps only the k best moves before choosing.

A damaged or foreign file (a ``cpu.json`` cut short, an unreadable ``.onnx``, a damaged
checkpoint) raises a :class:`~climbrl.policies.spec.CheckpointError` (a ``ValueError``) naming the file
and what is wrong with it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .base import Player
from .spec import (CheckpointError, action_features, check_spec, game_from_spec,
                   history_from_view, load_role_weights, lookup_tables, role_from_view,
                   seat_rows)

META_FILE = "cpu.json"
META_FORMAT = "climbrl-cpu-1"
CHECKPOINT_FILE = "checkpoint.pt"
ONNX_INPUTS = ("obs", "hist_features", "hist_movers", "move_features", "move_seg")
"""an exported model's inputs: observations [B, O] float32, the history's action features
[B, H, F] and one-hot relative movers [B, H, P] float32, the legal moves' action features
[N, F] float32 and the decision of each move [N] int64 (rows of the game's action feature
table; see :func:`climbrl.policies.spec.lookup_tables`)"""
OUTPUT = "q"
SHARED_TABLES = 16
"""action tables whose scorers shared networks keep (a server's tables of several rules)"""
DIGEST_CHARS = 16
"""hex digits kept of a CPU's weights digest (:func:`weights_digest`)"""
META_KEYS = ("spec", "network", "roles", "models")
"""what every ``cpu.json`` holds besides its format"""

Scorer = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``(obs [B, O], hist_actions [B, H], hist_movers [B, H], move_ids [N], move_seg [N]) -> q [N]``
(ids int64, -1 for padding)"""


ScorerFactory = Callable[[Any, np.ndarray], list[Scorer]]
"""``(game, action feature table) -> one scorer per role``"""


class Networks:
    """The loaded networks of one CPU: its ``meta`` (``cpu.json``'s keys) and its scorers per
    action table, built on first use and kept for the last ``keep`` tables. Players loaded
    with the same ``shared`` dict (:func:`load`) hold one :class:`Networks` per CPU file, so a
    server seating the CPU at many tables holds its weights and tables once."""

    def __init__(self, meta: dict, make_scorers: ScorerFactory, keep: int = 1,
                 source: Path | None = None):
        self.meta = meta
        self._make_scorers = make_scorers
        self.keep = keep
        self._built: list[tuple[np.ndarray, list[Scorer]]] = []
        #: the exported folder or checkpoint file the weights were read from
        self.source = source

    @cached_property
    def digest(self) -> str | None:
        """The digest of the files the weights came from (:func:`weights_digest`), read when
        first asked for (an evaluation's identity), not at every load."""
        return None if self.source is None else weights_digest(self.source)

    def scorers(self, game, table: np.ndarray) -> list[Scorer]:
        """One scorer per role for the moves of ``table`` (``game``'s action features)."""
        for i, (known, scorers) in enumerate(self._built):
            if _same_table(table, known):
                self._built.append(self._built.pop(i))  # most recently used last
                return scorers
        scorers = self._make_scorers(game, table)
        self._built = [*self._built, (table, scorers)][-self.keep:]
        return scorers


class NeuralPlayer(Player):
    """Chooses among the legal moves by the network's q (expected return of this seat); its
    random stream (:meth:`Player.seed`) only serves ``temperature`` sampling.

    Loading is cheap; the networks are built at the first :meth:`bind` (or move) from that
    game's action table, and built again for a game of another action table (another
    catalog of the game); binds to games of the same table only check their spec.
    """

    name = "neural"
    KNOBS = ("temperature", "top_k")

    def __init__(self, networks: Networks, game=None, temperature: float = 0.0,
                 top_k: int | None = None, seed=None):
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature!r}")
        if top_k is not None and (not isinstance(top_k, int) or top_k < 1):
            raise ValueError(f"top_k must be a positive integer or None, got {top_k!r}")
        super().__init__(seed)
        self.networks = networks
        self.meta = networks.meta
        self.history_length = self.meta["network"]["history_length"]
        self.temperature = temperature
        self.top_k = top_k
        self.scorers: list[Scorer] | None = None
        self._table: np.ndarray | None = None
        if game is not None:
            self.bind(game)

    @property
    def fingerprint(self) -> str | None:
        return self.networks.digest

    def bind(self, game) -> NeuralPlayer:
        """Attach to ``game`` (an engine, an env, or a game name); refuses a game other than
        the trained one, naming what differs."""
        spec = self.meta["spec"]
        if isinstance(game, str):
            _check_name(game, spec)
            return self  # a name says nothing more: keep (or defer) the engine
        game = _resolve_game(game, spec)
        if game is self.game:
            return self
        table = action_features(game)
        check_spec(spec, game, "neural player", features=table)
        if self.scorers is None or not _same_table(table, self._table):
            self.scorers = self.networks.scorers(game, table)
            self._table = table
        self.game = game
        return self

    def scores(self, observation, view: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """The legal move ids and their q values."""
        return self.scores_batch([observation], [view])[0]

    def scores_batch(self, observations, views) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`scores` of many positions (an observation and a view each) at once, one
        network call per role: the legal move ids and their q values of each."""
        if self.game is None:
            self.bind(None)
        positions = [self._position(o, v) for o, v in zip(observations, views, strict=True)]
        out: list = [None] * len(positions)
        for role in sorted({p[3] for p in positions}):
            mine = [i for i, p in enumerate(positions) if p[3] == role]
            sizes = [len(positions[i][1]) for i in mine]
            hist = np.stack([positions[i][2] for i in mine])
            q = self.scorers[role](
                np.stack([positions[i][0] for i in mine]), hist[:, :, 1], hist[:, :, 0],
                np.concatenate([positions[i][1] for i in mine]),
                np.repeat(np.arange(len(mine), dtype=np.int64), sizes))
            ends = np.cumsum(sizes)
            for i, end, size in zip(mine, ends, sizes):
                out[i] = (positions[i][1], np.asarray(q[end - size : end], np.float64))
        return out

    def _position(self, observation, view: dict[str, Any]):
        """One position's network inputs: observation vector, legal ids, history rows, role."""
        if isinstance(observation, dict):
            obs = observation["observation"]
            legal = np.flatnonzero(observation["action_mask"])
        elif "legal" in view:
            obs = observation
            legal = np.array([self.game.action_from_str(t) for t in view["legal"]], np.int64)
        else:
            raise ValueError("observation must be PettingZoo's dict with an action_mask "
                             "(or the view must list the legal moves)")
        if len(legal) == 0:
            raise ValueError("no legal move: is it this seat's turn?")
        hist = history_from_view(self.game, view, self.history_length)
        return (np.asarray(obs, np.float32), legal.astype(np.int64), hist,
                role_from_view(self.game, view))

    def act(self, observation, view: dict[str, Any]) -> int:
        legal, q = self.scores(observation, view)
        order = np.argsort(-q, kind="stable")
        if self.top_k is not None:
            order = order[: self.top_k]
        if self.temperature == 0 or len(order) == 1:
            return int(legal[order[0]])
        z = (q[order] - q[order[0]]) / self.temperature
        p = np.exp(z)
        return int(legal[order[self.rng.choice(len(order), p=p / p.sum())]])


def _same_table(a: np.ndarray, b: np.ndarray | None) -> bool:
    return b is not None and (a is b or (a.shape == b.shape and np.array_equal(a, b)))


def _check_name(name: str, spec: dict) -> None:
    if name != spec["game"]:
        raise ValueError(f"this player was trained on {spec['game']!r}, not {name!r}")


def _resolve_game(game, spec: dict):
    """``game`` as an engine: an engine, an env (its ``game``), a game name, or None (rebuilt
    from the recorded spec)."""
    if isinstance(game, str):
        _check_name(game, spec)
        game = None
    if game is None:
        return game_from_spec(spec)
    for attr in ("unwrapped", "game"):
        if not hasattr(game, "layout") and hasattr(game, attr):
            game = getattr(game, attr)
    return game


def _onnx_session(path: Path):
    import onnxruntime as ort

    if not path.is_file():
        raise CheckpointError(f"{str(path)!r} is missing (the CPU's {META_FILE} lists it)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as err:  # onnxruntime's own error types (InvalidProtobuf, Fail, ...)
        detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CheckpointError(f"{str(path)!r} is damaged or not an ONNX model ({detail})") \
            from None


def read_meta(path: Path) -> dict:
    """The ``cpu.json`` of an exported CPU, checked: valid JSON, our format, every key."""
    meta_path = path / META_FILE
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as err:
        raise CheckpointError(f"{str(meta_path)!r} is not valid JSON ({err.msg} at line "
                              f"{err.lineno}, column {err.colno}): damaged or cut short?") \
            from None
    except UnicodeDecodeError:
        raise CheckpointError(f"{str(meta_path)!r} is not a text file: damaged?") from None
    if not isinstance(meta, dict) or meta.get("format") != META_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise CheckpointError(f"{str(meta_path)!r}: format {found!r}, expected {META_FORMAT!r}")
    missing = [k for k in META_KEYS if k not in meta]
    missing += [f"models.{r}" for r in meta.get("roles", ()) if r not in meta.get("models", {})]
    if missing:
        raise CheckpointError(f"{str(meta_path)!r} is incomplete: no {', '.join(missing)}")
    return meta


def _onnx_scorer(session, table: np.ndarray, movers: np.ndarray) -> Scorer:
    """``session`` scoring moves by rows of ``table`` and ``movers`` (:func:`lookup_tables`)."""

    def score(obs, hist_actions, hist_movers, move_ids, move_seg):
        # numpy reads id -1 as the last row: the all-zero padding row
        feeds = (obs, table[hist_actions], movers[hist_movers], table[move_ids], move_seg)
        return session.run([OUTPUT], dict(zip(ONNX_INPUTS, feeds)))[0]

    return score


def load_exported(path: str | Path, game=None, keep: int = 1, **knobs) -> NeuralPlayer:
    """An exported CPU folder's player (``keep``: action tables whose scorers it keeps)."""
    return NeuralPlayer(exported_networks(path, keep), game, **knobs)


def exported_networks(path: str | Path, keep: int = 1) -> Networks:
    path = Path(path)
    if not (path / META_FILE).is_file():
        raise CheckpointError(f"{str(path)!r} is not an exported CPU player (no {META_FILE})")
    meta = read_meta(path)
    sessions = [_onnx_session(path / meta["models"][role]) for role in meta["roles"]]

    def make_scorers(game, features):
        table, movers = lookup_tables(features, seat_rows(game))
        return [_onnx_scorer(session, table, movers) for session in sessions]

    return Networks(meta, make_scorers, keep, source=path)


def torch_scorer(net) -> Scorer:
    import torch

    def score(obs, hist_actions, hist_movers, move_ids, move_seg):
        with torch.no_grad():
            q = net(*(torch.from_numpy(np.ascontiguousarray(a))
                      for a in (obs, hist_actions, hist_movers, move_ids, move_seg)))
        return q.numpy()

    return score


def load_checkpoint(path: str | Path, game=None, keep: int = 1, **knobs) -> NeuralPlayer:
    """A training checkpoint's player, run with torch (``keep``: as :func:`load_exported`)."""
    return NeuralPlayer(checkpoint_networks(path, keep), game, **knobs)


def checkpoint_networks(path: str | Path, keep: int = 1) -> Networks:
    from climbrl.training import checkpoint

    from .network import NetConfig, QNetwork

    data = checkpoint.load(path)
    cfg = NetConfig.from_dict(data["network"])
    models = data["models"]

    def make_scorers(game, features):
        scorers = []
        for role in data["roles"]:
            net = QNetwork(game.layout, features, seat_rows(game), cfg)
            load_role_weights(net, models, role, repr(str(path)))
            scorers.append(torch_scorer(net.eval()))
        return scorers

    meta = {"spec": data["spec"], "network": data["network"], "roles": data["roles"],
            "trained": {"frames": data["counters"]["frames"]}}
    return Networks(meta, make_scorers, keep, source=Path(path))


def load(path: str | Path, game=None, temperature: float = 0.0, top_k: int | None = None,
         seed=None, shared: dict | None = None, **unknown) -> NeuralPlayer:
    """A neural player from an exported CPU directory or a training checkpoint;
    ``ValueError`` naming the CPU and the knobs it takes for any other keyword.

    ``shared``: a dict the caller keeps (a server's, say) in which the loaded networks are
    kept by file: every player loaded from the same unchanged file with it shares one
    :class:`Networks` (weights, sessions and the scorers of up to :data:`SHARED_TABLES`
    action tables) instead of loading its own."""
    NeuralPlayer.refuse_knobs(str(path), unknown)
    p = Path(path)
    knobs = {"temperature": temperature, "top_k": top_k, "seed": seed}
    if (p / META_FILE).is_file():
        file, make = p / META_FILE, exported_networks
    elif p.is_file() or (p / CHECKPOINT_FILE).is_file():
        file, make = (p if p.is_file() else p / CHECKPOINT_FILE), checkpoint_networks
    else:
        raise CheckpointError(f"{str(path)!r} is neither an exported CPU directory "
                              f"({META_FILE}) nor a checkpoint")
    if shared is None:
        return NeuralPlayer(make(p), game, **knobs)
    stat = file.stat()  # a file written again is loaded again
    key = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in shared:
        shared[key] = make(p, SHARED_TABLES)
    return NeuralPlayer(shared[key], game, **knobs)


def weights_digest(path: str | Path) -> str:
    """A digest of the bytes a CPU's weights are read from: an exported folder's ``cpu.json``
    and models, or a checkpoint file. A CPU exported again to the same path gets another."""
    p = Path(path)
    if (p / META_FILE).is_file():
        meta = read_meta(p)
        files = [p / META_FILE, *(p / meta["models"][role] for role in meta["roles"])]
    else:
        files = [p if p.is_file() else p / CHECKPOINT_FILE]
    return files_digest(files)


def files_digest(files: Iterable[str | Path]) -> str:
    """A digest of the bytes of ``files``, in their order (a player's ``fingerprint``)."""
    digest = hashlib.sha256()
    for file in files:
        with open(file, "rb") as f:
            digest.update(hashlib.file_digest(f, "sha256").digest())
    return digest.hexdigest()[:DIGEST_CHARS]
