// Cards: names and drawings of the server's card objects with plain DOM and CSS.
//
// A card is `{"id": 17, "text": "7h", "rank": "7", "suit": "h"}` (docs/protocol.md): `rank`
// is 3..9 T J Q K A 2, or `JK` (a Daifugo/President joker), `B` / `R` (Dou Dizhu's black
// and red joker); `suit` is s h d c, or null for a joker. `id` tells two equal texts apart.
// Names come from the catalog (i18n.js); the ranks and suit symbols on the faces are the same
// in every language.

import { t } from "./i18n.js";

export const SUIT_SYMBOL = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RANK_SHOW = { T: "10" };

/** The spoken name of a suit letter ("hearts"). */
export function suitName(suit) {
  return t(`suit.${suit}`);
}

/** The rank as shown on a card ("10", "J"). */
export function rankShow(rank) {
  return RANK_SHOW[rank] || rank;
}

function jokerName(rank) {
  return t(rank === "B" ? "card.black_joker" : rank === "R" ? "card.red_joker" : "card.joker");
}

export function isJoker(card) {
  return card.rank === "JK" || card.rank === "B" || card.rank === "R";
}

/** Spoken name: "7 of hearts", "Queen of spades", "Joker", "Red joker". */
export function cardName(card) {
  if (isJoker(card)) return jokerName(card.rank);
  const rank = "JQKA".includes(card.rank) ? t(`rank.${card.rank}`) : rankShow(card.rank);
  if (card.suit) return t("card.of", { rank, suit: suitName(card.suit) });
  return rank;
}

/** Short visible label for a button: "10♥", "JK", "B". */
export function cardShort(card) {
  if (isJoker(card)) return jokerName(card.rank);
  return (RANK_SHOW[card.rank] || card.rank) + (card.suit ? SUIT_SYMBOL[card.suit] : "");
}

function isRed(card) {
  if (isJoker(card)) return card.rank === "R" || card.rank === "JK";
  return card.suit === "h" || card.suit === "d";
}

/** A face-up card as an element (a span; the caller wraps it in a button when it is pressable). */
export function cardFace(card, { small = false } = {}) {
  const el = document.createElement("span");
  el.className = "card face" + (isRed(card) ? " red" : " black") + (small ? " small" : "");
  el.dataset.card = card.text;
  if (isJoker(card)) {
    el.classList.add("joker");
    const word = document.createElement("span");
    word.className = "joker-word";
    word.textContent = t("card.face_joker");
    const star = document.createElement("span");
    star.className = "joker-star";
    star.textContent = "★";
    el.append(cornerEl("★", "", "tl"), star, word, cornerEl("★", "", "br"));
    return el;
  }
  const rank = RANK_SHOW[card.rank] || card.rank;
  const sym = SUIT_SYMBOL[card.suit];
  const pip = document.createElement("span");
  pip.className = "pip" + ("JQK".includes(card.rank) ? " court" : "");
  pip.textContent = "JQK".includes(card.rank) ? card.rank : sym;
  if ("JQK".includes(card.rank)) {
    const s = document.createElement("span");
    s.className = "court-suit";
    s.textContent = sym;
    pip.append(s);
  }
  el.append(cornerEl(rank, sym, "tl"), pip, cornerEl(rank, sym, "br"));
  return el;
}

function cornerEl(rank, sym, where) {
  const c = document.createElement("span");
  c.className = "corner " + where;
  const r = document.createElement("span");
  r.className = "corner-rank";
  r.textContent = rank;
  c.append(r);
  if (sym) {
    const s = document.createElement("span");
    s.className = "corner-suit";
    s.textContent = sym;
    c.append(s);
  }
  return c;
}

/** A face-down card. */
export function cardBack({ small = false } = {}) {
  const el = document.createElement("span");
  el.className = "card back" + (small ? " small" : "");
  return el;
}

/** A row of face-up cards (the pile, the kitty, hands on the result card). */
export function cardRow(cards, opts = {}) {
  const row = document.createElement("span");
  row.className = "card-row";
  for (const c of cards || []) row.append(cardFace(c, opts));
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", cardsSpoken(cards));
  return row;
}

/** Spoken text of a list of cards. */
export function cardsSpoken(cards) {
  return cards && cards.length ? cards.map(cardName).join(t("list.sep")) : t("cards.none");
}

/** Short text of a list of cards: "7♥ 7♠ Joker". */
export function cardsShortText(cards) {
  return (cards || []).map(cardShort).join(" ");
}
