"""Text for a human at the Dou Dizhu table: the position, moves typed as cards (``33344``,
``pass``, ``bid 2``), why a typed move is not legal, and what each move did
(:mod:`climbrl.policies.doudizhu.narrate`)."""

from __future__ import annotations

from typing import Any

from climbrl.envs.doudizhu import laizi
from climbrl.envs.doudizhu.bidding import CLASSIC
from climbrl.envs.doudizhu.cards import RANK_INDEX, contains
from climbrl.envs.doudizhu.catalog import Kind

from ..text import grouped_moves, plural
from .narrate import DoudizhuNarrator

RECENT_MOVES = 6
HELP = """type a play as its ranks in any order: '7', '33344', 'TJQKA' ('10' for T works), 'BR'
for the rocket (B black joker, R red joker), 'pass'; in the bidding 'bid 1'..'bid 3' (or just
1..3) and 'pass', or 'call', 'rob' and 'pass' when the landlord is robbed; as an open-hand
landlord 'show' or 'hide' before the first lead; 'moves' lists your legal moves, 'hint'
suggests one (again: the next one), 'quit' or 'exit' ends the game."""


class DoudizhuTalk(DoudizhuNarrator):
    """Position text, move parsing, illegal-move reasons and the narration of each move
    (:class:`~climbrl.policies.doudizhu.narrate.DoudizhuNarrator`) for the Dou Dizhu engine."""

    help = HELP

    def describe(self, view: dict[str, Any]) -> str:
        cat = self.game.catalog
        seat = view["seat"]
        role = ("no landlord yet" if view["landlord"] is None else
                f"you are the {view['role']}")
        lines = [f"== Dou Dizhu | {view['phase']} | {role} =="]
        for s, n in enumerate(view["cards_left"]):
            who = "you" if s == seat else f"player_{s}"
            role = "landlord" if view["landlord"] == s else ("peasant" if view["landlord"] is not None else "-")
            bid = view["bids"][s]
            bid_text = "" if bid is None else f" {cat.action_to_str(cat.bid_action(bid))}"
            mark = "  <- to move" if view["to_move"] == s else ""
            lines.append(f"  {who:<9} [{role}] {plural(n, 'card'):>8}{bid_text}{mark}")
        if view["kitty"]:
            robs = f" ({plural(view['robs'], 'rob')})" if view["robs"] else ""
            lines.append(
                f"  kitty: {view['kitty']} | stake: bid {view['bid']} x {view['multiplier']}{robs}"
            )
        recent = view["history"][-RECENT_MOVES:]
        if recent:
            lines.append(
                "  last moves: " + ", ".join(
                    f"{'you' if s == seat else f'p{s}'}: {m}" for s, m in recent
                )
            )
        if view.get("wild"):
            lines.append(f"  wild: every {view['wild']} stands for any card 3..2 "
                         "(a bomb with one is soft)")
        if view.get("shown_hand") is not None:
            lines.append(f"  the landlord's hand (shown): {view['shown_hand']}")
        if view["phase"] == "bidding":
            moves = "', '".join(cat.texts[a] for a in cat.bid_segment)
            lines.append(f"  advice: {view.get('advice', '')}  (type '{moves}')")
        elif view["phase"] == "show":
            lines.append("  the landlord chooses: 'show' (the hand face up for everyone, the stake "
                         "doubles) or 'hide'")
        elif view["pile"] is None:
            lines.append("  pile: empty - you lead" if view["to_move"] == seat else "  pile: empty")
        else:
            wilds = f", {plural(view['pile_wilds'], 'wild card')}" if view.get("pile_wilds") else ""
            lines.append(f"  pile: {view['pile']} (by player_{view['pile_owner']}{wilds})")
        lines.append(f"  unseen: {view['unseen']}")
        lines.append(f"  your hand: {view['hand']}")
        return "\n".join(lines)

    def parse(self, text: str, view: dict[str, Any]) -> int:
        return self.game.catalog.action_from_str(text, bidding=view["phase"] == "bidding")

    def move_text(self, action: int) -> str:
        return self.game.action_to_str(action)

    def moves_text(self, legal: list[int]) -> str:
        """The legal moves grouped by shape in the catalog's shape order (singles, pairs,
        trios, ..., bombs, the rocket), each group weakest first (by its main rank, then its
        kickers' ranks), then pass."""
        cat = self.game.catalog
        groups: dict[str, list[str]] = {}
        plays = []
        for a in legal:
            if cat.is_bid(a):
                groups.setdefault("bids", []).append(cat.action_to_str(a))
            elif a != cat.PASS:
                first = cat.readings[a][0]
                text = cat.action_to_str(a)
                ranks = sorted(RANK_INDEX[c] for c in text)
                plays.append(((first.kind, first.length, first.main, ranks), first, text))
        for _key, first, text in sorted(plays, key=lambda p: p[0]):
            label = first.kind.label.replace("_", " ")
            if first.length > 1 and first.kind != Kind.BOMB:  # a bomb's length is its cards
                label += f" x{first.length}"
            groups.setdefault(label, []).append(text)
        if cat.PASS in legal:
            groups["pass"] = ["pass"]
        return grouped_moves(list(groups.items()))

    def explain(self, action: int, view: dict[str, Any], legal: list[int]) -> str:
        cat = self.game.catalog
        text = cat.action_to_str(action)
        if view["phase"] == "bidding":
            now = " or ".join(f"'{cat.action_to_str(a)}'" for a in legal)
            if not cat.is_bid(action):
                return f"it is the bidding: {now}"
            if self.game.auction.style == CLASSIC:
                high = max((b for b in view["bids"] if b), default=0)
                return f"a bid must be above the highest bid so far ({high})"
            return f"now you may {now}"
        if view["phase"] == "show":
            return "the landlord first chooses 'show' or 'hide'"
        if cat.is_bid(action) or cat.is_show(action):
            return "the bidding is over: play cards or pass"
        if action == cat.PASS:
            return "you lead: you cannot pass"
        hand = self.game.setup.parse(view["hand"])
        wild = view.get("wild")
        if not (laizi.holds(hand, RANK_INDEX[wild], cat.cards[action]) if wild
                else contains(hand, cat.cards[action])):
            spare = f" with the wild {wild}s" if wild else ""
            return f"you do not hold {text}{spare} (your hand: {view['hand']})"
        pile = cat.action_from_str(view["pile"])
        if wild and view["pile_wilds"] and cat.bomb_power[pile] >= 0:
            return (f"{text} does not beat the soft bomb {view['pile']}: only a higher soft "
                    "bomb, a hard bomb, the wild bomb or the rocket does")
        return f"{text} ({cat.describe(action)}) does not beat {view['pile']} ({cat.describe(pile)})"


TALK = DoudizhuTalk
"""the terminal text of the game (:func:`climbrl.policies.human.talk_for`)"""
