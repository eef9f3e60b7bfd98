"""The (state, move) value network of the Deep Monte-Carlo trainer, the same code for every game.

The state is encoded once per decision; every legal move is then scored against that encoding::

    history rows (mover, action id)      observation (layout.size floats, less `skip_fields`)
      -> action features ++ mover one-hot  -> scaled to [0, 1] by the layout's bounds
      -> grouped `history_group` per step  |
      -> LSTM, last output  ---------------+-> concat -> MLP `state_layers` -> state code
                                                                               |
    legal move id -> action features -> linear ----(+)---- linear ------------+
                                          relu -> MLP `pair_layers[1:]` -> q (expected return)

The first pair layer is a sum of a state part and a move part, so scoring N moves costs one
gather, one add and the small head per move; the move part of every catalog action can be
precomputed once per weight update (:meth:`QNetwork.move_codes`). Sizes come from the game:
observation size and bounds from its layout, move features from the game's action feature table,
the movers' one-hot from its seat rows (:func:`climbrl.policies.spec.seat_rows`). The feature table is
a buffer outside the weights: :meth:`QNetwork.use_features` makes the same weights score the
moves of another catalog of the game (another table's rules), or of several at once (tables
stacked, each id shifted by its table's offset, as the trainer does).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .spec import action_features, lookup_tables, seat_rows


@dataclass(frozen=True)
class NetConfig:
    """Network hyperparameters (recorded in checkpoints). The defaults match DouZero's size: an
    LSTM of 128 and five 512-wide layers (four state layers and the pair layer)."""

    history_length: int = 16
    """recent moves the LSTM reads"""
    history_group: int = 4
    """moves per LSTM step (one turn of the table, as DouZero groups its 15 moves by 3)"""
    lstm_hidden: int = 128
    state_layers: tuple[int, ...] = (512, 512, 512, 512)
    pair_layers: tuple[int, ...] = (512,)
    """widths after the state and move parts meet; the first is the pair layer"""
    skip_fields: tuple[str, ...] = ()
    """observation fields the network does not read (e.g. a history the LSTM already reads)"""

    def __post_init__(self) -> None:
        for name in ("history_length", "history_group", "lstm_hidden"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"network {name} must be a positive integer, got {value!r}")
        if self.history_length % self.history_group:
            raise ValueError(
                f"network history_length ({self.history_length}) must be a multiple of "
                f"history_group ({self.history_group})"
            )
        if any(not isinstance(f, str) for f in self.skip_fields):
            raise ValueError(f"network skip_fields must be field names, got {self.skip_fields!r}")
        for name in ("state_layers", "pair_layers"):
            layers = getattr(self, name)
            if not layers or any(not isinstance(w, int) or w < 1 for w in layers):
                raise ValueError(f"network {name} must be a non-empty list of positive widths, "
                                 f"got {layers!r}")

    @classmethod
    def from_dict(cls, data: dict) -> NetConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown network option(s) {sorted(unknown)}; options are "
                             f"{sorted(known)}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in dataclasses.asdict(self).items()}


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


class QNetwork(nn.Module):
    """Scores (state, move) pairs with the expected return of the deciding seat."""

    def __init__(self, layout, action_features: np.ndarray, rows: int, config: NetConfig):
        super().__init__()
        self.config = config
        feat = action_features.shape[1]
        unknown = [f for f in config.skip_fields if f not in layout.slices]
        if unknown:
            raise ValueError(f"network skip_fields {unknown} are not observation fields; "
                             f"fields are {list(layout.slices)}")
        keep = np.concatenate([np.arange(sl.start, sl.stop) for name, sl in layout.slices.items()
                               if name not in config.skip_fields])
        obs_low, obs_high = (bound[keep] for bound in layout.low_high())
        span = np.where(obs_high > obs_low, obs_high - obs_low, 1.0).astype(np.float32)
        # derived from the game (whose spec checkpoints record), so not in the state dict
        self.register_buffer("obs_keep", torch.as_tensor(keep, dtype=torch.long), False)
        self.register_buffer("obs_low", torch.as_tensor(obs_low, dtype=torch.float32), False)
        self.register_buffer("obs_scale", torch.as_tensor(1.0 / span), False)
        table, movers = lookup_tables(action_features, rows)
        self.num_actions = action_features.shape[0]
        self.register_buffer("features", torch.as_tensor(table), False)
        self.register_buffer("movers", torch.as_tensor(movers), False)
        step_in = config.history_group * (feat + rows)
        self.lstm = nn.LSTM(step_in, config.lstm_hidden, batch_first=True)
        self.state_mlp = _mlp([obs_low.size + config.lstm_hidden, *config.state_layers])
        pair = config.pair_layers[0]
        self.pair_state = nn.Linear(config.state_layers[-1], pair)
        self.pair_move = nn.Linear(feat, pair, bias=False)
        self.head = nn.Sequential(nn.ReLU(), _mlp(list(config.pair_layers)),
                                  nn.Linear(config.pair_layers[-1], 1))

    def use_features(self, action_features: np.ndarray) -> QNetwork:
        """Score the moves of this feature table from now on (another catalog of the game:
        the same width); the weights stay."""
        if action_features.shape[1] != self.pair_move.in_features:
            raise ValueError(f"action features of width {action_features.shape[1]}, the "
                             f"network reads {self.pair_move.in_features}")
        table, _ = lookup_tables(action_features, self.movers.shape[1])
        self.features = torch.as_tensor(table).to(self.features.device)
        self.num_actions = action_features.shape[0]
        return self

    def encode(self, obs: torch.Tensor, hist_actions: torch.Tensor,
               hist_movers: torch.Tensor) -> torch.Tensor:
        """State codes ``[B, pair]`` from observations ``[B, O]`` and history ids ``[B, H]``."""
        acts = torch.remainder(hist_actions, self.features.shape[0])  # -1 -> zero row
        movs = torch.remainder(hist_movers, self.movers.shape[0])
        return self.encode_features(obs, self.features[acts], self.movers[movs])

    def encode_features(self, obs: torch.Tensor, hist_features: torch.Tensor,
                        hist_movers: torch.Tensor) -> torch.Tensor:
        """:meth:`encode` from the history's action features ``[B, H, F]`` and one-hot movers
        ``[B, H, P]`` (rows of :func:`lookup_tables`)."""
        cfg = self.config
        steps = torch.cat([hist_features, hist_movers], dim=-1)
        steps = steps.reshape(obs.shape[0], cfg.history_length // cfg.history_group, -1)
        out, _ = self.lstm(steps)
        obs = obs.index_select(1, self.obs_keep)
        x = torch.cat([(obs - self.obs_low) * self.obs_scale, out[:, -1]], dim=-1)
        return self.pair_state(self.state_mlp(x))

    def move_codes(self) -> torch.Tensor:
        """The move part of the pair layer for every catalog action ``[A, pair]``."""
        return self.pair_move(self.features[: self.num_actions])

    def score(self, codes: torch.Tensor, move_seg: torch.Tensor, move_ids: torch.Tensor,
              move_codes: torch.Tensor | None = None) -> torch.Tensor:
        """q ``[N]`` of moves ``move_ids`` for the decisions ``move_seg`` (indices into
        ``codes``); ``move_codes`` from :meth:`move_codes` when precomputed."""
        part = (self.pair_move(self.features[move_ids]) if move_codes is None
                else move_codes[move_ids])
        return self.head(codes[move_seg] + part).squeeze(-1)

    def score_features(self, codes: torch.Tensor, move_seg: torch.Tensor,
                       move_features: torch.Tensor) -> torch.Tensor:
        """:meth:`score` from the moves' action features ``[N, F]``."""
        return self.head(codes[move_seg] + self.pair_move(move_features)).squeeze(-1)

    def forward(self, obs, hist_actions, hist_movers, move_ids, move_seg):
        return self.score(self.encode(obs, hist_actions, hist_movers), move_seg, move_ids)


class FeatureScorer(nn.Module):
    """The network with action features as inputs instead of ids (what is exported to ONNX:
    the feature table stays out of the model; the player reads it from its game)."""

    def __init__(self, net: QNetwork):
        super().__init__()
        self.net = net

    def forward(self, obs, hist_features, hist_movers, move_features, move_seg):
        net = self.net
        return net.score_features(net.encode_features(obs, hist_features, hist_movers),
                                  move_seg, move_features)


def build_network(game, config: NetConfig, features: np.ndarray | None = None) -> QNetwork:
    """The network of ``game`` (``features``: the feature table to score, by default the
    game's own)."""
    table = action_features(game) if features is None else features
    return QNetwork(game.layout, table, seat_rows(game), config)
