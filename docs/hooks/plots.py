"""MkDocs hook: the plots of the strength and speed pages, drawn at every build.

The figures live in ``docs/data/*.json`` (each with the command that measured it), copied
from the tables of the pages, which stay the record; this hook draws them with matplotlib
(the ``docs`` extra) and adds the pictures to the site as ``img/<name>.png``, so no picture
is committed and none can fall behind its data.
"""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

from mkdocs.structure.files import File

DATA = Path(__file__).resolve().parent.parent / "data"
IMG = "img"
DPI = 110
WIDE = (8.0, 4.2)
INTERVAL_ALPHA = 0.2
LEVEL_STYLE = {"color": "grey", "linestyle": ":", "linewidth": 1}
#: characters a title line holds before it wraps
TITLE_WIDTH = 70


def _load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def _bounds(series: dict) -> tuple[list[float], list[float]]:
    """The 95% interval of a series: given as low/high, or as value ± pm."""
    if "pm" in series:
        return ([v - e for v, e in zip(series["values"], series["pm"])],
                [v + e for v, e in zip(series["values"], series["pm"])])
    return series["low"], series["high"]


def _title(text: str) -> str:
    return textwrap.fill(text, TITLE_WIDTH)


def _png(fig) -> bytes:
    out = io.BytesIO()
    fig.tight_layout()
    fig.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


def quickstart(plt) -> bytes:
    d = _load("quickstart")
    fig, ax = plt.subplots(figsize=WIDE)
    frames = [f / 1000 for f in d["frames"]]
    ax.plot(frames, d["points"], marker="o", label="points per round vs random")
    ax.fill_between(frames, d["low"], d["high"], alpha=INTERVAL_ALPHA)
    ax.axhline(d["random_level"], label="a random player", **LEVEL_STYLE)
    ax.set(xlabel="thousand frames trained", ylabel="points per round (3/2/1/0)",
           title=_title(d["title"]))
    ax.legend(loc="lower right")
    return _png(fig)


def time_to_strength(plt, game: str) -> bytes:
    d = _load("time_to_strength")[game]
    groups = list(dict.fromkeys(s["against"] for s in d["series"]))  # in the data's order
    fig, axes = plt.subplots(1, len(groups), figsize=(WIDE[0], WIDE[1]), sharey=True,
                             squeeze=False)
    curve = d.get("curve_marks", len(d["marks"]))
    for ax, against in zip(axes[0], groups):
        for s in (s for s in d["series"] if s["against"] == against):
            low, high = _bounds(s)
            label = s["trainer"] + (f", as {s['side']}" if "side" in s else "")
            marks = d["marks"][:curve]
            line, = ax.plot(marks, s["values"][:curve], marker="o", label=label)
            ax.fill_between(marks, low[:curve], high[:curve], alpha=INTERVAL_ALPHA,
                            color=line.get_color())
            if curve < len(d["marks"]):
                rest = slice(curve, None)
                ax.errorbar(d["marks"][rest], s["values"][rest], fmt="s",
                            color=line.get_color(),
                            yerr=[[v - lo for v, lo in zip(s["values"][rest], low[rest])],
                                  [hi - v for v, hi in zip(s["values"][rest], high[rest])]])
        ax.axhline(d["level"], **LEVEL_STYLE)
        ax.set(title=f"against {against}", xlabel="training minutes")
        if curve < len(d["marks"]):
            ax.set_xscale("log")
            ax.set_xticks(d["marks"], [str(m) for m in d["marks"]])
            ax.minorticks_off()
            ax.tick_params(axis="x", labelrotation=60)
    axes[0][0].set_ylabel(d["unit"])
    axes[0][-1].legend(fontsize="small", loc="best")
    note = f"; squares: {d['extra_label']}" if "extra_label" in d else ""
    fig.suptitle(_title(d["title"] + note), fontsize="medium")
    return _png(fig)


def ladder(plt, game: str) -> bytes:
    d = _load("ladders")[game]
    rows = d["rows"]
    fig, ax = plt.subplots(figsize=(WIDE[0], 0.5 * len(rows) + 1.2))
    ys = list(range(len(rows)))[::-1]
    if "landlord" in rows[0]:
        for offset, side in ((0.15, "landlord"), (-0.15, "peasants")):
            ax.errorbar([r[side][0] for r in rows], [y + offset for y in ys],
                        xerr=[r[side][1] for r in rows], fmt="o", capsize=3, label=f"as {side}")
        ax.legend(fontsize="small")
    else:
        ax.errorbar([r["value"] for r in rows], ys, xerr=[r["pm"] for r in rows], fmt="o",
                    capsize=3)
    ax.axvline(d["level"], **LEVEL_STYLE)
    ax.set_yticks(ys, [r["label"] for r in rows])
    ax.set(xlabel=f"{d['unit']} (95% interval)")
    fig.suptitle(_title(d["title"]), fontsize="medium")  # over the labels too
    return _png(fig)


def selfplay(plt) -> bytes:
    d = _load("speed")["selfplay"]
    fig, ax = plt.subplots(figsize=WIDE)
    width = 0.8 / len(d["actors"])
    for i, actors in enumerate(d["actors"]):
        xs = [j + (i - 0.5) * width for j in range(len(d["rows"]))]
        ax.bar(xs, [r["runs"][0][i] for r in d["rows"]], width, label=f"actors={actors}")
        ax.plot(xs, [r["runs"][1][i] for r in d["rows"]], "k_", markersize=14)
    ax.set_xticks(range(len(d["rows"])), [r["label"] for r in d["rows"]], fontsize="small")
    ax.set(ylabel="frames/s", title=_title(d["title"]) + "\n(bars: first run; dashes: second run)")
    ax.legend()
    return _png(fig)


def compare(plt) -> bytes:
    d = _load("speed")["compare"]
    rows = d["rows"]
    fig, ax = plt.subplots(figsize=(WIDE[0], 0.4 * len(rows) + 1.2))
    ys = list(range(len(rows)))[::-1]
    ax.barh(ys, [r["median"] for r in rows],
            xerr=[[r["median"] - r["min"] for r in rows], [r["max"] - r["median"] for r in rows]])
    ax.set_xscale("log")
    ax.set_yticks(ys, [r["label"] for r in rows])
    ax.set(xlabel="steps/s (log scale; bars: median, whiskers: min and max)")
    fig.suptitle(_title(d["title"]), fontsize="medium")  # over the labels too
    return _png(fig)


def maskable_ppo(plt) -> bytes:
    d = _load("speed")["maskable_ppo"]
    fig, ax = plt.subplots(figsize=WIDE)
    for s in d["series"]:
        line, = ax.plot(d["minutes"], s["values"], marker="o", label=f"against {s['against']}")
        ax.fill_between(d["minutes"], s["low"], s["high"], alpha=INTERVAL_ALPHA,
                        color=line.get_color())
    ax.axhline(d["level"], label="an equal player", **LEVEL_STYLE)
    ax.set(xlabel="training minutes", ylabel="points per round (3/2/1/0)", title=_title(d["title"]))
    ax.legend(loc="lower right")
    return _png(fig)


def pictures(plt) -> dict[str, bytes]:
    """Every picture of the site, by file name."""
    out = {"quickstart.png": quickstart(plt), "speed-selfplay.png": selfplay(plt),
           "speed-compare.png": compare(plt), "maskable-ppo.png": maskable_ppo(plt)}
    for game in _load("time_to_strength"):
        out[f"tts-{game}.png"] = time_to_strength(plt, game)
    for game in ("daifugo", "president", "doudizhu"):
        out[f"ladder-{game}.png"] = ladder(plt, game)
    return out


def on_files(files, config):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        for name, content in pictures(plt).items():
            files.append(File.generated(config, f"{IMG}/{name}", content=content))
    finally:
        plt.close("all")
    return files
