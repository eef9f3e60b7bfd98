"""Random-playout invariants of Dou Dizhu over thousands of games: legal moves equal an
independent brute-force definition, the mask equals the engine's legal moves, cards are
conserved, games end within the bound, scores are zero-sum and follow the scoring formula
recomputed from the history, and deal codes and seeds reproduce games."""

from __future__ import annotations

import numpy as np
import pytest

from climbrl.envs import doudizhu_v1
from climbrl.envs.core.aec import turns
from climbrl.envs.doudizhu import laizi
from climbrl.envs.doudizhu.cards import NUM_RANKS, counts
from climbrl.envs.doudizhu.engine import DoudizhuConfig, DoudizhuGame, Phase

from doudizhu_variants import PLAYOUTS, VARIANTS, game_of

GAME = DoudizhuGame()
CAT = GAME.catalog


def play_counts(cat):
    """The play ids of a catalog and their rank counts, one row per play."""
    plays = np.arange(cat.pass_segment.stop, cat.num_actions)
    table = np.frombuffer(b"".join(counts(cat.cards[a]) for a in plays), np.uint8)
    return plays, table.reshape(len(plays), NUM_RANKS)


PLAYS, PLAY_COUNTS = play_counts(CAT)


def brute_force_bids(state) -> set[int]:
    """Bidding moves straight from the rules: classic, the pass and the bids above the highest;
    rob, the pass and ``call`` until someone called, then the pass and ``rob``."""
    cat = state.game.catalog
    if state.game.config.bidding == "bid":
        return {cat.BID_PASS} | {cat.bid_action(b) for b in range(state.high_bid + 1, 4)}
    move = "call" if state.caller < 0 else "rob"
    return {cat.BID_PASS, cat.action_from_str(move)}


def brute_force_legal(state, plays=None) -> set[int]:
    """Legal ids straight from the rules: the bidding moves; plays held by the hand that beat
    the pile (``Catalog.beats``) or anything when leading; pass unless leading."""
    if state.terminal:
        return set()
    cat = state.game.catalog
    if state.phase == Phase.BIDDING:
        return brute_force_bids(state)
    if state.phase == Phase.SHOW:
        return {cat.action_from_str("show"), cat.action_from_str("hide")}
    ids, rows = plays or play_counts(cat)
    packed = state.hands[state.current_player]
    hand = np.frombuffer(counts(packed), np.uint8)
    if state.wild < 0:
        held = ids[np.all(rows <= hand, axis=1)]
    else:
        # laizi: the cards lacking of the ranks 3..2 (the wild rank's own cards are the wild
        # ones) at most the wild cards; jokers only as themselves
        natural = hand[:13].astype(int)
        natural[state.wild] = 0
        short = np.clip(rows[:, :13].astype(int) - natural, 0, None).sum(axis=1)
        held = ids[(short <= hand[state.wild]) & np.all(rows[:, 13:] <= hand[13:], axis=1)]
    if state.pile < 0:
        return {int(a) for a in held}
    if state.pile_power >= 0:  # laizi, a bomb on the pile: the tiers decide
        tier = [laizi.bomb_tier(cat, int(a), state.wild,
                                laizi.substitutes(packed, state.wild, cat.cards[int(a)]))
                for a in held]
        return {cat.PASS} | {int(a) for a, t in zip(held, tier) if t > state.pile_power}
    return {cat.PASS} | {int(a) for a in held if cat.beats(int(a), state.pile)}


def expected_result(state, history, robs=0, shown=False):
    """Points recomputed from the moves alone (``robs``: the robs of the deal's bidding;
    ``shown``: the landlord showed its hand)."""
    cat = state.game.catalog
    players = state.game.num_players
    landlord, bid = state.landlord, state.bid
    plays = [(s, a) for s, a in history if a != cat.PASS]
    bombs = sum(1 for _, a in plays if a == cat.ROCKET or cat.bomb_main[a] >= 0)
    winner = plays[-1][0]
    landlord_won = winner == landlord
    spring = landlord_won and all(s == landlord for s, _ in plays)
    anti = not landlord_won and sum(1 for s, _ in plays if s == landlord) == 1
    round_points = 10 * bid * 2 ** (bombs + robs + shown) * (2 if spring or anti else 1)
    sign = 1 if landlord_won else -1
    points = [(players - 1) * sign * round_points if s == landlord else -sign * round_points
              for s in range(players)]
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


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_playouts_keep_every_invariant(variant):
    game = game_of(variant)
    cat = game.catalog
    players = game.num_players
    plays = play_counts(cat)
    rob = cat.action_from_str("rob") if game.config.bidding == "rob" else None
    show = cat.action_from_str("show") if game.config.open_hand else None
    rng = np.random.default_rng(2024)
    lengths = []
    for g in range(PLAYOUTS[variant]):
        start = game.new_state(rng)
        code = start.deal_code
        state = start.clone()
        actions = []
        robs = 0
        shown = False
        brute = g % 25 == 0  # the full brute-force comparison on every 25th game
        while not state.terminal:
            legal = state.legal_actions()
            assert legal, f"seat {state.current_player} is asked to move and has no legal move"
            assert state.phase == Phase.BIDDING or state.hands[state.current_player]
            assert len(legal) == len(set(legal))
            if brute or state.phase in (Phase.BIDDING, Phase.SHOW):
                assert set(legal) == brute_force_legal(state, plays)
            held = sum(state.hands) + sum(state.played) + (state.kitty if state.landlord < 0 else 0)
            assert held == game.setup.full_deck
            action = legal[int(rng.integers(len(legal)))]
            if len(actions) % 7 == 0:
                wrong = int(rng.integers(cat.num_actions))
                assert state.is_legal(wrong) == (wrong in legal)
            actions.append(action)
            redeals = state.redeals
            state.apply(action)
            robs = 0 if state.redeals != redeals else robs + (action == rob)
            shown = shown or action == show
        lengths.append(len(actions))
        assert len(actions) <= game.max_game_length
        assert state.legal_actions() == [] and state.current_player == -1
        result = state.result
        if result["outcome"] == "no bid":
            assert state.returns() == [0.0] * players
            continue
        winner = result["winner"]
        assert state.hands[winner] == 0
        assert all(state.hands[s] for s in range(players) if s != winner)
        points, spring, anti, bombs = expected_result(state, state.history, robs, shown)
        assert result["points"] == points and result["robs"] == robs
        assert result["shown"] == shown and state.multiplier == 2 ** (bombs + robs + shown)
        assert (result["spring"], result["anti_spring"], result["bombs"]) == (spring, anti, bombs)
        assert sum(points) == 0 and sum(state.returns()) == 0
        assert state.returns() == [p / 10 for p in points]
        if g % 10 == 0:  # the deal code replays the whole game, redeals included
            replay = game.new_state(np.random.default_rng(), {"deal": code})
            for a in actions:
                replay.apply(a)
            assert replay.returns() == state.returns() and replay.deal_code == state.deal_code
    assert max(lengths) <= game.max_game_length


@pytest.mark.parametrize("players, hands, size", [(3, 150, 20), (4, 40, 33)])
def test_rich_hands_against_brute_force(players, hands, size):
    """Hands full of trios and quads (airplanes, four-with-two, bombs; with two packs, wide
    bombs, joker pairs and the four-joker rocket) against piles led from other such hands: the
    generator equals the brute-force definition."""
    game = DoudizhuGame(DoudizhuConfig(players=players))
    cat = game.catalog
    ids, rows = play_counts(cat)
    copies = game.setup.copies
    rng = np.random.default_rng(7)
    for _ in range(hands):
        rank_counts = np.zeros(NUM_RANKS, int)
        while rank_counts.sum() < size:
            r = int(rng.integers(NUM_RANKS))
            rank_counts[r] = min(copies[r], rank_counts[r] + int(rng.integers(1, copies[r] + 1)))
        hand = int(sum(int(c) << (8 * r) for r, c in enumerate(rank_counts)))
        leads = game.moves.lead(hand)
        held = {int(a) for a in ids[np.all(rows <= rank_counts, axis=1)]}
        assert set(leads) == held and len(leads) == len(held)
        for pile in rng.choice(leads, 10):
            replies = game.moves.replies(hand, int(pile))
            assert len(replies) == len(set(replies))
            assert set(replies) == {a for a in held if cat.beats(a, int(pile))}


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


@pytest.mark.parametrize("variant", VARIANTS)
def test_env_mask_equals_engine_legal_moves(variant):
    env = doudizhu_v1.env(**VARIANTS[variant])
    rng = np.random.default_rng(11)
    space = env.observation_space("player_0")["observation"]
    lo, hi = space.low, space.high
    for episode in range(150 if variant == "classic" else 40):
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
            other = env.possible_agents[(env.possible_agents.index(agent) + 1) % len(env.agents)]
            assert not env.observe(other)["action_mask"].any()
            landlord = raw.game_state.landlord
            role = "undecided" if landlord < 0 else "peasant"
            if landlord == env.possible_agents.index(agent):
                role = "landlord"
            assert info["role"] == role
            env.step(int(rng.choice(legal)))
        assert sum(totals.values()) == pytest.approx(0.0)
        assert totals == dict(zip(env.possible_agents, raw.game_state.returns()))


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_game(variant):
    def trajectory(seed):
        env = doudizhu_v1.env(**VARIANTS[variant])
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
