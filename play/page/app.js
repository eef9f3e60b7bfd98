// The table page: lobby, room links, the table and its overlays, talking to `climbrl serve`
// over one WebSocket (docs/protocol.md). Plain modern JavaScript modules, no build step.

import { Connection } from "./net.js";
import { Lobby } from "./lobby.js";
import { Signs } from "./signs.js";
import { setupView } from "./view.js";
import { describe, moveName, ordinal, titleName } from "./events.js";
import { CATALOGS, applyStatic, chosenLanguage, has, keepLanguage, language, setLanguage, t } from "./i18n.js";
import { cardFace, cardRow, cardsShortText } from "./cards.js";
import {
  cardDisabled, colourClass, colourName, el, giveMoveFor, giveMoves, matchingMoves, renderBoard, renderPanel, roundBox,
  turnText,
} from "./table.js";

const $ = (sel) => document.querySelector(sel);
const TOKEN_KEY = (room) => `climbrl.token.${room}`;
/** The server's answer to a token that holds no seat in the room: the one error that forgets it. */
const BAD_TOKEN = "bad_token";
const REPLACED = "replaced"; // another connection took this seat with the same token
const PREFS_KEY = "climbrl.prefs";

const ui = {
  selected: new Set(),
  fresh: new Set(),
  status: { text: "", tone: "" },
  rovingId: null,
  checks: new Map(),
  giveQueue: [],
  hint: null,
  drag: null,
  said: {},
  sentAt: null,
};

const app = {
  conn: null,
  hello: null,
  lobby: null,
  room: null,
  token: null,
  mode: null,
  creator: false,
  signs: null,
  st: null,
  dealKey: null,
  resultShownFor: null,
  prefs: loadPrefs(),
};

function loadPrefs() {
  try {
    return { graphics: true, counter: false, ...JSON.parse(localStorage.getItem(PREFS_KEY) || "{}") };
  } catch {
    return { graphics: true, counter: false };
  }
}

function savePrefs() {
  localStorage.setItem(PREFS_KEY, JSON.stringify(app.prefs));
}

// ------------------------------------------------------------------------------ screens

function show(screen) {
  const was = ["lobby", "room", "join", "game"].find((id) => !$(`#${id}`).hidden);
  for (const id of ["lobby", "room", "join", "game"]) $(`#${id}`).hidden = id !== screen;
  $("#leave").hidden = screen === "lobby";
  // one "Your name" field, in the form on show (the lobby's or the join page's)
  const name = $("#name-field");
  const slot = screen === "join" ? $("#join-name-slot") : $("#lobby-name-slot");
  if (name.parentElement !== slot) slot.append(name);
  $("#player-name").placeholder = t(screen === "join" ? "name.guest" : "name.you");
  // a new screen opens at its top, not where the last one was scrolled to (the lobby's
  // buttons are at its foot)
  if (was !== screen) window.scrollTo(0, 0);
}

function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 4000);
}

function say(text) {
  const live = $("#live");
  live.append(el("p", {}, text));
  while (live.childElementCount > 6) live.firstElementChild.remove();
}


function logLine(text, isEvent) {
  const log = $("#log");
  log.append(el("li", { class: isEvent ? "event" : "" }, text));
  while (log.childElementCount > 200) log.firstElementChild.remove();
}

// ------------------------------------------------------------------------------ names

function who(seat, opts = {}) {
  const st = app.st;
  if (seat === null || seat === undefined || !st || !st.seats[seat]) return t("name.nobody");
  const s = st.seats[seat];
  const mine = app.mode !== "local" && st.seat === seat;
  if (mine && !opts.tag) return t("name.you");
  if (mine && s.name !== t("name.you")) return t("name.you_tag", { name: s.name });
  return s.name;
}

/** An error from the server in the page's language: the catalog's text for its `code` (the
 * English `message` is for API clients and logs). */
function errorText(msg) {
  return has(`error.${msg.code}`) ? t(`error.${msg.code}`) : t("error.unknown", { code: msg.code });
}

// ------------------------------------------------------------------------------ connection

async function boot() {
  // a room link does not show the lobby (and its own "Your name" field) while the
  // connection opens: the join form or the table takes its place once the room is known
  if (roomOfPath()) $("#lobby").hidden = true;
  setLanguage(chosenLanguage());
  applyStatic();
  app.conn = new Connection({
    onMessage,
    onDown: () => toast(t("net.down")),
    onReopen: () => {
      if (app.room && app.token) rejoin();
    },
  });
  app.signs = new Signs($("#banner"));
  // the controls need no server: Settings (its language too) works while the connection opens
  setupControls();
  app.hello = await app.conn.open();
  app.lobby = new Lobby($("#lobby"), app.hello.games, create);
  heroFan();
  window.addEventListener("popstate", route);
  route();
}

/** The room id of a room link's path (`/r/<id>`), else null. */
function roomOfPath() {
  const m = /^\/r\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
  return m ? m[1] : null;
}

function route() {
  const room = roomOfPath();
  if (!room) {
    app.room = null;
    show("lobby");
    return;
  }
  const token = localStorage.getItem(TOKEN_KEY(room));
  app.room = room;
  if (token) {
    app.token = token;
    rejoin();
  } else showJoin(room);
}

/** Takes the seat back with the kept token. Only the server saying the token holds no seat in
 * this room forgets it: a connection dropped during the join (a brief fault, a server
 * restarting) keeps it, and the join is sent again when the connection reopens. */
async function rejoin() {
  const room = app.room;
  const j = await app.conn.request({ type: "join", room, token: app.token });
  if (room !== app.room) return;
  if (j.type !== "error") {
    $("#toast").hidden = true;
    joined(j);
  } else if (j.code === BAD_TOKEN) {
    localStorage.removeItem(TOKEN_KEY(room));
    app.token = null;
    showJoin(room, errorText(j));
  } else if (j.code !== "closed") {
    // any other refusal (no such room, too many messages) is said; the token stays
    if (!app.st) showJoin(room, errorText(j));
    else toast(errorText(j));
  }
  // "closed": the connection dropped; onReopen joins again
}

function showJoin(room, error) {
  show("join");
  const err = $("#join-error");
  err.textContent = error || "";
  err.hidden = !error;
  $("#player-name").focus();
}

async function create(msg) {
  app.lobby.showError("");
  if (msg.game === "doudizhu") msg.counter = !!app.prefs.counter;
  const j = await app.conn.request(msg);
  if (j.type === "error") {
    app.lobby.showError(errorText(j));
    return;
  }
  joined(j);
}

function joined(j) {
  app.room = j.room;
  app.token = j.token;
  app.mode = j.mode;
  app.creator = !!j.creator;
  localStorage.setItem(TOKEN_KEY(j.room), j.token);
  if (location.pathname !== j.link) history.pushState({}, "", j.link);
}

function onMessage(msg) {
  if (msg.type === "state") onState(msg);
  else if (msg.type === "error" && msg.code === REPLACED) {
    // the seat is played from another tab or device now: no reconnecting, which would take
    // it back and start a tug of war; reloading the page takes it back on purpose
    app.conn.closing = true;
    toast(t("net.replaced"));
    clearTimeout(toast.timer);
  } else if (msg.type === "error") {
    toast(errorText(msg));
    if (ui.sentAt !== null && app.st) {
      // the move was refused: the turn is still ours
      ui.sentAt = null;
      app.st.waiting = false;
      app.st.your_turn = app.st.mine;
      render();
    }
  }
}

// ------------------------------------------------------------------------------ state

function onState(st) {
  const prev = app.st;
  // a move sent on version v waits for the table's answer (a newer version)
  if (ui.sentAt !== null && st.v !== ui.sentAt) ui.sentAt = null;
  st.mine = st.your_turn;
  st.waiting = ui.sentAt !== null && st.v === ui.sentAt;
  if (st.waiting) st.your_turn = false;
  app.st = st;
  if (st.started === false) {
    showRoom(st);
    return;
  }
  if ($("#game").hidden) {
    show("game");
    $("#log").replaceChildren();
  }
  // a new deal or a new hand behind the curtain: nothing stays lifted
  const key = `${st.round}/${st.doudizhu ? st.doudizhu.deal + ":" + st.doudizhu.replay : ""}/${st.seat}`;
  if (key !== app.dealKey) {
    ui.selected.clear();
    ui.fresh.clear();
    ui.hint = null;
    app.dealKey = key;
  }
  const inHand = new Set((st.hand || []).map((c) => c.id));
  for (const id of [...ui.selected]) if (!inHand.has(id)) ui.selected.delete(id);
  for (const id of [...ui.fresh]) if (!inHand.has(id)) ui.fresh.delete(id);
  if (!prev || prev.v !== st.v) ui.checks.clear();

  const signs = [];
  for (const ev of st.events || []) onEvent(st, ev, signs);
  app.signs.frame(st, signs);
  const turnBegins = st.your_turn && !(prev && prev.your_turn && prev.v === st.v - 1 && prev.turn === st.turn) && !st.curtain;
  if (turnBegins) say(t(st.phase === "bidding" ? "turn.bid" : "turn.yours"));
  curtain(st);
  if (ui.giveQueue.length && st.your_turn && giveMoves(st).length) sendNextGive();
  else if (!st.your_turn) ui.giveQueue = [];
  render();
  if (turnBegins) boardInView();
}

/** At the start of your turn the whole table (the others, the pile, your hand and its buttons)
 * is scrolled into view, unless you are working in the panel below it. */
function boardInView() {
  const board = $("#board");
  if ($("#game").hidden || !app.prefs.graphics || $("#side").contains(document.activeElement)) return;
  const r = board.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) board.scrollIntoView({ block: r.height > window.innerHeight ? "start" : "nearest" });
}

function onEvent(st, ev, signs) {
  const d = describe(ev, who, app.mode === "local" ? null : st.seat, st.game);
  logLine(d.text, !!d.banner);
  if (ev.type !== "play" && ev.type !== "pass" || ev.seat !== st.seat) say(d.text);
  if (d.banner) signs.push({ ev, text: d.banner });
  if (ev.type === "give" && ev.cards && ev.to === st.seat) for (const c of ev.cards) ui.fresh.add(c.id);
  if (ev.type === "start") ui.fresh.clear();
  // what each seat last did on this pile, shown by its name tag
  if (ev.type === "play") ui.said[ev.seat] = moveName(ev);
  if (ev.type === "pass") ui.said[ev.seat] = t("said.pass");
  if (ev.type === "bid") ui.said[ev.seat] = ev.said ? t(`said.${ev.said}`) : ev.bid ? t("said.bid", { n: ev.bid }) : t("said.no_bid");
  if (["clear", "start", "landlord", "eight_cut", "redeal", "undo"].includes(ev.type)) ui.said = {};
  if (ev.type === "round_end") showRoundEnd(st, ev);
  if (ev.type === "deal_end") showDealEnd(st, ev.result);
  if (ev.type === "match_end") showMatchEnd(st, ev);
}

function curtain(st) {
  const box = $("#curtain");
  if (app.mode === "local" && st.curtain && (st.seat === null || st.seat === undefined)) {
    const s = st.seats[st.curtain.seat];
    $("#curtain-title").textContent = t("curtain.title", { name: st.curtain.name });
    $("#curtain-text").textContent = t("curtain.text_long");
    const b = $("#curtain-lift");
    b.textContent = t("curtain.lift", { name: st.curtain.name });
    b.className = `primary big ${colourClass(s.colour)}`;
    const wasHidden = box.hidden;
    box.hidden = false;
    if (wasHidden) b.focus();
  } else if (!box.hidden) {
    box.hidden = true;
    focusHand();
  }
}

function showRoom(st) {
  show("room");
  $("#room-link").value = location.origin + `/r/${st.room}`;
  const list = $("#room-seats");
  list.replaceChildren();
  for (const s of st.seats) {
    const state = s.kind === "empty" ? t("room.empty") : s.kind === "cpu" ? t("room.cpu", { level: t(`level.${s.level}`) }) : t(s.connected ? "room.here" : "room.disconnected");
    list.append(el("li", { class: colourClass(s.colour) }, el("span", { class: "swatch", "aria-hidden": "true" }),
      el("strong", {}, s.kind === "empty" ? t("name.seat", { n: s.seat + 1 }) : s.name), ` · ${colourName(s.colour)} · ${state}`,
      s.seat === st.seat ? t("room.you") : ""));
  }
  $("#room-fill").hidden = !app.creator;
  $("#room-intro").textContent = t(app.creator ? "room.intro.creator" : "room.intro.guest");
}

// ------------------------------------------------------------------------------ selection

function toggle(id, value) {
  const st = app.st;
  if (!st || !(st.hand || []).some((c) => c.id === id)) return;
  if (cardDisabled(st, id)) return;
  const on = value === undefined ? !ui.selected.has(id) : value;
  if (on) ui.selected.add(id);
  else ui.selected.delete(id);
  ui.hint = null;
  render();
}

function updateStatus() {
  const st = app.st;
  const s = ui.status;
  s.tone = "";
  if (!st || st.curtain && st.seat === null) {
    s.text = "";
    return;
  }
  if (st.your_turn && st.phase === "bidding") {
    s.text = adviceText(st.doudizhu && st.doudizhu.advice_facts) || t("turn.bid");
    return;
  }
  if (st.your_turn && giveMoves(st).length) {
    const need = st.exchange.to_give;
    const picked = [...ui.selected];
    const cards = (st.hand || []).filter((c) => ui.selected.has(c.id));
    if (picked.length === need) s.text = t("status.give_ready", { cards: cardsShortText(cards) });
    else s.text = t("status.give_choose", { n: need, chosen: picked.length });
    return;
  }
  if (ui.hint && ui.hint.error) {
    if (ui.hint.v === st.v) {
      s.text = ui.hint.error;
      s.tone = "bad";
      return;
    }
    ui.hint = null;
  }
  if (ui.hint && (ui.selected.size || !(ui.hint.cards || []).length)) {
    const pass = !(ui.hint.cards || []).length;
    const at = { n: ui.hint.index + 1, of: ui.hint.of };
    s.text = pass ? t("status.hint_pass", at) : t("status.hint", { ...at, move: moveName(ui.hint) });
    s.tone = "good";
    return;
  }
  if (!ui.selected.size) {
    if (st.your_turn) {
      const how = st.game === "doudizhu" ? "status.tap" : "status.press";
      s.text = t(st.can_pass ? `${how}_pass` : how);
    } else s.text = st.match && st.match.over ? turnText(st, who) : st.turn !== null && st.turn !== undefined ? t("status.to_move", { who: who(st.turn) }) : "";
    return;
  }
  const matches = matchingMoves(st, ui.selected);
  if (st.your_turn && matches.length) {
    s.text = t("status.playable", { move: matches.map(moveName).join(t("status.or")) });
    s.tone = "good";
    return;
  }
  const key = [...ui.selected].sort((a, b) => a - b).join(",");
  const known = ui.checks.get(key);
  if (known) {
    s.text = checkedText(known);
    s.tone = known.playable ? "good" : "bad";
    return;
  }
  s.text = "…";
  clearTimeout(updateStatus.timer);
  updateStatus.timer = setTimeout(() => check(key), 60);
}

/** The bid advice line from its facts ("2 high cards, 1 bomb, about 7 moves → bid 2"). */
function adviceText(f) {
  if (!f) return "";
  const [word, n] = f.move.split(" ");
  const move = word === "bid" ? t("move.bid", { bid: n }) : t(`move.${word}`);
  return t("status.advice", { high: t("status.high", { n: f.high_cards }), bombs: t("status.bombs", { n: f.bombs }), moves: t("status.moves", { n: f.moves }), move });
}

/** The status line of a `check` answer: its move's name and whether it plays now, or why not. */
function checkedText(c) {
  if (c.playable) return t("status.playable", { move: moveName(c) });
  const reason = t(`reason.${c.reason_code || "not_now"}`);
  return c.name ? t("status.not_playable", { move: moveName(c), reason }) : reason;
}

async function check(key) {
  const ids = key.split(",").map(Number);
  const v = app.st.v;
  const reply = await app.conn.request({ type: "check", cards: ids });
  if (reply.type !== "checked" || !app.st || app.st.v !== v) return;
  ui.checks.set(key, reply);
  const now = [...ui.selected].sort((a, b) => a - b).join(",");
  if (now === key) render();
}

// ------------------------------------------------------------------------------ actions

function act(a) {
  const st = app.st;
  if (a.kind === "move") {
    const msg = { type: "move", action: a.move.action, v: st.v };
    if (a.move.cards && a.move.cards.length && a.move.shape !== "bid" && a.move.shape !== "pass") msg.cards = [...ui.selected];
    if (app.mode === "local") msg.seat = st.turn;
    ui.selected.clear();
    ui.hint = null;
    ui.sentAt = st.v;
    st.waiting = true;
    st.your_turn = false;
    app.conn.send(msg);
    render();
  } else if (a.kind === "give") {
    // texts, not ids: the server may give the other copy of a two-deck card
    ui.giveQueue = (st.hand || []).filter((c) => ui.selected.has(c.id)).map((c) => ({ id: c.id, text: c.text }));
    sendNextGive();
  } else if (a.kind === "hint") {
    const v = st.v;
    app.conn.request({ type: "hint" }).then((r) => {
      if (r.type === "error") {
        // (a busy server, say): the status line says so until the table moves on, not only a
        // passing toast
        toast(errorText(r));
        ui.hint = { error: errorText(r), v };
        render();
        return;
      }
      ui.selected = new Set(r.cards);
      ui.hint = r;
      say(t("say.hint", { move: moveName(r) }));
      render();
    });
  } else if (a.kind === "undo") {
    ui.selected.clear();
    ui.hint = null;
    app.conn.request({ type: "undo" }).then((r) => {
      if (r.type === "error") toast(errorText(r));
    });
  }
}

function sendNextGive() {
  const st = app.st;
  while (ui.giveQueue.length) {
    const card = ui.giveQueue.shift();
    const m = giveMoveFor(st, card.text);
    if (!m) continue;
    const id = (st.hand || []).some((c) => c.id === card.id) ? card.id : m.cards[0];
    const msg = { type: "move", action: m.action, v: st.v, cards: [id] };
    if (app.mode === "local") msg.seat = st.turn;
    ui.selected.delete(card.id);
    ui.sentAt = st.v;
    st.waiting = true;
    st.your_turn = false;
    app.conn.send(msg);
    return;
  }
}

// ------------------------------------------------------------------------------ results

function seatRowName(st, s) {
  return who(s, { tag: true });
}

function openResult(title, body, buttons) {
  $("#result-title").textContent = title;
  $("#result-body").replaceChildren(...body);
  const box = $("#result-actions");
  box.replaceChildren(...buttons.map(([label, fn, primary]) =>
    el("button", { type: "button", class: primary ? "primary" : "", onclick: fn }, label)));
  $("#result").hidden = false;
  // the focus on its first button, the card read from its top (a tall card would otherwise
  // open scrolled down to the buttons, its headline out of sight)
  box.querySelector(".primary, button").focus({ preventScroll: true });
  $("#result .result-card").scrollTop = 0;
}

function closeResult() {
  $("#result").hidden = true;
  app.resultShownFor = null;
  focusHand();
}

function placeTable(st, places, titles, points, scores, codes) {
  const order = st.seats.map((s) => s.seat).sort((a, b) => places[a] - places[b]);
  return el("table", {},
    el("caption", {}, t("result.places")),
    el("thead", {}, el("tr", {}, ...["place", "seat", "title", "points", "total"].map((h) => el("th", { scope: "col" }, t(`col.${h}`))))),
    el("tbody", {}, ...order.map((s) => el("tr", { class: s === st.seat ? "me" : "" },
      el("td", {}, ordinal(places[s])), el("td", {}, seatRowName(st, s)), el("td", {}, titles ? titleName((codes || [])[s], titles[s]) : ""),
      el("td", { class: "num" }, `${points[s] >= 0 ? "+" : ""}${points[s]}`), el("td", { class: "num" }, String(scores[s]))))));
}

function showRoundEnd(st, ev) {
  if ((st.events || []).some((e) => e.type === "match_end")) return;
  app.resultShownFor = `round-${ev.round}`;
  const me = app.mode === "local" ? null : st.seat;
  const body = [];
  if (me !== null && me !== undefined) {
    const place = ordinal(ev.places[me]);
    const title = ev.titles ? titleName((ev.title_codes || [])[me], ev.titles[me]) : "";
    body.push(el("p", { class: "verdict" }, title ? t("result.you_finished_titled", { place, title }) : t("result.you_finished", { place })));
  }
  const first = ev.places.indexOf(0);
  const at = { n: ev.round + 1, of: st.rounds };
  body.push(el("p", {}, first === me ? t("result.round_winner.me", at) : t("result.round_winner", { ...at, who: who(first) })));
  body.push(placeTable(st, ev.places, ev.titles, ev.points, ev.scores, ev.title_codes));
  openResult(t("result.round_title", { n: ev.round + 1 }), body, [[t("action.continue"), closeResult, true]]);
}

function showMatchEnd(st, ev) {
  app.resultShownFor = "match";
  const me = app.mode === "local" ? null : st.seat;
  const scores = ev.scores;
  const order = st.seats.map((s) => s.seat).sort((a, b) => scores[b] - scores[a]);
  if (ev.winner !== undefined && ev.winner !== null) {
    order.splice(order.indexOf(ev.winner), 1);
    order.unshift(ev.winner);
  }
  const body = [];
  if (me !== null && me !== undefined) {
    const place = order.indexOf(me);
    body.push(el("p", { class: "verdict " + (place === 0 ? "win" : "lose") },
      place === 0 ? t("result.match_won", { points: scores[me] }) : t("result.match_place", { place: ordinal(place), points: scores[me], who: who(ev.winner) })));
  } else {
    body.push(el("p", { class: "verdict win" }, t("result.match_winner", { who: who(ev.winner), points: scores[ev.winner] })));
  }
  const lastRound = (st.history || [])[st.history.length - 1];
  body.push(el("table", {},
    el("caption", {}, t("result.final")),
    el("thead", {}, el("tr", {}, ...["place", "seat", "score"].map((h) => el("th", { scope: "col" }, t(`col.${h}`))))),
    el("tbody", {}, ...order.map((s, i) => el("tr", { class: s === me ? "me" : "" },
      el("td", {}, ordinal(i)), el("td", {}, seatRowName(st, s)), el("td", { class: "num" }, String(scores[s])))))));
  if (lastRound && lastRound.places && st.game !== "doudizhu") {
    body.push(placeTable(st, lastRound.places, lastRound.titles, lastRound.points, lastRound.scores, lastRound.title_codes));
  }
  if (st.match && st.match.deals && st.match.deals.length) {
    body.push(el("p", {}, t("result.deal_code"), el("span", { class: "code" }, String(st.match.deals[0]))));
  }
  if (st.game === "doudizhu") return; // the deal's result card carries the match end too
  openResult(t("result.match_title"), body, [[t("action.new_match"), () => { app.conn.send({ type: "next" }); closeResult(); }, true], [t("action.lobby"), leave]]);
}

/** A multiplier's name (`mult.<name>`; one the catalog does not know shows its code). */
function multiplierName(name) {
  return has(`mult.${name}`) ? t(`mult.${name}`) : name;
}

function showDealEnd(st, r) {
  app.resultShownFor = "deal";
  const me = app.mode === "local" ? null : st.seat;
  const body = [];
  const names = (s) => who(s, { tag: true });
  let title;
  if (r.outcome === "no bid") {
    title = t("result.no_bid_title");
    body.push(el("p", { class: "verdict" }, t("result.no_bid")));
  } else {
    const landlordWon = r.outcome === "landlord";
    title = t(landlordWon ? "result.landlord_wins" : "result.peasants_win");
    if (me !== null && me !== undefined) {
      const won = r.points[me] > 0;
      body.push(el("p", { class: "verdict " + (won ? "win" : "lose") },
        t(won ? "result.you_win" : "result.you_lose", { n: Math.abs(r.points[me]) }) + (r.scored === false ? t("result.not_scored") : "")));
    }
    const items = r.multipliers.map((m) => el("li", {}, t("result.multiplier", { name: multiplierName(m.name), n: m.value })));
    const counted = (name) => r.multipliers.some((m) => m.name === name);
    if (!counted("bomb") && !counted("rocket")) items.push(el("li", {}, t("result.no_bombs")));
    if (!counted("spring") && !counted("anti_spring")) items.push(el("li", {}, t("result.no_spring")));
    const mult = el("ul", { class: "multipliers" }, ...items);
    body.push(el("h3", {}, t("result.multipliers")), mult);
    const base = st.doudizhu && st.doudizhu.round_box ? st.doudizhu.round_box.base : 10;
    body.push(el("p", { class: "formula" },
      t("result.formula", {
        product: [base, ...r.multipliers.map((m) => m.value)].join(" × "),
        points: r.round_points,
        split: t(landlordWon ? "result.split_landlord" : "result.split_peasants", { win: (r.points.length - 1) * r.round_points, lose: r.round_points }),
      })));
  }
  body.push(el("table", { class: "hands-left" },
    el("caption", {}, t("result.cards_left")),
    el("thead", {}, el("tr", {}, ...["seat", "role", "cards", "points"].map((h) => el("th", { scope: "col" }, t(`col.${h}`))))),
    el("tbody", {}, ...r.hands.map((hand, s) => el("tr", { class: s === me ? "me" : "" },
      el("td", {}, names(s)), el("td", {}, t(s === r.landlord ? "role.landlord" : "role.peasant")),
      el("td", {}, hand.length ? cardRow(hand, { small: true }) : t("result.went_out")),
      el("td", { class: "num" }, String(r.points[s])))))));
  if (r.kitty && r.kitty.length) body.push(el("p", { class: "kitty-line" }, t("result.kitty"), cardRow(r.kitty, { small: true })));
  body.push(el("p", {}, t("result.deal_code"), el("span", { class: "code" }, r.deal_code || "")));
  body.push(el("p", {}, t("result.counts", { hints: r.hints_used ?? 0, undos: r.undos ?? 0 })));
  const over = st.match && st.match.over;
  if (over) {
    const scores = st.match.scores;
    const winner = st.match.winner;
    body.push(el("p", { class: "verdict" }, winner === me ? t("result.deal_match_over.me", { points: scores[winner] }) : t("result.deal_match_over", { who: who(winner), points: scores[winner] })));
  }
  openResult(title, body, [
    [t(over ? "action.new_match" : "action.next_deal"), () => { app.conn.send({ type: "next" }); closeResult(); }, true],
    [t("action.replay"), () => { app.conn.send({ type: "replay" }); closeResult(); }],
    [t("action.lobby"), leave],
  ]);
}

// ------------------------------------------------------------------------------ render

function keepFocus(draw) {
  const a = document.activeElement;
  const key = a && a.dataset ? a.dataset.key : null;
  const index = a && a.parentElement ? [...a.parentElement.children].indexOf(a) : -1;
  const parent = a ? a.parentElement && a.parentElement.id : null;
  draw();
  if (!key) return;
  let target = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (!target && parent) {
    const box = document.getElementById(parent);
    if (box && box.children.length) target = box.children[Math.min(index, box.children.length - 1)];
  }
  if (!target) target = document.querySelector("#controls-hand button, #controls-actions button");
  if (target && target !== document.activeElement) target.focus({ preventScroll: true });
}

/** While a dialog (curtain, result, settings) is up, the page behind it takes no focus. */
function syncInert() {
  const open = [...document.querySelectorAll(".overlay")].some((o) => !o.hidden);
  for (const id of ["main", "top"]) {
    const e = document.getElementById(id);
    if (e) e.inert = open;
  }
}

function render() {
  const st = app.st;
  if (!st || st.started === false) return;
  updateStatus();
  const h = { who, toggle, act };
  keepFocus(() => {
    renderBoard(st, ui, h);
    renderPanel(st, ui, h);
  });
  const rb = roundBox(st);
  const box = $("#roundbox");
  if (rb) {
    box.replaceChildren(el("span", { class: "label" }, t("round.label")), rb);
    box.setAttribute("aria-label", t("round.box_label", { text: rb.replace(/×/g, t("round.times")) }));
    box.hidden = false;
  } else box.hidden = true;
  $("#game").classList.toggle("no-graphics", !app.prefs.graphics);
}

function heroFan() {
  const fan = $("#hero-fan");
  const cards = [["2", "s"], ["A", "h"], ["K", "d"], ["Q", "c"], ["JK", null]];
  cards.forEach(([rank, suit], i) => {
    const c = cardFace({ id: i, rank, suit, text: rank + (suit || "") });
    c.style.transform = `rotate(${(i - 2) * 11}deg) translateY(${Math.abs(i - 2) * 6}px)`;
    fan.append(c);
  });
}

function focusHand() {
  syncInert();
  const b = document.querySelector("#hand .card-button[tabindex='0']") || document.querySelector("#controls-hand button");
  if (b && document.activeElement === document.body) b.focus({ preventScroll: true });
}

// ------------------------------------------------------------------------------ controls

function leave() {
  if (app.mode === "friends" && app.st && app.st.match && !app.st.match.over) app.conn.send({ type: "leave" });
  $("#result").hidden = true;
  $("#curtain").hidden = true;
  app.st = null;
  app.room = null;
  app.resultShownFor = null;
  app.conn.close();
  // a fresh connection for the next table (the old one stays gone)
  location.assign("/");
}

function setupControls() {
  setupView($("#board-wrap"), $("#board"));
  const watch = new MutationObserver(syncInert);
  for (const o of document.querySelectorAll(".overlay")) watch.observe(o, { attributes: true, attributeFilter: ["hidden"] });

  // the hand at the near edge: press to lift, drag across cards to lift several
  const hand = $("#hand");
  hand.addEventListener("pointerdown", (ev) => {
    const b = ev.target.closest(".card-button");
    if (!b || b.getAttribute("aria-disabled") === "true") return;
    const id = Number(b.dataset.id);
    const on = !ui.selected.has(id);
    ui.drag = { on, done: new Set([id]) };
    // the moves of this finger or mouse come to the hand, whichever card they cross
    if (hand.setPointerCapture) hand.setPointerCapture(ev.pointerId);
    ui.rovingId = id;
    toggle(id, on);
  });
  hand.addEventListener("pointermove", (ev) => {
    if (!ui.drag) return;
    const over = document.elementFromPoint(ev.clientX, ev.clientY);
    const b = over && over.closest("#hand .card-button");
    if (!b || b.getAttribute("aria-disabled") === "true") return;
    const id = Number(b.dataset.id);
    if (ui.drag.done.has(id)) return;
    ui.drag.done.add(id);
    toggle(id, ui.drag.on);
  });
  for (const t of ["pointerup", "pointercancel", "pointerleave"]) {
    hand.addEventListener(t, () => (ui.drag = null));
  }
  window.addEventListener("pointerup", () => (ui.drag = null));
  // the hand's fit and the seats' places follow the width of the table
  let resizing = null;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(render);
  });
  hand.addEventListener("click", (ev) => {
    const b = ev.target.closest(".card-button");
    if (!b || ev.detail !== 0) return; // mouse and touch were handled on pointerdown
    if (b.getAttribute("aria-disabled") === "true") return;
    ui.rovingId = Number(b.dataset.id);
    toggle(Number(b.dataset.id));
  });
  hand.addEventListener("keydown", (ev) => {
    const buttons = [...hand.querySelectorAll(".card-button")];
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    let j = null;
    if (ev.key === "ArrowRight") j = Math.min(buttons.length - 1, i + 1);
    else if (ev.key === "ArrowLeft") j = Math.max(0, i - 1);
    else if (ev.key === "Home") j = 0;
    else if (ev.key === "End") j = buttons.length - 1;
    if (j === null) return;
    ev.preventDefault();
    buttons[i].tabIndex = -1;
    buttons[j].tabIndex = 0;
    ui.rovingId = Number(buttons[j].dataset.id);
    buttons[j].focus();
  });

  $("#curtain-lift").addEventListener("click", () => {
    const st = app.st;
    if (st && st.curtain) app.conn.send({ type: "reveal", seat: st.curtain.seat });
  });
  $("#room-fill").addEventListener("click", () => app.conn.send({ type: "fill", level: "easy" }));
  $("#copy-link").addEventListener("click", async () => {
    const input = $("#room-link");
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      say(t("room.copied"));
      toast(t("room.copied"));
    } catch {
      say(t("room.copy_failed"));
    }
  });
  $("#join-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("#player-name").value.trim();
    const msg = { type: "join", room: app.room };
    if (name) msg.name = name;
    const j = await app.conn.request(msg);
    if (j.type === "error") showJoin(app.room, j.message);
    else joined(j);
  });
  $("#leave").addEventListener("click", leave);

  // settings
  const dlg = $("#settings");
  $("#set-graphics").checked = app.prefs.graphics;
  $("#set-counter").checked = app.prefs.counter;
  // the language: applied by loading the page again in it (a table comes back with its token)
  const langs = $("#set-language");
  langs.replaceChildren(...Object.keys(CATALOGS).map((code) => new Option(t(`lang.${code}`), code, false, code === language())));
  langs.addEventListener("change", (ev) => {
    keepLanguage(ev.target.value);
    location.reload();
  });
  $("#settings-open").addEventListener("click", () => {
    dlg.hidden = false;
    $("#set-graphics").focus();
  });
  const closeSettings = () => {
    dlg.hidden = true;
    syncInert();
    $("#settings-open").focus();
  };
  $("#settings-close").addEventListener("click", closeSettings);
  $("#set-graphics").addEventListener("change", (ev) => {
    app.prefs.graphics = ev.target.checked;
    savePrefs();
    render();
  });
  $("#set-counter").addEventListener("change", (ev) => {
    app.prefs.counter = ev.target.checked;
    savePrefs();
    if (app.st && app.st.game === "doudizhu") app.conn.send({ type: "settings", counter: app.prefs.counter });
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape") return;
    if (!dlg.hidden) closeSettings();
    else if (!$("#result").hidden && app.resultShownFor && app.resultShownFor.startsWith("round")) closeResult();
  });
}

boot();
