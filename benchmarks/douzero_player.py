"""A DouZero checkpoint as a climbrl Dou Dizhu player: the player spec ``douzero:<folder>``.

DouZero (``pip install douzero``) trains one network per position: ``landlord``,
``landlord_down`` (the peasant after the landlord in play order) and ``landlord_up`` (the one
before it). :class:`DouZeroPlayer` plays such a checkpoint in our env through the one player
protocol: at each decision it builds DouZero's ``InfoSet`` from the seat's view alone (its hand,
the cards nobody has shown, every seat's plays, cards left, bombs: never another seat's hidden
cards), encodes it with DouZero's own ``douzero.env.env.get_obs`` and plays the legal move its
network values highest. The moves scored are the env's legal moves (the action mask), written
as DouZero's card lists; where DouZero's move generator differs from our rules (both jokers as
single kickers, a pile read one way only: see ``climbrl.benchmarks.crosscheck``) the env's rules win.

DouZero has no bidding: it plays Dou Dizhu only with the landlord fixed (``climbrl eval
--landlord fixed``); a bidding decision is refused with an error saying so.

A checkpoint folder holds one weights file per position: ``landlord.ckpt``,
``landlord_up.ckpt``, ``landlord_down.ckpt`` (DouZero's released models) or DouZero's training
output ``<position>_weights_<frames>.ckpt`` (the largest ``frames`` is used)::

    climbrl eval --game doudizhu --landlord fixed --players douzero:runs/dz,medium,medium

:func:`infoset_from_view` and :func:`douzero_legal_moves` are the adapter's two halves, kept
apart so a test can compare DouZero's legal moves for a position with ours.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from climbrl.envs.doudizhu.cards import parse
from climbrl.policies.base import Player, legal_ids
from climbrl.policies.neural import files_digest

from .peers import douzero_cards

POSITIONS = ("landlord", "landlord_down", "landlord_up")
"""DouZero's positions by seats after the landlord in play order (0, 1, 2)."""
SPEC_PREFIX = "douzero:"
PASS_TEXT = "pass"
PLAY_PHASE = "play"
SEATS = len(POSITIONS)
WEIGHTS = re.compile(r"^(landlord|landlord_up|landlord_down)_weights_(\d+)\.ckpt$")
INSTALL_HINT = "pip install douzero (torch first: pip install torch==2.13.0)"


def douzero_move(text: str) -> list[int]:
    """Our play text (``"33344"``, ``"BR"``, ``"pass"``) as DouZero's sorted card list."""
    return [] if text == PASS_TEXT else douzero_cards(parse(text))


def infoset_from_view(view: dict[str, Any]):
    """DouZero's ``InfoSet`` of the seat to move, from ``env.unwrapped.view(seat)`` alone.
    ``legal_actions`` is left empty (the caller fills it); ``all_handcards``, the hands of
    every seat, stays ``None``: a view holds no other hand, and DouZero's observation does
    not read it."""
    from douzero.env.game import InfoSet

    if view.get("phase") != PLAY_PHASE:
        raise ValueError(
            f"DouZero plays only with the landlord fixed (climbrl eval --landlord fixed); it "
            f"has no bidding, and this is a {view.get('phase')!r} decision")
    seat, landlord = view["seat"], view["landlord"]

    def position(s: int) -> str:
        return POSITIONS[(s - landlord) % SEATS]

    info = InfoSet(position(seat))
    info.player_hand_cards = douzero_cards(parse(view["hand"]))
    info.num_cards_left_dict = {position(s): n for s, n in enumerate(view["cards_left"])}
    # every card outside this hand is in another hand or played: the unseen cards are the
    # union of the other two hands, which DouZero's observation reads (as a multiset)
    info.other_hand_cards = douzero_cards(parse(view["unseen"]))
    info.played_cards = {position(s): douzero_cards(parse(cards))
                         for s, cards in enumerate(view["played"])}
    sequence = [douzero_move(text) for _, text in view["history"]]
    info.card_play_action_seq = sequence
    info.last_move_dict = {p: [] for p in POSITIONS}
    info.last_pid = POSITIONS[0]
    for s, text in view["history"]:
        move = douzero_move(text)
        info.last_move_dict[position(s)] = move
        if move:
            info.last_pid = position(s)
    # the move to beat as DouZero reads it: the last one, or the one before a pass
    info.last_move = (sequence[-2] if not sequence[-1] else sequence[-1]) if sequence else []
    info.last_two_moves = sequence[-1:] + sequence[-2:-1] + [[]] * max(0, 2 - len(sequence))
    info.bomb_num = view["bombs"]
    kitty = Counter(douzero_cards(parse(view["kitty"])))
    kitty.subtract(Counter(info.played_cards[POSITIONS[0]]))
    info.three_landlord_cards = sorted((+kitty).elements())
    info.legal_actions = []
    return info


def douzero_legal_moves(info) -> list[list[int]]:
    """The legal moves DouZero's own generator lists for ``info`` (its hand and the moves so
    far), as its ``GameEnv`` computes them during play."""
    from douzero.env.game import GameEnv

    game = GameEnv({p: None for p in POSITIONS})
    game.info_sets[info.player_position].player_hand_cards = list(info.player_hand_cards)
    game.card_play_action_seq = [list(m) for m in info.card_play_action_seq]
    game.acting_player_position = info.player_position
    return game.get_legal_card_play_actions()


def weight_files(folder: str | Path) -> dict[str, Path]:
    """Position -> weights file of a DouZero checkpoint folder (module docstring);
    ``ValueError`` naming the folder and what is missing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"DouZero checkpoint {str(folder)!r} is not a folder")
    found: dict[str, Path] = {}
    newest: dict[str, int] = {}
    for path in folder.iterdir():
        m = WEIGHTS.match(path.name)
        if m and int(m.group(2)) >= newest.get(m.group(1), -1):
            newest[m.group(1)] = int(m.group(2))
            found[m.group(1)] = path
    for position in POSITIONS:
        released = folder / f"{position}.ckpt"
        if released.is_file():
            found[position] = released
    missing = [p for p in POSITIONS if p not in found]
    if missing:
        raise ValueError(f"DouZero checkpoint {str(folder)!r} has no weights for "
                         f"{', '.join(missing)} (<position>.ckpt or "
                         f"<position>_weights_<frames>.ckpt)")
    return found


def weights_fingerprint(files: dict[str, Path]) -> str:
    """A digest of the weights files a checkpoint folder plays with (:func:`weight_files`;
    the player's ``fingerprint``): DouZero trained on in the same folder is another player."""
    return files_digest(files[position] for position in POSITIONS)


class DouZeroPlayer(Player):
    """DouZero's networks of a checkpoint folder (module docstring); greedy, on the CPU."""

    family = "Dou Dizhu"

    def __init__(self, folder: str | Path, seed=None):
        super().__init__(seed)
        import torch
        from douzero.dmc.models import model_dict

        from climbrl.envs.doudizhu.engine import DoudizhuGame

        self.game_types = (DoudizhuGame,)
        self.folder = str(folder)
        self.files = weight_files(folder)
        self.models = {}
        for position, path in self.files.items():
            model = model_dict[position]()
            try:
                state = torch.load(path, map_location="cpu", weights_only=True)
                model.load_state_dict(state)
            except Exception as err:  # a damaged or foreign file: one line naming it
                detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                raise ValueError(f"DouZero weights {str(path)!r} do not load ({detail})") from None
            self.models[position] = model.eval()
        self._torch = torch

    @cached_property
    def fingerprint(self) -> str:
        """The digest of the weights files it plays (read when first asked for: an
        evaluation's identity)."""
        return weights_fingerprint(self.files)

    def bind(self, game) -> DouZeroPlayer:
        self.check_game(game)
        if game.num_players != SEATS:
            raise TypeError(f"DouZero plays Dou Dizhu for {SEATS}, not {game.num_players} seats")
        return super().bind(game)

    def act(self, observation, view) -> int:
        cat = self._require_game().catalog
        info = infoset_from_view(view)
        legal = legal_ids(observation)
        if len(legal) == 1:
            return legal[0]
        info.legal_actions = [douzero_move(cat.action_to_str(a)) for a in legal]
        return legal[self.best(info)]

    def best(self, info) -> int:
        """Index in ``info.legal_actions`` of the move DouZero's network values highest."""
        from douzero.env.env import get_obs

        obs = get_obs(info)
        torch = self._torch
        with torch.no_grad():
            values = self.models[info.player_position](
                torch.from_numpy(obs["z_batch"]), torch.from_numpy(obs["x_batch"]),
                return_value=True)["values"]
        return int(np.argmax(values.numpy()[:, 0]))


def load(folder: str, game: str, seed=None, **knobs) -> DouZeroPlayer:
    """The player of spec ``douzero:<folder>`` (``climbrl.policies.load`` calls it)."""
    if game != "doudizhu":
        raise ValueError(f"douzero:{folder} is a Dou Dizhu player, not a {game!r} one")
    if knobs:
        raise ValueError(f"douzero:{folder} takes no knobs, got {sorted(knobs)}")
    try:
        import douzero.env.env  # noqa: F401
        import torch  # noqa: F401
    except ModuleNotFoundError as err:
        raise ValueError(f"player douzero:{folder} needs DouZero, which is not installed "
                         f"({err.name} is missing): {INSTALL_HINT}") from None
    return DouZeroPlayer(folder, seed)


__all__ = ["DouZeroPlayer", "douzero_legal_moves", "douzero_move", "infoset_from_view", "load",
           "weight_files", "weights_fingerprint"]
