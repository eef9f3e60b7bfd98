"""The folder of a tournament: its settings, its games as they finish, and resuming.

``config.json`` holds the settings that decide the games (game, lineups, deals, rounds, seed,
rules, landlord mode), written before the first game. ``games.jsonl`` gets one line per game,
each deal's games in one write as the deal finishes (flushed, so a killed process loses only
the deals in progress). Opening the folder again with the same settings resumes: the finished
deals are read back and skipped; a deal cut short (a torn last line, a deal missing games) is
dropped and played again. Other settings are refused unless ``overwrite``. When the
tournament is complete, :meth:`ResultStore.finish` rewrites ``games.jsonl`` sorted by
(lineup, deal, rotation), so a resumed run leaves the same bytes as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
#: every file a tournament writes in its folder (``--overwrite`` removes only these)
OUTPUT_FILES = (CONFIG_FILE, GAMES_FILE, "summary.json", "results.csv", "ladder.png")
FORMAT = 1


def record_key(record: dict[str, Any]) -> tuple[int, int, int]:
    return record["lineup"], record["deal"], record["rotation"]


def _setting(settings: dict[str, Any], key: str) -> str:
    """One setting as the refusal names it: its JSON, or "not recorded" (a folder written by
    a climbrl that did not record it yet, such as the networks' fingerprints)."""
    return json.dumps(settings[key]) if key in settings else "not recorded"


def _differs(there: dict[str, Any], here: dict[str, Any], key: str) -> bool:
    """``key`` is set differently, a setting one side did not record included (even one the
    other recorded as null)."""
    return (key in there, there.get(key)) != (key in here, here.get(key))


class ResultStore:
    """The games of one tournament under ``folder``. ``settings``: plain values (JSON) that
    decide the games; ``games_per_deal[lineup]``: the games of one deal of each lineup."""

    def __init__(
        self,
        folder: str | os.PathLike,
        settings: dict[str, Any],
        games_per_deal: Sequence[int],
        overwrite: bool = False,
    ):
        self.folder = Path(folder)
        self.settings = _plain({"format": FORMAT, **settings})
        self.games_per_deal = list(games_per_deal)
        self.config_path = self.folder / CONFIG_FILE
        self.games_path = self.folder / GAMES_FILE
        if self.folder.exists() and not self.folder.is_dir():
            raise NotADirectoryError(f"--out {str(self.folder)!r} is a file, not a folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.config_path.exists() and not overwrite:
            self._check_settings()
        else:
            for name in OUTPUT_FILES:
                (self.folder / name).unlink(missing_ok=True)
            _write_atomic(self.config_path, json.dumps(self.settings, indent=2) + "\n")
        self._deals: dict[tuple[int, int], list[dict]] = self._read_games()
        self._file = open(self.games_path, "a")

    # -- reading back ---------------------------------------------------------------------------

    def _check_settings(self) -> None:
        try:
            stored = json.loads(self.config_path.read_text())
        except (OSError, ValueError) as err:
            raise ValueError(f"{self.config_path}: unreadable ({err}); use --overwrite to start "
                             "again") from None
        if stored != self.settings:
            keys = sorted(set(stored) | set(self.settings))
            diff = "; ".join(
                f"{k}: {_setting(stored, k)} there, {_setting(self.settings, k)} here"
                for k in keys if _differs(stored, self.settings, k)
            )
            raise ValueError(
                f"--out {str(self.folder)!r} holds a tournament with other settings ({diff}); "
                "give another --out, or --overwrite to start it again"
            )

    def _read_games(self) -> dict[tuple[int, int], list[dict]]:
        deals: dict[tuple[int, int], list[dict]] = {}
        if not self.games_path.exists():
            return deals
        torn = False
        with open(self.games_path) as f:
            for line in f:
                try:
                    record = json.loads(line)
                    key = (record["lineup"], record["deal"])
                except (ValueError, KeyError, TypeError):
                    torn = True  # a line cut short by a kill
                    continue
                deals.setdefault(key, []).append(record)
        whole = {
            key: sorted(recs, key=record_key)
            for key, recs in deals.items()
            if 0 <= key[0] < len(self.games_per_deal)
            and len({r["rotation"] for r in recs}) == len(recs) == self.games_per_deal[key[0]]
        }
        if torn or len(whole) != len(deals):
            self._rewrite(r for _key, recs in sorted(whole.items()) for r in recs)
        return whole

    # -- writing --------------------------------------------------------------------------------

    @property
    def finished(self) -> set[tuple[int, int]]:
        """The ``(lineup, deal)`` pairs whose games are all recorded."""
        return set(self._deals)

    def add(self, records: Sequence[dict]) -> None:
        """Record one deal's games (every rotation of one lineup's deal)."""
        if not records:
            return
        key = (records[0]["lineup"], records[0]["deal"])
        self._file.write("".join(_line(r) for r in records))
        self._file.flush()
        self._deals[key] = sorted(records, key=record_key)

    def records(self) -> list[dict]:
        """Every recorded game, sorted by (lineup, deal, rotation)."""
        return [r for _key, recs in sorted(self._deals.items()) for r in recs]

    def finish(self) -> Path:
        """Rewrite ``games.jsonl`` sorted (the tournament is complete); returns its path."""
        self.close()
        self._rewrite(self.records())
        return self.games_path

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def _rewrite(self, records: Iterable[dict]) -> None:
        _write_atomic(self.games_path, "".join(_line(r) for r in records))


def _line(record: dict) -> str:
    return json.dumps(record) + "\n"


def _plain(value: Any) -> Any:
    """``value`` as JSON gives it back (tuples as lists), for comparing with a stored copy."""
    return json.loads(json.dumps(value))


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
