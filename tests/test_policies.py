"""Players: the registry, legality of every level on every preset, hidden information, the
medium player's strategy tips as rule cases, the hard player's hand sampler, and hints."""

from __future__ import annotations

import importlib.util
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from climbrl import policies
from climbrl.envs import daifugo_v1, president_v1, uecda_v1
from climbrl.envs.core.aec import turns
from climbrl.policies.daifugo import EasyPlayer, HardPlayer, MediumPlayer
from climbrl.policies.daifugo.hand import HandShape, count_groups
from climbrl.policies.daifugo.search import ROLLOUT_EPSILON, HandSampler
from climbrl.policies.hints import Hints
from climbrl.policies.search import NetworkSearch

from daifugo_helpers import game_for, position
from play_helpers import live_turns
from uecda_cases import FILL

ROOT = Path(__file__).resolve().parent.parent

#: a hard player small enough for tests
FAST_HARD = "scripted-hard:rollouts=12:candidates=3"
LEVEL_SPECS = ["random", "easy", "medium", FAST_HARD]

# -- registry ------------------------------------------------------------------------------


def test_registry_levels_resolve_through_the_cpu_config():
    for game in ("daifugo", "president"):
        # easy is the game's trained CPU sampling its moves (configs/cpus.yaml), scripted-easy
        # the scripted one
        easy = policies.load(game, "easy")
        assert easy.name == "easy" and easy.meta["spec"]["game"] == game
        assert easy.temperature > 0
        assert isinstance(policies.load(game, "scripted-easy"), EasyPlayer)
        # medium is the game's network alone, its best move each time
        medium = policies.load(game, "medium")
        assert medium.name == "medium" and medium.meta["spec"]["game"] == game
        assert (medium.temperature, medium.top_k) == (0, None)
        assert isinstance(policies.load(game, "scripted-medium"), MediumPlayer)
        # hard is the game's network searching, led and set up by scripted-hard (configs/cpus.yaml)
        hard = policies.load(game, "hard")
        assert hard.name == "hard"
        assert isinstance(hard, NetworkSearch) and isinstance(hard.searcher, HardPlayer)
        assert (hard.lead, hard.setup) == ("scripted", "scripted")
        assert policies.cpu_levels(game)["hard"].startswith(f"search:../cpus/{game}:")
        assert isinstance(policies.load(game, "scripted-hard"), HardPlayer)
        assert policies.load(game, "random").name == "random"


def test_registry_errors_name_the_known_choices():
    with pytest.raises(ValueError, match="games are daifugo, president, uecda, doudizhu"):
        policies.load("chess", "random")
    with pytest.raises(ValueError, match="known names are random, easy, medium, hard"):
        policies.load("daifugo", "grandmaster")
    with pytest.raises(ValueError, match="knobs are"):
        policies.load("daifugo", "scripted-medium", bogus=1)
    with pytest.raises(ValueError, match="rollouts must be at least 1"):
        policies.load("daifugo", "scripted-hard:rollouts=0")
    with pytest.raises(ValueError, match="takes no knobs"):
        policies.load("daifugo", "random:x=1")
    with pytest.raises(ValueError, match="not key=value"):
        policies.parse_spec("scripted-hard:rollouts")


def test_spec_knobs_and_keyword_knobs():
    assert policies.parse_spec("scripted-hard:rollouts=7:switch_z=0.5:x=yes") == (
        "scripted-hard",
        {"rollouts": 7, "switch_z": 0.5, "x": "yes"},
    )
    hard = policies.load("daifugo", "scripted-hard:rollouts=7", candidates=2)
    assert (hard.rollouts, hard.candidates) == (7, 2)
    assert policies.load("daifugo", "hard", rollouts=9).rollouts == 9


def test_cpu_config_file(tmp_path):
    good = tmp_path / "cpus.yaml"
    good.write_text(
        "daifugo:\n  easy: random\n  medium: scripted-easy\n  hard: scripted-medium:group=5\n"
    )
    hard = policies.load("daifugo", "hard", config=good)
    assert isinstance(hard, MediumPlayer) and hard.weights.group == 5 and hard.name == "hard"
    assert policies.load("daifugo", "easy", config=good).name == "easy"
    loop = tmp_path / "loop.yaml"
    loop.write_text("daifugo:\n  easy: hard\n  medium: random\n  hard: random\n")
    with pytest.raises(ValueError, match="points at level"):
        policies.load("daifugo", "easy", config=loop)
    short = tmp_path / "short.yaml"
    short.write_text("daifugo:\n  easy: random\n")
    with pytest.raises(ValueError, match="lacks level"):
        policies.load("daifugo", "easy", config=short)
    with pytest.raises(ValueError, match="no table for game 'president'"):
        policies.load("president", "easy", config=short)


@pytest.mark.skipif(
    importlib.util.find_spec("climbrl.policies.neural") is not None,
    reason="the trainer's climbrl.policies.neural is present",
)
def test_checkpoint_path_needs_the_neural_module():
    with pytest.raises(ValueError, match="climbrl.policies.neural"):
        policies.load("daifugo", "checkpoints/cpu-hard.pt")


def test_unbound_player_says_so():
    env = daifugo_v1.env(players=4)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match="not bound"):
        policies.load("daifugo", "scripted-medium").act(obs, env.unwrapped.view(0))


# -- every level plays legal moves everywhere -------------------------------------------------

ENV_CONFIGS = [
    (daifugo_v1, {"players": 4}),
    (daifugo_v1, {"players": 3}),
    (daifugo_v1, {"players": 4, "illegal_finish": True, "lock": False}),
    (president_v1, {"players": 4}),
    (president_v1, {"players": 6}),
    (president_v1, {"players": 5, "runs": True, "jokers": 2, "bombs": True, "skip_on_equal": True}),
    (uecda_v1, {}),
]


@pytest.mark.parametrize(
    "module,kwargs", ENV_CONFIGS, ids=[f"{m.NAME}-{kw}" for m, kw in ENV_CONFIGS]
)
def test_every_level_plays_legal_moves(module, kwargs):
    """Random play reaches positions (exchanges included: two rounds); at each, every level
    must return a legal id."""
    env = module.env(rounds=2, **kwargs)
    game_name = {president_v1: "president", uecda_v1: "uecda"}.get(module, "daifugo")
    players = [policies.load(game_name, spec, seed=i) for i, spec in enumerate(LEVEL_SPECS)]
    for p in players:
        p.bind(env.unwrapped.game)
    rng = np.random.default_rng(0)
    raw = env.unwrapped
    checked = 0
    for _agent, obs, seat in live_turns(env, range(2)):
        view = raw.view(seat)
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) > 1 and rng.random() < 0.5:
            for player in players:
                assert obs["action_mask"][player.act(obs, view)] == 1, player
            checked += 1
        env.step(int(rng.choice(legal)))
    assert checked > 20


# -- hidden information -------------------------------------------------------------------------


def _scramble_hidden(state, seat: int, rng) -> None:
    """Deal the cards of every other seat anew among them, keeping their counts."""
    others = [s for s in range(len(state.hands)) if s != seat and state.hands[s]]
    pool = [c for s in others for c in range(state.game.deck.size) if state.hands[s] >> c & 1]
    rng.shuffle(pool)
    for s in others:
        n = state.hands[s].bit_count()
        state.hands[s] = sum(1 << c for c in pool[:n])
        pool = pool[n:]
    state._legal = None


@pytest.mark.parametrize("module", [daifugo_v1, president_v1])
def test_players_do_not_see_hidden_cards(module):
    """A player given a position whose hidden hands were dealt anew plays the same move."""
    game_name = {president_v1: "president", uecda_v1: "uecda"}.get(module, "daifugo")
    env = module.env(players=4, rounds=2)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    players = [policies.load(game_name, spec).bind(raw.game) for spec in LEVEL_SPECS]
    compared = 0
    env.reset(seed=4)
    for agent, obs, _seat in turns(env):
        seat = raw.possible_agents.index(agent)
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) > 2 and compared < 12:
            view = raw.view(seat)
            before = []
            for i, p in enumerate(players):
                p.seed(100 + i)
                before.append(p.act(obs, view))
            saved = [h for h in raw.game_state.hands]
            _scramble_hidden(raw.game_state, seat, rng)
            assert raw.game_state.hands != saved
            obs2, view2 = raw.observe(agent), raw.view(seat)
            assert view2 == view
            np.testing.assert_array_equal(obs2["observation"], obs["observation"])
            for i, p in enumerate(players):
                p.seed(100 + i)
                assert p.act(obs2, view2) == before[i], p
            raw.game_state.hands = saved
            raw.game_state._legal = None
            compared += 1
        env.step(int(rng.choice(legal)))
    assert compared == 12


# -- the medium player's strategy tips, as rule cases -------------------------------------------

# Each case: hands per seat (seat 0 is the medium player), optional moves played first from
# seat 0's lead, and the move medium must choose (or must not choose).
MEDIUM_CASES = [
    # play weak cards while leading, together as a set
    dict(hands=["3s 3h 9d Kc 2s", "4s", "5s", "6s"], want="3s 3h"),
    # do not break up a pair to answer a single; do not waste the 2 or the joker
    dict(hands=["Ts Th Qd 2s JK 5c 5d", "9c 4d 4h Jc", "6s 7s 8c Jh", "6h 7h 9s Qs"],
         leader=1, moves=["9c"], want="Qd"),
    # a lone weak card is played rather than passing
    dict(hands=["Ts Th Qd 2s 5c 5d", "9c 4d 4h Kh Jc", "6s 7s 8c Jh", "6h 7h 9s Qs"],
         leader=1, moves=["4d 4h"], want="5c 5d"),
    # someone is down to one card: take the pile with the strongest card
    dict(hands=["Ts Th Qd 2s 5c 5d", "9c Kc", "6s 7s 7d", "6h 7h 7c"], leader=1,
         moves=["9c"], want="2s"),
    # a weak hand starts a revolution with its four of a kind
    dict(hands=["4s 4h 4d 4c 3s 5d 6c 7h Tc", "Qs", "Ks", "As"], want="4s 4h 4d 4c"),
    # a strong hand does not lead its four of a kind
    dict(hands=["9s 9h 9d 9c As Ah 2s 2h Kd", "3s", "4s", "5s"], avoid="9s 9h 9d 9c"),
    # near the end the 2 goes first, then the last card
    dict(hands=["2s 6d", "3c 3d 3h", "4c 4d 4h", "5c 5d 5h"], want="2s"),
    # an available finish is taken
    dict(hands=["Kd", "3c 3d 3h", "4c 4d 4h", "5c 5d 5h"], leader=1, moves=["3c"], want="Kd"),
]


def _position(case, preset="daifugo"):
    players = len(case["hands"])
    module = daifugo_v1 if preset == "daifugo" else president_v1
    env = module.env(players=players, rounds=1)
    env.reset(seed=0, options={"hands": case["hands"], "leader": case.get("leader", 0)})
    raw = env.unwrapped
    for text in case.get("moves", ()):
        env.step(raw.action_from_str(text))
    while raw.game_state.current_player != 0:
        env.step(raw.game.catalog.pass_id)
    return env, raw


@pytest.mark.parametrize("case", MEDIUM_CASES, ids=range(len(MEDIUM_CASES)))
def test_medium_follows_the_strategy_tips(case):
    env, raw = _position(case)
    medium = policies.load("daifugo", "scripted-medium").bind(raw.game)
    obs = raw.observe(raw.possible_agents[0])
    move = raw.action_to_str(medium.act(obs, raw.view(0)))
    if "want" in case:
        assert move == raw.action_to_str(raw.action_from_str(case["want"]))
    else:
        assert move != raw.action_to_str(raw.action_from_str(case["avoid"]))


def test_medium_gives_back_weak_loose_cards_in_the_exchange():
    hands = ["3s 4h 9s 9h Ks 2s 2h JK 8d Qc", "5s 5h 6d", "7c 7d Tc", "Jc Jd Ad"]
    env = daifugo_v1.env(players=4, rounds=2)
    env.reset(seed=0, options={"hands": hands, "titles": [0, 1, 2, 3]})
    raw = env.unwrapped
    medium = policies.load("daifugo", "scripted-medium").bind(raw.game)
    given = []
    while raw.game_state.phase == 0 and raw.game_state.current_player == 0:
        action = medium.act(raw.observe("player_0"), raw.view(0))
        given.append(raw.action_to_str(action))
        env.step(action)
    assert sorted(given) == ["give 3s", "give 4h"]


# -- hand analysis and the hard player's sampler ------------------------------------------------


def test_count_groups_prefers_runs_and_sets():
    game = daifugo_v1.env(players=4).unwrapped.game
    pres = president_v1.env(players=4).unwrapped.game
    runs_hand = game.deck.parse("3s 3h 4s 5s 6s")
    assert count_groups(HandShape(game, runs_hand), True, True) == 2  # 3s-6s run + 3h
    assert count_groups(HandShape(game, runs_hand), False, True) == 4  # numbers only
    sets_hand = pres.deck.parse("3s 3h 3d 9c 9d Kh")
    assert count_groups(HandShape(pres, sets_hand), False, False) == 3


def test_hand_sampler_respects_the_view():
    """Round 2, after the exchange: the top seat's guesses keep the counts, never hold its own
    or played cards, leave the cards it gave back with its partner, and give that partner
    nothing stronger than what it handed over."""
    env = daifugo_v1.env(players=4, rounds=2)
    raw = env.unwrapped
    game = raw.game
    rng = np.random.default_rng(0)
    env.reset(seed=11)
    checked = 0
    for agent, obs, _seat in turns(env):
        st = raw.game_state
        seat = st.current_player
        if st.round == 1 and st.phase == 1 and st.titles[seat] == 0 and checked < 5:
            view = raw.view(seat)
            partner = st.titles.index(3)
            sampler = HandSampler(game, view)
            own = game.deck.parse(view["hand"])
            floor = min(game.give_key[c][:2] for c in range(game.deck.size) if st.received[seat] >> c & 1)
            for _ in range(20):
                hands = sampler.sample(rng)
                assert [h.bit_count() for h in hands] == view["hand_counts"]
                assert hands[seat] == own
                assert not any(h & st.played for s, h in enumerate(hands) if s != seat)
                kept = st.gave[seat] & ~st.played
                assert hands[partner] & kept == kept
                rest = hands[partner] & ~kept
                assert all(game.give_key[c][:2] <= floor for c in range(game.deck.size) if rest >> c & 1)
                game.from_view(view, hands)  # a consistent position
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 0


def test_hard_player_replays_with_its_seed():
    env = daifugo_v1.env(players=4)
    env.reset(seed=2)
    raw = env.unwrapped
    hard = policies.load("daifugo", FAST_HARD).bind(raw.game)
    obs, view = raw.observe(env.agent_selection), raw.view(raw.game_state.current_player)
    picks = []
    for _ in range(2):
        hard.seed(5)
        picks.append(hard.act(obs, view))
    assert picks[0] == picks[1]



class NoMistakes(random.Random):
    """A rollout generator whose draws never pick the random move nor hold a card back."""

    def random(self) -> float:
        return 1.0 - 1e-9


#: the hard player's rollout policy leading: the weakest group goes, at the UECda table too
#: (where a pass on the empty pile is legal, listed first)
ROLLOUT_LEADS = [
    dict(preset="uecda", hands=["3s 3h 9d Qs", *FILL], want="3s 3h"),
    dict(preset="uecda", hands=["Qs", *FILL], want="Qs"),
    dict(preset="daifugo", hands=["3s 3h 9d Qs", *FILL[:3]], want="3s 3h"),
]


@pytest.mark.parametrize("case", ROLLOUT_LEADS, ids=lambda c: f"{c['preset']}-{c['want']}")
def test_rollout_policy_passes_on_an_empty_pile(case):
    # regression: with the uecda preset's lead_pass the pass is legal on an empty pile and
    # its lead key (no cards: strength -1) was the smallest, so the rollouts passed on ~90%
    # of their leads and the playouts ended in the stall guard's random places
    game, state = position(case)
    hard = HardPlayer(0).bind(game)
    move = hard.rollout.choose(state, state.legal_actions(), NoMistakes(0))
    assert game.action_to_str(move) == case["want"]


def test_rollout_policy_passes_on_an_empty_pile_in_uecda_playouts():
    # the same bug over whole playouts of a UECda deal: a lead is passed only by the
    # rollout's random move (ROLLOUT_EPSILON, among all the legal moves)
    game = game_for("uecda", 5)
    hard = HardPlayer(0).bind(game)
    pass_id = game.catalog.pass_id
    leads = passed = 0
    for i in range(20):
        state = game.new_state(np.random.default_rng(i))
        rnd = random.Random(i)
        while state.places[0] < 0 and not state.terminal:
            legal = state.legal_actions()
            move = legal[0] if len(legal) == 1 else hard.rollout.choose(state, legal, rnd)
            if state.pile < 0 and len(legal) > 1:
                leads += 1
                passed += move == pass_id
            if state.apply(move) is not None:
                break
    assert leads > 100
    assert passed / leads < ROLLOUT_EPSILON

# -- hints ----------------------------------------------------------------------------------------


def test_hints_cycle_through_the_ranking_and_restart_on_a_new_position():
    env = daifugo_v1.env(players=4)
    env.reset(seed=3)
    raw = env.unwrapped
    medium = policies.load("daifugo", "scripted-medium").bind(raw.game)
    hints = Hints(medium)
    seat = raw.game_state.current_player
    obs, view = raw.observe(env.agent_selection), raw.view(seat)
    order = medium.ranked(view, policies.legal_ids(obs))
    got = [hints.next(obs, view) for _ in range(len(order) + 1)]
    assert got == order + order[:1]
    env.step(order[0])
    seat = raw.game_state.current_player
    obs, view = raw.observe(env.agent_selection), raw.view(seat)
    assert hints.next(obs, view) == medium.ranked(view, policies.legal_ids(obs))[0]
    with pytest.raises(ValueError, match="cannot rank"):
        Hints(policies.load("daifugo", "random"))


def test_checkpoint_paths_go_to_policies_neural(monkeypatch):
    """A path is handed to climbrl.policies.neural.load(path, game), whatever that module is."""
    import sys
    import types

    calls = []

    class Stub(policies.Player):
        def act(self, observation, view):
            return policies.legal_ids(observation)[0]

    def load(path, game, **knobs):
        calls.append((path, game, knobs))
        return Stub()

    monkeypatch.setitem(sys.modules, "climbrl.policies.neural", types.SimpleNamespace(load=load))
    player = policies.load("president", "runs/ckpt/model.pt", seed=3, temperature=0.5)
    assert isinstance(player, Stub) and player.name == "runs/ckpt/model.pt"
    assert calls == [("runs/ckpt/model.pt", "president", {"temperature": 0.5})]
    monkeypatch.setitem(
        sys.modules, "climbrl.policies.neural", types.SimpleNamespace(load=lambda path, game: object())
    )
    with pytest.raises(ValueError, match="not a climbrl.policies.base.Player"):
        policies.load("daifugo", "model.pt")


def test_hand_sampler_when_a_given_joker_may_be_the_one_played():
    # regression (a 3-round match, hard bot as Very Poor): it gave "As JK" to the Grand
    # Millionaire, who has one card left; one joker has been played. The sampler pinned both
    # As and the unplayed joker on the Grand Millionaire (2 cards for a 1-card hand) and
    # numpy refused the draw. The played joker may be the given one, so only As is sure.
    game = daifugo_v1.env(players=4, rounds=3).unwrapped.game
    view = {
        "seat": 0, "round": 2, "hand": "Jc", "hand_counts": [1, 1, 6, 6],
        "active": [True, True, True, True], "title_places": [3, 0, 2, 1],
        "exchange": {"gave": "As JK", "received": "3d 4c", "to_give": 0},
        "played": "3h 3d 3c 4s 4h 4d 4c 5s 5h 5d 5c 6s 6h 6d 6c 7h 7d 7c 8s 8h 8d 8c 9s 9d 9c "
                  "Ts Td Tc Jh Jd Qs Qh Qd Ks Kd Ah Ad 2d 2c JK",
        "played_ranks": "",
    }
    deck = game.deck
    seen = deck.parse(view["hand"]) | deck.parse(view["played"])
    sampler = HandSampler(game, view)
    rng = np.random.default_rng(0)
    holders = set()
    for _ in range(50):
        hands = sampler.sample(rng)
        assert [h.bit_count() for h in hands] == view["hand_counts"]
        assert sum(hands) == (deck.full & ~deck.parse(view["played"]))  # disjoint, all dealt
        assert hands[1] == deck.parse("As")
        holders.add(next(s for s in (2, 3) if hands[s] & deck.joker_mask & ~seen))
    assert holders == {2, 3}  # the other joker may be with either of the others


@pytest.mark.parametrize("module, kwargs", [(daifugo_v1, {"players": 4, "rounds": 3}),
                                            (president_v1, {"players": 6, "rounds": 3})],
                         ids=["daifugo-4p", "president-6p-two-decks"])
def test_hand_sampler_is_consistent_through_whole_matches(module, kwargs):
    # every decision of later rounds (exchanges known, copies of cards and jokers in play),
    # reached by medium bots: each sample deals exactly the unseen cards, in the right counts,
    # and rebuilds into a legal position
    env = module.env(**kwargs)
    raw = env.unwrapped
    game = raw.game
    bot = policies.load(module.NAME.split("_")[0], "scripted-medium", seed=0).bind(game)
    rng = np.random.default_rng(1)
    sampled = 0
    for _agent, obs, seat in live_turns(env, range(4)):
        view = raw.view(seat)
        if view["round"] > 0:
            own = game.deck.parse(view["hand"])
            unseen = game.deck.full & ~own & ~game.deck.parse(view["played"], own)
            for hands in (HandSampler(game, view).sample(rng) for _ in range(2)):
                assert [h.bit_count() for h in hands] == view["hand_counts"]
                assert hands[seat] == own
                others = [h for s, h in enumerate(hands) if s != seat]
                assert sum(others) & ~unseen == 0  # only unseen cards, each dealt once
                assert sum(h.bit_count() for h in others) == sum(others).bit_count()
                game.from_view(view, hands)
            sampled += 1
        env.step(bot.act(obs, view))
    assert sampled > 100


def test_cpu_config_paths_are_read_from_the_configs_folder(tmp_path, monkeypatch):
    # a game embedding climbrl loads its levels from its own working directory
    shutil.copytree(ROOT / "cpus" / "daifugo", tmp_path / "mine")
    (tmp_path / "configs").mkdir()
    config = tmp_path / "configs" / "cpus.yaml"
    config.write_text("daifugo:\n  easy: random\n  medium: scripted-medium\n  hard: ../mine\n")
    elsewhere = tmp_path / "game" / "bin"  # "../mine" from here is game/mine: no such folder
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    hard = policies.load("daifugo", "hard", config=config)
    assert hard.name == "hard" and hard.meta["trained"]["frames"] > 0
    hard.bind(daifugo_v1.env(players=4, rounds=3).unwrapped.game)
    hard.bind(daifugo_v1.env(players=3, rounds=7).unwrapped.game)  # every table of its game
