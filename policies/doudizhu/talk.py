"""Text for a human at the Dou Dizhu table: the position, moves typed as cards (``33344``,
``pass``, ``bid 2``), and why a typed move is not legal."""

from __future__ import annotations

from typing import Any

from envs.doudizhu.cards import contains, parse

RECENT_MOVES = 6


class DoudizhuTalk:
    """Position text, move parsing and illegal-move reasons for the Dou Dizhu engine."""

    def __init__(self, game):
        self.game = game

    def describe(self, view: dict[str, Any]) -> str:
        seat = view["seat"]
        lines = [f"== Dou Dizhu | {view['phase']} | you are the {view['role']} =="]
        for s, n in enumerate(view["cards_left"]):
            who = "you" if s == seat else f"player_{s}"
            role = "landlord" if view["landlord"] == s else ("peasant" if view["landlord"] is not None else "-")
            bid = view["bids"][s]
            bid_text = "" if bid is None else f" bid {'pass' if bid == 0 else bid}"
            mark = "  <- to move" if view["to_move"] == s else ""
            lines.append(f"  {who:<9} [{role}] {n:>2} cards{bid_text}{mark}")
        if view["kitty"]:
            lines.append(
                f"  kitty: {view['kitty']} | stake: bid {view['bid']} x {view['multiplier']}"
            )
        recent = view["history"][-RECENT_MOVES:]
        if recent:
            lines.append(
                "  last moves: " + ", ".join(
                    f"{'you' if s == seat else f'p{s}'}: {m}" for s, m in recent
                )
            )
        if view["phase"] == "bidding":
            lines.append(f"  advice: {view.get('advice', '')}  (type 'bid 1'..'bid 3' or 'pass')")
        elif view["pile"] is None:
            lines.append("  pile: empty - you lead" if view["to_move"] == seat else "  pile: empty")
        else:
            lines.append(f"  pile: {view['pile']} (by player_{view['pile_owner']})")
        lines.append(f"  unseen: {view['unseen']}")
        lines.append(f"  your hand: {view['hand']}")
        return "\n".join(lines)

    def parse(self, text: str, view: dict[str, Any]) -> int:
        return self.game.catalog.action_from_str(text, bidding=view["phase"] == "bidding")

    def move_text(self, action: int) -> str:
        return self.game.action_to_str(action)

    def explain(self, action: int, view: dict[str, Any], legal: list[int]) -> str:
        cat = self.game.catalog
        text = cat.action_to_str(action)
        if view["phase"] == "bidding":
            if not cat.is_bid(action):
                return "it is the bidding: 'bid 1'..'bid 3' or 'pass'"
            high = max((b for b in view["bids"] if b), default=0)
            return f"a bid must be above the highest bid so far ({high})"
        if cat.is_bid(action):
            return "the bidding is over: play cards or pass"
        if action == cat.PASS:
            return "you lead: you cannot pass"
        if not contains(parse(view["hand"]), cat.cards[action]):
            return f"you do not hold {text} (your hand: {view['hand']})"
        return f"{text} ({cat.describe(action)}) does not beat {view['pile']} ({cat.describe(cat.action_from_str(view['pile']))})"
