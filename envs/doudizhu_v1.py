"""# Dou Dizhu (斗地主, "fight the landlord")

| Import             | `from climbrl.envs import doudizhu_v1`                |
|--------------------|-----------------------------------------------|
| Registered id      | `climbrl/doudizhu-v1`                          |
| Actions            | Discrete                                       |
| Parallel API       | No                                             |
| Manual control     | No                                             |
| Agents             | `agents = ['player_0', 'player_1', 'player_2']` |
| Agents             | 3                                              |
| Action shape       | (1,): one integer id (see Action space)        |
| Action values      | Discrete(28507)                                |
| Observation shape  | (1602,) with the default history of 15         |
| Observation values | [0, 1]                                         |

Three players, 54 cards (3..2, black joker `B`, red joker `R`; suits never matter). Each gets
17 cards, 3 stay face down as the kitty. Players bid once each for the landlord role; the
landlord takes the kitty, shows it, holds 20 cards and leads; the other two play together as
peasants. Players beat the last play with a higher play of the same shape, or pass; bombs and
the rocket beat every shape. The first seat out of cards wins for its side. The rules are
those of `docs/rules.md` (Dou Dizhu section, rulings included); the engine
is `climbrl.envs.doudizhu` (pure Python, no PettingZoo). The variants are arguments (see Variants).

## Agents and turns

Agents `player_0..2` are seats. Seat order is play order (`0 -> 1 -> 2 -> 0`). Roles
(`landlord`, `peasant`, `undecided` while bidding) are in the observation (`role`,
`landlord`) and in `infos[agent]["role"]` (refreshed when bidding ends, on a redeal and at the
end).

Bidding: the first bidder is drawn by the RNG; each seat once, in seat order: `bid pass` or
`bid 1/2/3` above the highest bid so far. `bid 3` ends bidding at once; otherwise the highest
bidder is landlord. If all three pass, the cards are dealt again within the same episode (a new
first bidder too). Play: the landlord leads; passing never locks a player out; after two passes
in a row the player who made the last play leads again.

## Action space

One id per action (`env.unwrapped.game.catalog.table.describe()` lists the segments):

| segment           | ids            | count |
|-------------------|----------------|-------|
| bid               | 0..3           | 4 (`bid pass`, `bid 1`, `bid 2`, `bid 3`) |
| pass              | 4              | 1     |
| single            | 5..19          | 15    |
| pair              | 20..32         | 13    |
| trio              | 33..45         | 13    |
| trio_single       | 46..227        | 182   |
| trio_pair         | 228..383       | 156   |
| chain             | 384..419       | 36    |
| pair_chain        | 420..471       | 52    |
| airplane          | 472..516       | 45    |
| airplane_single   | 517..23369     | 22853 |
| airplane_pair     | 23370..26308   | 2939  |
| four_two_single   | 26309..27634   | 1326  |
| four_two_pair     | 27635..28492   | 858   |
| bomb              | 28493..28505   | 13    |
| rocket            | 28506          | 1     |

A play id stands for a rank multiset, written as its sorted ranks (`"33344"`, `"BR"`); a play
with several readings (`333444555666`: an airplane of 4, or of 3 with single kickers) has one
id and beats the pile if any reading does. `env.action_to_str(id)` and
`env.action_from_str("44433")` convert (in the bidding phase `"pass"` means `bid pass`).
`step` takes an `int` id, a numpy integer or a one-element integer array (shape `()` or
`(1,)`); a float, a bool, a string or `None` for an agent still playing is a `TypeError`, never
converted (`step(1.9)` does not bid 1).
`env.unwrapped.game.catalog.action_features()` is a `[28507, 37]` float table describing each
action (rank counts, kind, length, main rank, size) for policies that embed actions.

## Action mask

`observe(agent)["action_mask"]` (int8, 28507) marks the legal ids of the agent to move; it is
all zeros for the others and after the end. An illegal action gets PettingZoo's standard
treatment (as `TerminateIllegalWrapper`): the game ends, the offender gets `illegal_reward`
(-1), the others 0, with an `IllegalMoveWarning` naming the move in card text.

## Observation space

`observe(agent)["observation"]`: float32 in [0, 1], seat-relative (relative seat 0 is the
observer, 1 plays next, 2 played before it). Card groups are (15, 4) thermometers (rank row,
column j set when the group holds more than j cards of that rank). Layout
(`env.unwrapped.game.layout.describe()`):

| field          | shape       | start | meaning |
|----------------|-------------|-------|---------|
| hand           | (15, 4)     | 0     | own cards |
| kitty          | (15, 4)     | 60    | the kitty once public (else 0) |
| unseen         | (15, 4)     | 120   | cards neither in the hand nor played (card counter) |
| played         | (3, 15, 4)  | 180   | cards played so far per relative seat |
| pile           | (15, 4)     | 360   | the play to beat (0 when leading) |
| trick          | (3, 15, 4)  | 420   | each relative seat's latest play in this trick |
| history        | (15, 15, 4) | 600   | last 15 plays/passes, most recent first |
| phase          | (3,)        | 1500  | bidding, play, over |
| role           | (3,)        | 1503  | own role: undecided, landlord, peasant |
| landlord       | (3,)        | 1506  | relative seat of the landlord |
| first_bidder   | (3,)        | 1509  | relative seat of the first bidder |
| bids           | (3, 5)      | 1512  | per relative seat: not yet, pass, 1, 2, 3 |
| cards_left     | (3,)        | 1527  | cards held per relative seat / 20 |
| pile_owner     | (3,)        | 1530  | relative seat that made the pile |
| leading        | (1,)        | 1533  | 1 when the next play starts a trick |
| trick_pass     | (3,)        | 1534  | relative seats that passed in this trick |
| bombs          | (1,)        | 1537  | bombs and rockets played / 14 |
| history_seat   | (15, 3)     | 1538  | relative seat of each history entry |
| history_pass   | (15,)       | 1583  | 1 when the history entry is a pass |
| variant        | (4,)        | 1598  | the variants on: rob, open hand, four players, laizi |

## Rewards

Given at the end only. `reward="score"` (default): the game's points divided by the base 10,
so the round is worth `bid x 2^k` units (`k` = bombs and rockets played), doubled once more
for a spring (landlord wins and no peasant played a card) or an anti-spring (peasants win and
the landlord made only its first play); the landlord gets `+2` or `-2` times that, each peasant
the opposite once (zero-sum). `infos[agent]["result"]["points"]` has the unscaled points.
`reward="win"`: `+1` to each seat of the winning side, `-1` to each of the other (not
zero-sum). If the cards are redealt more than `max_redeals` (16) times in a row, the episode
ends with every reward 0 (`result["outcome"] == "no bid"`): a ruling of ours that keeps every
episode finite.

## Options and extras

* `reset(seed=s)` seeds the env's RNG; the same seed gives the same game.
* `reset(options={"deal": code})` replays a deal: same hands, kitty, first bidder, and the same
  redeals. `env.unwrapped.deal_code` is the code of the deal being played. A deal code is the
  whole deal (every hand and the kitty), so seats see it only once the deal is over, as
  `result["deal"]` in the view and the infos; keep `env.unwrapped.deal_code` to the operator.
* `reset(options={"hands": [h0, h1, h2], "kitty": k, "first_bidder": s})` sets a deal (at
  most 17 cards a hand and 3 in the kitty, as text; `first_bidder` optional). Adding
  `"landlord": s, "bid": b` skips bidding; the landlord's hand then has at most 20 cards, the
  kitty among them, and `kitty` may be left out. Cards named nowhere are out of play, as in
  Daifugo, so an endgame is set up by naming the cards left:
  `{"hands": ["33", "4", "5"], "landlord": 0, "bid": 1}` (no seat sees them as unseen; such a
  position has no deal code; a seat holding fewer cards than a deal gives it counts as having
  played, for the spring). Bad options raise `ValueError` naming the problem (an empty hand, a
  card named more often than the deck has it, an unknown card, a hand larger than a deal's).
* `env.unwrapped.view(agent)`: what that seat may see as a plain dict with cards as text (see
  `DoudizhuGame.view`); nothing in it depends on another seat's hidden cards, so it is safe to
  send to that seat. `view()` or `legal_actions()` before `reset()` is a `RuntimeError`.
* `render_mode="ansi"` returns the table as text (all hands shown: a spectator's picture, not
  for a seat), `"human"` prints it.

## Variants

Each is an argument, off by default; they combine. Every detail below is a ruling of the
project (the variants are house rules whose details vary from table to table), written in
`docs/rules.md` (Dou Dizhu, Variants).

* `bidding="rob"`, rob the landlord. Rulings: from the first bidder in seat order, each seat
  passes or calls (`bid pass`, `call`); once one calls, each seat after it that has not
  spoken may `rob` or pass (a seat that passed before the call never speaks again); if anyone
  robbed, the caller may rob back. The last to rob (else the caller) is landlord at a bid of
  1, and every rob doubles the round (`result["robs"]`); if nobody calls, the cards are dealt
  again. The bid segment holds `bid pass`, `call`, `rob` (3 ids, so every play id is one less
  than above); the observation's `bids` becomes (3, 4): not yet, passed, called, robbed, and a
  `robs` field (1,) follows `variant`.
* `open_hand=True`, open hand. Rulings: once it holds the kitty, the landlord chooses (phase
  `show`) to play with its hand face up (`show`) or not (`hide`) before its first lead;
  showing doubles the round (`result["shown"]`) and every seat sees the landlord's remaining
  cards to the end of the deal (`view()["shown_hand"]`, the observation's `shown_hand`); the
  choice is not a play (springs count plays only). A `show` segment (2 ids: `show`, `hide`)
  follows the bid segment; the observation's `phase` gets a fourth entry (the choice),
  `shown_hand` (15, 4) follows `unseen` and `shown` (1,) follows `variant`.
* `players=4`, four players. Rulings: two packs (108 cards: 8 of each number, 2 of each
  joker), 25 cards each and 8 in the kitty (the landlord holds 33), one landlord against three
  peasants, play round the four seats. Bombs are 4 to 8 cards of a rank (more cards beat
  fewer; as many, the higher rank); the rocket is all four jokers; one black and one red joker
  are no play, two of a colour a pair (above 2s); no play's kickers hold all four jokers; the
  landlord wins or loses three times the round's value. Agents `player_0..3`; 81,294 actions
  (segments as above, longer); card thermometers are (15, 8) and every per-seat field has 4
  rows (observation (3367,)); deal codes start `DDZ4-`.
* `laizi=True`, wild cards (three players). Rulings: a rank 3..2 drawn with each deal is
  wild and known to all before the bidding (`view()["wild"]`, the observation's `wild`; a
  deal code carries it, and set-up positions take `"wild": "7"`); a wild card stands for any
  card 3..2 (never a joker) or for itself; a play is written as it reads, and the hand's own
  cards go first, wild cards only for what it lacks; a bomb with a wild card standing in is
  soft: rocket > the four wild cards > hard bombs > soft bombs > other plays, and every bomb
  doubles. The actions are those of the classic game; `played` counts the cards as they are,
  `pile_wilds` (1,) follows `wild` (13,) at the end of the observation.

## Arguments

`doudizhu_v1.env(render_mode=None, reward="score", max_redeals=16, history_length=15,
players=3, bidding="bid", open_hand=False, laizi=False, illegal_reward=-1.0)`; `raw_env` takes
the same and skips the order-enforcing wrapper. `history_length` is 1..154 (the most steps a
deal's play can have; 1..417 with four players); a value of the wrong type is a `TypeError`,
one out of range a `ValueError`, each naming the argument.

## Version history

* v0: first release (bidding, all 14 shapes, spring and anti-spring scoring, deal codes).
* v0, revised: the deal code left `view()` and `infos` during play (it decoded into every
  hand); it is `result["deal"]` once the deal is over. Actions, seats, seeds and options are
  checked, not converted (`step(1.9)`, `view(1.7)` are `TypeError`s).
* v1: the variants (rob the landlord, open hand, four players, laizi). The observation gains the `variant` field (so a
  v0 model does not load); a bomb's reading has its number of cards as length; the action
  features gain the columns of the variants' moves. The default game plays exactly as v0:
  the same ids, legal moves, rewards and deal codes.
"""

from __future__ import annotations

from climbrl.envs.core.aec import CardGameEnv, wrap
from climbrl.envs.doudizhu.config import Phase
from climbrl.envs.doudizhu.engine import DoudizhuConfig, DoudizhuGame


def env(**kwargs):
    """The Dou Dizhu AEC environment, wrapped in PettingZoo's ``OrderEnforcingWrapper``."""
    return wrap(raw_env(**kwargs))


class raw_env(CardGameEnv):  # noqa: N801 (PettingZoo's name)
    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "doudizhu_v1",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "score",
        max_redeals: int = DoudizhuConfig.max_redeals,
        history_length: int = DoudizhuConfig.history_length,
        players: int = DoudizhuConfig.players,
        bidding: str = DoudizhuConfig.bidding,
        open_hand: bool = DoudizhuConfig.open_hand,
        laizi: bool = DoudizhuConfig.laizi,
        illegal_reward: float = -1.0,
    ):
        config = DoudizhuConfig(
            reward=reward, max_redeals=max_redeals, history_length=history_length,
            players=players, bidding=bidding, open_hand=open_hand, laizi=laizi,
        )
        super().__init__(
            DoudizhuGame(config),
            render_mode=render_mode,
            illegal_reward=illegal_reward,
            ezpickle_kwargs={
                "render_mode": render_mode,
                "reward": reward,
                "max_redeals": max_redeals,
                "history_length": history_length,
                "players": players,
                "bidding": bidding,
                "open_hand": open_hand,
                "laizi": laizi,
                "illegal_reward": illegal_reward,
            },
        )

    def step(self, action) -> None:
        state = self.game_state
        if state is None or state.phase is Phase.PLAY:
            # roles are settled: only the end changes the infos, refreshed with its rewards
            # (the base class called by name: no super() object made every step)
            return CardGameEnv.step(self, action)
        stage = (state.phase, state.redeals)
        CardGameEnv.step(self, action)
        if (state.phase, state.redeals) != stage and not state.terminal:
            self._refresh_infos()  # roles are known, or a redeal changed the deal
