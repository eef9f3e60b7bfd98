"""The climbrl environments in other trainers: a single-agent Gymnasium env for one seat, and
the multi-agent wrappers of Tianshou and RLlib.

* :func:`single_seat`: one seat of a game against fixed opponents (any player of
  :func:`climbrl.policies.load`, or player objects) as a ``gymnasium.Env`` with a flat ``Box``
  observation (the env's observation vector), ``Discrete`` actions and ``action_masks()``,
  the interface of sb3-contrib's ``MaskablePPO``::

      from sb3_contrib import MaskablePPO
      env = single_seat("daifugo", seat=0, opponents=["medium"] * 3, rounds=1)
      MaskablePPO("MlpPolicy", env).learn(10_000)

* :func:`tianshou_env`: Tianshou's ``PettingZooEnv`` over a climbrl env (it reads the
  ``observation`` and ``action_mask`` keys our envs already have);
* :func:`rllib_env`: RLlib's ``PettingZooEnv`` over a climbrl env whose observations carry
  the keys of RLlib's action-masking RLModule (``observations``, and ``action_mask`` as
  float32).

Only this module imports Gymnasium wrappers of other libraries, each lazily, and the players
(:mod:`policies`, which imports :mod:`envs`) only when an opponent is given by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from . import ENV_MODULES
from .core.aec import turns

GAMES = tuple(ENV_MODULES)
SEATS = {"doudizhu": 3}
"""games whose table size is not the number of players given (Dou Dizhu: 3, unless
``players=4`` is passed)"""
EPISODE_SEEDS = 2**63
"""episode seeds are drawn below this from the env's generator"""


def make(game: str, **kwargs):
    """The PettingZoo env of ``game`` (``daifugo``, ``president``, ``doudizhu``) built with
    ``kwargs`` (players, rounds, reward, house rules)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    return importlib.import_module(ENV_MODULES[game]).env(**kwargs)


def _player(game: str, opponent: Any):
    """A player object from a registry name (``climbrl.policies.load``) or a player as it is."""
    if isinstance(opponent, str):
        from climbrl import policies

        return policies.load(game, opponent)
    for method in ("bind", "act", "seed"):
        if not callable(getattr(opponent, method, None)):
            raise TypeError(f"opponent {opponent!r} is neither a player name nor a player "
                            f"(it has no {method}() method)")
    return opponent


class SingleSeatEnv(gymnasium.Env):
    """One seat of a climbrl game as a single-agent Gymnasium env; the other seats are played
    by ``opponents`` (module docstring). A step plays the agent's move, then the opponents'
    until the agent is to move again or the episode ends; its reward is what the seat got in
    between (round rewards in Daifugo/President, the score in Dou Dizhu). An illegal move
    ends the episode with the env's ``illegal_reward`` (``action_masks()`` avoids them).

    Seeding: ``reset(seed=s)`` restarts the env's generator; each episode draws its seed from
    it, and the deal and every opponent's random stream derive from that episode seed."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, game: str, seat: int = 0, opponents: Sequence = (),
                 render_mode: str | None = None, **kwargs):
        if isinstance(opponents, str):
            raise TypeError(f"opponents must be a list of players, one per other seat, got "
                            f"the string {opponents!r}")
        opponents = list(opponents)
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
        if game in SEATS:
            players = kwargs.get("players", SEATS[game])
        else:
            players = kwargs.setdefault("players", len(opponents) + 1)
        if len(opponents) != players - 1:
            raise ValueError(f"{game} with {players} players needs {players - 1} opponents, "
                             f"got {len(opponents)}: {opponents!r}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be an integer from 0 to {players - 1}, got {seat!r}")
        self.aec = make(game, render_mode=render_mode, **kwargs)
        self.raw = self.aec.unwrapped
        self.seat = seat
        self.agent = self.raw.possible_agents[seat]
        self.render_mode = render_mode
        self.opponents = {s: _player(game, o) for s, o in
                          zip((s for s in range(players) if s != seat), opponents)}
        space = self.raw.observation_space(self.agent)
        self.observation_space = space["observation"]
        self.action_space = self.raw.action_space(self.agent)
        self._turns = iter(())
        self._obs: dict | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        episode = int(self.np_random.integers(EPISODE_SEEDS))
        self.aec.reset(seed=episode, options=options)
        for slot, (seat, player) in enumerate(sorted(self.opponents.items())):
            player.seed(np.random.SeedSequence([episode, slot, seat]))
            player.bind(self.raw.game)
        self._turns = turns(self.aec)
        self._advance()
        return self._observation(), self._info()

    def step(self, action):
        if self._obs is None:
            raise RuntimeError("step() after the episode ended: call reset()")
        self.aec.step(int(action))
        reward = self.raw.rewards[self.agent] + self._advance()
        terminated = self._obs is None
        return self._observation(), float(reward), terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent's seat as booleans (all false once the episode
        ended)."""
        if self._obs is None:
            return np.zeros(self.action_space.n, bool)
        return self._obs["action_mask"].astype(bool)

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def _advance(self) -> float:
        """Play the opponents until the agent is to move (its observation in ``_obs``) or the
        episode ends (``_obs`` None); returns the agent's rewards meanwhile."""
        reward = 0.0
        for _agent, obs, seat in self._turns:
            if seat == self.seat:
                self._obs = obs
                return reward
            player = self.opponents[seat]
            self.aec.step(int(player.act(obs, self.raw.view(seat))))
            reward += self.raw.rewards[self.agent]
        self._obs = None
        return reward

    def _observation(self) -> np.ndarray:
        if self._obs is not None:
            return self._obs["observation"]
        return self.raw.game.observe(self.raw.game_state, self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks()}


def single_seat(game: str, seat: int = 0, opponents: Sequence = ("random",) * 3,
                **kwargs) -> SingleSeatEnv:
    """Seat ``seat`` of ``game`` against ``opponents`` (one per other seat, in seat order:
    registry names such as ``"medium"`` or player objects) as a Gymnasium env;
    ``kwargs`` go to the game's env (``rounds``, ``reward``, house rules, ``render_mode``).
    Daifugo and President seat ``len(opponents) + 1`` players."""
    return SingleSeatEnv(game, seat, opponents, **kwargs)


def tianshou_env(game: str, **kwargs):
    """Tianshou's ``PettingZooEnv`` over the env of ``game`` (``pip install
    'climbrl[tianshou]'``); its observations are ``{"agent_id", "obs", "mask"}``."""
    from tianshou.env import PettingZooEnv

    return PettingZooEnv(make(game, **kwargs))


class RLlibObservations(BaseWrapper):
    """A climbrl env whose observations are ``{"observations": vector, "action_mask":
    float32}``, the dict RLlib's action-masking RLModule reads."""

    def __init__(self, env):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        mask = inner["action_mask"]
        self._space = spaces.Dict({
            "observations": inner["observation"],
            "action_mask": spaces.Box(0.0, 1.0, mask.shape, np.float32),
        })

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}


def rllib_env(game: str, **kwargs):
    """RLlib's ``PettingZooEnv`` over the env of ``game`` with RLlib's observation keys
    (:class:`RLlibObservations`); pair it with RLlib's ``ActionMaskingTorchRLModule``
    (``pip install 'climbrl[rllib]'``)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(RLlibObservations(make(game, **kwargs)))
