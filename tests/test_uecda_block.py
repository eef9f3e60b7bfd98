"""The UECda client across the games of a class block: each game is shown to the player as a
round of the match it was trained on (the server's classes as titles, the points so far as
scores, the exchange's cards), as ``uecda_v1`` shows that round."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import numpy as np
import pytest
import yaml

from climbrl.envs import uecda_v1
from climbrl.play.uecda import client, tables
from climbrl.play.uecda.block import DEFAULT_ROUNDS, Block, trained_rounds
from climbrl.play.uecda.rules import EXCHANGE, PLAYERS, POINTS
from climbrl.play.uecda.wire import read_recording
from test_uecda_protocol import _replay

DATA = Path(__file__).parent / "data" / "uecda"
RECORDING = DATA / "official-server-10-games.jsonl.gz"
CONFIG = Path(__file__).parent.parent / "configs" / "uecda.yaml"
ME = 0  # the recorded client's player number
OBS_FIELDS = ("hand", "gave", "received", "titles", "round", "rounds", "rounds_left", "scores")


def _replayed_positions(monkeypatch):
    """Replay the recording against our client (scripted-medium, seed 1); every position the
    player read, with the index of its game in the block (0: the first)."""
    seen, started = [], []
    build, begin = client.GameView.position, client.GameView.start

    def start(self, table):
        started.append(table)
        return begin(self, table)

    def position(self, rng, exchange=0):
        state = build(self, rng, exchange)
        seen.append((len(started) - 1, state))
        return state

    monkeypatch.setattr(client.GameView, "start", start)
    monkeypatch.setattr(client.GameView, "position", position)
    messages = read_recording(RECORDING)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    sent: list = []
    thread = threading.Thread(target=_replay, args=(listener, messages, sent), daemon=True)
    thread.start()
    summary = client.play("127.0.0.1", port, "scripted-medium", "replay", think_s=30, seed=1,
                          silence_s=30, log=lambda text: None)
    thread.join(10)
    listener.close()
    return messages, summary, seen


def _recorded_games(messages):
    """Per game of the recording: its classes (row 6 of the start table), the hand of the
    start table and of the first turn table after it, and the gift the client sent."""
    games = []
    for i, m in enumerate(messages):
        table = m.get("table")
        if m["dir"] != "in" or table is None or table[5][0] != 1:
            continue
        start = np.array(table)
        rest = messages[i + 1:]
        gift = None
        if start[5][1] > 0:
            gift = np.array(next(r["table"] for r in rest if r["dir"] == "out"))
        turn = np.array(next(r["table"] for r in rest
                             if r["dir"] == "in" and "table" in r and r["table"][5][0] != 1))
        games.append({"classes": [int(c) for c in start[6][5:10]], "start": start,
                      "turn": turn, "gift": gift})
    return games


def test_a_later_game_of_the_block_is_not_shown_as_a_first_game(monkeypatch):
    """Regression (every game of the server's block reached the player as a match's first
    round: no titles, scores 0, no exchange): replayed against the recorded official server,
    game k+1 of the block is round min(k, 4) of a 5-round match with the server's classes as
    titles, the points of the games behind that round as scores, and the cards of the
    exchange the conversation shows."""
    messages, summary, seen = _replayed_positions(monkeypatch)
    assert summary.games == 10 and summary.refused == 0
    games = _recorded_games(messages)
    deck = client.uecda_game().deck
    # the points of game j: the classes the server gives in game j + 1
    points = [[POINTS[c] for c in games[j + 1]["classes"]] for j in range(len(games) - 1)]
    later = 0
    for k, state in seen:
        view = state.view(ME)
        game = games[k]
        rnd = min(k, DEFAULT_ROUNDS - 1)
        assert view["round"] == rnd and view["rounds"] == DEFAULT_ROUNDS
        if k == 0:
            assert view["title_places"] == [None] * PLAYERS
            assert view["scores"] == [0] * PLAYERS
            assert view["exchange"]["gave"] == view["exchange"]["received"] == ""
            continue
        later += 1
        assert view["title_places"] == game["classes"]
        assert view["scores"] == [sum(p[s] for p in points[k - rnd:k]) for s in range(PLAYERS)]
        place = game["classes"][ME]
        dealt = tables.table_to_hand(deck, game["start"])
        after = tables.table_to_hand(deck, game["turn"])
        gave, received = deck.parse(view["exchange"]["gave"]), deck.parse(view["exchange"]["received"])
        if place >= PLAYERS - len(EXCHANGE):  # a lower class: as dealt, then after the exchange
            assert gave == dealt & ~after and gave.bit_count() == EXCHANGE[PLAYERS - 1 - place]
            assert received == after & ~dealt and received.bit_count() == gave.bit_count()
        elif place < len(EXCHANGE):  # a top class: the gift it sent (once it sent it)
            if view["phase"] == "play":
                assert gave == tables.table_to_hand(deck, game["gift"])
                assert gave.bit_count() == EXCHANGE[place]
            assert received == 0  # the server does not say which cards it brought
        else:
            assert gave == received == 0
    assert later > 0 and {k for k, _ in seen} >= set(range(1, 10))


def _tables_for(game, state, me, dealt, counts_dealt):
    """The start table and the first turn table the official server sends ``me`` for the
    env's round ``state`` (after its exchange): a lower class's start table shows the hand as
    dealt, a top class's the hand with the cards it received."""
    deck = game.deck
    start = tables.hand_to_table(deck, dealt)
    start[5][0] = 1
    start[6][0:5] = counts_dealt
    start[6][5:10] = state.titles
    start[6][10:15] = state.order
    turn = tables.hand_to_table(deck, state.hands[me])
    turn[6][0:5] = [h.bit_count() for h in state.hands]
    turn[6][5:10] = state.titles
    turn[6][10:15] = state.order
    turn[5][2], turn[5][3], turn[5][4] = int(state.current_player == me), state.current_player, 1
    return start, turn


@pytest.mark.parametrize("place", range(PLAYERS))
def test_the_client_shows_a_later_game_as_uecda_v1_shows_that_round(place):
    """The same deal in ``uecda_v1`` (5 rounds, the second round with these titles) and through
    the server's tables to our client: the observation agrees on the hand, the exchange's
    cards, titles, round and scores (a top class excepted: which cards it received the server
    does not say)."""
    env = uecda_v1.raw_env(rounds=DEFAULT_ROUNDS, reward="raw")
    game = env.game
    rng = np.random.default_rng(place)
    deck_cards = rng.permutation(game.deck.size)
    hands = [sum(1 << int(c) for c in deck_cards[s::PLAYERS]) for s in range(PLAYERS)]
    titles = [int(t) for t in rng.permutation(PLAYERS)]
    me = titles.index(place)
    state = game.new_state(rng, {"hands": [game.deck.format(h) for h in hands],
                                 "titles": titles, "seed": 1})
    received_first = state.hands[me]  # a top class's hand with what it received
    while state.phase == 0:  # the top classes give back (their first legal gives)
        state.apply(state.legal_actions()[0])
    dealt = received_first if place < len(EXCHANGE) else hands[me]
    start, turn = _tables_for(game, state, me, dealt, [h.bit_count() for h in hands])
    view = client.GameView(game, me, DEFAULT_ROUNDS)
    view.start(start)
    if place < len(EXCHANGE):
        view.gave_back(state.gave[me])
    view.turn(turn)
    ours = game.observe(view.position(np.random.default_rng(0)), me)
    theirs = game.observe(state, me)
    fields = [f for f in OBS_FIELDS if not (f == "received" and place < len(EXCHANGE))]
    for name in fields:
        sl = game.layout.slices[name]
        assert np.array_equal(ours[sl], theirs[sl]), name
    if place < len(EXCHANGE):
        assert not ours[game.layout.slices["received"]].any()


def test_block_maps_games_to_rounds_of_the_match():
    """Game k of the block is round min(k, rounds - 1), its scores the points of the last
    games that round has behind it; a block's first game (no classes) starts over."""
    block = Block(rounds=3)
    none = [0] * PLAYERS
    block.start_game(none)
    assert (block.round, block.titles, block.scores) == (0, None, none)
    places = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [1, 0, 2, 4, 3]]
    for k, done in enumerate(places):
        block.end_game(done)
        block.start_game(done)
        assert block.titles == done and block.round == min(k + 1, 2)
        behind = places[max(0, k - 1):k + 1]
        assert block.scores == [sum(POINTS[p[s]] for p in behind) for s in range(PLAYERS)]
    block.end_game(places[0])
    block.start_game(none)  # a new block
    assert (block.round, block.titles, block.scores, block.games) == (0, None, none, [])


def test_the_servers_classes_correct_a_stalled_games_points():
    """After a stalled game the client cannot see the stall guard's draw: the next game's
    classes (the server's places) set that game's points."""
    block = Block()
    block.start_game([0] * PLAYERS)
    block.end_game([0, 1, 2, 3, 4])  # our guess
    block.start_game([0, 1, 2, 4, 3])  # the server's places
    assert block.scores == [POINTS[p] for p in (0, 1, 2, 4, 3)]


def test_the_default_match_is_the_uecda_configs():
    """A player without a recorded configuration sees matches of configs/uecda.yaml's
    rounds; a trained one those of its own training."""
    rounds = yaml.safe_load(CONFIG.read_text())["rules"]["rounds"]
    assert DEFAULT_ROUNDS == rounds

    class Trained:
        meta = {"spec": {"config": {"rules": {"rounds": 7}}}}

    class Searching:
        network = Trained()

    assert trained_rounds(Searching()) == 7
    assert trained_rounds(object()) == DEFAULT_ROUNDS
