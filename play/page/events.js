// Sentences for the server's events (docs/protocol.md, "Events"), said where the eye is (the
// banner on the table), written into the log and read out by the live region.

import { SUIT_NAME, SUIT_SYMBOL, cardShort } from "./cards.js";

export function ordinal(place) {
  const n = place + 1;
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${tail}`;
}

export function suitsText(suits) {
  return [...(suits || "")].map((s) => `${SUIT_SYMBOL[s]} ${SUIT_NAME[s]}`).join(" and ");
}

function cardsShort(cards) {
  return (cards || []).map((c) => (typeof c === "string" ? c : cardShort(c))).join(" ");
}

/**
 * One event as `{text, banner}`: `text` for the log and the live region, `banner` (or null)
 * for the big sign on the table. `who(seat)` names a seat ("You", "CPU 1"); `me` is this
 * page's seat (null on a shared device), `game` the room's game.
 */
export function describe(ev, who, me, game) {
  const w = (s) => who(s);
  // "You lead" / "Blue leads"
  const v = (s, verb) => (s === me && w(s) === "You" ? `${w(s)} ${verb}` : `${w(s)} ${verb}s`);
  switch (ev.type) {
    case "start":
      if (game === "doudizhu" || ev.round === undefined) return { text: "New cards are dealt", banner: null };
      return { text: `Round ${ev.round + 1} begins`, banner: null };
    case "play":
      return { text: `${w(ev.seat)}: ${ev.label || ev.text} (${cardsShort(ev.cards) || ev.text})`, banner: null };
    case "pass":
      return { text: `${w(ev.seat)} passed`, banner: null };
    case "clear":
      return { text: `The pile is cleared; ${v(ev.leader, "lead")}`, banner: null };
    case "revolution":
      return ev.on === false
        ? { text: `Counter-revolution by ${w(ev.seat)}: the normal order is back`, banner: "Counter-revolution!" }
        : { text: `Revolution by ${w(ev.seat)}: 3 is now strongest and 2 weakest`, banner: "Revolution!" };
    case "eight_cut":
      return { text: `Eight cut: ${v(ev.seat, "clear")} the pile and lead${ev.seat === me ? "" : "s"} again`, banner: "Eight cut!" };
    case "jack_back":
      return ev.on === false
        ? { text: `Jack back by ${w(ev.seat)} ends: the order turns back until the pile clears`, banner: "Jack back ends" }
        : { text: `Jack back by ${w(ev.seat)}: the order is reversed until the pile clears`, banner: "Jack back!" };
    case "lock":
      return { text: `Lock: only ${suitsText(ev.suits)} until the pile clears`, banner: `Lock ${[...(ev.suits || "")].map((s) => SUIT_SYMBOL[s]).join("")}` };
    case "spade_three":
      return { text: `Spade three return: ${v(ev.seat, "beat")} the joker with the 3 of spades`, banner: "Spade three return!" };
    case "finish": {
      const title = ev.title ? ` (${ev.title})` : "";
      const bad = ev.illegal ? " with an illegal finish, ranked from the bottom" : "";
      const text = `${w(ev.seat)} finished ${ordinal(ev.place)}${title}${bad}`;
      return { text, banner: ev.illegal ? "Illegal finish!" : ev.seat === me ? `You finished ${ordinal(ev.place)}` : null };
    }
    case "fall":
      return { text: `Fall of the capital: ${v(ev.seat, "drop")} out and finish${ev.seat === me ? "" : "es"} ${ordinal(ev.place)}`, banner: "Fall of the capital!" };
    case "give": {
      if (ev.cards && ev.to === me) {
        return { text: `You received ${cardsShort(ev.cards)} from ${w(ev.from)}`, banner: `Received ${cardsShort(ev.cards)}` };
      }
      if (ev.cards && ev.from === me) {
        return { text: `You gave ${cardsShort(ev.cards)} to ${w(ev.to)}`, banner: `Gave ${cardsShort(ev.cards)}` };
      }
      const n = ev.count === 1 ? "1 card" : `${ev.count} cards`;
      return { text: `${w(ev.from)} gave ${n} to ${w(ev.to)}`, banner: null };
    }
    case "round_end":
      return { text: `Round ${ev.round + 1} is over`, banner: null };
    case "match_end":
      return { text: `The match is over: ${w(ev.winner)} ${ev.winner === me ? "win" : "wins"}`, banner: null };
    case "bid":
      if (ev.said) return { text: `${w(ev.seat)} ${ev.said}`, banner: null };
      return { text: ev.bid ? `${w(ev.seat)} bid ${ev.bid}` : `${w(ev.seat)} passed the bid`, banner: null };
    case "show":
      return ev.shown
        ? { text: `${w(ev.seat)} ${ev.seat === me ? "show" : "shows"} the landlord's hand: the round doubles (x${ev.multiplier})`, banner: "Hand shown! x2" }
        : { text: `${w(ev.seat)} ${ev.seat === me ? "keep" : "keeps"} the landlord's hand hidden`, banner: null };
    case "redeal":
      return { text: "Nobody bid: the cards are dealt again", banner: "New deal" };
    case "landlord":
      return {
        text: `${w(ev.seat)} ${ev.seat === me ? "are" : "is"} the landlord for ${ev.bid}${ev.robs ? ` after ${ev.robs} ${ev.robs === 1 ? "rob" : "robs"}` : ""} and ${ev.seat === me ? "take" : "takes"} the kitty ${cardsShort(ev.kitty)}`,
        banner: ev.seat === me ? "You are the landlord" : `${w(ev.seat)}: landlord`,
      };
    case "bomb":
      return {
        text: `${ev.rocket ? "Rocket" : "Bomb"} by ${w(ev.seat)}: the round doubles (x${ev.multiplier})`,
        banner: `${ev.rocket ? "Rocket" : "Bomb"}! x${ev.multiplier}`,
      };
    case "deal_end":
      return { text: "The deal is over", banner: null };
    case "undo":
      return { text: `Undo: back to ${w(ev.seat) === "You" ? "your" : w(ev.seat) + "'s"} previous decision`, banner: "Undo" };
    case "seat": {
      let text;
      if (ev.kind === "empty") text = `Seat ${ev.seat + 1} is empty`;
      else if (ev.away) text = `${ev.name} is away: the computer plays for them`;
      else if (ev.kind === "cpu") text = `${ev.name} (computer) sat down`;
      else if (ev.connected === false) text = `${ev.name} lost the connection`;
      else if (ev.seat === me) return { text: "You are at the table", banner: null };
      else text = `${ev.name} is at the table`;
      return { text, banner: null };
    }
    default:
      return { text: ev.type.replace(/_/g, " "), banner: null };
  }
}
