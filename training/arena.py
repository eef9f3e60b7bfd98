"""Evaluation of a network against other players on duplicate deals.

:func:`harness_figures` runs the project's evaluation harness (:mod:`climbrl.training.evaluate`) on a
checkpoint: any player the registry knows as opponent (``random``, ``scripted-medium``,
``hard``...), the harness's figures (Daifugo / President: points per round; Dou Dizhu: WP and
ADP per side; each with a 95% interval over deals). :func:`evaluate` is the trainer's own
batched arena (the network's decisions of all matches in one batch, the opponents' one by
one): several times faster (``--eval-harness false``).

In :func:`evaluate`, each deal is played once with the network in every seat (the other
seats held by the opponent), so every seat position sees the same cards. The figure is the
network's return per match with a 95% interval (over deals, each deal's mean over seats), and
its win rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from climbrl.policies.spec import won

from .actor import NetPolicy
from .opponents import make_opponent, opponent_move

Z95 = 1.96


@dataclass
class EvalResult:
    matches: int
    mean_return: float
    ci95: float
    win_rate: float

    def __str__(self) -> str:
        return f"{self.mean_return:+.2f}±{self.ci95:.2f}"


def evaluate(game, policy: NetPolicy, opponent: str, deals: int, seed: int) -> EvalResult:
    players = game.num_players
    matches = []  # (state, network seat, opponent)
    for d in range(deals):
        for seat in range(players):
            state = game.new_state(np.random.default_rng([seed, d]))
            matches.append((state, seat, make_opponent(opponent, game, [seed, d, seat])))
    live = list(range(len(matches)))
    rng = np.random.default_rng([seed, deals])
    while live:
        mine = [i for i in live if matches[i][0].current_player == matches[i][1]]
        if mine:
            states = [matches[i][0] for i in mine]
            decisions = policy.observe(states, [matches[i][1] for i in mine])
            for st, a in zip(states, policy.choose(*decisions, 0.0, rng)):
                st.apply(a)
        for i in live:
            st, net_seat, opp = matches[i]
            if st.terminal or st.current_player == net_seat:
                continue
            st.apply(opponent_move(opp, game, st, st.current_player))
        live = [i for i in live if not matches[i][0].terminal]
    returns = np.array([st.returns()[seat] for st, seat, _ in matches])
    wins = np.array([won(game, st, seat) for st, seat, _ in matches])
    per_deal = returns.reshape(deals, players).mean(axis=1)  # duplicate: deals are the units
    spread = per_deal.std(ddof=1) if deals > 1 else 0.0
    return EvalResult(len(matches), float(returns.mean()),
                      float(Z95 * spread / math.sqrt(deals)), float(wins.mean()))


def harness_figures(game_kwargs: dict, game, checkpoint: str, opponent: str, deals: int,
                    seed: int) -> tuple[dict[str, float], str]:
    """The harness's figures for ``checkpoint`` in a lineup with ``opponent`` in every other
    seat: scalars by name (each with ``_low``/``_high`` interval ends) and a short text."""
    from . import evaluate as harness

    rules = dict(game_kwargs.get("rules") or {})
    rounds = rules.pop("rounds", None)
    if game_kwargs.get("reward") is not None:
        rules["reward"] = game_kwargs["reward"]
    lineup = (checkpoint,) + (opponent,) * (game.num_players - 1)
    # a game of sides: DouZero's duel (Dou Dizhu: the checkpoint as landlord, then as both
    # peasants, on each deal), so both sides get as many games; with the bidding the network
    # mostly ends up landlord, its bidding being trained only on the deals that are bid
    sides = "fixed" if getattr(game, "sides", ()) else "bid"
    config = harness.EvalConfig(game=game.name, lineups=(lineup,), deals=deals, rounds=rounds,
                                seed=seed, workers=1, rules=tuple(sorted(rules.items())),
                                progress=False, sides=sides)
    report = harness.summarize(config, harness.run(config))
    me, other = report.players.get(checkpoint, {}), report.players.get(opponent, {})
    out: dict[str, float] = {}

    def put(name: str, ci: dict) -> None:
        out[name] = ci["mean"]
        out[f"{name}_low"], out[f"{name}_high"] = ci["low"], ci["high"]

    if "points_per_round" in me:
        put("points_per_round", me["points_per_round"])
        put("first_place_share", me["first_place_share"])
        if "points_per_round" in other:
            out["opponent_points_per_round"] = other["points_per_round"]["mean"]
        text = (f"{out['points_per_round']:.2f} pts/round "
                f"[{out['points_per_round_low']:.2f}, {out['points_per_round_high']:.2f}]")
        return out, text
    parts = []
    for side, figures in me.items():
        put(f"WP_{side}", figures["WP"])
        put(f"ADP_{side}", figures["ADP"])
        parts.append(f"WP {side} {figures['WP']['mean']:.2f}")
    return out, ", ".join(parts) or "no scored game"
