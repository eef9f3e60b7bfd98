"""One player against a level on a fixed panel of tables: the strength targets of the trained
CPUs, table by table, on duplicate deals with 95% intervals.

    python -m climbrl.benchmarks.panel --game daifugo --player cpus/daifugo --against scripted-medium
        [--tables 4p 3p-off-r7 ...] [--deals 200] [--seed 21] [--workers 1] [--out DIR]

Each table is one ``climbrl eval`` of the player in one seat and the level in the others
(Dou Dizhu: DouZero's duel, ``--landlord fixed``), written under ``--out`` (default
``runs/panel/<game>-<player>-<against>``); the same command again reads the finished
tournaments back and resumes an interrupted one. The tables (``--tables``, default all of the
game's):

- Daifugo: ``4p`` and ``3p`` (the page's default rules, 3 rounds), ``4p-r5``, ``4p-r7``,
  ``3p-r5``, ``4p-illegal-finish``, ``4p-off`` (the six house rules that change play off, 3
  rounds) and ``3p-off-r7``;
- President: ``4p`` and ``6p`` (two decks), 3 rounds;
- Dou Dizhu: ``duel``.

The verdict of a table: ``above`` when the whole interval of the difference (Dou Dizhu: of each
side's WP minus 0.5) is above 0, ``below`` when under it, else ``level``. ``results.md`` holds
the table for the docs (docs/cpus.md).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from climbrl.training.errors import raise_on_sigterm

from .common import machine
from .time_to_strength import (LANDLORD, PEASANTS, BenchmarkError, Parser, Table, evaluate,
                               guarded, interval, say, share, write_json)

DEFAULT_OUT = Path("runs") / "panel"
DEFAULT_DEALS = 200
DEFAULT_SEED = 21
DEFAULT_WORKERS = 1
#: Daifugo's six house rules that change play, all off at the "off" tables
OFF = tuple(f"{rule}=false" for rule in ("revolution", "eight_cut", "spade_three_return", "lock",
                                          "fall_of_capital", "jack_back"))
#: game -> table name -> (players, rounds, rule overrides)
TABLES: dict[str, dict[str, tuple[int, int | None, tuple[str, ...]]]] = {
    "daifugo": {
        "4p": (4, 3, ()),
        "3p": (3, 3, ()),
        "4p-r5": (4, 5, ()),
        "4p-r7": (4, 7, ()),
        "3p-r5": (3, 5, ()),
        "4p-illegal-finish": (4, 3, ("illegal_finish=true",)),
        "4p-off": (4, 3, OFF),
        "3p-off-r7": (3, 7, OFF),
    },
    "president": {"4p": (4, 3, ()), "6p": (6, 3, ())},
    "doudizhu": {"duel": (3, None, ())},
}
#: Dou Dizhu's even WP, the mark of each side
EVEN_WP = 0.5
ABOVE, BELOW, LEVEL = "above", "below", "level"


def verdict(low: float, high: float, mark: float = 0.0) -> str:
    """``above`` when the interval ``[low, high]`` lies wholly over ``mark``, ``below`` when
    wholly under it, else ``level``."""
    return ABOVE if low > mark else BELOW if high < mark else LEVEL


def row_cells(game: str, result: dict) -> list[str]:
    """The result and verdict cells of one table's row."""
    if game == "doudizhu":
        sides = [(side, result[side]["WP"]) for side in (LANDLORD, PEASANTS)]
        return [", ".join(f"{side} {share(wp)}" for side, wp in sides),
                ", ".join(f"{side} {verdict(wp['low'], wp['high'], EVEN_WP)}"
                          for side, wp in sides)]
    diff = result["diff"]
    return [interval(diff), verdict(diff["low"], diff["high"])]


def flags(table: Table) -> str:
    """The table's own ``climbrl eval`` options (players, rounds, rules), for the report."""
    if table.game == "doudizhu":
        return "--landlord fixed"
    return " ".join([f"{table.players} players", f"--rounds {table.rounds}",
                     *(f"--rule {rule}" for rule in table.rules)])


def markdown(game: str, player: str, against: str, rows: list[dict]) -> str:
    what = ("WP, 95% interval; verdict against 0.5" if game == "doudizhu"
            else "points per round minus the level's, 95% interval")
    lines = [f"`{player}` against `{against}` ({what})", "",
             "| table | options | deals | result | verdict |", "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['table']} | {row['options']} | {row['deals']} | "
                     + " | ".join(row_cells(game, row["result"])) + " |")
    return "\n".join(lines) + "\n"


def build_parser() -> Parser:
    p = Parser(prog="python -m climbrl.benchmarks.panel", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, choices=sorted(TABLES))
    p.add_argument("--player", required=True, help="the player spec evaluated (a CPU path, "
                   "search:<cpu>, a scripted level...)")
    p.add_argument("--against", default="scripted-medium",
                   help="the player spec in every other seat (default scripted-medium)")
    p.add_argument("--tables", nargs="+", default=None, metavar="NAME",
                   help="the tables to play (default: all of the game's)")
    p.add_argument("--deals", type=int, default=DEFAULT_DEALS)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    p.add_argument("--out", default=None, help=f"default {DEFAULT_OUT}/<game>-<player>-<against>")
    return p


def slug(spec: str) -> str:
    """A folder-name form of a player spec: ``search:cpus/daifugo`` -> ``search-cpus-daifugo``."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", spec).strip("-.") or "player"


def check(args) -> list[str]:
    """The table names asked, validated."""
    menu = TABLES[args.game]
    names = args.tables or list(menu)
    unknown = [n for n in names if n not in menu]
    if unknown:
        raise BenchmarkError(f"unknown {args.game} table {unknown[0]!r}: the tables are "
                             f"{', '.join(menu)}")
    for name, value, least in (("deals", args.deals, 1), ("workers", args.workers, 1),
                               ("seed", args.seed, 0)):
        if value < least:
            raise BenchmarkError(f"--{name} must be {least} or more, got {value}")
    return list(dict.fromkeys(names))


def main(argv=None) -> int:
    return guarded("panel", _main, argv)


def _main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    names = check(args)
    out = Path(args.out or DEFAULT_OUT / f"{args.game}-{slug(args.player)}-{slug(args.against)}")
    say(f"panel: {args.player} against {args.against}, {args.game}, {len(names)} tables, "
        f"{args.deals} deals each, seed {args.seed}, in {out} ({machine()})")
    rows = []
    with raise_on_sigterm():
        for name in names:
            players, rounds, rules = TABLES[args.game][name]
            table = Table(args.game, players, rounds, rules, args.deals, args.seed, args.workers)
            where = out / f"{name}-d{args.deals}-s{args.seed}"
            result = evaluate(table, args.player, args.against, where, sys.executable,
                              out / "eval.log")
            row = {"table": name, "options": flags(table), "deals": args.deals,
                   "result": result}
            say(f"[{name}] {' | '.join(row_cells(args.game, result))}")
            rows.append(row)
    md = markdown(args.game, args.player, args.against, rows)
    say("\n" + md)
    write_json(out / "results.json", {"machine": machine(), "cpus": os.cpu_count(),
                                      "game": args.game, "player": args.player,
                                      "against": args.against, "seed": args.seed, "rows": rows})
    (out / "results.md").write_text(md)
    say(f"wrote {out / 'results.json'}, {out / 'results.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
