"""The rules reference (docs/rules.md) covers every switch and every Dou Dizhu kind, and no
file of the repository points outside it (the references name docs/rules.md)."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
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
