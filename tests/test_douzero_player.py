"""The DouZero adapter (``climbrl.benchmarks.douzero_player``, the player spec ``douzero:<folder>``):
the InfoSet it builds from a seat's view gives DouZero's own legal moves and observation, a
DouZero checkpoint plays whole games, and its wall-time driver (``climbrl.benchmarks.douzero_dmc``)
stops, saves and resumes. Everything but the one-line errors is skipped without DouZero."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from climbrl import policies
from climbrl.benchmarks import crosscheck
from climbrl.benchmarks.peers import PASS, douzero_cards, from_douzero
from climbrl.envs.core.aec import turns
from climbrl.envs.doudizhu.cards import format_cards, parse
from climbrl.training import evaluate
from climbrl.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = ("landlord", "landlord_down", "landlord_up")


def needs_douzero():
    pytest.importorskip("douzero.env.env", reason="DouZero not installed (pip install douzero)")
    pytest.importorskip("torch")


def fixed_deal(env, rng: np.random.Generator, landlord: int) -> dict:
    """Reset options of a random deal with ``landlord`` holding 20 cards (kitty included)."""
    raw = env.unwrapped
    (code,) = evaluate.deal_codes(raw.game, int(rng.integers(1 << 30)), [0])
    options = evaluate.duel_options(raw.game, code)  # landlord at seat 0
    hands = options["hands"]
    return {**options, "hands": [hands[(s - landlord) % 3] for s in range(3)],
            "landlord": landlord, "first_bidder": landlord}


def cards(text: str | None) -> int | None:
    return None if text is None else parse(text)


def our_moves(env, obs) -> set[int]:
    cat = env.unwrapped.game.catalog
    return {PASS if a == cat.PASS else cat.cards[a] for a in np.flatnonzero(obs["action_mask"])}


def test_douzero_lists_our_legal_moves_for_random_fixed_landlord_positions():
    """At every decision of random games (every seat as landlord), DouZero's own generator on
    the InfoSet built from the view lists our legal moves, but for the rule differences known
    from the cross-check (both jokers as single kickers; a pile read one way only)."""
    needs_douzero()
    from climbrl.benchmarks.douzero_player import douzero_legal_moves, infoset_from_view

    env = evaluate.make_env("doudizhu", 3, None, {})
    rng = np.random.default_rng(7)
    pick = random.Random(7)
    positions = differing = 0
    for game in range(24):
        env.reset(seed=game, options=fixed_deal(env, rng, landlord=game % 3))
        for _agent, obs, seat in turns(env):
            view = env.unwrapped.view(seat)
            info = infoset_from_view(view)
            assert info.player_position == POSITIONS[(seat - view["landlord"]) % 3]
            theirs = {from_douzero(m) for m in douzero_legal_moves(info)}
            ours = our_moves(env, obs)
            positions += 1
            for play in ours ^ theirs:
                differing += 1
                klass = crosscheck.classify("douzero", play, parse(view["hand"]),
                                            cards(view["pile"]), ours_allows=play in ours)
                assert klass.startswith("rule:"), (view["hand"], view["pile"], klass)
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[pick.randrange(len(legal))]))
    assert positions > 24 * 20
    assert differing < positions  # known differences are rare, not the rule


class _Plays:
    """A DouZero GameEnv agent that plays the move it is given."""

    move: list[int] = []

    def act(self, infoset):
        return list(self.move)


def test_infoset_from_the_view_is_douzeros_own_observation():
    """The same random games in DouZero's GameEnv and ours: at every decision, DouZero's
    observation of its own InfoSet (features and move history) equals that of the InfoSet
    built from our view alone."""
    needs_douzero()
    from douzero.env.env import get_obs
    from douzero.env.game import GameEnv

    from climbrl.benchmarks.douzero_player import douzero_move, infoset_from_view

    env = evaluate.make_env("doudizhu", 3, None, {})
    cat = env.unwrapped.game.catalog
    rng = np.random.default_rng(11)
    pick = random.Random(11)
    bombs = compared = 0
    for game in range(16):
        landlord = game % 3
        options = fixed_deal(env, rng, landlord)
        env.reset(seed=game, options=options)
        agents = {p: _Plays() for p in POSITIONS}
        native = GameEnv(agents)
        hands = {POSITIONS[(s - landlord) % 3]: douzero_cards(parse(options["hands"][s]))
                 for s in range(3)}
        native.card_play_init({**hands, "three_landlord_cards": douzero_cards(
            parse(options["kitty"]))})
        for _agent, obs, seat in turns(env):
            theirs = native.game_infoset
            mine = infoset_from_view(env.unwrapped.view(seat))
            assert mine.player_position == theirs.player_position
            assert sorted(mine.player_hand_cards) == sorted(theirs.player_hand_cards)
            assert sorted(mine.other_hand_cards) == sorted(theirs.other_hand_cards)
            assert sorted(mine.three_landlord_cards) == sorted(theirs.three_landlord_cards)
            for key in ("num_cards_left_dict", "last_move", "last_two_moves", "last_move_dict",
                        "card_play_action_seq", "bomb_num", "last_pid"):
                assert getattr(mine, key) == getattr(theirs, key), key
            assert {p: Counter(c) for p, c in mine.played_cards.items()} == {
                p: Counter(c) for p, c in theirs.played_cards.items()}
            mine.legal_actions = theirs.legal_actions
            a, b = get_obs(mine), get_obs(theirs)
            for key in ("x_no_action", "z", "x_batch", "z_batch"):
                assert np.array_equal(a[key], b[key]), key
            compared += 1
            # a move legal in both games (bombs now and then, so bomb_num moves)
            theirs_texts = {"pass" if not m else format_cards(from_douzero(m))
                            for m in theirs.legal_actions}
            both = sorted(t for t in (cat.action_to_str(int(x))
                                      for x in np.flatnonzero(obs["action_mask"]))
                          if t in theirs_texts)
            bomb = [t for t in both if (len(t) == 4 and len(set(t)) == 1) or t == "BR"]
            text = bomb[0] if bomb and pick.random() < 0.5 else both[pick.randrange(len(both))]
            bombs += text in bomb
            agents[theirs.player_position].move = douzero_move(text)
            native.step()
            env.step(cat.action_from_str(text))
    assert compared > 16 * 20 and bombs > 0


def write_random_weights(folder: Path, frames: int = 0) -> Path:
    """DouZero's untrained networks, saved as its trainer saves them."""
    import torch
    from douzero.dmc.models import model_dict

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    for position in POSITIONS:
        torch.save(model_dict[position]().state_dict(),
                   folder / f"{position}_weights_{frames}.ckpt")
    return folder


def test_a_douzero_checkpoint_plays_whole_fixed_landlord_games(tmp_path):
    needs_douzero()
    folder = write_random_weights(tmp_path / "dz")
    spec = f"douzero:{folder}"
    config = evaluate.EvalConfig(game="doudizhu", lineups=((spec, "random", "random"),),
                                 deals=3, workers=1, progress=False, landlord="fixed")
    evaluate.check(config)
    records = evaluate.run(config)
    assert len(records) == 6  # each deal as landlord and as both peasants
    assert all(any(r["returns"]) for r in records)  # every game ended with a winner
    report = evaluate.summarize(config, records)
    assert report.players[spec]["landlord"]["deals"] == 3


def test_a_bidding_decision_is_refused_naming_the_fixed_landlord_mode(tmp_path):
    needs_douzero()
    player = policies.load("doudizhu", f"douzero:{write_random_weights(tmp_path / 'dz')}")
    env = evaluate.make_env("doudizhu", 3, None, {})
    env.reset(seed=0)
    _agent, obs, seat = next(turns(env))
    player.bind(env.unwrapped.game)
    with pytest.raises(ValueError, match="--landlord fixed"):
        player.act(obs, env.unwrapped.view(seat))


def test_douzero_weights_missing_a_position_are_one_error(tmp_path):
    needs_douzero()
    folder = write_random_weights(tmp_path / "dz")
    (folder / "landlord_up_weights_0.ckpt").unlink()
    with pytest.raises(ValueError, match="no weights for landlord_up"):
        policies.load("doudizhu", f"douzero:{folder}")


def test_douzero_trained_on_in_its_folder_is_another_player(tmp_path):
    # a `douzero:<folder>` tournament was resumed after DouZero had trained on in that folder:
    # the player had no fingerprint, so the new weights' tournament was the old one's.
    # Fake weight files: the fingerprint reads bytes, not networks (no DouZero needed)
    from climbrl.benchmarks.douzero_player import weight_files, weights_fingerprint

    folder = tmp_path / "dz"
    folder.mkdir()
    for position in POSITIONS:
        (folder / f"{position}_weights_100.ckpt").write_bytes(position.encode())
    before = weights_fingerprint(weight_files(folder))
    assert weights_fingerprint(weight_files(folder)) == before
    (folder / "landlord_weights_200.ckpt").write_bytes(b"trained on")  # the newest is played
    trained = weights_fingerprint(weight_files(folder))
    assert trained != before
    (folder / "landlord_weights_50.ckpt").write_bytes(b"older")  # an older file changes nothing
    assert weights_fingerprint(weight_files(folder)) == trained
    (folder / "landlord.ckpt").write_bytes(b"released")  # a released model is read first
    assert weights_fingerprint(weight_files(folder)) != trained


def test_without_douzero_the_spec_is_one_line(capsys, monkeypatch, tmp_path):
    for module in ("douzero", "douzero.env", "douzero.env.env"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ValueError, match="pip install douzero"):
        policies.load("doudizhu", f"douzero:{tmp_path}")
    with pytest.raises(ValueError, match="Dou Dizhu player"):
        policies.load("daifugo", f"douzero:{tmp_path}")
    argv = ["eval", "--game", "doudizhu", "--landlord", "fixed", "--players",
            f"douzero:{tmp_path},random,random", "--deals", "1", "--workers", "1",
            "--out", str(tmp_path / "x")]
    assert cli(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs DouZero" in err[0], err


def test_the_wall_time_driver_stops_saves_and_resumes(tmp_path):
    """climbrl.benchmarks.douzero_dmc: a leg ends at its budget with DouZero's checkpoint and the
    seconds it holds; a second leg resumes it (more seconds, at least as many frames) and
    only the newest weights stay."""
    needs_douzero()
    pytest.importorskip("douzero.dmc", reason="DouZero's DMC (with GitPython) not installed")
    from climbrl.benchmarks.douzero_player import weight_files

    run = tmp_path / "dz" / "dmc"
    cmd = [sys.executable, "-m", "climbrl.benchmarks.douzero_dmc", "--minutes", "0.2", "--savedir",
           str(run.parent), "--xpid", "dmc", "--batch_size", "1", "--unroll_length", "10"]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, timeout=300)
    first = json.loads((run / "elapsed.json").read_text())
    assert first["elapsed"] >= 0.2 * 60
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, timeout=300)
    second = json.loads((run / "elapsed.json").read_text())
    assert second["elapsed"] >= first["elapsed"] + 0.2 * 60
    # (how many frames a few seconds train depends on the machine's load: maybe none)
    assert second["frames"] >= first["frames"]
    import torch

    saved = torch.load(run / "model.tar", map_location="cpu", weights_only=False)
    assert saved["frames"] == second["frames"] == sum(saved["position_frames"].values())
    assert "Resuming preempted job" in out.stdout + out.stderr
    weights = weight_files(run)
    assert {p.name for p in weights.values()} == {
        f"{p}_weights_{second['frames']}.ckpt" for p in POSITIONS}
    assert len(list(run.glob("*_weights_*.ckpt"))) == 3
    policies.load("doudizhu", f"douzero:{run}")  # the weights load as a player
