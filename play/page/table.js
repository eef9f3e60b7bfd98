// Drawing the table from a `state` frame: seats with name tags around the felt, the pile, the
// flags at the top right, your hand at the near edge with its actions, and the side panel
// ("Button controls", the table facts, scores and the ranking of each round).
//
// Everything is drawn again from the state and the page's own selection on every change. The
// hand and the action rows are patched (`patchChildren`): a control with the same `data-key`
// stays the same element, so a frame that arrives while a key or a finger is down on it keeps
// its focus and its press; `keepFocus` (app.js) covers the controls that do go away.

import { SUIT_SYMBOL, cardBack, cardFace, cardName, cardRow, cardShort, cardsShortText, rankShow, suitName } from "./cards.js";
import { moveName, ordinal, titleName } from "./events.js";
import { t } from "./i18n.js";

const $ = (sel, root = document) => root.querySelector(sel);

export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) setHandler(e, k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "style") e.style.cssText = v; // through the CSSOM: the page's CSP refuses style attributes
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

/** Sets the `type` handler of `e`, one per type, so that `patchChildren` can swap it. */
function setHandler(e, type, fn) {
  if (!e.handlers) e.handlers = {};
  if (!(type in e.handlers)) {
    e.addEventListener(type, (ev) => {
      const f = e.handlers[type];
      if (f) f(ev);
    });
  }
  e.handlers[type] = fn;
}

/** Brings `old` up to date with `fresh` (attributes, inline style, content, handlers). */
function syncElement(old, fresh) {
  for (const a of [...old.attributes]) if (a.name !== "style" && !fresh.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of [...fresh.attributes]) {
    if (a.name !== "style" && old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
  }
  if (old.style.cssText !== fresh.style.cssText) old.style.cssText = fresh.style.cssText; // CSSOM: the CSP refuses style attributes
  old.replaceChildren(...fresh.childNodes);
  for (const [type, fn] of Object.entries(fresh.handlers || {})) setHandler(old, type, fn);
  for (const type of Object.keys(old.handlers || {})) if (!(fresh.handlers || {})[type]) old.handlers[type] = null;
}

/**
 * Makes `box`'s children the elements `fresh`, keeping each child already there under the same
 * `data-key` (brought up to date) instead of its fresh copy, and moving none that keep their
 * order: a button being pressed (a key or a finger down) or holding the focus survives a new
 * frame, so the press ends on the element it began on.
 */
export function patchChildren(box, fresh) {
  const old = new Map();
  for (const c of box.children) if (c.dataset.key) old.set(c.dataset.key, c);
  const keep = fresh.map((f) => {
    const o = f.dataset.key ? old.get(f.dataset.key) : undefined;
    if (!o || o.tagName !== f.tagName) return f;
    old.delete(f.dataset.key);
    syncElement(o, f);
    return o;
  });
  const wanted = new Set(keep);
  for (const c of [...box.childNodes]) if (!wanted.has(c)) c.remove();
  keep.forEach((c, i) => {
    if (box.children[i] !== c) box.insertBefore(c, box.children[i] || null);
  });
}

const COLOURS = ["red", "blue", "green", "gold", "purple", "orange", "teal", "pink"];
export function colourClass(colour) {
  return `seat-${colour === "yellow" ? "gold" : colour || "red"}`;
}
export function colourName(colour) {
  const c = colour === "yellow" ? "gold" : colour;
  return COLOURS.includes(c) ? t(`colour.${c}`) : c || "";
}

/** The seat shown at the near edge: this connection's seat, or the one behind the curtain. */
export function viewSeat(st) {
  if (st.seat !== null && st.seat !== undefined) return st.seat;
  if (st.curtain) return st.curtain.seat;
  if (st.turn !== null && st.turn !== undefined) return st.turn;
  return 0;
}

// -------------------------------------------------------------------------- moves and selection

// Hand cards are related to moves by card text, as a multiset: with two decks (President,
// 6+ players) two cards share each text and either copy makes the same move, though `moves`
// and `playable` name one copy (docs/protocol.md). With one deck this is the same as by id.

/** The sorted texts of the hand cards `ids` (ids not in the hand are left out). */
function textsOf(hand, ids) {
  return ids.filter((id) => hand.has(id)).map((id) => hand.get(id).text).sort();
}

function handMap(st) {
  return new Map((st.hand || []).map((c) => [c.id, c]));
}

/** Legal moves the selected cards make (same card texts, or same ranks for `any_suit` moves). */
export function matchingMoves(st, selected) {
  if (!st.moves || selected.size === 0) return [];
  const hand = handMap(st);
  const sel = [...selected].filter((id) => hand.has(id));
  const selRanks = sel.map((id) => hand.get(id).rank).sort().join(",");
  const selTexts = textsOf(hand, sel).join(",");
  const out = [];
  for (const m of st.moves) {
    if (!m.cards || m.cards.length !== sel.length || m.shape === "give" || m.shape === "bid" || m.shape === "pass") continue;
    if (m.any_suit) {
      const ranks = m.cards.map((id) => (hand.get(id) || {}).rank).sort().join(",");
      if (ranks === selRanks) out.push(m);
    } else if (textsOf(hand, m.cards).join(",") === selTexts) out.push(m);
  }
  return out;
}

/** The give move that gives a card of this text, or undefined. */
export function giveMoveFor(st, text) {
  const hand = handMap(st);
  return giveMoves(st).find((m) => m.cards.length === 1 && (hand.get(m.cards[0]) || {}).text === text);
}

/** Whether the hand card `id` is dimmed: it is your turn and no legal move uses a card of
 * its text (`playable` names one copy of each). */
export function cardDisabled(st, id) {
  if (!st.your_turn || !st.playable) return false;
  if (st.phase === "bidding") return false;
  const hand = handMap(st);
  const card = hand.get(id);
  if (!card) return true;
  return !textsOf(hand, st.playable).includes(card.text);
}

export function giveMoves(st) {
  return (st.moves || []).filter((m) => m.shape === "give");
}

export function bidMoves(st) {
  return (st.moves || []).filter((m) => m.shape === "bid" || (st.phase === "bidding" && m.shape === "pass"));
}

export function passMove(st) {
  return (st.moves || []).find((m) => m.shape === "pass" && st.phase !== "bidding");
}

/** What the action buttons are right now: [{key, label, enabled, kind, move?, why}]. */
export function actionList(st, ui) {
  const mine = !!st.your_turn;
  const acts = [];
  const ddz = st.game === "doudizhu";
  if (mine && st.phase === "show") {
    for (const m of st.moves || []) {
      acts.push({ key: `show-${m.text}`, label: moveName(m), enabled: true, kind: "move", move: m, primary: m.text === "hide" });
    }
    return acts;
  }
  if (mine && st.phase === "bidding") {
    const rob = !!(st.rules && st.rules.rob);
    for (const m of bidMoves(st)) {
      const n = bidValue(m);
      if (rob) {
        acts.push({ key: `bid-${m.text.replace(/ /g, "-")}`, label: moveName(m), enabled: true, kind: "move", move: m, primary: m.text !== "bid pass" });
      } else {
        acts.push({ key: `bid-${n}`, label: n ? t("action.bid", { n }) : t("action.no_bid"), enabled: true, kind: "move", move: m, primary: n > 0 });
      }
    }
    return acts;
  }
  const gives = giveMoves(st);
  if (mine && gives.length) {
    const need = (st.exchange && st.exchange.to_give) || 1;
    const hand = handMap(st);
    const ok = ui.selected.size === need && [...ui.selected].every((id) => hand.has(id) && giveMoveFor(st, hand.get(id).text));
    acts.push({
      key: "give", label: t("action.give"), enabled: ok, kind: "give", primary: true,
      why: ok ? null : t("action.give_why", { n: need }),
    });
    return acts;
  }
  const matches = matchingMoves(st, ui.selected);
  if (matches.length > 1) {
    // readings of one shape (a wild card standing for other ranks) are told apart by their cards
    const shapes = {};
    for (const m of matches) shapes[moveName(m)] = (shapes[moveName(m)] || 0) + 1;
    for (const m of matches) {
      const move = moveName(m);
      const label = shapes[move] > 1 ? t("action.play_reading", { move, cards: moveShort(m.text) }) : t("action.play_shape", { move });
      acts.push({ key: `play-${m.action}`, label, enabled: mine, kind: "move", move: m, primary: true });
    }
  } else {
    acts.push({ key: "play", label: t("action.play"), enabled: mine && matches.length === 1, kind: "move", move: matches[0], primary: true });
  }
  const pass = passMove(st);
  acts.push({ key: "pass", label: t("action.pass"), enabled: mine && !!pass && !!st.can_pass, kind: "move", move: pass });
  if (ddz && st.started && st.phase !== "over") {
    acts.push({ key: "hint", label: t("action.hint"), enabled: mine && st.phase === "play", kind: "hint" });
    if (st.mode === "cpu") acts.push({ key: "undo", label: t("action.undo"), enabled: st.phase !== "over", kind: "undo" });
  }
  return acts;
}

export function bidValue(move) {
  const m = /(\d)/.exec(move.text || "");
  return move.shape === "pass" || !m ? 0 : Number(m[1]);
}

// -------------------------------------------------------------------------- board

/** Below this board width (px) the seats sit closer in, so their tags stay on the felt. */
const NARROW_BOARD_PX = 600;
/** How far the seats sit from the middle across the board, in % of its width: wide, narrow. */
const SEAT_RADIUS = { wide: 39, narrow: 30 };

export function positionOf(k, n, rx = SEAT_RADIUS.wide) {
  // k = 0 is the near edge; the next seats to play follow to the right, across, to the left.
  // Big tables spread the others over the far half so the near edge stays free for the hand.
  const deg = n <= 4 ? 90 - (k * 360) / n : 10 - ((k - 1) * 200) / (n - 2);
  const theta = (deg * Math.PI) / 180;
  const x = 50 + rx * Math.cos(theta);
  const y = 42 + 28 * Math.sin(theta);
  return { x, y };
}

export function seatTag(st, s, who, opts = {}) {
  const seat = st.seats[s];
  const toMove = st.turn === s;
  const cls = ["tag", colourClass(seat.colour)];
  if (toMove) cls.push("to-move");
  if (seat.passed) cls.push("passed");
  if (seat.away) cls.push("away");
  const lines = [];
  const cardsText = t("tag.cards", { n: seat.cards });
  const title = titleName(seat.title_code, seat.title);
  const state = [];
  if (seat.place !== null && seat.place !== undefined) state.push(t("tag.finished", { place: ordinal(seat.place) }));
  else if (seat.passed) state.push(t("tag.passed"));
  if (toMove) state.push(t("tag.to_move"));
  if (seat.role) state.push(t(seat.role === "landlord" ? "role.landlord.lower" : "role.peasant.lower"));
  if (st.game === "doudizhu" && st.phase === "bidding" && seat.bid !== null && seat.bid !== undefined) {
    state.push(seat.bid_label ? t(`tag.said.${seat.bid_label}`) : seat.bid ? t("tag.bid", { n: seat.bid }) : t("tag.no_bid"));
  }
  if (seat.kind === "empty") state.push(t("tag.empty"));
  else if (seat.connected === false && !seat.away) state.push(t("tag.disconnected"));
  lines.push(el("span", { class: "tag-line" }, cardsText, title ? ` · ${title}` : ""));
  if (state.length) lines.push(el("span", { class: "tag-state" }, state.join(" · ")));
  const name = who(s, { tag: true });
  const label = [
    t("tag.seat", { name, colour: colourName(seat.colour) }),
    cardsText,
    title ? t("tag.last_title", { title }) : null,
    ...state,
  ].filter(Boolean).join(t("list.sep"));
  // the "to move" badge and the "(computer)" mark are drawn by style.css from these attributes,
  // in the page's language
  const dataset = { seat: String(s) };
  if (toMove) dataset.badge = t("tag.to_move");
  const nameData = seat.away ? { away: t("tag.away") } : undefined;
  return el("div", { class: cls.join(" ") + (seat.role === "landlord" ? " role-landlord" : ""), role: "group", "aria-label": label, dataset },
    el("span", { class: "tag-name", dataset: nameData }, el("span", { class: "tag-dot", "aria-hidden": "true" }), name, opts.me ? el("span", { class: "sr-only" }, t("tag.you")) : null),
    ...lines);
}

export function renderBoard(st, ui, h) {
  const n = st.seats.length;
  const me = viewSeat(st);
  const seatsBox = $("#seats");
  seatsBox.replaceChildren();
  const rx = $("#board").clientWidth < NARROW_BOARD_PX ? SEAT_RADIUS.narrow : SEAT_RADIUS.wide;
  for (let k = 1; k < n; k++) {
    const s = (me + k) % n;
    const pos = positionOf(k, n, rx);
    const seat = st.seats[s];
    const fan = el("div", { class: "fan", "aria-hidden": "true" });
    for (let i = 0; i < Math.min(seat.cards, 14); i++) fan.append(cardBack());
    const said = lastSaid(st, s, ui);
    const wrap = el("div", { class: "seat" + (n > 4 ? " compact" : ""), style: `left:${pos.x}%;top:${pos.y}%` }, seatTag(st, s, h.who), fan, said);
    seatsBox.append(wrap);
  }
  // my own tag sits in the near area, beside the status line
  const near = $("#near-head");
  let mine = $("#my-tag", near);
  const tag = seatTag(st, me, h.who, { me: true });
  tag.id = "my-tag";
  if (mine) mine.replaceWith(tag);
  else near.prepend(tag);

  renderIndicators(st);
  renderPile(st, h);
  renderCounter(st);
  renderHand(st, ui, h);
  renderActions($("#actions"), st, ui, h, "table");
  const status = $("#status");
  status.textContent = ui.status.text;
  status.className = "status-line" + (ui.status.tone ? ` ${ui.status.tone}` : "");
}

function lastSaid(st, s, ui) {
  const t = ui.said && ui.said[s];
  if (!t) return null;
  return el("div", { class: "said" }, t);
}

function renderIndicators(st) {
  const box = $("#indicators");
  box.replaceChildren();
  const f = st.flags || {};
  if (f.revolution) box.append(el("span", { class: "badge revolution", role: "status" }, el("span", { class: "icon", "aria-hidden": "true" }, "⟲"), t("badge.revolution")));
  if (f.jack_back) box.append(el("span", { class: "badge jack-back", role: "status" }, el("span", { class: "icon", "aria-hidden": "true" }, "J"), t("badge.jack_back")));
  if (f.lock) {
    const suits = [...f.lock];
    box.append(el("span", { class: "badge lock", role: "status", "aria-label": t("badge.lock_label", { suits: suits.map(suitName).join(t("list.and")) }) },
      el("span", { class: "padlock", "aria-hidden": "true" }), t("badge.lock"), el("span", { "aria-hidden": "true" }, suits.map((x) => SUIT_SYMBOL[x]).join(""))));
  }
  if (st.game !== "doudizhu" && (f.revolution || f.jack_back)) {
    const up = t(f.reversed ? "badge.reversed" : "badge.normal");
    box.append(el("span", { class: "badge order" }, up));
  }
  const d = st.doudizhu;
  if (d && d.landlord !== null && d.landlord !== undefined) {
    box.append(el("span", { class: "badge order" }, t("badge.landlord", { name: st.seats[d.landlord].name })));
  }
  if (d && d.wild) {
    const rank = rankShow(d.wild);
    box.append(el("span", { class: "badge wild", role: "status", "aria-label": t("badge.wild_label", { rank }) }, t("badge.wild", { rank })));
  }
  box.hidden = box.childElementCount === 0;
}

function renderPile(st, h) {
  const pile = $("#pile");
  pile.replaceChildren();
  const cap = $("#pile-caption");
  if (st.pile && st.pile.cards && st.pile.cards.length) {
    pile.append(cardRow(st.pile.cards));
    cap.textContent = t("table.pile_caption", { move: moveName(st.pile), who: h.who(st.pile.by) });
    cap.hidden = false;
  } else {
    const phase = t(st.phase === "bidding" ? "table.bidding" : st.phase === "exchange" ? "table.exchange" : st.started === false ? "table.waiting" : "table.pile_empty");
    pile.append(el("div", { class: "pile-empty" }, phase));
    cap.hidden = true;
  }
  const kitty = $("#kitty");
  const d = st.doudizhu;
  if (d && d.kitty) {
    kitty.replaceChildren(el("span", {}, t("table.kitty")), cardRow(d.kitty, { small: true }));
    kitty.hidden = false;
  } else if (d && st.phase === "bidding") {
    const backs = Array.from({ length: d.kitty_size || 3 }, () => cardBack({ small: true }));
    kitty.replaceChildren(el("span", {}, t("table.kitty")), el("span", { class: "card-row", role: "img", "aria-label": t("table.kitty_down", { n: backs.length }) }, ...backs));
    kitty.hidden = false;
  } else kitty.hidden = true;
  const shown = $("#shown-hand");
  if (d && d.shown_hand) {
    shown.replaceChildren(el("span", {}, t("table.hand_shown", { who: h.who(d.landlord) })), cardRow(d.shown_hand, { small: true }));
    shown.hidden = false;
  } else shown.hidden = true;
}

const COUNTER_ORDER = ["R", "B", "2", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3"];
const COUNTER_SHOW = { R: "RJ", B: "BJ", T: "10" };
function renderCounter(st) {
  const box = $("#counter");
  const c = st.doudizhu && st.doudizhu.counter;
  if (!c) {
    box.hidden = true;
    return;
  }
  box.replaceChildren();
  for (const r of COUNTER_ORDER) {
    if (!(r in c)) continue;
    box.append(el("span", { class: "cc" + (c[r] ? "" : " zero"), "aria-label": t("table.counter_cell", { rank: COUNTER_SHOW[r] || r, n: c[r] }) },
      el("span", { "aria-hidden": "true" }, COUNTER_SHOW[r] || r), el("b", { "aria-hidden": "true" }, String(c[r]))));
  }
  box.hidden = false;
}

/** The narrowest strip of a card that the next card in its row leaves showing, in CSS px: wide
 * enough for its corner (rank and suit) to be read and for a finger to tap it. */
export const MIN_STRIP_PX = 24;
/** The widest strip, as a share of the card's width (a short hand is not spread out). */
const MAX_STRIP = 0.8;
/** How much of a card a lower row leaves showing, as a share of the card's height. */
const ROW_SHOW = 0.45;

/**
 * How `n` cards of width `cw` fit a hand `width` px wide: the fewest rows in which every strip
 * is at least MIN_STRIP_PX, the cards shared evenly between the rows, and the step from one
 * card to the next in a row.
 */
export function handLayout(n, width, cw) {
  const perRowMax = Math.max(1, Math.floor((width - cw) / MIN_STRIP_PX) + 1);
  const rows = Math.max(1, Math.ceil(n / perRowMax));
  const perRow = Math.ceil(n / rows);
  const step = perRow > 1 ? Math.min(cw * MAX_STRIP, (width - cw) / (perRow - 1)) : cw;
  return { rows, perRow, step: Math.floor(step * 10) / 10 };
}

function px(box, name) {
  return parseFloat(getComputedStyle(box).getPropertyValue(name)) || 0;
}

function renderHand(st, ui, h) {
  const hand = $("#hand");
  const cards = st.hand || [];
  if (!cards.length) {
    hand.replaceChildren();
    hand.setAttribute("aria-label", t("hand.none"));
    return;
  }
  hand.setAttribute("aria-label", t("hand.count", { n: cards.length }));
  let focusId = ui.rovingId;
  if (!cards.some((c) => c.id === focusId)) focusId = cards[0].id;
  const cw = px(hand, "--cw");
  const width = hand.clientWidth - px(hand, "padding-left") - px(hand, "padding-right");
  const fit = handLayout(cards.length, width > cw ? width : cards.length * cw, cw);
  hand.style.setProperty("--step", `${fit.step}px`);
  hand.style.setProperty("--row-show", String(ROW_SHOW));
  hand.classList.toggle("rows", fit.rows > 1);
  const wild = st.doudizhu && st.doudizhu.wild;
  const fresh = [];
  cards.forEach((c, i) => {
    if (i && i % fit.perRow === 0) fresh.push(el("span", { class: "hand-break", "aria-hidden": "true", dataset: { key: `break:${i}` } }));
    const dim = cardDisabled(st, c.id);
    const pressed = ui.selected.has(c.id);
    const isWild = !!wild && c.rank === wild;
    const place = (i % fit.perRow === 0 ? " row-start" : "") + (i >= fit.perRow ? " lower" : "");
    fresh.push(el("button", {
      type: "button",
      class: "card-button" + place + (dim ? " dim" : "") + (ui.fresh.has(c.id) ? " new" : "") + (isWild ? " wild" : ""),
      "aria-pressed": pressed ? "true" : "false",
      "aria-disabled": dim ? "true" : null,
      "aria-label": cardName(c) + (isWild ? t("hand.wild") : "") + (dim ? t("hand.dim") : "") + (ui.fresh.has(c.id) ? t("hand.received") : ""),
      tabindex: c.id === focusId ? "0" : "-1",
      dataset: { key: `hand:${c.id}`, id: String(c.id) },
    }, cardFace(c)));
  });
  patchChildren(hand, fresh);
}

export function renderActions(box, st, ui, h, where) {
  const fresh = [];
  for (const a of actionList(st, ui)) {
    const b = el("button", {
      type: "button",
      class: "action" + (a.primary ? " play primary" : a.key === "pass" ? " pass" : ""),
      "aria-disabled": a.enabled ? null : "true",
      dataset: { key: `${where}:act:${a.key}` },
      onclick: () => {
        if (a.enabled) h.act(a);
      },
    }, a.label);
    if (a.why && !a.enabled) b.title = a.why;
    fresh.push(b);
  }
  patchChildren(box, fresh);
}

// -------------------------------------------------------------------------- side panel

export function renderPanel(st, ui, h) {
  const me = viewSeat(st);
  $("#controls-turn").textContent = turnText(st, h.who);
  const box = $("#controls-hand");
  const fresh = [];
  for (const c of st.hand || []) {
    const dim = cardDisabled(st, c.id);
    const red = c.suit === "h" || c.suit === "d" || c.rank === "R" || c.rank === "JK";
    fresh.push(el("button", {
      type: "button",
      class: "hand-button" + (red ? " red" : "") + (dim ? " dim" : ""),
      "aria-pressed": ui.selected.has(c.id) ? "true" : "false",
      "aria-disabled": dim ? "true" : null,
      "aria-label": cardName(c) + (dim ? t("hand.dim") : ""),
      dataset: { key: `ctl:${c.id}`, id: String(c.id) },
      onclick: () => h.toggle(c.id),
    }, cardShort(c)));
  }
  if (!(st.hand || []).length) fresh.push(el("p", { class: "hint-text", dataset: { key: "ctl:none" } }, t(st.curtain ? "panel.curtain" : "panel.no_cards")));
  patchChildren(box, fresh);
  const status = $("#controls-status");
  status.textContent = ui.status.text;
  renderActions($("#controls-actions"), st, ui, h, "ctl");

  $("#info-pile").textContent = st.pile && st.pile.cards && st.pile.cards.length
    ? t("panel.pile", { move: moveName(st.pile), cards: cardsShortText(st.pile.cards), who: h.who(st.pile.by) })
    : t("panel.empty");
  $("#info-last").textContent = st.last ? lastText(st, h.who) : t("panel.none_yet");
  $("#info-round").textContent = roundText(st);

  const tbody = $("#scores tbody");
  tbody.replaceChildren();
  for (const seat of st.seats) {
    const name = h.who(seat.seat);
    tbody.append(el("tr", { class: (seat.seat === me ? "me " : "") + colourClass(seat.colour) },
      el("td", {}, el("span", { class: "swatch", "aria-hidden": "true" }), seat.role ? t("panel.role", { name, role: t(`role.${seat.role}.lower`) }) : name),
      el("td", { class: "num" }, String(seat.cards)),
      el("td", { class: "num" }, String(seat.score))));
  }
  renderRankings(st, h);
}

function renderRankings(st, h) {
  // one row per seat, one column per finished round: the place (and the points, for speech)
  const table = $("#rankings");
  const hist = st.history || [];
  table.hidden = !hist.length;
  if (!hist.length) return;
  const ddz = st.game === "doudizhu";
  const head = el("tr", {}, el("th", { scope: "col" }, t("col.seat")),
    ...hist.map((r, i) => el("th", { scope: "col", class: "num" }, t(ddz ? "panel.deal_col" : "panel.round_col", { n: (r.round ?? i) + 1 }),
      el("span", { class: "sr-only" }, t(ddz ? "panel.deal_sr" : "panel.round_sr")))));
  table.querySelector("thead").replaceChildren(head);
  const body = table.querySelector("tbody");
  body.replaceChildren();
  for (const seat of st.seats) {
    const k = seat.seat;
    const cells = hist.map((r) => {
      const pts = (r.points || [])[k];
      const sign = pts > 0 ? "+" : "";
      if (r.places) {
        const title = r.titles ? titleName((r.title_codes || [])[k], r.titles[k]) : null;
        return el("td", { class: "num", title: `${title || ""} ${sign}${pts}`.trim() }, ordinal(r.places[k]),
          el("span", { class: "sr-only" }, title ? `${t("list.sep")}${t("panel.points_sr", { title, points: `${sign}${pts}` })}` : t("panel.points_only_sr", { points: `${sign}${pts}` })));
      }
      return el("td", { class: "num" }, `${sign}${pts ?? ""}`);
    });
    body.append(el("tr", { class: colourClass(seat.colour) },
      el("th", { scope: "row" }, el("span", { class: "swatch", "aria-hidden": "true" }), h.who(seat.seat)), ...cells));
  }
}

export function turnText(st, who) {
  if (st.started === false) return t("turn.waiting_players");
  if (st.match && st.match.over) return t("turn.match_over", { who: who(st.match.winner) });
  if (st.turn === null || st.turn === undefined) return t("turn.between");
  if (st.waiting) return t("turn.sent");
  if (st.your_turn) {
    if (st.phase === "bidding") return t("turn.bid");
    if (st.phase === "show") return t("turn.show");
    if (giveMoves(st).length) return t("turn.give", { n: st.exchange.to_give });
    return t(st.can_pass ? "turn.play_or_pass" : "turn.lead");
  }
  return t("turn.other", { who: who(st.turn) });
}

function lastText(st, who) {
  const l = st.last;
  if (l.text === "pass") return t("panel.last_pass", { who: who(l.seat) });
  if (st.pile && st.pile.by === l.seat && st.pile.cards) return t("panel.last_play", { who: who(l.seat), move: moveName(st.pile), cards: cardsShortText(st.pile.cards) });
  return t("panel.last_move", { who: who(l.seat), move: l.name ? moveName(l) : moveShort(l.text) });
}

/** "7s 7h JK" -> "7♠ 7♥ Joker" for move texts the server sends without card objects. */
export function moveShort(text) {
  return (text || "").replace(/\bJK\b/g, t("card.joker")).replace(/\b([2-9TJQKA])([shdc])\b/g, (_, r, su) => (r === "T" ? "10" : r) + SUIT_SYMBOL[su]);
}

function roundText(st) {
  if (st.game === "doudizhu" && st.doudizhu) {
    const d = st.doudizhu;
    return t(d.replay ? "panel.deal_replay" : "panel.deal", { n: d.deal, of: d.deals });
  }
  const n = (st.round ?? 0) + 1;
  return st.phase ? t("panel.round_phase", { n, of: st.rounds, phase: t(`phase.${st.phase}`) }) : t("panel.round", { n, of: st.rounds });
}

export function roundBox(st) {
  const d = st.doudizhu;
  if (!d || !d.round_box) return null;
  const r = d.round_box;
  // before any bid the round is worth nothing yet: say what each bid point will be worth
  if (!r.bid) return t("round.box_open", { base: r.base, m: r.multiplier, points: r.base * r.multiplier });
  return `${r.base} × ${r.bid} × ${r.multiplier} = ${r.points}`;
}
