"""Nothing a seat sees depends on another seat's hidden cards, in every game.

At many decision points of random games the other seats' hidden cards are shuffled among them
(each keeps its count; Dou Dizhu keeps the public kitty with the landlord), the deal is rebuilt
with the shuffled cards and the same moves are replayed: the acting seat's observation, legal
moves (its action mask), view and infos must come out identical. Replaying from the deal
catches what a snapshot cannot: a deal code in a view (Dou Dizhu), or suits that the engine
picked from the rest of a hand (two-deck President sets, any-suit runs). Later rounds of a
Daifugo/President match, which begin with an exchange that depends on the hands, are checked
on snapshots: the other hands shuffled in place.
"""

from __future__ import annotations

import numpy as np
import pytest

from daifugo_helpers import game_for
from climbrl.envs.core import dealcode
from climbrl.envs.core.bits import bit_list
from climbrl.envs.daifugo.cards import RANKS
from climbrl.envs import doudizhu_v1
from climbrl.envs.core.aec import turns
from climbrl.envs.doudizhu.cards import NUM_RANKS, PHYSICAL_RANK, UNIT, counts, format_cards
from climbrl.envs.doudizhu.engine import DoudizhuGame, Phase, random_deal

DAIFUGO_CONFIGS = [
    ("daifugo", 4, ()),
    ("daifugo", 3, ()),
    ("president", 4, ()),
    ("president", 6, ()),  # two decks: sets name no suits
    ("president", 7, (("jokers", 2), ("runs", True))),  # two decks, any-suit runs, jokers
    ("president", 4, (("runs", True), ("jokers", 2))),  # one deck, any-suit runs
]
DAIFUGO_IDS = [f"{p}{n}" + "".join(f"-{k}={v}" for k, v in o) for p, n, o in DAIFUGO_CONFIGS]
#: every this many decisions of a game is checked
EVERY = 3


def seen_by(game, state, seat):
    """Everything the PettingZoo env hands ``seat`` at this point (the env's observe, mask,
    view and infos are these engine calls)."""
    legal = state.legal_actions() if state.current_player == seat else []
    observation = game.observe(state, seat).tobytes()
    return observation, sorted(legal), state.view(seat), game.info(state, seat)


def assert_same(a, b, where):
    names = ("observation", "legal moves", "view", "info")
    for name, x, y in zip(names, a, b):
        if name == "view" and x != y:
            diff = {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}
            raise AssertionError(f"{where}: the view depends on hidden cards: {diff}")
        assert x == y, f"{where}: the {name} depends on hidden cards"


def shuffle_counts(rng, cards: list, sizes: list[int]) -> list[list]:
    """``cards`` dealt at random into groups of ``sizes``."""
    order = [cards[i] for i in rng.permutation(len(cards))]
    out, start = [], 0
    for n in sizes:
        out.append(order[start : start + n])
        start += n
    return out


# ------------------------------------------------------------------ Daifugo / President


def daifugo_shuffled_deal(game, rng, deal_hands, state, seat):
    """Round-0 deal hands in which the other seats' cards still hidden at ``state`` are dealt
    among them at random; the cards each has played stay with it."""
    others = [s for s in range(game.num_players) if s != seat]
    pool = [c for s in others for c in bit_list(state.hands[s])]
    groups = shuffle_counts(rng, pool, [state.hands[s].bit_count() for s in others])
    hands = list(deal_hands)
    for s, group in zip(others, groups):
        hands[s] = (deal_hands[s] & ~state.hands[s]) | sum(1 << c for c in group)
    return hands


def replay_daifugo(game, hands, leader, seed, actions):
    """The match dealt ``hands`` (exact copies: a deal code, since text would renumber the
    copies of two decks) after ``actions``."""
    owners = [game.num_players] * game.deck.size
    for seat, hand in enumerate(hands):
        for card in bit_list(hand):
            owners[card] = seat
    code = dealcode.encode(game.tag, dealcode.Deal(tuple(owners), leader, seed), game.num_players)
    state = game.new_state(np.random.default_rng(0), {"deal": code})
    for action in actions:
        state.apply(action)
    return state


@pytest.mark.parametrize("config", DAIFUGO_CONFIGS, ids=DAIFUGO_IDS)
def test_daifugo_first_round_replayed_with_other_hands_shuffled(config):
    game = game_for(*config)
    rng = np.random.default_rng(17)
    checked = 0
    for match in range(12):
        seed = int(rng.integers(1 << 32))
        deal_hands, first = game.deal(seed, 0, None)
        leader = game.new_state(np.random.default_rng(0), {"seed": seed}).current_player
        state = replay_daifugo(game, deal_hands, leader, seed, [])
        actions = []
        while state.round == 0 and not state.terminal:
            seat = state.current_player
            if len(actions) % EVERY == 0:
                twin = replay_daifugo(
                    game, daifugo_shuffled_deal(game, rng, deal_hands, state, seat),
                    leader, seed, actions,
                )
                assert_same(seen_by(game, state, seat), seen_by(game, twin, seat),
                            f"match {match}, move {len(actions)}, seat {seat}")
                checked += 1
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            actions.append(action)
            state.apply(action)
    assert checked > 100


@pytest.mark.parametrize("config", DAIFUGO_CONFIGS, ids=DAIFUGO_IDS)
def test_daifugo_later_rounds_with_other_hands_shuffled_in_place(config):
    game = game_for(*config)
    rng = np.random.default_rng(23)
    checked = exchanges = 0
    for _ in range(4):
        state = game.new_state(rng)
        step = 0
        while not state.terminal:
            seat = state.current_player
            if state.round > 0 and step % EVERY == 0:
                twin = state.clone()
                others = [s for s in range(game.num_players) if s != seat]
                pool = [c for s in others for c in bit_list(state.hands[s])]
                sizes = [state.hands[s].bit_count() for s in others]
                for s, group in zip(others, shuffle_counts(rng, pool, sizes)):
                    twin.hands[s] = sum(1 << c for c in group)
                twin._legal = None
                assert_same(seen_by(game, state, seat), seen_by(game, twin, seat),
                            f"round {state.round}, seat {seat}")
                checked += 1
                exchanges += state.phase == 0
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            step += 1
    assert checked > 50 and exchanges > 0


def test_two_deck_president_set_shows_no_suits():
    """Point 2 of the hidden-information probe: with two decks seat 1 plays ``Q Q`` (the
    engine picks the copies). Holding ``Qs Qh Qd 9s`` it showed ``Qs Qh``, holding ``Qh Qd
    Qc 9s`` it showed ``Qh Qd``: the suits told seat 0 which queens were left."""
    game = game_for("president", 6)
    seen = []
    for seat_1 in ("Qs Qh Qd 9s", "Qh Qd Qc 9s"):
        hands = ["3s 4s", seat_1, "5c", "6c", "7c", "8c"]
        state = game.new_state(np.random.default_rng(0), {"hands": hands, "leader": 1})
        state.apply(game.action_from_str("Q Q"))
        view = state.view(0)
        assert view["pile"]["cards"] == "Q Q" and view["played_ranks"] == "Q Q"
        assert view["played"] == ""
        obs = game.layout.split(game.observe(state, 0))
        assert obs["played"].sum() == 0 and obs["pile_cards"].sum() == 0
        assert obs["played_ranks"][RANKS.index("Q")] == 2 == obs["pile_ranks"].sum()
        seen.append(seen_by(game, state, 0))
        # the engine still moves two real queens: nothing is lost
        assert (state.hands[1] | state.played).bit_count() == 4
    assert_same(seen[0], seen[1], "Q Q from two different hands")


def test_rank_fields_are_zeros_without_unsuited_plays():
    """Every table of a preset has the ``played_ranks``/``pile_ranks`` fields (v1: one
    layout for all); under rules without unsuited plays (one deck, same-suit runs) they stay
    zeros through a whole match."""
    for preset, players in (("daifugo", 4), ("daifugo", 3), ("president", 4)):
        game = game_for(preset, players)
        assert not game.catalog.has_unsuited
        rng = np.random.default_rng(players)
        state = game.new_state(rng)
        while not state.terminal:
            obs = game.layout.split(game.observe(state, state.current_player))
            assert obs["played_ranks"].sum() == 0 == obs["pile_ranks"].sum()
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    assert game_for("president", 6).catalog.has_unsuited


# ------------------------------------------------------------------ Dou Dizhu

DDZ = DoudizhuGame()


def ddz_cards(packed: int) -> list[int]:
    """A rank count as a list of ranks (one per card)."""
    return [r for r, n in enumerate(counts(packed)) for _ in range(n)]


def ddz_pack(ranks: list[int]) -> int:
    return sum(UNIT[r] for r in ranks)


def ddz_shuffled_deal(rng, deal, kitty, state, seat):
    """Deal hands and kitty in which what ``seat`` cannot see is dealt again at random: while
    bidding, the other two hands and the kitty; once the kitty is public, the other two hands,
    the landlord keeping the kitty cards it has not played. Played cards stay with their
    player."""
    others = [s for s in range(3) if s != seat]
    fixed = [0, 0, 0]
    landlord = state.landlord
    if landlord >= 0 and landlord != seat:
        kept = [max(0, k - p) for k, p in zip(counts(kitty), counts(state.played[landlord]))]
        fixed[landlord] = ddz_pack([r for r in range(NUM_RANKS) for _ in range(kept[r])])
    free = [state.hands[s] - fixed[s] for s in others]
    pool = [r for f in free for r in ddz_cards(f)]
    sizes = [len(ddz_cards(f)) for f in free]
    if landlord < 0:
        pool += ddz_cards(kitty)
        sizes.append(len(ddz_cards(kitty)))
    groups = [ddz_pack(g) for g in shuffle_counts(rng, pool, sizes)]
    hands = list(deal)
    for s, group in zip(others, groups):
        held = fixed[s] + group
        hands[s] = state.played[s] + held - (kitty if s == landlord else 0)
    return hands, (groups[-1] if landlord < 0 else kitty)


def ddz_setup(hands, kitty, first_bidder, actions):
    options = {"hands": [format_cards(h) for h in hands], "kitty": format_cards(kitty),
               "first_bidder": first_bidder}
    state = DDZ.new_state(np.random.default_rng(0), options)
    for action in actions:
        state.apply(action)
    return state


def test_doudizhu_replayed_with_other_hands_shuffled():
    rng = np.random.default_rng(31)
    checked = bidding = 0
    for game_no in range(40):
        owners, first, _seed = random_deal(rng)
        deal = [sum(UNIT[r] for r, o in zip(PHYSICAL_RANK, owners) if o == s) for s in range(3)]
        kitty = sum(UNIT[r] for r, o in zip(PHYSICAL_RANK, owners) if o == 3)
        state = ddz_setup(deal, kitty, first, [])
        actions = []
        while not state.terminal and state.redeals == 0:
            seat = state.current_player
            if len(actions) % EVERY == 0:
                hands, new_kitty = ddz_shuffled_deal(rng, deal, kitty, state, seat)
                twin = ddz_setup(hands, new_kitty, first, actions)
                assert_same(seen_by(DDZ, state, seat), seen_by(DDZ, twin, seat),
                            f"game {game_no}, move {len(actions)}, seat {seat}")
                checked += 1
                bidding += state.phase == Phase.BIDDING
            legal = state.legal_actions()
            if state.phase == Phase.BIDDING and state.num_bids == 2 and not state.high_bid:
                legal = legal[1:]  # no redeal: a third pass would deal new cards
            action = legal[int(rng.integers(len(legal)))]
            actions.append(action)
            state.apply(action)
    assert checked > 300 and bidding > 10


def test_doudizhu_deal_code_only_in_the_result():
    """Point 1 of the hidden-information probe: ``view(seat)["deal"]`` and
    ``infos[agent]["deal"]`` carried the deal code, which decodes into every hand and the
    kitty. It now shows only in the result, once the deal is over."""
    env = doudizhu_v1.env()
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    final_infos = {}
    for agent in env.agent_iter():
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final_infos[agent] = info
            env.step(None)
            continue
        code = raw.deal_code
        for other in env.possible_agents:
            assert code not in repr(raw.view(other)) and code not in repr(env.infos[other])
            assert "deal" not in raw.view(other) and "deal" not in env.infos[other]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert raw.view(0)["result"]["deal"] == raw.deal_code
    assert [i["result"]["deal"] for i in final_infos.values()] == [raw.deal_code] * 3
