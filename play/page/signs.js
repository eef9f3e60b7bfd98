// Event signs: the big words on the table ("Jack back!", "Bomb! x4") for a moment after the
// state frame that brought their events. A sign never outlives the state it describes: the
// signs of a frame go up together at once (none waits in a queue behind older ones), and a
// newer frame takes down any sign whose state it no longer shows (a jack back after the pile
// has cleared, a bomb once the table has moved on).

/** How long a sign stays up at most, in ms. */
export const SIGN_MS = 1500;

/**
 * Whether the frame `st` still shows what the event `ev` was about: the rule flags while they
 * hold; any other event only until a newer frame brings events of its own (the table moved).
 */
export function stillShown(ev, st) {
  const f = st.flags || {};
  switch (ev.type) {
    case "revolution":
      return !!f.revolution === (ev.on !== false);
    case "jack_back":
      return !!f.jack_back === (ev.on !== false);
    case "lock":
      return !!f.lock;
    default:
      return !(st.events || []).length;
  }
}

export class Signs {
  /** `box`: the banner element; it shows while it has the class `show`. */
  constructor(box) {
    this.box = box;
    this.up = []; // [{ev, text}] on show now
    this.timer = null;
  }

  /** A new state frame `st` with the signs of its own events (`[{ev, text}]`). */
  frame(st, signs) {
    const kept = signs.length ? [] : this.up.filter((s) => stillShown(s.ev, st));
    if (signs.length) this.show(signs);
    else if (kept.length !== this.up.length) this.show(kept, false);
  }

  show(signs, restart = true) {
    this.up = signs;
    if (!signs.length) {
      this.clear();
      return;
    }
    this.box.textContent = signs.map((s) => s.text).join(" · ");
    this.box.classList.add("show");
    if (restart) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.clear(), SIGN_MS);
    }
  }

  clear() {
    clearTimeout(this.timer);
    this.up = [];
    this.box.classList.remove("show");
  }
}
