"""The ``uecda:<command>`` player: an external UECda client program seated at our tables
(climbrl.play.uecda.program), with a tiny protocol client of the tests as the program."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from climbrl import policies
from climbrl.play.uecda import program
from climbrl.training import evaluate
from climbrl.training.evaluate import PlayerError, deal_codes, make_env, play_game

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "uecda_fake_client.py"
SPEC = f"uecda:{sys.executable} {FAKE} {{host}} {{port}} {{name}}"
EXIT_WAIT_S = 10.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped) is no running program
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _gone_within(pid: int, seconds: float = EXIT_WAIT_S) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _games(spec: str, deals: int, rounds: int = 2):
    """``deals`` matches with the program at seat 1 and scripted players around it."""
    env = make_env("uecda", 5, rounds, {})
    env.reset(seed=0)
    game = env.unwrapped.game
    prog = policies.load("uecda", spec)
    seated = [policies.load("uecda", "scripted-easy", seed=s) for s in range(4)]
    seated.insert(1, prog)
    outcomes = []
    for deal in range(deals):
        (code,) = deal_codes(game, 0, [deal])
        for player in seated:
            player.seed(deal)
        outcomes.append(play_game(env, seated, code))
    return prog, outcomes


def test_a_program_plays_whole_matches_and_ends_with_them():
    prog, outcomes = _games(SPEC, 3)
    assert [len(o["places"]) for o in outcomes] == [2, 2, 2]  # every round of every match
    assert prog.refused == 0
    pid = prog.link.process.pid
    assert _alive(pid)
    del prog
    gc.collect()  # the tournament's players are gone: the program is told and ended
    assert _gone_within(pid)


def test_the_program_ends_when_the_process_running_it_is_killed(tmp_path):
    """No orphan: the harness killed (SIGKILL, no clean-up) takes the program with it."""
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        from test_uecda_program import _games, SPEC
        prog, _ = _games(SPEC, 1)
        print(prog.link.process.pid, flush=True)
        time.sleep(600)
    """))
    harness = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                               text=True, cwd=ROOT)
    try:
        pid = int(harness.stdout.readline())
        assert _alive(pid)
        harness.kill()
        harness.wait()
        assert _gone_within(pid)
    finally:
        harness.kill()
        harness.wait()


def test_a_crash_is_reported_naming_the_program():
    with pytest.raises(PlayerError) as err:
        _games(SPEC + " --crash-after 3", 2)
    text = str(err.value)
    assert "uecda_fake_client.py" in text and "at seat 1" in text
    assert "closed its connection" in text and "exited with status 3" in text
    assert "\n" not in text


def test_a_program_past_its_time_limit_is_named_and_ended(monkeypatch):
    monkeypatch.setattr(program, "DECISION_LIMIT_S", 0.5)
    prog = policies.load("uecda", SPEC + " --hang-after 1")
    env = make_env("uecda", 5, 1, {})
    env.reset(seed=0)
    (code,) = deal_codes(env.unwrapped.game, 0, [0])
    seated = [prog] + [policies.load("uecda", "scripted-easy", seed=s) for s in range(4)]
    with pytest.raises(PlayerError, match=r"did not answer within 0.5 s"):
        play_game(env, seated, code)
    pid = prog.link.process.pid
    prog.close()
    assert _gone_within(pid)


def test_a_program_that_cannot_start_or_connect_is_named():
    with pytest.raises(PlayerError, match="client {host} {port}' at seat 1: cannot start "
                       "'/nonexistent/client'"):
        _games("uecda:/nonexistent/client {host} {port}", 1)
    with pytest.raises(PlayerError, match="exited with status 0 before it connected"):
        _games(f"uecda:{sys.executable} -c pass", 1)


@pytest.mark.parametrize("spec, message", [
    ("uecda:", "needs a command"),
    ("uecda:./client 'unclosed", "cannot be split"),
])
def test_bad_specs_say_why(spec, message):
    with pytest.raises(ValueError, match=message):
        policies.load("uecda", spec)


def test_only_the_uecda_rules():
    env = make_env("daifugo", 4, 1, {})
    with pytest.raises(ValueError, match="plays the UECda rules only"):
        policies.load("daifugo", SPEC).bind(env.unwrapped.game)


def test_the_harness_measures_a_program_with_duplicate_deals(tmp_path):
    """``climbrl eval --game uecda --players ...,uecda:...`` end to end: duplicate deals, the
    report with intervals and the ladder; no program left running."""
    before = _fake_clients()
    done = subprocess.run(
        [sys.executable, "-m", "climbrl", "eval", "--game", "uecda", "--players",
         f"scripted-easy,{SPEC},random,random,random", "--deals", "2", "--rounds", "1",
         "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "uecda_fake_client.py" in done.stdout and "Elo" in done.stdout
    assert _fake_clients() <= before


def _fake_clients() -> set[int]:
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"uecda_fake_client.py" in cmd and _alive(int(entry.name)):
                pids.add(int(entry.name))
    return pids


def test_the_eval_check_starts_no_program():
    config = evaluate.EvalConfig(game="uecda", lineups=((SPEC, "random", "random", "random",
                                                         "random"),), deals=1, seed=0)
    before = _fake_clients()
    evaluate.check(config)
    assert _fake_clients() <= before
