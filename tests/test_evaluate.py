"""The evaluation harness, its statistics, the command line and the terminal player."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from climbrl.envs import daifugo_v1
from climbrl.training import evaluate, stats
from climbrl.cli import main as cli
from climbrl.play.terminal import play_match

# -- statistics on known data ----------------------------------------------------------------


def test_mean_ci_on_known_data():
    mean, low, high = stats.mean_ci([1, 2, 3, 4, 5])
    half = 1.959964 * math.sqrt(2.5) / math.sqrt(5)  # sd of 1..5 is sqrt(2.5)
    assert mean == 3
    assert low == pytest.approx(3 - half, rel=1e-6)
    assert high == pytest.approx(3 + half, rel=1e-6)
    assert stats.z_value(0.95) == pytest.approx(1.959964, rel=1e-6)
    assert math.isnan(stats.mean_ci([4.0])[1])
    with pytest.raises(ValueError, match="at least one"):
        stats.mean_ci([])
    with pytest.raises(ValueError, match="confidence level"):
        stats.z_value(1.5)


def test_bradley_terry_on_known_data():
    # 3 wins to 1: odds 3, so 400 * log10(3) = 190.8 Elo apart, centred on 1500
    ratings = stats.bradley_terry(np.array([[0, 3], [1, 0]]), prior=0)
    assert ratings[0] - ratings[1] == pytest.approx(400 * math.log10(3), rel=1e-6)
    assert ratings.mean() == pytest.approx(stats.ELO_CENTER)
    # a transitive three-player table keeps the order
    wins = np.array([[0, 8, 9], [2, 0, 7], [1, 3, 0]])
    r = stats.bradley_terry(wins)
    assert r[0] > r[1] > r[2]
    rating, low, high = stats.ladder(np.stack([wins] * 5), np.random.default_rng(0), samples=20)
    assert np.all(low <= rating + 1e-9) and np.all(rating <= high + 1e-9)
    with pytest.raises(ValueError, match="square"):
        stats.bradley_terry(np.zeros((2, 3)))


# -- duplicate deals ---------------------------------------------------------------------------


def test_rotations_seat_every_player_everywhere():
    assert evaluate.rotations(["a", "b", "b", "b"]) == [
        (0, 1, 2, 3), (3, 0, 1, 2), (2, 3, 0, 1), (1, 2, 3, 0),
    ]
    # A B A B repeats after two rotations: only the distinct ones are played
    two = evaluate.rotations(["a", "b", "a", "b"])
    assert len(two) == 2
    seats_of_a = {seat for slots in two for seat, slot in enumerate(slots) if slot in (0, 2)}
    assert seats_of_a == {0, 1, 2, 3}
    assert evaluate.arrangements(["h", "m", "m"], "fixed") == [(0, 1, 2), (1, 0, 0)]
    assert evaluate.pool_lineups(["a", "b", "c"], 4) == (
        ("a", "b", "a", "b"), ("a", "c", "a", "c"), ("b", "c", "b", "c"),
    )


def test_duplicate_deals_replay_the_same_cards_in_every_rotation():
    config = evaluate.EvalConfig(
        "daifugo", (("random", "easy", "medium", "random"),), deals=2, workers=1, progress=False
    )
    records = evaluate.run(config)
    assert len(records) == 2 * 4
    env = daifugo_v1.env(players=4, rounds=1)
    for deal in (0, 1):
        recs = [r for r in records if r["deal"] == deal]
        assert len({r["code"] for r in recs}) == 1
        assert [r["seats"] for r in recs] == [
            ["random", "easy", "medium", "random"],
            ["random", "random", "easy", "medium"],
            ["medium", "random", "random", "easy"],
            ["easy", "medium", "random", "random"],
        ]
        env.reset(options={"deal": recs[0]["code"]})
        hands = env.unwrapped.game_state.deal_hands
        env.reset(options={"deal": recs[-1]["code"]})
        assert env.unwrapped.game_state.deal_hands == hands
    # the worker count does not change the games
    again = evaluate.run(evaluate.EvalConfig(**{**config.__dict__, "workers": 2}))
    assert again == records


def test_config_errors():
    with pytest.raises(ValueError, match="unknown game"):
        evaluate.EvalConfig("chess", (("a",),))
    with pytest.raises(ValueError, match="one table size"):
        evaluate.EvalConfig("daifugo", (("a", "b", "c"), ("a", "b", "c", "d")))
    with pytest.raises(ValueError, match="Dou Dizhu seats 3 or 4"):
        evaluate.EvalConfig("doudizhu", (("a", "b", "c", "d", "e"),))
    with pytest.raises(ValueError, match="sides='fixed' is a mode of games of sides; Daifugo"):
        evaluate.EvalConfig("daifugo", (("a", "b", "c"),), sides="fixed")
    with pytest.raises(ValueError, match="President seats 3 to 8 players"):
        evaluate.EvalConfig("president", (("a", "b"),))


# -- end to end through the command line ------------------------------------------------------


def test_cli_eval_writes_table_csv_json_and_png(tmp_path, capsys):
    out = tmp_path / "eval"
    assert cli([
        "eval", "--game", "daifugo", "--players", "random,easy,medium", "--deals", "4",
        "--rounds", "2", "--workers", "1", "--no-progress", "--out", str(out), "--seed", "1",
    ]) == 0
    printed = capsys.readouterr().out
    assert "points/round" in printed and "Elo" in printed and "medium" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["deals"] == 4 and summary["games"] == 4 * 3
    pts = {p: v["points_per_round"]["mean"] for p, v in summary["players"].items()}
    # 3 players score 2/1/0 per round: the mean over the table is 1
    assert sum(pts.values()) / 3 == pytest.approx(1.0)
    assert len(summary["pairs"]) == 3 and len(summary["ladder"]) == 3
    rows = list(csv.reader(open(out / "results.csv")))
    assert rows[0] == ["section", "player", "other", "metric", "mean", "low", "high"]
    assert {r[0] for r in rows[1:]} == {"player", "pair", "ladder"}
    assert (out / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_eval_doudizhu_duel_pool(tmp_path, capsys):
    out = tmp_path / "ddz"
    assert cli([
        "eval", "--game", "doudizhu", "--pool", "random,easy", "--landlord", "fixed",
        "--deals", "3", "--workers", "1", "--no-progress", "--out", str(out),
    ]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 3 * 2
    assert set(summary["players"]["easy"]) == {"landlord", "peasants"}
    pair = summary["pairs"][0]
    assert {pair["a"], pair["b"]} == {"random", "easy"} and "WP_a" in pair
    assert "WP of a" in capsys.readouterr().out


# -- the terminal player ----------------------------------------------------------------------


class Scripted:
    """Answers the prompts: first the given lines, then 'moves' and the first legal move."""

    def __init__(self, lines):
        self.lines = list(lines)
        self.out: list[str] = []
        self.want_move = False

    def write(self, text: str) -> None:
        self.out.append(text)

    def read(self, prompt: str) -> str:
        if self.lines:
            return self.lines.pop(0)
        if self.want_move:
            self.want_move = False
            return first_listed_move(self.out[-1])
        self.want_move = True
        return "moves"


def first_listed_move(moves_text: str) -> str:
    """The first move of a Daifugo ``moves`` answer (``legal moves (n):``, then a line per
    shape: ``  sets of 2: 7s 7h | 9s 9d``)."""
    return moves_text.splitlines()[1].split(": ", 1)[1].split(" | ")[0]


def test_terminal_player_plays_a_match_from_typed_text():
    io = Scripted(["help", "hint", "hint", "7x", "pass"])
    scores = play_match("daifugo", ["random", "random", "random"], rounds=2, seed=2,
                        read=io.read, write=io.write)
    text = "\n".join(io.out)
    assert scores is not None and sum(scores) == 2 * (3 + 2 + 1 + 0)
    assert "your hand:" in text and "pile:" in text
    assert "type a move as cards" in text  # help
    assert text.count("hint: ") == 2
    assert "not a move: bad card '7x'" in text
    assert "round 1 of 2 over:" in text and "round 2 of 2 over:" in text
    assert "match over: " in text and "standings: " in text


def test_terminal_player_gives_reasons_for_illegal_moves():
    from climbrl.policies.daifugo.talk import DaifugoTalk

    env = daifugo_v1.env(players=4, rounds=1)
    hands = ["3s 3h 9h 9d Kc", "7s 7h Qd", "5c 6c 8d", "Ts Jh Ah"]
    env.reset(options={"hands": hands, "leader": 1, "seed": 0})
    raw = env.unwrapped
    env.step(raw.action_from_str("7s 7h"))
    for _ in range(2):
        env.step(raw.game.catalog.pass_id)
    talk = DaifugoTalk(raw.game)
    view = raw.view(0)
    legal = raw.legal_actions()

    def why(text):
        return talk.explain(talk.parse(text, view), view, legal)

    assert "reply with the same shape" in why("Kc")
    assert "do not hold" in why("Qs Qh")
    assert why("3s 3h") == "'3s 3h' does not beat 7s 7h in the normal order"
    env2 = daifugo_v1.env(players=4, rounds=1)
    env2.reset(options={"hands": hands, "leader": 0, "seed": 0})
    lead_view = env2.unwrapped.view(0)
    assert talk.explain(raw.game.catalog.pass_id, lead_view, []) == "you lead: you cannot pass"


def test_play_quits_cleanly():
    io = Scripted(["quit"])
    assert play_match("president", ["easy", "easy", "easy"], rounds=1, seed=0,
                      read=io.read, write=io.write) is None
    assert io.out[-1] == "bye"
