"""`p2p-burraco bench bots`: reachable from the command line, prints its figures, refuses
set-ups it cannot measure with a clear message."""

from __future__ import annotations

import pytest

from p2p_burraco.benchmarks.bots import play_series
from p2p_burraco.cli import main


def test_bench_bots_prints_win_rates_and_timing(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--game", "briscola", "--games", "4",
               "--against", "random,heuristic"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "a game = one match of the rule set: one smazzata" in out
    assert "heuristic vs random" in out and "heuristic vs heuristic" in out
    assert "of 4: win rate" in out and "ms per move" in out
    assert "goal ≥ 90 % against random" in out


def test_bench_bots_burraco_says_what_a_game_is(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--game", "burraco", "--players", "2", "--games", "2",
               "--against", "random"])
    out = capsys.readouterr().out
    assert rc == 0 and "a game = one hand, won on side points" in out
    assert "heuristic vs random" in out


@pytest.mark.parametrize("argv,words", [
    (["--game", "burraco", "--players", "3"], "two fixed sides"),
    (["--game", "briscola", "--players", "6"], "two fixed sides"),
    (["--game", "briscola", "--target", "500"], "--target applies to Burraco"),
    (["--game", "burraco", "--variant", "nope"], "unknown burraco variant"),
    (["--game", "briscola", "--games", "0"], "--games must be at least 1"),
])
def test_bench_bots_refuses_clearly(argv: list[str], words: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", *argv])
    assert rc == 2
    assert words in capsys.readouterr().err


def test_series_is_deterministic_and_counts_add_up() -> None:
    a = play_series("briscola", 2, 6, opponent="greedy", seed=3)
    b = play_series("briscola", 2, 6, opponent="greedy", seed=3)
    assert (a.wins, a.ties, a.losses, a.margin) == (b.wins, b.ties, b.losses, b.margin)
    assert a.games == 6 and len(a.move_times) == 6 * 20


def test_burraco_match_to_a_target() -> None:
    """With --target a game is a whole match: several hands until a side reaches it."""
    s = play_series("burraco", 2, 2, opponent="random", seed=1, target=1200)
    assert s.games == 2 and s.wins + s.ties + s.losses == 2
    assert s.hands > s.games  # no side reaches 1200 in a single hand here
