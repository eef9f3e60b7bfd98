"""What each move did at the Dou Dizhu table, in words, for one seat: read off that seat's
views before and after the move (the engine keeps no list of events). The bidding's end (who
is landlord, the kitty), a redeal, a bomb or the rocket doubling the stake, a trick won, and
the verdict: which side won, the multipliers and the points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..text import does, is_are, plural

View = dict[str, Any]


class DoudizhuNarrator:
    """Lines about the moves of a deal, for the seat whose views it is given. ``names[s]`` is
    how seat ``s`` is called (``"you"`` for that seat)."""

    def __init__(self, game):
        self.game = game

    def opening(self, view: View, names: Sequence[str]) -> list[str]:
        wild = f"; the {view['wild']}s are wild" if view.get("wild") else ""
        return [f"bidding: {does(names[view['to_move']], 'bid')} first{wild}"]

    def narrate(self, before: View, after: View, mover: int, action: int,
                names: Sequence[str]) -> list[str]:
        """The move (``"player_1 (medium): 33344"``) and what it did."""
        cat = self.game.catalog
        lines = [f"{names[mover]}: {cat.action_to_str(action)}"]
        if before["phase"] == "bidding":
            if after["landlord"] is not None:
                lord = after["landlord"]
                robs = f" after {plural(after['robs'], 'rob')}" if after["robs"] else ""
                lines.append(f"{is_are(names[lord])} the landlord at bid {after['bid']}{robs} and "
                             f"{'take' if names[lord] == 'you' else 'takes'} the kitty "
                             f"{after['kitty']}; {names[after['to_move']]} to lead")
            elif after["redeals"] > before["redeals"]:
                lines.append("everyone passed: the cards are dealt again; "
                             f"{does(names[after['to_move']], 'bid')} first")
        if before["phase"] == "show":
            lines.append(f"{names[mover]} {'show' if names[mover] == 'you' else 'shows'} the "
                         f"landlord's hand: the stake doubles (x{after['multiplier']})"
                         if after["shown_hand"] is not None else
                         f"{names[mover]} {'keep' if names[mover] == 'you' else 'keeps'} the "
                         "landlord's hand hidden")
        if after["bombs"] > before["bombs"]:
            what = "the rocket" if action == cat.ROCKET else "a bomb"
            if after.get("pile_wilds"):
                what = f"a soft bomb ({plural(after['pile_wilds'], 'wild card')})"
            lines.append(f"{what}: the stake doubles (x{after['multiplier']})")
        if before["pile"] is not None and after["pile"] is None and after["to_move"] is not None:
            lines.append(f"two passes: {names[after['to_move']]} to lead")
        if "result" in after and "result" not in before:
            lines += self._verdict(after, names)
        return lines

    def _verdict(self, view: View, names: Sequence[str]) -> list[str]:
        result = view["result"]
        me = view["seat"]
        if result["outcome"] == "no bid":
            return [f"game over: no one bid after {plural(result['redeals'], 'redeal')}; "
                    "no score"]
        lord = view["landlord"]
        peasants = [s for s in range(len(result["points"])) if s != lord]
        winner = names[result["winner"]]
        if result["outcome"] == "landlord":
            head = f"game over: the landlord, {names[lord]}, wins"
        else:
            side = " and ".join(names[s] for s in peasants)
            head = f"game over: the peasants, {side}, win: {winner} went out first"
        factors = [f"{result['bid']} (bid)"]
        if result["robs"]:
            factors.append(f"{2 ** result['robs']} ({plural(result['robs'], 'rob')})")
        if result["bombs"]:
            factors.append(f"{2 ** result['bombs']} ({plural(result['bombs'], 'bomb')})")
        if result["shown"]:
            factors.append("2 (the landlord's hand shown)")
        if result["spring"]:
            factors.append("2 (spring: no peasant played)")
        if result["anti_spring"]:
            factors.append("2 (anti-spring: the landlord played once)")
        base = self.game.config.base_points
        points = result["points"]
        stake = (f"stake: {base} x {' x '.join(factors)} = {result['round_points']} points; "
                 f"landlord {points[lord]:+d}, each peasant {points[peasants[0]]:+d}")
        mine = points[me]
        you_won = mine > 0
        return [head, stake, f"you {'win' if you_won else 'lose'} {abs(mine)} points"]
