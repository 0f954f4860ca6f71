"""A command line that fails well (issue 15): every bad argument is refused before anything
starts, in one sentence naming the bad value and the accepted ones, exit status 2; an
unreachable host is named with its cause; `--version`; `--lang it|en`.

In-process through `p2p_burraco.cli.main` (what the `p2p-burraco` script calls); one real
process checks that the installed entry point behaves the same."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2p_burraco import __version__
from p2p_burraco.bots import strategy_names
from p2p_burraco.cli import main
from p2p_burraco.commands.argtypes import STRATEGIES, locale_lang


def one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "usage:" not in err
    return lines[0]


@pytest.mark.parametrize("argv, words", [
    (["play", "--strategy", "nosuch"], ["'nosuch'", "'heuristic', 'greedy', 'random'"]),
    (["play", "--bot", "nosuch"], ["'nosuch'", "'heuristic', 'greedy', 'random'"]),
    (["play", "--players", "0"], ["0 players", "2, 3, 4, 5, 6"]),
    (["play", "--players", "four"], ["'four'", "number of players"]),
    (["play", "--game", "poker"], ["'poker'", "'burraco', 'briscola'"]),
    (["play", "--hands", "0"], ["--hands", "1 or more"]),
    (["play", "--lang", "fr"], ["'fr'", "'it', 'en'"]),
    (["--lang", "fr", "rules"], ["'fr'", "'it', 'en'"]),
    (["host", "--port", "70000"], ["70000", "0 to 65535"]),
    (["host", "--clock", "-5"], ["--clock", "more than 0"]),
    (["host", "--strategy", "smart"], ["'smart'", "'heuristic'"]),
    (["host", "--bots", "-1"], ["--bots", "0 or more"]),
    (["host", "--hands", "0"], ["--hands", "1 or more"]),      # host.run no longer re-checks
    (["host", "--grace", "-1"], ["--grace", "0 or more"]),
    (["host", "--match-clock", "0"], ["--match-clock", "more than 0"]),
    (["host", "--step-deadline", "0"], ["--step-deadline", "more than 0"]),
    (["host", "--max-timeouts", "0"], ["--max-timeouts", "1 or more"]),
    (["join", "127.0.0.1:1", "--bot", "--strategy", "x"], ["'x'", "'greedy'"]),
    (["join", "127.0.0.1:1", "--reconnect-for", "soon"], ["'soon'", "not a number"]),
    (["selfplay", "--bots", "greedy,nosuch"], ["'nosuch'", "heuristic, greedy, random"]),
    (["selfplay", "--players", "9"], ["9 players", "2, 3, 4, 5, 6"]),
    (["rules", "--game", "chess"], ["'chess'", "'burraco', 'briscola'"]),
    (["nosuchcommand"], ["'nosuchcommand'", "play"]),
])
def test_a_bad_argument_is_one_sentence_and_exit_2(argv: list[str], words: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    line = one_sentence(capsys.readouterr().err)
    assert line.startswith("p2p-burraco")
    for word in words:
        assert word in line, line


def test_players_a_rule_set_does_not_allow_is_refused_before_the_terminal_check(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--players 3` for Briscola: the rule set's own seat counts [BRISCOLA-5], said before
    `play` asks for a terminal (so a pipe gets the real reason)."""
    assert main(["play", "--game", "briscola", "--players", "3"]) == 2
    line = one_sentence(capsys.readouterr().err)
    assert "briscola standard is played by 2, 4 players, not 3" in line


def test_join_to_a_dead_port_names_the_address_and_cause_quickly(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without a terminal, as in one: a non-zero exit, the address, why."""
    start = time.monotonic()
    assert main(["join", "127.0.0.1:1", "--data-dir", str(tmp_path)]) == 1
    assert time.monotonic() - start < 5
    line = one_sentence(capsys.readouterr().err)
    assert "cannot reach the host at 127.0.0.1:1" in line and "refused" in line.lower()


def test_verify_of_a_file_that_is_no_record_says_so_plainly(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    junk = tmp_path / "hostname"
    junk.write_text("some-machine\n")
    assert main(["verify", str(junk)]) == 3
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [(f"{junk}: not a recorded hand or match: it holds something else (a "
                    "recorded hand is a hand-NNN.p2pb file).")]
    assert not any(word in out[0] for word in ("msgpack", "transcript", "v1"))


def test_version_and_lang(capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"p2p-burraco {__version__}"
    for env, lang in (({"LANG": "it_IT.UTF-8"}, "it"), ({"LANG": "en_GB.UTF-8"}, "en"),
                      ({"LC_ALL": "it_CH", "LANG": "en_US"}, "it"), ({}, "en")):
        for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
            monkeypatch.delenv(var, raising=False)
        for var, value in env.items():
            monkeypatch.setenv(var, value)
        assert locale_lang() == lang
    from p2p_burraco.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["--lang", "it", "rules"]).lang == "it"
    assert parser.parse_args(["rules", "--lang", "it"]).lang == "it"
    monkeypatch.setenv("LC_ALL", "it_IT")
    assert build_parser().parse_args(["rules"]).lang == "it"   # the locale's, by default


def test_strategy_choices_are_the_bots_we_have() -> None:
    for game in ("burraco", "briscola"):
        assert sorted(STRATEGIES) == sorted(strategy_names(game))


def test_selfplay_says_which_bot_sits_where(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--game", "briscola", "--bots", "greedy,random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "seats: 0 greedy, 1 random"
    assert "greedy (seat 0)" in out and "random (seat 1)" in out


def test_the_installed_command_refuses_in_one_sentence_fast() -> None:
    """The real process: exit 2, one sentence on stderr, no traceback, well under 5 s."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "p2p_burraco", "play", "--strategy", "nosuch"],
                          capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL,
                          check=False)
    assert time.monotonic() - start < 5
    assert proc.returncode == 2 and proc.stdout == ""
    assert "invalid choice: 'nosuch'" in one_sentence(proc.stderr)


def test_networked_play_hands_think_to_its_bots(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    """`play --think` reaches the bots of the networked table too, not only `--offline`."""
    import argparse
    import types

    from p2p_burraco.bots import controller
    from p2p_burraco.commands.play import start_play

    seen: dict[str, object] = {}

    class Stop(Exception):
        pass

    def factory(strategy: str | None, seed: int | None, think: float | None = None) -> None:
        seen.update(strategy=strategy, think=think)
        raise Stop

    monkeypatch.setattr(controller, "bot_factory", factory)
    args = argparse.Namespace(game="burraco", variant=None, players=2, target=None, hands=1,
                              seed=1, name="Ann", bot_kind="expert", port=0, think=0.25,
                              data_dir=str(tmp_path), offline=False)
    with pytest.raises(Stop):
        start_play(types.SimpleNamespace(callInThread=lambda *a: None), args)
    assert seen == {"strategy": "expert", "think": 0.25}


def test_the_think_help_says_the_bots_own_default() -> None:
    """`--think`'s help (the same on every command) names the default the experts use."""
    from p2p_burraco.bots import briscola_expert, burraco_expert
    from p2p_burraco.commands.argtypes import THINK_HELP

    for game, bot in (("Burraco", burraco_expert.ExpertBot),
                      ("Briscola", briscola_expert.ExpertBot)):
        assert f"{bot(random.Random(0)).think:g} for {game}" in THINK_HELP
