"""A trained UECda CPU at every UECda table: the CPU levels' specs (the network, with a
temperature, searching as Daifugo's ``hard`` does) on a tiny network trained and exported
here, through our client on our server, and in the harness's tournaments, whose figures do
not depend on the number of worker processes.

How strong the shipped network plays is measured by ``climbrl eval`` (cpus/README.md), not
here: these tests need any network trained on ``uecda``."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from climbrl import policies
from climbrl.cli import main as cli
from climbrl.envs.core.game import seat_observation
from climbrl.envs.daifugo.rules import UECDA_PLAYERS
from climbrl.play.uecda import client
from climbrl.play.uecda.rules import uecda_game
from climbrl.policies.search import NetworkSearch
from climbrl.training import evaluate

from test_uecda_protocol import _serve_our_clients
from trainer_helpers import one_error_line, small_args

#: a few frames: the tests need a network trained on ``uecda``, not a strong one
TINY_FRAMES = 64
#: the ``hard`` level's knobs (configs/cpus.yaml) with a rollout budget instead of a clock, so
#: that a game replays exactly, and small enough for tests
HARD_KNOBS = "rollouts=8:lead=scripted:scripted=4:top_k=2:setup=scripted"


@pytest.fixture(scope="module")
def cpu(tmp_path_factory):
    """The folder of a tiny network trained on ``uecda`` and exported."""
    from climbrl.training.dmc import train
    from climbrl.training.export import export

    tmp = tmp_path_factory.mktemp("uecda-cpu")
    run = train(small_args(tmp, game="uecda", players=UECDA_PLAYERS, total_frames=TINY_FRAMES))
    return str(export(run["run_dir"], tmp / "cpu"))


def level_specs(cpu: str) -> dict[str, str]:
    """The uecda levels of configs/cpus.yaml, on ``cpu``."""
    return {"easy": f"{cpu}:temperature=0.2", "medium": cpu, "hard": f"search:{cpu}:{HARD_KNOBS}"}


def test_the_uecda_client_seats_a_cpu_trained_on_uecda(cpu):
    """Regression: ``climbrl uecda play`` loaded its player as one of the game ``daifugo``,
    so a network trained on ``uecda`` (the only one that can play the table) was refused
    ("trained on 'uecda', not 'daifugo'") and the UECda levels were Daifugo's."""
    for level, spec in level_specs(cpu).items():
        player = client.load_player(spec, seed=0)
        assert player.game is uecda_game(), level
    assert isinstance(client.load_player(level_specs(cpu)["hard"], seed=0), NetworkSearch)
    for level in ("easy", "medium", "hard"):
        assert client.load_player(level, seed=0).name == level  # UECda's own levels


def test_the_uecda_client_refuses_a_daifugo_cpu_in_one_line(capsys):
    assert cli(["uecda", "play", "--cpu", "cpus/daifugo"]) == 2
    line = one_error_line(capsys)
    assert "--cpu" in line and "'daifugo'" in line and "'uecda'" in line


def test_the_searching_cpu_plays_our_server_through_our_client(cpu):
    """Five searching CPUs (``hard``'s knobs) through the protocol: 4 games of the official
    schedule (the first without the exchange, the later ones with the top classes choosing
    their gifts, which ``setup=scripted`` leaves to scripted-hard); no move refused, none
    made by the fallback player."""
    result, summaries = _serve_our_clients(4, seed=1, spec=level_specs(cpu)["hard"])
    assert result["complete"], result["ended"]
    assert result["refused"] == [0] * UECDA_PLAYERS
    assert result["unreadable"] == [0] * UECDA_PLAYERS
    for summary in summaries:
        assert isinstance(summary, client.Summary), summary
        assert (summary.games, summary.refused, summary.fallbacks) == (4, 0, 0)


def test_a_tournament_of_the_cpu_levels_does_not_depend_on_the_workers(cpu):
    """Each level in a UECda tournament against scripted-hard; two worker processes play
    the same games as one (players are re-seeded per game, the search counts rollouts)."""
    lineup = (*level_specs(cpu).values(), "scripted-hard", "scripted-hard")
    config = evaluate.EvalConfig("uecda", (lineup,), deals=2, rounds=2, workers=1,
                                 progress=False)
    records = evaluate.run(evaluate.check(config))
    assert len(records) == 2 * UECDA_PLAYERS
    assert {len(r["places"]) for r in records} == {2}
    again = evaluate.run(evaluate.EvalConfig(**{**config.__dict__, "workers": 2}))
    assert again == records
    report = evaluate.summarize(config, records)
    assert set(report.to_dict()["players"]) == set(lineup)


def test_the_level_specs_load_as_players_of_the_uecda_table(cpu, tmp_path):
    """configs/cpus.yaml's uecda levels, pointed at a CPU folder next to the config (a
    relative path is read from the config's folder), load and take a seat."""
    shutil.copytree(cpu, tmp_path / "cpus" / "uecda")
    (tmp_path / "configs").mkdir()
    config = tmp_path / "configs" / "cpus.yaml"
    config.write_text(
        "uecda:\n"
        "  easy: ../cpus/uecda:temperature=0.2\n"
        "  medium: ../cpus/uecda\n"
        f"  hard: search:../cpus/uecda:{HARD_KNOBS}\n")
    game = uecda_game()
    for level in ("easy", "medium", "hard"):
        player = policies.load("uecda", level, seed=0, config=config).bind(game)
        state = game.new_state(np.random.default_rng(0))
        seat = state.current_player
        obs = seat_observation(game, state, seat)
        assert obs["action_mask"][player.act(obs, state.view(seat))] == 1


def test_the_search_benchmark_times_a_cpu_at_the_uecda_table(cpu, capsys):
    """``python -m climbrl.benchmarks.search --games uecda`` (ms a decision of the ``hard``
    level, docs/uecda.md); the default ``search:cpus/uecda`` is skipped while none is shipped."""
    from climbrl.benchmarks import search as bench

    spec = f"search:{cpu}:{HARD_KNOBS}"
    out = bench.main(["--games", "uecda", "--positions", "3", "--repeats", "1", "--players",
                      spec, "scripted-hard:rollouts=8", "search:cpus/no-such-cpu"])
    assert "skipped search:cpus/no-such-cpu in uecda" in capsys.readouterr().out
    assert set(out["medians"]["ms median"]) == {f"uecda: {spec}", "uecda: scripted-hard:rollouts=8"}
