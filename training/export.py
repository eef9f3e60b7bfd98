"""Export a training checkpoint as a self-contained CPU player:

    climbrl export runs/<run> --out cpus/NAME

writes ``cpus/NAME/cpu.json`` (spec, network settings, roles, training facts) and one
``<role>.onnx`` per role. ``climbrl.policies.neural.load("cpus/NAME", game)`` plays it with
onnxruntime and numpy only. Each ONNX model maps ``(obs, hist_features, hist_movers,
move_features, move_seg)`` to the q of each listed move (see
:data:`climbrl.policies.neural.ONNX_INPUTS`); the observation scaling is inside the model, the action
feature table is not: the player takes it from its game, whose spec matches the recorded one
(Daifugo / President: the features' schema, so the CPU scores the moves of any catalog of its
game, any table; Dou Dizhu: the table's digest). A damaged checkpoint raises a
:class:`~climbrl.training.checkpoint.CheckpointError` naming the file.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import torch

from climbrl.policies.network import FeatureScorer, NetConfig, build_network
from climbrl.policies.neural import META_FILE, META_FORMAT, ONNX_INPUTS, OUTPUT
from climbrl.policies.spec import (action_features, check_spec, game_from_spec, load_role_weights,
                           lookup_tables, seat_rows)

from . import checkpoint

ONNX_OPSET = 17


def read_checkpoint(checkpoint_path: str | Path) -> dict:
    """The checkpoint at ``checkpoint_path`` (a file or a run folder), checked against its
    game: a :class:`~climbrl.training.checkpoint.CheckpointError` (a ``ValueError``) naming
    the file when it is missing, damaged, foreign or of another game version."""
    data = checkpoint.load(checkpoint_path)
    check_spec(data["spec"], game_from_spec(data["spec"]), "checkpoint")
    return data


def export(checkpoint_path: str | Path, out_dir: str | Path, data: dict | None = None) -> Path:
    """Write the CPU player of ``checkpoint_path`` to ``out_dir`` (``data``: the checkpoint
    already read by :func:`read_checkpoint`)."""
    if data is None:
        data = read_checkpoint(checkpoint_path)
    spec = data["spec"]
    game = game_from_spec(spec)
    cfg = NetConfig.from_dict(data["network"])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    history = cfg.history_length
    table, movers = lookup_tables(action_features(game), seat_rows(game))
    moves = 2
    example = (
        torch.zeros(1, game.layout.size),
        torch.zeros(1, history, table.shape[1]),
        torch.zeros(1, history, movers.shape[1]),
        torch.zeros(moves, table.shape[1]),
        torch.zeros(moves, dtype=torch.long),
    )
    dynamic = {"obs": {0: "decisions"}, "hist_features": {0: "decisions"},
               "hist_movers": {0: "decisions"}, "move_features": {0: "moves"},
               "move_seg": {0: "moves"}, OUTPUT: {0: "moves"}}
    models = {}
    for role in data["roles"]:
        net = build_network(game, cfg)
        load_role_weights(net, data["models"], role, repr(str(checkpoint_path)))
        models[role] = f"{role}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
            torch.onnx.export(FeatureScorer(net).eval(), example, str(out / models[role]),
                              dynamo=False, input_names=list(ONNX_INPUTS),
                              output_names=[OUTPUT], dynamic_axes=dynamic,
                              opset_version=ONNX_OPSET)
    meta = {
        "format": META_FORMAT,
        "spec": spec,
        "network": data["network"],
        "roles": data["roles"],
        "models": models,
        "inputs": list(ONNX_INPUTS),
        "trained": trained_record(data),
    }
    # strict JSON (no NaN), so that a game in any language can read it
    (out / META_FILE).write_text(json.dumps(meta, indent=1, allow_nan=False) + "\n")
    return out


def trained_record(data: dict) -> dict:
    """What a checkpoint's run did: its name, decisions, updates, minutes, last evaluation, and
    (a run warm-started with ``init_from``) the record of the weights it started from, so an
    exported CPU carries every sitting behind it, oldest innermost."""
    evaluations = data.get("evaluations") or []
    record = {
        "run": (data.get("args") or {}).get("run_name"),
        "frames": data["counters"]["frames"],
        "updates": data["counters"]["updates"],
        "minutes": round(data["counters"]["elapsed"] / 60, 2),
        "last_evaluation": _finite(evaluations[-1]) if evaluations else None,
    }
    if data.get("started_from"):
        record["started_from"] = _finite(data["started_from"])
    return record


def _finite(value):
    """``value`` with every non-finite float (an interval of one game) replaced by None."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
