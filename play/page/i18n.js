// Languages: one message catalog per language (i18n/<code>.js, a JSON object behind
// `export default`), chosen from the browser's languages, switched in Settings and remembered.
//
// `t(key, params)` is the text of `key` in the page's language with `{name}` placeholders
// filled from `params`; a plural text is an object of Intl.PluralRules forms (`one`,
// `other`, ...) picked by `params.n` (the ordinal forms when `params.ordinal`). Static text in index.html names its key in
// `data-i18n` (the text, with `data-i18n-n` as its `n` where it has a count) or `data-i18n-attr`
// ("aria-label:key;placeholder:key").

import en from "./i18n/en.js";
import es from "./i18n/es.js";
import ja from "./i18n/ja.js";

export const CATALOGS = { en, es, ja };
/** The language chosen when none of the browser's languages has a catalog. */
export const FALLBACK = "en";
const LANG_KEY = "climbrl.lang";

let current = FALLBACK;

/** The catalog language for a list of browser languages ("es-MX" -> "es"), else FALLBACK. */
export function fromBrowser(languages) {
  for (const tag of languages || []) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (code in CATALOGS) return code;
  }
  return FALLBACK;
}

/** The language kept in Settings, else the browser's. */
export function chosenLanguage() {
  let kept = null;
  try {
    kept = localStorage.getItem(LANG_KEY);
  } catch {
    kept = null;
  }
  if (kept && kept in CATALOGS) return kept;
  return fromBrowser(navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]);
}

export function setLanguage(code) {
  current = code in CATALOGS ? code : FALLBACK;
  document.documentElement.lang = current;
}

/** Keeps `code` as the page's language for the next visits. */
export function keepLanguage(code) {
  localStorage.setItem(LANG_KEY, code);
}

export function language() {
  return current;
}

/** The text of `key` (a missing key falls back to English, then to the key itself). */
export function t(key, params = {}) {
  let text = CATALOGS[current][key];
  if (text === undefined) text = CATALOGS[FALLBACK][key];
  if (text === undefined) return key;
  if (typeof text === "object") {
    const form = new Intl.PluralRules(current, { type: params.ordinal ? "ordinal" : "cardinal" }).select(Number(params.n));
    text = text[form] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Whether `key` has a text (for codes the server may add later: a fallback is chosen then). */
export function has(key) {
  return key in CATALOGS[FALLBACK];
}

/** Fills the static text of `root` from its `data-i18n` and `data-i18n-attr` keys. */
export function applyStatic(root = document) {
  for (const e of root.querySelectorAll("[data-i18n]")) {
    e.textContent = t(e.dataset.i18n, "i18nN" in e.dataset ? { n: Number(e.dataset.i18nN) } : {});
  }
  for (const e of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of e.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      e.setAttribute(attr, t(key));
    }
  }
  document.title = t("page.title");
}
