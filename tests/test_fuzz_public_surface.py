"""A hypothesis fuzz of the public surface: env constructors with random options, reset
options, ``step`` with random values of random types, the card-text parsers of both games and
``action_from_str``. Each call either succeeds or raises ``ValueError``/``TypeError`` with a
message; nothing else escapes, and what succeeds was not silently converted (a switch given as
``"false"``, an action given as ``12.7``).

The examples are derandomized so the suite is reproducible; ``HYPOTHESIS_PROFILE=explore``
draws fresh ones (and more of them).
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daifugo_helpers import game_for
from climbrl.envs import daifugo_v1, doudizhu_v1, president_v1
from climbrl.envs.core.aec import IllegalMoveWarning
from climbrl.envs.daifugo.cards import Deck
from climbrl.envs.daifugo.rules import Rules
from climbrl.envs.doudizhu.cards import format_cards
from climbrl.envs.doudizhu.cards import parse as ddz_parse
from climbrl.envs.doudizhu.engine import DoudizhuGame

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore", max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

EXPECTED = (ValueError, TypeError)

#: values of many types: the wrong ones a user might pass, and a few odd ones
ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.integers(-3, 10),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["true", "false", "no", "yes", "0", "1", "", "None", "3", "daifugo"]),
    st.binary(max_size=3),
    st.lists(st.integers(-2, 9), max_size=5),
    st.tuples(st.integers(0, 3), st.integers(0, 3)),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.builds(np.int64, st.integers(-5, 60)),
    st.builds(np.float32, st.floats(-5, 60, width=32)),
    st.builds(np.bool_, st.booleans()),
    st.builds(lambda v: np.array([v]), st.integers(0, 60)),
    st.builds(lambda v: np.array([[v]]), st.integers(0, 60)),
)

RULE_FIELDS = {f.name: f.type for f in dataclasses.fields(Rules)}
#: plausible values of each rule field, mixed with ANYTHING
PLAUSIBLE = {
    "bool": st.booleans(),
    "int": st.integers(0, 8),
    "str": st.sampled_from(["same", "any", "three_of_diamonds", "first_dealt", "last_place",
                            "top_place", "random", "after_last_place"]),
    "tuple[int, ...]": st.lists(st.integers(-1, 4), max_size=4).map(tuple),
    "tuple[str, ...]": st.lists(st.sampled_from(["A", "B", "C"]), max_size=4).map(tuple),
}


def value_for(kind: str):
    return st.one_of(PLAUSIBLE[kind], ANYTHING)


def assert_clear(err: BaseException) -> None:
    assert isinstance(err, EXPECTED), f"{type(err).__name__}: {err}"
    assert str(err).strip(), f"{type(err).__name__} without a message"


def taken_as_given(kind: str, given, stored) -> bool:
    """Whether ``stored`` is ``given`` without a conversion that changes its meaning."""
    if kind == "bool":
        return isinstance(given, (bool, np.bool_)) and stored is bool(given)
    if kind == "int":
        plain = isinstance(given, (int, np.integer)) and not isinstance(given, (bool, np.bool_))
        return plain and type(stored) is int and stored == given
    if kind == "str":
        return isinstance(given, str) and stored == given
    return isinstance(given, (list, tuple)) and stored == tuple(given) and all(
        type(v) in (int, str) for v in stored
    )


# ------------------------------------------------------------------ constructors


@st.composite
def daifugo_kwargs(draw):
    names = draw(st.lists(st.sampled_from(sorted(set(RULE_FIELDS) - {"players", "preset_name"})),
                          max_size=3, unique=True))
    kwargs = {name: draw(value_for(RULE_FIELDS[name])) for name in names}
    if draw(st.booleans()):
        kwargs["players"] = draw(st.one_of(st.integers(2, 9), ANYTHING))
    if draw(st.booleans()):
        kwargs["reward"] = draw(st.one_of(st.sampled_from(["centered", "raw"]), ANYTHING))
    if draw(st.booleans()):
        kwargs["illegal_reward"] = draw(st.one_of(st.floats(-5, 5), ANYTHING))
    return kwargs


@given(module=st.sampled_from([daifugo_v1, president_v1]), kwargs=daifugo_kwargs())
def test_daifugo_and_president_constructors(module, kwargs):
    try:
        env = module.raw_env(**kwargs)
    except Exception as err:  # noqa: BLE001 (the point: only clear errors escape)
        assert_clear(err)
        return
    rules = env.rules
    for name, value in kwargs.items():
        if name in ("players", "rounds") and value is None:
            continue  # the preset's own (documented)
        if name in RULE_FIELDS:
            assert taken_as_given(RULE_FIELDS[name], value, getattr(rules, name)), (name, value)
    if "illegal_reward" in kwargs:
        value = kwargs["illegal_reward"]
        assert not isinstance(value, (bool, str, np.bool_)) and env.illegal_reward == value


@given(
    reward=st.one_of(st.sampled_from(["score", "win"]), ANYTHING),
    max_redeals=st.one_of(st.integers(-2, 40), ANYTHING),
    history_length=st.one_of(st.integers(-2, 200), ANYTHING),
    render_mode=st.one_of(st.sampled_from([None, "ansi", "human", "rgb_array"]), ANYTHING),
)
def test_doudizhu_constructor(reward, max_redeals, history_length, render_mode):
    try:
        env = doudizhu_v1.raw_env(reward=reward, max_redeals=max_redeals,
                                  history_length=history_length, render_mode=render_mode)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    config = env.game.config
    assert config.reward == reward
    assert taken_as_given("int", max_redeals, config.max_redeals)
    assert taken_as_given("int", history_length, config.history_length)


# ------------------------------------------------------------------ reset options

DAIFUGO_GAMES = [("daifugo", 4, ()), ("president", 6, ()), ("daifugo", 3, (("rounds", 2),))]
CARD_WORDS = st.sampled_from(["3s", "4h", "JK", "Qs", "Qs", "Td", "2c", "10h", "Xq", "7", ""])


@st.composite
def daifugo_options(draw, players):
    keys = draw(st.lists(st.sampled_from(["deal", "hands", "leader", "titles", "seed", "odd"]),
                         max_size=4, unique=True))
    hand = st.lists(CARD_WORDS, min_size=1, max_size=5).map(" ".join)
    plausible = {
        "deal": st.one_of(st.just("4P1D2J-0"), st.text(max_size=10)),
        "hands": st.lists(hand, min_size=players - 1, max_size=players + 1),
        "leader": st.integers(-1, players),
        "titles": st.permutations(list(range(players))),
        "seed": st.integers(-1, 2**64),
        "odd": st.integers(),
    }
    return {k: draw(st.one_of(plausible[k], ANYTHING)) for k in keys}


@pytest.mark.parametrize("config", DAIFUGO_GAMES, ids=lambda c: f"{c[0]}{c[1]}")
@given(data=st.data())
def test_daifugo_reset_options(config, data):
    game = game_for(*config)
    options = data.draw(st.one_of(daifugo_options(game.num_players), ANYTHING))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = game.new_state(np.random.default_rng(0), options)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    assert state.terminal or state.legal_actions()
    assert state.hands[state.current_player]
    assert_integers_as_given(options, ("leader", "seed"))
    for place in (options or {}).get("titles") or ():
        assert taken_as_given("int", place, int(place)), options


def assert_integers_as_given(options, names) -> None:
    """The options were a dict (or None), and those that are seats, bids or seeds were
    integers, not bools or floats."""
    assert options is None or isinstance(options, dict), f"{options!r} taken as options"
    for name in names:
        if (options or {}).get(name) is not None:
            assert taken_as_given("int", options[name], int(options[name])), (name, options)


@st.composite
def doudizhu_options(draw):
    keys = draw(st.lists(st.sampled_from(["deal", "hands", "kitty", "first_bidder", "landlord",
                                          "bid"]), max_size=5, unique=True))
    deck = "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR"
    order = draw(st.permutations(list(deck)))
    text = "".join(order)
    plausible = {
        "deal": st.one_of(st.just("DDZ-0"), st.text(max_size=10)),
        "hands": st.just([text[0:17], text[17:34], text[34:51]]),
        "kitty": st.one_of(st.just(text[51:]), st.text(max_size=4)),
        "first_bidder": st.integers(-1, 3),
        "landlord": st.integers(-1, 3),
        "bid": st.integers(-1, 4),
    }
    return {k: draw(st.one_of(plausible[k], ANYTHING)) for k in keys}


@given(options=st.one_of(doudizhu_options(), ANYTHING))
def test_doudizhu_reset_options(options):
    game = DoudizhuGame()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = game.new_state(np.random.default_rng(0), options)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    assert state.legal_actions()
    assert_integers_as_given(options, ("first_bidder", "landlord", "bid"))


# ------------------------------------------------------------------ step with anything


def is_integer_id(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.shape in ((), (1,)) and value.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@pytest.mark.parametrize("module", [daifugo_v1, doudizhu_v1], ids=["daifugo", "doudizhu"])
@given(values=st.lists(st.one_of(ANYTHING, st.integers(0, 30000)), min_size=1, max_size=6))
def test_step_with_values_of_any_type(module, values):
    env = module.env()
    env.reset(seed=1)
    for value in values:
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", IllegalMoveWarning)
                env.step(value)
        except Exception as err:  # noqa: BLE001
            assert_clear(err)
            assert not is_integer_id(value), f"an integer id {value!r} was refused: {err}"
            assert env.agent_selection == agent  # nothing moved
            continue
        assert is_integer_id(value), f"{value!r} was taken as an action"


# ------------------------------------------------------------------ text parsers

DAIFUGO_TEXT = st.text(alphabet="3456789TJQKA2shdcSHDCJK10 ,=♠♥xzB", max_size=20)
DDZ_TEXT = st.text(alphabet="3456789TJQKA2BRbrjqka10 ,pasbid x", max_size=22)


@given(decks=st.sampled_from([1, 2]), jokers=st.sampled_from([0, 1, 2]),
       text=st.one_of(DAIFUGO_TEXT, ANYTHING))
def test_daifugo_card_text(decks, jokers, text):
    deck = Deck(decks, jokers)
    try:
        mask = deck.parse(text)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    assert isinstance(text, str)
    assert deck.parse(deck.format(mask)) == mask
    assert mask.bit_count() == len(text.replace(",", " ").split())


@given(text=st.one_of(DDZ_TEXT, ANYTHING))
def test_doudizhu_card_text(text):
    try:
        packed = ddz_parse(text)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    assert isinstance(text, str)
    assert ddz_parse(format_cards(packed)) == packed


MOVE_GAMES = [("daifugo", 4, ()), ("president", 6, ()),
              ("president", 4, (("runs", True), ("jokers", 2)))]


@pytest.mark.parametrize("config", MOVE_GAMES, ids=lambda c: f"{c[0]}{c[1]}-{len(c[2])}")
@given(text=st.one_of(DAIFUGO_TEXT, st.sampled_from(["pass", "give 3s", "3s JK=4s 5s",
                                                      "7 7 JK", "3 JK=4 5", "Q Q"]), ANYTHING),
       giving=st.booleans())
def test_daifugo_action_from_str(config, text, giving):
    catalog = game_for(*config).catalog
    try:
        action = catalog.action_from_str(text, giving=giving)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    assert type(action) is int and 0 <= action < catalog.size
    assert catalog.action_from_str(catalog.action_to_str(action)) == action


@given(text=st.one_of(DDZ_TEXT, st.sampled_from(["pass", "bid 2", "BR", "33344", "3"]),
                      ANYTHING),
       bidding=st.booleans())
def test_doudizhu_action_from_str(text, bidding):
    catalog = DoudizhuGame().catalog
    try:
        action = catalog.action_from_str(text, bidding=bidding)
    except Exception as err:  # noqa: BLE001
        assert_clear(err)
        return
    assert type(action) is int and 0 <= action < catalog.num_actions
    assert catalog.action_from_str(catalog.action_to_str(action)) == action
