"""The tables a training run plays: one network for every table of its game.

The setting ``tables`` (the games whose engine ``draws_tables``: Daifugo / President) is a
distribution over tables, one key per thing drawn: ``players`` or any rule of the game's
``rule_fields()`` (Daifugo: ``rounds``, ``lock``, ``jokers``...). Every episode an actor draws a table from it, each key on its own::

    tables:
      players: [3, 4]              # a list: each value equally likely
      rounds: {3: 2, 5: 1, 7: 1}   # a mapping: value -> weight
      lock: 0.5                    # an on/off rule: the chance that it is on
      illegal_finish: 0.25
      eight_cut: true              # a fixed value (the same as writing it in rules)

A key that is not drawn takes its value from ``players`` / ``rules`` (the run's base table),
else the preset's default.

Keys drawn each on its own rarely meet in a corner (six switches each on at 0.6 are all off
in one table of 250); a list of such mappings is a mixture, each with a ``weight`` (default 1,
relative): an episode draws one of them, then its keys (a key it does not draw takes the base
value)::

    tables:
      - {players: [3, 4], rounds: [3, 5, 7], lock: 0.6, eight_cut: 0.6}
      - {weight: 0.25, players: [3, 4], rounds: [3, 5, 7], lock: false, eight_cut: false}

Every table the distribution can draw is checked before any work
(rounds apart, they are enumerated, at most :data:`MAX_COMBINATIONS`), so a bad key, value or
combination is one error naming it. The network reads every table (the v1 observation
carries the rules); the action catalogs of the tables are stacked into one feature table,
each table's ids shifted by its catalog's offset (:meth:`Tables.offset`).

``eval_tables`` is the fixed panel the periodic evaluation plays: a list of tables, each a
mapping of ``players`` and rule values (``[{players: 4}, {players: 3, rounds: 7}]``); by
default :meth:`Tables.default_panel`: the base rules at each player count, every other round
count at the base player count, and one table with every drawn on/off rule switched from its
base value.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from climbrl import envs
from climbrl.policies.spec import action_features, episode_starter, make_game

MAX_COMBINATIONS = 20_000
"""most tables (rounds apart) a distribution may draw: each is checked at the start"""
PLAYERS = "players"
ROUNDS = "rounds"
WEIGHT = "weight"
"""the key of a mixture's part that gives its weight"""


def _drawing_games() -> str:
    """The games whose tables can be drawn (``draws_tables``), for messages."""
    names = []
    for name, entry in envs.GAMES.items():
        try:
            if entry.game_class.draws_tables:
                names.append(name)
        except ValueError:
            pass  # an engine not importable here
    return " and ".join(names)


def _only_one_table(setting: str, game: str) -> ValueError:
    return ValueError(f"{setting} is a setting of {_drawing_games()}; {game!r} has one table")


def _label_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def table_label(table: dict[str, Any], base: dict[str, Any]) -> str:
    """A short name of a table: ``4p``, ``3p rounds=7``, ``4p lock=off``."""
    extra = [f"{k}={_label_value(v)}" for k, v in sorted(table.items())
             if k != PLAYERS and base.get(k) != v]
    return " ".join([f"{table[PLAYERS]}p", *extra])


class Tables:
    """The tables of a run: the base table (its spec), the distribution episodes are drawn
    from, the games (cached, catalogs shared) and their stacked action feature table.
    ``tables=None``: the base table alone, and :meth:`draw` takes nothing from the
    generator (a run without ``tables`` plays as before)."""

    def __init__(self, game: str, players: int | None = None, rules: dict | None = None,
                 reward: str | None = None, tables: dict | list | None = None, engine=None):
        self.name = game
        self.reward = reward
        self.fixed_rules = dict(rules or {})
        self.base = engine if engine is not None else make_game(
            game=game, players=players, rules=self.fixed_rules, reward=reward)
        self.games: dict[Any, Any] = {}
        self.catalogs: dict[tuple, Any] = {}
        self.keys: list[tuple[str, list[Any], np.ndarray]] = []
        self.parts: list[list[tuple[str, list[Any], np.ndarray]]] = []
        if tables is None:
            self.base_table = self._table_of(self.base)
            self.offsets = {self._catalog_key(self.base): 0}
            """row offset of each catalog in :attr:`features` (catalog key -> offset)"""
            self.features = action_features(self.base)
            """the action features of every catalog the distribution draws, stacked"""
            return
        if not getattr(self.base, "draws_tables", False):
            raise _only_one_table("tables", game)
        fields = self.base.rule_fields()
        self.parts, part_weights = self._mixture(tables, fields)
        # each part of the mixture: its keys, each (key, values, weights), sorted
        self.part_weights = part_weights / part_weights.sum()
        self.keys = self._merged(self.parts, self.part_weights)
        # every key a part draws, with its values' chances where it is drawn
        for key, _, _ in self.keys:
            if key in self.fixed_rules:
                raise ValueError(f"tables.{key}: {key} is fixed in rules too; keep one")
        self.catalogs[self._catalog_key(self.base)] = self.base.catalog
        base_values = self._table_of(self.base)
        self.base_table = {k: self._base_value(k, v, w, base_values[k] if k in base_values
                                               else None) for k, v, w in self.keys}
        self.base_table = {**base_values, **self.base_table}
        self._check_support()
        self.base = self.game(self.base_table)
        self.offsets, tables, at = {}, [], 0
        for key, catalog in self.catalogs.items():
            self.offsets[key] = at
            tables.append(catalog.features())
            at += tables[-1].shape[0]
        self.features = np.concatenate(tables)

    @classmethod
    def of_game(cls, game) -> Tables:
        """The one table of an engine."""
        return cls(game.name, reward=getattr(game, "reward_mode", None), engine=game)

    # -- the distribution ------------------------------------------------------------------

    @classmethod
    def _mixture(cls, tables: Any, fields: dict[str, str]) -> tuple[list, np.ndarray]:
        """The parts of the setting (one for a mapping) and their weights."""
        example = "e.g. {players: [3, 4], lock: 0.5}"
        if isinstance(tables, dict):
            parts = [tables]
        elif isinstance(tables, list) and tables:
            parts = tables
        else:
            raise ValueError(f"tables must be a mapping of players and rules to what is "
                             f"drawn ({example}), or a list of such mappings each with a "
                             f"weight; got {tables!r}")
        out, weights = [], []
        for i, part in enumerate(parts):
            where = "tables" if isinstance(tables, dict) else f"tables[{i}]"
            if not isinstance(part, dict) or not set(part) - {WEIGHT}:
                raise ValueError(f"{where} must be a mapping of players and rules to what is "
                                 f"drawn ({example}); got {part!r}")
            weight = part.get(WEIGHT, 1.0)
            if isinstance(tables, dict) and WEIGHT in part:
                raise ValueError("tables: weight is a key of a mixture's part (a list of "
                                 "mappings); a single mapping has no weight")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) \
                    or not weight > 0 or not np.isfinite(weight):
                raise ValueError(f"{where}.weight: {weight!r} is not a number above 0")
            keys = [(key, *cls._distribution(key, spec, fields, where))
                    for key, spec in part.items() if key != WEIGHT]
            out.append(sorted(keys, key=lambda k: k[0]))
            weights.append(float(weight))
        return out, np.asarray(weights)

    @staticmethod
    def _merged(parts: list, part_weights: np.ndarray) -> list:
        """``(key, values, weights)`` of every key drawn by some part, its weights the chance
        of each value where the key is drawn (for the base table and the default panel)."""
        merged: dict[str, dict] = {}
        for part, share in zip(parts, part_weights):
            for key, values, weights in part:
                chances = merged.setdefault(key, {})
                for value, weight in zip(values, weights):
                    slot = repr(value)
                    old = chances.get(slot, (value, 0.0))[1]
                    chances[slot] = (value, old + share * weight)
        out = []
        for key in sorted(merged):
            values = [value for value, _ in merged[key].values()]
            weights = np.array([weight for _, weight in merged[key].values()])
            out.append((key, values, weights / weights.sum()))
        return out

    @staticmethod
    def _distribution(key: str, spec: Any, fields: dict[str, str], where: str = "tables"):
        """``(values, weights)`` of one key of the setting."""
        if not isinstance(key, str) or (key != PLAYERS and key not in fields):
            names = [PLAYERS, *fields]
            close = difflib.get_close_matches(str(key), names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ValueError(f"{where}: unknown key {key!r}{hint}; keys are players and the "
                             f"rules: {', '.join(names[1:])}")
        kind = "int" if key == PLAYERS else fields[key]
        if kind == "bool" and isinstance(spec, (int, float)) and not isinstance(spec, bool):
            if not 0.0 <= spec <= 1.0:
                raise ValueError(f"{where}.{key}: {spec!r} is not a chance in [0, 1] (an "
                                 "on/off rule takes the chance that it is on, or true/false)")
            return [False, True], np.array([1.0 - spec, float(spec)])
        if isinstance(spec, dict):
            values, weights = list(spec), list(spec.values())
            for value, weight in spec.items():
                if isinstance(weight, bool) or not isinstance(weight, (int, float)) \
                        or weight < 0:
                    raise ValueError(f"{where}.{key}: weight {weight!r} of {value!r} is not a "
                                     "number of 0 or more")
            if not sum(weights) > 0:
                raise ValueError(f"{where}.{key}: the weights {spec!r} add up to 0")
        elif isinstance(spec, list):
            if not spec:
                raise ValueError(f"{where}.{key}: an empty list draws nothing")
            values, weights = spec, [1.0] * len(spec)
        else:
            values, weights = [spec], [1.0]
        if len(set(map(repr, values))) != len(values):
            raise ValueError(f"{where}.{key}: a value is listed twice in {spec!r}")
        weights = np.asarray(weights, float)
        return list(values), weights / weights.sum()

    @staticmethod
    def _base_value(key: str, values: list, weights: np.ndarray, default: Any) -> Any:
        """The base table's value of a drawn key: the default when it can be drawn, else
        the most likely value."""
        if default in values and weights[values.index(default)] > 0:
            return default
        return values[int(np.argmax(weights))]

    def _check_support(self) -> None:
        """Build the rules of every table the distribution can draw (rounds apart: a round
        count never conflicts with a rule), so that a bad one fails now, named."""
        checks = []
        for part in self.parts:
            drawn = [(k, [v for v, w in zip(values, weights) if w > 0])
                     for k, values, weights in part]
            rounds = next((vals for k, vals in drawn if k == ROUNDS), [])
            others = [(k, vals) for k, vals in drawn if k != ROUNDS]
            checks.append((rounds, others))
        count = sum(int(np.prod([len(vals) for _, vals in others])) if others else 1
                    for _, others in checks)
        if count > MAX_COMBINATIONS:
            raise ValueError(f"tables: {count:,} tables to check (rounds apart), at most "
                             f"{MAX_COMBINATIONS:,}: fix some rules (in rules) or draw fewer")
        for rounds, others in checks:
            for value in rounds:
                self._rules_of({**self.base_table, ROUNDS: value})
            for combo in itertools.product(*(vals for _, vals in others)):
                table = {**self.base_table, **dict(zip((k for k, _ in others), combo))}
                self._catalog(self._rules_of(table))

    # -- tables, games and their catalogs ----------------------------------------------------

    def _table_of(self, game) -> dict[str, Any]:
        """A game's table as the setting's keys: players and every drawn rule's value."""
        table = {PLAYERS: game.num_players}
        rules = getattr(game, "rules", None)
        for key, _, _ in self.keys:
            if key != PLAYERS:
                table[key] = getattr(rules, key)
        return table

    def _rules_of(self, table: dict[str, Any]):
        overrides = {k: v for k, v in table.items() if k != PLAYERS}
        try:
            return self.base.rules_for(table[PLAYERS], **self.fixed_rules, **overrides)
        except (TypeError, ValueError) as err:
            label = ", ".join(f"{k}={_label_value(v)}" for k, v in sorted(table.items()))
            raise ValueError(f"tables: the table {label} cannot be played ({err})") from None

    def _catalog(self, rules):
        key = self.base.catalog_key_of(rules)
        if key not in self.catalogs:
            self.catalogs[key] = self.base.make_catalog(rules)
        return self.catalogs[key]

    @staticmethod
    def _catalog_key(game) -> Any:
        catalog = getattr(game, "catalog", None)
        return getattr(catalog, "key", None)

    def game(self, table: dict[str, Any]):
        """The game of a table (``players`` and rule values over the base), built once."""
        table = {**self.base_table, **table}
        if not getattr(self.base, "draws_tables", False) or (
                not self.keys and table == self.base_table):
            return self.base
        return self.game_of_rules(self._rules_of(table))

    def game_of_rules(self, rules):
        """The game of a rules config, built once (its catalog shared with the games of the
        same catalog key)."""
        if getattr(self.base, "rules", None) == rules:
            return self.base
        game = self.games.get(rules)
        if game is None:
            game = self.games[rules] = self.base.with_rules(rules, self._catalog(rules))
        return game

    def label_of(self, game) -> str:
        """The :func:`table_label` of a game's table."""
        return table_label(self._table_of(game), self.base_table)

    def draw(self, rng: np.random.Generator):
        """The game of a table drawn from the distribution (the base game without one)."""
        if not self.keys:
            return self.base
        part = self.parts[0] if len(self.parts) == 1 else \
            self.parts[int(rng.choice(len(self.parts), p=self.part_weights))]
        table = {}
        for key, values, weights in part:
            table[key] = values[int(rng.choice(len(values), p=weights))] \
                if len(values) > 1 else values[0]
        return self.game(table)

    def episode_starter(self, start: dict | None = None) -> Callable:
        """``f(rng) -> state``: a new episode at a table drawn from the distribution, with the
        game's training start options ``start``."""
        if not self.keys:
            return episode_starter(self.base, start)
        episode_starter(self.base, start)  # checks the setting
        return lambda rng: self.draw(rng).new_state(rng)

    # -- the stacked feature table -----------------------------------------------------------

    def offset(self, game) -> int:
        """Where ``game``'s action ids start in :attr:`features`."""
        try:
            return self.offsets[self._catalog_key(game)]
        except KeyError:
            raise ValueError("a game whose catalog is not among the run's tables") from None

    # -- the evaluation panel ----------------------------------------------------------------

    def default_panel(self) -> list[dict[str, Any]]:
        """The base rules at each player count; each other round count at the base player
        count; one table with every drawn on/off rule switched (when it can be played)."""
        base = self.base_table
        values = {k: [v for v, w in zip(vals, ws) if w > 0] for k, vals, ws in self.keys}
        panel = [{**base, PLAYERS: p} for p in values.get(PLAYERS, [base[PLAYERS]])]
        panel += [{**base, ROUNDS: r} for r in values.get(ROUNDS, []) if r != base.get(ROUNDS)]
        fields = self.base.rule_fields()
        flipped = {k: not base[k] for k in values if fields.get(k) == "bool"
                   and len(values[k]) > 1}
        if flipped:
            try:
                self._rules_of({**base, **flipped})
                panel.append({**base, **flipped})
            except ValueError:
                pass
        return panel

    def panel(self, eval_tables: list | None) -> list[tuple[str, dict[str, Any]]]:
        """``(label, table)`` of each table of the evaluation panel (``eval_tables``, or
        :meth:`default_panel`), each checked."""
        if eval_tables is None:
            if not self.keys:
                return [(table_label(self.base_table, self.base_table), self.base_table)]
            tables = self.default_panel()
        else:
            if not getattr(self.base, "draws_tables", False):
                raise _only_one_table("eval_tables", self.name)
            if not isinstance(eval_tables, list) or not eval_tables:
                raise ValueError(f"eval_tables must be a list of tables, each a mapping of "
                                 f"players and rules, got {eval_tables!r}")
            fields = self.base.rule_fields()
            tables = []
            for i, table in enumerate(eval_tables):
                if not isinstance(table, dict):
                    raise ValueError(f"eval_tables[{i}] must be a mapping of players and "
                                     f"rules, got {table!r}")
                for key in table:
                    if key != PLAYERS and key not in fields:
                        raise ValueError(f"eval_tables[{i}]: unknown key {key!r}; keys are "
                                         "players and the rules")
                tables.append({**self.base_table, **table})
        out, seen = [], set()
        for table in tables:
            rules = self._rules_of(table)
            label = table_label(table, self.base_table)
            if label not in seen:
                seen.add(label)
                out.append((label, {**table, ROUNDS: rules.rounds}))
        return out

    def game_kwargs(self, table: dict[str, Any]) -> dict[str, Any]:
        """``make_game`` arguments of a table (as the evaluation harness takes them)."""
        rules = {**self.fixed_rules, **{k: v for k, v in table.items() if k != PLAYERS}}
        return {"game": self.name, "players": table[PLAYERS], "rules": rules,
                "reward": self.reward}
