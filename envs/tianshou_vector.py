"""The tables of :func:`~climbrl.envs.vector.make_vec` as one Tianshou vector env
(:func:`~climbrl.envs.vector.tianshou_vec_env` makes it; this module imports tianshou).

:class:`TianshouTables` is a ``tianshou.env.BaseVectorEnv`` without workers: its ``N``
tables are one :class:`~climbrl.envs.vector.SeatTables`, stepped in one loop, their
observations and masks written into its preallocated arrays. Tianshou's collectors drive it
as any vector env of theirs:

* ``reset(env_id=None, seed=None)`` -> ``(obs, info)`` and ``step(action, id=None)`` ->
  ``(obs, rew, terminated, truncated, info)`` for the tables listed (all by default), in that
  order. ``obs`` is a ``tianshou.data.Batch`` with ``obs`` (``(k, obs_dim)`` float32) and
  ``mask`` (``(k, A)`` bool): the ``batch.obs.mask`` that Tianshou's masked policies (DQN and
  its kin, the masked random policy) read, the form of its ``PettingZooEnv``. ``info`` is an
  object array of one dict per table (``env_id``, as Tianshou's own vector envs add it).
* No autoreset: the step that ends a table's episode returns its last observation (mask all
  false, as ``single_seat``'s ``action_masks()``) and ``terminated``; the collector resets
  it (``reset(env_id=[i])``), and stepping it before is an error.
* ``action_space``: one ``Discrete`` per table whose ``sample()`` draws a legal id of that
  table's current mask, so that a collector's ``collect(random=True)`` plays legal moves.
* Seeds, as :func:`~climbrl.envs.vector.make_vec`: ``seed=s`` seeds table ``i`` with
  ``s + i``, and table ``i`` then plays what ``single_seat(...).reset(seed=s + i)`` plays.
  ``reset(env_id=ids, seed=s)`` and ``seed(s)`` reseed the same way (table ``i``: ``s + i``,
  whichever tables are listed; a list gives one seed per table listed), unlike Tianshou's
  worker envs, which give every env listed the same seed. The action spaces are seeded
  with their table's seed, as Tianshou's workers do.

Bad input is one clear error naming it, before any table moves: table ids out of range or
repeated, actions not one integer id per table listed, an id illegal at its table, a table
stepped before its reset or after its episode ended, unknown reset arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from tianshou.data import Batch
from tianshou.env import BaseVectorEnv

from .vector import SeatTables, check_actions

ATTRIBUTES = ("action_space", "observation_space", "metadata", "spec", "render_mode", "seat")
"""what ``get_env_attr`` gives of each table (those of a ``single_seat`` env)"""


class TableActions(spaces.Discrete):
    """The action space of one table: ``Discrete(A)`` whose ``sample()`` without a mask
    draws one of the table's legal ids (its live mask row), any id once the episode ended."""

    def __init__(self, masks: np.ndarray, table: int):
        super().__init__(masks.shape[1])
        self._masks = masks
        self._table = table

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._masks[self._table]
            if legal.any():
                return super().sample(mask=legal.astype(np.int8))
            return super().sample()
        if probability is None:
            return super().sample(mask=mask)
        return super().sample(mask=mask, probability=probability)


class TianshouTables(BaseVectorEnv):
    """``num_envs`` tables of seat ``seat`` against ``opponents`` as a Tianshou vector env
    (module docstring). The arguments are those of :func:`~climbrl.envs.vector.make_vec`."""

    # Tianshou's VectorEnvWrapper, too, is a BaseVectorEnv without its constructor: that one
    # makes a worker per env, which the tables replace.
    # noinspection PyMissingConstructor
    def __init__(self, game: str, num_envs: int = 1, seat: int = 0,
                 opponents: Sequence = ("random",) * 3, seed: Any = None, **kwargs):
        self.tables = SeatTables(game, num_envs, seat, opponents, **kwargs)
        count = self.tables.count
        self.env_num = count
        self.wait_num = count
        self.timeout = None
        self.is_async = False
        self.waiting_id: list[int] = []
        self.ready_id = list(range(count))
        self.is_closed = False
        self._ended = np.zeros(count, bool)
        self._started = np.zeros(count, bool)
        rows = self.tables.rows
        self._attributes = {
            "action_space": [TableActions(rows.masks, i) for i in range(count)],
            "observation_space": [spaces.Dict({
                "obs": self.tables.observation_space,
                "mask": spaces.MultiBinary(self.tables.game.num_actions)})] * count,
            "metadata": [{"render_modes": []}] * count,
            "spec": [None] * count,
            "render_mode": [None] * count,
            "seat": [seat] * count,
        }
        self.seed(seed)

    def __len__(self) -> int:
        return self.env_num

    def get_env_attr(self, key: str, id: Any = None) -> list[Any]:
        """``key`` of each table listed (``ATTRIBUTES``)."""
        self._assert_is_not_closed()
        if key not in self._attributes:
            raise AttributeError(f"the tables have no attribute {key!r}; they have "
                                 f"{', '.join(ATTRIBUTES)}")
        values = self._attributes[key]
        return [values[i] for i in self._ids(id)]

    def set_env_attr(self, key: str, value: Any, id: Any = None) -> None:
        raise AttributeError(f"the tables' attributes cannot be set (asked to set {key!r}): "
                             f"make a new tianshou_vec_env with other arguments")

    def seed(self, seed: Any = None) -> list[list[int | None]]:
        """Restart every table's generator and action space (``seed + i`` for table ``i``,
        a list: one per table, ``None``: fresh entropy); the seeds, one list per table."""
        self._assert_is_not_closed()
        seeds = self.tables.seed(seed)
        self._seed_spaces(range(self.env_num), seeds)
        return [[s] for s in seeds]

    def reset(self, env_id: Any = None, seed: Any = None, options: dict | None = None,
              **kwargs: Any) -> tuple[Any, np.ndarray]:
        """A new episode at each table listed (all by default), played up to the seat's
        first move; ``seed`` reseeds them first (module docstring)."""
        self._assert_is_not_closed()
        if kwargs:
            raise TypeError(f"reset() takes env_id, seed and options, got "
                            f"{', '.join(map(repr, kwargs))}")
        if options is not None:
            raise ValueError(f"options are not taken by the vector env, got {options!r}")
        ids = self._ids(env_id)
        if seed is not None:
            self._seed_spaces(ids, self.tables.seed(seed, ids))
        for i in ids:
            self.tables.reset_table(i)
        self._ended[ids] = False
        self._started[ids] = True
        return self._observations(ids), self._infos(ids)

    def step(self, action: Any, id: Any = None) -> tuple[Any, np.ndarray, np.ndarray,
                                                          np.ndarray, np.ndarray]:
        """The seat's ``action`` (one id per table listed, in ``id``'s order) at each table
        listed, then the opponents' moves; no autoreset (module docstring)."""
        self._assert_is_not_closed()
        if action is None:
            raise ValueError("action must not be None: the tables are stepped synchronously")
        ids = self._ids(id)
        for i in ids:
            if not self._started[i]:
                raise RuntimeError(f"table {i} has not been reset: call reset() first")
            if self._ended[i]:
                raise RuntimeError(f"table {i}: its episode ended; reset(env_id=[{i}]) "
                                   f"before stepping it again")
        if hasattr(action, "detach"):  # a torch tensor
            action = action.detach().cpu().numpy()
        tables = self.tables
        actions = check_actions(action, tables.rows.masks[ids], tables.game, tables=ids)
        rewards = np.zeros(len(ids), np.float64)
        terminated = np.zeros(len(ids), bool)
        for k, i in enumerate(ids):
            rewards[k], terminated[k] = tables.step_table(i, int(actions[k]))
        self._ended[ids] = terminated
        truncated = np.zeros(len(ids), bool)
        return self._observations(ids), rewards, terminated, truncated, self._infos(ids)

    def render(self, **kwargs: Any) -> list[None]:
        """Nothing to render (the tables have no render mode): ``None`` per table."""
        self._assert_is_not_closed()
        return [None] * self.env_num

    def close(self) -> None:
        self._assert_is_not_closed()
        self.is_closed = True

    def _ids(self, id: Any) -> np.ndarray:
        """The table ids listed, as an int64 array (all tables for ``None``)."""
        if id is None:
            return np.arange(self.env_num)
        ids = np.atleast_1d(np.asarray(id))
        if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
            raise TypeError(f"env ids must be an integer or a list of integers, got {id!r}")
        ids = ids.astype(np.int64)
        outside = (ids < 0) | (ids >= self.env_num)
        if outside.any():
            raise ValueError(f"env id {ids[outside][0]} is outside 0..{self.env_num - 1}")
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"env ids must not repeat, got {ids.tolist()}")
        return ids

    def _seed_spaces(self, ids: Sequence[int], seeds: Sequence[int | None]) -> None:
        spaces_ = self._attributes["action_space"]
        for i, s in zip(ids, seeds):
            spaces_[i].seed(s)

    def _observations(self, ids: np.ndarray) -> Batch:
        rows = self.tables.rows
        return Batch(obs=rows.obs[ids], mask=rows.masks[ids])

    @staticmethod
    def _infos(ids: np.ndarray) -> np.ndarray:
        infos = np.empty(len(ids), object)
        infos[:] = [{"env_id": int(i)} for i in ids]
        return infos
