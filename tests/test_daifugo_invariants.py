"""Random-playout invariants for every Daifugo / President config we ship or switch.

Thousands of random matches (all rounds, exchanges included) check after every step that:
the seat to move is in the round, holds cards and has a legal move; the legal list has no
duplicates and equals an independent, plain reference of the rules;
no card is lost or duplicated; the game ends within ``max_game_length``; places form a
permutation each round; points and centred rewards add up; the match winner follows the
tie-break; and the same seed or deal code replays the same match.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from daifugo_helpers import game_for
from climbrl.envs.daifugo import PHASE_EXCHANGE, PHASE_PLAY
from climbrl.envs.daifugo.cards import JOKER_RANK, NUM_RANKS, RANK_3, RANK_8, RANK_J, SUIT_SPADES
from climbrl.envs.daifugo.catalog import GIVE, PASS, RUN, SET, SINGLE
from climbrl.envs.daifugo.rules import REVOLUTION_SIZE, Rules

HOUSE_RULES = Rules.HOUSE_RULES
CONFIGS = [
    ("daifugo", 4, ()),
    ("daifugo", 3, ()),
    *[("daifugo", 4, ((rule, not getattr(Rules.preset("daifugo"), rule)),)) for rule in HOUSE_RULES],
    ("daifugo", 3, (("illegal_finish", True),)),
    ("daifugo", 4, (("jokers", 1), ("spade_three_return", True))),
    ("daifugo", 4, (("jokers", 0), ("spade_three_return", False))),
    ("uecda", 5, (("rounds", 7),)),
    ("uecda", 5, (("rounds", 5), ("class_block", 2), ("reseat_every", 2))),
    ("president", 3, ()),
    ("president", 4, (("runs", True), ("jokers", 2))),
    ("president", 5, (("skip_on_equal", True), ("bombs", True), ("jokers", 1))),
    ("president", 6, ()),
    ("president", 7, (("jokers", 2), ("runs", True), ("strict_pass", True))),
    ("president", 8, (("bombs", True), ("jokers", 2), ("skip_on_equal", True))),
]
IDS = [f"{p}{n}" + "".join(f"-{k}={v}" for k, v in o) for p, n, o in CONFIGS]


# ------------------------------------------------------------------ an independent reference


def _real_ranks(m):
    if m.kind in (SINGLE, SET) and m.low < JOKER_RANK:
        return {m.low}
    if m.kind == RUN:
        return {r for r in range(m.low, m.high + 1) if r not in m.joker_ranks}
    return set()


def _can_make(game, m, hand: int) -> bool:
    """Does the hand hold the cards of move ``m``? Counted card by card."""
    deck = game.deck
    jokers_needed = m.size if m.low == JOKER_RANK else m.jokers
    if deck.joker_count(hand) < jokers_needed:
        return False
    if m.low == JOKER_RANK:
        return True
    if m.kind in (SINGLE, GIVE):
        return bool(hand & deck.rank_suit_mask[m.low][m.suit])
    if m.kind == SET:
        if game.catalog.suited_sets:
            return all(hand & deck.rank_suit_mask[m.low][s] for s in range(4) if m.suits >> s & 1)
        return (hand & deck.rank_mask[m.low]).bit_count() >= m.size - m.jokers
    for r in _real_ranks(m):
        pool = deck.rank_suit_mask[r][m.suit] if m.suit >= 0 else deck.rank_mask[r]
        if not hand & pool:
            return False
    return True


def _stronger(a: int, b: int, reversed_: bool) -> bool:
    """Number a beats number b in the order in force; jokers beat every number."""
    if a == JOKER_RANK or b == JOKER_RANK:
        return a == JOKER_RANK and b != JOKER_RANK
    return a < b if reversed_ else a > b


def reference_legal(game, state) -> set[int]:
    """The legal ids, from the rules written plainly over the whole catalog."""
    rules = game.rules
    cat = game.catalog
    seat = state.current_player
    hand = state.hands[seat]
    moves = cat.moves
    if state.phase == PHASE_EXCHANGE:
        return {m.id for m in moves if m.kind == GIVE and _can_make(game, m, hand)}
    plays = [m for m in moves if m.kind in (SINGLE, SET, RUN) and _can_make(game, m, hand)]
    if state.pile < 0:
        return {m.id for m in plays} | ({cat.pass_id} if rules.lead_pass else set())
    pile = moves[state.pile]
    rev = state.revolution != state.jack_back
    out = {cat.pass_id}
    for m in plays:
        if pile.kind == SINGLE and pile.low == JOKER_RANK:
            # only the spade three answers a single joker, lock or not
            if (
                rules.spade_three_return
                and m.kind == SINGLE
                and m.low == RANK_3
                and m.suit == SUIT_SPADES
                and not state.passed_pile >> seat & 1
            ):
                out.add(m.id)
            continue
        if state.lock and rules.joker_suits and m.low != JOKER_RANK:
            # UECda: a joker shows the suit it stands for, so a reply shows the locked suits
            if cat.lock_suits[m.id] != state.lock:
                continue
        if state.lock:
            # a locked pile: exactly those suits; jokers stand in for missing locked suits
            if m.suits & ~state.lock:
                continue
            if m.kind == RUN and m.suits != state.lock:
                continue
        if state.lock and m.kind == SINGLE and m.low != JOKER_RANK and m.suits != state.lock:
            continue
        if state.lock and m.kind == SET and m.low != JOKER_RANK:
            if (m.suits | state.lock) != state.lock or m.size != pile.size:
                continue
        bomb = (
            rules.bombs
            and pile.kind == SET
            and pile.low != JOKER_RANK  # the pair of jokers cannot be beaten, bombs included
            and pile.size in (2, 3)
            and m.kind == SINGLE
            and (m.low == JOKER_RANK or m.low == (RANK_3 if rev else NUM_RANKS - 1))
        )
        if bomb:
            out.add(m.id)
            continue
        if m.kind != pile.kind or m.size != pile.size:
            continue
        if m.kind == RUN:
            if _stronger(m.low, pile.high, rev) if not rev else _stronger(m.high, pile.low, rev):
                out.add(m.id)
            continue
        equal = rules.skip_on_equal and m.low == pile.low != JOKER_RANK
        if _stronger(m.low, pile.low, rev) or equal:
            out.add(m.id)
    return out


# ------------------------------------------------------------------ the harness


def card_total(state) -> int:
    out = 0
    seen = 0
    for hand in state.hands:
        assert seen & hand == 0, "a card is in two hands"
        seen |= hand
    assert seen & state.played == 0, "a card is both held and played"
    assert seen & state.hidden_out == 0
    out = seen | state.played | state.hidden_out
    return out


def assert_seat_to_move_can_move(state) -> None:
    """The invariant: whoever is asked to move is in the round, holds cards and has a legal
    move (an all-zero mask for the seat to move is a bug)."""
    seat = state.current_player
    assert state.active >> seat & 1, f"seat {seat} is asked to move but is out of the round"
    assert state.hands[seat], f"seat {seat} is asked to move with no cards"
    assert state.legal_actions(), f"seat {seat} is asked to move and has no legal move"


def play_match(game, rng, check_reference: bool, options=None):
    """Plays one random match; checks the step invariants; returns the action trace."""
    state = game.new_state(rng, options)
    rules = game.rules
    in_play = card_total(state)
    trace = []
    rounds_seen = 0
    round_rewards = []
    first = True
    while not state.terminal:
        if first and state.phase == PHASE_PLAY and state.round == 0:
            if rules.first_leader == "three_of_diamonds" and options is None:
                assert state.hands[state.current_player] & game.diamond_three_bit
            first = False
        assert_seat_to_move_can_move(state)
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal), "duplicate legal ids"
        if check_reference:
            assert set(legal) == reference_legal(game, state), game.render(state)
        action = legal[rng.integers(len(legal))]
        trace.append(action)
        round_before = state.round
        hand_before = state.hands[state.current_player]
        seat = state.current_player
        reward = state.apply(action)
        if state.round == round_before and not state.terminal:
            moved = hand_before ^ state.hands[seat]
            if game.catalog.kind[action] != PASS:
                assert moved.bit_count() == game.catalog.msize[action]
            assert card_total(state) == in_play, "a card was lost"
        if reward is not None:
            rounds_seen += 1
            round_rewards.append(reward)
            assert abs(sum(reward)) < 1e-9 or game.reward_mode == "raw"
            titles = state.titles
            assert sorted(titles) == list(range(game.num_players)), titles
            if not state.terminal:
                in_play = card_total(state)
                assert in_play == game.deck.full, "a new round deals the whole deck"
                if state.phase == PHASE_PLAY and rules.later_leader == "three_of_diamonds":
                    assert state.hands[state.current_player] & game.diamond_three_bit
                elif state.phase == PHASE_PLAY:
                    place = game.num_players - 1 if rules.later_leader == "last_place" else 0
                    assert state.current_player == titles.index(place)
        assert len(trace) <= game.max_game_length
    assert rounds_seen == rules.rounds
    assert sum(state.scores) == sum(rules.points) * rules.rounds
    best = max(state.scores)
    tied = [s for s in range(game.num_players) if state.scores[s] == best]
    assert state.winner == min(tied, key=lambda s: state.titles[s])
    np.testing.assert_allclose(state.returns(), np.sum(round_rewards, axis=0))
    return trace, state


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_random_playouts(config):
    preset, players, overrides = config
    game = game_for(preset, players, overrides)
    rng = np.random.default_rng(zlib.crc32(repr(config).encode()))
    matches = 60
    for i in range(matches):
        play_match(game, rng, check_reference=i < 4)


@pytest.mark.parametrize("config", CONFIGS[:2] + CONFIGS[-8:-7] + CONFIGS[-3:],
                         ids=IDS[:2] + IDS[-8:-7] + IDS[-3:])
def test_same_seed_and_deal_code_replay(config):
    preset, players, overrides = config
    game = game_for(preset, players, overrides)
    for seed in range(5):
        a = game.new_state(np.random.default_rng(seed))
        b = game.new_state(np.random.default_rng(seed))
        assert a.deal_code == b.deal_code
        c = game.new_state(np.random.default_rng(99), {"deal": a.deal_code})
        assert c.hands == a.hands and c.current_player == a.current_player
        assert c.deal_code == a.deal_code
        # the same actions on the same deal give the same match
        trace, end = play_match(game, np.random.default_rng(seed), False, {"deal": a.deal_code})
        replay = game.new_state(np.random.default_rng(7), {"deal": a.deal_code})
        for action in trace:
            replay.apply(action)
        assert replay.scores == end.scores and replay.titles == end.titles


def test_thousands_of_games_daifugo_default():
    """The standard Daifugo game, 4 players, 1,000 rounds, every step checked for card conservation."""
    game = game_for("daifugo", 4, (("rounds", 1),))
    rng = np.random.default_rng(2024)
    for _ in range(1000):
        play_match(game, rng, check_reference=False)


def test_revolution_counts_jokers():
    """Sanity on the reference itself: a 4-card set with a joker is a revolution size."""
    game = game_for("daifugo", 4)
    m = game.catalog.moves[game.action_from_str("5s 5h 5d JK")]
    assert m.size >= REVOLUTION_SIZE and m.jokers == 1
    assert RANK_8 in _real_ranks(game.catalog.moves[game.action_from_str("7s 8s 9s")])
    assert RANK_J not in _real_ranks(game.catalog.moves[game.action_from_str("9s Ts JK=Js")])


FROM_VIEW = [0, -1, -2, -4, -5, -7]  # Daifugo; President two decks, any-suit runs, one deck; UECda


@pytest.mark.parametrize("config", [CONFIGS[i] for i in FROM_VIEW], ids=[IDS[i] for i in FROM_VIEW])
def test_from_view_rebuilds_the_same_position(config):
    """A state rebuilt from a seat's view plus the true hands moves exactly like the real one:
    same legal moves for the next steps, same observation and view (but the history, which
    a rebuilt state starts afresh)."""
    preset, players, overrides = config
    game = game_for(preset, players, overrides)
    rng = np.random.default_rng(5)
    for _ in range(10 if config in CONFIGS[:1] else 3):
        state = game.new_state(rng)
        while not state.terminal:
            seat = state.current_player
            view = state.view(seat)
            twin = game.from_view(view, state.hands, seed=state.seed)
            assert twin.legal_actions() == state.legal_actions()
            np.testing.assert_array_equal(game.observe(twin, seat), game.observe(state, seat))
            assert {**twin.view(seat), "history": None} == {**view, "history": None}
            probe_real, probe_twin = state.clone(), twin.clone()
            for _ in range(6):
                if probe_real.terminal or probe_real.round != state.round:
                    break
                legal = probe_real.legal_actions()
                assert probe_twin.legal_actions() == legal
                action = legal[rng.integers(len(legal))]
                probe_real.apply(action)
                probe_twin.apply(action)
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])


def random_setup(game, rng) -> dict:
    """Reset options for a random set-up: a few cards per seat (some out of play) and, most
    of the time, titles, so the match starts with the exchange."""
    deck = game.deck
    cards = rng.permutation(deck.size).tolist()
    hands, start = [], 0
    for _ in range(game.num_players):
        n = int(rng.integers(1, 6))
        hands.append(deck.format(sum(1 << c for c in cards[start : start + n])))
        start += n
    options = {"hands": hands, "seed": int(rng.integers(1 << 32))}
    if rng.random() < 0.8:
        options["titles"] = rng.permutation(game.num_players).tolist()
    else:
        options["leader"] = int(rng.integers(game.num_players))
    return options


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_random_setups_leave_the_seat_to_move_a_legal_move(config):
    """Set-up positions (small hands, titles, so an exchange first) either are refused because
    a giver holds fewer cards than it must give, or play out with the seat to move always able
    to move, legal moves as the reference says and no card lost."""
    preset, players, overrides = config
    game = game_for(preset, players, overrides)
    rng = np.random.default_rng(zlib.crc32(repr(config).encode()) + 1)
    played = refused = 0
    for _ in range(80):
        options = random_setup(game, rng)
        titles = options.get("titles")
        short = titles is not None and any(
            len(options["hands"][titles.index(players - 1 - tier)].split()) < count
            for tier, count in enumerate(game.rules.exchange)
        )
        if short:
            with pytest.raises(ValueError, match="must give"):
                game.new_state(rng, options)
            refused += 1
            continue
        state = game.new_state(rng, options)
        played += 1
        in_play = card_total(state)
        round_start = state.round
        while not state.terminal:
            assert_seat_to_move_can_move(state)
            legal = state.legal_actions()
            if state.round == round_start:
                assert set(legal) == reference_legal(game, state), game.render(state)
                assert card_total(state) == in_play, "a card was lost"
            state.apply(legal[rng.integers(len(legal))])
    assert played > 10
    assert refused > 5 or max(game.rules.exchange, default=0) <= 1  # a hand has 1 card or more
