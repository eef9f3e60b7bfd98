"""Evaluation of a network against other players on duplicate deals.

Each deal is played once with the network in every seat (the other seats held by the
opponent), so every seat position sees the same cards; all matches run in lockstep and the
network's decisions are batched. The figure is the network's return per match with a 95%
interval (over deals, each deal's mean over seats), and its win rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from policies.spec import won

from .actor import NetPolicy
from .opponents import make_opponent

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
    mask = np.zeros(game.num_actions, np.int8)
    while live:
        mine = [i for i in live if matches[i][0].current_player == matches[i][1]]
        if mine:
            states = [matches[i][0] for i in mine]
            obs, hist, legal, role = policy.observe(states, [matches[i][1] for i in mine])
            for st, a in zip(states, policy.choose(obs, hist, legal, role, 0.0, rng)):
                st.apply(a)
        for i in live:
            st, net_seat, opp = matches[i]
            if st.terminal or st.current_player == net_seat:
                continue
            seat = st.current_player
            legal = st.legal_actions()
            mask[legal] = 1
            observation = {"observation": game.observe(st, seat), "action_mask": mask.copy()}
            mask[legal] = 0
            st.apply(opp.act(observation, st.view(seat)))
        live = [i for i in live if not matches[i][0].terminal]
    returns = np.array([st.returns()[seat] for st, seat, _ in matches])
    wins = np.array([won(game, st, seat) for st, seat, _ in matches])
    per_deal = returns.reshape(deals, players).mean(axis=1)  # duplicate: deals are the units
    spread = per_deal.std(ddof=1) if deals > 1 else 0.0
    return EvalResult(len(matches), float(returns.mean()),
                      float(Z95 * spread / math.sqrt(deals)), float(wins.mean()))
