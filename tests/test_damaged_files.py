"""Damaged model files: a checkpoint, a ``cpu.json`` or an ``.onnx`` that is empty, cut short,
random or foreign raises a :class:`CheckpointError` (a ``ValueError``) naming the file and
what is wrong with it, wherever it is read: resuming, exporting, ``climbrl.policies.neural.load`` and
``climbrl.policies.load`` of a path. (Regression: torch's RuntimeError / EOFError / UnpicklingError,
a JSONDecodeError with no file name, onnxruntime's InvalidProtobuf.)"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import torch

from climbrl import policies
from climbrl.policies import neural
from climbrl.training import checkpoint
from climbrl.training.checkpoint import CheckpointError
from climbrl.training.config import make_args
from climbrl.training.dmc import train
from climbrl.training.export import export

from trainer_helpers import small_args

RANDOM_BYTES = bytes(range(256)) * 8


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("damaged")
    run = train(small_args(tmp, total_frames=64))
    cpu = export(run["run_dir"], tmp / "cpus" / "good")
    return tmp, run["run_dir"], cpu


def _damage(good: bytes, kind: str, path) -> None:
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif kind == "random":
        path.write_bytes(RANDOM_BYTES)
    elif kind == "foreign":  # a torch file, but not ours
        torch.save([1, 2, 3], path)
    elif kind == "no_format":
        torch.save({"models": {}}, path)
    elif kind == "incomplete":  # ours, but keys missing
        torch.save({"format": checkpoint.FORMAT, "spec": {}}, path)


KINDS = ["empty", "truncated", "random", "foreign", "no_format", "incomplete"]


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_checkpoint_names_the_file(trained, tmp_path, kind):
    _, run_dir, _ = trained
    folder = tmp_path / "run"
    folder.mkdir()
    path = folder / checkpoint.FILENAME
    _damage((Path(run_dir) / checkpoint.FILENAME).read_bytes(), kind, path)
    for read in (
        lambda: checkpoint.load(folder),
        lambda: train(make_args(None, {"resume": str(folder)})),
        lambda: export(folder, tmp_path / "out"),
        lambda: neural.load(folder, "daifugo"),
        lambda: neural.load(path, "daifugo"),
        lambda: policies.load("daifugo", str(path)),
    ):
        with pytest.raises(CheckpointError, match=re.escape(str(path))) as err:
            read()
        assert isinstance(err.value, ValueError) and "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()


def test_evaluation_snapshot_is_not_resumable(trained, tmp_path):
    _, run_dir, _ = trained
    data = checkpoint.load(run_dir)
    path = tmp_path / "eval.pt"
    checkpoint.save(path, {k: data[k] for k in checkpoint.REQUIRED})
    checkpoint.load(path)  # fine to play or export
    with pytest.raises(CheckpointError, match="not a resumable checkpoint: no args"):
        train(make_args(None, {"resume": str(path)}))


@pytest.mark.parametrize("kind", ["empty", "truncated", "random"])
def test_damaged_cpu_json_names_the_file(trained, tmp_path, kind):
    _, _, cpu = trained
    copy = shutil.copytree(cpu, tmp_path / "cpu")
    meta = copy / neural.META_FILE
    _damage(meta.read_bytes(), kind, meta)
    with pytest.raises(CheckpointError,
                       match=re.escape(str(meta)) + ".* (is not valid JSON|is not a text)"):
        neural.load(copy, "daifugo")
    with pytest.raises(CheckpointError, match=re.escape(str(meta))):
        policies.load("daifugo", str(copy))


def test_incomplete_cpu_json_names_what_is_missing(trained, tmp_path):
    _, _, cpu = trained
    copy = shutil.copytree(cpu, tmp_path / "cpu")
    meta = copy / neural.META_FILE
    meta.write_text(meta.read_text().replace('"models"', '"modelz"'))
    with pytest.raises(CheckpointError, match="is incomplete: no models"):
        neural.load(copy, "daifugo")


@pytest.mark.parametrize("kind", ["empty", "truncated", "random", "missing"])
def test_damaged_onnx_names_the_file(trained, tmp_path, kind):
    _, _, cpu = trained
    copy = shutil.copytree(cpu, tmp_path / "cpu")
    model = copy / "seat.onnx"
    if kind == "missing":
        model.unlink()
        match = re.escape(f"{model}' is missing")
    else:
        _damage(model.read_bytes(), kind, model)
        match = re.escape(f"{model}' is damaged or not an ONNX model")
    with pytest.raises(CheckpointError, match=match) as err:
        neural.load(copy, "daifugo")
    assert "\n" not in str(err.value)
