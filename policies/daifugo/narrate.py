"""What each move did at a Daifugo / President table, in words, for one seat.

The engine keeps no list of events, so they are read off that seat's view before and after
the move (``state.view(seat)``), plus the rules and the catalog: a revolution, a jack back, a
lock, an eight cut, a spade three return, a pile that clears, a player going out (an illegal
finish, the fall of the capital), the exchange, the end of a round and the match's verdict.
Nothing is said that the seat may not see: the cards of an exchange only when the seat gave
or got them, other exchanges as counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from climbrl.envs.daifugo.catalog import GIVE, PASS

from ..text import does, is_are, ordinal, plural

SUIT_WORDS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
View = dict[str, Any]


class DaifugoNarrator:
    """Lines about the moves of a match, for the seat whose views it is given. ``names[s]``
    is how seat ``s`` is called (``"you"`` for that seat)."""

    def __init__(self, game):
        self.game = game

    # -- a whole match -------------------------------------------------------------------------

    def opening(self, view: View, names: Sequence[str]) -> list[str]:
        """Lines before the first move: the round, the exchange if it starts with one."""
        return self._round_start(view, names)

    def narrate(self, before: View, after: View, mover: int, action: int,
                names: Sequence[str]) -> list[str]:
        """The move (``"player_1 (medium): 7s 7h"``) and what it did, from one seat's views
        before and after it."""
        cat = self.game.catalog
        kind = cat.kind[action]
        over = after["phase"] == "over"
        new_round = over or after["round"] != before["round"]
        lines: list[str] = []
        if kind == GIVE:
            lines += self._give(before, after, mover, action, names)
        else:
            lines.append(f"{names[mover]}: {cat.action_to_str(action)}")
        if kind not in (PASS, GIVE):
            lines += self._play(before, after, mover, action, names, new_round)
        elif kind == PASS and not new_round and before["pile"] and after["pile"] is None:
            lines.append(self._cleared("everyone else passed", before, after, names))
        if new_round:
            lines += self._round_over(before, after, names)
            lines += self._verdict(after, names) if over else self._round_start(after, names)
        return lines

    # -- plays ---------------------------------------------------------------------------------

    def _play(self, before: View, after: View, mover: int, action: int, names: Sequence[str],
              new_round: bool) -> list[str]:
        game, cat, rules = self.game, self.game.catalog, self.game.rules
        lines = []
        text = cat.action_to_str(action)
        if not new_round:
            if after["revolution"] != before["revolution"]:
                lines.append(
                    "REVOLUTION: the order is reversed (3 high, 2 low) for the rest of the round"
                    if after["revolution"]
                    else "counter-revolution: the order is back to normal for the rest of the round"
                )
            if rules.jack_back and cat.hasJ[action]:
                lines.append("JACK BACK: the order turns over until the pile clears")
            if after["lock"] and not before["lock"]:
                suits = " and ".join(SUIT_WORDS[c] for c in after["lock"])
                lines.append(f"LOCK: until the pile clears, plays must be in {suits}")
        out_lines = self._going_out(before, after, mover, text, names, new_round)
        if not new_round and after["pile"] is None:
            pile = before["pile"]
            if (rules.spade_three_return and action == game.spade_three and pile
                    and pile["move"] == cat.action_to_str(cat.joker_single)):
                why = "SPADE THREE RETURN: the 3 of spades beats the joker"
            elif rules.eight_cut and cat.has8[action]:
                why = "EIGHT CUT"
            else:
                why = "no one left to reply"
            lines.append(self._cleared(why, before, after, names))
        return lines + out_lines

    def _cleared(self, why: str, before: View, after: View, names: Sequence[str]) -> str:
        ends = [what for what, on in (("jack back", before["jack_back"]), ("lock", before["lock"]))
                if on]
        tail = f" ({' and '.join(ends)} over)" if ends else ""
        return f"{why}: the pile clears{tail}; {names[after['current_player']]} to lead"

    def _going_out(self, before: View, after: View, mover: int, text: str,
                   names: Sequence[str], new_round: bool) -> list[str]:
        places = after["title_places"] if new_round else after["places"]
        place = places[mover]
        if place is None:
            return []
        titles = self.game.rules.titles
        taken = {p for p in before["places"] if p is not None}
        next_top = min(set(range(len(places))) - taken)
        if place != next_top:
            return [f"ILLEGAL FINISH: {names[mover]} went out on {text}, a forbidden last play, "
                    f"and {'drop' if names[mover] == 'you' else 'drops'} to {titles[place]}"]
        lines = [f"{is_are(names[mover])} out: {ordinal(place + 1)}, {titles[place]}"]
        reigning = before["title_places"]
        if self.game.rules.fall_of_capital and place == 0 and 0 in reigning:
            fallen = reigning.index(0)
            if fallen != mover and before["active"][fallen] and places[fallen] is not None:
                lines.append(
                    f"FALL OF THE CAPITAL: {names[mover]} went out first, so "
                    f"{names[fallen]}, the reigning {titles[0]}, "
                    f"{'drop' if names[fallen] == 'you' else 'drops'} out as "
                    f"{titles[places[fallen]]}")
        return lines

    # -- the exchange --------------------------------------------------------------------------

    def _partner(self, view: View, seat: int) -> int | None:
        """The seat ``seat`` exchanges with this round (by last round's places), or None."""
        places = view["title_places"]
        place = places[seat]
        tiers = len(self.game.rules.exchange)
        n = len(places)
        if place is None or tiers <= place < n - tiers:
            return None
        return places.index(n - 1 - place)

    def _give(self, before: View, after: View, mover: int, action: int,
              names: Sequence[str]) -> list[str]:
        me = before["seat"]
        deck = self.game.deck
        to = self._partner(before, mover)
        card = self.game.catalog.action_to_str(action).removeprefix("give ").strip()
        if mover == me:
            lines = [f"you give back {card} to {names[to]}"]
        elif to == me:
            had = deck.parse(before["exchange"]["received"])
            got = deck.parse(after["exchange"]["received"]) & ~had
            lines = [f"{does(names[mover], 'give')} you back {deck.format(got)}"]
        else:
            lines = [f"{does(names[mover], 'give')} {names[to]} a card back"]
        if after["phase"] != "exchange":
            mine = after["exchange"]
            if mine["gave"] or mine["received"]:
                lines.append(f"exchange over: you gave {mine['gave']} and got {mine['received']}")
            else:
                lines.append("exchange over")
            lines.append(f"{names[after['current_player']]} to lead")
        return lines

    def _round_start(self, view: View, names: Sequence[str]) -> list[str]:
        lines = [f"round {view['round'] + 1} of {view['rounds']}"]
        if view["phase"] != "exchange":
            return [lines[0] + f": {names[view['current_player']]} to lead"]
        rules = self.game.rules
        places = view["title_places"]
        n = len(places)
        me = view["seat"]
        mine = view["exchange"]
        for tier, count in enumerate(rules.exchange):
            giver, taker = places.index(n - 1 - tier), places.index(tier)
            poor, rich = rules.titles[n - 1 - tier], rules.titles[tier]
            best = "best card" if count == 1 else f"{count} best cards"
            if giver == me:
                lines.append(f"exchange: you, the {poor}, give your {best} {mine['gave']} to "
                             f"{rich} {names[taker]}")
            elif taker == me:
                lines.append(f"exchange: you, the {rich}, get {mine['received']} from {poor} "
                             f"{names[giver]}; give back {plural(count, 'card')} of your choice")
            else:
                lines.append(f"exchange: {poor} {does(names[giver], 'give')} its {best} to "
                             f"{rich} {names[taker]}, who gives back as many")
        return lines

    # -- the end of a round, of the match ------------------------------------------------------

    def _round_over(self, before: View, after: View, names: Sequence[str]) -> list[str]:
        titles = self.game.rules.titles
        places = after["title_places"]
        lines = [f"round {before['round'] + 1} of {before['rounds']} over:"]
        width = max(len(name) for name in names)
        for seat in sorted(range(len(places)), key=lambda s: places[s]):
            gained = after["scores"][seat] - before["scores"][seat]
            unit = "point" if abs(gained) == 1 else "points"
            lines.append(f"  {ordinal(places[seat] + 1):<4} {names[seat]:<{width}}  "
                         f"{titles[places[seat]]:<18} {gained:+d} {unit}, "
                         f"total {after['scores'][seat]}")
        return lines

    def _verdict(self, view: View, names: Sequence[str]) -> list[str]:
        """Who won the match and the seat's own place (highest total; a tie goes to the one
        placed higher in the last round, as the engine decides the winner)."""
        scores, last = view["scores"], view["title_places"]
        order = sorted(range(len(scores)), key=lambda s: (-scores[s], last[s]))
        winner = view["winner"] if view["winner"] is not None else order[0]
        me = view["seat"]
        standings = ", ".join(
            f"{ordinal(i + 1)} {names[s]} {scores[s]}" for i, s in enumerate(order))
        if winner == me:
            head = f"match over: you win with {plural(scores[me], 'point')}"
        else:
            head = (f"match over: {does(names[winner], 'win')} with "
                    f"{plural(scores[winner], 'point')}; you finish "
                    f"{ordinal(order.index(me) + 1)} of {len(order)} with "
                    f"{plural(scores[me], 'point')}")
        return [head, f"standings: {standings}"]
