"""A new run's networks from trained weights (``init_from``)::

    climbrl train --config configs/doudizhu-small.yaml --init-from cpus/doudizhu

``init_from`` names a training checkpoint (a run folder or its ``checkpoint.pt``) or an exported
CPU folder (``cpu.json`` and one ONNX model per role, as ``climbrl export`` writes and
``cpus/`` ships). The run starts from those weights with a fresh optimizer, counters and
games; its game (the spec: what the network reads), network settings and roles must be the
ones recorded there, and a difference is refused naming it.

An exported model is read back into the trainer's network: the initializers the exporter kept
under their parameter names, the LSTM's from the ONNX ``LSTM`` node (its gates come in the
order input, output, forget, cell; torch's are input, forget, cell, output) and the move
layer's from its ``MatMul`` (transposed). The network so filled is then run against the ONNX
model on one random batch, and weights that do not reproduce the model's q are refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from climbrl.policies.network import FeatureScorer, NetConfig, build_network
from climbrl.policies.neural import META_FILE, ONNX_INPUTS, OUTPUT, _onnx_session, read_meta
from climbrl.policies.registry import _shipped_cpu
from climbrl.policies.spec import CheckpointError, check_spec, game_from_spec, load_role_weights

from . import checkpoint
from .errors import one_line
from .export import trained_record

ONNX_LSTM_GATES = ("i", "o", "f", "c")
TORCH_LSTM_GATES = ("i", "f", "c", "o")
#: how far the filled network's q may stray from the exported model's (float32 rounding)
MATCH_TOLERANCE = 1e-4
PARAM_PREFIX = "net."
"""the exporter wraps the network (:class:`climbrl.policies.network.FeatureScorer`)"""


def read_weights(path: str | Path) -> dict[str, Any]:
    """``{"spec", "network", "roles", "models": {role: state dict}, "trained"}`` of a
    checkpoint or an exported CPU folder (``trained``: what its run did,
    :func:`climbrl.training.export.trained_record`; None for a CPU exported without it);
    :class:`~climbrl.policies.spec.CheckpointError` naming the file otherwise."""
    folder = Path(_shipped_cpu(str(path)))
    if (folder / META_FILE).is_file():
        return _read_exported(folder)
    data = checkpoint.load(folder)
    weights = {key: data[key] for key in ("spec", "network", "roles", "models")}
    return {**weights, "trained": trained_record(data)}


def load_into(nets: list[torch.nn.Module], role_names: list[str], net_cfg: NetConfig, game,
              path: str | Path) -> dict[str, Any]:
    """Fill ``nets`` (one per role of ``role_names``) with the weights of ``path``, after
    checking that they were trained on ``game`` with ``net_cfg`` and these roles. Returns
    where they came from: ``{"init_from": path, **what their run did}``, for the new run's
    record."""
    where = str(path)
    try:
        weights = read_weights(path)
    except (CheckpointError, OSError) as err:
        raise CheckpointError(f"init_from {where!r}: {one_line(err)}") from None
    check_spec(weights["spec"], game, f"init_from {where!r}")
    ours, theirs = net_cfg.to_dict(), weights["network"]
    if theirs != ours:
        differ = sorted(k for k in {*ours, *theirs} if ours.get(k) != theirs.get(k))
        raise ValueError(f"init_from {where!r}: its network settings differ from this run's "
                         + ", ".join(f"{k}: {theirs.get(k)!r} there, {ours.get(k)!r} here"
                                     for k in differ))
    if list(weights["roles"]) != list(role_names):
        raise ValueError(f"init_from {where!r}: roles {list(weights['roles'])} there, "
                         f"{list(role_names)} here")
    for role, net in zip(role_names, nets):
        load_role_weights(net, weights["models"], role, f"init_from {where!r}")
    return {"init_from": where, **(weights["trained"] or {})}


def _read_exported(folder: Path) -> dict[str, Any]:
    meta = read_meta(folder)
    cfg = NetConfig.from_dict(meta["network"])
    game = game_from_spec(meta["spec"])
    models = {}
    for role in meta["roles"]:
        file = folder / meta["models"][role]
        net = build_network(game, cfg)
        state = onnx_state_dict(file, net.state_dict())
        net.load_state_dict(state)
        _check_same_q(file, net)
        models[role] = state
    return {"spec": meta["spec"], "network": meta["network"], "roles": meta["roles"],
            "models": models, "trained": meta.get("trained")}


def onnx_state_dict(file: Path, wanted: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The state dict of shape ``wanted`` read from the exported model ``file``."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise CheckpointError(f"reading the exported model {str(file)!r} needs onnx: "
                              "pip install 'climbrl[export]'") from None
    try:
        model = onnx.load(str(file))
    except Exception as err:  # onnx's own decode errors
        raise CheckpointError(f"{str(file)!r} is damaged or not an ONNX model ({err})") from None
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    state: dict[str, np.ndarray] = {}
    for name, value in inits.items():
        key = name[len(PARAM_PREFIX):] if name.startswith(PARAM_PREFIX) else None
        if key in wanted and tuple(wanted[key].shape) == value.shape:
            state[key] = value
    for node in model.graph.node:
        if node.op_type == "LSTM":
            state.update(_lstm_weights(node, inits))
    for node in model.graph.node:
        if node.op_type == "MatMul":
            _matmul_weight(node, inits, wanted, state)
    missing = [key for key in wanted if key not in state]
    if missing:
        raise CheckpointError(f"{str(file)!r}: no weights found for {', '.join(missing)} (not "
                              "a model climbrl export wrote?)")
    return {key: torch.tensor(np.array(state[key]), dtype=wanted[key].dtype)
            for key in wanted}


def _lstm_weights(node, inits: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """torch's one-layer LSTM parameters from an ONNX LSTM node's W, R and B."""
    w, r = inits[node.input[1]][0], inits[node.input[2]][0]
    hidden = r.shape[1]
    bias = inits[node.input[3]][0] if len(node.input) > 3 and node.input[3] in inits \
        else np.zeros(8 * hidden, np.float32)
    order = [ONNX_LSTM_GATES.index(g) for g in TORCH_LSTM_GATES]

    def torch_order(x: np.ndarray) -> np.ndarray:
        return np.concatenate([x[k * hidden:(k + 1) * hidden] for k in order])

    return {"lstm.weight_ih_l0": torch_order(w), "lstm.weight_hh_l0": torch_order(r),
            "lstm.bias_ih_l0": torch_order(bias[:4 * hidden]),
            "lstm.bias_hh_l0": torch_order(bias[4 * hidden:])}


def _matmul_weight(node, inits, wanted, state) -> None:
    """A ``MatMul`` by a constant ``[in, out]``: the one 2-D weight still missing whose shape is
    ``[out, in]``."""
    for name in node.input:
        value = inits.get(name)
        if value is None or value.ndim != 2:
            continue
        fits = [key for key in wanted if key not in state
                and tuple(wanted[key].shape) == value.T.shape]
        if len(fits) == 1:
            state[fits[0]] = value.T


def _check_same_q(file: Path, net) -> None:
    """The filled network gives the exported model's q on a random batch."""
    session = _onnx_session(file)
    rng = np.random.default_rng(0)
    shapes = {i.name: i.shape for i in session.get_inputs()}
    decisions, moves = 3, 5
    sizes = {"decisions": decisions, "moves": moves}
    feeds = {}
    for name in ONNX_INPUTS:
        shape = [sizes.get(d, d) if isinstance(d, str) else d for d in shapes[name]]
        if name == "move_seg":
            feeds[name] = rng.integers(0, decisions, moves).astype(np.int64)
        else:
            feeds[name] = rng.random(shape, dtype=np.float32)
    expected = session.run([OUTPUT], feeds)[0]
    with torch.no_grad():
        got = FeatureScorer(net.eval())(*(torch.from_numpy(feeds[n]) for n in ONNX_INPUTS))
    if not np.allclose(got.numpy(), expected, atol=MATCH_TOLERANCE, rtol=MATCH_TOLERANCE):
        raise CheckpointError(f"{str(file)!r}: the weights read back do not reproduce the "
                              "model's q (not a model climbrl export wrote?)")
