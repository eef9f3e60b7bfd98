// The lobby: game, players, rounds, house rules and the way to play, built from the games the
// server lists in its `hello` (so every option and default comes from the server's rules).

import { has, t } from "./i18n.js";

/** A house rule's name and help line from the catalog (`rule.<name>`, `rule.<name>.help`); a
 * rule the catalog does not know yet shows its code. */
function ruleText(name) {
  if (!has(`rule.${name}`)) return [name.replace(/_/g, " "), ""];
  return [t(`rule.${name}`), t(`rule.${name}.help`)];
}

export class Lobby {
  constructor(root, games, onStart) {
    this.root = root;
    this.games = games;
    this.onStart = onStart;
    this.form = root.querySelector("#lobby-form");
    this.form.addEventListener("change", (ev) => {
      if (ev.target.name === "game") this.buildOptions();
      if (ev.target.name === "players") this.updateHotseat();
    });
    this.form.addEventListener("submit", (ev) => ev.preventDefault());
    for (const b of this.form.querySelectorAll("[data-mode]")) {
      b.addEventListener("click", () => this.start(b.dataset.mode, b.dataset.level));
    }
    for (const input of this.form.querySelectorAll('input[name="game"]')) {
      input.closest("label").hidden = !(input.value in games);
    }
    this.buildOptions();
    this.form.querySelector("#lobby-fields").disabled = false;
    this.form.removeAttribute("aria-busy");
  }

  game() {
    return this.form.querySelector('input[name="game"]:checked').value;
  }

  buildOptions() {
    const g = this.games[this.game()];
    const chips = this.form.querySelector("#players-chips");
    chips.replaceChildren();
    for (const n of g.players) {
      chips.append(chip("players", n, n === g.default_players));
    }
    this.form.querySelector("#players-field").hidden = g.players.length < 2;
    const rounds = this.form.querySelector("#rounds-field");
    rounds.querySelector("legend").textContent = t(this.game() === "doudizhu" ? "lobby.deals" : "lobby.rounds");
    const rchips = rounds.querySelector(".chips");
    rchips.replaceChildren();
    for (const n of g.rounds) rchips.append(chip("rounds", n, n === g.default_rounds));

    const list = this.form.querySelector("#rules-list");
    list.replaceChildren();
    for (const rule of g.rules) list.append(ruleControl(rule));
    this.form.querySelector("#rules-field").hidden = g.rules.length === 0;
    this.updateHotseat();
  }

  updateHotseat() {
    const button = this.form.querySelector("#hotseat-button");
    const n = this.players();
    button.dataset.i18nN = n;
    button.textContent = t("lobby.hotseat", { n });
  }

  players() {
    const g = this.games[this.game()];
    const picked = this.form.querySelector('input[name="players"]:checked');
    return picked ? Number(picked.value) : g.default_players;
  }

  /** The `create` message for the chosen options. */
  settings(mode, level) {
    const game = this.game();
    const g = this.games[game];
    const rules = {};
    for (const rule of g.rules) {
      const el = this.form.querySelector(`[name="rule-${rule.name}"]`);
      if (!el) continue;
      if (el.type === "checkbox") rules[rule.name] = el.checked;
      else rules[rule.name] = el.value === "" ? null : Number(el.value);
    }
    const rounds = Number(this.form.querySelector('input[name="rounds"]:checked').value);
    const msg = { type: "create", game, players: this.players(), rounds, rules, mode };
    // no name typed: the default name in the page's language (the server's is English)
    msg.name = this.form.querySelector("#player-name").value.trim() || t(mode === "cpu" ? "name.you" : "name.player", { n: 1 });
    msg.pace_ms = Number(this.form.querySelector("#pace").value);
    if (mode === "cpu") msg.level = level;
    if (mode === "local") {
      msg.names = Array.from({ length: msg.players }, (_, i) => t("name.player", { n: i + 1 }));
    }
    return msg;
  }

  start(mode, level) {
    this.onStart(this.settings(mode === "hotseat" ? "local" : mode, level));
  }

  showError(text) {
    const el = this.form.querySelector("#lobby-error");
    el.textContent = text;
    el.hidden = !text;
  }
}

function chip(name, value, checked) {
  const label = document.createElement("label");
  label.className = "chip";
  const input = document.createElement("input");
  input.type = "radio";
  input.name = name;
  input.value = String(value);
  input.checked = checked;
  const span = document.createElement("span");
  span.textContent = String(value);
  label.append(input, span);
  return label;
}

function ruleControl(rule) {
  const [title, help] = ruleText(rule.name);
  const wrap = document.createElement("div");
  wrap.className = "rule";
  const id = `rule-${rule.name}`;
  if (rule.choices) {
    const label = document.createElement("label");
    label.className = "field";
    label.htmlFor = id;
    label.innerHTML = `<span class="rule-name"></span><span class="rule-help"></span>`;
    label.querySelector(".rule-name").textContent = title;
    label.querySelector(".rule-help").textContent = help;
    const select = document.createElement("select");
    select.id = id;
    select.name = id;
    if (rule.default === null) {
      const auto = new Option(t("rule.automatic"), "", true, true);
      select.append(auto);
    }
    for (const c of rule.choices) select.append(new Option(String(c), String(c), false, c === rule.default));
    wrap.append(label, select);
    wrap.classList.add("rule-select");
    return wrap;
  }
  const input = document.createElement("input");
  input.type = "checkbox";
  input.id = id;
  input.name = id;
  input.checked = !!rule.default;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.innerHTML = `<span class="rule-name"></span><span class="rule-help"></span>`;
  label.querySelector(".rule-name").textContent = title;
  label.querySelector(".rule-help").textContent = help;
  wrap.append(input, label);
  return wrap;
}
