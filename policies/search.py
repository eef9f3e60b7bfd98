"""``search:<cpu>``: a trained network that searches at play time, the strongest CPU level.

The network (any CPU :func:`climbrl.policies.neural.load` reads: an exported folder or a checkpoint)
ranks the legal moves; the determinized Monte Carlo of the game's ``scripted-hard`` player
(:class:`climbrl.policies.montecarlo.DeterminizedSearch`, with that game's hand sampler, position
rebuild and fast rollout policy) then checks the network's best candidates. Each decision of
the play phase:

1. the network's q value (its expected return) of every legal move; the candidates are its
   ``top_k`` best, then the first ``scripted`` moves of the scripted hard player's own ranking
   not among them; with ``lead=scripted`` the other way round: the scripted ranking's first
   ``scripted`` moves (one at least), then the network's ``top_k`` best not among them;
2. the scripted search plays every candidate out from the same determinizations (hidden hands
   dealt consistently with this seat's view, never from the other seats' cards), ``rollouts``
   playouts in all (or until ``time_ms``);
   with ``leaf=true`` each playout stops instead at this seat's next decision, valued by the
   network's best q there (at the end of the game: its return; when this seat's round is
   scored first but the match goes on: the network's q of the candidate), the leaves of a
   determinization scored in one batch, inside ``time_ms``;
3. the first candidate (the network's first choice; the scripted player's with
   ``lead=scripted``) stands unless another candidate's mean paired gain over it, plus
   ``prior`` times its q difference (q of the candidate minus q of the first candidate),
   beats it by more than ``switch_z`` standard errors of the paired difference.

The playouts are scored in the reward mode the network was trained on (``value=network``, the
default), whatever the table's: a network trained on wins (Dou Dizhu's ``reward="win"``)
searches for the move that wins most often, and its q values (leaves, prior) and the playout
returns add up in one unit. ``value=table`` scores them as the table does (its points).

Decisions outside the play phase (Daifugo's exchange of cards, Dou Dizhu's bidding) are not
searched: they are the network's (``setup=network``, the default) or the scripted hard
player's (``setup=scripted``). Forced moves are played at once. Every random draw comes from
the player's seeded generator.

Spec: ``search:<path>`` with knobs after colons, ``search:cpus/daifugo:top_k=4:rollouts=400``;
in ``configs/cpus.yaml`` the path is read from the config's folder, like a bare CPU path
(``hard: search:../cpus/daifugo``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from climbrl.envs import GAMES
from climbrl.envs.core.checks import as_int_in, as_real
from climbrl.envs.core.game import seat_observation

from .base import Player, legal_ids
from .montecarlo import DEFAULT_SWITCH_Z, DeterminizedSearch, paired_pick

PREFIX = "search"
SEPARATOR = ":"
#: the phase, in both engines' views, whose moves the scripted search can play out
PLAY_PHASE = "play"
DEFAULT_TOP_K = 4
DEFAULT_SCRIPTED = 0
DEFAULT_ROLLOUTS = 400
DEFAULT_PRIOR = 0.0
#: ``value``: what a playout's outcome is worth: in the network's reward mode or the table's
VALUES = ("network", "table")
DEFAULT_VALUE = "network"
#: ``lead``: whose first choice is the default move that the playouts must beat
LEADS = ("network", "scripted")
DEFAULT_LEAD = "network"
#: ``setup``: who makes the decisions outside the play phase (the exchange, the bidding)
SETUPS = LEADS
DEFAULT_SETUP = "network"


def is_spec(spec: Any) -> bool:
    """``spec`` names a searching CPU (``search:<path>...``)."""
    return isinstance(spec, str) and spec.strip().startswith(PREFIX + SEPARATOR)


def split_spec(spec: str) -> tuple[str, list[str]]:
    """``"search:cpus/x:top_k=3"`` -> ``("cpus/x", ["top_k=3"])``: the CPU path and the knob
    texts (for :func:`climbrl.policies.registry.parse_spec`)."""
    if not is_spec(spec):
        raise ValueError(f"a searching CPU is named {PREFIX}{SEPARATOR}<cpu path>, got {spec!r}")
    path, *knobs = spec.strip()[len(PREFIX) + 1 :].split(SEPARATOR)
    if not path.strip():
        raise ValueError(f"player spec {spec!r} names no CPU path after {PREFIX}{SEPARATOR}")
    return path.strip(), knobs


class NetworkSearch(Player):
    """A network's ranking checked by the scripted hard player's search (module docstring).

    ``network``: a :class:`climbrl.policies.neural.NeuralPlayer` (its ``scores``); ``make_searcher``:
    ``(**knobs) -> DeterminizedSearch`` player of the game (``scripted-hard`` with the budget
    knobs ``rollouts``, ``time_ms``, ``switch_z``). Knobs: ``top_k``, ``scripted``, ``lead``,
    ``setup``, ``prior``, ``leaf``, ``value`` and those three; ``time_ms`` caps a decision's
    search (0 = no cap; a timed player no longer replays exactly).
    """

    name = PREFIX
    KNOBS = ("top_k", "scripted", "lead", "setup", "prior", "leaf", "value", "rollouts",
             "time_ms", "switch_z")

    def __init__(self, network, make_searcher: Callable[..., DeterminizedSearch], seed=None,
                 name: str | None = None, top_k: int = DEFAULT_TOP_K,
                 scripted: int = DEFAULT_SCRIPTED, lead: str = DEFAULT_LEAD,
                 setup: str = DEFAULT_SETUP, prior: float = DEFAULT_PRIOR,
                 leaf: bool = False, value: str = DEFAULT_VALUE,
                 rollouts: int = DEFAULT_ROLLOUTS, time_ms: float = 0.0,
                 switch_z: float = DEFAULT_SWITCH_Z, **knobs):
        super().__init__(seed)
        if name is not None:
            self.name = name
        self.unknown_knobs(knobs)
        self.top_k = as_int_in(top_k, "top_k", 1)
        self.scripted = as_int_in(scripted, "scripted", 0)
        self.prior = as_real(prior, "prior")
        if self.prior < 0:
            raise ValueError(f"prior must be >= 0, got {prior!r}")
        if leaf not in (True, False):  # 0 and 1 too
            raise ValueError(f"leaf must be true or false, got {leaf!r}")
        self.leaf = bool(leaf)
        if value not in VALUES:
            raise ValueError(f"value must be one of {', '.join(VALUES)}, got {value!r}")
        self.value = value
        if lead not in LEADS:
            raise ValueError(f"lead must be one of {', '.join(LEADS)}, got {lead!r}")
        self.lead = lead
        if setup not in SETUPS:
            raise ValueError(f"setup must be one of {', '.join(SETUPS)}, got {setup!r}")
        self.setup = setup
        self.network = network
        self.searcher = make_searcher(rollouts=rollouts, time_ms=time_ms, switch_z=switch_z,
                                      candidates=max(self.scripted, 1))
        if not isinstance(self.searcher, DeterminizedSearch):
            raise TypeError(f"{self.name!r}: the searcher {self.searcher!r} is not a "
                            "DeterminizedSearch player")
        self.searcher.rng = self.rng

    @property
    def fingerprint(self) -> str | None:
        return self.network.fingerprint

    @property
    def rollouts(self) -> int:
        return self.searcher.rollouts

    @property
    def switch_z(self) -> float:
        return self.searcher.switch_z

    def seed(self, seed) -> None:
        super().seed(seed)
        self.searcher.rng = self.rng  # one stream: the search draws from the player's own

    def bind(self, game) -> NetworkSearch:
        """Attach to ``game``: the network checks it is the game it was trained on (naming
        what differs), the scripted search that it can play it (in :meth:`searched_game`)."""
        if game is not self.game:
            self.network.bind(game)
            self.searcher.bind(self.searched_game(game))
            self.game = game
        return self

    def searched_game(self, game):
        """The engine the playouts run in: ``game``'s table scored in the network's reward
        mode (``value=network``), or ``game`` itself (``value=table``, or the same mode)."""
        trained = self.network.meta["spec"]["config"].get("reward")
        config = game.config_dict()
        if self.value == "table" or trained is None or config.get("reward") == trained:
            return game
        return GAMES[game.name].from_config({**config, "reward": trained})

    def candidates(self, observation, view) -> tuple[list[int], list[float]]:
        """The moves to search, the default move first (the network's first choice, or with
        ``lead=scripted`` the scripted player's in the play phase), and each one's q."""
        legal, q = self.network.scores(observation, view)
        network = [int(legal[i]) for i in np.argsort(-q, kind="stable")]
        lists = [(network, self.top_k)]
        scripted_first = self.lead == "scripted" and view["phase"] == PLAY_PHASE
        if len(legal) > 1 and (self.scripted or scripted_first):
            ranked = self.searcher.ranked(view, legal.tolist())
            if scripted_first:
                lists.insert(0, (ranked, max(self.scripted, 1)))
            else:
                lists.append((ranked, self.scripted))
        moves: list[int] = []
        for ranking, count in lists:
            moves += [a for a in ranking if a not in moves][:count]
        by_move = dict(zip(legal.tolist(), q.tolist()))
        return moves, [by_move[a] for a in moves]

    def act(self, observation, view) -> int:
        self._require_game()
        legal = legal_ids(observation)
        if len(legal) == 1:
            return legal[0]
        if view["phase"] != PLAY_PHASE and self.setup == "scripted":
            return self.searcher.act(observation, view)
        moves, q = self.candidates(observation, view)
        if len(moves) == 1 or view["phase"] != PLAY_PHASE:
            return moves[0]
        if self.leaf:
            values = self.leaf_values(view, moves, q)
        else:
            values = self.searcher.playout_values(view, moves)
        bonus = [self.prior * (qa - q[0]) for qa in q]
        return moves[paired_pick(values, self.switch_z, bonus)]

    def leaf_values(self, view, moves: list[int], q: list[float]) -> list[list[float]]:
        """Each candidate's values from playouts cut at this seat's next decision (module
        docstring, ``leaf``), paired like :meth:`DeterminizedSearch.playout_values`. The
        leaves of each determinization are scored before the next one is drawn, so the
        network's time counts in ``time_ms`` like the playouts'."""
        seat = view["seat"]
        values: list[list[float]] = [[] for _ in moves]
        for root, seed in self.searcher.determinizations(view, len(moves)):
            leaves = []  # (candidate, leaf state)
            for i, action in enumerate(moves):
                value, leaf = self.descend(root.clone(), seat, action, random.Random(seed))
                values[i].append(q[i] if value is None else value)
                if leaf is not None:
                    leaves.append((i, leaf))
            if leaves:
                for (i, _state), best in zip(leaves, self.best_q(view, [s for _i, s in leaves])):
                    values[i][-1] += best
        return values

    def best_q(self, view, states) -> list[float]:
        """The network's best q, for this seat, at each of ``states`` (its decisions), scored
        in one batch; each leaf's view carries the history before the search's root."""
        game, seat = self.searcher.game, view["seat"]
        observations, views = [], []
        for state in states:
            observations.append(seat_observation(game, state, seat))
            leaf_view = state.view(seat)
            leaf_view["history"] = [*view["history"], *leaf_view["history"]]
            views.append(leaf_view)
        return [float(leaf_q.max()) for _legal, leaf_q in
                self.network.scores_batch(observations, views)]

    def descend(self, state, seat: int, action: int, rnd: random.Random):
        """Play ``action``, then the rollout policy for the others until ``seat`` moves again:
        ``(reward on the way, that state)``; ``(return, None)`` when the game ends first,
        ``(None, None)`` when ``seat``'s round is scored first and the match goes on."""
        total = 0.0
        while True:
            rewards = state.apply(action)
            if rewards is not None:
                return (total + rewards[seat], None) if state.terminal else (None, None)
            if state.current_player == seat:
                return total, state
            legal = state.legal_actions()
            action = legal[0] if len(legal) == 1 else self.searcher.rollout_move(state, legal, rnd)

