"""Random-playout invariants of Dou Dizhu over thousands of games: legal moves equal an
independent brute-force definition, the mask equals the engine's legal moves, cards are
conserved, games end within the bound, scores are zero-sum and follow the scoring formula
recomputed from the history, and deal codes and seeds reproduce games."""

from __future__ import annotations

import numpy as np
import pytest

from envs import doudizhu_v0
from envs.core.aec import turns
from envs.doudizhu.cards import FULL_DECK, NUM_RANKS, counts
from envs.doudizhu.engine import DoudizhuConfig, DoudizhuGame, Phase

GAME = DoudizhuGame()
CAT = GAME.catalog
PLAYS = np.arange(CAT.pass_segment.stop, CAT.num_actions)
PLAY_COUNTS = np.frombuffer(b"".join(counts(CAT.cards[a]) for a in PLAYS), np.uint8).reshape(
    len(PLAYS), NUM_RANKS
)


def brute_force_legal(state) -> set[int]:
    """Legal ids straight from the rules: bids above the highest; plays held by the hand that
    beat the pile (``Catalog.beats``) or anything when leading; pass unless leading."""
    if state.terminal:
        return set()
    if state.phase == Phase.BIDDING:
        return {CAT.BID_PASS} | {CAT.bid_action(b) for b in range(state.high_bid + 1, 4)}
    hand = np.frombuffer(counts(state.hands[state.current_player]), np.uint8)
    held = PLAYS[np.all(PLAY_COUNTS <= hand, axis=1)]
    if state.pile < 0:
        return {int(a) for a in held}
    return {CAT.PASS} | {int(a) for a in held if CAT.beats(int(a), state.pile)}


def expected_result(state, history):
    """Points recomputed from the moves alone."""
    landlord, bid = state.landlord, state.bid
    plays = [(s, a) for s, a in history if a != CAT.PASS]
    bombs = sum(1 for _, a in plays if a == CAT.ROCKET or CAT.bomb_main[a] >= 0)
    winner = plays[-1][0]
    landlord_won = winner == landlord
    spring = landlord_won and all(s == landlord for s, _ in plays)
    anti = not landlord_won and sum(1 for s, _ in plays if s == landlord) == 1
    round_points = 10 * bid * 2**bombs * (2 if spring or anti else 1)
    sign = 1 if landlord_won else -1
    points = [2 * sign * round_points if s == landlord else -sign * round_points for s in range(3)]
    return points, spring, anti, bombs


def random_game(game, rng, options=None, check=None):
    state = game.new_state(rng, options)
    actions = []
    while not state.terminal:
        legal = state.legal_actions()
        if check:
            check(state, legal)
        action = legal[int(rng.integers(len(legal)))]
        actions.append(action)
        state.apply(action)
    return state, actions


def test_random_playouts_keep_every_invariant():
    rng = np.random.default_rng(2024)
    games = 3000
    lengths = []
    for g in range(games):
        start = GAME.new_state(rng)
        code = start.deal_code
        state = start.clone()
        actions = []
        brute = g % 25 == 0  # the full brute-force comparison on every 25th game
        while not state.terminal:
            legal = state.legal_actions()
            assert legal, f"seat {state.current_player} is asked to move and has no legal move"
            assert state.phase == Phase.BIDDING or state.hands[state.current_player]
            assert len(legal) == len(set(legal))
            if brute:
                assert set(legal) == brute_force_legal(state)
            held = sum(state.hands) + sum(state.played) + (state.kitty if state.landlord < 0 else 0)
            assert held == FULL_DECK
            action = legal[int(rng.integers(len(legal)))]
            if len(actions) % 7 == 0:
                wrong = int(rng.integers(CAT.num_actions))
                assert state.is_legal(wrong) == (wrong in legal)
            actions.append(action)
            state.apply(action)
        lengths.append(len(actions))
        assert len(actions) <= GAME.max_game_length
        assert state.legal_actions() == [] and state.current_player == -1
        result = state.result
        if result["outcome"] == "no bid":
            assert state.returns() == [0.0, 0.0, 0.0]
            continue
        winner = result["winner"]
        assert state.hands[winner] == 0 and all(state.hands[s] for s in range(3) if s != winner)
        points, spring, anti, bombs = expected_result(state, state.history)
        assert result["points"] == points
        assert (result["spring"], result["anti_spring"], result["bombs"]) == (spring, anti, bombs)
        assert sum(points) == 0 and sum(state.returns()) == 0
        assert state.returns() == [p / 10 for p in points]
        if g % 10 == 0:  # the deal code replays the whole game, redeals included
            replay = GAME.new_state(np.random.default_rng(), {"deal": code})
            for a in actions:
                replay.apply(a)
            assert replay.returns() == state.returns() and replay.deal_code == state.deal_code
    assert max(lengths) <= GAME.max_game_length


def test_rich_hands_against_brute_force():
    """Hands full of trios and quads (airplanes, four-with-two, bombs) against piles led from
    other such hands: the generator equals the brute-force definition."""
    rng = np.random.default_rng(7)
    for _ in range(150):
        rank_counts = np.zeros(NUM_RANKS, int)
        while rank_counts.sum() < 20:
            r = int(rng.integers(NUM_RANKS))
            cap = 4 if r < 13 else 1
            rank_counts[r] = min(cap, rank_counts[r] + int(rng.integers(1, 5)))
        hand = int(sum(int(c) << (8 * r) for r, c in enumerate(rank_counts)))
        leads = GAME.moves.lead(hand)
        held = {int(a) for a in PLAYS[np.all(PLAY_COUNTS <= rank_counts, axis=1)]}
        assert set(leads) == held and len(leads) == len(held)
        for pile in rng.choice(leads, 10):
            replies = GAME.moves.replies(hand, int(pile))
            assert len(replies) == len(set(replies))
            assert set(replies) == {a for a in held if CAT.beats(a, int(pile))}


def test_win_mode_rewards_by_side():
    game = DoudizhuGame(DoudizhuConfig(reward="win"))
    rng = np.random.default_rng(3)
    for _ in range(200):
        state, _ = random_game(game, rng)
        if state.result["outcome"] == "no bid":
            continue
        landlord_won = state.result["winner"] == state.landlord
        sign = 1.0 if landlord_won else -1.0
        assert state.returns() == [sign if s == state.landlord else -sign for s in range(3)]


def test_env_mask_equals_engine_legal_moves():
    env = doudizhu_v0.env()
    rng = np.random.default_rng(11)
    space = env.observation_space("player_0")["observation"]
    lo, hi = space.low, space.high
    for episode in range(150):
        env.reset(seed=episode)
        raw = env.unwrapped
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            assert np.all(obs["observation"] >= lo) and np.all(obs["observation"] <= hi)
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = raw.game_state.legal_actions()
            assert np.flatnonzero(mask).tolist() == sorted(legal)
            other = env.possible_agents[(env.possible_agents.index(agent) + 1) % 3]
            assert not env.observe(other)["action_mask"].any()
            landlord = raw.game_state.landlord
            role = "undecided" if landlord < 0 else "peasant"
            if landlord == env.possible_agents.index(agent):
                role = "landlord"
            assert info["role"] == role
            env.step(int(rng.choice(legal)))
        assert sum(totals.values()) == pytest.approx(0.0)
        assert totals == dict(zip(env.possible_agents, raw.game_state.returns()))


def test_same_seed_same_game():
    def trajectory(seed):
        env = doudizhu_v0.env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        moves = []
        for agent, obs, _seat in turns(env):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            moves.append((agent, action, obs["observation"].tobytes()))
            env.step(action)
        return moves, env.unwrapped.deal_code

    for seed in (0, 1, 2):
        assert trajectory(seed) == trajectory(seed)
    assert trajectory(0)[1] != trajectory(1)[1]
