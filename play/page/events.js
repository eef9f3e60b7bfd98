// Sentences for the server's events (docs/protocol.md, "Events"), said where the eye is (the
// banner on the table), written into the log and read out by the live region. The server
// sends codes and values; every word here comes from the page's catalog (i18n.js).

import { SUIT_SYMBOL, cardShort, rankShow, suitName } from "./cards.js";
import { has, t } from "./i18n.js";

export function ordinal(place) {
  return t("place", { n: place + 1, ordinal: true });
}

export function suitsText(suits) {
  return [...(suits || "")].map((s) => `${SUIT_SYMBOL[s]} ${suitName(s)}`).join(t("list.and"));
}

function cardsShort(cards) {
  return (cards || []).map((c) => (typeof c === "string" ? moveCards(c) : cardShort(c))).join(" ");
}

/** "7s" -> "7♠", "JK" -> "Joker": card texts the server sends without card objects. */
function moveCards(text) {
  return (text || "").replace(/\bJK\b/g, t("card.joker")).replace(/\b([2-9TJQKA])([shdc])\b/g, (_, r, su) => rankShow(r) + SUIT_SYMBOL[su]);
}

/** A rank in a move's name: "7", "10", "Jack". */
function rankWord(rank) {
  return "JQKA".includes(rank) ? t(`rank.${rank}`) : rankShow(rank);
}

/**
 * The name of a move from its `name` (a code and values, docs/protocol.md "Move names"): "pair
 * of 7s", "Trio + 1", "Call". A move without one (an older server) keeps its English `label`.
 */
export function moveName(move) {
  const n = move && move.name;
  if (!n) return (move && (move.label || move.text)) || "";
  switch (n.code) {
    case "give":
      return t("move.give", { card: moveCards(n.card) });
    case "single":
      return t("move.single", { rank: rankWord(n.rank) });
    case "set": {
      const key = has(`move.set.${n.size}`) ? `move.set.${n.size}` : "move.set";
      const base = t(key, { size: n.size, rank: rankWord(n.rank) });
      return n.jokers ? t("move.with_jokers", { move: base, n: n.jokers }) : base;
    }
    case "run": {
      const ends = { low: rankWord(n.low), high: rankWord(n.high) };
      const base = n.suit ? t("move.run_suit", { ...ends, suit: suitName(n.suit) }) : t("move.run", ends);
      return n.jokers_as && n.jokers_as.length ? t("move.jokers_as", { move: base, cards: n.jokers_as.map(moveCards).join(t("list.sep")) }) : base;
    }
    case "bid":
      return n.bid ? t("move.bid", { bid: n.bid }) : t("move.no_bid");
    case "shape":
      return n.kinds.map((k) => t(`shape.${k}`)).join(t("move.or"));
    default:
      return t(`move.${n.code}`);
  }
}

/** A title from its code (the rules' English `title` where the catalog has no such key). */
export function titleName(code, english) {
  if (code && has(`title.${code}`)) return t(`title.${code}`);
  return english || "";
}

/**
 * One event as `{text, banner}`: `text` for the log and the live region, `banner` (or null)
 * for the big sign on the table. `who(seat)` names a seat ("You", "CPU 1"); `me` is this
 * page's seat (null on a shared device), `game` the room's game.
 */
export function describe(ev, who, me, game) {
  const w = (s) => who(s);
  // "The pile is cleared; you lead" / "...; Blue leads"
  const v = (key, s, params = {}) => (s === me ? t(`${key}.me`, params) : t(key, { who: w(s), ...params }));
  switch (ev.type) {
    case "start":
      if (game === "doudizhu" || ev.round === undefined) return { text: t("event.deal"), banner: null };
      return { text: t("event.round_start", { n: ev.round + 1 }), banner: null };
    case "play": {
      const move = moveName(ev);
      return { text: t("event.play", { who: w(ev.seat), move, cards: cardsShort(ev.cards) || move }), banner: null };
    }
    case "pass":
      return { text: t("event.pass", { who: w(ev.seat) }), banner: null };
    case "clear":
      return { text: v("event.clear", ev.leader), banner: null };
    case "revolution":
      return ev.on === false
        ? { text: t("event.counter_revolution", { who: w(ev.seat) }), banner: t("sign.counter_revolution") }
        : { text: t("event.revolution", { who: w(ev.seat) }), banner: t("sign.revolution") };
    case "eight_cut":
      return { text: v("event.eight_cut", ev.seat), banner: t("sign.eight_cut") };
    case "jack_back":
      return ev.on === false
        ? { text: t("event.jack_back_end", { who: w(ev.seat) }), banner: t("sign.jack_back_end") }
        : { text: t("event.jack_back", { who: w(ev.seat) }), banner: t("sign.jack_back") };
    case "lock":
      return { text: t("event.lock", { suits: suitsText(ev.suits) }), banner: t("sign.lock", { suits: [...(ev.suits || "")].map((s) => SUIT_SYMBOL[s]).join("") }) };
    case "spade_three":
      return { text: v("event.spade_three", ev.seat), banner: t("sign.spade_three") };
    case "finish": {
      const title = titleName(ev.title_code, ev.title);
      const place = ordinal(ev.place);
      const text = t(title ? "event.finish_titled" : "event.finish", { who: w(ev.seat), place, title }) + (ev.illegal ? t("event.illegal") : "");
      return { text, banner: ev.illegal ? t("sign.illegal") : ev.seat === me ? t("sign.finished", { place }) : null };
    }
    case "fall":
      return { text: v("event.fall", ev.seat, { place: ordinal(ev.place) }), banner: t("sign.fall") };
    case "give": {
      if (ev.cards && ev.to === me) {
        const cards = cardsShort(ev.cards);
        return { text: t("event.received", { cards, who: w(ev.from) }), banner: t("sign.received", { cards }) };
      }
      if (ev.cards && ev.from === me) {
        const cards = cardsShort(ev.cards);
        return { text: t("event.gave", { cards, who: w(ev.to) }), banner: t("sign.gave", { cards }) };
      }
      return { text: t("event.give", { from: w(ev.from), to: w(ev.to), n: ev.count }), banner: null };
    }
    case "round_end":
      return { text: t("event.round_end", { n: ev.round + 1 }), banner: null };
    case "match_end":
      return { text: v("event.match_end", ev.winner), banner: null };
    case "bid":
      if (ev.said) return { text: t(`event.said.${ev.said}`, { who: w(ev.seat) }), banner: null };
      return { text: ev.bid ? t("event.bid", { who: w(ev.seat), bid: ev.bid }) : t("event.bid_pass", { who: w(ev.seat) }), banner: null };
    case "show":
      return ev.shown
        ? { text: v("event.show", ev.seat, { m: ev.multiplier }), banner: t("sign.show") }
        : { text: v("event.hide", ev.seat), banner: null };
    case "redeal":
      return { text: t("event.redeal"), banner: t("sign.redeal") };
    case "landlord": {
      const params = { bid: ev.bid, robs: ev.robs ? t("event.robs", { n: ev.robs }) : "", cards: cardsShort(ev.kitty) };
      return {
        text: v("event.landlord", ev.seat, params),
        banner: ev.seat === me ? t("sign.landlord.me") : t("sign.landlord", { who: w(ev.seat) }),
      };
    }
    case "bomb":
      return {
        text: t(ev.rocket ? "event.rocket" : "event.bomb", { who: w(ev.seat), m: ev.multiplier }),
        banner: t(ev.rocket ? "sign.rocket" : "sign.bomb", { m: ev.multiplier }),
      };
    case "deal_end":
      return { text: t("event.deal_end"), banner: null };
    case "undo":
      return { text: v("event.undo", ev.seat), banner: t("sign.undo") };
    case "seat": {
      let text;
      if (ev.kind === "empty") text = t("event.seat_empty", { n: ev.seat + 1 });
      else if (ev.away) text = t("event.seat_away", { name: ev.name });
      else if (ev.kind === "cpu") text = t("event.seat_cpu", { name: ev.name });
      else if (ev.connected === false) text = t("event.seat_lost", { name: ev.name });
      else if (ev.seat === me) text = t("event.seat_me");
      else text = t("event.seat_here", { name: ev.name });
      return { text, banner: null };
    }
    default:
      return { text: t("event.other"), banner: null };
  }
}
