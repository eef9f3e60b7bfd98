"""# President (Scum, Capitalism)

| Import             | `from climbrl.envs import president_v1`                                 |
|--------------------|-----------------------------------------------------------------|
| Creation           | `president_v1.env(players=5)` or `pettingzoo.make("aec", "climbrl/president-v1")` |
| Agents             | `['player_0', ..., 'player_{N-1}']`, 3 to 8                     |
| Everything else    | as `daifugo_v1` (same engine, same observation and action scheme) |

The Western game (docs/rules.md) on the Daifugo engine with the ``president`` preset:
3-8 players, one deck up to 5 players and two from 6, 0-2 jokers (default 0; jokers are not
wild: they play alone or as a pair), singles and sets, passing does not lock you out of the
trick (`strict_pass=True` for the strict variant), revolution on four of a kind, 2-1 tax,
titles President / Vice-President / Neutral / Vice-Scum / Scum and session scores
+3/+2/0/-2/-3. Options: `runs=True` (any suit, same length), `skip_on_equal=True`,
`bombs=True`, `jokers=1|2`. Round 1 is led by the seat left of a random dealer (the first
seat dealt); later rounds by the President after the tax; the Scum deals.

`president_v1.env(players=4, rounds=5, **switches)` is `daifugo_v1.env(preset="president",
...)` with its own `metadata["name"]`; see `daifugo_v1` for actions, observation, rewards
and deals.

## Version history

* v0: first release.
* v0, revised: as `daifugo_v0`'s; from 6 players (two decks) a set names no suits, so it is
  public by rank only (observation fields `played_ranks`, `pile_ranks`; `view["played_ranks"]`).
* v1: as `daifugo_v1`'s: the observation carries the table (8 seat rows with a `present`
  flag, every switch: strict passing, skip on equal, bombs, runs, jokers, decks; the round
  and the round count as scalars), the same 557 floats for every President table from 3 to
  8 players, so one network plays them all (v0's observation was sized by the table).
"""

from __future__ import annotations

from . import daifugo_v1
from .core.aec import wrap

NAME = "president_v1"


def env(**kwargs):
    return wrap(raw_env(**kwargs))


class raw_env(daifugo_v1.raw_env):
    metadata = {**daifugo_v1.raw_env.metadata, "name": NAME}
    default_preset = "president"
