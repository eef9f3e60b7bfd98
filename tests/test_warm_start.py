"""``init_from``: a new run starts from the weights of a checkpoint or an exported CPU, read
back exactly from the ONNX models (the LSTM's gates reordered), and anything that does not fit
the run is refused in one line naming what differs."""

from __future__ import annotations

import shutil

import pytest
import torch

from climbrl import policies
from climbrl.policies.network import NetConfig, build_network
from climbrl.policies.spec import CheckpointError, game_from_spec, roles
from climbrl.training import checkpoint
from climbrl.training.config import make_args
from climbrl.training.dmc import train
from climbrl.training.export import export
from climbrl.training.warm_start import load_into, read_weights

from trainer_helpers import one_error_line, small_args


@pytest.fixture(scope="module", params=["daifugo", "doudizhu"])
def trained(request, tmp_path_factory):
    """A tiny run of the game and its export."""
    tmp = tmp_path_factory.mktemp(f"warm-{request.param}")
    run = train(small_args(tmp, game=request.param, total_frames=64 * 3))
    return run["run_dir"], export(run["run_dir"], tmp / "cpus" / request.param)


def test_an_exported_cpu_reads_back_to_its_checkpoints_weights(trained):
    run_dir, exported = trained
    saved = checkpoint.load(run_dir)
    back = read_weights(exported)
    assert back["spec"] == saved["spec"] and back["roles"] == saved["roles"]
    assert back["network"] == saved["network"]
    for role in saved["roles"]:
        ours, theirs = back["models"][role], saved["models"][role]
        assert sorted(ours) == sorted(theirs)
        for key in theirs:  # the LSTM's gate blocks included: a wrong order fails here
            assert torch.equal(ours[key], theirs[key]), (role, key)


def test_a_new_run_starts_from_the_weights_given(trained, tmp_path):
    run_dir, exported = trained
    saved = checkpoint.load(run_dir)
    game = game_from_spec(saved["spec"])
    cfg = NetConfig.from_dict(saved["network"])
    for source in (run_dir, exported):
        nets = [build_network(game, cfg) for _ in roles(game)]
        load_into(nets, roles(game), cfg, game, source)
        for role, net in zip(roles(game), nets):
            for key, value in net.state_dict().items():
                assert torch.equal(value, saved["models"][role][key]), (source, role, key)
    # and the trainer takes it: a short run from the export
    warm = train(small_args(tmp_path, game=saved["spec"]["game"], run_name="warm",
                            init_from=str(exported), total_frames=64))
    assert warm["frames"] >= 64


def test_an_export_of_a_warm_started_run_names_every_sitting_behind_it(trained, tmp_path):
    """Regression: an exported CPU's record held only its last sitting, so a CPU warm-started
    from another said nothing of the run it started from."""
    run_dir, exported = trained
    game = checkpoint.load(run_dir)["spec"]["game"]
    first = policies.neural.read_meta(exported)["trained"]
    second = train(small_args(tmp_path, game=game, run_name="second", init_from=str(exported),
                              total_frames=64))
    # a resumed sitting keeps the record of where the run started
    second = train(make_args(None, {"resume": second["run_dir"], "total_frames": 128}))
    second_cpu = export(second["run_dir"], tmp_path / "cpus" / "second")
    third = train(small_args(tmp_path, game=game, run_name="third", init_from=str(second_cpu),
                             total_frames=64))
    record = policies.neural.read_meta(export(third["run_dir"], tmp_path / "third"))["trained"]
    assert record["run"] == "third" and record["frames"] >= 64
    middle = record["started_from"]
    assert middle["init_from"] == str(second_cpu) and middle["run"] == "second"
    assert middle["frames"] >= 128
    assert middle["started_from"] == {"init_from": str(exported), **first}
    assert "started_from" not in first  # a run from scratch names none
    # a checkpoint given as init_from is read the same way
    fourth = train(small_args(tmp_path, game=game, run_name="fourth",
                              init_from=str(third["run_dir"]), total_frames=64))
    saved = checkpoint.load(fourth["run_dir"])["started_from"]
    assert saved["run"] == "third" and saved["started_from"]["run"] == "second"


def test_the_shipped_cpus_read_back(tmp_path):
    for name in ("cpus/daifugo", "cpus/president", "cpus/doudizhu"):  # the q check passes
        weights = read_weights(name)
        assert set(weights["models"]) == set(weights["roles"])


def test_weights_that_do_not_fit_the_run_are_refused_naming_why(trained, tmp_path):
    run_dir, exported = trained
    game = checkpoint.load(run_dir)["spec"]["game"]
    other = "doudizhu" if game == "daifugo" else "daifugo"
    with pytest.raises(ValueError, match=f"trained on '{game}', not '{other}'"):
        train(small_args(tmp_path, game=other, init_from=str(exported), total_frames=64))
    with pytest.raises(ValueError, match="lstm_hidden: 16 there, 24 here"):
        train(small_args(tmp_path, game=game, lstm_hidden=24, init_from=str(exported),
                         total_frames=64))
    assert not (tmp_path / "runs" / "test").exists()  # refused before the run folder


def test_a_damaged_model_is_refused_naming_the_file(trained, tmp_path):
    _run_dir, exported = trained
    broken = tmp_path / "broken"
    broken.mkdir()
    for file in exported.iterdir():
        (broken / file.name).write_bytes(file.read_bytes())
    onnx_file = next(broken.glob("*.onnx"))
    onnx_file.write_bytes(onnx_file.read_bytes()[:200])
    with pytest.raises(CheckpointError, match=onnx_file.name):
        read_weights(broken)


def test_a_bad_init_from_on_the_command_line_is_one_line(capsys, tmp_path):
    from climbrl.cli import main as cli

    assert cli(["train", "--config", "daifugo4", "--init-from", str(tmp_path / "nothing"),
                "--runs-dir", str(tmp_path), "--minutes", "0.01"]) == 2
    assert one_error_line(capsys).startswith(
        f"climbrl: error: init_from '{tmp_path / 'nothing'}': no checkpoint")


def test_weights_of_another_shape_are_refused_naming_file_and_role(trained, tmp_path):
    """A checkpoint whose recorded network settings do not match one role's tensors (a file
    edited or written by another version) is refused the same way by every reader of it: the
    resume, the export, the player and the warm start each name the file and the role."""
    run_dir, _exported = trained
    saved = checkpoint.load(run_dir)
    role = saved["roles"][-1]
    key = next(iter(saved["models"][role]))
    saved["models"][role][key] = saved["models"][role][key][..., :1].clone()
    bad_run = tmp_path / "runs" / "bad"
    shutil.copytree(run_dir, bad_run, ignore=shutil.ignore_patterns(".lock"))
    game = saved["spec"]["game"]
    bad = checkpoint.save(checkpoint.checkpoint_path(bad_run),
                          {k: v for k, v in saved.items() if k != "format"})
    more = saved["counters"]["frames"] + 64
    fits = f"the weights of role '{role}' do not fit the network it records"
    readers = {
        "resume": lambda: train(make_args(None, {"resume": str(bad_run), "total_frames": more})),
        "export": lambda: export(bad_run, tmp_path / "out"),
        "player": lambda: policies.load(game, str(bad)).bind(game_from_spec(saved["spec"])),
        "init_from": lambda: train(small_args(tmp_path, game=game, run_name="warm",
                                              init_from=str(bad), total_frames=64)),
    }
    for name, read in readers.items():
        with pytest.raises(ValueError, match=fits) as caught:  # the CLI's one line for init_from
            read()
        assert f"size mismatch for {key}" in str(caught.value), name
        assert str(bad) in str(caught.value) or str(bad_run) in str(caught.value), name
        assert "\n" not in str(caught.value), name
