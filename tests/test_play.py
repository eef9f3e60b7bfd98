"""The terminal game: commands, wording, the narration of rule events, the verdicts."""

from __future__ import annotations

import io
import re
import sys

import pytest

from climbrl.envs import daifugo_v1, doudizhu_v1
from climbrl.policies.daifugo.talk import DaifugoTalk
from climbrl.policies.doudizhu.talk import DoudizhuTalk
from climbrl.policies.human import QuitGame, TerminalPlayer
from climbrl.cli import main as cli
from climbrl.play.terminal import play_match

CARD = re.compile(r"\b(?:[3-9TJQKA2][shdc]|JK)\b")

# -- helpers -----------------------------------------------------------------------------------


def lines_from(replies):
    """A ``read`` that answers the prompts with ``replies``, then fails the test."""
    replies = list(replies)

    def read(prompt: str) -> str:
        assert replies, "the player asked for more input than the test gives"
        return replies.pop(0)

    return read


def daifugo_narration(hands, moves, seat=0, options=None, **rules):
    """Set up ``hands`` (``options`` for reset), play ``moves`` (card text) and return what
    seat ``seat`` is told, from the opening on."""
    env = daifugo_v1.env(players=len(hands), **rules)
    env.reset(options={"hands": hands, "seed": 0, **(options or {})})
    raw = env.unwrapped
    talk = DaifugoTalk(raw.game)
    names = ["you" if s == seat else f"player_{s}" for s in range(len(hands))]
    said = talk.opening(raw.view(seat), names)
    for text in moves:
        before = raw.view(seat)
        mover = raw.game_state.current_player
        action = raw.game.catalog.action_from_str(text, giving=before["phase"] == "exchange")
        env.step(action)
        said += talk.narrate(before, raw.view(seat), mover, action, names)
    return said


# Dou Dizhu: seat 0 is the landlord (bid 1) and leads, holding a queen
DDZ_LEADING_WITH_A_QUEEN = {
    "hands": ["3333444455556666777Q", "788889999TTTTJJJJ", "QQQKKKKAAAA2222BR"],
    "kitty": "37Q",
    "landlord": 0,
    "bid": 1,
    "first_bidder": 0,
}


def doudizhu_seat0_to_move(options=DDZ_LEADING_WITH_A_QUEEN):
    env = doudizhu_v1.env()
    env.reset(seed=0, options=options)
    obs, *_ = env.last()
    return env, obs


# -- commands ------------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["Q", "q"])
def test_typing_Q_plays_the_queen_not_quit(typed):
    # 'q' used to be short for quit, so the queen that 'hint' itself suggests ended the game
    env, obs = doudizhu_seat0_to_move()
    raw = env.unwrapped
    player = TerminalPlayer("doudizhu", read=lines_from([typed]), write=lambda _t: None)
    player.bind(raw.game)
    assert player.act(obs, raw.view(0)) == raw.action_from_str("Q")


@pytest.mark.parametrize("typed", ["quit", "exit", "QUIT"])
def test_quit_and_exit_end_the_game(typed):
    env, obs = doudizhu_seat0_to_move()
    player = TerminalPlayer("doudizhu", read=lines_from([typed]), write=lambda _t: None)
    player.bind(env.unwrapped.game)
    with pytest.raises(QuitGame):
        player.act(obs, env.unwrapped.view(0))


def test_end_of_input_quits_with_one_line():
    # Ctrl-D at the prompt: input() raises EOFError; the match ends with 'bye'
    def read(prompt):
        raise EOFError

    out = []
    assert play_match("doudizhu", ["random", "random"], seed=0, read=read, write=out.append) is None
    assert out[-1] == "bye"


def test_doudizhu_help_is_its_own():
    # Dou Dizhu's help used to print Daifugo's ('give 3s', '7s 7h')
    env, obs = doudizhu_seat0_to_move()
    out = []
    player = TerminalPlayer("doudizhu", read=lines_from(["help", "Q"]), write=out.append)
    player.bind(env.unwrapped.game)
    player.act(obs, env.unwrapped.view(0))
    help_text = out[1]
    assert "33344" in help_text and "bid 1" in help_text and "BR" in help_text
    assert "give" not in help_text and "7s 7h" not in help_text
    assert "give 3s" in DaifugoTalk.help and "33344" not in DaifugoTalk.help


def test_pass_as_the_only_legal_move_passes_with_a_line():
    env = daifugo_v1.env(players=4, rounds=1)
    # seat 1 leads the joker: seat 0 (nothing beats it, no 3 of spades) can only pass
    env.reset(options={"hands": ["4h 5h", "JK 6h", "7h 8d", "9h Td"], "leader": 1, "seed": 0})
    raw = env.unwrapped
    env.step(raw.action_from_str("JK"))
    env.step(raw.game.catalog.pass_id)
    env.step(raw.game.catalog.pass_id)
    obs, *_ = env.last()
    assert raw.game_state.current_player == 0
    out = []
    auto = TerminalPlayer("daifugo", read=lines_from([]), write=out.append).bind(raw.game)
    assert auto.act(obs, raw.view(0)) == raw.game.catalog.pass_id
    assert out == ["nothing to play (your hand: 4h 5h): you pass"]
    asked = TerminalPlayer("daifugo", read=lines_from(["pass"]), write=out.append,
                           auto_pass=False).bind(raw.game)
    assert asked.act(obs, raw.view(0)) == raw.game.catalog.pass_id


# -- wording -------------------------------------------------------------------------------------


def test_wording_one_card_a_single_and_no_undecided_role():
    # "1 cards", "(single of 1, ...)" and "you are the undecided" were printed
    env = daifugo_v1.env(players=4, rounds=1)
    env.reset(options={"hands": ["4h", "Kh 3c", "7h 8d", "9h Td"], "leader": 1, "seed": 0})
    raw = env.unwrapped
    env.step(raw.action_from_str("Kh"))
    text = DaifugoTalk(raw.game).describe(raw.view(0))
    assert " 1 card " in text and "1 cards" not in text
    assert "(single, by player_1)" in text
    ddz = doudizhu_v1.env()
    ddz.reset(seed=0)
    bidding = DoudizhuTalk(ddz.unwrapped.game).describe(ddz.unwrapped.view(0))
    assert "undecided" not in bidding and "no landlord yet" in bidding


def test_doudizhu_moves_are_grouped_by_shape_weakest_first():
    # they came in catalog order, where kickers sort as text: 6662 6667 ... 666A 666J 666K
    env, obs = doudizhu_seat0_to_move()
    raw = env.unwrapped
    legal = [a for a, ok in enumerate(obs["action_mask"]) if ok]
    text = DoudizhuTalk(raw.game).moves_text(legal)
    groups = dict(line.strip().split(": ", 1) for line in text.splitlines()[1:])
    assert list(groups)[:4] == ["single", "pair", "trio", "trio single"]
    assert groups["single"] == "3 4 5 6 7 Q"
    # by the trio's rank, then the kicker's
    assert groups["trio single"].split()[:6] == ["3334", "3335", "3336", "3337", "333Q", "3444"]
    assert groups["bomb"] == "3333 4444 5555 6666"
    assert text.splitlines()[0] == f"legal moves ({len(legal)}):"


# -- narration of the rule events ----------------------------------------------------------------


def test_eight_cut_is_announced():
    said = daifugo_narration(["8s 3h", "9s 4h", "Ts 5h", "Js 6h"], ["8s"], options={"leader": 0})
    assert said[-2:] == ["you: 8s", "EIGHT CUT: the pile clears; you to lead"]


def test_revolution_is_announced():
    said = daifugo_narration(["4s 4h 4d 4c 3h", "9s 5h", "Ts 6h", "Js 7h"],
                             ["4s 4h 4d 4c"], options={"leader": 0})
    assert any(line.startswith("REVOLUTION: the order is reversed") for line in said)


def test_jack_back_and_lock_are_announced():
    said = daifugo_narration(["5s 3h", "Js 4h", "Ts 6h", "Ks 7h"], ["5s", "Js"],
                             options={"leader": 0})
    assert "JACK BACK: the order turns over until the pile clears" in said
    assert "LOCK: until the pile clears, plays must be in spades" in said


def test_spade_three_return_is_announced():
    said = daifugo_narration(["JK 4h", "3s 5h", "Ts 6h", "Ks 7h"], ["JK", "3s"],
                             options={"leader": 0})
    assert said[-1] == ("SPADE THREE RETURN: the 3 of spades beats the joker: the pile clears; "
                        "player_1 to lead")


def test_illegal_finish_is_announced():
    said = daifugo_narration(["2s", "3h 4h", "5h 6h", "7h 9h"], ["2s"], options={"leader": 0},
                             illegal_finish=True)
    assert said[-1] == ("ILLEGAL FINISH: you went out on 2s, a forbidden last play, and drop "
                        "to Very Poor")


def test_fall_of_the_capital_is_announced():
    # a reigning Grand Millionaire beaten to first place was dropped without a word
    said = daifugo_narration(
        ["3s", "4s 5s", "6s 7s", "9s Ts"], ["3s"],
        options={"titles": [1, 0, 2, 3], "leader": 0}, rounds=2, exchange=(),
    )
    assert "you are out: 1st, Grand Millionaire" in said
    assert ("FALL OF THE CAPITAL: you went out first, so player_1, the reigning Grand "
            "Millionaire, drops out as Very Poor") in said


def test_exchange_shows_your_cards_and_only_counts_of_the_others():
    # the exchange was 'player_2 (medium): give ?': the cards you gave and got never shown
    hands = ["3s 4s 5s 9d", "3h 4h 8c Kd", "6d 7d 8d Qh", "2s JK Ah Td"]
    titles = [0, 1, 2, 3]  # seat 0 Grand Millionaire ... seat 3 Very Poor
    moves = ["give 3s", "give 4s", "give 3h"]
    rich = daifugo_narration(hands, moves, seat=0, options={"titles": titles}, rounds=2)
    assert ("exchange: you, the Grand Millionaire, get 2s JK from Very Poor player_3; give "
            "back 2 cards of your choice") in rich
    assert "you give back 3s to player_3" in rich
    assert "exchange over: you gave 3s 4s and got 2s JK" in rich
    poor = daifugo_narration(hands, moves, seat=3, options={"titles": titles}, rounds=2)
    assert ("exchange: you, the Very Poor, give your 2 best cards 2s JK to Grand Millionaire "
            "player_0") in poor
    assert "player_0 gives you back 3s" in poor
    assert "exchange over: you gave 2s JK and got 3s 4s" in poor
    # seat 2 takes part only in the second tier: the first one comes as counts
    middle = daifugo_narration(hands, moves, seat=2, options={"titles": titles}, rounds=2)
    others = [line for line in middle if "player_0" in line and "player_3" in line]
    assert others == [
        "exchange: Very Poor player_3 gives its 2 best cards to Grand Millionaire player_0, "
        "who gives back as many",
        "player_0 gives player_3 a card back",
        "player_0 gives player_3 a card back",
    ]
    assert not any(CARD.search(line) for line in others)
    assert "exchange: you, the Poor, give your best card Qh to Millionaire player_1" in middle
    assert "player_1 gives you back 3h" in middle


def test_round_lines_list_each_name_with_its_own_score():
    # the round line listed names by title but scores by seat
    out = []
    replies = iter(["moves"] * 10_000)

    def read(prompt):
        # 'moves', then the first listed move
        if out and out[-1].startswith("legal moves"):
            return out[-1].splitlines()[1].split(": ", 1)[1].split(" | ")[0]
        return next(replies)

    scores = play_match("daifugo", ["easy", "medium", "random"], rounds=2, seed=4, read=read,
                        write=out.append)
    text = "\n".join(out)
    table = text.split("round 2 of 2 over:\n", 1)[1].splitlines()[:4]
    for line in table:
        name = "you" if " you " in line else re.search(r"player_\d \(\w+\)", line).group()
        seat = 0 if name == "you" else int(name[7])
        assert line.rstrip().endswith(f"total {scores[seat]}")
    winner = max(range(4), key=lambda s: scores[s])
    assert "match over: " in text and "standings: 1st " in text
    if scores.count(scores[winner]) == 1:
        name = "you win" if winner == 0 else f"player_{winner} "
        assert name in text.split("match over: ", 1)[1]


def test_doudizhu_ends_with_the_winning_side_multipliers_and_points():
    # it ended with 'scores [-2.0, -2.0, 4.0]' without saying who won
    out = []

    def read(prompt):
        # 'moves', then the first listed move
        if out and out[-1].startswith("legal moves"):
            moves = out[-1].splitlines()[1].split(": ", 1)[1]
            return moves.split(" | ")[0] if " | " in moves else moves.split(" ")[0]
        return "moves"

    returns = play_match("doudizhu", ["medium", "medium"], seed=3, read=read, write=out.append)
    text = "\n".join(out)
    assert re.search(r"game over: the (landlord, .*, wins|peasants, .* and .*, win: .* went out "
                     r"first)\n", text)
    assert re.search(r"stake: 10 x \d \(bid\)( x \d+ \(.*\))* = \d+ points; landlord [+-]\d+, "
                     r"each peasant [+-]\d+", text)
    mine = int(re.search(r"you (win|lose) (\d+) points", text).group(2))
    assert mine == abs(returns[0]) * 10


# -- the command line ----------------------------------------------------------------------------


class RaisingStdin(io.StringIO):
    def __init__(self, error):
        super().__init__()
        self.error = error

    def readline(self, *args):
        raise self.error


def test_ctrl_c_in_play_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", RaisingStdin(KeyboardInterrupt()))
    argv = ["play", "--game", "daifugo", "--cpus", "random,random,random", "--seed", "1"]
    assert cli(argv) == 130
    err = capsys.readouterr().err
    assert err == "climbrl: interrupted\n"


def test_ctrl_d_in_play_says_bye(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli(["play", "--game", "doudizhu", "--cpus", "random,random", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith("bye") and "Traceback" not in captured.err
