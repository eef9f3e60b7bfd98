"""Files pickled by climbrl 0.1 (top-level ``envs``, ``policies``, ``training``) still load:
a checkpoint or saved game of an older run folder resumes after the move to ``climbrl.*``."""

from __future__ import annotations

import io
import pickle
import zipfile

import pytest

from climbrl.envs.daifugo import Rules
from climbrl.training import checkpoint, renamed


@pytest.mark.parametrize("old, new", [
    ("envs.daifugo.engine", "climbrl.envs.daifugo.engine"),
    ("policies.spec", "climbrl.policies.spec"),
    ("training.table.rooms", "climbrl.play.server.rooms"),
    ("training.play", "climbrl.play.terminal"),
    ("training.tables", "climbrl.training.tables"),  # not training.table's
    ("numpy.core.multiarray", "numpy.core.multiarray"),
    ("climbrl.envs.daifugo.rules", "climbrl.envs.daifugo.rules"),
    ("envsx.thing", "envsx.thing"),
])
def test_module_names_of_0_1_map_to_the_current_ones(old, new):
    assert renamed.current_module(old) == new


def _as_0_1(data: bytes) -> bytes:
    """A protocol-0 pickle as climbrl 0.1 wrote it: its modules without ``climbrl.``"""
    return data.replace(b"cclimbrl.", b"c")  # the GLOBAL opcode, then the module


def test_rules_pickled_under_the_old_names_load():
    rules = Rules.preset("president", 6)
    old = _as_0_1(pickle.dumps(rules, protocol=0))
    assert b"cclimbrl." not in old and b"envs.daifugo.rules" in old
    assert renamed.Unpickler(io.BytesIO(old)).load() == rules


def test_a_checkpoint_saved_under_the_old_names_loads(tmp_path):
    # regression: every checkpoint of a 0.1 run folder failed with "No module named 'envs'"
    import torch

    rules = Rules.preset("daifugo", 4)
    payload = {"format": checkpoint.FORMAT, "spec": {"rules": rules}, "network": {},
               "roles": [], "models": {}, "counters": {}}
    path = tmp_path / "checkpoint.pt"
    torch.save(payload, path, pickle_protocol=0)
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    (pkl,) = [name for name in entries if name.endswith("data.pkl")]
    entries[pkl] = _as_0_1(entries[pkl])
    assert b"envs.daifugo.rules" in entries[pkl] and b"cclimbrl." not in entries[pkl]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    assert checkpoint.load(path)["spec"]["rules"] == rules
