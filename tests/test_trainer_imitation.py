"""The imitation loss (``imitation``): each opponent decision carries other legal moves of its
state, and the learner holds the opponent's move ``imitation_margin`` above them; off, the
batches and the loss are what they were (its exact resume: test_trainer_opponents)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from climbrl.policies.spec import make_game
from test_trainer_opponents import actor_with
from trainer_helpers import small_args, small_net
from climbrl.training.actor import NO_MOVE
from climbrl.training.dmc import learn, margin_loss
from climbrl.training.transport import Batch


def imitating_actor(imitate, players=4, seed=0, preset="daifugo"):
    return actor_with({"scripted-medium": 1.0}, seed=seed, players=players, learn_opponents=True,
                      imitate=imitate, preset=preset)


def test_opponent_samples_carry_other_legal_moves_and_the_networks_do_not():
    actor = imitating_actor(imitate=4)
    kinds = set()
    while len(actor.transport.batches) < 6:
        actor.step()
        for seated, traj in zip(actor.seated, actor.trajectories):
            for row in traj:  # (role, seat, obs, hist, action, return before, others)
                kinds.add((row[1] in seated, row[6] is not None))
    assert kinds == {(True, True), (False, False)}  # the opponents' only, and every one
    opponent_rows = 0
    for batch in actor.transport.batches:
        assert batch.others is not None and batch.others.shape == (batch.size, 4)
        for played, others in zip(batch.actions, batch.others):
            kept = others[others != NO_MOVE]
            assert played not in kept  # never the move played itself
            assert len(set(kept.tolist())) == len(kept)  # drawn without repeats
            assert (others[len(kept):] == NO_MOVE).all()  # padding after the moves
            opponent_rows += bool(len(kept))
    assert opponent_rows  # (a decision with one legal move keeps none)


def test_the_other_moves_are_legal_at_the_opponents_decision(monkeypatch):
    checked = []
    actor = imitating_actor(imitate=3, players=3, seed=2)
    record = actor._record

    def spy(i, st, seat, role, obs, hist, action, others=None):
        if others is not None:
            legal = set(st.legal_actions())
            assert action in legal and set(others[others != NO_MOVE].tolist()) <= legal
            assert len(others[others != NO_MOVE]) == min(3, len(legal) - 1)
            checked.append(seat)
        record(i, st, seat, role, obs, hist, action, others)

    monkeypatch.setattr(actor, "_record", spy)
    for _ in range(100):
        actor.step()
    assert checked


def test_without_imitation_batches_carry_no_other_moves():
    actor = imitating_actor(imitate=0)
    while not actor.transport.batches:
        actor.step()
    assert all(b.others is None for b in actor.transport.batches)


def _batch(game, net, others):
    rng = np.random.default_rng(0)
    size = len(others)
    hist = net.config.history_length
    return Batch(role=0, obs=rng.random((size, game.layout.size), dtype=np.float32),
                 hist_actions=np.full((size, hist), -1, np.int32),
                 hist_movers=np.full((size, hist), -1, np.int8),
                 actions=np.arange(size, dtype=np.int32),
                 targets=np.zeros(size, np.float32), others=np.array(others, np.int32))


def test_the_margin_loss_is_the_hinge_of_the_best_other_move():
    game = make_game("daifugo", 4)
    torch.manual_seed(0)
    net = small_net(game)
    batch = _batch(game, net, [[5, 6, -1], [-1, -1, -1], [7, -1, -1]])
    codes = net.encode(torch.from_numpy(batch.obs), torch.from_numpy(batch.hist_actions).long(),
                       torch.from_numpy(batch.hist_movers).long())
    with torch.no_grad():
        q = net.score(codes, torch.arange(3), torch.from_numpy(batch.actions).long())
        got = margin_loss(net, codes, q, batch.others, 0.25).item()
        other = {(b, a): net.score(codes, torch.tensor([b]), torch.tensor([a])).item()
                 for b, a in ((0, 5), (0, 6), (2, 7))}
    want = (max(0.0, max(other[0, 5], other[0, 6]) + 0.25 - q[0].item())
            + 0.0  # the second sample has no other moves
            + max(0.0, other[2, 7] + 0.25 - q[2].item())) / 3
    assert got == pytest.approx(want, rel=1e-5)


def test_imitation_steps_raise_the_played_move_over_the_others():
    game = make_game("daifugo", 4)
    torch.manual_seed(1)
    net = small_net(game)
    opt = torch.optim.RMSprop(net.parameters(), lr=1e-3)
    batch = _batch(game, net, [[9, 10, 11]] * 8)
    batch.targets[:] = 0.0

    def gap():
        with torch.no_grad():
            q = net(torch.from_numpy(batch.obs), torch.from_numpy(batch.hist_actions).long(),
                    torch.from_numpy(batch.hist_movers).long(),
                    torch.tensor([0, 9, 10, 11]), torch.zeros(4, dtype=torch.long))
        return (q[0] - q[1:].max()).item()

    for _ in range(60):
        learn(net, opt, batch, 40.0, imitation=1.0, margin=0.5)
    assert gap() > 0.4


@pytest.mark.parametrize("settings, said", [
    ({"imitation": 1.0}, "imitation is a loss on the opponents' decisions: it needs learn_opponents"),
    ({"imitation": -1.0}, "bad value for imitation: -1.0"),
    ({"imitation_margin": 0.0}, "bad value for imitation_margin: 0.0"),
    ({"imitation_moves": 0}, "bad value for imitation_moves: 0"),
])
def test_bad_imitation_settings_are_refused_naming_them(tmp_path, settings, said):
    with pytest.raises(ValueError) as err:
        small_args(tmp_path, **settings).validate()
    assert said in str(err.value)


def test_president_keeps_no_twin_of_the_played_move_among_the_others(monkeypatch):
    """Where no rule reads suits, ``4h`` plays as ``4s`` does: holding the opponent's ``4s``
    above it would teach a suit preference, not a move (the regression: President's
    imitation rose slowly while its strength fell)."""
    actor = imitating_actor(imitate=16, seed=1, preset="president")
    game = actor.game
    assert not game.rules.suits_matter
    classes = game.move_classes()
    seen = []
    record = actor._record

    def spy(i, st, seat, role, obs, hist, action, others=None):
        if others is not None:
            legal = st.legal_actions()
            kept = others[others != NO_MOVE].tolist()
            assert all(classes[a] != classes[action] for a in kept)
            unlike = {a for a in legal if classes[a] != classes[action]}
            assert set(kept) <= unlike and len(kept) == min(16, len(unlike))
            seen.append(len(legal) - 1 - len(kept))  # the twins left out
        record(i, st, seat, role, obs, hist, action, others)

    monkeypatch.setattr(actor, "_record", spy)
    for _ in range(150):
        actor.step()
    assert seen and max(seen) > 0  # some decisions had twins
