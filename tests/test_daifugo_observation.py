"""The v1 observation of Daifugo / President: one layout for every table of a preset (rules,
player count, round count), the table's rules written into it, values within the bounds."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from climbrl.envs.daifugo import Catalog, DaifugoGame, Rules
from climbrl.envs.daifugo.catalog import FEATURE_SCHEMA
from climbrl.envs.daifugo.observation import CHOICES, SWITCHES
from climbrl.envs.daifugo.rules import PRESET_PLAYERS

CATALOGS: dict[tuple, Catalog] = {}


def game_of(rules: Rules) -> DaifugoGame:
    """A game sharing the catalog of earlier games with the same catalog key (fast)."""
    key = Catalog.key_of(rules)
    game = DaifugoGame(rules, catalog=CATALOGS.get(key))
    CATALOGS[key] = game.catalog
    return game


#: a sample of tables of each preset: every player count, other round counts, switches
SAMPLE = {
    "daifugo": [{}, {"rounds": 1}, {"rounds": 7}, {"rounds": 20}, {"lock": False},
                {"illegal_finish": True, "jack_back": False}, {"jokers": 1},
                {"jokers": 0, "spade_three_return": False}, {"runs": False},
                {"strict_pass": False, "skip_on_equal": True, "bombs": True}],
    "president": [{}, {"rounds": 3}, {"rounds": 7}, {"runs": True}, {"jokers": 2},
                  {"strict_pass": True, "skip_on_equal": True, "bombs": True},
                  {"revolution": False, "jokers": 1}],
}


def test_observation_is_one_layout_for_every_table():
    """v0 sized the observation by the table (a one-hot round of `rounds` slots, a seat row
    per player, a joker slot only with jokers, rank fields only under unsuited rules), so a
    network could play only its own table; v1 has one layout per preset."""
    for preset, tables in SAMPLE.items():
        layouts = set()
        for players in PRESET_PLAYERS[preset]:
            for switches in tables:
                try:
                    rules = Rules.preset(preset, players, **switches)
                except ValueError:
                    continue  # e.g. a switch that needs one deck, at a two-deck table
                layout = game_of(rules).layout
                layouts.add((tuple(layout.fields.items()),
                             tuple((n, s.start, s.stop) for n, s in layout.slices.items()),
                             tuple(layout.bounds.items())))
        assert len(layouts) == 1, f"{preset}: {len(layouts)} layouts"


def test_seat_rows_are_the_largest_table_of_the_preset():
    for preset, counts in PRESET_PLAYERS.items():
        for players in counts:
            game = game_of(Rules.preset(preset, players))
            assert game.seat_rows == max(counts)
            present = game.layout.view(game.observe(game.new_state(np.random.default_rng(0)),
                                                    0), "present")
            assert present.tolist() == [1.0] * players + [0.0] * (max(counts) - players)


def test_rules_fields_show_the_table():
    rules = Rules.preset("daifugo", 3, rounds=5, lock=False, illegal_finish=True, jokers=1)
    game = game_of(rules)
    state = game.new_state(np.random.default_rng(1))
    obs = game.layout.split(game.observe(state, 0))
    for i, name in enumerate(SWITCHES):
        assert obs["switches"][i] == getattr(rules, name), name
    assert obs["rounds"][0] == 5 and obs["round"][0] == 0 and obs["rounds_left"][0] == 4
    assert obs["jokers"][0] == 1 and obs["decks"][0] == 1
    assert obs["exchange"].tolist() == [1, 0]                     # 3 players: one tier of 1
    assert obs["place_points"].tolist() == [1.0, 0.5, 0.0, 0.0]   # (2, 1, 0) over 2
    assert obs["choices"].sum() == len(CHOICES)
    # the seven house rules and President's switches are all inputs
    assert set(Rules.HOUSE_RULES) | {"strict_pass", "skip_on_equal", "bombs", "runs",
                                     "jokers_wild"} <= set(SWITCHES)


RULE_SWITCHES = st.fixed_dictionaries({}, optional={
    **{name: st.booleans() for name in SWITCHES},
    **{name: st.sampled_from(options) for name, options in CHOICES.items()},
    "rounds": st.sampled_from([1, 2, 3, 5, 7, 20]),
    "jokers": st.integers(0, 2),
    "decks": st.integers(1, 2),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(sorted(PRESET_PLAYERS)), data=st.data(), switches=RULE_SWITCHES,
       seed=st.integers(0, 2**32 - 1))
def test_observation_stays_within_the_layout_bounds(preset, data, switches, seed):
    """Any rules combination: every observation of a random match (every seat's, at every
    step) lies within the layout's bounds, and the absent seats' rows are zeros."""
    players = data.draw(st.sampled_from(PRESET_PLAYERS[preset]), "players")
    try:
        rules = Rules.preset(preset, players, **switches)
    except ValueError:
        return  # a combination the rules refuse (their own tests cover the messages)
    game = game_of(rules)
    low, high = game.layout.low_high()
    rng = np.random.default_rng(seed)
    state = game.new_state(rng)
    steps = 0
    while not state.terminal and steps < 300:
        for seat in range(players):
            obs = game.observe(state, seat)
            assert obs.shape == (game.layout.size,)
            bad = np.flatnonzero((obs < low) | (obs > high))
            assert not bad.size, [(n, obs[s].tolist()) for n, s in game.layout.slices.items()
                                  if s.start <= bad[0] < s.stop]
            for name in ("present", "hand_counts", "active", "scores", "place_points"):
                assert not game.layout.view(obs, name)[players:].any(), name
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        steps += 1


def test_action_features_read_the_same_in_every_catalog():
    """One network scores the moves of any catalog: the feature table has one width, and a
    move present in two catalogs has the same row in both (v0 scaled sizes by the catalog's
    largest move)."""
    tables = [Rules.preset("daifugo", 4), Rules.preset("daifugo", 4, runs=False),
              Rules.preset("daifugo", 4, jokers=1),
              Rules.preset("president", 4), Rules.preset("president", 6, runs=True)]
    games = [game_of(r) for r in tables]
    assert {g.action_features().shape[1] for g in games} == {games[0].action_features().shape[1]}
    assert {g.action_feature_schema for g in games} == {FEATURE_SCHEMA}
    for text in ("pass", "3s", "2c", "give 5d"):
        rows = {g.action_features()[g.action_from_str(text)].tobytes() for g in games}
        assert len(rows) == 1, text
    one_deck = [g for g in games if g.rules.decks == 1]
    rows = {g.action_features()[g.action_from_str("7s 7h")].tobytes() for g in one_deck}
    assert len(rows) == 1
    run = [g for g in games if g.rules.runs and g.rules.run_suits == "same"]
    rows = {g.action_features()[g.action_from_str("3s 4s 5s")].tobytes() for g in run}
    assert len(rows) == 1


def test_games_of_one_catalog_key_share_the_catalog():
    a = DaifugoGame(Rules.preset("daifugo", 4))
    b = DaifugoGame(Rules.preset("daifugo", 3, lock=False, rounds=7), catalog=a.catalog)
    assert b.catalog is a.catalog and b.num_actions == a.num_actions
    try:
        DaifugoGame(Rules.preset("daifugo", 4, jokers=1), catalog=a.catalog)
    except ValueError as err:
        assert "catalog" in str(err)
    else:
        raise AssertionError("a catalog of other rules was accepted")


def test_documented_sizes_are_the_layouts():
    from climbrl.envs import daifugo_v1, president_v1

    daifugo = daifugo_v1.env().unwrapped.game.layout.size
    president = president_v1.env().unwrapped.game.layout.size
    assert f"Daifugo {daifugo}, President {president}" in daifugo_v1.__doc__
    assert f"the same {president} floats" in president_v1.__doc__
