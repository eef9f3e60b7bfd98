"""# UECda (Daihinmin, the computer championship's standard rules)

| Import             | `from climbrl.envs import uecda_v1`                                     |
|--------------------|-----------------------------------------------------------------|
| Creation           | `uecda_v1.env()` or `pettingzoo.make("aec", "climbrl/uecda-v1")` |
| Agents             | `['player_0', ..., 'player_4']` (5 seats)                       |
| Action space       | `Discrete(2651)`                                                |
| Everything else    | as `daifugo_v1` (same engine, same observation and action scheme) |

Daihinmin as the UECda championship's official server plays its standard configuration
(docs/rules.md, "UECda standard rules"), on the Daifugo engine with the ``uecda`` preset:
5 players, 53 cards (one wild joker), deals of 11/11/11/10/10 from the top class, classes
scoring 5/4/3/2/1, the 2-1 exchange (none in the first round of each class block of 100),
the 3 of diamonds' holder leads every round, the turn order drawn anew every 3 rounds,
groups of 2-5, same-suit runs of 3+ (the joker may extend one past the 3 or the 2: moves
`JK=below 3s 4s`, `As 2s JK=above`), revolution by a group of 4+ or a run of 5+, eight
cut, lock (a set's joker names the suit it stands for: `7s JK=7h`), the 3 of spades over a
lone joker, no jack back, fall of the capital or forbidden finishes. A seat may pass on an
empty pile (the server accepts it), and after 20 passes in a row the seats still in are
placed at random.

`uecda_v1.env(rounds=100, render_mode=None, reward="centered", illegal_reward=-1, **rules)`
is `daifugo_v1.env(players=5, preset="uecda", ...)` with its own `metadata["name"]`. A match
is 100 rounds by default (one class block); `rounds` may be 1..1000. Rewards are per round,
as in `daifugo_v1`: centred points, 5/4/3/2/1 -> +2/+1/0/-1/-2.

The observation has `daifugo_v1`'s fields with 5 seat rows (453 floats); its seat rows
follow the turn order in force (row 1 is the seat that plays after you), which the reseating
redraws; `env.unwrapped.view(seat)["order"]` lists the seats in turn order. The switches the
preset adds (`joker_suits`, `joker_run_ends`, `lead_pass`, and the counts `run_revolution`,
`stall_passes`, `class_block`, `reseat_every`) are fixed by it and not in the observation.

## Version history

* v1: first release.
"""

from __future__ import annotations

from . import daifugo_v1
from .core.aec import wrap
from .daifugo.rules import UECDA_PLAYERS

NAME = "uecda_v1"


def env(**kwargs):
    return wrap(raw_env(**kwargs))


class raw_env(daifugo_v1.raw_env):
    metadata = {**daifugo_v1.raw_env.metadata, "name": NAME}
    default_preset = "uecda"

    def __init__(self, players: int = UECDA_PLAYERS, rounds: int | None = None,
                 preset: str | None = None, **kwargs):
        super().__init__(players=players, rounds=rounds, preset=preset, **kwargs)
