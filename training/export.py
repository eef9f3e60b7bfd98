"""Export a training checkpoint as a self-contained CPU player:

    climbrl export runs/<run> --out cpus/NAME

writes ``cpus/NAME/cpu.json`` (spec, network settings, roles, training facts) and one
``<role>.onnx`` per role. ``policies.neural.load("cpus/NAME", game)`` plays it with
onnxruntime and numpy only. Each ONNX model maps ``(obs, hist_actions, hist_movers, move_ids,
move_seg)`` to the q of each listed move (see :data:`policies.neural.INPUTS`); the action
feature table and the observation scaling are inside the model.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import torch

from policies.network import NetConfig, build_network
from policies.neural import INPUTS, META_FILE, META_FORMAT, OUTPUT
from policies.spec import check_spec, game_from_spec

from . import checkpoint

ONNX_OPSET = 17


def export(checkpoint_path: str | Path, out_dir: str | Path) -> Path:
    data = checkpoint.load(checkpoint_path)
    spec = data["spec"]
    game = game_from_spec(spec)
    check_spec(spec, game, "checkpoint")
    cfg = NetConfig.from_dict(data["network"])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    history = cfg.history_length
    example = (
        torch.zeros(1, game.layout.size),
        torch.full((1, history), -1, dtype=torch.long),
        torch.full((1, history), -1, dtype=torch.long),
        torch.arange(2, dtype=torch.long),
        torch.zeros(2, dtype=torch.long),
    )
    dynamic = {"obs": {0: "decisions"}, "hist_actions": {0: "decisions"},
               "hist_movers": {0: "decisions"}, "move_ids": {0: "moves"},
               "move_seg": {0: "moves"}, OUTPUT: {0: "moves"}}
    models = {}
    for role in data["roles"]:
        net = build_network(game, cfg)
        net.load_state_dict(data["models"][role])
        net.eval()
        models[role] = f"{role}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
            torch.onnx.export(net, example, str(out / models[role]), dynamo=False,
                              input_names=list(INPUTS), output_names=[OUTPUT],
                              dynamic_axes=dynamic, opset_version=ONNX_OPSET)
    evaluations = data.get("evaluations") or []
    meta = {
        "format": META_FORMAT,
        "spec": spec,
        "network": data["network"],
        "roles": data["roles"],
        "models": models,
        "inputs": list(INPUTS),
        "trained": {
            "run": data["args"].get("run_name"),
            "frames": data["counters"]["frames"],
            "updates": data["counters"]["updates"],
            "minutes": round(data["counters"]["elapsed"] / 60, 2),
            "last_evaluation": evaluations[-1] if evaluations else None,
        },
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    return out
