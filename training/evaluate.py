"""The evaluation harness: duplicate-deal tournaments between any players on any env.

A tournament plays one or more *lineups* (a player spec per seat) over the same ``deals``
deals. Deal ``i`` is drawn from ``(seed, i)`` and replayed through its deal code once per
distinct cyclic rotation of the lineup, so every player sits in every seat of every deal and
the luck of the cards cancels. Players are re-seeded from ``(seed, lineup, deal, rotation,
slot)`` before each game: results do not depend on the number of worker processes.

Figures (each with a 95% interval over deals, :mod:`climbrl.training.stats`), following how the game
is scored (its ``scoring``, :mod:`climbrl.envs.core.game`):

- places (Daifugo / President): mean points per round, the distribution of places,
  first-place share; for every two players of a lineup, the per-deal difference of their mean
  points;
- sides (one lone seat against the others; Dou Dizhu's landlord and peasants, the names
  coming from the game's ``sides``): WP (share of games won) and ADP (average points per
  game, counted once per side: the others' points, or the lone seat's divided by the number
  of others, halved at three seats; in the game's ``score_unit``) for each player on each
  side, as in the DouZero paper; for every two players, the games where one is the lone seat and the other
  holds every other seat: the first one's WP and the ADP difference (the duel mode,
  ``sides="fixed"``, plays exactly those games);
- a ladder: Elo ratings (Bradley-Terry over who placed higher at a table; sides: which side
  won) with bootstrap intervals, over every player of the tournament.

``pool`` mode plays, for every two players of a pool, the lineup that alternates them around
the table (``A B A B``), so the ladder and the pairwise figures cover the whole pool.

Deals that end with no game (Dou Dizhu: every bid passed) count for nobody.

Results: a terminal table (:func:`format_report`), ``summary.json``, ``results.csv`` and
``ladder.png`` (:func:`write_outputs`; the plot needs matplotlib, :func:`plot_available`).
With a :class:`climbrl.training.results.ResultStore` (:func:`open_store`), :func:`run` records every
deal's games in ``games.jsonl`` as it finishes and skips the deals already there: an
interrupted tournament resumes where it stopped, with the same figures.

Worker processes end with the tournament, however it ends (:mod:`climbrl.training.children`), and a
player's failure is one :class:`PlayerError` naming the player.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import importlib
import importlib.util
import itertools
import json
import math
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from climbrl import envs
from climbrl.envs.core.aec import turns
from climbrl.envs.core.game import PLACES, SIDES

from . import stats
from .errors import RunError, one_line

DEFAULT_TABLE = {name: entry.default_players for name, entry in envs.GAMES.items()}
"""the table size of each registered game's tournaments (``climbrl.envs.GAMES``)"""
DEFAULT_WORKERS = 2
DEFAULT_DEALS = 100
#: ``rounds=None``: the game's ``match_rounds`` (UECda: 5), else the env's own number of rounds
DEFAULT_ROUNDS = None
DEFAULT_OUT_DIR = "runs/eval"
#: characters of the default folder name taken from the players' names
OUT_SLUG_CHARS = 40
OUT_HASH_CHARS = 8
#: the progress line's period when the output is not a terminal (a log file)
LOG_PROGRESS_SECONDS = 60.0
#: with ``map_chunks`` (Ray), each worker's share of the deals goes out in this many tasks
CHUNKS_PER_WORKER = 8
STREAM_DEALS = 0
STREAM_PLAYERS = 1
STREAM_LADDER = 2
SIDE_MODES = ("bid", "fixed")
"""how a sides game seats its sides: as it plays (Dou Dizhu: the bidding), or ``fixed``"""


def game_class(game: str) -> type:
    """The engine class of a registered game (its scoring, sides, score unit)."""
    return envs.game_entry(game).game_class


def scoring(game: str) -> str:
    return getattr(game_class(game), "scoring", PLACES)


@dataclass(frozen=True)
class EvalConfig:
    """One tournament. ``lineups``: a tuple of player specs per seat, per lineup."""

    game: str
    lineups: tuple[tuple[str, ...], ...]
    deals: int = DEFAULT_DEALS
    rounds: int | None = DEFAULT_ROUNDS
    """rounds per match (games scored by places); ``None``: the game's ``match_rounds``, else
    the env's own"""
    seed: int = 0
    workers: int = DEFAULT_WORKERS
    rules: tuple[tuple[str, Any], ...] = ()
    """house-rule switches for the env, as ``(name, value)`` pairs"""
    progress: bool = True
    sides: str = "bid"
    """games of sides: ``"bid"`` (the game decides as it plays, Dou Dizhu by its bidding;
    lineups rotate over the seats) or ``"fixed"`` (DouZero's duel: seat 0 of the lineup is
    the lone side, on the deal's ``duel_options``: Dou Dizhu's landlord with the first
    bidder's cards and the kitty, bid 1; a lineup ``A B B`` is also played as ``B A A``)"""
    weights: tuple[tuple[str, str], ...] = ()
    """``(player spec, digest of its trained weights)`` for each trained player (:func:`check`
    fills it): part of the tournament's identity, so a CPU exported again to the same path is
    played afresh instead of being resumed from the old one's games"""

    def __post_init__(self) -> None:
        entry = envs.game_entry(self.game)
        if not self.lineups:
            raise ValueError("a tournament needs at least one lineup")
        sizes = {len(lineup) for lineup in self.lineups}
        if len(sizes) != 1:
            raise ValueError(f"lineups must all have one table size, got sizes {sorted(sizes)}")
        if not sizes <= set(entry.table_sizes):
            raise ValueError(f"{entry.title} seats {entry.seats_text()} players, got lineups of "
                             f"{sizes.pop()}")
        if self.deals < 1:
            raise ValueError(f"deals must be at least 1, got {self.deals}")
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.sides not in SIDE_MODES:
            raise ValueError(f"sides must be one of {SIDE_MODES}, got {self.sides!r}")
        if self.sides == "fixed" and scoring(self.game) != SIDES:
            raise ValueError(f"sides='fixed' is a mode of games of sides; {entry.title} is "
                             "scored by places")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {self.rounds}")

    @property
    def table_size(self) -> int:
        return len(self.lineups[0])

    @property
    def labels(self) -> list[str]:
        """Every distinct player spec, in order of first appearance."""
        return list(dict.fromkeys(spec for lineup in self.lineups for spec in lineup))


def pool_lineups(
    pool: Sequence[str], table_size: int, sides: str = "bid"
) -> tuple[tuple[str, ...], ...]:
    """For every two players of ``pool``, the lineup that alternates them (``A B A B``); in
    the duel of sides (``sides="fixed"``) ``A B B``, which is played as ``B A A`` too."""
    pool = list(dict.fromkeys(pool))
    if len(pool) < 2:
        raise ValueError(f"a pool needs at least two distinct players, got {pool}")
    if sides == "fixed":
        return tuple((a,) + (b,) * (table_size - 1) for a, b in itertools.combinations(pool, 2))
    return tuple(
        tuple(a if seat % 2 == 0 else b for seat in range(table_size))
        for a, b in itertools.combinations(pool, 2)
    )


def make_env(game: str, table_size: int, rounds: int | None, rules: dict[str, Any]):
    """The env of ``game`` for a tournament (``table_size`` players); ``rounds=None``: the
    game's ``match_rounds`` (``climbrl.envs.GAMES``) unless ``rules`` name them, else the env's."""
    entry = envs.game_entry(game)
    module = importlib.import_module(entry.env_module)
    kwargs = dict(rules)
    kwargs["players"] = table_size
    if scoring(game) == PLACES:
        if rounds is None and "rounds" not in kwargs:
            rounds = entry.match_rounds
        if rounds is not None:
            kwargs["rounds"] = rounds
    return module.env(**kwargs)


def deal_codes(game_obj, seed: int, deals: Sequence[int]) -> list[str]:
    """The deal code of each deal index, drawn from ``(seed, index)``."""
    return [
        game_obj.new_state(np.random.default_rng([seed, STREAM_DEALS, i])).deal_code for i in deals
    ]


def arrangements(lineup: Sequence[str], sides: str = "bid") -> list[tuple[int, ...]]:
    """The seatings of a lineup, each as ``slot_of_seat``: the distinct rotations, or in the
    duel of sides the lineup as given plus, for ``A B B``, the swap ``B A A``."""
    if sides != "fixed":
        return rotations(lineup)
    out = [tuple(range(len(lineup)))]
    if len(set(lineup[1:])) == 1 and lineup[0] != lineup[1]:
        out.append((1,) + (0,) * (len(lineup) - 1))
    return out


def rotations(lineup: Sequence[str]) -> list[tuple[int, ...]]:
    """Distinct cyclic rotations as ``slot_of_seat`` tuples: at rotation ``r`` seat ``s`` is
    played by slot ``(s - r) % n``; rotations that seat the same specs again are dropped."""
    n = len(lineup)
    out, seen = [], set()
    for r in range(n):
        slots = tuple((s - r) % n for s in range(n))
        specs = tuple(lineup[i] for i in slots)
        if specs not in seen:
            seen.add(specs)
            out.append(slots)
    return out


# -- playing ---------------------------------------------------------------------------------


def duel_options(game_obj, code: str) -> dict[str, Any]:
    """Reset options that seat the deal ``code``'s lone side at seat 0 (the game's
    ``duel_options``; Dou Dizhu: the first bidder as landlord, bid 1, the kitty in its hand,
    and the next seats after it at seats 1 and 2)."""
    return game_obj.duel_options(code)


class PlayerError(RunError):
    """A player failed during a game (an exception in its move, or an illegal action); the
    message names the player and its seat."""


def play_game(env, players: Sequence, code: str, options: dict | None = None) -> dict[str, Any]:
    """Play one match of the deal ``code`` (or of reset ``options``) with ``players[seat]``;
    the outcome as plain values (scored by places: the places of each round; by sides: the
    lone seat, under the name of its side, and the returns). A player's failure is a
    :class:`PlayerError` naming it."""
    env.reset(seed=0, options=options or {"deal": code})
    raw = env.unwrapped
    game = raw.game
    for seat, player in enumerate(players):
        try:
            player.bind(game)
        except Exception as err:
            raise _blame(player, seat, err) from err
    climbing = getattr(game, "scoring", PLACES) == PLACES
    places: list[list[int]] = []
    for _agent, obs, seat in turns(env):
        view = raw.view(seat)
        try:
            action = int(players[seat].act(obs, view))
        except Exception as err:
            raise _blame(players[seat], seat, err) from err
        if not 0 <= action < len(obs["action_mask"]) or not obs["action_mask"][action]:
            raise PlayerError(
                f"player {players[seat].name!r} at seat {seat} chose the illegal action {action}"
            )
        round_before = game.round_of(raw.game_state) if climbing else 0
        env.step(action)
        if climbing and (game.round_of(raw.game_state) != round_before):
            places.append(game.places_of(raw.game_state))
    state = raw.game_state
    if climbing:
        return {"places": places}
    return {game.sides[0]: game.lead_seat(state), "returns": [float(x) for x in state.returns()]}


def _blame(player, seat: int, err: Exception) -> PlayerError:
    return PlayerError(f"player {player.name!r} at seat {seat}: {one_line(err)}")


class _Table:
    """One lineup's env and players, reused deal after deal (players are re-seeded before
    every game, so which deals a table plays does not change any game)."""

    def __init__(self, config: EvalConfig, lineup_index: int):
        from climbrl import policies

        self.config = config
        self.lineup_index = lineup_index
        self.lineup = lineup = config.lineups[lineup_index]
        self.env = make_env(config.game, config.table_size, config.rounds, dict(config.rules))
        self.env.reset(seed=config.seed)
        self.seatings = arrangements(lineup, config.sides)
        # one player per (seat, slot) in use, so no two seats share a random stream
        self.players = {}
        for slots in self.seatings:
            for seat, slot in enumerate(slots):
                try:
                    self.players[seat, slot] = policies.load(config.game, lineup[slot])
                except Exception as err:
                    raise PlayerError(f"player {lineup[slot]!r}: {one_line(err)}") from err

    def play_deal(self, deal: int) -> list[dict]:
        """Every seating of the deal ``deal``: one record per game."""
        config, lineup = self.config, self.lineup
        game = self.env.unwrapped.game
        (code,) = deal_codes(game, config.seed, [deal])
        options = duel_options(game, code) if config.sides == "fixed" else None
        records = []
        for rot, slots in enumerate(self.seatings):
            seated = []
            for seat, slot in enumerate(slots):
                player = self.players[seat, slot]
                player.seed(
                    np.random.SeedSequence(
                        [config.seed, STREAM_PLAYERS, self.lineup_index, deal, rot, seat, slot]
                    )
                )
                seated.append(player)
            outcome = play_game(self.env, seated, code, options)
            records.append(
                {
                    "lineup": self.lineup_index,
                    "deal": deal,
                    "rotation": rot,
                    "code": code,
                    "seats": [lineup[slot] for slot in slots],
                    **outcome,
                }
            )
        return records


def games_per_deal(config: EvalConfig) -> list[int]:
    """The games one deal of each lineup plays (its distinct seatings)."""
    return [len(arrangements(lineup, config.sides)) for lineup in config.lineups]


def check(config: EvalConfig) -> EvalConfig:
    """Before any game: the env accepts the rules and every player loads and accepts the env
    (a ``ValueError`` naming the player, e.g. a network trained with other rules). Returns
    ``config`` with the ``weights`` of its trained players."""
    from climbrl import policies

    env = make_env(config.game, config.table_size, config.rounds, dict(config.rules))
    env.reset(seed=config.seed)
    weights = []
    for spec in config.labels:
        try:
            player = policies.load(config.game, spec).bind(env.unwrapped.game)
        except (ValueError, TypeError, KeyError, OSError) as err:
            raise ValueError(f"player {spec!r}: {one_line(err)}") from err
        if player.fingerprint is not None:
            weights.append((spec, player.fingerprint))
    return replace(config, weights=tuple(weights))


def run(config: EvalConfig, store=None, map_chunks: Callable | None = None) -> list[dict]:
    """Play the tournament; returns every game's record (sorted by lineup, deal, rotation).
    With ``store`` (:func:`open_store`), the deals it holds are not played again and each
    deal's games go to it as the deal finishes. ``map_chunks(play, tasks)`` spreads chunks
    of deals elsewhere (default: ``config.workers`` local processes); it yields ``(task,
    play(*task))`` as each one finishes, in any order
    (:func:`climbrl.training.ray_backend.map_chunks`: over a Ray cluster)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    done = store.finished if store is not None else set()
    todo = [
        (li, deal)
        for li in range(len(config.lineups))
        for deal in range(config.deals)
        if (li, deal) not in done
    ]
    total = config.deals * len(config.lineups)
    records: list[dict] = store.records() if store is not None else []
    bar = _progress(total, total - len(todo), config.progress, f"{config.game} deals")
    try:
        with contextlib.closing(_play_deals(config, todo, map_chunks)) as finished:
            for deal_records in finished:
                if store is not None:
                    store.add(deal_records)
                records += deal_records
                bar.update(1)
    finally:
        bar.close()
    records.sort(key=lambda r: (r["lineup"], r["deal"], r["rotation"]))
    return records


def _play_deals(config: EvalConfig, todo: list[tuple[int, int]],
                map_chunks: Callable | None = None) -> Iterator[list[dict]]:
    """The records of each deal of ``todo``, as they finish (in worker processes when
    ``config.workers > 1``; they end when this generator closes or this process dies; with
    ``map_chunks``, chunks of one lineup's deals wherever it runs them)."""
    if map_chunks is not None:
        per_chunk = max(1, math.ceil(len(todo) / (config.workers * CHUNKS_PER_WORKER)))
        by_lineup: dict[int, list[int]] = {}
        for li, deal in todo:
            by_lineup.setdefault(li, []).append(deal)
        chunks = [(li, deals[i:i + per_chunk]) for li, deals in by_lineup.items()
                  for i in range(0, len(deals), per_chunk)]
        for _task, chunk in map_chunks(functools.partial(_play_chunk, config), chunks):
            yield from chunk
        return
    workers = min(config.workers, len(todo))
    if workers <= 1:
        tables: dict[int, _Table] = {}
        for li, deal in todo:
            if li not in tables:
                tables[li] = _Table(config, li)
            yield tables[li].play_deal(deal)
        return
    pool = multiprocessing.get_context().Pool(
        workers, initializer=_worker_init, initargs=(config, os.getpid())
    )
    try:
        yield from pool.imap_unordered(_worker_deal, todo)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _play_chunk(config: EvalConfig, li: int, deals: list[int]) -> list[list[dict]]:
    """The records of each of ``deals`` of lineup ``li``, at one table (a Ray task)."""
    table = _Table(config, li)
    return [table.play_deal(deal) for deal in deals]


#: a worker process's state: the tournament and its tables (one per lineup), built lazily
_WORKER: dict[str, Any] = {}


def _worker_init(config: EvalConfig, parent_pid: int) -> None:
    from .children import exit_with_parent

    exit_with_parent(parent_pid)
    # Ctrl-C reaches the whole process group: the parent stops the workers itself, with
    # SIGTERM, which ends a worker at once (not through a handler copied from the parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.environ["OMP_NUM_THREADS"] = "1"
    _WORKER["config"] = config
    _WORKER["tables"] = {}


def _worker_deal(task: tuple[int, int]) -> list[dict]:
    li, deal = task
    tables = _WORKER["tables"]
    if li not in tables:
        tables[li] = _Table(_WORKER["config"], li)
    return tables[li].play_deal(deal)


class _LineProgress:
    """Progress as a plain line every :data:`LOG_PROGRESS_SECONDS` (for logs: no bar)."""

    def __init__(self, total: int, done: int, desc: str, stream=None):
        self.total, self.done, self.desc = total, done, desc
        self.stream = stream or sys.stderr
        self.start = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= LOG_PROGRESS_SECONDS:
            self.last = now
            self._write(now)

    def _write(self, now: float) -> None:
        share = self.done / self.total if self.total else 1.0
        print(f"{self.desc}: {self.done}/{self.total} ({share:.0%}), {now - self.start:.0f} s",
              file=self.stream, flush=True)

    def close(self) -> None:
        if self.done and time.monotonic() - self.start >= LOG_PROGRESS_SECONDS:
            self._write(time.monotonic())


class _NoProgress:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, done: int, enabled: bool, desc: str):
    """A tqdm bar on a terminal; on a log (stderr not a terminal), or without tqdm, a line
    every :data:`LOG_PROGRESS_SECONDS`; nothing when not ``enabled``."""
    if not enabled:
        return _NoProgress()
    tty = getattr(sys.stderr, "isatty", lambda: False)()
    if tty and importlib.util.find_spec("tqdm") is not None:
        from tqdm import tqdm

        return tqdm(total=total, initial=done, desc=desc, unit="deal")
    return _LineProgress(total, done, desc)


# -- the output folder -----------------------------------------------------------------------


def settings(config: EvalConfig) -> dict[str, Any]:
    """What decides the games of ``config`` (not the workers or the progress bar), with the
    number of rounds resolved: the tournament's identity in its output folder."""
    out = _config_dict(config)
    del out["workers"], out["progress"]
    out["rounds"] = resolved_rounds(config)
    return out


def resolved_rounds(config: EvalConfig) -> int | None:
    """Rounds per match (``None`` for games not scored by places): ``config.rounds``, the
    game's ``match_rounds`` or the env's default."""
    if scoring(config.game) != PLACES:
        return None
    if config.rounds is not None:
        return config.rounds
    env = make_env(config.game, config.table_size, None, dict(config.rules))
    return env.unwrapped.game.rounds


def default_out(config: EvalConfig) -> Path:
    """``runs/eval/<game>-<players>-<hash of the settings>``: the same command gives the same
    folder, so running it again resumes."""
    text = json.dumps(settings(config), sort_keys=True)
    digest = hashlib.sha1(text.encode()).hexdigest()[:OUT_HASH_CHARS]
    names = "-".join(re.sub(r"[^A-Za-z0-9.=]+", "_", label).strip("_.") for label in config.labels)
    return Path(DEFAULT_OUT_DIR) / f"{config.game}-{names[:OUT_SLUG_CHARS]}-{digest}"


def open_store(config: EvalConfig, out: str | os.PathLike, overwrite: bool = False):
    """The :class:`climbrl.training.results.ResultStore` of ``config`` under ``out``: created, or
    resumed when it holds the same tournament; ``ValueError`` when it holds another one
    (unless ``overwrite``), ``OSError`` when ``out`` cannot be written."""
    from .results import ResultStore

    return ResultStore(out, settings(config), games_per_deal(config), overwrite=overwrite)


# -- figures ---------------------------------------------------------------------------------


@dataclass
class Report:
    """Everything a tournament measured; ``to_dict`` for JSON."""

    config: dict[str, Any]
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    ladder: list[dict[str, Any]] = field(default_factory=list)
    games: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ci(values, bounds: tuple[float, float] | None = None) -> dict[str, float]:
    mean, low, high = stats.mean_ci(values, bounds=bounds)
    return {"mean": mean, "low": low, "high": high}


def summarize(config: EvalConfig, records: list[dict], points: Sequence[float] | None = None) -> Report:
    """The figures of a tournament (module docstring). ``points``: points per place of the
    games scored by places (the env's ``place_points`` when omitted)."""
    report = Report(config={**_config_dict(config), "rounds": resolved_rounds(config)},
                    games=len(records))
    labels = config.labels
    if scoring(config.game) == PLACES:
        if points is None:
            env = make_env(config.game, config.table_size, config.rounds, dict(config.rules))
            points = env.unwrapped.game.place_points
        _climbing_figures(report, config, records, list(points), labels)
    else:
        _sides_figures(report, config, records, labels, game_class(config.game).sides)
    return report


def _by_deal(records: list[dict], lineup: int | None = None) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for rec in records:
        if lineup is None or rec["lineup"] == lineup:
            out.setdefault(rec["deal"], []).append(rec)
    return out


def _climbing_figures(report, config, records, points, labels) -> None:
    n = config.table_size
    deals = _by_deal(records)
    per_deal_points = {label: [] for label in labels}
    per_deal_places = {label: [] for label in labels}
    index = {label: i for i, label in enumerate(labels)}
    wins = np.zeros((len(deals), len(labels), len(labels)))
    for d, (deal, recs) in enumerate(sorted(deals.items())):
        pts = {label: [] for label in labels}
        hist = {label: np.zeros(n) for label in labels}
        for rec in recs:
            for places in rec["places"]:
                for seat, label in enumerate(rec["seats"]):
                    pts[label].append(points[places[seat]])
                    hist[label][places[seat]] += 1
                for a, b in itertools.combinations(range(n), 2):
                    la, lb = rec["seats"][a], rec["seats"][b]
                    if la != lb:
                        win, lose = (la, lb) if places[a] < places[b] else (lb, la)
                        wins[d, index[win], index[lose]] += 1
        for label in labels:
            if pts[label]:
                per_deal_points[label].append(float(np.mean(pts[label])))
                per_deal_places[label].append(hist[label] / hist[label].sum())
    for label in labels:
        if not per_deal_points[label]:
            continue
        places = np.array(per_deal_places[label])
        report.players[label] = {
            "points_per_round": _ci(per_deal_points[label]),
            "places": [_ci(places[:, p], stats.SHARE) for p in range(n)],
            "first_place_share": _ci(places[:, 0], stats.SHARE),
            "deals": len(per_deal_points[label]),
        }
    for li, lineup in enumerate(config.lineups):
        present = list(dict.fromkeys(lineup))
        lineup_deals = _by_deal(records, li)
        for a, b in itertools.combinations(present, 2):
            diffs = []
            for recs in lineup_deals.values():
                pa = [points[pl[s]] for r in recs for pl in r["places"] for s in range(n) if r["seats"][s] == a]
                pb = [points[pl[s]] for r in recs for pl in r["places"] for s in range(n) if r["seats"][s] == b]
                diffs.append(float(np.mean(pa) - np.mean(pb)))
            report.pairs.append(_pair(li, a, b, "points_per_round", diffs))
    _ladder(report, config, labels, wins)


def _pair(lineup: int, a: str, b: str, metric: str, diffs: list[float]) -> dict[str, Any]:
    ci = _ci(diffs)
    if ci["low"] > 0:
        verdict = f"{a} > {b}"
    elif ci["high"] < 0:
        verdict = f"{b} > {a}"
    else:
        verdict = "no significant difference"
    return {"lineup": lineup, "a": a, "b": b, "metric": f"{metric} difference (a - b)", **ci, "verdict": verdict, "deals": len(diffs)}


def _ladder(report, config, labels, wins) -> None:
    if len(labels) < 2 or wins.shape[0] == 0:
        return
    rng = np.random.default_rng([config.seed, STREAM_LADDER])
    rating, low, high = stats.ladder(wins, rng)
    order = np.argsort(-rating)
    report.ladder = [
        {"player": labels[i], "elo": float(rating[i]), "low": float(low[i]), "high": float(high[i])}
        for i in order
    ]


def _sides_figures(report, config, records, labels, sides) -> None:
    lead, rest = sides
    index = {label: i for i, label in enumerate(labels)}
    keys = [(label, side) for label in labels for side in sides]
    wp: dict = {key: [] for key in keys}
    adp: dict = {key: [] for key in keys}
    duels = {pair: ([], []) for pair in itertools.combinations(labels, 2)}
    # per pair, the first one's wins as the lone seat and as the others (games, not deals)
    by_role = {pair: {lead: [], rest: []} for pair in duels}
    deals = _by_deal(records)
    wins = np.zeros((len(deals), len(labels), len(labels)))
    for d, (_deal, recs) in enumerate(sorted(deals.items())):
        won = {key: [] for key in keys}
        pts = {key: [] for key in keys}
        duel = {pair: ([], []) for pair in duels}
        for rec in recs:
            lone = rec[lead]
            if lone is None:
                continue  # no game (Dou Dizhu: every bid passed)
            # points per side: the others' points, or the lone seat's shared out over them
            # (halved at three seats: DouZero's ADP)
            rest_seats = len(rec["returns"]) - 1
            lone_points = rec["returns"][lone] / rest_seats
            lone_won = lone_points > 0
            boss = rec["seats"][lone]
            others = {label for seat, label in enumerate(rec["seats"]) if seat != lone}
            for label, side in [(boss, lead)] + [(p, rest) for p in others]:
                mine = lone_won == (side == lead)
                won[label, side].append(float(mine))
                pts[label, side].append(lone_points if side == lead else -lone_points)
            for label in others - {boss}:
                a, b = (boss, label) if lone_won else (label, boss)
                wins[d, index[a], index[b]] += 1
            if len(others) == 1 and boss not in others:
                (other,) = others
                for pair in duel:
                    if set(pair) == {boss, other}:
                        sign = 1 if pair[0] == boss else -1
                        duel[pair][0].append(float(lone_won == (sign > 0)))
                        duel[pair][1].append(sign * rest_seats * lone_points)
                        role = lead if sign > 0 else rest
                        by_role[pair][role].append(float(lone_won == (sign > 0)))
        for key in keys:
            if won[key]:
                wp[key].append(float(np.mean(won[key])))
                adp[key].append(float(np.mean(pts[key])))
        for pair, (w, x) in duel.items():
            if w:
                duels[pair][0].append(float(np.mean(w)))
                duels[pair][1].append(float(np.mean(x)))
    for label in labels:
        entry = {}
        for side in sides:
            if wp[label, side]:
                entry[side] = {
                    "WP": _ci(wp[label, side], stats.SHARE),
                    "ADP": _ci(adp[label, side]),
                    "deals": len(wp[label, side]),
                }
        report.players[label] = entry
    for (a, b), (w, x) in duels.items():
        if len(w) > 1:
            share = _ci(w, stats.SHARE)
            pair = _pair(-1, a, b, "ADP", x)
            pair["WP_a"] = share
            for role, games in by_role[a, b].items():
                if games:
                    pair[f"WP_a_as_{role}"] = float(np.mean(games))
            if share["low"] > 0.5:
                pair["verdict"] = f"{a} > {b}"
            elif share["high"] < 0.5:
                pair["verdict"] = f"{b} > {a}"
            else:
                pair["verdict"] = "no significant difference"
            report.pairs.append(pair)
    _ladder(report, config, labels, wins)


def _config_dict(config: EvalConfig) -> dict[str, Any]:
    out = asdict(config)
    out["lineups"] = [list(x) for x in config.lineups]
    out["rules"] = dict(config.rules)
    if config.weights:
        out["weights"] = dict(config.weights)
    else:  # scripted players only: the identity their tournaments always had
        del out["weights"]
    return out


# -- output ----------------------------------------------------------------------------------


NAME_WIDTH, PAIR_NAME_WIDTH = 34, 26
"""the least width of the player column and of each name column of the pairs' table"""
NAME_GAP = 2
"""spaces at least between a name and the next column"""


def _fmt(ci: dict[str, float], digits: int = 3) -> str:
    if math.isnan(ci["low"]):
        return f"{ci['mean']:.{digits}f}"
    half = (ci["high"] - ci["low"]) / 2
    return f"{ci['mean']:.{digits}f} ± {half:.{digits}f}"


def format_report(report: Report) -> str:
    """The report as terminal tables (means with 95% half-widths)."""
    cfg = report.config
    climbing = scoring(cfg["game"]) == PLACES
    # a name column fits the longest name (a checkpoint's path), so columns never run together
    names = list(report.players) + [row["player"] for row in report.ladder]
    longest = max(map(len, names), default=0) + NAME_GAP
    wide, pair_wide = max(NAME_WIDTH, longest), max(PAIR_NAME_WIDTH, longest)
    lines = [
        f"{cfg['game']}: {cfg['deals']} duplicate deals, {report.games} games, seed {cfg['seed']}"
        + (f", {cfg['rounds']} round(s) per match" if climbing else "")
    ]
    if climbing:
        n = len(cfg["lineups"][0])
        head = f"{'player':<{wide}}{'points/round':>18}{'1st share':>16}  places 1..{n}"
        lines += ["", head, "-" * len(head)]
        for label, p in report.players.items():
            places = " ".join(f"{x['mean']:.2f}" for x in p["places"])
            lines.append(
                f"{label:<{wide}}{_fmt(p['points_per_round']):>18}{_fmt(p['first_place_share']):>16}  {places}"
            )
    else:
        head = f"{'player':<{wide}}{'side':<10}{'WP':>16}{'ADP':>18}"
        lines += ["", head, "-" * len(head)]
        for label, sides in report.players.items():
            for side, p in sides.items():
                lines.append(f"{label:<{wide}}{side:<10}{_fmt(p['WP']):>16}{_fmt(p['ADP'], 2):>18}")
    if report.pairs:
        duel = not climbing
        head = f"{'a':<{pair_wide}}{'b':<{pair_wide}}{'a - b':>18}" + (f"{'WP of a':>16}" if duel else "")
        head += "  verdict (95%)"
        lines += ["", head, "-" * len(head)]
        for pr in report.pairs:
            wp = f"{_fmt(pr['WP_a']):>16}" if duel else ""
            lines.append(f"{pr['a']:<{pair_wide}}{pr['b']:<{pair_wide}}{_fmt(pr, 3):>18}{wp}  {pr['verdict']}")
        if duel:
            game = game_class(cfg["game"])
            lead, rest = game.sides
            unit = f", in {game.score_unit}" if game.score_unit else ""
            every = "both" if len(cfg["lineups"][0]) == 3 else "all the"
            lines.append(f"(games where one of them is the {lead} and the other {every} {rest}; "
                         f"a - b: points per game{unit})")
            for pr in report.pairs:
                roles = ", ".join(
                    f"as {role} {pr[f'WP_a_as_{role}']:.3f}"
                    for role in game.sides
                    if f"WP_a_as_{role}" in pr
                )
                lines.append(f"  WP of {pr['a']} against {pr['b']}: {roles}")
    if report.ladder:
        head = f"{'rank':<6}{'player':<{wide}}{'Elo':>8}  95% interval"
        lines += ["", head, "-" * len(head)]
        for i, row in enumerate(report.ladder, 1):
            lines.append(f"{i:<6}{row['player']:<{wide}}{row['elo']:>8.0f}  [{row['low']:.0f}, {row['high']:.0f}]")
    return "\n".join(lines)


def plot_available() -> bool:
    """matplotlib can be imported (``pip install 'climbrl[eval]'``): the ladder plot."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def write_outputs(report: Report, out_dir: str | os.PathLike) -> dict[str, Path]:
    """Write ``summary.json``, ``results.csv`` and, when matplotlib is there
    (:func:`plot_available`), ``ladder.png`` under ``out_dir``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "summary.json", "csv": out / "results.csv"}
    paths["json"].write_text(json.dumps(report.to_dict(), indent=2, default=_json_default) + "\n")
    with open(paths["csv"], "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["section", "player", "other", "metric", "mean", "low", "high"])
        for row in _csv_rows(report):
            writer.writerow(row)
    if plot_available():
        paths["png"] = out / "ladder.png"
        plot_ladder(report, paths["png"])
    return paths


def _csv_rows(report: Report):
    climbing = scoring(report.config["game"]) == PLACES
    for label, p in report.players.items():
        if climbing:
            yield ("player", label, "", "points_per_round", *_triple(p["points_per_round"]))
            yield ("player", label, "", "first_place_share", *_triple(p["first_place_share"]))
            for place, ci in enumerate(p["places"], 1):
                yield ("player", label, "", f"place_{place}_share", *_triple(ci))
        else:
            for side, s in p.items():
                yield ("player", label, side, "WP", *_triple(s["WP"]))
                yield ("player", label, side, "ADP", *_triple(s["ADP"]))
    for pr in report.pairs:
        yield ("pair", pr["a"], pr["b"], pr["metric"], *_triple(pr))
        if "WP_a" in pr:
            yield ("pair", pr["a"], pr["b"], "WP of a", *_triple(pr["WP_a"]))
            for role in game_class(report.config["game"]).sides:
                if f"WP_a_as_{role}" in pr:
                    yield ("pair", pr["a"], pr["b"], f"WP of a as {role}", pr[f"WP_a_as_{role}"], "", "")
    for row in report.ladder:
        yield ("ladder", row["player"], "", "elo", row["elo"], row["low"], row["high"])


def _triple(ci: dict[str, float]) -> tuple[float, float, float]:
    return ci["mean"], ci["low"], ci["high"]


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


PLOT_WIDTH_INCHES = 6.0
"""the ladder plot's width without the names; each character of the longest adds:"""
PLOT_INCHES_PER_CHAR = 0.08


def plot_ladder(report: Report, path: str | os.PathLike) -> None:
    """A PNG of the ladder: each player's Elo with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(report.ladder))
    # the names sit left of the axes: the figure widens with the longest (a checkpoint's path)
    longest = max((len(r["player"]) for r in rows), default=0)
    width = PLOT_WIDTH_INCHES + PLOT_INCHES_PER_CHAR * longest
    fig, ax = plt.subplots(figsize=(width, 1.2 + 0.5 * max(1, len(rows))))
    if rows:
        y = np.arange(len(rows))
        elo = np.array([r["elo"] for r in rows])
        err = np.array([[r["elo"] - r["low"] for r in rows], [r["high"] - r["elo"] for r in rows]])
        ax.errorbar(elo, y, xerr=np.maximum(err, 0), fmt="o", capsize=4)
        ax.set_yticks(y, [r["player"] for r in rows])
    ax.set_xlabel("Elo (Bradley-Terry, 95% bootstrap interval)")
    ax.set_title(f"{report.config['game']}: {report.config['deals']} duplicate deals")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
