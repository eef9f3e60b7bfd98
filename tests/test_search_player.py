"""The searching CPU (``search:<cpu>``, :mod:`climbrl.policies.search`): its spec and knobs, legal moves
in every game, seeded replays, hidden cards, and that it reads only what it is handed.

Each game gets a tiny network trained for a few frames (the player must work with any
network; how strong it plays is measured by ``climbrl eval``, not here)."""

from __future__ import annotations

import copy
import shutil
import time

import numpy as np
import pytest

from climbrl import policies
from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1, uecda_v1
from climbrl.envs.core.aec import turns
from climbrl.policies.montecarlo import paired_pick
from climbrl.policies.search import VALUES, NetworkSearch, split_spec
from climbrl.policies.spec import game_from_spec, role_from_view
from climbrl.training.dmc import train

from play_helpers import live_turns
from test_hidden_information import (DDZ, daifugo_shuffled_deal, ddz_setup, ddz_shuffled_deal,
                                     replay_daifugo, seen_by)
from trainer_helpers import pettingzoo_observation, small_args

#: a search small enough for tests; every knob is set so that every path runs
FAST = "top_k=3:scripted=1:rollouts=8:prior=0.5:switch_z=1.0"
#: the same with playouts cut at the next decision and valued by the network
FAST_LEAF = FAST + ":leaf=true"

TABLES = {
    "daifugo4": ("daifugo", daifugo_v1, {"players": 4, "rules": {"rounds": 3}}),
    "daifugo3-switches": ("daifugo", daifugo_v1,
                          {"players": 3, "rules": {"rounds": 2, "lock": False,
                                                   "illegal_finish": True}}),
    "president4": ("president", president_v1, {"players": 4, "rules": {"rounds": 2}}),
    "president6-two-decks": ("president", president_v1, {"players": 6, "rules": {"rounds": 2}}),
    "doudizhu": ("doudizhu", doudizhu_v1, {}),
    # the championship's table: 5 seats, one joker, the exchange where the top two classes
    # choose their cards (none in the match's first round), the turn order redrawn
    "uecda": ("uecda", uecda_v1, {"players": 5, "rules": {"rounds": 4}}),
}


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    """table name -> the run folder of a network trained on it for 64 frames (made lazily)."""
    made = {}

    def get(table: str) -> str:
        if table not in made:
            game, _module, kwargs = TABLES[table]
            tmp = tmp_path_factory.mktemp(table)
            made[table] = str(train(small_args(tmp, game=game, total_frames=64, **kwargs))["run_dir"])
        return made[table]

    return get


def make_env(table: str):
    _game, module, kwargs = TABLES[table]
    players = {"players": kwargs["players"]} if "players" in kwargs else {}
    return module.env(**kwargs.get("rules", {}), **players)


def searcher(table: str, networks, knobs: str = FAST, seed: int = 0) -> NetworkSearch:
    """The searching CPU of ``table``'s tiny network with ``knobs``."""
    return policies.load(TABLES[table][0], f"search:{networks(table)}:{knobs}", seed=seed)


# -- spec and knobs ---------------------------------------------------------------------------


def test_spec_knobs_and_errors(networks):
    run = networks("daifugo4")
    player = policies.load("daifugo", f"search:{run}:top_k=2:rollouts=30", prior=1.5, seed=0)
    assert isinstance(player, NetworkSearch) and player.name == f"search:{run}:top_k=2:rollouts=30"
    assert (player.top_k, player.rollouts, player.prior, player.scripted) == (2, 30, 1.5, 0)
    assert split_spec(" search:cpus/x:top_k=3 ") == ("cpus/x", ["top_k=3"])
    # a bad knob names the player and lists every knob it takes
    with pytest.raises(ValueError, match=r"unknown knob\(s\) \['candidates'\] for 'search:.*"
                                         r"knobs are \['lead', 'leaf', 'prior', 'rollouts', "
                                         r"'scripted', 'setup', 'switch_z', 'time_ms', "
                                         r"'top_k', 'value'\]"):
        policies.load("daifugo", f"search:{run}:candidates=3")
    for bad, message in [("top_k=0", "top_k must be at least 1"),
                         ("scripted=-1", "scripted must be at least 0"),
                         ("prior=-1", "prior must be >= 0"),
                         ("rollouts=0", "rollouts must be at least 1"),
                         ("time_ms=-5", "time_ms must be >= 0"),
                         ("switch_z=-1", "switch_z must be >= 0"),
                         ("leaf=2", "leaf must be true or false"),
                         ("value=points", "value must be one of network, table, got 'points'"),
                         ("lead=human", "lead must be one of network, scripted, got 'human'"),
                         ("setup=hard", "setup must be one of network, scripted, got 'hard'"),
                         ("top_k", "not key=value")]:
        with pytest.raises(ValueError, match=message):
            policies.load("daifugo", f"search:{run}:{bad}")
    with pytest.raises(TypeError, match="top_k"):
        policies.load("daifugo", f"search:{run}:top_k=2.5")
    with pytest.raises(ValueError, match="names no CPU path"):
        policies.load("daifugo", "search:")
    with pytest.raises(ValueError, match="no-such-cpu"):
        policies.load("daifugo", "search:no-such-cpu")


def test_cpu_config_names_a_searching_cpu_relative_to_its_folder(networks, tmp_path,
                                                                   monkeypatch):
    shutil.copytree(networks("daifugo4"), tmp_path / "mine")
    (tmp_path / "configs").mkdir()
    config = tmp_path / "configs" / "cpus.yaml"
    config.write_text("daifugo:\n  easy: random\n  medium: scripted-medium\n"
                      "  hard: search:../mine:top_k=2\n")
    monkeypatch.chdir(tmp_path / "configs")  # "../mine" from the working folder fails too
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    hard = policies.load("daifugo", "hard", config=config, rollouts=5)
    assert isinstance(hard, NetworkSearch) and hard.name == "hard"
    assert (hard.top_k, hard.rollouts) == (2, 5)
    hard.bind(make_env("daifugo4").unwrapped.game)


def test_a_network_plays_every_table_of_its_game_and_no_other(networks):
    # the v1 observation carries the table: a network of the 4-player table binds to a
    # 3-player table with other rules, and one of another game is refused
    searcher("daifugo4", networks).bind(daifugo_v1.env(players=3, rounds=2).unwrapped.game)
    with pytest.raises(ValueError, match="daifugo"):
        searcher("doudizhu", networks).bind(daifugo_v1.env(players=3, rounds=2).unwrapped.game)


def test_playouts_are_scored_in_the_networks_reward_mode(tmp_path):
    """A network trained on wins searches for wins: at a Dou Dizhu table scored in points
    (stakes: +-2 x bid x multiplier for the landlord) its playouts are worth +-1 (``value=network``,
    the default), the table's stakes with ``value=table``."""
    run = str(train(small_args(tmp_path, game="doudizhu", total_frames=64,
                               reward="win"))["run_dir"])
    env = doudizhu_v1.env()
    raw = env.unwrapped
    assert raw.game.config_dict()["reward"] == "score"
    seen = {}
    for value in VALUES:
        player = policies.load("doudizhu", f"search:{run}:rollouts=12:value={value}", seed=0)
        player.bind(raw.game)
        seen[value] = set()
        for _agent, obs, seat in live_turns(env, [3]):
            view = raw.view(seat)
            moves, _q = player.candidates(obs, view)
            if view["phase"] == "play" and len(moves) > 1:
                for values in player.searcher.playout_values(view, moves):
                    seen[value].update(values)
            env.step(moves[0])
    assert seen["network"] == {-1.0, 1.0}
    assert max(abs(v) for v in seen["table"]) >= 2


def test_the_prior_counts_against_leaving_the_networks_choice():
    values = [[0.0] * 10, [0.5, 0.6] * 5]  # candidate 1 gains 0.55 on every playout pair
    assert paired_pick(values) == 1
    assert paired_pick(values, bonus=[0.0, -0.5]) == 1
    assert paired_pick(values, bonus=[0.0, -0.6]) == 0


# -- legal moves in every game --------------------------------------------------------------


@pytest.mark.parametrize("knobs", [FAST, FAST_LEAF], ids=["playouts", "leaves"])
@pytest.mark.parametrize("table", list(TABLES))
def test_plays_only_legal_moves(table, knobs, networks):
    """Random play reaches positions of every phase (exchanges and bidding included); at half
    of them the searching CPU must choose a legal move; it also plays whole games itself."""
    env = make_env(table)
    raw = env.unwrapped
    player = searcher(table, networks, knobs).bind(raw.game)
    rng = np.random.default_rng(0)
    checked = 0
    for _agent, obs, seat in live_turns(env, range(2)):
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        if rng.random() < 0.5:
            assert obs["action_mask"][player.act(obs, raw.view(seat))] == 1
            checked += 1
        env.step(action)
    assert checked > 20
    env.reset(seed=5)
    for _agent, obs, seat in turns(env):  # every seat the searching CPU
        action = player.act(obs, raw.view(seat))
        assert obs["action_mask"][action] == 1
        env.step(action)


def test_replays_with_its_seed(networks):
    env = make_env("daifugo4")
    raw = env.unwrapped
    player = searcher("daifugo4", networks).bind(raw.game)
    runs = []
    for _ in range(2):
        player.seed(7)
        picks = []
        for _agent, obs, seat in live_turns(env, [3]):
            picks.append(player.act(obs, raw.view(seat)))
            env.step(picks[-1])
        runs.append(picks)
    assert runs[0] == runs[1] and len(runs[0]) > 30


def test_search_changes_moves(networks):
    """Not a network with a search that never acts: with many playouts and no prior the
    search overrules the (barely trained) network's first choice at some decisions."""
    env = make_env("daifugo4")
    raw = env.unwrapped
    player = searcher("daifugo4", networks, "top_k=4:rollouts=80:switch_z=1.0").bind(raw.game)
    changed = searched = 0
    for _agent, obs, seat in live_turns(env, [0]):
        view = raw.view(seat)
        moves, _q = player.candidates(obs, view)
        player.seed(1)
        action = player.act(obs, view)
        if view["phase"] == "play" and len(moves) > 1:
            searched += 1
            changed += action != moves[0]
        env.step(action)
    assert searched > 20 and changed > 0


def test_leaf_search_counts_the_networks_time_in_its_cap(networks, monkeypatch):
    """Regression: with ``leaf=true`` every leaf was scored in one batch after the playouts,
    outside ``time_ms``, so a Dou Dizhu search of 1,000 playouts at ``time_ms=80`` took
    several times its cap. On a clock that moves only while the network scores (50 ms a
    batch), an 80 ms cap now stops after the second determinization."""
    clock = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    env = make_env("daifugo4")
    raw = env.unwrapped
    player = searcher("daifugo4", networks, "top_k=3:rollouts=3000:time_ms=80:leaf=true")
    player.bind(raw.game)
    scores_batch = player.network.scores_batch

    def slow_scores_batch(*args):
        clock[0] += 0.05
        return scores_batch(*args)

    monkeypatch.setattr(player.network, "scores_batch", slow_scores_batch)
    for _agent, obs, seat in live_turns(env, [0]):
        view = raw.view(seat)
        moves, q = player.candidates(obs, view)
        if view["phase"] == "play" and len(moves) > 1:
            values = player.leaf_values(view, moves, q)
            assert {len(v) for v in values} == {2}
            return
        env.step(player.act(obs, view))
    raise AssertionError("no searched decision")


@pytest.mark.parametrize("table", ["daifugo4", "doudizhu", "uecda"])
def test_lead_scripted_puts_the_scripted_choice_first_in_the_play_phase_only(table, networks):
    """``lead=scripted``: in the play phase the scripted ranking's first ``scripted`` moves,
    then the network's ``top_k`` best not among them, with no move twice; outside it (the
    exchange, the bidding) the network's ranking first, as with the default lead."""
    env = make_env(table)
    raw = env.unwrapped
    led = searcher(table, networks, "lead=scripted:scripted=2:top_k=2").bind(raw.game)
    default = searcher(table, networks, "top_k=2").bind(raw.game)
    phases = set()
    for _agent, obs, seat in live_turns(env, [0, 1]):
        view = raw.view(seat)
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        moves, q = led.candidates(obs, view)
        scored, q_all = led.network.scores(obs, view)
        network = [int(scored[i]) for i in np.argsort(-q_all, kind="stable")]
        assert len(set(moves)) == len(moves) == len(q) and set(moves) <= set(legal)
        if view["phase"] == "play" and len(legal) > 1:
            first = led.searcher.ranked(view, legal)[:2]
            assert moves == first + [a for a in network if a not in first][:2]
            phases.add("play")
        elif len(legal) > 1:
            assert moves[:2] == network[:2] == default.candidates(obs, view)[0]
            phases.add(view["phase"])
        env.step(moves[0])
    assert "play" in phases and len(phases) > 1


@pytest.mark.parametrize("table", ["daifugo4", "doudizhu", "uecda"])
def test_setup_scripted_leaves_the_exchange_and_bidding_to_the_scripted_player(table, networks):
    """``setup=scripted``: outside the play phase (Daifugo's exchange of cards, Dou Dizhu's
    bidding) the move is the scripted hard player's; in the play phase the search's, as with
    the default ``setup=network`` (the same seed, the same move)."""
    env = make_env(table)
    raw = env.unwrapped
    knobs = "lead=scripted:scripted=2:top_k=2:rollouts=8"
    scripted = searcher(table, networks, knobs + ":setup=scripted").bind(raw.game)
    network = searcher(table, networks, knobs).bind(raw.game)
    hard = policies.load(TABLES[table][0], "scripted-hard", seed=0).bind(raw.game)
    outside = 0  # decisions outside the play phase
    for _agent, obs, seat in live_turns(env, [0, 1]):
        view = raw.view(seat)
        if np.count_nonzero(obs["action_mask"]) < 2:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            continue
        picks = []
        for player in (scripted, network, hard):
            player.seed(seat)
            picks.append(player.act(obs, copy.deepcopy(view)))
        if view["phase"] == "play":
            assert picks[0] == picks[1]
        else:
            assert picks[0] == picks[2]
            outside += 1
        env.step(picks[0])
    assert outside > 0


# -- hidden information -----------------------------------------------------------------------


@pytest.mark.parametrize("table,knobs", [("daifugo4", FAST), ("daifugo4", FAST_LEAF),
                                         ("president6-two-decks", FAST), ("uecda", FAST),
                                         ("uecda", FAST_LEAF)],
                         ids=["daifugo4", "daifugo4-leaves", "president6-two-decks", "uecda",
                              "uecda-leaves"])
def test_ignores_other_seats_cards_climbing(table, knobs, networks):
    """At decisions of random first rounds the other seats' hidden cards are dealt anew and the
    moves replayed: with the same generator the CPU plays the same move."""
    env = make_env(table)
    game = env.unwrapped.game
    player = searcher(table, networks, knobs).bind(game)
    rng = np.random.default_rng(5)
    compared = 0
    for match in range(3):
        seed = int(rng.integers(1 << 32))
        deal_hands, _ = game.deal(seed, 0, None)
        leader = game.new_state(np.random.default_rng(0), {"seed": seed}).current_player
        state = replay_daifugo(game, deal_hands, leader, seed, [])
        actions = []
        while state.round == 0 and not state.terminal:
            seat = state.current_player
            legal = state.legal_actions()
            if len(legal) > 2 and len(actions) % 2 == 0:
                twin = replay_daifugo(game, daifugo_shuffled_deal(game, rng, deal_hands, state,
                                                                  seat), leader, seed, actions)
                assert seen_by(game, state, seat) == seen_by(game, twin, seat)
                picks = []
                for s in (state, twin):
                    player.seed(match)
                    picks.append(player.act(pettingzoo_observation(game, s, seat), s.view(seat)))
                assert picks[0] == picks[1], f"match {match}, move {len(actions)}"
                compared += 1
            action = legal[int(rng.integers(len(legal)))]
            actions.append(action)
            state.apply(action)
    assert compared > 15


@pytest.mark.parametrize("knobs", [FAST, FAST_LEAF], ids=["playouts", "leaves"])
def test_ignores_other_seats_cards_doudizhu(knobs, networks):
    player = searcher("doudizhu", networks, knobs).bind(DDZ)
    rng = np.random.default_rng(9)
    compared = 0
    from climbrl.envs.doudizhu.engine import Phase, random_deal
    from climbrl.envs.doudizhu.cards import PHYSICAL_RANK, UNIT

    for game_no in range(8):
        owners, first, _seed = random_deal(rng)
        deal = [sum(UNIT[r] for r, o in zip(PHYSICAL_RANK, owners) if o == s) for s in range(3)]
        kitty = sum(UNIT[r] for r, o in zip(PHYSICAL_RANK, owners) if o == 3)
        state = ddz_setup(deal, kitty, first, [])
        actions = []
        while not state.terminal and state.redeals == 0:
            seat = state.current_player
            legal = state.legal_actions()
            if state.phase == Phase.BIDDING and state.num_bids == 2 and not state.high_bid:
                legal = legal[1:]  # no redeal
            if len(legal) > 2 and len(actions) % 2 == 0:
                hands, new_kitty = ddz_shuffled_deal(rng, deal, kitty, state, seat)
                twin = ddz_setup(hands, new_kitty, first, actions)
                assert seen_by(DDZ, state, seat) == seen_by(DDZ, twin, seat)
                picks = []
                for s in (state, twin):
                    player.seed(game_no)
                    picks.append(player.act(pettingzoo_observation(DDZ, s, seat), s.view(seat)))
                assert picks[0] == picks[1], f"game {game_no}, move {len(actions)}"
                compared += 1
            action = legal[int(rng.integers(len(legal)))]
            actions.append(action)
            state.apply(action)
    assert compared > 15


def test_reads_only_its_observation_and_view(networks):
    """Regression guard: the CPU decides from the observation and view it is handed and the
    game's fixed facts, nothing else. Bound to a separate engine rebuilt from the network's
    spec, with the env's live state hidden behind a tripwire while it thinks, it makes the
    same moves as bound to the env's own engine, and leaves its inputs as they were."""

    class Tripwire:
        def __getattr__(self, name):
            raise AssertionError(f"the player read the live state ({name})")

    for table, knobs in (("daifugo4", FAST), ("doudizhu", FAST_LEAF), ("uecda", FAST_LEAF)):
        env = make_env(table)
        raw = env.unwrapped
        player = searcher(table, networks, knobs).bind(raw.game)
        other = searcher(table, networks, knobs).bind(game_from_spec(player.network.meta["spec"]))
        assert other.game is not raw.game
        decided = 0
        for _agent, obs, seat in live_turns(env, [1]):
            view = raw.view(seat)
            obs_copy, view_copy = copy.deepcopy(obs), copy.deepcopy(view)
            live, raw.game_state = raw.game_state, Tripwire()
            try:
                player.seed(decided)
                action = player.act(obs, view)
                other.seed(decided)
                assert other.act(obs_copy, view_copy) == action
            finally:
                raw.game_state = live
            assert view == raw.view(seat) == view_copy
            np.testing.assert_array_equal(obs["observation"], obs_copy["observation"])
            decided += 1
            env.step(action)
        assert decided > 20


def test_benchmark_prints_both_players(networks, capsys):
    from climbrl.benchmarks import search as bench

    out = bench.main(["--games", "daifugo", "--positions", "3", "--repeats", "1", "--players",
                      f"search:{networks('daifugo4')}:rollouts=8", "scripted-hard:rollouts=8",
                      "search:cpus/no-such-cpu"])
    printed = capsys.readouterr().out
    assert "skipped search:cpus/no-such-cpu in daifugo" in printed
    for unit in ("ms median", "ms p99", "decisions/s"):
        assert set(out["medians"][unit]) == {f"daifugo: search:{networks('daifugo4')}:rollouts=8",
                                             "daifugo: scripted-hard:rollouts=8"}
        assert all(v > 0 for v in out["medians"][unit].values())
    assert "decisions per second" in printed


def test_benchmark_times_the_shipped_president_cpu():
    from climbrl.benchmarks import search as bench

    spec = "search:cpus/president:rollouts=8"
    out = bench.main(["--games", "president", "--positions", "3", "--repeats", "1",
                      "--players", spec])
    assert set(out["medians"]["ms median"]) == {f"president: {spec}"}


@pytest.mark.parametrize("table", ["daifugo4", "doudizhu"])
def test_scores_batch_matches_one_position_at_a_time(table, networks):
    """The leaves of a decision are scored in one call per role (Dou Dizhu: bidding, landlord
    and both peasants mixed in one batch); each gets the q values it gets alone."""
    from climbrl.policies import neural
    from trainer_helpers import positions

    env = make_env(table)
    game = env.unwrapped.game
    network = neural.load(networks(table), game)
    found = positions(game, 60, seed=2)
    observations = [pettingzoo_observation(game, s, seat) for s, seat in found]
    views = [s.view(seat) for s, seat in found]
    batch = network.scores_batch(observations, views)
    if table == "doudizhu":
        assert len({role_from_view(game, v) for v in views}) >= 3
    for (legal, q), obs, view in zip(batch, observations, views):
        alone_legal, alone_q = network.scores(obs, view)
        np.testing.assert_array_equal(legal, alone_legal)
        np.testing.assert_allclose(q, alone_q, atol=1e-5)
