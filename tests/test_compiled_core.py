"""The compiled core of Dou Dizhu (``climbrl.envs.doudizhu._fast``: envs/doudizhu/_fast.c, the
observation writer, and _engine.c, legal plays, apply, observation with mask) against the
pure-Python reference: random playouts of every variant through the env, with and without it,
equal move for move, legal list for legal list (order included), state for state, observation
and mask for observation and mask, reward for reward; set-up endgames for the rare shapes
(bombs, rockets, pair chains, airplanes with wings, laizi wild cards); the C legal plays against
the Python generators on rich random hands, leading and replying, and the C apply against the
Python one; bad states refused with an error; the build here produced the engine core too.
What every game's compiled core must do (built by the install, ``CLIMBRL_PURE=1``, the
fallback, seat observers, pickling, the sdist) is tested for both games in
tests/test_compiled_cores.py."""

from __future__ import annotations

import random

import numpy as np
import pytest
from compiled_helpers import needs_compiler, play_side_by_side

from climbrl.envs import doudizhu_v1
from climbrl.envs.core.game import IllegalActionError
from climbrl.envs.doudizhu import DoudizhuConfig, DoudizhuGame, compiled, laizi
from climbrl.envs.doudizhu.cards import NUMBER_RANKS, UNIT

from doudizhu_variants import VARIANTS

BUILT = compiled.available()
needs_build = pytest.mark.skipif(not BUILT, reason="the compiled core (_fast) is not built here: "
                                 "no C compiler or Python headers at install time")
GAMES_PER_VARIANT = 12
EXTRA_CONFIGS = {
    "short_history": {"history_length": 1},
    "long_history_win": {"history_length": 40, "reward": "win"},
}
"""configurations beside the variants: the history window at both ends, the other reward"""
STATE_FIELDS = tuple(s for s in DoudizhuGame().new_state(np.random.default_rng(0)).__slots__
                     if s not in ("game", "_legal", "_code"))
"""every attribute of a state but its game and its caches"""


def _env(monkeypatch, pure: bool, **options):
    """``doudizhu_v1.env(**options)`` made with ``CLIMBRL_PURE`` set as ``pure`` says."""
    monkeypatch.setenv(compiled.PURE_ENV, "1" if pure else "0")
    env = doudizhu_v1.env(**options)
    assert env.unwrapped.game.compiled is (not pure and BUILT)
    return env


def _state_facts(state) -> dict:
    return {name: getattr(state, name) for name in STATE_FIELDS}


def _play_both(monkeypatch, options: dict, games: int, seed: int, reset_options=None) -> int:
    """Random playouts of the env with and without the compiled core, side by side, compared
    at every step; returns the steps compared."""
    fast, pure = _env(monkeypatch, False, **options), _env(monkeypatch, True, **options)

    def check(where: str) -> None:
        state = fast.unwrapped.game_state
        assert _state_facts(state) == _state_facts(pure.unwrapped.game_state), where
        for seat in range(len(pure.possible_agents)):  # every seat, from scratch too
            scratch = fast.unwrapped.game.observe(state, seat)
            assert np.array_equal(scratch, pure.unwrapped.game.observe(state, seat)), where

    seeds = [seed * 1000 + game for game in range(games)]
    return play_side_by_side(fast, pure, seeds, random.Random(seed), str(options), check,
                             reset_options)


@needs_compiler
def test_the_install_built_the_engine_core():
    # the observation writer's build is checked for both games (test_compiled_cores.py); the
    # engine core (_engine.c, legal plays and the apply) is Dou Dizhu's own
    assert BUILT and DoudizhuGame(pure=False)._core is not None


@needs_build
@pytest.mark.parametrize("name", [*VARIANTS, *EXTRA_CONFIGS])
def test_random_playouts_equal_with_and_without_the_compiled_core(name, monkeypatch):
    options = VARIANTS.get(name, EXTRA_CONFIGS.get(name))
    games = GAMES_PER_VARIANT // 2 if DoudizhuConfig(**options).players == 4 else GAMES_PER_VARIANT
    assert _play_both(monkeypatch, options, games, seed=len(name)) > games * 20


ENDGAMES = {
    "bombs_and_rocket": ("classic", ["3333BR2", "4444A", "55556"], {}),
    "pair_chains_and_wings": ("classic", ["333444555JQK7", "66778899TT", "TTJJQQKKAA2"], {}),
    "four_with_two": ("rob_open", ["77778899", "JJJJQKK", "2222AA3"], {}),
    "airplanes_with_pairs": ("classic", ["333444555666778899", "TTTJJJQQ", "KKKAAA22"], {}),
    "laizi_planes_with_wilds": ("laizi", ["3334445555JJ", "66677789", "TTTJJQQ"], {"wild": "5"}),
    "laizi_soft_and_wild_bombs": ("laizi_rob_open", ["33377779BR", "3444A", "88882"],
                                  {"wild": "7"}),
    "four_wide_bombs": ("four", ["33333333BBRR", "44444", "555555", "6666666K"], {}),
    "four_joker_pairs": ("four_rob_open", ["BBRR333444", "44455", "555666", "7778889"], {}),
}
"""set-up endgames (variant, hands with the landlord's first, extra reset options) that reach
the rare branches of the move generators and the apply"""


@needs_build
@pytest.mark.parametrize("name", ENDGAMES)
def test_rare_shapes_play_alike_with_and_without_the_compiled_core(name, monkeypatch):
    variant, hands, extra = ENDGAMES[name]
    options = {"hands": hands, "landlord": 0, "bid": 1, **extra}
    assert _play_both(monkeypatch, VARIANTS[variant], 8, seed=len(name),
                      reset_options=options) > 8 * 3


def _rich_hand(pick: random.Random, copies: tuple[int, ...], most: int) -> int:
    """A random hand of at most ``most`` cards drawing every rank's count uniformly (so far
    more trios, bombs and jokers than a deal gives: airplanes, wings and bombs galore)."""
    cards = [r for r, c in enumerate(copies) for _ in range(pick.randint(0, c))]
    pick.shuffle(cards)
    return sum(UNIT[r] for r in cards[: pick.randint(1, most)])


def _piles(pick: random.Random, pure: DoudizhuGame, state, count: int) -> list[int]:
    """Piles to reply to: plays other rich hands lead (kicker shapes most), a bomb, the
    rocket, and no pile (-1: leading)."""
    cat, setup = pure.catalog, pure.setup
    out = [-1, cat.ROCKET, pick.choice([a for a in range(cat.num_actions)
                                         if cat.bomb_power[a] >= 0])]
    while len(out) < count:
        state.hands[0] = _rich_hand(pick, setup.copies, setup.landlord_hand_size)
        state.pile = -1
        leads = pure.legal_for(state)
        out.append(leads[-1 - pick.randrange(min(len(leads), 40))] if pick.random() < 0.5
                   else pick.choice(leads))
    return out


@needs_build
@pytest.mark.parametrize("name", ["classic", "four", "laizi"])
def test_compiled_legal_plays_equal_the_python_generators_in_order(name):
    # leads and replies of rich random hands, and the apply of some of their plays: the C
    # lists must be the Python generator's, order included, and the C apply its twin
    pure, fast = game_pair(name)
    pick = random.Random(7)
    setup = pure.setup
    state = pure.new_state(np.random.default_rng(0), {
        "hands": ["3", "4", "5", "6"][: pure.num_players], "landlord": 0, "bid": 1})
    hands = 40 if name == "laizi" else 150
    compared = 0
    for _ in range(hands):
        piles = _piles(pick, pure, state, 6)
        state.hands[0] = _rich_hand(pick, setup.copies, setup.landlord_hand_size)
        state.wild = pick.randrange(NUMBER_RANKS) if name == "laizi" else -1
        for pile in piles:
            state.pile = pile
            state.pile_owner = -1 if pile < 0 else 1
            state.pile_power = -1
            if pile >= 0 and state.wild >= 0:
                state.pile_power = laizi.bomb_tier(pure.catalog, pile, state.wild,
                                                   pick.randint(0, 1))
            want = list(pure.legal_for(state))
            assert list(fast._core.legal(state)) == want, (name, state.hands[0], pile)
            compared += len(want)
            for action in pick.sample(want, min(3, len(want))):
                _apply_alike(pure, fast, state, action)
    assert compared > hands * 20


def game_pair(name: str) -> tuple[DoudizhuGame, DoudizhuGame]:
    config = DoudizhuConfig(**VARIANTS[name])
    return DoudizhuGame(config, pure=True), DoudizhuGame(config, pure=False)


def _apply_alike(pure: DoudizhuGame, fast: DoudizhuGame, state, action: int) -> None:
    """``action`` applied to copies of ``state`` by the Python and the C apply: the same
    result and the same state after."""
    python, c = state.clone(), state.clone()
    c.game = fast
    python.history, c.history = [], []
    python._legal = c._legal = None
    assert python.apply(action) == c.apply(action)
    assert _state_facts(c) == _state_facts(python)


@needs_build
def test_an_illegal_move_gets_the_same_error_with_the_compiled_core():
    for name in ("classic", "laizi"):
        pure, fast = game_pair(name)
        messages = []
        for game in (pure, fast):
            state = game.new_state(np.random.default_rng(3), {
                "hands": ["33345", "66", "7"], "landlord": 0, "bid": 1, "wild": "9"}
                if name == "laizi" else {"hands": ["33345", "66", "7"], "landlord": 0,
                                         "bid": 1})
            legal = state.legal_actions()  # cached: apply takes the fast path
            state.apply(game.action_from_str("333"))
            assert state.legal_actions()[0] == game.catalog.PASS
            errors = []
            for bad in ("444", "3", "pass"):
                try:
                    state.clone().apply(game.action_from_str(bad) if bad != "pass"
                                        else game.catalog.PASS + game.num_actions)
                except IllegalActionError as err:
                    errors.append(str(err))
            state.apply(np.int64(game.catalog.PASS))  # not an int: the checked path
            messages.append((legal, errors, _state_facts(state)))
        assert messages[0] == messages[1]
        assert len(messages[0][1]) == 3


@needs_build
def test_the_games_of_one_catalog_share_one_compiled_engine():
    # regression: an engine per game made every env hold its own 3 MB of catalog tables
    first, second = DoudizhuGame(pure=False), DoudizhuGame(DoudizhuConfig(history_length=3),
                                                           pure=False)
    assert first._core is second._core
    assert DoudizhuGame(DoudizhuConfig(players=4), pure=False)._core is not first._core
    state = second.new_state(np.random.default_rng(4))
    assert np.array_equal(second.fresh_observation(state, 1)["observation"],
                          second._writer.write(state, 1))


@needs_build
def test_the_env_computes_the_legal_list_once_a_turn(monkeypatch):
    # the C observation caches the legal tuple on the state; legal_actions reads it
    env = _env(monkeypatch, False)
    env.reset(seed=5)
    for _ in range(60):
        env.last()
        state = env.unwrapped.game_state
        if state.terminal:
            break
        cached = state._legal
        assert cached is not None and env.legal_actions() == list(cached)
        assert state._legal is cached
        env.step(env.legal_actions()[-1])


@needs_build
@pytest.mark.parametrize("name", ["classic", "four", "laizi_rob_open"])
def test_set_up_endgames_equal_with_and_without_the_compiled_core(name, monkeypatch):
    # cards named nowhere are out of play: the unseen cards leave them out
    players = DoudizhuConfig(**VARIANTS[name]).players
    options = {"hands": ["3334", "55", "6", "7"][:players], "landlord": 0, "bid": 1}
    if "laizi" in name:
        options["wild"] = "5"
    _play_both(monkeypatch, VARIANTS[name], 4, seed=3, reset_options=options)


@needs_build
def test_the_compiled_writer_refuses_a_bad_state_with_an_error():
    # a bad seat or buffer: test_compiled_cores.py, for both games
    game = DoudizhuGame(pure=False)
    state = game.new_state(np.random.default_rng(0))
    assert game.layout.size == 1602  # the default layout (its observation: 1602 entries)
    state.history.append((0, game.num_actions))
    with pytest.raises(ValueError, match=f"action id {game.num_actions} is outside the catalog"):
        game.observe(state, 0)

