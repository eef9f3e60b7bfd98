"""Statistics of the evaluation harness: confidence intervals and an Elo ladder.

Every figure the harness reports is a mean over *deals*: a deal (played once per seat
rotation) is the independent unit of a duplicate tournament, so each deal first gives one
number per player (its mean over the deal's games), and the interval is the normal
approximation over those per-deal numbers, ``mean +- z * sd / sqrt(n)`` (``z = 1.96`` at
95%). With tens of deals or more the approximation is close to Student's t.

The ladder is a Bradley-Terry model fitted by maximum likelihood (Hunter's MM iterations) to
head-to-head results (who placed higher at the same table), on the Elo scale (400 points = 10
to 1 odds), centred on :data:`ELO_CENTER`. One virtual draw between every pair of players
keeps ratings finite when a player never loses. Intervals come from a bootstrap over deals.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95
ELO_SCALE = 400.0
ELO_CENTER = 1500.0
PRIOR_GAMES = 1.0
MM_ITERATIONS = 2000
MM_TOLERANCE = 1e-10
BOOTSTRAP_SAMPLES = 200


def z_value(level: float = CONFIDENCE) -> float:
    """The two-sided normal quantile for ``level`` (1.96 at 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2)


SHARE = (0.0, 1.0)
"""the range of a share (a win rate, a place share): its interval ends are clipped to it"""


def mean_ci(values, level: float = CONFIDENCE,
            bounds: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """``(mean, low, high)`` of the mean of ``values`` (one per deal). With fewer than two
    values the interval is ``nan``. ``bounds``: the range the mean lives in (:data:`SHARE`
    for shares); the interval ends are clipped to it (the normal approximation can step
    outside it near the ends, e.g. a win rate of 0.98 over few deals)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    half = z_value(level) * float(x.std(ddof=1)) / math.sqrt(x.size)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return mean, low, high


def bradley_terry(wins: np.ndarray, prior: float = PRIOR_GAMES) -> np.ndarray:
    """Elo ratings from a matrix ``wins[i, j]`` (times ``i`` beat ``j``), centred on
    :data:`ELO_CENTER`; ``prior`` virtual games (half won each way) per pair."""
    w = np.asarray(wins, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    n = w.shape[0]
    if n == 1:
        return np.array([ELO_CENTER])
    w = w + prior / 2 * (1 - np.eye(n))
    games = w + w.T
    won = w.sum(axis=1)
    p = np.ones(n)
    for _ in range(MM_ITERATIONS):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = won / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < MM_TOLERANCE:
            p = new
            break
        p = new
    logp = np.log(p)
    return ELO_CENTER + ELO_SCALE / math.log(10) * (logp - logp.mean())


def ladder(
    wins_per_deal: np.ndarray,
    rng: np.random.Generator,
    samples: int = BOOTSTRAP_SAMPLES,
    level: float = CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings and bootstrap percentile intervals from per-deal win matrices
    ``[deals, players, players]``: ``(rating, low, high)``."""
    per_deal = np.asarray(wins_per_deal, dtype=float)
    if per_deal.ndim != 3 or per_deal.shape[0] == 0:
        raise ValueError(f"wins_per_deal must be [deals, n, n] with deals > 0, got {per_deal.shape}")
    rating = bradley_terry(per_deal.sum(axis=0))
    deals = per_deal.shape[0]
    boot = np.empty((samples, per_deal.shape[1]))
    for b in range(samples):
        pick = rng.integers(deals, size=deals)
        boot[b] = bradley_terry(per_deal[pick].sum(axis=0))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail], axis=0)
    return rating, low, high
