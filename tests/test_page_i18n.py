"""The table page in English, Spanish and Japanese (docs/table.md, "Languages").

(a) Every catalog (play/page/i18n/<code>.js) has exactly English's keys, the same
{placeholders} per key, and every key the page names (``t("...")`` in the JavaScript,
``data-i18n`` in index.html) is in it. (b) A whole Daifugo round played through the page in
Spanish and in Japanese shows, at the lobby, mid-round (the view toggle on screen), on the
result card and in the next round's exchange, no text (text node, aria-label, title,
placeholder) outside that language's catalog; the check is seen to catch a text left in
English. (c) The language follows the browser, is kept across a reload and is switched in
Settings, which relabels the view toggle. (d) A Dou Dizhu deal in Spanish.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from page_helpers import (  # noqa: F401  (fixtures)
    TURN_MS,
    browser,
    expect,
    expect_lobby_ready,
    new_page,
    requires_browser,
    table_server,
)

PAGE = Path(__file__).resolve().parent.parent / "play" / "page"
CATALOG_DIR = PAGE / "i18n"
LANGUAGES = ("en", "es", "ja")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: the player's name in the browser tests, and the server's CPU names: data, not text
PLAYER = "Ana"
CPU_NAMES = re.compile(r"CPU \d+")
#: what a card shows in every language: its rank, a joker's counter label
RANK_TOKENS = {"J", "Q", "K", "A", "BJ", "RJ"}
#: enough decisions for any 3-player round (18 cards each)
MAX_DECISIONS = 120
#: the decision after which the table is checked mid-round
MID_ROUND = 3


def load_catalog(code: str) -> dict:
    """A catalog file's object: the JSON behind ``export default`` (comments before it)."""
    text = (CATALOG_DIR / f"{code}.js").read_text(encoding="utf-8")
    body = text[text.index("export default") + len("export default"):].strip()
    return json.loads(body.rstrip(";").strip())


def forms(value) -> list[str]:
    """The texts of a catalog value: a string, or each form of a plural object."""
    return list(value.values()) if isinstance(value, dict) else [value]


def render(catalog: dict, key: str, **params) -> str:
    """A catalog text with its placeholders filled (a plural's ``one`` form for n == 1 where it
    has one, else ``other``: right for English, Spanish and Japanese)."""
    value = catalog[key]
    if isinstance(value, dict):
        value = value.get("one") if params.get("n") == 1 and "one" in value else value["other"]
    return PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), value)


# ------------------------------------------------------------------------------ (a) catalogs


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_catalog_has_english_keys_and_placeholders(code):
    english = load_catalog("en")
    other = load_catalog(code)
    assert sorted(set(english) - set(other)) == [], f"{code}.js lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{code}.js has keys English lacks"
    for key, value in english.items():
        want = {p for text in forms(value) for p in PLACEHOLDER.findall(text)}
        texts = forms(other[key])
        assert isinstance(other[key], dict) == isinstance(value, dict), f"{code}.js {key}: plural or not as English"
        if isinstance(value, dict):
            assert "other" in other[key], f"{code}.js {key}: a plural needs its 'other' form"
        got = {p for text in texts for p in PLACEHOLDER.findall(text)}
        # a plural's count may be said in words by a form (English "1 card"), never a new name
        assert got <= want and want - got <= {"n"}, f"{code}.js {key}: placeholders {got}, English {want}"
        assert all(isinstance(t, str) and t for t in texts), f"{code}.js {key}: empty text"


def test_catalog_of_every_language_is_loaded_by_the_page():
    i18n = (PAGE / "i18n.js").read_text(encoding="utf-8")
    files = sorted(p.stem for p in CATALOG_DIR.glob("*.js"))
    assert files == sorted(LANGUAGES)
    for code in files:
        assert f'from "./i18n/{code}.js"' in i18n
        assert f"lang.{code}" in load_catalog("en"), f"the language select names {code}"


def test_every_key_the_page_names_is_in_the_catalog():
    english = load_catalog("en")
    used = set()
    for js in PAGE.glob("*.js"):
        used |= set(re.findall(r'\bt\("([^"]+)"', js.read_text(encoding="utf-8")))
        # keys chosen by a condition: t(a ? "x" : "y")
        for inner in re.findall(r"\bt\(([^()]*\?[^()]*)\)", js.read_text(encoding="utf-8")):
            used |= set(re.findall(r'"([a-z_]+\.[a-z_.]+)"', inner))
    html = (PAGE / "index.html").read_text(encoding="utf-8")
    used |= set(re.findall(r'data-i18n="([^"]+)"', html))
    for pairs in re.findall(r'data-i18n-attr="([^"]+)"', html):
        used |= {pair.split(":")[1] for pair in pairs.split(";")}
    assert len(used) > 200, "the page's keys were not found: is the pattern out of date?"
    assert sorted(used - set(english)) == []


def test_the_key_check_catches_a_missing_key(tmp_path):
    """The check of the catalogs is not vacuous: a catalog without one key fails it."""
    spanish = load_catalog("es")
    del spanish["sign.revolution"]
    assert set(load_catalog("en")) - set(spanish) == {"sign.revolution"}


SERVER = Path(__file__).resolve().parent.parent / "play" / "server"
#: move-name codes the page words itself from their values (events.js, moveName)
WORDED_MOVES = {"give", "single", "set", "run", "bid", "shape"}
#: the error the page answers with its own line (net.replaced: reload to play here again)
OWN_LINE_ERRORS = {"replaced"}


def test_every_title_of_the_table_has_a_catalog_key():
    from climbrl.play.server.daifugo import PLAYER_CHOICES, make_rules, title_code

    english = load_catalog("en")
    for game, choices in PLAYER_CHOICES.items():
        for players in choices:
            for title in make_rules(game, players, 3, {}).titles:
                assert f"title.{title_code(title)}" in english, (game, players, title)


def test_every_move_name_the_server_sends_has_catalog_words():
    from climbrl.envs.doudizhu.catalog import Kind
    from climbrl.play.server.daifugo import DaifugoTable
    from climbrl.play.server.doudizhu import ROB_CODES, SHOW_CODES, TIER_CODES, DoudizhuTable

    english = load_catalog("en")
    codes = set()
    for game in ("daifugo", "president"):
        table = DaifugoTable(game, 4, 3, {}, 1)
        codes |= {table.move_name(a)["code"] for a in range(len(table.cat.moves))}
    for rules in ({}, {"rob": True}, {"open_hand": True}):
        table = DoudizhuTable(1, 5, 3, rules)
        codes |= {m["name"]["code"] for m in table.private(table.turn)["moves"]}
    codes |= {c for pair in ROB_CODES.values() for c in pair} | set(SHOW_CODES) | set(TIER_CODES.values())
    assert {"pass", "give", "single", "set", "run", "joker", "joker_pair", "bid", "call"} <= codes
    assert sorted(c for c in codes - WORDED_MOVES if f"move.{c}" not in english) == []
    assert sorted(k.label for k in Kind if f"shape.{k.label}" not in english) == []


def test_every_error_and_reason_code_the_server_sends_has_a_catalog_text():
    english = load_catalog("en")
    source = "\n".join(p.read_text(encoding="utf-8") for p in SERVER.glob("*.py"))
    errors = set(re.findall(r'(?:RoomError|ProtocolError|\berror)\(\s*"([a-z_]+)"', source))
    assert {"illegal", "not_your_turn", "bad_token", "too_many_connections", "idle"} <= errors
    assert sorted(c for c in errors - OWN_LINE_ERRORS if f"error.{c}" not in english) == []
    reasons = set(re.findall(r'reason_code="([a-z_]+)"|, name, "([a-z_]+)"\)', source))
    reasons = {c for pair in reasons for c in pair if c}
    assert {"not_your_turn", "not_in_hand", "no_play", "not_now"} <= reasons
    assert sorted(c for c in reasons if f"reason.{c}" not in english) == []


# ------------------------------------------------------------------------------ the leak check

WORD = re.compile(r"[A-Za-z]+|[^\W\d_A-Za-z]+")


def words_of(catalog: dict) -> set[str]:
    """Every word of the catalog's texts (placeholders left out): runs of ASCII letters and
    runs of other letters (Japanese has no spaces: a run is split at the placeholders)."""
    out = set()
    for value in catalog.values():
        for text in forms(value):
            for piece in PLACEHOLDER.split(text)[::2]:
                out |= set(WORD.findall(piece))
    return out


def segments(run: str, words: set[str]) -> bool:
    """Whether a run of letters is catalog words one after another ("スペードの" = "スペード"
    + "の", a suit placed before a fragment)."""
    ok = [True] + [False] * len(run)
    for end in range(1, len(run) + 1):
        ok[end] = any(ok[start] and run[start:end] in words for start in range(end))
    return ok[-1]


def leaks(page, code: str, names=(PLAYER,)) -> list[str]:
    """The texts on the page (text nodes, aria-label, title, placeholder, the style sheet's
    ::before / ::after content; hidden ones too) with a word that is not one of the language's
    catalog words, once player names are left out."""
    words = words_of(load_catalog(code)) | RANK_TOKENS
    texts = page.evaluate("""() => {
      const out = [];
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        if (n.parentElement.closest("script, style, noscript")) continue;
        if (n.textContent.trim()) out.push(n.textContent);
      }
      for (const e of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
        for (const a of ["aria-label", "title", "placeholder"]) if (e.getAttribute(a)) out.push(e.getAttribute(a));
      }
      // words drawn by the style sheet (a ::before / ::after `content`: its strings and the
      // attributes it names)
      for (const e of document.body.querySelectorAll("*")) {
        for (const pseudo of ["::before", "::after"]) {
          const content = getComputedStyle(e, pseudo).content;
          for (const m of content.matchAll(/"([^"]*)"|attr[(]([a-z-]+)[)]/g)) {
            const text = m[1] !== undefined ? m[1] : e.getAttribute(m[2]) || "";
            if (text.trim()) out.push(text);
          }
        }
      }
      out.push(document.title);
      return out;
    }""")
    bad = []
    for text in texts:
        rest = CPU_NAMES.sub(" ", text)
        for name in names:
            rest = rest.replace(name, " ")
        rest = re.sub(r"\bDDZ-[\w-]+|\b\d+-[\w-]+", " ", rest)  # deal codes
        for run in WORD.findall(rest):
            if run not in words and not segments(run, words):
                bad.append(f"{run!r} in {text!r}")
    return bad


def assert_no_leaks(page, code: str, where: str) -> None:
    found = leaks(page, code)
    assert not found, f"{where}: text outside the {code} catalog:\n" + "\n".join(found[:20])


# ------------------------------------------------------------------------------ (b) playing


def lang_page(new_page, browser, locale: str):
    context = browser.new_context(viewport={"width": 1360, "height": 900}, locale=locale)
    return new_page(context), context


def start_daifugo(page, url: str, catalog: dict) -> None:
    page.goto(url + "/")
    expect_lobby_ready(page)
    page.locator('input[name="game"][value="daifugo"]').check()
    page.locator('input[name="players"][value="3"]').check()
    page.locator("#player-name").fill(PLAYER)
    page.locator("#pace").select_option("0")
    page.get_by_role("button", name=render(catalog, "level.easy"), exact=True).click()


def your_turn_texts(catalog: dict) -> list[str]:
    return [render(catalog, "turn.play_or_pass"), render(catalog, "turn.lead"),
            render(catalog, "turn.give", n=1), render(catalog, "turn.give", n=2)]


def wait_turn_or_result(page, catalog: dict) -> str:
    page.wait_for_function(
        """(turns) => !document.querySelector("#result").hidden
             || turns.includes(document.querySelector("#controls-turn").textContent)""",
        arg=your_turn_texts(catalog), timeout=TURN_MS)
    return "result" if page.locator("#result").is_visible() else "turn"


def expect_view_toggle(page, catalog: dict, visible: bool) -> None:
    """The table's "Angled" / "Top-down" toggle (view.js) in the catalog's words: the group's
    aria-label and the two buttons' text, on screen or (before a table) hidden in the page."""
    group = page.locator(".view-toggle")
    expect(group).to_have_attribute("aria-label", catalog["view.group"])
    expect(group.locator("button")).to_have_text([catalog["view.angled"], catalog["view.top_down"]])
    if visible:
        expect(page.get_by_role("group", name=catalog["view.group"])).to_be_visible()


def enabled(locator) -> bool:
    return locator.count() > 0 and locator.get_attribute("aria-disabled") != "true"


FIRST_PLAY_ALONE = """() => {
  const cards = () => document.querySelectorAll("#controls-hand button");
  const on = (e) => !!e && e.getAttribute("aria-disabled") !== "true";
  const play = () => document.querySelector('#controls-actions [data-key="ctl:act:play"]');
  for (let i = 0; i < cards().length; i++) {
    if (!on(cards()[i])) continue;
    cards()[i].click();
    const plays = on(play());
    cards()[i].click();
    if (plays) return i;
  }
  return -1;
}"""
"""the index of the panel's first card that plays alone, or -1: each card that is not dimmed
pressed and released by its own button in the page, which draws the panel at once (one round
trip, not four a card: the search is no part of what these tests check)"""


def decide(page) -> str:
    """One decision in the "Button controls" panel, found by its controls' keys (no words): the
    exchange's first cards, else the first card that plays alone, else pass."""
    cards = page.locator("#controls-hand button")
    give = page.locator('#controls-actions [data-key="ctl:act:give"]')
    if give.count():
        for i in range(cards.count()):
            if enabled(give):
                break
            cards.nth(i).click()
        give.click()
        return "give"
    first = page.evaluate(FIRST_PLAY_ALONE)
    if first >= 0:
        cards.nth(first).click()
        page.locator('#controls-actions [data-key="ctl:act:play"]').click()
        return "play"
    page.locator('#controls-actions [data-key="ctl:act:pass"]').click()
    return "pass"


@pytest.mark.parametrize("locale,code", [("es-ES", "es"), ("ja-JP", "ja")])
def test_whole_daifugo_round_in_the_browser_language(new_page, browser, table_server, locale, code):
    catalog = load_catalog(code)
    page, _ = lang_page(new_page, browser, locale)
    page.goto(table_server + "/")
    expect_lobby_ready(page)
    expect(page).to_have_title(render(catalog, "page.title"))
    assert page.locator("html").get_attribute("lang") == code
    assert_no_leaks(page, code, "lobby")
    start_daifugo(page, table_server, catalog)
    expect(page.locator("#hand")).to_have_attribute("aria-label", render(catalog, "hand.count", n=18), timeout=TURN_MS)
    decisions = 0
    for _ in range(MAX_DECISIONS):
        if wait_turn_or_result(page, catalog) == "result":
            break
        decide(page)
        decisions += 1
        if decisions == MID_ROUND:
            # the view toggle is on screen, so the leak check below reads its words too
            expect_view_toggle(page, catalog, visible=True)
            assert_no_leaks(page, code, "mid-round")
    else:
        raise AssertionError(f"the round did not end within {MAX_DECISIONS} decisions")
    result = page.get_by_role("dialog", name=render(catalog, "result.round_title", n=1))
    expect(result).to_be_visible()
    titles = [render(catalog, f"title.{t}") for t in ("millionaire", "commoner", "poor")]
    expect(result.get_by_role("table")).to_contain_text(re.compile("|".join(titles)))
    assert_no_leaks(page, code, "result card")
    result.get_by_role("button", name=render(catalog, "action.continue")).click()
    # round 2 opens with the exchange: the Poor's best card goes to the Millionaire, who gives
    # one back (a give event and, for those two seats, the cards in the log)
    expect(page.locator("#log")).to_contain_text(render(catalog, "event.round_start", n=2))
    if wait_turn_or_result(page, catalog) == "turn" and page.locator('[data-key="ctl:act:give"]').count():
        assert_no_leaks(page, code, "exchange")
        assert decide(page) == "give"
    assert_no_leaks(page, code, "round 2")


def test_the_leak_check_catches_a_text_left_in_english(new_page, browser, table_server):
    """A Spanish catalog without one key: the page says that text in English, and the check
    finds it (so the checks above can fail)."""
    page, context = lang_page(new_page, browser, "es-ES")
    spanish = load_catalog("es")
    del spanish["lobby.title"]
    body = "export default " + json.dumps(spanish, ensure_ascii=False) + ";\n"
    context.route(re.compile(r"/static/i18n/es\.js$"),
                  lambda route: route.fulfill(body=body, content_type="text/javascript; charset=utf-8"))
    page.goto(table_server + "/")
    expect_lobby_ready(page)
    expect(page.locator("#lobby-title")).to_have_text(render(load_catalog("en"), "lobby.title"))
    found = leaks(page, "es")
    assert found and all("Pick a game and sit down" in f for f in found), found


# ------------------------------------------------------------------------------ (c) choosing


def test_language_follows_the_browser_is_switched_in_settings_and_kept(new_page, browser, table_server):
    english, japanese = load_catalog("en"), load_catalog("ja")
    page, _ = lang_page(new_page, browser, "fr-FR")  # no French catalog: English
    page.goto(table_server + "/")
    expect(page.locator("#lobby-title")).to_have_text(english["lobby.title"])
    page.get_by_role("button", name=english["settings.title"]).click()
    language = page.get_by_label(english["settings.language"])
    expect(language).to_have_value("en")
    expect_view_toggle(page, english, visible=False)
    language.select_option("ja")
    # applied at once (the page loads again in Japanese)
    expect(page.locator("#lobby-title")).to_have_text(japanese["lobby.title"])
    expect_view_toggle(page, japanese, visible=False)
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect_lobby_ready(page)
    assert_no_leaks(page, "ja", "lobby after the switch")
    page.reload()
    expect(page.locator("#lobby-title")).to_have_text(japanese["lobby.title"])
    page.get_by_role("button", name=japanese["settings.title"]).click()
    expect(page.get_by_label(japanese["settings.language"])).to_have_value("ja")


def test_regression_the_lobby_spoke_english_and_settings_did_nothing_until_the_server_answered(
        new_page, browser, table_server):
    """Until the server's hello, the "players on this device" button said its English text
    and the Settings button had no handler yet (CI failed on both: a leak check and a click
    that came before the hello). A socket the server never answers holds the page there."""
    spanish = load_catalog("es")
    page, _ = lang_page(new_page, browser, "es-ES")
    page.route_web_socket(re.compile(r"/ws$"), lambda ws: None)  # open, and silent
    page.goto(table_server + "/")
    expect(page.locator("#lobby-form")).to_have_attribute("aria-busy", "true")
    expect(page.locator("#hotseat-button")).to_have_text(render(spanish, "lobby.hotseat", n=4))
    assert_no_leaks(page, "es", "lobby before the hello")
    page.get_by_role("button", name=spanish["settings.title"]).click()
    expect(page.get_by_label(spanish["settings.language"])).to_have_value("es")


# ------------------------------------------------------------------------------ (d) Dou Dizhu


def test_doudizhu_deal_in_spanish(new_page, browser, table_server):
    spanish = load_catalog("es")
    page, _ = lang_page(new_page, browser, "es-ES")
    page.goto(table_server + "/")
    expect_lobby_ready(page)
    page.locator('input[name="game"][value="doudizhu"]').check()
    expect(page.locator("#rounds-field legend")).to_have_text(spanish["lobby.deals"])
    page.locator("#player-name").fill(PLAYER)
    page.locator("#pace").select_option("0")
    page.get_by_role("button", name=render(spanish, "level.easy"), exact=True).click()
    expect(page.locator("#controls-hand button").first).to_be_visible(timeout=TURN_MS)
    # the bidding (or the play, when a CPU bid first and won): Spanish buttons and status
    page.wait_for_function("() => document.querySelector('#controls-actions button')", timeout=TURN_MS)
    assert_no_leaks(page, "es", "Dou Dizhu table")
    labels = page.locator("#controls-actions button").all_inner_texts()
    spanish_labels = {render(spanish, "action.bid", n=n) for n in (1, 2, 3)} | {
        spanish["action.no_bid"], spanish["action.play"], spanish["action.pass"], spanish["action.hint"],
        spanish["action.undo"]}
    assert set(labels) <= spanish_labels, labels
