"""The rules reference (docs/rules.md) covers every switch and every Dou Dizhu kind, no file of
the repository points outside it (the references name docs/rules.md); the documentation site
(mkdocs.yml, docs/) builds strictly with every link resolving, its plots draw the figures its
pages print, and the README's commands and example are those CI runs and that work."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from climbrl.envs.daifugo.rules import Rules
from climbrl.envs.doudizhu.catalog import Kind

ROOT = Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "docs" / "rules.md"
#: references to files that are not in the repository (spelt in pieces so this file passes)
OUTSIDE = [re.compile("RULES" + r"\.md"), *(re.compile(p, re.I) for p in (
    r"\bshared" + "/", "seed" + "s/", "seed" + r" 00\d", "seed" + r"[ -]pages?", "seed" + r"'s\b"))]
DOC_LINK = re.compile(r"docs/[\w./-]+\.md")


def _tracked_text_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    files = [ROOT / n for n in names if (ROOT / n).is_file()]
    return [f for f in files if f.suffix not in (".onnx", ".png") and f.stat().st_size < 2**20]


def test_every_switch_of_the_rules_is_in_the_reference():
    text = RULES_DOC.read_text()
    missing = [f.name for f in dataclasses.fields(Rules)
               if f.name != "preset_name" and f"`{f.name}" not in text]
    assert not missing, f"docs/rules.md does not name {missing}"
    for rule in Rules.HOUSE_RULES:
        assert f"(`{rule}`" in text, f"house rule {rule} has no entry"


def test_the_reference_lists_every_dou_dizhu_kind():
    text = RULES_DOC.read_text()
    section = text.split("### The 14 kinds of play", 1)[1].split("\nLimits:", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]  # no header
    assert len(rows) == len(Kind) == 14


def test_no_file_points_outside_the_repository():
    # regression: docstrings and the README cited rule files that were never in the repository
    bad = []
    for path in _tracked_text_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if any(p.search(line) for p in OUTSIDE):
                bad.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert not bad, "\n".join(bad)


def test_every_docs_reference_resolves():
    missing = {f"{path.relative_to(ROOT)}: {link}" for path in _tracked_text_files()
               for link in DOC_LINK.findall(path.read_text(errors="replace"))
               if not (ROOT / link).is_file()}
    assert not missing, sorted(missing)


# --- the documentation site (mkdocs.yml, docs/) and the README's front page -----------------

DOCS = ROOT / "docs"
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
#: an import or a module run by an old, top-level name (before the climbrl package, 0.2.0)
OLD_IMPORTS = re.compile(r"^\s*(from|import) (envs|policies|training|benchmarks)\b", re.M)
OLD_RUNS = re.compile(r"python -m (envs|policies|training|benchmarks)\.")
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
#: each data file of the plots, its figures, and the page whose tables hold them
PLOT_DATA = {
    "quickstart.json": ("index.md",),
    "time_to_strength.json": ("strength.md",),
    "ladders.json": ("cpus.md",),
    "speed.json": ("speed.md", "peers.md", "tutorials/other-trainers.md"),
}
FIGURE_KEYS = {"values", "low", "high", "pm", "value", "points", "first_place_share",
               "landlord", "peasants", "median", "min", "max", "runs"}


def _load_module(path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_the_readme_runs_the_commands_of_ci():
    # the README's install-and-test command is what CI runs, and so are its docs commands
    ci = CI.read_text()
    readme = README.read_text()
    tests = next(line for line in _fenced(readme, "bash")
                 if "python -m pytest" in line).strip()
    assert tests in ci
    for command in ("pip install -e '.[docs]'", "mkdocs build --strict",
                    "python docs/check_links.py site", "mkdocs serve"):
        assert command in readme, command
    for command in ("pip install -q -e '.[docs]'", "mkdocs build --strict",
                    "python docs/check_links.py site"):
        assert command in ci, command


def test_the_readme_python_example_runs(tmp_path):
    (example,) = _fenced(README.read_text(), "python")
    assert len(example.splitlines()) <= 15
    done = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr
    points = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert set(points) == {"hard", "medium", "easy", "random"}
    assert sum(points.values()) == pytest.approx(0.0)  # centred rewards


def test_the_docs_name_the_climbrl_modules():
    # regression: after the rename, pages and docstrings still said `from envs import ...`
    # and `python -m benchmarks.time_to_strength` (a line break had hidden it from a search)
    pages = [README, ROOT / "cpus" / "README.md", *DOCS.rglob("*.md"),
             *(ROOT / "envs").glob("*_v1.py")]
    bad = [f"{p.relative_to(ROOT)}: {m.group(0).strip()}" for p in pages
           for text in (p.read_text(),)
           for m in [*OLD_IMPORTS.finditer(text),
                     *OLD_RUNS.finditer(re.sub(r"\s*\n\s*", " ", text))]]
    assert not bad, bad


def _figures(data, key=None):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _figures(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from _figures(v, key)
    elif isinstance(data, (int, float)) and key in FIGURE_KEYS:
        yield data


def test_the_plotted_figures_are_those_of_the_pages():
    # the plots are drawn from docs/data; each figure there must be one the pages print
    for name, pages in PLOT_DATA.items():
        text = " ".join((DOCS / page).read_text() for page in pages)
        printed = {round(float(n.replace(",", "")), 6) for n in NUMBER.findall(text)}
        figures = list(_figures(json.loads((DOCS / "data" / name).read_text())))
        assert figures, name
        missing = sorted({f for f in figures if round(abs(f), 6) not in
                          {abs(p) for p in printed}})
        assert not missing, f"docs/data/{name}: {missing} are on none of {pages}"


def test_the_cli_reference_lists_every_subcommand_and_option():
    from climbrl.cli import build_parser

    hook = _load_module(DOCS / "hooks" / "cli_reference.py")
    page = hook.reference_markdown()
    assert hook.MARKER in (DOCS / hook.PAGE).read_text()
    for name, sub in hook._subcommands(build_parser()).items():
        assert f"## `climbrl {name}`" in page
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert f"`{flag}" in page, (name, flag)
    assert "&lt;game&gt;" in page  # help text is escaped, not read as HTML


def test_the_link_check_finds_missing_files_and_anchors(tmp_path):
    check_links = _load_module(DOCS / "check_links.py")
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<h1 id="top">x</h1><a href="a/">ok</a><a href="#top">ok</a>'
        '<a href="b/">missing page</a><a href="a/#nowhere">missing anchor</a>'
        '<a href="https://example.org/">external</a>')
    (tmp_path / "a" / "index.html").write_text('<a href="../index.html#top">ok</a>')
    broken, external = check_links.check(tmp_path)
    assert broken == ["index.html: b/: no such file in the site",
                      "index.html: a/#nowhere: no anchor #nowhere in a/index.html"]
    assert external == ["https://example.org/"]


def test_the_site_builds_strictly_and_its_links_resolve(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python",
                   "matplotlib"):
        pytest.importorskip(module, reason="the docs extra: pip install -e '.[docs]'")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                           "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    broken, _ = _load_module(DOCS / "check_links.py").check(site)
    assert not broken, broken
    for page in ("envs/daifugo_v1", "envs/president_v1", "envs/uecda_v1", "envs/doudizhu_v1"):
        html = (site / page / "index.html").read_text()
        assert "Version history" in html, page  # the module docstring is the page
    assert "<code>--deals DEALS</code>" in (site / "cli" / "index.html").read_text()
    for picture in ("tts-doudizhu", "tts-daifugo", "tts-president", "ladder-daifugo",
                    "ladder-president", "ladder-doudizhu", "speed-selfplay"):
        assert (site / "img" / f"{picture}.png").stat().st_size > 0, picture
