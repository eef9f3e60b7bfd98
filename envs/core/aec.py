"""A thin PettingZoo AEC adapter over any climbrl engine (see :mod:`climbrl.envs.core.game`).

The adapter owns the PettingZoo bookkeeping (agents, spaces, rewards, terminations) and
nothing of the rules. An illegal action gets PettingZoo's standard treatment (the one of
``TerminateIllegalWrapper``: the game ends, the offender gets ``illegal_reward``, the others 0)
plus a warning that names the move in card text; it is done here rather than by stacking the
wrapper so that a step costs one call.

Input is checked, never converted (:mod:`climbrl.envs.core.checks`): ``step`` takes an ``int`` id, a
numpy integer or a one-element integer array, and a float, bool, string or ``None`` is a
``TypeError`` before anything changes; seats, agents, seeds and options likewise. ``view``,
``legal_actions`` and ``deal_code`` before ``reset`` are a ``RuntimeError`` saying so.

Speed: an observation is built only for the agent asked (``last()``, ``observe()``), by the
game's incremental observer of that seat where it has one (``game.seat_observer``: the
seat's buffer rewritten only where the state changed since that seat last looked), and the
mask a zeroed array with the legal ids set (:class:`~climbrl.envs.core.game.SeatBuffers`);
what it returns is the caller's own: never written again by the env while anyone holds it (a
compiled core may hand an array out again, rewritten, once every caller has let go of it).
PettingZoo's per-agent dicts are made once and updated in place, only where a value
changes, so a dict a caller keeps is always the env's; :class:`OrderEnforced`, the checking
layer of every ``env()``, hands a loop's calls to the env's own methods once reset.
``legal_actions()`` lists the legal ids of the agent to move (a new list), so a player need
not scan the mask. (They are not in ``infos``: a list whose length changes every step breaks
collectors that stack the infos, Tianshou's among them.)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import PETTINGZOO_FLOOR
from .checks import as_action, as_int, as_real, as_seed
from .game import Game, IllegalActionError, SeatBuffers, State

try:
    from gymnasium import spaces
    from gymnasium.utils import EzPickle
    from pettingzoo import AECEnv
    from pettingzoo.utils.env_logger import EnvLogger
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
    from pettingzoo.utils.wrappers.order_enforcing import (
        AECOrderEnforcingIterable,
        AECOrderEnforcingIterator,
    )
except ImportError as err:  # the engines work without them; the environments do not
    raise ImportError(f"the climbrl environments need gymnasium and pettingzoo>={PETTINGZOO_FLOOR} "
                      f"({err}); the engines climbrl.envs.daifugo and climbrl.envs.doudizhu need numpy only") from err


class IllegalMoveWarning(UserWarning):
    """Warned when an agent plays an action its mask forbids."""


class CardGameEnv(AECEnv, EzPickle):
    """AEC environment over a climbrl ``Game``. Subclasses set ``metadata`` and build the game."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        game: Game,
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        ezpickle_kwargs: dict[str, Any] | None = None,
    ):
        EzPickle.__init__(self, **(ezpickle_kwargs or {}))
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        self.game = game
        self.render_mode = render_mode
        self.illegal_reward = as_real(illegal_reward, "illegal_reward")
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = game.layout.low_high()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(game.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._rng = np.random.default_rng()
        # PettingZoo's per-agent dicts, made once and then updated in place, only where a
        # value changes (rewards come at round and episode ends only): a dict kept by a
        # caller is always the env's
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        #: the engine state (named so as not to hide PettingZoo's ``AECEnv.state()``)
        self.game_state: State | None = None
        self._buffers = SeatBuffers(game)
        #: resets and steps so far (the checking layer's ``agent_iter`` asks for one a turn)
        self._moves = 0

    # -- PettingZoo API ------------------------------------------------------------------

    def observation_space(self, agent):
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._agent(agent)]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = as_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_state(self._rng, options)
        self.agents = self.possible_agents[:]
        for values, start in ((self.rewards, 0.0), (self._cumulative_rewards, 0.0),
                              (self.terminations, False), (self.truncations, False)):
            values.clear()
            values.update(dict.fromkeys(self.agents, start))
        self.infos.clear()
        self._rewarded = False
        self._moves += 1
        self.agent_selection = self.possible_agents[self.game_state.current_player]
        self._refresh_infos()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        seat = self._seat.get(agent) if type(agent) is str else None
        if seat is None:
            seat = self._seat[self._agent(agent)]
        return self._buffers.observe(self._started("observe"), seat)

    def last(self, observe: bool = True):
        """``AECEnv.last``: the agent to move's observation (when ``observe``), cumulative
        reward, termination, truncation and info, read without going through ``observe``'s
        checks of a name the env chose itself."""
        agent = self.agent_selection
        if observe:
            state = self.game_state
            if state is None:  # a loop's every call: no _started() frame unless it raises
                self._started("observe")
            observation = self._buffers.observe(state, self._seat[agent])
        else:
            observation = None
        return (observation, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def step(self, action) -> None:
        if not self.agents:  # every agent is done and stepped: PettingZoo's warning
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._moves += 1
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        # an int (or numpy integer, or a one-element integer array); a float, bool, string or
        # None is a TypeError here, before anything changes (never int(12.7) -> 12)
        if type(action) is not int:
            action = as_action(action)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        try:
            # both engines raise IllegalActionError before changing anything, so one call
            # validates and plays, without copying and scanning the legal list first
            rewards = state.apply(action)
        except IllegalActionError:
            self._illegal(agent, action)
            return
        if rewards is not None:
            now = self.rewards
            for name, r in zip(self.possible_agents, rewards):
                if name in now:
                    now[name] = float(r)
            self._rewarded = True
            self._accumulate_rewards()
            self._refresh_infos()
        if state.terminal:
            terminations = self.terminations
            for name in self.agents:
                terminations[name] = True
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode", stacklevel=2)
            return None
        text = self.game.render(self._started("render"))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # -- conveniences on the live env ----------------------------------------------------

    @property
    def deal_code(self) -> str:
        """The code of the current deal: ``reset(options={"deal": code})`` replays it. It is
        the whole deal (every hand), for the operator: never hand it to a seat during play."""
        return self._started("deal_code").deal_code

    def view(self, seat: int | str) -> dict[str, Any]:
        """The structured view of what ``seat`` (index or agent name) may see: nothing in it
        depends on another seat's hidden cards, so it is safe to send to that seat."""
        return self._started("view").view(self._seat_index(seat))

    def action_to_str(self, action: int) -> str:
        return self.game.action_to_str(as_action(action))

    def action_from_str(self, text: str) -> int:
        return self.game.action_from_str(text, self.game_state)

    def legal_actions(self) -> list[int]:
        """Legal action ids for the agent to move (a new list: the caller's own, as every
        engine's ``State.legal_actions`` returns)."""
        state = self.game_state
        if state is None:  # as in last()
            self._started("legal_actions")
        return [] if state.terminal else state.legal_actions()

    # -- internals ------------------------------------------------------------------------

    def _started(self, what: str) -> State:
        """The engine state; a clear error when ``reset`` has not been called yet."""
        if self.game_state is None:
            raise RuntimeError(f"call reset() before {what}()")
        return self.game_state

    def _agent(self, agent: str) -> str:
        if not isinstance(agent, str):
            raise TypeError(
                f"agent must be a name such as {self.possible_agents[0]!r}, got {agent!r}"
            )
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        return agent

    def _seat_index(self, seat: int | str) -> int:
        if isinstance(seat, str):
            return self._seat[self._agent(seat)]
        seat = as_int(seat, "seat")
        if not 0 <= seat < self.game.num_players:
            raise ValueError(f"seat {seat} is outside 0..{self.game.num_players - 1}")
        return seat

    def _refresh_infos(self) -> None:
        infos, info, state, seat = self.infos, self.game.info, self.game_state, self._seat
        for a in self.agents:
            infos[a] = info(state, seat[a])

    def _illegal(self, agent: str, action: int) -> None:
        try:
            move = self.game.action_to_str(action)
        except ValueError:
            move = f"id {action} (not in the catalog)"
        warnings.warn(
            f"{agent} made the illegal move {move!r}; the game ends with {agent} losing "
            f"({self.illegal_reward:g}), as PettingZoo's TerminateIllegalWrapper does",
            IllegalMoveWarning,
            stacklevel=3,
        )
        for name in self.agents:
            self.terminations[name] = self.truncations[name] = True
            self.rewards[name] = 0.0
        self.rewards[agent] = self.illegal_reward
        self._rewarded = True
        self._accumulate_rewards()
        self._deads_step_first()


def _after_reset(name: str) -> property:
    """A wrapper attribute read from the wrapped env directly (no ``__getattr__``), with the
    order wrapper's error before ``reset``; set, it is set on the wrapped env."""

    def read(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def write(self, value):
        setattr(self.env, name, value)

    return property(read, write, doc=f"the wrapped env's ``{name}`` (after ``reset``)")


_LOOP_CALLS = ("last", "step", "observe", "legal_actions")
"""the calls of a loop that the checking layer hands to the env's own methods once reset"""


class OrderEnforced(OrderEnforcingWrapper):
    """The checking layer of every ``env()``: PettingZoo's order enforcing (an
    ``OrderEnforcingWrapper``, with its errors and warnings: acting, observing or rendering
    before ``reset``, stepping after the end, a turn of ``agent_iter()`` without a step), with
    every call a loop makes answered by the wrapped env directly once it has been reset:
    ``last()``, ``step()``, ``observe()`` and ``legal_actions()`` are then the env's own
    methods (set on this layer by the first ``reset``), ``agent_iter()`` reads the env's count
    of moves, and the attributes ``agents``, ``agent_selection``, ``rewards``,
    ``terminations``, ``truncations``, ``infos`` read the env (the stock wrapper resolves each
    through two ``__getattr__`` layers). The wrapped env checks the action itself (its type,
    an id out of range or illegal: the game ends, as PettingZoo's ``TerminateIllegalWrapper``)
    and warns of a step after the end as this layer would."""

    _turn_at = -1
    """the wrapped env's count of moves when ``agent_iter`` last handed out a turn"""
    agents = _after_reset("agents")
    agent_selection = _after_reset("agent_selection")
    rewards = _after_reset("rewards")
    terminations = _after_reset("terminations")
    truncations = _after_reset("truncations")
    infos = _after_reset("infos")

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        if "step" not in self.__dict__:
            # reset once: the calls of a loop are the env's own methods from now on (the env
            # checks actions and warns of a step after the end as this wrapper does)
            for name in _LOOP_CALLS:
                setattr(self, name, getattr(self.env, name))

    def __getstate__(self) -> dict:
        # the wrapped env pickles (and deep-copies) as a fresh env of the same options, not
        # yet reset (PettingZoo's EzPickle): so does this layer, with its errors before reset
        state = {k: v for k, v in self.__dict__.items()
                 if k not in _LOOP_CALLS and k != "_turn_at"}
        state["_has_reset"] = state["_has_updated"] = False
        return state

    def legal_actions(self) -> list[int]:
        """The wrapped env's :meth:`CardGameEnv.legal_actions` (before ``reset``: its error)."""
        return self.env.legal_actions()

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            return super().agent_iter(max_iter)
        return _OrderedTurns(self, max_iter)


class _OrderedTurns(AECOrderEnforcingIterable):
    def __iter__(self):
        return _OrderedTurnIterator(self.env, self.max_iter)


class _OrderedTurnIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading the wrapped env directly: a turn without a
    ``step()`` or ``reset()`` since the last one handed out (the wrapped env counts them) is
    the stock iterator's error."""

    def __next__(self):
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        if env._moves == wrapper._turn_at:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        wrapper._turn_at = env._moves
        return env.agent_selection


def wrap(raw: CardGameEnv) -> OrderEnforcingWrapper:
    """The ``env()`` of every climbrl module: the raw env under order enforcing."""
    return OrderEnforced(raw)


def turns(env):
    """The decisions of ``env``'s current episode (after ``reset``): yields ``(agent,
    observation, seat)`` for each agent to move, and the caller steps the env with its action;
    agents that are done are stepped with ``None`` here."""
    seat_of = {agent: seat for seat, agent in enumerate(env.unwrapped.possible_agents)}
    for agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        yield agent, observation, seat_of[agent]
