"""Training over many tables (the ``tables`` setting): one network for every table of a game,
a table drawn per episode, an evaluation panel, exact resume, and bad settings refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from climbrl.envs.daifugo import DaifugoGame, Rules
from climbrl.policies.network import NetConfig, build_network
from climbrl.policies.spec import make_game
from climbrl.training import checkpoint
from climbrl.training.config import make_args
from climbrl.training.dmc import train
from climbrl.training.tables import Tables

from trainer_helpers import positions, small_args

TABLES = {"players": [3, 4], "rounds": [1, 2], "lock": 0.5, "jokers": {1: 1, 2: 1}}


def test_a_network_of_one_table_scores_another_tables_catalog():
    """One network per game: built on one table, its weights score the moves of a table of
    another catalog (3 players, one joker: 2,381 moves instead of 7,989) as a network built
    on that table does."""
    four = DaifugoGame(Rules.preset("daifugo", 4))
    three = DaifugoGame(Rules.preset("daifugo", 3, jokers=1, rounds=5))
    assert three.num_actions != four.num_actions
    cfg = NetConfig(history_length=4, history_group=4, lstm_hidden=8, state_layers=(32,),
                    pair_layers=(16,))
    torch.manual_seed(0)
    net = build_network(four, cfg)
    native = build_network(three, cfg)
    native.load_state_dict(net.state_dict())
    net.use_features(three.action_features())
    for state, seat in positions(three, 20, seed=3):
        obs = torch.from_numpy(three.observe(state, seat))[None]
        hist = torch.from_numpy(three.recent_actions(state, seat, 4))[None]
        legal = torch.tensor(state.legal_actions())
        seg = torch.zeros(len(legal), dtype=torch.long)
        with torch.no_grad():
            a = net(obs, hist[..., 1], hist[..., 0], legal, seg)
            b = native(obs, hist[..., 1], hist[..., 0], legal, seg)
        assert torch.equal(a, b)


def test_training_draws_many_tables_and_resumes_exactly(tmp_path):
    frames = 64 * 20
    settings = {"tables": TABLES, "rules": {"fall_of_capital": False}}
    full = train(small_args(tmp_path, run_name="full", total_frames=frames, **settings))
    assert len(full["tables"]) > 1, full["tables"]
    assert sum(full["tables"].values()) > 2
    players = {label.split()[0] for label in full["tables"]}
    assert players == {"3p", "4p"}
    half = train(small_args(tmp_path, run_name="half", total_frames=frames // 2, **settings))
    resumed = train(make_args(None, {"resume": half["run_dir"], "total_frames": frames}))
    a, b = checkpoint.load(full["run_dir"]), checkpoint.load(resumed["run_dir"])
    assert all(torch.equal(a["models"]["seat"][k], b["models"]["seat"][k])
               for k in a["models"]["seat"])
    assert a["counters"]["frames"] == b["counters"]["frames"] == frames
    assert a["table_counts"] == b["table_counts"] == resumed["tables"]


def test_evaluation_plays_the_panel(tmp_path):
    run = train(small_args(tmp_path, tables={"players": [3, 4]}, total_frames=64,
                           eval_every_frames=64, eval_harness=False, eval_deals=1,
                           eval_tables=[{"players": 3}, {"players": 4, "rounds": 2}]))
    figures = run["evaluations"][-1]["figures"]
    assert {"3p/return", "4p_rounds=2/return", "panel/return"} <= set(figures)
    assert figures["panel/return"] == pytest.approx(
        (figures["3p/return"] + figures["4p_rounds=2/return"]) / 2)
    assert run["evaluations"][-1]["text"].startswith("panel of 2 tables")


def test_default_panel_comes_from_the_distribution():
    tables = Tables("daifugo", tables={"players": [3, 4], "rounds": [3, 5, 7], "lock": 0.5,
                                       "illegal_finish": 0.2})
    labels = [label for label, _ in tables.panel(None)]
    assert labels == ["3p", "4p", "4p rounds=5", "4p rounds=7",
                      "4p illegal_finish=on lock=off"]
    assert tables.base.num_players == 4 and tables.base.rules.rounds == 3
    # one catalog for every table of the distribution (jokers and runs fixed)
    assert tables.features.shape == tables.base.action_features().shape


MIXTURE = [{"players": [4], "lock": 1.0, "rounds": [3, 5]},
           {"weight": 3, "players": [3], "lock": False, "eight_cut": 0.5}]


def test_a_mixture_draws_a_part_then_its_keys():
    """The corner a part names is drawn as often as its weight says (keys drawn each on its
    own could not make lock off and 3 players go together)."""
    tables = Tables("daifugo", tables=MIXTURE)
    rng = np.random.default_rng(0)
    draws = [tables.draw(rng) for _ in range(2000)]
    three = [g for g in draws if g.num_players == 3]
    assert 0.72 < len(three) / len(draws) < 0.78  # weight 3 of 4
    assert all(not g.rules.lock and g.rules.rounds == 3 for g in three)  # rounds: the base
    assert all(g.rules.lock and g.rules.eight_cut for g in draws if g.num_players == 4)
    assert {g.rules.rounds for g in draws if g.num_players == 4} == {3, 5}
    assert 0.4 < np.mean([g.rules.eight_cut for g in three]) < 0.6
    # the base table: the default where some part draws it; the panel covers both parts
    assert tables.base.num_players == 4 and tables.base.rules.lock
    labels = [label for label, _ in tables.panel(None)]
    assert labels == ["4p", "3p", "4p rounds=5", "4p eight_cut=off lock=off"]


def test_a_mixture_of_one_part_draws_as_the_mapping():
    """One part takes nothing more from the generator: the same tables in the same order."""
    setting = {"players": [3, 4], "rounds": [3, 5, 7], "lock": 0.5}
    one, part = Tables("daifugo", tables=setting), Tables("daifugo", tables=[setting])
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(200):
        assert one.draw(a).rules == part.draw(b).rules


def test_training_on_a_mixture_plays_every_part(tmp_path):
    even = [{**part, "weight": 1} for part in MIXTURE]
    run = train(small_args(tmp_path, tables=even, total_frames=64 * 40))
    labels = set(run["tables"])
    assert any(label.startswith("3p") for label in labels)
    assert any(label.startswith("4p") for label in labels)
    assert all("lock=off" in label for label in labels if label.startswith("3p"))


def test_tables_share_catalogs_and_stack_their_features():
    tables = Tables("president", tables={"players": [4, 6], "jokers": [0, 2]})
    assert len(tables.offsets) == 4  # one or two decks, with or without jokers
    rng = np.random.default_rng(0)
    for _ in range(20):
        game = tables.draw(rng)
        at = tables.offset(game)
        assert np.array_equal(tables.features[at:at + game.num_actions],
                              game.action_features())


@pytest.mark.parametrize("setting, message", [
    ({"lok": 0.5}, r"tables: unknown key 'lok' \(did you mean lock\?\)"),
    ({"lock": 1.5}, r"tables\.lock: 1\.5 is not a chance in \[0, 1\]"),
    ({"players": []}, r"tables\.players: an empty list draws nothing"),
    ({"rounds": {3: -1, 5: 1}}, r"tables\.rounds: weight -1 of 3 is not a number"),
    ({"rounds": {3: 0}}, r"tables\.rounds: the weights \{3: 0\} add up to 0"),
    ({"players": [3, 5]}, r"the table players=5 cannot be played \(the daifugo preset is for 3"),
    ({"rounds": [3, 30]}, r"the table .*rounds=30.* cannot be played \(.*rounds must be"),
    ({"jokers": [0, 2]}, r"jokers=0.* cannot be played \(.*spade_three_return"),
    ({"lock": "often"}, r"the table .*lock=often.* cannot be played \(.*lock must be True"),
    ({"players": [3, 3]}, r"tables\.players: a value is listed twice"),
    ("lock", r"tables must be dict or list or NoneType, got .lock."),
    ({}, r"tables must be a mapping of players and rules"),
    ([], r"tables must be a mapping .* or a list of such mappings each with a weight"),
    ([3, 4], r"tables\[0\] must be a mapping of players and rules"),
    ([{"lock": 0.5}, {"weight": 2}], r"tables\[1\] must be a mapping of players and rules"),
    ([{"lock": 0.5}, {"weight": 0, "lock": False}], r"tables\[1\]\.weight: 0 is not a number"),
    ([{"lock": 0.5, "weight": "x"}], r"tables\[0\]\.weight: 'x' is not a number above 0"),
    ([{"lock": 0.5}, {"lok": False}], r"tables\[1\]: unknown key 'lok' \(did you mean lock"),
    ([{"lock": 0.5}, {"rounds": [3, 30]}], r"the table .*rounds=30.* cannot be played"),
    ({"weight": 2, "lock": 0.5}, r"tables: weight is a key of a mixture's part"),
])
def test_bad_tables_settings_are_refused_naming_them(tmp_path, setting, message):
    with pytest.raises(ValueError, match=message):
        train(small_args(tmp_path, tables=setting))
    assert not (tmp_path / "runs").exists()


def test_tables_are_refused_where_they_cannot_apply(tmp_path):
    with pytest.raises(ValueError, match="tables is a setting of daifugo and president"):
        Tables("doudizhu", tables={"players": [3]})
    with pytest.raises(ValueError, match="tables.lock: lock is fixed in rules too"):
        Tables("daifugo", rules={"lock": False}, tables={"lock": 0.5})
    with pytest.raises(ValueError, match=r"eval_tables\[0\]: unknown key 'lok'"):
        train(small_args(tmp_path, tables={"lock": 0.5}, eval_tables=[{"lok": False}]))
    with pytest.raises(ValueError, match="tables must be dict or list or NoneType"):
        make_args(None, {"tables": 3})
    assert make_game("daifugo", 4).num_players == 4
