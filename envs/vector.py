"""Many tables stepped in lockstep on the engines: a Gymnasium vector env of one seat, its
Stable-Baselines3 ``VecEnv``, and :class:`VectorTables` for self-play of every seat.

* :func:`make_vec` (:class:`SeatVectorEnv`): ``num_envs`` tables of
  :class:`~climbrl.envs.wrappers.SingleSeatEnv` as one ``gymnasium.vector.VectorEnv``
  (observations ``(N, obs_dim)`` float32, actions ``(N,)`` ids, ``action_masks()`` ``(N, A)``
  bool), with Gymnasium's next-step autoreset (``metadata["autoreset_mode"]``): the step
  that ends a table's episode returns its last observation and ``terminated``; that table's
  next action is ignored and the step resets it (reward 0, ``terminated`` False). Until
  then the table's mask row allows action 0 alone, so that a masked sampler always has a
  move to draw.
* :func:`sb3_vec_env`: the same tables as a ``stable_baselines3`` ``VecEnv`` (its own
  same-step autoreset: a finished table's last observation is in
  ``infos[i]["terminal_observation"]``), which sb3-contrib's ``MaskablePPO`` trains on
  (``env_method("action_masks")``).
* :func:`tianshou_vec_env`: the same tables as a Tianshou ``BaseVectorEnv``
  (:mod:`climbrl.envs.tianshou_vector`: observations ``Batch(obs=..., mask=...)``, no
  autoreset: Tianshou's collectors reset finished tables by id).
* :class:`VectorTables`: ``N`` tables where every seat is played by the caller:
  ``observe()`` gives the observation, mask and seat of the seat to move at each table,
  ``step(actions)`` plays them, returns every seat's reward and resets finished tables at
  once (same-step autoreset). It is ``N`` PettingZoo ``env()`` s stepped in lockstep, without
  the AEC bookkeeping.

Each table is one engine state; nothing goes through the PettingZoo env. A table's
observation is written into one preallocated ``(N, obs_dim)`` array by the game's
incremental observer of that seat (:mod:`climbrl.envs.core.observers`, as the trainer's
actors do), its mask into one preallocated ``(N, A)`` array where only the ids set before
are cleared.

``copy``: with ``copy=True`` (the default, as Gymnasium's own vector envs) every array
handed out is the caller's own; with ``copy=False`` the observations, masks (and
:class:`VectorTables`' seats, rewards and dones) are the env's buffers themselves, rewritten
in place by the next ``step`` or ``reset``: faster, and the caller copies what it keeps.

Seeds: ``seed=s`` seeds table ``i`` with ``s + i`` (Gymnasium's convention; a list gives one
seed per table); ``seed=None`` draws fresh entropy. Table ``i`` then plays exactly what one
env seeded with its seed plays: :class:`SeatVectorEnv` as ``single_seat(...).reset(seed=s +
i)``, :class:`VectorTables` as ``env(...).reset(seed=s + i)`` with later episodes reset
without a seed.

Bad input is one clear error: a ``num_envs`` below 1, actions of the wrong shape or type,
an action out of range or illegal at its table (naming the table and the move), before any
table has moved.
"""

from __future__ import annotations

import copy as copying
import functools
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space

from .core.checks import as_bool, as_int_in, as_seed
from .core.game import MANY_IDS, SeatBuffers
from .core.observers import seat_observer
from .wrappers import EPISODE_SEEDS, SingleSeatEnv, make
from .wrappers import _player as load_player

try:
    from gymnasium.vector import AutoresetMode

    NEXT_STEP: Any = AutoresetMode.NEXT_STEP
except ImportError:  # gymnasium 1.0 names the mode by a string
    NEXT_STEP = "NextStep"

PLACEHOLDER_ACTION = 0
"""the one id a finished table's mask row allows (its action is ignored: the next step
resets it)"""
ACTION_KINDS = "iu"
"""numpy kinds of an actions array: signed or unsigned integers"""


def table_seeds(seed: Any, count: int) -> list[int | None]:
    """One seed per table: ``None`` for each (fresh entropy), ``s + i`` for an integer ``s``,
    or a list of ``count`` seeds as given."""
    if isinstance(seed, (list, tuple, np.ndarray)):
        if len(seed) != count:
            raise ValueError(f"seed: a list needs one seed per table ({count}), got {len(seed)}")
        return [as_seed(s, f"seed[{i}]") for i, s in enumerate(seed)]
    seed = as_seed(seed)
    return [None if seed is None else seed + i for i in range(count)]


def check_actions(actions: Any, masks: np.ndarray, game, skip: np.ndarray | None = None,
                  tables: Sequence[int] | None = None) -> np.ndarray:
    """``actions`` as an int64 array of one legal id per table (``masks``: ``(N, A)`` bool);
    ``TypeError`` / ``ValueError`` naming the first bad table and move. Tables where ``skip``
    is true are not checked (their action is ignored). ``tables``: the number each row names
    in the errors (its row index if not given: the rows of a subset of tables name theirs)."""
    count, num_actions = masks.shape
    names = range(count) if tables is None else tables
    array = np.asarray(actions)
    if array.dtype.kind not in ACTION_KINDS:
        raise TypeError(f"actions must be integer ids, got an array of {array.dtype}")
    if array.shape != (count,):
        raise ValueError(f"actions must have shape ({count},), one id per table, "
                         f"got shape {array.shape}")
    array = array.astype(np.int64, copy=False)
    checked = np.ones(count, bool) if skip is None else ~skip
    outside = checked & ((array < 0) | (array >= num_actions))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"table {names[i]}: action {array[i]} is outside "
                         f"0..{num_actions - 1}")
    illegal = checked & ~masks[np.arange(count), np.where(checked, array, 0)]
    if illegal.any():
        i = int(np.flatnonzero(illegal)[0])
        action = int(array[i])
        raise ValueError(f"table {names[i]}: action {action} ({game.action_to_str(action)!r}) "
                         f"is not legal there ({int(masks[i].sum())} legal ids: see its mask "
                         f"row)")
    return array


class Rows:
    """The preallocated observation and mask arrays of ``count`` tables: :meth:`write` puts a
    table's vector in its row and sets its legal ids, clearing only the ids set before (a
    few one by one through a memoryview, many in one indexed write, as
    :class:`~climbrl.envs.core.game.SeatBuffers` does)."""

    def __init__(self, game, count: int):
        self.obs = np.zeros((count, game.layout.size), np.float32)
        self.masks = np.zeros((count, game.num_actions), bool)
        self.legal: list[list[int]] = [[] for _ in range(count)]
        self.views = [memoryview(row) for row in self.masks]

    def write(self, i: int, vector: np.ndarray, legal: Sequence[int]) -> None:
        self.obs[i] = vector
        legal = list(legal)
        view = self.views[i]
        for ids, value in ((self.legal[i], False), (legal, True)):
            if len(ids) > MANY_IDS:
                self.masks[i, ids] = value
            else:
                for a in ids:
                    view[a] = value
        self.legal[i] = legal


def _opponent_copy(player: Any) -> Any:
    """A table's own copy of a player object (its random stream and game binding are per
    table), sharing the game it may be bound to."""
    game = getattr(player, "game", None)
    memo = {} if game is None else {id(game): game}
    try:
        return copying.deepcopy(player, memo)
    except Exception as err:  # noqa: BLE001 (whatever the player holds)
        raise TypeError(f"opponent {player!r} cannot be copied for each table ({err}); "
                        f"give it by registry name") from None


class SeatTables:
    """``count`` tables of one seat against opponents, on the engine: what
    :class:`SeatVectorEnv` and :func:`sb3_vec_env` step. Each table plays what one
    :class:`~climbrl.envs.wrappers.SingleSeatEnv` of the same seed plays (its episode seeds,
    deals and the opponents' random streams alike)."""

    def __init__(self, game: str, count: Any, seat: int = 0, opponents: Sequence = ("random",) * 3,
                 seed: Any = None, **kwargs):
        self.count = as_int_in(count, "num_envs", 1)
        # the single-seat env checks the game, seat, opponents and rules, and makes the engine
        template = SingleSeatEnv(game, seat, opponents, **kwargs)
        self.game = template.raw.game
        self.seat = seat
        self.observation_space = template.observation_space
        self.action_space = template.action_space
        self.players = [template.opponents] + [
            {s: _opponent_copy(p) if not isinstance(o, str) else load_player(game, o)
             for (s, p), o in zip(sorted(template.opponents.items()), opponents)}
            for _ in range(self.count - 1)]
        self.rows = Rows(self.game, self.count)
        self.buffers = [SeatBuffers(self.game) for _ in range(self.count)]
        self.held: list[dict] = [{} for _ in range(self.count)]
        self.states: list = [None] * self.count
        self.rngs: list[np.random.Generator] = []
        self.seed(seed)

    def seed(self, seed: Any, tables: Sequence[int] | None = None) -> list[int | None]:
        """Restart every table's generator, or those of ``tables`` (:func:`table_seeds`:
        ``seed + i`` for table ``i``, or one seed per table listed); the seeds used."""
        if tables is None:
            seeds = table_seeds(seed, self.count)
            self.rngs = [seeding.np_random(s)[0] for s in seeds]
            return seeds
        if isinstance(seed, (list, tuple, np.ndarray)):
            seeds = table_seeds(seed, len(tables))
        else:
            seeds = [None if s is None else s + int(i)
                     for s, i in zip(table_seeds(seed, 1) * len(tables), tables)]
        for i, s in zip(tables, seeds):
            self.rngs[i] = seeding.np_random(s)[0]
        return seeds

    def check(self, actions: Any, skip: np.ndarray | None = None) -> np.ndarray:
        if self.states[0] is None:
            raise RuntimeError("call reset() before step()")
        return check_actions(actions, self.rows.masks, self.game, skip)

    def reset_table(self, i: int) -> None:
        """A new episode at table ``i``, played up to the seat's first move."""
        episode = int(self.rngs[i].integers(EPISODE_SEEDS))
        self.states[i] = self.game.new_state(np.random.default_rng(episode), None)
        for slot, (seat, player) in enumerate(sorted(self.players[i].items())):
            player.seed(np.random.SeedSequence([episode, slot, seat]))
            player.bind(self.game)
        self._advance(i)
        self._write(i)

    def step_table(self, i: int, action: int) -> tuple[float, bool]:
        """The seat's ``action`` at table ``i`` (checked legal), then the opponents' moves;
        the seat's reward meanwhile and whether the episode ended."""
        state = self.states[i]
        rewards = state.apply(action)
        reward = float(rewards[self.seat]) if rewards is not None else 0.0
        reward += self._advance(i)
        self._write(i)
        return reward, state.terminal

    def _advance(self, i: int) -> float:
        """The opponents' moves at table ``i`` until the seat is to move or the episode ends;
        the seat's rewards meanwhile."""
        state, seat, players = self.states[i], self.seat, self.players[i]
        buffers = self.buffers[i]
        reward = 0.0
        while not state.terminal and state.current_player != seat:
            mover = state.current_player
            move = players[mover].act(buffers.observe(state, mover), state.view(mover))
            rewards = state.apply(int(move))
            reward += float(rewards[seat]) if rewards is not None else 0.0
        return reward

    def _write(self, i: int) -> None:
        state = self.states[i]
        vector = seat_observer(self.held[i], self.game, self.seat).observe(state)
        self.rows.write(i, vector, () if state.terminal else state.legal_actions())


def _out(array: np.ndarray, copy: bool) -> np.ndarray:
    return array.copy() if copy else array


class SeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables of one seat against ``opponents`` as a Gymnasium ``VectorEnv``
    (module docstring: next-step autoreset, masks, ``copy``). The arguments are those of
    :func:`~climbrl.envs.wrappers.single_seat`, plus ``num_envs``, ``seed`` and ``copy``.
    ``infos`` holds ``action_mask`` (the masks, as ``action_masks()``)."""

    metadata = {"autoreset_mode": NEXT_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int = 1, seat: int = 0,
                 opponents: Sequence = ("random",) * 3, seed: Any = None, copy: bool = True,
                 **kwargs):
        self.copy = as_bool(copy, "copy")
        self.tables = SeatTables(game, num_envs, seat, opponents, seed, **kwargs)
        self.num_envs = self.tables.count
        self.single_observation_space = self.tables.observation_space
        self.single_action_space = self.tables.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ended = np.zeros(self.num_envs, bool)

    def reset(self, *, seed: Any = None, options: dict | None = None):
        """Every table starts a new episode (``seed``: :func:`table_seeds`; ``None`` goes on
        with each table's generator)."""
        if options is not None:
            raise ValueError(f"options are not taken by the vector env, got {options!r}")
        if seed is not None:
            self.tables.seed(seed)
        for i in range(self.num_envs):
            self.tables.reset_table(i)
        self._ended[:] = False
        return _out(self.tables.rows.obs, self.copy), self._infos()

    def step(self, actions):
        tables, ended = self.tables, self._ended
        actions = tables.check(actions, skip=ended)
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, bool)
        for i in range(self.num_envs):
            if ended[i]:
                tables.reset_table(i)
            else:
                rewards[i], terminated[i] = tables.step_table(i, int(actions[i]))
        self._ended = terminated.copy()
        tables.rows.masks[terminated, PLACEHOLDER_ACTION] = True
        for i in np.flatnonzero(terminated):
            tables.rows.legal[i] = [PLACEHOLDER_ACTION]
        truncated = np.zeros(self.num_envs, bool)
        return _out(tables.rows.obs, self.copy), rewards, terminated, truncated, self._infos()

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool: each table's legal ids (a finished table's row:
        :data:`PLACEHOLDER_ACTION` alone)."""
        return _out(self.tables.rows.masks, self.copy)

    def _infos(self) -> dict[str, np.ndarray]:
        return {"action_mask": self.action_masks(), "_action_mask": np.ones(self.num_envs, bool)}


def make_vec(game: str, num_envs: int = 1, seat: int = 0, opponents: Sequence = ("random",) * 3,
             seed: Any = None, copy: bool = True, **kwargs) -> SeatVectorEnv:
    """``num_envs`` tables of seat ``seat`` of ``game`` against ``opponents`` (as
    :func:`~climbrl.envs.wrappers.single_seat`) as a Gymnasium ``VectorEnv``
    (:class:`SeatVectorEnv`); ``kwargs`` go to the game's env."""
    return SeatVectorEnv(game, num_envs, seat, opponents, seed, copy, **kwargs)


@functools.cache
def _sb3_class() -> type:
    """The ``VecEnv`` subclass, made on first use (stable_baselines3 is imported only then)."""
    from stable_baselines3.common.vec_env import VecEnv

    class SeatVecEnv(VecEnv):
        """:class:`SeatTables` as a stable_baselines3 ``VecEnv`` with its same-step autoreset
        (``infos[i]["terminal_observation"]``) and ``action_masks`` for MaskablePPO."""

        def __init__(self, tables: SeatTables):
            self.tables = tables
            self._actions: np.ndarray | None = None
            self.render_mode = None
            super().__init__(tables.count, tables.observation_space, tables.action_space)

        def reset(self):
            if any(s is not None for s in self._seeds):
                self.tables.seed(list(self._seeds))
            for i in range(self.num_envs):
                self.tables.reset_table(i)
            self._reset_seeds()
            self._reset_options()
            return self.tables.rows.obs.copy()

        def step_async(self, actions) -> None:
            self._actions = self.tables.check(actions)

        def step_wait(self):
            tables, actions = self.tables, self._actions
            if actions is None:
                raise RuntimeError("step_wait() without step_async()")
            self._actions = None
            rewards = np.zeros(self.num_envs, np.float32)
            dones = np.zeros(self.num_envs, bool)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            for i in range(self.num_envs):
                rewards[i], dones[i] = tables.step_table(i, int(actions[i]))
                if dones[i]:
                    infos[i]["terminal_observation"] = tables.rows.obs[i].copy()
                    infos[i]["TimeLimit.truncated"] = False
                    tables.reset_table(i)
            return tables.rows.obs.copy(), rewards, dones, infos

        def action_masks(self) -> np.ndarray:
            return self.tables.rows.masks.copy()

        def close(self) -> None:
            pass

        def get_attr(self, attr_name: str, indices=None) -> list:
            value = getattr(self, attr_name)
            return [value] * len(self._get_indices(indices))

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            setattr(self, attr_name, value)

        def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
            chosen = self._get_indices(indices)
            if method_name == "action_masks":
                masks = self.tables.rows.masks
                return [masks[i].copy() for i in chosen]
            result = getattr(self, method_name)(*args, **kwargs)
            return [result] * len(chosen)

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            return [False] * len(self._get_indices(indices))

    return SeatVecEnv


def sb3_vec_env(game: str, num_envs: int = 1, seat: int = 0,
                opponents: Sequence = ("random",) * 3, seed: Any = None, **kwargs):
    """The tables of :func:`make_vec` as a ``stable_baselines3`` ``VecEnv`` (``pip install
    'climbrl[sb3]'``) that sb3-contrib's ``MaskablePPO`` trains on::

        from sb3_contrib import MaskablePPO
        MaskablePPO("MlpPolicy", sb3_vec_env("daifugo", 16, rounds=1)).learn(10_000)
    """
    return _sb3_class()(SeatTables(game, num_envs, seat, opponents, seed, **kwargs))


def tianshou_vec_env(game: str, num_envs: int = 1, seat: int = 0,
                     opponents: Sequence = ("random",) * 3, seed: Any = None, **kwargs):
    """The tables of :func:`make_vec` as one Tianshou vector env (``pip install
    'climbrl[tianshou]'``; :class:`~climbrl.envs.tianshou_vector.TianshouTables`): a
    ``BaseVectorEnv`` without workers whose observations are ``Batch(obs=..., mask=...)``,
    what Tianshou's masked policies read::

        from tianshou.data import Collector, VectorReplayBuffer
        envs = tianshou_vec_env("daifugo", 16, rounds=1, seed=0)
        Collector(algorithm, envs, VectorReplayBuffer(20_000, 16)).collect(n_step=1024)
    """
    try:
        from .tianshou_vector import TianshouTables
    except ImportError as err:  # tianshou or one of its own dependencies
        raise ImportError(f"tianshou_vec_env needs tianshou ({err}): "
                          f"pip install 'climbrl[tianshou]'") from None
    return TianshouTables(game, num_envs, seat, opponents, seed, **kwargs)


class VectorTables:
    """``num_tables`` tables of ``game`` where the caller plays every seat (module
    docstring). ``players``: the table size; ``rules``: the env's other keyword arguments
    (``rounds``, ``preset``, ``reward``, house rules, Dou Dizhu's variants), as
    ``env(players=players, **rules)`` takes them.

    ``observe()`` -> ``(obs (N, obs_dim) float32, mask (N, A) bool, seat (N,) int64)``: the
    seat to move at each table and what it sees. ``step(actions)`` -> ``(rewards (N,
    players) float64, dones (N,) bool)``: every seat's reward earned by the step (a table's
    rewards summed over its steps are each seat's episode return: nothing waits for the
    seat's next turn, unlike AEC's ``last()``); a table whose episode ended is reset at once
    (``dones``), and ``observe()`` then shows its new episode's first decision.
    ``legal_ids()``: each table's legal ids as lists."""

    def __init__(self, game: str, num_tables: int, players: int | None = None,
                 rules: dict | None = None, seed: Any = None, copy: bool = True):
        self.count = as_int_in(num_tables, "num_tables", 1)
        self.copy = as_bool(copy, "copy")
        if rules is not None and not isinstance(rules, dict):
            raise TypeError(f"rules must be a dict of the env's arguments, got {rules!r}")
        kwargs = dict(rules or {})
        if "players" in kwargs:
            raise ValueError("give the table size as players=..., not in rules")
        if players is not None:
            kwargs["players"] = players
        self.game = make(game, **kwargs).unwrapped.game
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.rows = Rows(self.game, self.count)
        self.seats = np.zeros(self.count, np.int64)
        self.rewards = np.zeros((self.count, self.num_players), np.float64)
        self.dones = np.zeros(self.count, bool)
        self.held: list[dict] = [{} for _ in range(self.count)]
        self.states: list = [None] * self.count
        self.rngs: list[np.random.Generator] = []
        self.reset(seed)

    def reset(self, seed: Any = None) -> None:
        """Every table deals a new episode; ``seed``: :func:`table_seeds` (``None`` draws
        fresh entropy)."""
        self.rngs = [np.random.default_rng(s) for s in table_seeds(seed, self.count)]
        for i in range(self.count):
            self._new_episode(i)

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (_out(self.rows.obs, self.copy), _out(self.rows.masks, self.copy),
                _out(self.seats, self.copy))

    def legal_ids(self) -> list[list[int]]:
        """The legal ids of the seat to move at each table (new lists)."""
        return [list(ids) for ids in self.rows.legal]

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        actions = check_actions(actions, self.rows.masks, self.game)
        rewards, dones = self.rewards, self.dones
        rewards[:] = 0.0
        dones[:] = False
        for i in range(self.count):
            state = self.states[i]
            got = state.apply(int(actions[i]))
            if got is not None:
                rewards[i] = got
            if state.terminal:
                dones[i] = True
                self._new_episode(i)
            else:
                self._write(i)
        return _out(rewards, self.copy), _out(dones, self.copy)

    def _new_episode(self, i: int) -> None:
        self.states[i] = self.game.new_state(self.rngs[i], None)
        self._write(i)

    def _write(self, i: int) -> None:
        state = self.states[i]
        seat = self.seats[i] = state.current_player
        self.rows.write(i, seat_observer(self.held[i], self.game, seat).observe(state),
                        state.legal_actions())
