"""# Daifugo (Daihinmin)

| Import             | `from climbrl.envs import daifugo_v1`                                   |
|--------------------|-----------------------------------------------------------------|
| Creation           | `daifugo_v1.env(players=4)` or `pettingzoo.make("aec", "climbrl/daifugo-v1")` |
| Actions            | Discrete (catalog of every play, pass and exchange give)        |
| Parallel API       | No                                                              |
| Agents             | `['player_0', ..., 'player_{N-1}']` (seats; titles are attributes) |
| Players            | 3 or 4 (`preset="president"`: 3-8; see `president_v1`)          |
| Action space       | `Discrete(catalog size)`: 7989 with the default rules           |
| Observation        | `{"observation": Box(float32), "action_mask": Box(int8)}`       |

Daifugo with its standard rules: 54 cards, singles, sets and same-suit runs with wild
jokers, and seven switchable house rules (revolution, eight cut, spade three return, lock,
fall of the capital, jack back, illegal finish). ``docs/rules.md`` states every rule and ruling;
`climbrl.envs.daifugo.rules` documents each switch.

## Arguments

```python
daifugo_v1.env(players=4, rounds=3, preset="daifugo", render_mode=None,
               reward="centered", illegal_reward=-1, **house_rules)
```

* `players`: 3 or 4. `rounds`: rounds in the match, 1..20 (3, 5 and 7 are the usual choices).
* `preset`: `"daifugo"` (the usual Daifugo defaults, docs/rules.md) or `"president"` (the Western game, 3-8 players).
* `**house_rules`: any switch of `climbrl.envs.daifugo.rules.Rules`, e.g. `lock=False`,
  `illegal_finish=True`. Unknown names and impossible combinations raise `ValueError`; a
  switch that is not `True`/`False` (`lock="no"`, `lock=None`) or a count that is not an
  integer raises `TypeError` naming the option and the value.
* `reward`: `"centered"`, each round's points minus the round's mean, so every round sums to
  zero (4 players: 3/2/1/0 -> +1.5/+0.5/-0.5/-1.5); or `"raw"` points (3/2/1/0).
* `illegal_reward`: reward of an agent that plays a masked action (the game then ends, as
  PettingZoo's `TerminateIllegalWrapper` does, with a warning naming the move).

## Actions

Every possible move has a fixed id in the catalog (`climbrl.envs.daifugo.catalog`): `pass`,
singles, sets (suits matter: the lock compares them), runs (one id per choice of joker
positions) and, in the exchange, `give <card>`. Text round-trips:
`env.unwrapped.action_to_str(i)` and `env.unwrapped.action_from_str("3s JK=4s 5s")`.
`step` takes an `int` id, a numpy integer or a one-element integer array; a float, a bool, a
string or `None` for an agent still playing is a `TypeError`, never converted (`step(12.7)`
does not play id 12).
The exchange's giving side is automatic; the receivers choose their give-backs one card per
step. Seats that cannot act (finished, or passed under strict passing) are skipped.

## Observation

`observation` is a float32 vector of named, seat-relative slices (row 0 is you), documented
in `climbrl.envs.daifugo.observation` and printable with
`env.unwrapped.game.layout.describe()`. It carries the table: its seats (a row for every
seat of the preset's largest table, 4 for Daifugo and 8 for President, each with a
`present` flag), every rule that changes play (`switches`, `choices`, `decks`, `jokers`,
`exchange`, `place_points`) and the round as scalars (`round`, `rounds`, `rounds_left`).
Its size (Daifugo 427, President 557), fields and bounds are the same for every table of
the preset, so one network plays them all. `action_mask` is 1 for the legal ids of the
agent to move and all zeros for every other agent. `env.unwrapped.view(seat)` gives the
same information as plain Python values (cards as text) for bots, tests and the terminal
player; nothing in it depends on another seat's hidden cards, so it is safe to send to
that seat. In an *unsuited* play, where the player names ranks only (a two-deck set `7 7`,
an any-suit run `3 4 5`), the engine picks which copies leave the hand; their suits would
give away the cards left in it, so such a play is public by rank only (observation fields
`played_ranks` and `pile_ranks`, zeros under rules without such plays;
`view["played_ranks"]`). `render()` shows every hand: it is a spectator's picture, not for
a seat.

The action catalog differs with the rules (jokers, decks, runs), but every move's row of
`env.unwrapped.game.action_features()` has the same width and meaning in every catalog
(`climbrl.envs.daifugo.catalog.FEATURE_SCHEMA`), so a network scores the moves of any table.

## Rewards and episode

The episode is the whole match. At the end of each round every seat gets its round reward
(see `reward`); the match ends after `rounds` rounds. `infos[agent]` holds the round, phase,
title from the last round and score.

## Deals

`reset(seed=s)` reproduces a match. `env.unwrapped.deal_code` is the code of the current
round's deal; `reset(options={"deal": code})` replays it (and the rounds after it) exactly.
`reset(options={"hands": ["3s 4s 5s JK", "7h 7d", ...], "leader": 0})` sets up a position;
cards named nowhere are out of play. With `"titles"` the set-up starts with the exchange; one
whose exchange would leave a seat without cards is refused (`ValueError`). The deal code is
the whole deal: keep it to the operator, never hand it to a seat during play.

## Version history

* v0: first release.
* v0, revised: unsuited plays (two-deck sets, any-suit runs) are public by rank only: new
  observation fields `played_ranks` and `pile_ranks` under those rules (President from 6
  players, `runs=True`), whose `played`/`pile_cards` no longer show those cards; one-deck
  same-suit rules keep their layout. Rules switches must be bools and counts ints; `rounds`
  is 1..20; actions, seats, seeds and options are checked, not converted; set-ups whose
  exchange empties a hand are refused.
* v1: the observation carries the table's rules, so that one trained network plays every
  table of its game (v0's was sized by the rules: a one-hot round of `rounds` slots, seat
  rows of the table's size, card fields with a joker slot only when the deck had jokers, no
  house-rule inputs; a network trained on it could play only the one table it was trained
  on). Now the size and fields are the same for every rules config, player count and round
  count of the preset: seat rows padded to the largest table with a `present` flag, card
  fields always with the joker slot, `played_ranks`/`pile_ranks` always there, the round and
  the match's round count as scalars, scores scaled to [-1, 1], and new fields for every rule
  that changes play (`switches`, `choices`, `decks`, `jokers`, `exchange`, `place_points`).
  Action features are scaled by the engine's limits instead of the catalog's largest move,
  so a move's features read the same in every catalog. Rules refuse an exchange count larger
  than a hand (v0 checked only the smallest) and a player count outside the preset's.
"""

from __future__ import annotations

from .core.aec import CardGameEnv, wrap
from .daifugo.engine import DaifugoGame
from .daifugo.rules import Rules

NAME = "daifugo_v1"


def env(**kwargs):
    """The wrapped environment (PettingZoo's order enforcing on top of :class:`raw_env`)."""
    return wrap(raw_env(**kwargs))


class raw_env(CardGameEnv):
    metadata = {
        "render_modes": ["ansi", "human"],
        "name": NAME,
        "is_parallelizable": False,
    }
    default_preset = "daifugo"

    def __init__(
        self,
        players: int = 4,
        rounds: int | None = None,
        preset: str | None = None,
        render_mode: str | None = None,
        reward: str = "centered",
        illegal_reward: float = -1.0,
        **house_rules,
    ):
        preset = self.default_preset if preset is None else preset
        switches = dict(house_rules) if rounds is None else {**house_rules, "rounds": rounds}
        rules = Rules.preset(preset, players, **switches)
        super().__init__(
            DaifugoGame(rules, reward),
            render_mode=render_mode,
            illegal_reward=illegal_reward,
            ezpickle_kwargs=dict(
                players=players,
                rounds=rounds,
                preset=preset,
                render_mode=render_mode,
                reward=reward,
                illegal_reward=illegal_reward,
                **house_rules,
            ),
        )

    @property
    def rules(self) -> Rules:
        return self.game.rules
