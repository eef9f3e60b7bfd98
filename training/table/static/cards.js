// Cards: parsing the engines' card text and drawing cards with plain DOM and CSS.
//
// Daifugo / President write a card as rank + suit ("7h", "Ts") or "JK" for a joker, cards
// separated by spaces; two decks repeat a text. Dou Dizhu writes one character per card with
// no suit ("33344", "BR": black and red joker). Every card gets a position-based id so that
// repeated texts stay apart.

export const SUIT_SYMBOL = { s: "♠", h: "♥", d: "♦", c: "♣" };
export const SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANK_SHOW = { T: "10" };
const RANK_NAME = { T: "10", J: "Jack", Q: "Queen", K: "King", A: "Ace" };
// Dou Dizhu has no suits; the page draws the k-th copy of a rank in this suit.
const DDZ_SUITS = ["s", "h", "c", "d"];

/** A Daifugo/President card text list ("3s 7h JK") as card objects. */
export function parseSuited(text) {
  const words = (text || "").trim().split(/\s+/).filter(Boolean);
  return words.map((w, i) => {
    if (w === "JK") return { id: i, text: w, rank: "JK", suit: null, joker: true };
    return { id: i, text: w, rank: w.slice(0, -1), suit: w.slice(-1), joker: false };
  });
}

/** A Dou Dizhu card string ("33344BR") as card objects, suits drawn per copy. */
export function parseRanks(text) {
  const seen = {};
  return [...(text || "").replace(/\s+/g, "")].map((ch, i) => {
    if (ch === "B" || ch === "R") {
      return { id: i, text: ch, rank: ch, suit: null, joker: true, ddz: true };
    }
    const k = seen[ch] || 0;
    seen[ch] = k + 1;
    return { id: i, text: ch, rank: ch, suit: DDZ_SUITS[k % 4], joker: false, ddz: true };
  });
}

export function parseCards(game, text) {
  return game === "doudizhu" ? parseRanks(text) : parseSuited(text);
}

/** The move text for a list of card objects (Dou Dizhu: ranks joined; others: words). */
export function cardsText(game, cards) {
  return game === "doudizhu" ? cards.map((c) => c.text).join("") : cards.map((c) => c.text).join(" ");
}

/** Spoken name: "7 of hearts", "Queen of spades", "Joker", "Red joker". */
export function cardName(card) {
  if (card.joker) {
    if (card.rank === "B") return "Black joker";
    if (card.rank === "R") return "Red joker";
    return "Joker";
  }
  const rank = RANK_NAME[card.rank] || card.rank;
  if (card.suit && !card.ddz) return `${rank} of ${SUIT_NAME[card.suit]}`;
  return rank;
}

/** Short visible label for a button: "10♥", "JK", "B". */
export function cardShort(card) {
  if (card.joker) return card.rank === "JK" ? "Joker" : card.rank === "B" ? "Black joker" : "Red joker";
  return (RANK_SHOW[card.rank] || card.rank) + (card.suit ? SUIT_SYMBOL[card.suit] : "");
}

function isRed(card) {
  if (card.joker) return card.rank === "R" || card.rank === "JK";
  return card.suit === "h" || card.suit === "d";
}

/** A face-up card as an element (a span; the caller wraps it in a button when it is pressable). */
export function cardFace(card, { small = false } = {}) {
  const el = document.createElement("span");
  el.className = "card face" + (isRed(card) ? " red" : " black") + (small ? " small" : "");
  el.dataset.card = card.text;
  if (card.joker) {
    el.classList.add("joker");
    const word = document.createElement("span");
    word.className = "joker-word";
    word.textContent = "JOKER";
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

/** A row of face-up cards (for the pile, the kitty, result hands). */
export function cardRow(game, text, opts = {}) {
  const row = document.createElement("span");
  row.className = "card-row";
  const cards = parseCards(game, text);
  for (const c of cards) row.append(cardFace(c, opts));
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", cards.length ? cards.map(cardName).join(", ") : "no cards");
  return row;
}

/** Spoken text of a card list. */
export function cardsSpoken(game, text) {
  const cards = parseCards(game, text);
  return cards.length ? cards.map(cardName).join(", ") : "no cards";
}
