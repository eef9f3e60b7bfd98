"""Self-play actors: many games stepped in lockstep on the pure engine, the network batched over
every pending decision.

One :meth:`SelfPlayActor.step` makes one decision in each of its games: it writes every
observation and history into one array, groups the decisions by role, encodes each group's
states once, scores all their legal moves in one call and plays epsilon-greedily. When a game
ends, each of its decisions becomes a sample whose target is the deciding seat's return from
that decision to the end (Deep Monte-Carlo); full batches of one role go to the transport.

With a distribution of tables (:class:`climbrl.training.tables.Tables`) every new episode is played
at a table drawn from it; the network scores every table's moves from the run's stacked
feature table, so the ids in the histories and the batches are shifted by the offset of each
table's catalog (:meth:`Tables.offset`).

With ``opponents`` (a registry player -> share of episodes), that share of the episodes seats
the network at one seat drawn at random and the player at every other seat: the network
learns to beat it; the other episodes are self-play. The player's decisions are trained on
too with ``learn_opponents`` (each becomes a sample of its seat's return, as the network's
own do: the network learns what the player's moves are worth), else only the network's. With
``imitate`` (a number of moves) each of the player's samples also carries up to that many of
the other legal moves of its decision, drawn at random, for the learner's imitation loss
(:func:`climbrl.training.dmc.learn`: the player's move held above them).
"""

from __future__ import annotations

import copy
import dataclasses
import io
import os
import pickle
import signal

import numpy as np
import torch

from climbrl.envs.core.observers import seat_observer
from climbrl.policies.network import NetConfig, QNetwork, build_network
from climbrl.policies.spec import recent_actions_fn, return_groups, role_of, roles

from . import renamed
from .children import ORPHAN_EXIT, exit_with_parent
from .opponents import make_opponent, opponent_move
from .tables import Tables
from .transport import Batch, Transport

HIST_ACTION_DTYPE = np.int32
HIST_MOVER_DTYPE = np.int8
OTHERS_DTYPE = np.int32
NO_MOVE = -1
"""padding of a sample's other legal moves (and the whole row of a sample without them)"""
SAVED_WITHOUT_OPPONENTS = 6
"""the fields of an actor's saved state before the opponents' seats and players were kept"""
SAVED_WITH_OPPONENTS = 9


def move_classes(game) -> tuple[int, ...]:
    """``game.move_classes()``, made once per game (:meth:`~climbrl.envs.core.game.GameDefaults.derived`)."""
    return game.move_classes()


class NetPolicy:
    """Batched greedy / epsilon-greedy choices of one network per role, over engine states.

    ``cache_moves``: precompute the move part of every catalog action at each
    :meth:`refresh` (worth it when the weights stay fixed for many decisions, as in an
    evaluation); otherwise the moves of each batch are encoded as they come, which is cheaper
    for actors whose weights change after every learner update.

    ``tables``: the run's tables, when the states are of several tables (the networks then
    score the stacked feature table, :attr:`Tables.features`).
    """

    def __init__(self, game, nets: list[QNetwork], cache_moves: bool = False,
                 tables: Tables | None = None):
        self.game = game
        self.nets = nets
        self.tables = tables
        self.history_length = nets[0].config.history_length
        self._per_game: dict[int, tuple] = {}
        self.cache_moves = cache_moves
        self.move_codes: list[torch.Tensor | None] = [None] * len(nets)
        self.refresh()

    def refresh(self) -> None:
        """Call after the weights change."""
        if self.cache_moves:
            with torch.no_grad():
                self.move_codes = [net.move_codes() for net in self.nets]

    def _game_facts(self, game) -> tuple:
        """``(recent_actions, id offset)`` of a state's game."""
        facts = self._per_game.get(id(game))
        if facts is None:
            offset = 0 if self.tables is None else self.tables.offset(game)
            facts = self._per_game[id(game)] = (recent_actions_fn(game), offset)
        return facts

    def observe(self, states: list, seats: list[int], observers: list[dict] | None = None):
        """Observations, histories (ids shifted by each table's offset), legal moves (the
        game's own ids), roles and each decision's id offset. ``observers``: per state, the
        caller's dict of the incremental observers (:func:`seat_observer`) of that state's
        game slot, kept between calls so each observation is rewritten only where its state
        changed; without it every observation is written from scratch."""
        n = len(states)
        obs = np.empty((n, self.game.layout.size), np.float32)
        hist = np.empty((n, self.history_length, 2), np.int64)
        legal: list[list[int]] = []
        role = np.empty(n, np.int64)
        offsets = np.zeros(n, np.int64)
        for i, (st, seat) in enumerate(zip(states, seats)):
            game = st.game
            recent, offset = self._game_facts(game)
            if observers is None:
                game.observe(st, seat, obs[i])
            else:
                obs[i] = seat_observer(observers[i], game, seat).observe(st)
            rows = recent(st, seat, self.history_length)
            if offset:
                rows[:, 1] = np.where(rows[:, 1] >= 0, rows[:, 1] + offset, rows[:, 1])
            hist[i] = rows
            legal.append(st.legal_actions())
            role[i] = role_of(game, st, seat)
            offsets[i] = offset
        return obs, hist, legal, role, offsets

    def choose(self, obs, hist, legal, role, offsets, epsilon: float,
               rng: np.random.Generator) -> list[int]:
        n = len(legal)
        choices = [0] * n
        explore = rng.random(n) < epsilon if epsilon > 0 else np.zeros(n, bool)
        todo: dict[int, list[int]] = {}
        for i, moves in enumerate(legal):
            if len(moves) == 1:
                choices[i] = moves[0]
            elif explore[i]:
                choices[i] = moves[int(rng.integers(len(moves)))]
            else:
                todo.setdefault(int(role[i]), []).append(i)
        for r, idx in todo.items():
            q, starts = self.score(r, obs[idx], hist[idx], [legal[i] for i in idx],
                                   offsets[idx])
            for k, i in enumerate(idx):
                choices[i] = legal[i][int(np.argmax(q[starts[k]:starts[k + 1]]))]
        return choices

    def score(self, r: int, obs: np.ndarray, hist: np.ndarray, legal: list[list[int]],
              id_offsets: np.ndarray | None = None):
        """q of every legal move of a group of decisions of role ``r``, flat, and where each
        decision's moves start (``id_offsets``: each decision's table offset)."""
        lengths = np.fromiter((len(m) for m in legal), np.int64, len(legal))
        offsets = np.zeros(len(legal) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = np.fromiter((a for m in legal for a in m), np.int64, offsets[-1])
        if id_offsets is not None and id_offsets.any():
            flat += np.repeat(id_offsets, lengths)
        ids = torch.from_numpy(flat)
        seg = torch.from_numpy(np.repeat(np.arange(len(legal)), lengths))
        net = self.nets[r]
        with torch.no_grad():
            codes = net.encode(torch.from_numpy(obs), torch.from_numpy(hist[:, :, 1]),
                               torch.from_numpy(hist[:, :, 0]))
            q = net.score(codes, seg, ids, self.move_codes[r]).numpy()
        return q, offsets


class _GamePickler(pickle.Pickler):
    """Pickles states and players without their (large, rebuildable) game objects: the base
    game by name, a drawn table's by its rules, the parts a player keeps of a game (its
    catalog, move generator, hand evaluator) by the game and the attribute, and the tables a
    player derived from it (:meth:`~climbrl.envs.core.game.GameDefaults.derived`) by the game and
    their ``build``, so a saved state neither copies them nor keeps an older version's copy of
    them. One lookup per pickled object: a checkpoint pickles millions."""

    def __init__(self, file, tables: Tables):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.ids: dict[int, object] = {id(tables.base): "game"}
        for rules, game in tables.games.items():
            self.ids.setdefault(id(game), ("rules", rules))
        for game in (tables.base, *tables.games.values()):
            game_id = self.ids[id(game)]
            for key, (kind, *path) in _shared(game).items():
                self.ids.setdefault(key, (kind, game_id, *path))

    def persistent_id(self, obj):
        return self.ids.get(id(obj))


class _GameUnpickler(renamed.Unpickler):
    def __init__(self, file, tables: Tables):
        super().__init__(file)
        self.tables = tables

    def persistent_load(self, pid):
        if pid == "game":
            return self.tables.base
        kind = pid[0] if isinstance(pid, tuple) else None
        if kind == "rules":
            return self.tables.game_of_rules(pid[1])
        if kind == "part":
            return getattr(self.persistent_load(pid[1]), pid[2])
        if kind == "derived":
            table = self.persistent_load(pid[1]).derived(pid[2])
            return getattr(table, pid[3]) if len(pid) > 3 else table
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")


def _shared(game) -> dict[int, tuple]:
    """What a player may keep of ``game``, which a saved state names instead of copying, by
    id: its parts (catalog, move generator, hand evaluator: ``("part", attribute)``) and the
    tables players derived from it (``("derived", build)``, a field of one: ``("derived",
    build, field)``)."""
    ids: dict[int, tuple] = {}
    for name, value in _parts(game).items():
        ids.setdefault(id(value), ("part", name))
    derived = getattr(game, "derived_tables", dict)()  # an engine without GameDefaults: none
    for build, value in derived.items():
        if not hasattr(value, "__dict__"):
            continue
        ids.setdefault(id(value), ("derived", build))
        for name, field in vars(value).items():
            if isinstance(field, (tuple, list, dict)) and field:  # never a shared constant
                ids.setdefault(id(field), ("derived", build, name))
    return ids


def _parts(game) -> dict[str, object]:
    """The parts of ``game`` a player may keep: its attributes with state of their own, not
    classes nor the dataclasses of plain values (the rules, which a drawn game's own id
    holds)."""
    return {name: value for name, value in vars(game).items()
            if hasattr(value, "__dict__") and not isinstance(value, type)
            and not dataclasses.is_dataclass(value)}


def _share_parts(player, game) -> None:
    """Point ``player``'s copies of what it keeps of ``game`` back at the game's own: a state
    saved before they went by reference (:class:`_GamePickler`) read them back as copies,
    which every later save carried again (a Dou Dizhu checkpoint: 72 MB of them in an 86 MB
    file). A copy of the player bound afresh shows which attributes are the game's."""
    fresh = copy.copy(player)
    fresh.game = None
    fresh.bind(game)
    shared = _shared(game)
    for name, value in vars(fresh).items():
        if id(value) in shared and vars(player).get(name) is not value:
            setattr(player, name, value)


class SelfPlayActor:
    """``games`` matches in lockstep, feeding ``transport`` with batches of ``batch_size``.
    ``game``: an engine, or the run's :class:`~climbrl.training.tables.Tables` (every episode at a
    table drawn from them; the networks score their stacked feature table)."""

    def __init__(self, game, nets: list[QNetwork], transport: Transport, games: int,
                 epsilon: float, batch_size: int, rng: np.random.Generator, actor_id: int = 0,
                 start: dict | None = None, opponents: dict | None = None,
                 learn_opponents: bool = False, imitate: int = 0):
        if games < 1:
            raise ValueError(f"games_per_actor must be at least 1, got {games}")
        self.opponents = list((opponents or {}).items())
        self.slot_players: list[dict[str, tuple]] = [{} for _ in range(games)]
        """each game's opponents: name -> (the game it is bound to, the player); one per game
        slot, so memory and checkpoints stay bounded however many tables are drawn"""
        self.made = 0
        """opponents made so far (each one's seed)"""
        self.learn_opponents = learn_opponents
        self.imitate = imitate
        """other legal moves kept with each of an opponent's samples (0: none)"""
        self.tables = game if isinstance(game, Tables) else Tables.of_game(game)
        self.game = game = self.tables.base
        self.new_episode = self.tables.episode_starter(start)
        self.role_names = roles(game)
        self.policy = NetPolicy(game, nets, tables=self.tables if self.tables.keys else None)
        self.transport = transport
        self.epsilon = epsilon
        self.batch_size = batch_size
        self.rng = rng
        self.actor_id = actor_id
        self.version = -1
        self.states = [self.new_episode(rng) for _ in range(games)]
        self.seated: list[dict[int, str]] = [self._seat_opponents(st) for st in self.states]
        """each game's seats held by an opponent: seat -> its name"""
        self.trajectories: list[list[tuple]] = [[] for _ in range(games)]
        self.samples: list[list[tuple]] = [[] for _ in self.role_names]
        self.episodes: list[dict] = []
        self.decisions = np.zeros(len(self.role_names), np.int64)
        """decisions made per role (for speed figures)"""
        self.observers: list[dict] = [{} for _ in range(games)]
        """each game slot's incremental observers (:func:`seat_observer`; never saved)"""

    def sync_weights(self) -> None:
        got = self.transport.fetch_weights(self.version)
        if got is None:
            return
        self.version, weights = got
        for name, net in zip(self.role_names, self.policy.nets):
            net.load_state_dict(weights[name])
        self.policy.refresh()

    def step(self) -> int:
        """One decision in every game; returns the number of decisions made."""
        self.sync_weights()
        if self.opponents:
            self._play_opponents()
        states = self.states
        seats = [st.current_player for st in states]
        obs, hist, legal, role, offsets = self.policy.observe(states, seats, self.observers)
        choices = self.policy.choose(obs, hist, legal, role, offsets, self.epsilon, self.rng)
        np.add.at(self.decisions, role, 1)
        for i, st in enumerate(states):
            seat = seats[i]
            self._record(i, st, seat, int(role[i]), obs[i], hist[i], choices[i] + int(offsets[i]))
            st.apply(choices[i])
            if st.terminal:
                self._finish(i)
        return len(states)

    def _record(self, i: int, st, seat: int, role: int, obs, hist, action: int,
                others: np.ndarray | None = None) -> None:
        """A decision of game ``i`` (``action``: its id shifted by the table's offset; with
        ``others``, an opponent's: other legal moves, shifted too), to become a sample when the
        episode ends."""
        self.trajectories[i].append((role, seat, obs, hist, action, st.returns()[seat], others))

    def _others(self, game, legal: list[int], move: int, offset: int) -> np.ndarray:
        """Up to ``imitate`` legal moves that do not play like ``move`` (the game's
        ``move_classes``: ``4h`` is no other move than ``4s`` where no rule reads suits), drawn
        at random, shifted by the table's ``offset``, padded with :data:`NO_MOVE`."""
        classes = game.derived(move_classes)
        rest = np.array([a for a in legal if classes[a] != classes[move]], np.int64)
        if len(rest) > self.imitate:
            rest = self.rng.choice(rest, self.imitate, replace=False)
        row = np.full(self.imitate, NO_MOVE, OTHERS_DTYPE)
        row[: len(rest)] = rest + offset
        return row

    def _finish(self, i: int) -> None:
        st = self.states[i]
        final = st.returns()
        traj = self.trajectories[i]
        for r, seat, obs, hist, action, before, *others in traj:  # (saved before: no others)
            self.samples[r].append((obs, hist, action, final[seat] - before, *others))
        seated = self.seated[i]
        episode = {"returns": {name: final[s] for name, s in return_groups(st.game, st)
                               if s not in seated},
                   "length": len(traj)}
        if self.tables.keys:
            episode["table"] = self.tables.label_of(st.game)
        self.episodes.append(episode)
        self.states[i] = self.new_episode(self.rng)
        self.seated[i] = self._seat_opponents(self.states[i])
        self.trajectories[i] = []
        for r, pool in enumerate(self.samples):
            while len(pool) >= self.batch_size:
                self._emit(r, pool[: self.batch_size])
                del pool[: self.batch_size]

    # -- opponents -----------------------------------------------------------------------------

    def _seat_opponents(self, state) -> dict[int, str]:
        """The opponent seats of a new episode (no draw at all without opponents)."""
        if not self.opponents:
            return {}
        u = self.rng.random()
        for name, share in self.opponents:
            if u < share:
                players = state.game.num_players
                mine = int(self.rng.integers(players))
                return {seat: name for seat in range(players) if seat != mine}
            u -= share
        return {}

    def _player(self, i: int, name: str, game):
        bound_to, player = self.slot_players[i].get(name, (None, None))
        if bound_to is not game:  # a new table in this slot
            player = make_opponent(name, game, [self.actor_id, self.made])
            self.made += 1
            self.slot_players[i][name] = (game, player)
        return player

    def _play_opponents(self) -> None:
        """Every game on to a decision of the network: the opponents' moves, and the episodes
        they end."""
        for i in range(len(self.states)):
            st = self.states[i]
            while st.current_player in self.seated[i]:
                seat = st.current_player
                player = self._player(i, self.seated[i][seat], st.game)
                if self.learn_opponents:  # the sample's observation is the player's too
                    obs, hist, legal, role, offsets = self.policy.observe([st], [seat])
                    move = opponent_move(player, st.game, st, seat, obs[0])
                    offset = int(offsets[0])
                    others = (self._others(st.game, legal[0], move, offset) if self.imitate
                              else None)
                    self._record(i, st, seat, int(role[0]), obs[0], hist[0], move + offset,
                                 others)
                else:
                    move = opponent_move(player, st.game, st, seat)
                st.apply(move)
                if st.terminal:
                    self._finish(i)
                    st = self.states[i]

    def _emit(self, r: int, rows: list[tuple]) -> None:
        hist = np.stack([row[1] for row in rows])
        batch = Batch(
            role=r,
            obs=np.stack([row[0] for row in rows]),
            hist_actions=hist[:, :, 1].astype(HIST_ACTION_DTYPE),
            hist_movers=hist[:, :, 0].astype(HIST_MOVER_DTYPE),
            actions=np.array([row[2] for row in rows], np.int32),
            targets=np.array([row[3] for row in rows], np.float32),
            others=self._others_rows(rows),
            actor=self.actor_id,
            episodes=self.episodes,
        )
        self.episodes = []
        self.transport.put_batch(batch)

    def _others_rows(self, rows: list[tuple]) -> np.ndarray | None:
        """The batch's other legal moves ``[B, imitate]`` (a row of :data:`NO_MOVE` for a
        sample without them), or None when no sample has them."""
        if not self.imitate:
            return None
        kept = [row[4] if len(row) > 4 else None for row in rows]
        if all(k is None for k in kept):
            return None
        out = np.full((len(rows), self.imitate), NO_MOVE, OTHERS_DTYPE)
        for b, k in enumerate(kept):
            if k is not None:  # (saved by a run that kept another number of moves: cut, padded)
                out[b, : len(k)] = k[: self.imitate]
        return out

    # -- exact resume (inline actor) ---------------------------------------------------------------

    def get_state(self) -> bytes:
        buf = io.BytesIO()
        _GamePickler(buf, self.tables).dump(
            (self.states, self.trajectories, self.samples, self.episodes, self.rng,
             self.version, self.seated, self.slot_players, self.made)
        )
        return buf.getvalue()

    def set_state(self, data: bytes) -> None:
        saved = _GameUnpickler(io.BytesIO(data), self.tables).load()
        if len(saved) == SAVED_WITHOUT_OPPONENTS:  # a run saved before opponents existed
            saved = (*saved, [{} for _ in saved[0]], [{} for _ in saved[0]], 0)
        if len(saved) != SAVED_WITH_OPPONENTS:
            raise ValueError(f"actor state of {len(saved)} fields; this version reads "
                             f"{SAVED_WITHOUT_OPPONENTS} or {SAVED_WITH_OPPONENTS}")
        (self.states, self.trajectories, self.samples, self.episodes, self.rng,
         self.version, self.seated, self.slot_players, self.made) = saved
        self.version = -1  # reload the weights on the next step
        for slot in self.slot_players:
            for game, player in slot.values():
                _share_parts(player, game)


def build_actor(actor_id: int, game_kwargs: dict, net_config: dict, transport, games: int,
                epsilon: float, batch_size: int, seed: list[int],
                start: dict | None = None, opponents: dict | None = None,
                learn_opponents: bool = False, imitate: int = 0) -> SelfPlayActor:
    """A self-play actor of its own process (a spawned one, a Ray actor), from plain values:
    one torch thread, its tables (``game_kwargs``: the arguments of
    :class:`~climbrl.training.tables.Tables`), fresh networks (the weights come through
    ``transport``) and a generator seeded with ``seed``."""
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    tables = Tables(**game_kwargs)
    cfg = NetConfig.from_dict(net_config)
    nets = [build_network(tables.base, cfg, tables.features).eval()
            for _ in roles(tables.base)]
    return SelfPlayActor(tables, nets, transport, games, epsilon, batch_size,
                         np.random.default_rng(seed), actor_id, start, opponents,
                         learn_opponents, imitate)


def actor_process(actor_id: int, game_kwargs: dict, net_config: dict, transport,
                  games: int, epsilon: float, batch_size: int, seed: list[int],
                  start: dict | None = None, opponents: dict | None = None,
                  learn_opponents: bool = False, imitate: int = 0) -> None:
    """Entry point of one actor process (spawned): steps its games until told to stop, or
    exits as soon as the learner (its parent) is gone."""
    exit_with_parent(transport.learner_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the learner decides when to stop
    actor = build_actor(actor_id, game_kwargs, net_config, transport, games, epsilon,
                        batch_size, seed, start, opponents, learn_opponents, imitate)
    while not transport.stop.is_set():
        if not transport.learner_alive():
            os._exit(ORPHAN_EXIT)
        actor.step()
