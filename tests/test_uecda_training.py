"""UECda (the championship's 5-seat table) as a registered game: the trainer's config, a tiny
run exported as a CPU that plays the table, the CPU levels (the shipped network), and the commands
that take ``--game``."""

from __future__ import annotations

import json

import pytest

from climbrl import envs, policies
from climbrl.cli import main as cli
from climbrl.envs.daifugo.rules import UECDA_PLAYERS, UECDA_ROUNDS
from climbrl.policies import neural
from climbrl.policies.daifugo import HardPlayer
from climbrl.policies.search import NetworkSearch
from climbrl.training.config import make_args

from trainer_helpers import one_error_line, small_args

#: a few hundred decisions of the tiny network
TINY_FRAMES = 64 * 5


def test_uecda_is_a_registered_five_seat_game_on_the_daifugo_engine():
    entry = envs.game_entry("uecda")
    assert entry.table_sizes == (UECDA_PLAYERS,) and entry.default_players == UECDA_PLAYERS
    assert entry.bots == envs.GAMES["daifugo"].bots
    assert entry.match_rounds == envs.UECDA_MATCH_ROUNDS < UECDA_ROUNDS
    game = entry.make()
    assert (game.name, game.num_players, game.num_actions) == ("uecda", 5, 2651)


def test_the_uecda_config_plays_five_round_episodes_against_scripted_medium():
    args = make_args("uecda")
    assert (args.game, args.players, args.eval_opponent) == ("uecda", 5, "scripted-medium")
    assert args.game_kwargs()["rules"]["rounds"] == envs.UECDA_MATCH_ROUNDS


def test_a_uecda_run_naming_no_rounds_plays_the_games_match_rounds(tmp_path):
    # regression: a run of --game uecda played the env's class block of 100 rounds an episode
    args = small_args(tmp_path, game="uecda", players=5)
    assert args.game_kwargs()["rules"] == {"rounds": envs.UECDA_MATCH_ROUNDS}
    assert small_args(tmp_path, game="uecda", rules={"rounds": 2}).game_kwargs()["rules"] == {
        "rounds": 2}


def test_a_tiny_uecda_run_exports_a_cpu_that_plays_the_table(tmp_path):
    from climbrl.training.dmc import train
    from climbrl.training.export import export

    run = train(small_args(tmp_path, game="uecda", players=5, total_frames=TINY_FRAMES,
                           opponents={"scripted-medium": 0.5}, learn_opponents=True))
    out = export(run["run_dir"], tmp_path / "cpu")
    cpu = policies.load("uecda", str(out))
    assert cpu.meta["spec"]["game"] == "uecda"
    assert cpu.meta["trained"]["frames"] >= TINY_FRAMES
    lineup = ",".join([str(out)] + ["scripted-easy"] * (UECDA_PLAYERS - 1))
    assert cli(["eval", "--game", "uecda", "--players", lineup, "--deals", "1", "--workers", "1",
                "--rounds", "1", "--no-progress", "--out", str(tmp_path / "eval")]) == 0
    summary = json.loads((tmp_path / "eval" / "summary.json").read_text())
    assert str(out) in summary["players"]


def test_uecda_levels_are_the_shipped_network_searching_as_daifugos_hard():
    levels = policies.cpu_levels("uecda")
    assert levels["easy"] == "../cpus/uecda:temperature=0.2"
    assert levels["medium"] == "../cpus/uecda"
    # the hard level searches with Daifugo's hard knobs (configs/cpus.yaml)
    assert levels["hard"].replace("uecda", "daifugo") == policies.cpu_levels("daifugo")["hard"]
    medium = policies.load("uecda", "medium")
    assert medium.meta["spec"]["game"] == "uecda" and medium.name == "medium"
    assert isinstance(policies.load("uecda", "easy"), type(medium))
    hard = policies.load("uecda", "hard")
    assert isinstance(hard, NetworkSearch) and isinstance(hard.searcher, HardPlayer)


def test_a_uecda_run_at_another_table_size_is_one_line(capsys, tmp_path):
    assert cli(["train", "--config", "configs/uecda.yaml", "--players", "4", "--runs-dir",
                str(tmp_path / "runs"), "--minutes", "0.01"]) == 2
    line = one_error_line(capsys)
    assert "5 players" in line and "4" in line


def test_play_at_the_uecda_table_asks_for_four_cpus(capsys):
    assert cli(["play", "--game", "uecda", "--cpus", "medium"]) == 2
    assert one_error_line(capsys) == ("climbrl: error: UECda seats 5 players: --cpus lists the "
                                      "4 CPUs besides you (got 1)")


def test_the_table_servers_lobby_does_not_offer_uecda():
    from climbrl.play.server.rooms import RoomError, check_settings

    with pytest.raises(RoomError, match="game must be one of .*got 'uecda'"):
        check_settings({"game": "uecda"})
