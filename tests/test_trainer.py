"""The trainer's parts: network, spec checks, configs, seeding and exact resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from climbrl.envs.daifugo import DaifugoGame, Rules
from climbrl.policies.network import NetConfig, build_network
from climbrl.policies.spec import (check_spec, episode_starter, history_from_view, make_game,
                           model_spec, recent_actions_fn, role_from_view, role_of, roles, seat_rows)
from climbrl.training.config import load_yaml, make_args, parse_overrides
from climbrl.training.dmc import train

from trainer_helpers import positions, small_args

ROOT = Path(__file__).resolve().parent.parent

# every training config (cpus.yaml maps CPU levels, not a training run)
CONFIGS = sorted(p for p in (ROOT / "configs").glob("*.yaml") if p.name != "cpus.yaml")


@pytest.fixture(scope="module")
def game4():
    return DaifugoGame(Rules.preset("daifugo", 4))


def test_network_scores_moves_against_one_state_code(game4):
    torch.manual_seed(0)
    net = build_network(game4, NetConfig(history_length=8, history_group=4, lstm_hidden=8,
                                         state_layers=(32,), pair_layers=(16, 8)))
    pos = positions(game4, 2, seed=1)
    obs = np.stack([game4.observe(s, seat) for s, seat in pos])
    hist = np.stack([game4.recent_actions(s, seat, 8) for s, seat in pos])
    legal = [s.legal_actions() for s, _ in pos]
    ids = torch.tensor([a for m in legal for a in m])
    seg = torch.tensor([i for i, m in enumerate(legal) for _ in m])
    with torch.no_grad():
        codes = net.encode(torch.from_numpy(obs), torch.from_numpy(hist[:, :, 1]),
                           torch.from_numpy(hist[:, :, 0]))
        assert codes.shape[0] == 2  # one state code per decision, whatever the move count
        batched = net.score(codes, seg, ids)
        cached = net.score(codes, seg, ids, net.move_codes())
        one_by_one = torch.cat([
            net(torch.from_numpy(obs[i:i + 1]), torch.from_numpy(hist[i:i + 1, :, 1]),
                torch.from_numpy(hist[i:i + 1, :, 0]), torch.tensor(m),
                torch.zeros(len(m), dtype=torch.long))
            for i, m in enumerate(legal)])
    assert torch.allclose(batched, one_by_one, atol=1e-5)
    assert torch.allclose(batched, cached, atol=1e-5)


def test_network_sizes_come_from_the_game():
    for players in (3, 4):
        game = DaifugoGame(Rules.preset("daifugo", players))
        net = build_network(game, NetConfig(history_length=players, history_group=players))
        assert net.obs_low.shape == (game.layout.size,)
        assert net.features.shape == (game.num_actions + 1, game.action_features().shape[1])
        rows = seat_rows(game)  # the largest Daifugo table's, for every player count
        assert rows == 4 and net.movers.shape == (rows + 1, rows)


def test_network_can_skip_observation_fields(game4):
    cfg = NetConfig(history_length=4, history_group=4, skip_fields=("played", "scores"))
    net = build_network(game4, cfg)
    lay = game4.layout
    skipped = (lay.slices["played"].stop - lay.slices["played"].start
               + lay.slices["scores"].stop - lay.slices["scores"].start)
    assert net.obs_low.shape == (lay.size - skipped,)
    assert net.state_mlp[0].in_features == lay.size - skipped + cfg.lstm_hidden
    with pytest.raises(ValueError, match=r"skip_fields \['hsitory'\] are not observation"):
        build_network(game4, NetConfig(skip_fields=("hsitory",)))


def test_net_config_rejects_bad_values():
    with pytest.raises(ValueError, match="multiple of history_group"):
        NetConfig(history_length=10, history_group=4)
    with pytest.raises(ValueError, match="state_layers"):
        NetConfig(state_layers=())
    with pytest.raises(ValueError, match="unknown network option"):
        NetConfig.from_dict({"width": 3})


@pytest.mark.parametrize("name,players", [("daifugo", 4), ("daifugo", 3), ("president", 5),
                                          ("doudizhu", 3)])
def test_history_from_view_matches_the_engine(name, players):
    game = make_game(name, players)
    recent = recent_actions_fn(game)
    for state, seat in positions(game, 400, seed=players):
        for viewer in (seat, (seat + 1) % players):
            want = recent(state, viewer, 12)
            got = history_from_view(game, state.view(viewer), 12)
            assert np.array_equal(want, got)


@pytest.mark.parametrize("players, peasants", [
    (3, ("peasant_after", "peasant_before")),
    # four seats: the peasants after the landlord, across the table from it, before it
    (4, ("peasant_after", "peasant_middle", "peasant_before")),
])
def test_doudizhu_roles_follow_the_landlord(players, peasants):
    game = make_game("doudizhu", players)
    names = roles(game)
    assert names == ("bidding", "landlord") + peasants
    seen = set()
    for state, seat in positions(game, 300, seed=2):
        role = names[role_of(game, state, seat)]
        assert role == names[role_from_view(game, state.view(seat))]
        if state.landlord < 0:
            assert role == "bidding"
        elif seat == state.landlord:
            assert role == "landlord"
        else:
            assert role == peasants[(seat - state.landlord) % players - 1]
        seen.add(role)
    assert seen == set(names)


def test_spec_check_names_what_differs(game4):
    spec = model_spec(game4)
    check_spec(spec, game4)
    # what the network reads is the same at every table of the game (v1)
    for other in (Rules.preset("daifugo", 4, lock=False), Rules.preset("daifugo", 3),
                  Rules.preset("daifugo", 3, rounds=7, jokers=1)):
        check_spec(spec, DaifugoGame(other, "raw"))
    changed = {**spec, "layout": {**spec["layout"], "hand_counts": [3]}}
    with pytest.raises(ValueError, match=r"layout\.hand_counts: \[3\] in the model, \[4\]"):
        check_spec(changed, game4)
    changed = {**spec, "action_schema": {**spec["action_schema"], "width": 50}}
    with pytest.raises(ValueError, match=r"action_schema\.width: 50 in the model, 52"):
        check_spec(changed, game4)
    with pytest.raises(ValueError, match=r"trained on 'daifugo', not 'president'"):
        check_spec(spec, DaifugoGame(Rules.preset("president", 4)))


def test_spec_of_v0_is_refused_with_the_reason(game4):
    """A v0 model (its observation sized by one table) is refused in one line saying why."""
    v0 = {**model_spec(game4), "env_version": 0}
    for key in ("seat_rows", "obs_bounds", "action_schema"):
        v0.pop(key)
    with pytest.raises(ValueError) as err:
        check_spec(v0, DaifugoGame(Rules.preset("daifugo", 3)), "CPU")
    message = str(err.value)
    assert "\n" not in message
    assert "trained on the observation of daifugo_v0" in message
    assert "tied to one rule set" in message and "retrain" in message


def test_spec_check_ignores_the_reward_mode():
    """A Dou Dizhu CPU trained with reward="score" refused a reward="win" env; the reward
    changes what a seat earns, not what the network reads. Dou Dizhu's other settings are
    still checked (its observation does not carry them)."""
    spec = model_spec(make_game("doudizhu", reward="score"))
    check_spec(spec, make_game("doudizhu", reward="win"))
    with pytest.raises(ValueError, match=r"config\.max_redeals"):
        check_spec(spec, make_game("doudizhu", rules={"max_redeals": 3}))
    daifugo = model_spec(make_game("daifugo", 4, reward="centered"))
    check_spec(daifugo, make_game("daifugo", 4, reward="raw"))


def test_a_doudizhu_v0_model_is_refused_in_one_line():
    # the CPU shipped for doudizhu_v0 does not load in v1 (its observation lacks the variant
    # flags): one line saying so, not a list of every layout difference
    game = make_game("doudizhu")
    spec = model_spec(game)
    spec["env_version"] = 0
    spec["layout"].pop("variant")
    with pytest.raises(ValueError) as err:
        check_spec(spec, game, "CPU")
    message = str(err.value)
    assert "\n" not in message and "doudizhu_v0" in message and "v1" in message


def test_roles():
    assert roles(make_game("daifugo", 4)) == ("seat",)
    assert roles(make_game("doudizhu")) == ("bidding", "landlord", "peasant_after",
                                            "peasant_before")
    with pytest.raises(ValueError, match="unknown game"):
        make_game("poker")


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_configs_load(path):
    args = make_args(path, ["--minutes", "1"])
    assert args.minutes == 1.0
    assert load_yaml(path)["game"] in ("daifugo", "president", "uecda", "doudizhu")
    args.validate()
    game = make_game(**args.game_kwargs())
    cfg = args.net_config(seat_rows(game))
    assert cfg.history_length % cfg.history_group == 0


def test_overrides_are_typed():
    got = parse_overrides(["--games-per-actor", "8", "--rules={lock: false}", "--minutes=2",
                           "--state-layers", "[64, 64]", "--reward", "null"])
    assert got == {"games_per_actor": 8, "rules": {"lock": False}, "minutes": 2.0,
                   "state_layers": [64, 64], "reward": None}
    with pytest.raises(ValueError, match="unknown option --gamez"):
        parse_overrides(["--gamez", "3"])
    with pytest.raises(ValueError, match="actors must be int"):
        parse_overrides(["--actors", "two"])
    with pytest.raises(ValueError, match="bad value for exploration"):
        make_args(None, {"exploration": 2.0}).validate()


def _weights(run_dir):
    from climbrl.training import checkpoint

    data = checkpoint.load(run_dir)
    return data["models"]["seat"], data["optimizers"]["seat"]["state"], data["counters"]


def _same(a, b):
    return all(torch.equal(a[k], b[k]) for k in a)


def test_seeds_reproduce_and_resume_continues_exactly(tmp_path):
    frames = 64 * 24  # crosses episode ends, so the checkpoint holds games in progress
    full = train(small_args(tmp_path, run_name="full", total_frames=frames))
    again = train(small_args(tmp_path, run_name="again", total_frames=frames))
    other = train(small_args(tmp_path, run_name="other", total_frames=frames, seed=2))
    half = train(small_args(tmp_path, run_name="half", total_frames=frames // 2))
    assert half["frames"] == frames // 2
    resumed = train(make_args(None, {"resume": half["run_dir"], "total_frames": frames}))
    assert resumed["run_dir"] == half["run_dir"]
    w_full, opt_full, c_full = _weights(full["run_dir"])
    w_again, _, _ = _weights(again["run_dir"])
    w_other, _, _ = _weights(other["run_dir"])
    w_res, opt_res, c_res = _weights(resumed["run_dir"])
    assert _same(w_full, w_again)
    assert not _same(w_full, w_other)
    assert _same(w_full, w_res)
    assert all(_same(opt_full[k], opt_res[k]) for k in opt_full)
    assert c_res["frames"] == c_full["frames"] == frames
    assert c_res["session"] == 1


def test_resume_with_a_new_learning_rate_uses_it(tmp_path):
    """Regression: the optimizer state loaded on resume put the old step size back, so
    ``--resume RUN --learning-rate X`` trained on at the old one without a word."""
    run = train(small_args(tmp_path, total_frames=64, learning_rate=3e-4))
    train(make_args(None, {"resume": run["run_dir"], "total_frames": 128,
                           "learning_rate": 5e-5, "rmsprop_alpha": 0.9}))
    from climbrl.training import checkpoint

    groups = [g for state in checkpoint.load(run["run_dir"])["optimizers"].values()
              for g in state["param_groups"]]
    assert groups and all(g["lr"] == 5e-5 and g["alpha"] == 0.9 for g in groups)


def test_resume_into_other_rules_goes_on(tmp_path):
    """The network reads every table (v1): a run may go on under other rules."""
    run = train(small_args(tmp_path, total_frames=64))
    again = train(make_args(None, {"resume": run["run_dir"], "rules": {"jack_back": False},
                                   "total_frames": 128}))
    assert again["frames"] >= 128


def test_benchmark_hook_reports_actor_and_learner_rates():
    from climbrl.training.benchmark import frames_per_second

    got = frames_per_second("daifugo", 0.4)
    assert got["frames_per_second"] > 0 and got["learner_samples_per_second"] > 0
    with pytest.raises(ValueError, match="unknown game"):
        frames_per_second("chess", 1)


def test_fixed_landlord_deals_skip_the_bidding():
    game = make_game("doudizhu")
    start = episode_starter(game, {"fixed_landlord": 1.0})
    rng = np.random.default_rng(4)
    for _ in range(5):
        state = start(rng)
        assert state.landlord >= 0 and state.current_player == state.landlord
        assert role_of(game, state, state.landlord) == roles(game).index("landlord")
        assert len(state.view(state.landlord)["hand"]) == 20
    assert episode_starter(game, {"fixed_landlord": 0.0}) == game.new_state
    with pytest.raises(ValueError, match="fixed_landlord must be a share in"):
        episode_starter(game, {"fixed_landlord": 1.5})
    with pytest.raises(ValueError, match="not a training start option of 'daifugo'"):
        episode_starter(make_game("daifugo", 4), {"fixed_landlord": 0.5})
    with pytest.raises(ValueError, match="fixed_landlord is a Dou Dizhu setting"):
        make_args(None, {"fixed_landlord": 0.5}).validate()
    # the setting of its own, in a file, on the command line or in a run recorded before
    # start options, is the start option
    args = make_args(None, ["--game", "doudizhu", "--fixed-landlord", "0.9"])
    assert args.start == {"fixed_landlord": 0.9}
    args.validate()
    with pytest.raises(ValueError, match="fixed_landlord must be a share in"):
        make_args(None, {"game": "doudizhu", "start": {"fixed_landlord": 2}}).validate()
    with pytest.raises(ValueError, match="unknown start option 'fixed_landlords'"):
        make_args(None, {"game": "doudizhu", "start": {"fixed_landlords": 0.5}}).validate()


def test_doudizhu_evaluation_is_the_duel_so_both_sides_are_measured(tmp_path, monkeypatch):
    # regression: the periodic evaluation let the bidding pick the landlord, and the network
    # (its bidding trained on one deal in ten) bid 3 almost always, so "WP peasants" came
    # from one or two games out of sixty
    from climbrl.training import evaluate as harness
    from climbrl.training.arena import harness_figures

    run = train(small_args(tmp_path, game="doudizhu", players=3, total_frames=64))
    configs = []
    real_run = harness.run
    monkeypatch.setattr(harness, "run", lambda config: configs.append(config) or real_run(config))
    figures, text = harness_figures({"game": "doudizhu"}, make_game("doudizhu"),
                                    str(run["run_dir"]), "random", deals=2, seed=0)
    assert [c.sides for c in configs] == ["fixed"]
    assert "WP landlord" in text and "WP peasants" in text
    for side in ("landlord", "peasants"):  # shares: the interval stays inside [0, 1]
        assert (0 <= figures[f"WP_{side}_low"] <= figures[f"WP_{side}"]
                <= figures[f"WP_{side}_high"] <= 1)


def test_a_daifugo_run_recorded_before_start_options_resumes(tmp_path):
    # runs recorded before `start` hold `fixed_landlord: 0.0` among their settings, whatever
    # the game; resuming a Daifugo one failed with "fixed_landlord is a Dou Dizhu setting"
    run = train(small_args(tmp_path, total_frames=64))
    path = f"{run['run_dir']}/checkpoint.pt"
    data = torch.load(path, weights_only=False)
    data["args"].pop("start")
    data["args"]["fixed_landlord"] = 0.0
    torch.save(data, path)
    again = train(make_args(None, {"resume": run["run_dir"], "total_frames": 128}))
    assert again["frames"] >= 128
