"""Smoke test of ``climbrl.benchmarks.compare`` with a tiny budget (speed is not asserted), and checks of
the cross-check's own reading of docs/rules.md. Peers that are not installed are skipped by the
script itself, so this passes with and without them."""

from __future__ import annotations

import json

import pytest

from climbrl.benchmarks import compare, crosscheck, peers
from climbrl.envs.doudizhu.cards import parse
from climbrl.envs.doudizhu.catalog import get_catalog

TINY = ["--seconds", "0.02", "--repeats", "1", "--hands", "3", "--check-deals", "3"]


def test_compare_runs_with_a_tiny_budget(tmp_path, capsys):
    path = tmp_path / "compare.json"
    # the trainer section is left to test_dmc_actor_loop_is_timed: our trainer's own
    # frames_per_second (branch train) has its own tests and start-up cost
    result = compare.main(TINY + ["--json", str(path), "--sections",
                                  "doudizhu,legal,daifugo,check"])
    out = capsys.readouterr().out
    assert "Dou Dizhu random play" in out and "Legal moves" in out and "target" in out
    assert json.loads(path.read_text())["machine"] == result["machine"]
    play = result["doudizhu_play"]
    assert play[compare.OUR_ENGINE]["steps_per_s"][0] > 0
    assert play[compare.OUR_ENV]["games_per_s"][0] > 0
    for name in peers.PEERS:
        installed, why = peers.available(name)
        if not installed:
            assert f"skipped: {why}" in out
            continue
        assert any(case.startswith(f"{name}:") for case in play)
        compared = result["check"]["compared"][name]
        assert compared["leads"] == 3 + len(crosscheck.EDGE_POSITIONS)
        classes = result["check"]["classes"][name]
        assert not [k for k in classes if k.startswith("bug: ours")], classes


def test_compare_runs_without_any_peer(monkeypatch, capsys):
    monkeypatch.setattr(peers, "available", lambda name: (False, f"{name}: not installed"))
    result = compare.main(TINY + ["--sections", "doudizhu,legal,trainer,check"])
    out = capsys.readouterr().out
    for name in peers.PEERS:
        assert f"skipped: {name}: not installed" in out
    assert f"Dou Dizhu compiled core: {result['compiled_core']}\n" in out
    assert set(result["doudizhu_play"]) == {compare.OUR_ENGINE, compare.OUR_ENV,
                                            compare.OUR_RAW_ENV}
    assert result["check"] == {} and "skipped: the cross-check" in out


def test_dmc_actor_loop_is_timed():
    pytest.importorskip("douzero.dmc", reason="DouZero's DMC (with GitPython) not installed")
    assert compare.douzero_dmc_fps(0.05) > 0


def test_bad_options_name_the_option():
    with pytest.raises(ValueError, match="--sections"):
        compare.main(["--sections", "doudizhu,poker"])
    with pytest.raises(ValueError, match="--peers"):
        compare.main(["--peers", "pgx"])
    with pytest.raises(ValueError, match="unknown peer"):
        peers.available("pgx")


def test_reference_reads_every_catalog_play_as_the_engine_does():
    cat = get_catalog()
    for action in range(cat.pass_segment.stop, cat.num_actions):
        ours = {(r.kind.label, r.length, r.main) for r in cat.readings[action]}
        assert crosscheck.rules_readings(cat.cards[action]) == ours, cat.texts[action]


@pytest.mark.parametrize("text", ["33334444", "3333BR", "34", "2AKQJ", "333444BR", "33445566"])
def test_reference_refuses_non_plays(text):
    # two quads; a quad with both jokers; two singles; a chain through 2; an airplane carrying
    # both jokers; a pair chain needs 3+ pairs but 3344 5566 is 4 pairs: the last one is a play
    readings = crosscheck.rules_readings(parse(text))
    assert bool(readings) == (text == "33445566")


def test_known_differences_are_classified():
    lead = None
    hand = parse("333444555666777789TJ")
    cases = [
        ("openspiel", "777789", "rule: no four-with-two"),
        ("rlcard", "3334445556667777", "rule: no four identical single kickers"),
        ("rlcard", "3334445556667778", "rule: no kicker trio next to the airplane"),
    ]
    for peer, play, klass in cases:
        assert crosscheck.classify(peer, parse(play), hand, lead, ours_allows=True) == klass
    jokers = parse("333445678TJQKA2222BR")
    assert crosscheck.classify("douzero", parse("2222BR"), jokers, None, ours_allows=False) == (
        "rule: both jokers may be single kickers")
    reply = parse("888999TTTJQKAA22B")
    assert crosscheck.classify("douzero", parse("888999TTTJQK"), reply, parse("333444555666"),
                               ours_allows=True) == f"rule: {crosscheck.PILE_ONE_READING}"
    assert crosscheck.classify("openspiel", parse("9999"), parse("9999555666777888A"),
                               parse("BR"), ours_allows=False).startswith("bug: openspiel")
    assert crosscheck.classify("rlcard", parse("3456"), hand, None, ours_allows=True) == (
        crosscheck.OURS_ALLOWS_ILLEGAL)
