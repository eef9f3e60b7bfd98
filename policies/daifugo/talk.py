"""Text for a human at a Daifugo / President table: the position as text, moves typed as cards,
why a typed move is not legal, and what each move did (:mod:`climbrl.policies.daifugo.narrate`).

The terminal player (:mod:`climbrl.policies.human`) speaks through one of these per game family.
"""

from __future__ import annotations

from typing import Any

from climbrl.envs.daifugo.cards import JOKER_RANK
from climbrl.envs.daifugo.catalog import GIVE, KIND_NAMES, PASS, RUN, SET, SINGLE

from ..text import grouped_moves, plural
from .narrate import DaifugoNarrator

SHAPE_WORDS = {SINGLE: "single", SET: "set", RUN: "run"}
RECENT_MOVES = 8
HELP = """type a move as cards ('7s 7h', '3s JK=4s 5s' for a joker standing in, 'JK'), 'pass',
or in the exchange 'give 3s' (or just '3s'); 'moves' lists your legal moves, 'hint' suggests
one (again: the next one), 'quit' or 'exit' ends the match."""


class DaifugoTalk(DaifugoNarrator):
    """Position text, move parsing, illegal-move reasons and the narration of each move
    (:class:`~climbrl.policies.daifugo.narrate.DaifugoNarrator`) for the Daifugo engine."""

    help = HELP

    def describe(self, view: dict[str, Any]) -> str:
        """The position as ``view``'s seat sees it: state, seats, recent moves, pile, hand."""
        rules = self.game.rules
        players = self.game.num_players
        flags = ["order reversed" if view["reversed"] else "order normal"]
        if view["revolution"]:
            flags.append("REVOLUTION")
        if view["jack_back"]:
            flags.append("JACK BACK")
        if view["lock"]:
            flags.append(f"LOCK {view['lock']}")
        lines = [
            f"== {rules.preset_name} | round {view['round'] + 1}/{view['rounds']} | "
            f"{view['phase']} | {' | '.join(flags)} =="
        ]
        for s in range(players):
            who = "you" if s == view["seat"] else f"player_{s}"
            title = view["titles"][s] or "-"
            marks = []
            if view["places"][s] is not None:
                marks.append(f"out: {rules.titles[view['places'][s]]}")
            elif view["passed"][s]:
                marks.append("passed")
            if s == view["current_player"]:
                marks.append("<- to move")
            lines.append(
                f"  {who:<9} [{title}] score {view['scores'][s]:>3}  "
                f"{plural(view['hand_counts'][s], 'card'):>8}  {' '.join(marks)}"
            )
        recent = view["history"][-RECENT_MOVES:]
        if recent:
            lines.append(
                "  last moves: " + ", ".join(
                    f"{'you' if s == view['seat'] else f'p{s}'}: {m}" for s, m in recent
                )
            )
        pile = view["pile"]
        if view["phase"] == "exchange":
            ex = view["exchange"]
            lines.append(
                f"  exchange: you received {ex['received'] or '-'}; give back "
                f"{plural(ex['to_give'], 'card')} (e.g. 'give 3s' or just '3s')"
            )
        elif pile is None:
            lines.append("  pile: empty - you lead" if view["current_player"] == view["seat"] else "  pile: empty")
        else:
            lines.append(
                f"  pile: {pile['move']}  ({self.shape_text(pile)}, by player_{pile['by']})")
        lines.append(f"  your hand: {view['hand']}")
        return "\n".join(lines)

    def parse(self, text: str, view: dict[str, Any]) -> int:
        """The action id of a typed move; ``ValueError`` saying what is wrong with the text."""
        return self.game.catalog.action_from_str(text, giving=view["phase"] == "exchange")

    @staticmethod
    def shape_text(pile: dict[str, Any]) -> str:
        """``"single"``, ``"set of 2"``, ``"run of 4"``: a view's pile shape in words."""
        if pile["shape"] == "single":
            return "single"
        return f"{pile['shape']} of {pile['size']}"

    def move_text(self, action: int) -> str:
        return self.game.action_to_str(action)

    def moves_text(self, legal: list[int]) -> str:
        """The legal moves grouped by shape (singles, sets of 2, ..., runs), weakest first (in
        the normal order), then pass."""
        cat = self.game.catalog
        order = sorted(legal, key=lambda a: (cat.kind[a] == PASS, cat.kind[a], cat.msize[a],
                                             cat.low[a], a))
        groups: dict[str, list[str]] = {}
        for a in order:
            kind = cat.kind[a]
            if kind in (PASS, GIVE, SINGLE):
                label = KIND_NAMES[kind] + ("s" if kind == SINGLE else "")
            else:
                label = f"{SHAPE_WORDS[kind]}s of {cat.msize[a]}"
            groups.setdefault(label, []).append(cat.action_to_str(a))
        return grouped_moves(list(groups.items()), sep=" | ")

    def explain(self, action: int, view: dict[str, Any], legal: list[int]) -> str:
        """Why ``action`` is not legal in ``view``'s position (it is not in ``legal``)."""
        game = self.game
        cat = game.catalog
        deck = game.deck
        text = cat.action_to_str(action)
        kind = cat.kind[action]
        if view["phase"] == "exchange":
            if kind != GIVE:
                return "it is the exchange: give back a card ('give 3s' or just '3s')"
        elif kind == GIVE:
            return "the exchange is over: play cards or pass"
        hand = deck.parse(view["hand"])
        if kind != PASS:
            cards = game.cards_for(hand, action)
            if cards & ~hand or cards.bit_count() < cat.msize[action]:
                return f"you do not hold the cards of {text!r} (your hand: {view['hand']})"
        pile = view["pile"]
        if kind == PASS:
            return "you lead: you cannot pass" if pile is None else "you cannot pass now"
        if pile is None:
            return f"{text!r} is not a play these rules allow"
        pile_id = cat.action_from_str(pile["move"])
        order = "reversed" if view["reversed"] else "normal"
        if cat.low[pile_id] == JOKER_RANK and cat.kind[pile_id] == SET:
            return "nothing beats the pair of jokers: pass"
        if cat.kind[pile_id] == SINGLE and cat.low[pile_id] == JOKER_RANK:
            return "only the 3 of spades beats a single joker (spade three return), if that rule is on"
        if kind != cat.kind[pile_id] or cat.msize[action] != cat.msize[pile_id]:
            return (
                f"the pile is a {self.shape_text(pile)} ({pile['move']}): reply with the same "
                "shape and number of cards"
            )
        if view["lock"]:
            return (
                f"the pile is locked to {view['lock']}: {text!r} must show exactly those suits "
                f"(a joker may stand in), and beat {pile['move']}"
            )
        return f"{text!r} does not beat {pile['move']} in the {order} order"


TALK = DaifugoTalk
"""the terminal text of the game (:func:`climbrl.policies.human.talk_for`)"""
