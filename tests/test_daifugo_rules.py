"""Runs the rule cases of ``daifugo_cases.py`` (data) and a few rule checks that are not
positions (move text that is no move at all)."""

from __future__ import annotations

import pytest

from daifugo_cases import CASES
from daifugo_helpers import canonical, game_for, legal_texts, position


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule_case(case):
    check_case(case)


def check_case(case: dict) -> None:
    """One rule case as data: its legal, illegal and exact legal moves, its expectations."""
    game, state = position(case)
    legal = legal_texts(game, state)
    for text in case.get("legal", ()):
        assert canonical(game, text, state) in legal, f"{text!r} should be legal; legal: {legal}"
    for text in case.get("illegal", ()):
        assert canonical(game, text, state) not in legal, f"{text!r} should be illegal"
    if "legal_exact" in case:
        assert legal == {canonical(game, t, state) for t in case["legal_exact"]}
    for key, want in case.get("expect", {}).items():
        got = observed(game, state, key, want)
        assert got == want, f"{key}: got {got!r}, want {want!r}"


def observed(game, state, key, want):
    view = state.view(max(state.current_player, 0))
    if key == "current":
        return state.current_player
    if key == "pile":
        return view["pile"]["move"] if view["pile"] else None
    if key in ("lock", "reversed", "revolution", "jack_back", "places", "phase", "scores"):
        return view[key]
    if key == "titles":
        return state.titles
    if key in ("received", "gave"):
        return {s: state.view(s)["exchange"][key] for s in want}
    if key == "hands":
        return {s: state.view(s)["hand"] for s in want}
    raise KeyError(key)


@pytest.mark.parametrize(
    "text",
    ["2s 3s 4s", "Qs Ks As 2s 3s", "7s 8h 9s", "3s 5s 6s", "JK 4s 5s"],
    ids=["2-3-4_no_wrap", "no_wrap_long", "mixed_suits", "gap", "bare_joker_in_run"],
)
def test_not_a_move(text):
    """2-3-4 is not a run (no wrap), a run is one suit without gaps, and a joker in a run must
    say what it stands for."""
    game = game_for("daifugo", 4)
    with pytest.raises(ValueError):
        game.action_from_str(text)


def test_president_joker_in_a_set_is_refused():
    game = game_for("president", 4, (("jokers", 2),))
    with pytest.raises(ValueError, match="not wild"):
        game.action_from_str("7s JK")


def test_regression_any_suit_run_takes_its_cards():
    """Bug caught by the invariant harness: with one deck and any-suit runs (President with
    runs on) the engine used a precomputed card mask that was empty, so a run left the hand
    unchanged."""
    game = game_for("president", 4, (("runs", True),))
    case = dict(preset="president", rules={"runs": True}, hands=["3s 4h 5d 9c", "6c", "7c", "8c"])
    from daifugo_helpers import position

    _, state = position(case)
    state.apply(game.action_from_str("3 4 5"))
    assert state.view(0)["hand"] == "9c"
    assert game.deck.format(state.pile_cards) == "3s 4h 5d"
    # the player named no suits, so the public record is the ranks (hidden information)
    assert state.view(0)["pile"]["cards"] == "3 4 5" == state.view(0)["played_ranks"]
