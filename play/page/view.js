// The table's view: "Angled" (the felt, the pile and the other seats tilted back in CSS 3D,
// their name tags standing up to face you) or "Top-down" (flat). A two-button group at the top
// right of the table switches it; the choice is kept in localStorage. Your hand, the action
// buttons and the status line lie outside the tilted surface, so they stay crisp and are hit
// where they are drawn. In the angled view a drag on the felt turns the table a little (it
// springs back on release); with `prefers-reduced-motion: reduce` it does not turn, and the
// view changes without a transition (style.css). Its words are the catalog's `view.*` keys
// (i18n.js); the toggle carries them in `data-i18n` / `data-i18n-attr`, so `applyStatic`
// relabels it with the page's other static text.

import { t } from "./i18n.js";

const VIEW_KEY = "climbrl.view";
const ANGLED = "angled";
const TOP_DOWN = "top-down";
/** Below this screen width (px) the table opens top-down unless angled was chosen: a phone's
 * narrow table has little room to lose to the tilt. */
const NARROW_PX = 600;
/** Degrees the table turns per pixel dragged, and the most it turns each way. */
const DEG_PER_PX = 0.05;
const MAX_TURN_Y_DEG = 12;
const MAX_TURN_X_DEG = 8;
/** A press that moves less than this (px) is not a drag. */
const DRAG_START_PX = 4;
/** What a drag may not start on: the controls and your hand keep their own presses. */
const NOT_DRAGGABLE = "button, a, input, select, label, .near, .view-toggle";

const narrow = () => window.matchMedia(`(max-width: ${NARROW_PX - 1}px)`);
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const clamp = (v, most) => Math.max(-most, Math.min(most, v));

/** The view to show: the one chosen on this browser, else top-down on a narrow screen. */
function currentView() {
  let kept = null;
  try {
    kept = localStorage.getItem(VIEW_KEY);
  } catch {
    kept = null; // storage refused (private mode): the default
  }
  if (kept === ANGLED || kept === TOP_DOWN) return kept;
  return narrow().matches ? TOP_DOWN : ANGLED;
}

function keep(view) {
  try {
    localStorage.setItem(VIEW_KEY, view);
  } catch {
    // storage refused: the choice holds until the page is left
  }
}

/**
 * Puts the view toggle in `wrap` (the table's box) and the view on `board`; returns nothing.
 * `board` gets the class `angled` in the angled view and `dragging` while a drag turns it.
 */
export function setupView(wrap, board) {
  const buttons = {};
  const group = document.createElement("div");
  group.className = "view-toggle";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", t("view.group"));
  group.dataset.i18nAttr = "aria-label:view.group";
  for (const [view, key] of [[ANGLED, "view.angled"], [TOP_DOWN, "view.top_down"]]) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t(key);
    b.dataset.i18n = key;
    b.dataset.view = view;
    b.addEventListener("click", () => {
      keep(view);
      apply();
    });
    buttons[view] = b;
    group.append(b);
  }
  wrap.prepend(group);

  function apply() {
    const view = currentView();
    board.classList.toggle(ANGLED, view === ANGLED);
    for (const [v, b] of Object.entries(buttons)) b.setAttribute("aria-pressed", v === view ? "true" : "false");
  }
  apply();
  narrow().addEventListener("change", apply);

  let drag = null;
  const turn = (x, y) => {
    board.style.setProperty("--drag-x", `${x}deg`);
    board.style.setProperty("--drag-y", `${y}deg`);
  };
  const end = (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    drag = null;
    board.classList.remove("dragging");
    turn(0, 0);
  };
  board.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || !board.classList.contains(ANGLED) || reducedMotion()) return;
    // by the path the press took, not `ev.target.closest`: a press on a card redraws the hand
    // before it comes up to the board, and the element pressed is no longer in the page
    if (ev.composedPath().some((e) => e instanceof Element && e.matches(NOT_DRAGGABLE))) return;
    drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, on: false };
  });
  board.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    if (!ev.buttons) {
      end(ev); // let go where the board did not see it
      return;
    }
    const dx = ev.clientX - drag.x;
    const dy = ev.clientY - drag.y;
    if (!drag.on) {
      if (Math.hypot(dx, dy) < DRAG_START_PX) return;
      drag.on = true;
      // the rest of the drag comes to the board, whatever it crosses: no card is lifted and no
      // button pressed by it
      board.setPointerCapture(ev.pointerId);
      board.classList.add("dragging");
    }
    turn(clamp(-dy * DEG_PER_PX, MAX_TURN_X_DEG), clamp(dx * DEG_PER_PX, MAX_TURN_Y_DEG));
  });
  for (const t of ["pointerup", "pointercancel", "lostpointercapture"]) board.addEventListener(t, end);
}
