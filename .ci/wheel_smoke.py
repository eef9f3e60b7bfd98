"""Smoke test of an installed climbrl wheel, run from a folder outside the repository.

    python .ci/wheel_smoke.py WORKDIR

with the Python of a virtualenv that installed the wheel (``climbrl[train,export]``). It
checks that the code and the shipped files come from the installation (not a checkout),
loads every player name of each game and plays a game with them, plays a game with each
shipped CPU, trains for a few seconds from a shipped config given by name, and plays
``climbrl play`` at the terminal to the end of a match, answering every prompt with the
first legal move (``moves``, then that move). Prints one line per check; exits 1 at the first
failure.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

PLAY_SECONDS = 300
PROMPT = "> "
LEGAL = re.compile(r"legal moves \(\d+\):\n\s+[^:\n]+: ([^\n]+)")
"""the first group line after ``moves``: ``  sets of 2: 4d 4c | Js Jh``"""


def check(ok: bool, what: str) -> None:
    if not ok:
        print(f"FAIL: {what}", flush=True)
        sys.exit(1)
    print(f"ok: {what}", flush=True)


def installed_layout() -> None:
    import climbrl
    from climbrl import envs, play, policies, training
    from climbrl.policies.install import shipped

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    for module in (envs, policies, training, play):
        check(Path(module.__file__).resolve().is_relative_to(site / "climbrl"),
              f"{module.__name__} from {site / 'climbrl'}")
    for folder in ("configs", "cpus"):
        path = shipped(folder)
        check(path.resolve().is_relative_to(site / "climbrl"), f"shipped {folder} at {path}")
    # the command's script goes to the virtualenv's bin/ (a path that climbs out of site-packages)
    top = sorted({record.split("/")[0] for record in _record(site) if not record.startswith("../")})
    check(all(name == "climbrl" or name.startswith("climbrl-") for name in top),
          f"the wheel's top-level names are climbrl and its metadata: {top}")
    check((Path(play.__file__).parent / "page" / "index.html").is_file(), "the page is installed")
    check(climbrl.__version__ == _installed_version(), f"climbrl.__version__ {climbrl.__version__}")
    # cpus.yaml may point a level at a CPU by a path relative to its own folder
    check((shipped("configs") / ".." / "cpus" / "daifugo" / "cpu.json").is_file(),
          "../cpus/daifugo from the shipped cpus.yaml is the shipped CPU")


def compiled_cores() -> None:
    """The wheel was built here, where a C compiler exists: it carries both compiled cores,
    from the installation, and new games use them (the C sources stay out of the wheel)."""
    from climbrl.envs.daifugo import DaifugoGame, Rules
    from climbrl.envs.doudizhu.engine import DoudizhuGame

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    for name, game in (("daifugo", DaifugoGame(Rules())), ("doudizhu", DoudizhuGame())):
        check(game.compiled, f"climbrl.envs.{name}._fast is in the wheel and in use")
    sources = [r for r in _record(site) if r.endswith((".c", ".h"))]
    check(not sources, f"no C sources in the wheel: {sources}")


def _record(site: Path) -> list[str]:
    """The paths of the installed wheel's RECORD (every file it put in place)."""
    (info,) = site.glob("climbrl-*.dist-info")
    return [line.split(",")[0] for line in (info / "RECORD").read_text().splitlines() if line]


def _installed_version() -> str:
    from importlib.metadata import version

    return version("climbrl")


def own_packages_beside(work: Path) -> None:
    """A project with its own ``envs`` and ``training`` packages imports them and climbrl
    side by side, without a warning (0.1 installed top-level packages of those names)."""
    project = work / "project"
    for name in ("envs", "training"):
        (project / name).mkdir(parents=True, exist_ok=True)
        (project / name / "__init__.py").write_text(f"OWN = {name!r}\n")
    code = ("import warnings; warnings.simplefilter('error'); import envs, training; "
            "from climbrl.envs import daifugo_v1; from climbrl.training import evaluate; "
            "import climbrl.cli; assert (envs.OWN, training.OWN) == ('envs', 'training'); "
            "daifugo_v1.env().reset(seed=0); print('both')")
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=project,
                          capture_output=True, text=True)
    said = f" ({done.stderr.strip()[-300:]})" if done.stderr else ""
    check(done.returncode == 0 and done.stdout.split() == ["both"] and not said,
          f"a project's own envs/ and training/ import beside climbrl{said}")


def every_level() -> None:
    from climbrl import policies
    from climbrl.training.evaluate import make_env, play_game

    for game, table in (("daifugo", 4), ("president", 4), ("doudizhu", 3)):
        names = policies.known_names(game)
        env = make_env(game, table, 1, {})
        env.reset(seed=0)
        players = [policies.load(game, name, seed=i) for i, name in enumerate(names)]
        for start in range(0, len(players), table):
            lineup = (players[start:] + players)[:table]
            play_game(env, lineup, env.unwrapped.deal_code)
        check(True, f"{game}: every name plays ({', '.join(names)})")


def shipped_cpus() -> None:
    from climbrl import policies
    from climbrl.training.evaluate import make_env, play_game

    # the Daifugo and President CPUs play every table of their game: other player and round
    # counts (President's 6 players: two decks)
    tables = (("daifugo", "cpus/daifugo", 4, 3), ("daifugo", "cpus/daifugo", 3, 5),
              ("president", "cpus/president", 6, 3), ("doudizhu", "cpus/doudizhu", 3, None))
    for game, cpu, table, rounds in tables:
        env = make_env(game, table, rounds, {})
        env.reset(seed=1)
        lineup = [policies.load(game, cpu, seed=0)] + [policies.load(game, "random", seed=s) for s in range(1, table)]
        outcome = play_game(env, lineup, env.unwrapped.deal_code)
        check(bool(outcome), f"shipped CPU {cpu} plays a {game} match ({table} players)")


def climbrl(*args: str, **kwargs) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("climbrl")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, **kwargs)


def train(work: Path) -> None:
    runs = work / "runs"
    done = climbrl("train", "--config", "daifugo4", "--minutes", "0.05", "--actors", "0",
                   "--runs-dir", str(runs), "--run-name", "smoke", "--eval-every-frames", "0",
                   "--progress", "false")
    check(done.returncode == 0 and (runs / "smoke" / "checkpoint.pt").is_file(),
          f"climbrl train --config daifugo4 wrote {runs / 'smoke' / 'checkpoint.pt'}"
          + ("" if done.returncode == 0 else f"\n{done.stdout}\n{done.stderr}"))
    missing = climbrl("train", "--config", "nope", "--minutes", "0.01")
    check(missing.returncode != 0 and "daifugo4" in missing.stderr,
          "climbrl train --config nope fails naming the shipped configs")


def first_move(game: str, group: str) -> str:
    """The first move of a group line: moves stand apart by `` | ``, except Dou Dizhu's
    plays, which hold no space and stand apart by one (``single: 6 7 9``)."""
    if " | " in group or game != "doudizhu":
        return group.split(" | ")[0]
    return group.split()[0]


def play(game: str, cpus: str, *extra: str) -> None:
    """``climbrl play`` through pipes: at each prompt ask ``moves``, then play the first."""
    exe = Path(sys.executable).with_name("climbrl")
    proc = subprocess.Popen([str(exe), "play", "--game", game, "--cpus", cpus, "--seed", "0", *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, pending, moves = "", "", 0
    deadline = time.monotonic() + PLAY_SECONDS
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(proc.stdout.fileno(), 65536).decode()
        if not chunk:
            break
        out += chunk
        pending += chunk
        if not pending.endswith(PROMPT):
            continue
        found = LEGAL.findall(pending)
        answer = first_move(game, found[-1]) if found else "moves"
        moves += answer != "moves"
        pending = ""
        proc.stdin.write((answer + "\n").encode())
        proc.stdin.flush()
    else:
        proc.kill()
        check(False, f"climbrl play --game {game} finished within {PLAY_SECONDS} s")
    rc = proc.wait()
    check(rc == 0 and moves > 0 and "Traceback" not in out,
          f"climbrl play --game {game} --cpus {cpus} played {moves} moves to the end"
          + ("" if rc == 0 else f"\n{out[-3000:]}"))


def main() -> None:
    work = Path(sys.argv[1]).resolve()
    os.chdir(work)
    installed_layout()
    compiled_cores()
    own_packages_beside(work)
    every_level()
    shipped_cpus()
    train(work)
    play("daifugo", "hard,medium,medium", "--rounds", "1")
    play("doudizhu", "medium,hard")
    print("wheel smoke: all checks passed")


if __name__ == "__main__":
    main()
