"""The compiled core of Daifugo, President and UECda (``climbrl.envs.daifugo._fast``,
envs/daifugo/_fast.c) against the pure-Python reference: random playouts of every preset, 3 to
8 players and a spread of house rules through the env, with and without it, equal move for
move, state for state, observation and mask for observation and mask, reward for reward,
every seat's observation against the Python writer from scratch at every step; the rule
cases' set-up positions (joker runs, a joker below the 3, revolutions, eight cuts, locks, the
exchange) the same; bad states and masks refused with an error. What every game's compiled
core must do (built by the install, ``CLIMBRL_PURE=1``, the fallback, seat observers,
pickling, the sdist) is tested for both games in tests/test_compiled_cores.py."""

from __future__ import annotations

import pickle
import random
from types import SimpleNamespace

import numpy as np
import pytest
from climbrl.envs import daifugo_v1, president_v1, uecda_v1
from climbrl.envs.core.game import SeatBuffers
from climbrl.envs.daifugo import PHASE_EXCHANGE, DaifugoGame, Rules, compiled
from climbrl.envs.daifugo.catalog import BELOW_3, PASS, RUN
from climbrl.envs.daifugo.observation import observe
from compiled_helpers import play_side_by_side
from daifugo_cases import CASES as DAIFUGO_CASES
from uecda_cases import UECDA_CASES

BUILT = compiled.available()
needs_build = pytest.mark.skipif(not BUILT, reason="the compiled core (_fast) is not built here: "
                                 "no C compiler or Python headers at install time")
MODULES = {"daifugo": daifugo_v1, "president": president_v1, "uecda": uecda_v1}
TABLES = [
    ("daifugo", 3, {}), ("daifugo", 4, {}),
    *[("daifugo", 4, {rule: False}) for rule in Rules.HOUSE_RULES if rule != "illegal_finish"],
    ("daifugo", 4, {"illegal_finish": True, "rounds": 2}),
    ("daifugo", 3, {"jokers": 1, "lock": False, "run_suits": "any"}),
    ("daifugo", 4, {"strict_pass": False, "skip_on_equal": True, "bombs": True, "jokers": 0,
                    "spade_three_return": False}),
    ("daifugo", 4, {"decks": 2, "lock": False, "first_leader": "first_dealt",
                    "later_leader": "top_place", "later_dealing": "after_last_place"}),
    ("daifugo", 4, {"runs": False, "jokers_wild": False, "exchange": (1,)}),
    *[("president", n, {}) for n in range(3, 9)],
    *[("president", n, {"runs": True}) for n in range(3, 9)],
    ("president", 5, {"jokers": 2, "runs": True, "run_suits": "same"}),
    ("president", 7, {"jokers": 1, "strict_pass": True, "bombs": True, "rounds": 2}),
    ("uecda", 5, {"rounds": 4}),
]
"""(preset, players, rules): every preset at every size, each house rule off, both run kinds,
one and two decks, 0 to 2 jokers, every leader and dealing choice (UECda: 4 rounds, an
exchange and a reseating)"""
GAMES = {3: 3, 4: 2, 5: 2}
"""random games per table by its players (1 from 6 up: a step checks every seat)"""
STATE_FIELDS = tuple(s for s in DaifugoGame().new_state(np.random.default_rng(0)).__slots__
                     if s not in ("game", "_legal"))
"""every attribute of a state but its game and its cache"""


def _table_id(table) -> str:
    preset, players, rules = table
    return f"{preset}-{players}p-" + "-".join(f"{k}={v}" for k, v in rules.items())


def test_every_table_is_one_the_rules_allow():
    # a table the rules refused would be dropped unnoticed by a skip: it fails here instead
    for preset, players, rules in TABLES:
        Rules.preset(preset, players, **rules)


def _env(monkeypatch, pure: bool, preset: str, players: int, rules: dict):
    """The env of a table made with ``CLIMBRL_PURE`` set as ``pure`` says."""
    monkeypatch.setenv(compiled.PURE_ENV, "1" if pure else "0")
    env = MODULES[preset].env(players=players, **rules)
    assert env.unwrapped.game.compiled is (not pure and BUILT)
    return env


def _state_facts(state) -> dict:
    return {name: getattr(state, name) for name in STATE_FIELDS}


def _assert_seats_equal(game, state, where: str) -> None:
    """Every seat's observation from the game's writer (the C one where it is used) equals
    the pure-Python writer's from scratch."""
    for seat in range(game.num_players):
        got, want = game.observe(state, seat), observe(game, state, seat)
        if not np.array_equal(got, want):
            bad = np.flatnonzero(got != want)
            fields = [n for n, s in game.layout.slices.items() if s.start <= bad[0] < s.stop]
            pytest.fail(f"{where} seat {seat}: {fields} at {bad.tolist()}: "
                        f"{got[bad].tolist()} != {want[bad].tolist()}")


@needs_build
@pytest.mark.parametrize("table", TABLES, ids=_table_id)
def test_random_playouts_equal_with_and_without_the_compiled_core(table, monkeypatch):
    """Both envs step alike; every observation the env hands out (the compiled observer's,
    the Python incremental observer's), its mask, reward and info are equal at every step, and
    so are every seat's from scratch."""
    _preset, players, _rules = table
    fast, pure = (_env(monkeypatch, flag, *table) for flag in (False, True))
    pick = random.Random(players)

    def check(where: str) -> None:
        other = pick.choice(pure.possible_agents)  # a seat that may not be to move
        got, want = fast.observe(other), pure.observe(other)
        assert np.array_equal(got["observation"], want["observation"]), where
        assert np.array_equal(got["action_mask"], want["action_mask"]), where
        state = fast.unwrapped.game_state
        assert _state_facts(state) == _state_facts(pure.unwrapped.game_state), where
        _assert_seats_equal(fast.unwrapped.game, state, where)

    games = GAMES.get(players, 1)
    seeds = [100 * players + game for game in range(games)]
    steps = play_side_by_side(fast, pure, seeds, pick, _table_id(table), check)
    assert steps > 30 * games


def _case_games(case: dict) -> DaifugoGame:
    rules = Rules.preset(case.get("preset", "daifugo"), len(case["hands"]),
                         **case.get("rules", {}))
    return DaifugoGame(rules, pure=False)


@needs_build
def test_rule_case_positions_equal_with_and_without_the_compiled_core():
    """The rule cases' set-up positions, after each of their moves and then in random play to
    the end of the round: every seat's observation equal to the Python writer's. The cases
    reach the rare branches, counted here so that a change of the cases cannot drop them."""
    cases = [*DAIFUGO_CASES, *({**c, "preset": "uecda"} for c in UECDA_CASES)]
    seen = dict.fromkeys(("joker below the 3", "joker in a run", "revolution", "jack back",
                          "eight cut", "lock", "exchange", "titles", "unsuited pile"), 0)
    pick = random.Random(0)
    for case in cases:
        game = _case_games(case)
        assert game.compiled
        cat = game.catalog
        options = {"hands": case["hands"],
                   "leader": case.get("leader", 0 if "titles" not in case else None)}
        if "titles" in case:
            options["titles"] = case["titles"]
        state = game.new_state(np.random.default_rng(0), options)
        moves = list(case.get("moves", ()))
        steps = 0
        while not state.terminal and steps < 200:
            _assert_seats_equal(game, state, f"{case['name']} step {steps}")
            a = state.pile
            seen["joker below the 3"] += a >= 0 and cat.kind[a] == RUN and cat.low[a] == BELOW_3
            seen["joker in a run"] += (a >= 0 and cat.kind[a] == RUN
                                       and bool(state.pile_cards & game.deck.joker_mask))
            seen["revolution"] += state.revolution
            seen["jack back"] += state.jack_back
            seen["lock"] += state.lock != 0
            seen["exchange"] += state.phase == PHASE_EXCHANGE
            seen["titles"] += max(state.titles) >= 0
            seen["unsuited pile"] += a >= 0 and cat.unsuited[a]
            seen["eight cut"] += "eight_cut" in case["name"]
            if moves:
                action = game.action_from_str(moves.pop(0), state)
            else:
                legal = state.legal_actions()
                action = legal[pick.randrange(len(legal))]
            state.apply(action)
            steps += 1
    assert all(seen.values()), seen


@needs_build
def test_a_state_of_another_class_is_read_through_its_attributes():
    # the C writer reads a DaifugoState's slots at their offsets; any other object (here its
    # attributes copied into a namespace) goes through getattr, with the same result
    game = DaifugoGame(Rules.preset("president", 6, runs=True), pure=False)
    rng, pick = np.random.default_rng(3), random.Random(3)
    state = game.new_state(rng)
    for step in range(60):
        copy = SimpleNamespace(**_state_facts(state))
        for seat in range(game.num_players):
            want = observe(game, state, seat)
            assert np.array_equal(game.observe(copy, seat), want), step
            assert np.array_equal(game.observe(state, seat), want), step
        legal = state.legal_actions()
        state.apply(legal[pick.randrange(len(legal))])


@needs_build
def test_the_env_gets_new_arrays_of_its_own_from_the_compiled_observer():
    game = DaifugoGame(Rules.preset("president", 4), pure=False)
    buffers = SeatBuffers(game)
    assert buffers.pairs is not None  # the one-call path of the compiled observers
    state = game.new_state(np.random.default_rng(5))
    mover = state.current_player
    first = buffers.observe(state, mover)
    legal = np.flatnonzero(first["action_mask"]).tolist()
    assert legal == sorted(state.legal_actions()) and first["action_mask"].dtype == np.int8
    first["observation"][:] = -1
    first["action_mask"][:] = 1
    again = buffers.observe(state, mover)
    assert np.array_equal(again["observation"], observe(game, state, mover))
    assert np.flatnonzero(again["action_mask"]).tolist() == legal
    other = buffers.observe(state, (mover + 1) % game.num_players)
    assert not other["action_mask"].any() and other["action_mask"].shape == (game.num_actions,)
    state.terminal = True  # a finished game: nobody has a move
    assert not buffers.observe(state, mover)["action_mask"].any()


@needs_build
def test_the_compiled_mask_refuses_bad_input_with_an_error():
    game = DaifugoGame(Rules.preset("daifugo", 3), pure=False)
    state = game.new_state(np.random.default_rng(0))
    liar = SimpleNamespace(**_state_facts(state), _legal_ids=lambda: [game.num_actions])
    observer = game.seat_observer(state.current_player)
    with pytest.raises(ValueError, match=f"legal action id {game.num_actions} is outside"):
        observer.observation_and_mask(liar)
    liar._legal_ids = lambda: (0,)
    with pytest.raises(TypeError, match=r"state._legal_ids\(\) must return a list"):
        observer.observation_and_mask(liar)
    c_writer = game._fast_writer()._c
    buf = np.zeros(game.layout.size, np.float32)
    with pytest.raises(TypeError, match="made without no_moves"):
        c_writer.observer(0, buf).observation_and_mask(state)
    with pytest.raises(ValueError, match=f"int8 buffer of {game.num_actions} entries"):
        c_writer.observer(0, buf, np.zeros(game.num_actions, np.float32))


def _bad_state(game, **changes):
    state = game.new_state(np.random.default_rng(0))
    for name, value in changes.items():
        setattr(state, name, value)
    return state


@needs_build
def test_the_compiled_writer_refuses_a_bad_state_with_an_error():
    # a bad seat or buffer: test_compiled_cores.py, for both games
    game = DaifugoGame(Rules.preset("daifugo", 4), pure=False)
    state = game.new_state(np.random.default_rng(0))
    bad = {
        "pile": (game.num_actions, rf"state.pile is {game.num_actions}, outside -1..",),
        "hands": ([1 << 54, 0, 0, 0], r"state.hands holds a card mask outside the deck"),
        "played": (-1, r"state.played holds a card mask outside the deck: -1"),
        "order": ((0, 1, 1, 3), r"state.order names seat 1 twice"),
        "places": ([0, 4, -1, -1], r"state.places\[1\] is 4, outside -1..3"),
        "titles": ([0, 1], r"state.titles must be a list of 4 entries"),
        "current_player": (4, r"state.current_player is 4, outside -1..3"),
        "lock": (16, r"state.lock is 16, outside 0..15"),
        "pending": ([[1, 0, 1], [5, 0, 1]], r"state.pending\[1\] names seat 5, outside 0..3"),
    }
    for name, (value, message) in bad.items():
        with pytest.raises(ValueError, match=message):
            game.observe(_bad_state(game, **{name: value}), 0)
    pass_id = game.catalog.kind.index(PASS)
    with pytest.raises(ValueError, match=f"state.pile is {pass_id}, an action that is not a "):
        game.observe(_bad_state(game, pile=pass_id, last_player=0), 0)
    with pytest.raises(TypeError, match="state.hands must hold int card masks, got str"):
        game.observe(_bad_state(game, hands=["3s", 0, 0, 0]), 0)
    with pytest.raises(AttributeError, match="object has no attribute 'pile'"):
        game.observe(SimpleNamespace(), 0)
    with pytest.raises(AttributeError, match="state.pile is not set"):
        game.observe(type(state)(game), 0)  # a state made but never dealt


def test_a_pickled_uecda_game_keeps_its_core_through_with_rules():
    # a pickled game of both games loads its core again: test_compiled_cores.py; here a
    # UECda one, and the rules changed after (with_rules is this game's own)
    rules = Rules.preset("uecda", 5)
    for pure in (False, True):
        game = DaifugoGame(rules, pure=pure)
        state = game.new_state(np.random.default_rng(1))
        game.observe(state, 1)  # the C writer made before pickling is not pickled
        loaded = pickle.loads(pickle.dumps(game))
        assert loaded.compiled is (BUILT and not pure)
        state = loaded.new_state(np.random.default_rng(1))
        assert np.array_equal(loaded.observe(state, 1), observe(loaded, state, 1))
        changed = loaded.with_rules(Rules.preset("uecda", 5, rounds=2))
        assert changed.compiled is loaded.compiled

