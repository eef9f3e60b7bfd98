"""Dou Dizhu players: legality at every level, hidden cards, the Normal and Hard
behaviours as cases, the search's position rebuild and hand sampler."""

from __future__ import annotations

import random

import numpy as np
import pytest

from climbrl import policies
from climbrl.envs import doudizhu_v1
from climbrl.envs.core.aec import turns
from climbrl.envs.doudizhu.cards import UNIT, counts, parse
from climbrl.policies.doudizhu import EasyPlayer, MediumPlayer, SearchPlayer
from climbrl.policies.doudizhu.search import HandSampler
from climbrl.policies.search import NetworkSearch

from doudizhu_variants import VARIANTS
from play_helpers import live_turns

FAST_HARD = "scripted-hard:rollouts=8:candidates=3"
LEVEL_SPECS = ["random", "easy", "medium", FAST_HARD]


def test_levels_resolve():
    # easy and medium: the trained CPU where it reads the table (easy at temperature 0.2),
    # the scripted player of the level at the variants
    for level, cpu, temperature, scripted in (
            ("easy", "../cpus/doudizhu:temperature=0.2", 0.2, EasyPlayer),
            ("medium", "../cpus/doudizhu", 0, MediumPlayer)):
        player = policies.load("doudizhu", level)
        assert [p.name for p in player.players] == [f"{level} ({cpu})",
                                                    f"{level} (scripted-{level})"]
        assert player.players[0].temperature == temperature
        assert isinstance(player.players[1], scripted)
        assert isinstance(policies.load("doudizhu", f"scripted-{level}"), scripted)
    # hard: scripted-hard's search led by its own first choices with the network's best added
    # (climbrl.policies.search, lead=scripted), scripted-hard itself at the variants
    hard = policies.load("doudizhu", "hard")
    search, scripted = hard.players
    assert isinstance(search, NetworkSearch) and isinstance(scripted, SearchPlayer)
    assert (search.lead, search.scripted, search.top_k) == ("scripted", 2, 2)
    # its playouts fill the time cap (1,000 at most: 400 stopped at 44 ms median of the 80),
    # each cut at its next decision and valued there by the network (leaf=true)
    assert (search.searcher.rollouts, search.searcher.time_ms, search.leaf) == (1000, 80.0, True)
    assert hard.bind(doudizhu_v1.env().unwrapped.game).active is search
    for variant in ("rob", "laizi"):
        assert hard.bind(doudizhu_v1.env(**VARIANTS[variant]).unwrapped.game).active is scripted
    with pytest.raises(ValueError, match="knobs are"):
        policies.load("doudizhu", "medium", nonsense=1)


def test_every_level_plays_legal_moves_and_ignores_hidden_cards():
    env = doudizhu_v1.env()
    raw = env.unwrapped
    players = [policies.load("doudizhu", spec).bind(raw.game) for spec in LEVEL_SPECS]
    rng = np.random.default_rng(0)
    checked = 0
    for agent, obs, seat in live_turns(env, range(3)):
        st = raw.game_state
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) > 1 and rng.random() < 0.3:
            view = raw.view(seat)
            picks = []
            for i, p in enumerate(players):
                p.seed(i)
                picks.append(p.act(obs, view))
                assert obs["action_mask"][picks[-1]] == 1, p
            if st.phase == 1:
                # the other two seats' cards dealt anew (same counts): same moves
                others = [s for s in range(3) if s != seat]
                pool = [r for s in others for r, c in enumerate(counts(st.hands[s])) for _ in range(c)]
                saved = st.hands[:]
                rng.shuffle(pool)
                cut = sum(counts(st.hands[others[0]]))
                for s, part in zip(others, (pool[:cut], pool[cut:])):
                    st.hands[s] = sum(UNIT[r] for r in part)
                st._legal = None
                assert raw.view(seat) == view
                for i, p in enumerate(players):
                    p.seed(i)
                    assert p.act(raw.observe(agent), raw.view(seat)) == picks[i], p
                st.hands[:] = saved
                st._legal = None
            checked += 1
        env.step(int(rng.choice(legal)))
    assert checked > 10


def test_medium_does_not_beat_its_partner():
    """A peasant facing its partner's play passes (while nobody is about to go out)."""
    env = doudizhu_v1.env()
    env.reset(seed=0)
    raw = env.unwrapped
    medium = policies.load("doudizhu", "scripted-medium").bind(raw.game)
    rng = np.random.default_rng(3)
    seen = 0
    for game in range(6):
        env.reset(seed=game)
        for agent, obs, _seat in turns(env):
            st = raw.game_state
            seat = st.current_player
            view = raw.view(seat)
            if (
                st.phase == 1
                and view["role"] == "peasant"
                and view["pile"] is not None
                and view["pile_owner"] != view["landlord"]
                and min(view["cards_left"]) > 2
            ):
                assert raw.action_to_str(medium.act(obs, view)) == "pass"
                seen += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen > 0


def test_medium_blocks_a_landlord_with_one_card():
    """The landlord holds one card: a peasant leading plays a pair or longer, not a single."""
    env = doudizhu_v1.env()
    raw = env.unwrapped
    rng = np.random.default_rng(5)
    medium = policies.load("doudizhu", "scripted-medium").bind(raw.game)
    seen = 0
    for game in range(60):
        env.reset(seed=game)
        for agent, obs, _seat in turns(env):
            st = raw.game_state
            view = raw.view(st.current_player)
            if (
                st.phase == 1
                and view["role"] == "peasant"
                and view["pile"] is None
                and view["cards_left"][view["landlord"]] == 1
            ):
                legal = policies.legal_ids(obs)
                cat = raw.game.catalog
                if any(cat.num_cards[a] >= 2 for a in legal) and sum(counts(st.hands[st.current_player])) > 1:
                    action = medium.act(obs, view)
                    assert cat.num_cards[action] >= 2 or not st.hands[st.current_player] - cat.cards[action]
                    seen += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen > 0


def test_medium_bids_as_the_evaluator_advises():
    env = doudizhu_v1.env()
    env.reset(seed=7)
    raw = env.unwrapped
    medium = policies.load("doudizhu", "scripted-medium").bind(raw.game)
    seat = raw.game_state.current_player
    view = raw.view(seat)
    action = medium.act(raw.observe(env.agent_selection), view)
    advised = raw.game.evaluator.recommend_bid(parse(view["hand"]))
    assert raw.action_to_str(action) == ("bid pass" if advised == 0 else f"bid {advised}")


def test_hard_bombs_when_that_finishes_in_two_plays():
    """The landlord holds a bomb and a pair, facing a pair: the bomb, then the pair."""
    env = doudizhu_v1.env()
    raw = env.unwrapped
    game = raw.game
    hard = policies.load("doudizhu", "scripted-hard:rollouts=8").bind(game)
    view = {
        "seat": 0, "role": "landlord", "phase": "play", "to_move": 0, "hand": "3333KK",
        "landlord": 0, "pile": "QQ", "pile_owner": 1, "cards_left": [6, 5, 5],
        "unseen": "AA22BR789TJ", "bids": [1, 0, 0], "kitty": "345",
    }
    legal = [game.catalog.PASS, game.catalog.action_from_str("3333"), game.catalog.action_from_str("KK")]
    scores = hard.scores(view, legal)
    assert max(scores, key=scores.get) == game.catalog.action_from_str("3333")


def test_rebuild_plays_on_exactly_like_the_real_position():
    env = doudizhu_v1.env()
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    compared = 0
    for g in range(4):
        env.reset(seed=g)
        for agent, obs, _seat in turns(env):
            st = raw.game_state
            if st.phase == 1 and rng.random() < 0.3:
                twin = raw.game.from_view(raw.view(st.current_player), st.hands)
                real = st.clone()
                line = random.Random(compared)
                while not real.terminal:
                    legal = real.legal_actions()
                    assert sorted(legal) == sorted(twin.legal_actions())
                    move = legal[line.randrange(len(legal))]
                    assert real.apply(move) == twin.apply(move)
                compared += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert compared > 5


def test_hand_sampler_keeps_counts_and_the_kitty_with_the_landlord():
    env = doudizhu_v1.env()
    raw = env.unwrapped
    rng = np.random.default_rng(2)
    env.reset(seed=3)
    checked = 0
    for agent, obs, _seat in turns(env):
        st = raw.game_state
        seat = st.current_player
        if st.phase == 1 and seat != st.landlord:
            view = raw.view(seat)
            sampler = HandSampler(view)
            kitty = counts(st.kitty)
            for _ in range(10):
                hands = sampler.sample(rng)
                assert [sum(counts(h)) for h in hands] == view["cards_left"]
                assert hands[seat] == st.hands[seat]
                assert sum(hands) == sum(st.hands)  # the same cards, dealt otherwise
                held = counts(hands[st.landlord])
                played = counts(st.played[st.landlord])
                assert all(held[r] >= kitty[r] - played[r] for r in range(len(kitty)))
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 0


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "classic"])
def test_every_level_plays_every_variant_legally_and_bids_as_advised(variant):
    """Whole games of each variant with the scripted levels seated round the table: every
    move is legal, and the medium bot's bidding move is the one the advice line names."""
    env = doudizhu_v1.env(**VARIANTS[variant])
    raw = env.unwrapped
    specs = ["easy", "medium", FAST_HARD, "random"]
    seen_bids = 0
    for game in range(4):
        players = [policies.load("doudizhu", specs[(game + s) % len(specs)], seed=s).bind(raw.game)
                   for s in range(raw.game.num_players)]
        medium = policies.load("doudizhu", "scripted-medium").bind(raw.game)
        for _agent, obs, seat in live_turns(env, [game]):
            view = raw.view(seat)
            action = players[seat].act(obs, view)
            assert obs["action_mask"][action] == 1, (players[seat], raw.action_to_str(action))
            if view["phase"] == "bidding":
                advised = view["advice"].rsplit("-> ", 1)[1]
                assert raw.action_to_str(medium.act(obs, view)) in (advised, f"bid {advised}")
                seen_bids += 1
            env.step(action)
        assert raw.game_state.terminal
    assert seen_bids
