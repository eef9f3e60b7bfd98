"""Training against other players (``opponents``): in its share of the episodes the network
holds one seat drawn at random and the player every other one; only the network's decisions
become samples, or every seat's with ``learn_opponents``; a run with opponents resumes exactly; bad settings are one line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from climbrl.policies.spec import make_game, roles
from trainer_helpers import small_args, small_net
from climbrl.training.actor import SelfPlayActor
from climbrl.training.config import make_args
from climbrl.training.dmc import train


class Collect:
    """A transport that keeps the batches and never sends weights."""

    def __init__(self):
        self.batches = []

    def fetch_weights(self, version):
        return None

    def put_batch(self, batch):
        self.batches.append(batch)


def actor_with(opponents, games=8, seed=0, players=4, learn_opponents=False, imitate=0,
               preset="daifugo"):
    game = make_game(preset, players)
    nets = [small_net(game).eval() for _ in roles(game)]
    return SelfPlayActor(game, nets, Collect(), games, 0.0, 32, np.random.default_rng(seed),
                         opponents=opponents, learn_opponents=learn_opponents, imitate=imitate)


def tables_actor(tables, seed, games=4):
    """An actor over a run's ``tables``, scripted-medium at every other seat of every episode."""
    nets = [small_net(tables.base, tables.features).eval() for _ in roles(tables.base)]
    return SelfPlayActor(tables, nets, Collect(), games, 0.0, 32, np.random.default_rng(seed),
                         opponents={"scripted-medium": 1.0})


def test_only_the_networks_seat_is_trained_on_in_an_opponents_episode():
    actor = actor_with({"random": 1.0})
    mine = set()
    for _ in range(300):
        actor.step()
        for seated, traj, st in zip(actor.seated, actor.trajectories, actor.states):
            assert len(seated) == st.game.num_players - 1  # every episode has opponents
            seats = {row[1] for row in traj}
            assert len(seats) <= 1 and not seats & set(seated)
            mine |= seats
    assert mine == {0, 1, 2, 3}  # the network's seat is drawn per episode
    assert actor.transport.batches
    # logged returns are the network's seat only
    logged = [ep["returns"] for b in actor.transport.batches for ep in b.episodes]
    assert logged and all(len(r) == 1 for r in logged)


def test_learn_opponents_trains_on_every_seat_the_moves_they_played():
    actor = actor_with({"scripted-easy": 1.0}, learn_opponents=True)
    seen = set()
    for _ in range(300):
        actor.step()
        for traj, st in zip(actor.trajectories, actor.states):
            # every decision so far, the opponents' included, in order (the history is the
            # round's; the trajectory, the match's)
            assert [(row[1], row[4]) for row in traj[len(traj) - len(st.history):]] == [
                tuple(h) for h in st.history]
            seen |= {row[1] for row in traj}
    assert seen == {0, 1, 2, 3}
    # logged returns stay the network's seat only
    logged = [ep["returns"] for b in actor.transport.batches for ep in b.episodes]
    assert logged and all(len(r) == 1 for r in logged)


@pytest.mark.parametrize("learn", [False, True])
def test_the_opponents_are_given_the_envs_observation(monkeypatch, learn):
    """With learn_opponents the sample's observation row is handed to the player: it must be
    the one the env would give that seat."""
    from climbrl.training import actor as training_actor
    from climbrl.training.opponents import opponent_move

    given = []

    def spy(player, game, state, seat, observation=None):
        if observation is not None:
            assert np.array_equal(observation, game.observe(state, seat))
        given.append(observation is not None)
        return opponent_move(player, game, state, seat, observation)

    monkeypatch.setattr(training_actor, "opponent_move", spy)
    actor = actor_with({"scripted-easy": 1.0}, players=3, learn_opponents=learn)
    for _ in range(60):
        actor.step()
    assert given and set(given) == {learn}  # built once, for the sample and the player


def test_learn_opponents_without_opponents_is_refused(tmp_path):
    with pytest.raises(ValueError, match="learn_opponents trains on the opponents' decisions"):
        small_args(tmp_path, learn_opponents=True).validate()


def test_a_share_of_opponent_episodes_leaves_the_rest_self_play():
    actor = actor_with({"random": 0.5}, games=16)
    kinds = set()
    for _ in range(400):
        actor.step()
        kinds |= {bool(s) for s in actor.seated}
    assert kinds == {True, False}


def test_no_opponents_draws_nothing_more():
    # a run without opponents plays the same games as before the setting existed
    a, b = actor_with({}, seed=3), actor_with(None, seed=3)
    for _ in range(50):
        a.step()
        b.step()
    assert [st.deal_code for st in a.states] == [st.deal_code for st in b.states]
    assert all(not s for s in a.seated)


def _weights(run_dir):
    return torch.load(f"{run_dir}/checkpoint.pt", weights_only=False)["models"]


@pytest.mark.parametrize("learn", [
    {"learn_opponents": False},
    {"learn_opponents": True},
    {"learn_opponents": True, "imitation": 1.0, "imitation_moves": 4},
])
def test_a_run_with_opponents_resumes_exactly(tmp_path, learn):
    frames = 64 * 12
    settings = {"opponents": {"scripted-easy": 0.5}, **learn}
    full = train(small_args(tmp_path, run_name="full", total_frames=frames, **settings))
    half = train(small_args(tmp_path, run_name="half", total_frames=frames // 2, **settings))
    resumed = train(make_args(None, {"resume": half["run_dir"], "total_frames": frames}))
    a, b = _weights(full["run_dir"]), _weights(resumed["run_dir"])
    assert all(torch.equal(a[r][k], b[r][k]) for r in a for k in a[r])


@pytest.mark.parametrize("opponents, said", [
    ({"scripted-mediun": 0.5}, "unknown opponents 'scripted-mediun'"),
    ({"scripted-medium": 1.5}, "the share of 'scripted-medium' must be in (0, 1]"),
    ({"scripted-medium": 0.7, "random": 0.6}, "the shares sum to 1.3, more than 1"),
    (["scripted-medium"], "opponents must be dict"),
])
def test_bad_opponents_are_refused_naming_them(tmp_path, opponents, said):
    with pytest.raises(ValueError) as err:
        small_args(tmp_path, opponents=opponents).validate()
    assert said in str(err.value)


def test_a_bad_opponent_on_the_command_line_is_one_line(capsys):
    from trainer_helpers import one_error_line
    from climbrl.cli import main as cli

    assert cli(["train", "--config", "daifugo4", "--opponents", "{scripted-hrad: 0.5}",
                "--minutes", "0.01"]) == 2
    assert "unknown opponents 'scripted-hrad'" in one_error_line(capsys)


def test_an_actor_state_saved_before_opponents_existed_is_read():
    """A checkpoint of a run from before the opponents setting holds six fields of actor state
    (no opponents' seats, players, count made): it resumes as self-play; any other length is
    refused naming it."""
    import io

    from climbrl.training.actor import _GamePickler, _GameUnpickler

    actor = actor_with(None, games=4)
    for _ in range(20):
        actor.step()
    saved = _GameUnpickler(io.BytesIO(actor.get_state()), actor.tables).load()
    assert len(saved) == 9

    def state_of(fields):
        buf = io.BytesIO()
        _GamePickler(buf, actor.tables).dump(tuple(fields))
        return buf.getvalue()

    old = actor_with(None, games=4, seed=5)
    old.set_state(state_of(saved[:6]))
    assert old.seated == [{} for _ in saved[0]] and old.slot_players == [{} for _ in saved[0]]
    assert old.made == 0 and old.episodes == actor.episodes
    old.step()  # and it plays on
    with pytest.raises(ValueError, match="actor state of 8 fields"):
        old.set_state(state_of(saved[:8]))


def test_a_saved_actor_keeps_the_players_parts_of_the_game_by_reference():
    """Regression: the scripted players' catalog, move generator and hand evaluator were saved
    by value with the actor, so a checkpoint carried a copy of each per game slot, and an
    engine class that gained a field since could not be read back into the new version."""
    from climbrl.training.tables import Tables

    tables = Tables("doudizhu")
    game = tables.base
    first = tables_actor(tables, 0)
    for _ in range(10):
        first.step()
    state = first.get_state()
    assert b"HandEvaluator" not in state and b"MoveGenerator" not in state
    second = tables_actor(tables, 1)
    second.set_state(state)
    players = [p for slot in second.slot_players for _, p in slot.values()]
    assert players and all(p.evaluator is game.evaluator and p.moves is game.moves
                           and p.cat is game.catalog for p in players)
    second.step()
    assert second.get_state() != state  # and it plays on


def test_a_state_saved_with_copies_of_the_parts_is_saved_without_them_after_a_resume():
    """Regression: a Dou Dizhu run saved before the parts went by reference read its players'
    catalog, move generator, hand evaluator and facts of every move back as copies, and every
    later checkpoint carried them again (72 MB of an 86 MB file)."""
    import io

    from climbrl.policies.doudizhu.heuristic import ActionFacts
    from climbrl.training.actor import _GamePickler
    from climbrl.training.tables import Tables

    first = tables_actor(Tables("doudizhu"), 0)
    for _ in range(10):
        first.step()

    class OldPickler(_GamePickler):  # the games by reference, their parts by value
        def __init__(self, file, tables):
            super().__init__(file, tables)
            self.ids = {k: v for k, v in self.ids.items() if v == "game" or v[0] == "rules"}

    buf = io.BytesIO()
    OldPickler(buf, first.tables).dump(
        (first.states, first.trajectories, first.samples, first.episodes, first.rng,
         first.version, first.seated, first.slot_players, first.made))
    old = buf.getvalue()
    assert b"HandEvaluator" in old
    second = tables_actor(Tables("doudizhu"), 1)
    second.set_state(old)
    players = [p for slot in second.slot_players for _, p in slot.values()]
    assert players
    for slot in second.slot_players:
        for bound, p in slot.values():
            assert p.cat is bound.catalog and p.moves is bound.moves
            assert p.evaluator is bound.evaluator
            assert p.main is bound.derived(ActionFacts.build).main
    state = second.get_state()
    assert b"HandEvaluator" not in state and b"MoveGenerator" not in state
    assert len(state) < len(old) / 10


def test_the_scripted_players_of_a_drawn_table_share_its_facts_and_save_them_by_reference():
    """Regression: every scripted opponent built its own facts of every move when bound to a
    drawn table (about 0.1 s), which was 16% of a Daifugo run's actor time with opponents
    (measured with cProfile); the facts are now made once per table and a saved actor names
    them by their table instead of copying them per player."""
    import io

    from climbrl.policies.daifugo.hand import MoveFacts
    from climbrl.training.actor import _GameUnpickler
    from climbrl.training.tables import Tables

    def actor(seed):
        drawn = {"players": [3, 4], "lock": 0.5, "revolution": 0.5}
        return tables_actor(Tables("daifugo", players=4, tables=drawn), seed, games=8)

    first = actor(0)
    for _ in range(200):
        first.step()
    bound = [(game, p) for slot in first.slot_players for game, p in slot.values()]
    assert len({id(game) for game, _ in bound}) > 1  # several tables were drawn
    for game, p in bound:
        assert p.facts is game.derived(MoveFacts.build)
    state = first.get_state()

    class Named(_GameUnpickler):  # the persistent ids the state names
        def persistent_load(self, pid):
            names.append(pid)
            return super().persistent_load(pid)

    names = []
    Named(io.BytesIO(state), first.tables).load()
    derived = [pid for pid in names if isinstance(pid, tuple) and pid[0] == "derived"]
    assert {pid[2] for pid in derived} == {MoveFacts.build}
    assert len(derived) >= len({id(game) for game, _ in bound})
    second = actor(1)
    second.set_state(state)
    for slot in second.slot_players:
        for game, p in slot.values():
            assert p.facts is game.derived(MoveFacts.build)
    second.step()
