"""CPU levels that are trained networks: knobs after a CPU path (``cpus/daifugo:temperature=0.2``)
and a level listing players in order (``[cpus/doudizhu, scripted-easy]``), the first that can
play the table seated (a Dou Dizhu network reads the classic game only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from climbrl import policies
from climbrl.envs import daifugo_v1, doudizhu_v1
from climbrl.envs.doudizhu.engine import DoudizhuGame
from climbrl.policies.fallback import FallbackPlayer
from climbrl.policies.neural import NeuralPlayer
from climbrl.policies.registry import split_path_spec
from climbrl.training.evaluate import play_game

ROOT = Path(__file__).resolve().parent.parent
CPUS = ROOT / "cpus"


def _config(tmp_path, doudizhu_easy: str) -> Path:
    path = tmp_path / "cpus.yaml"
    path.write_text(
        f"daifugo:\n  easy: {CPUS / 'daifugo'}:temperature=0.2\n  medium: scripted-medium\n"
        "  hard: scripted-hard\n"
        f"doudizhu:\n  easy: {doudizhu_easy}\n  medium: scripted-medium\n  hard: scripted-hard\n")
    return path


def test_a_cpu_path_takes_knobs_after_colons():
    cpu = policies.load("daifugo", "cpus/daifugo:temperature=0.25:top_k=3")
    assert isinstance(cpu, NeuralPlayer) and (cpu.temperature, cpu.top_k) == (0.25, 3)
    # the knobs are part of its name: two seats of one CPU with other knobs stay apart
    assert cpu.name == "cpus/daifugo:temperature=0.25:top_k=3"
    assert policies.load("daifugo", "cpus/daifugo", temperature=0.5).temperature == 0.5
    with pytest.raises(ValueError, match="temperature must be >= 0"):
        policies.load("daifugo", "cpus/daifugo:temperature=-1")
    # an unknown knob names the CPU and the knobs it takes, as the scripted players do
    with pytest.raises(ValueError, match=r"unknown knob\(s\) \['bogus'\] for '.*cpus/daifugo'; "
                                         r"knobs are \['temperature', 'top_k'\]"):
        policies.load("daifugo", "cpus/daifugo:bogus=1")


@given(st.lists(st.from_regex(r"[A-Za-z0-9_.\-]{1,8}", fullmatch=True), min_size=1,
                max_size=4),
       st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True),
                       st.integers(0, 99), max_size=3))
def test_split_path_spec_keeps_the_path_and_reads_the_knobs(parts, knobs):
    path = "/".join(["runs", *parts])
    text = ":".join([path, *(f"{k}={v}" for k, v in knobs.items())])
    assert split_path_spec(text) == (path, knobs)


def test_split_path_spec_leaves_other_colons_in_the_path(tmp_path):
    assert split_path_spec("C:/runs/x") == ("C:/runs/x", {})
    assert split_path_spec("runs/a:b/c:top_k=2") == ("runs/a:b/c", {"top_k": 2})
    odd = tmp_path / "x:top_k=2"  # an existing file is its whole name
    odd.write_text("")
    assert split_path_spec(str(odd)) == (str(odd), {})


def test_a_level_can_be_a_trained_cpu_with_knobs(tmp_path):
    easy = policies.load("daifugo", "easy", config=_config(tmp_path, "scripted-easy"), seed=3)
    assert isinstance(easy, NeuralPlayer) and easy.name == "easy" and easy.temperature == 0.2
    env = daifugo_v1.env(players=3, rounds=3)
    env.reset(seed=1)
    lineup = [easy.bind(env.unwrapped.game),
              *(policies.load("daifugo", "random", seed=s) for s in (1, 2))]
    play_game(env, lineup, env.unwrapped.deal_code)  # raises on an illegal move


def test_a_level_list_seats_the_first_player_that_plays_the_table(tmp_path):
    config = _config(tmp_path, f"['{CPUS / 'doudizhu'}', scripted-easy]")
    easy = policies.load("doudizhu", "easy", config=config, seed=0)
    assert isinstance(easy, FallbackPlayer) and easy.name == "easy"
    classic = doudizhu_v1.env()
    easy.bind(classic.unwrapped.game)
    assert isinstance(easy.active, NeuralPlayer) and easy.refusals == []
    # laizi: the network refuses (it names the switch), the scripted player takes the seat
    laizi = doudizhu_v1.env(laizi=True)
    easy.bind(laizi.unwrapped.game)
    assert easy.active.name == "easy (scripted-easy)"
    assert len(easy.refusals) == 1 and "laizi" in easy.refusals[0]
    for env in (classic, laizi):
        easy.bind(env.unwrapped.game)
        env.reset(seed=4)
        play_game(env, [easy, policies.load("doudizhu", "random", seed=1),
                        policies.load("doudizhu", "random", seed=2)], env.unwrapped.deal_code)


def test_a_level_list_replays_with_its_seed(tmp_path):
    config = _config(tmp_path, f"['{CPUS / 'doudizhu'}:temperature=0.5', scripted-easy]")
    game = DoudizhuGame()
    moves = []
    for _ in range(2):
        easy = policies.load("doudizhu", "easy", config=config, seed=0).bind(game)
        easy.seed(7)
        state = game.new_state(np.random.default_rng(5))
        seat = state.current_player
        mask = np.zeros(game.num_actions, np.int8)
        mask[state.legal_actions()] = 1
        obs = {"observation": game.observe(state, seat), "action_mask": mask}
        moves.append([easy.act(obs, state.view(seat)) for _ in range(20)])
    assert moves[0] == moves[1]


def test_a_level_list_no_player_of_which_plays_the_table_says_why(tmp_path):
    config = _config(tmp_path, f"['{CPUS / 'doudizhu'}']")
    easy = policies.load("doudizhu", "easy", config=config)
    with pytest.raises(ValueError, match=r"(?s)no player of level 'easy'.*laizi"):
        easy.bind(doudizhu_v1.env(laizi=True).unwrapped.game)
    with pytest.raises(ValueError, match="is not bound"):
        easy.act({}, {})
    for bad in ("[]", "['']", "[3]"):
        with pytest.raises(ValueError, match="must list player specs"):
            policies.load("doudizhu", "easy", config=_config(tmp_path, bad))


def _first_moves(player, game, count: int = 12) -> list[int]:
    state = game.new_state(np.random.default_rng(5))
    seat = state.current_player
    mask = np.zeros(game.num_actions, np.int8)
    mask[state.legal_actions()] = 1
    obs = {"observation": game.observe(state, seat), "action_mask": mask}
    return [player.act(obs, state.view(seat)) for _ in range(count)]


def test_players_loaded_with_one_shared_dict_share_the_networks_not_the_dice():
    """Regression: a table server kept one copy of a CPU's networks per seated player (28 MB
    each for Dou Dizhu's), so its memory grew with the rooms."""
    game = DoudizhuGame()
    shared: dict = {}
    seats = [policies.load("doudizhu", "cpus/doudizhu:temperature=0.5", seed=s, shared=shared)
             for s in (1, 2, 1)]
    assert len(shared) == 1 and all(p.networks is seats[0].networks for p in seats)
    for p in seats:
        p.bind(game)
    assert seats[1].scorers is seats[0].scorers  # built once for this action table
    alone = policies.load("doudizhu", "cpus/doudizhu:temperature=0.5", seed=1).bind(game)
    assert alone.networks is not seats[0].networks
    # each its own random stream: the same seed plays the same moves, shared or not
    assert _first_moves(seats[0], game) == _first_moves(seats[2], game) == _first_moves(alone, game)
    assert _first_moves(seats[0], game) != _first_moves(seats[1], game)
    # levels and searching CPUs share them too
    level = policies.load("doudizhu", "easy", seed=3, shared=shared)
    assert level.players[0].networks is seats[0].networks
    search = policies.load("daifugo", "search:cpus/daifugo", shared=shared)
    assert search.network.networks is policies.load("daifugo", "cpus/daifugo", shared=shared).networks
    assert len(shared) == 2


def test_a_cpu_file_written_again_is_loaded_again(tmp_path):
    cpu = tmp_path / "cpu"
    cpu.mkdir()
    for file in (CPUS / "daifugo").iterdir():
        (cpu / file.name).write_bytes(file.read_bytes())
    shared: dict = {}
    first = policies.load("daifugo", str(cpu), shared=shared)
    assert policies.load("daifugo", str(cpu), shared=shared).networks is first.networks
    meta = cpu / "cpu.json"
    meta.write_text(meta.read_text() + "\n")  # a new export in its place
    assert policies.load("daifugo", str(cpu), shared=shared).networks is not first.networks


def test_the_table_workers_load_each_cpu_once():
    from climbrl.play.server import cpu

    cpu._networks.clear()
    players = [cpu._load("doudizhu", "easy", np.random.SeedSequence([room, seat]))
               for room in range(3) for seat in (1, 2)]
    assert len(cpu._networks) == 1
    assert len({id(p.players[0].networks) for p in players}) == 1
