"""The trainer, the network, the specs and the evaluation harness know no game by name: what
differs between games comes from the engines (``climbrl.envs.core.game``) and the registry
``climbrl.envs.GAMES``, so a new game is an engine and an entry, nothing more."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAME_WORDS = re.compile(r"doudizhu|daifugo|president|landlord|peasant", re.IGNORECASE)
GAME_BLIND = sorted(
    [p for p in (ROOT / "training").glob("*.py")]
    + [ROOT / "policies" / f"{name}.py" for name in ("network", "spec", "registry", "neural",
                                                      "search")]
)
"""the modules that must not name a game, its roles or its sides (play/server/ holds the
table server's per-game adapters and is not among them)"""


def _docstring_lines(tree: ast.AST) -> set[int]:
    """The lines of every string that stands alone as a statement (module, class, function
    and attribute docstrings)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def game_names_in_code(source: str) -> list[tuple[int, str]]:
    """``(line, token)`` of each token of code (not a comment, not a docstring) that names a
    game or a role of one."""
    docs = _docstring_lines(ast.parse(source))
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            continue
        if tok.type == tokenize.STRING and tok.start[0] in docs:
            continue
        if GAME_WORDS.search(tok.string):
            found.append((tok.start[0], tok.string))
    return found


def test_the_scan_finds_a_game_name_in_code_but_not_in_docs():
    source = '''"""Daifugo's docstring may name it."""
# so may a comment: doudizhu
X = 1
"""an attribute docstring: landlord"""


def f(game):
    """President, in a docstring."""
    return game.name == "doudizhu" or ROLES.index("peasant_after")  # a comment: landlord
'''
    assert game_names_in_code(source) == [(9, '"doudizhu"'), (9, '"peasant_after"')]
    assert game_names_in_code("fixed_landlord = 0.0\n") == [(1, "fixed_landlord")]
    assert game_names_in_code('from climbrl.envs.daifugo import Rules\n') == [(1, "daifugo")]


@pytest.mark.parametrize("path", GAME_BLIND, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_trainer_network_specs_and_harness_name_no_game(path):
    # what a module must not do: branch on a game's name, import its engine, name its roles;
    # a game's knowledge goes in its engine (climbrl.envs.core.game), its facts in climbrl.envs.GAMES
    found = game_names_in_code(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)} names a game in code: {found}"


# -- a new game needs no change outside its own module ------------------------------------------


@pytest.fixture
def toy(monkeypatch):
    import toy_game

    toy_game.register(monkeypatch)
    return toy_game


def test_a_new_game_gets_its_spec_network_and_episode_starts_from_the_protocol(toy):
    import numpy as np
    import torch

    from climbrl.policies.network import NetConfig, build_network
    from climbrl.policies.spec import (check_spec, episode_starter, game_from_spec, make_game,
                               model_spec, return_groups, role_of, roles)

    game = make_game("toy")
    spec = model_spec(game)
    check_spec(spec, game)
    assert spec["game"] == "toy" and game_from_spec(spec).config_dict() == game.config_dict()
    assert roles(game) == ("seat",)
    state = episode_starter(game, {})(np.random.default_rng(0))
    assert role_of(game, state, 1) == 0
    assert return_groups(game, state) == [("seat_0", 0), ("seat_1", 1), ("seat_2", 2)]
    with pytest.raises(ValueError, match="fixed_landlord is not a training start option of "
                                         "'toy'"):
        episode_starter(game, {"fixed_landlord": 0.5})
    net = build_network(game, NetConfig(history_length=4, history_group=2, lstm_hidden=8,
                                        state_layers=(16,), pair_layers=(8,)))
    assert sum(p.numel() for p in net.parameters()) > 0 and isinstance(net, torch.nn.Module)


def test_a_new_game_is_trained_and_evaluated_with_no_change_outside_its_module(toy, tmp_path):
    from trainer_helpers import small_args
    from climbrl.training import evaluate
    from climbrl.training.dmc import train

    run = train(small_args(tmp_path, game="toy", total_frames=300, eval_every_frames=200,
                           eval_deals=2))
    assert run["frames"] >= 300 and run["stopped"].startswith("total_frames reached")
    # the periodic evaluation is the harness's, with the figures of a game scored by places
    assert len(run["evaluations"]) >= 2
    assert all("points_per_round" in e["figures"] for e in run["evaluations"])
    checkpoint = str(Path(run["run_dir"]) / "checkpoint.pt")
    config = evaluate.EvalConfig("toy", ((checkpoint, "random", "random"),), deals=3,
                                 workers=1, progress=False)
    records = evaluate.run(config)
    assert len(records) == 3 * 3 and all(len(r["places"]) == 1 for r in records)
    report = evaluate.summarize(config, records)
    mine = report.players[checkpoint]["points_per_round"]
    assert 0 <= mine["low"] <= mine["mean"] <= mine["high"] <= 2
    assert "points/round" in evaluate.format_report(report)
    with pytest.raises(ValueError, match="Toy seats 3 players, got lineups of 4"):
        evaluate.EvalConfig("toy", (("random",) * 4,))


def test_a_new_game_of_sides_trains_a_network_per_role_and_is_measured_per_side(toy, tmp_path):
    # the sides, the roles and the start option are the toy's own names: nothing outside its
    # module knows them
    from trainer_helpers import small_args
    from climbrl.training import evaluate
    from climbrl.training.dmc import train

    args = small_args(tmp_path, game="toy_sides", chasers_first=0.5, total_frames=300,
                      eval_every_frames=200, eval_deals=2)
    assert args.start == {"chasers_first": 0.5}
    run = train(args)
    assert run["evaluations"] and all({"WP_runner", "WP_chasers"} <= set(e["figures"])
                                      for e in run["evaluations"])
    checkpoint = str(Path(run["run_dir"]) / "checkpoint.pt")
    config = evaluate.EvalConfig("toy_sides", evaluate.pool_lineups([checkpoint, "random"], 3,
                                                                     "fixed"),
                                 deals=3, workers=1, progress=False, sides="fixed")
    records = evaluate.run(config)
    # A B B and B A A on each deal; the record names the lone seat by its side
    assert len(records) == 2 * 3 and all(r["runner"] == 0 for r in records)
    report = evaluate.summarize(config, records)
    assert set(report.players[checkpoint]) == {"runner", "chasers"}
    text = evaluate.format_report(report)
    assert "one of them is the runner and the other both chasers" in text
    assert f"WP of {checkpoint} against random: as runner" in text
    with pytest.raises(ValueError, match="chasers_first is a Toy sides setting; 'toy' has no"):
        small_args(tmp_path, game="toy", chasers_first=0.5).validate()
    with pytest.raises(ValueError, match="chasers_first must be a share in"):
        small_args(tmp_path, game="toy_sides", start={"chasers_first": 2}).validate()
