"""`p2p-burraco bench bots`: reachable from the command line, prints its figures, refuses
set-ups it cannot measure with a clear message."""

from __future__ import annotations

import pytest

from p2p_burraco.benchmarks.bots import play_series
from p2p_burraco.cli import main


def test_bench_bots_prints_win_rates_and_timing(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--game", "briscola", "--games", "4", "--precision", "0",
               "--against", "random,heuristic"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "a game = one match of the rule set: one smazzata" in out
    assert "heuristic vs random" in out and "heuristic vs heuristic" in out
    assert "of 4: win rate" in out and "ms per move" in out
    assert "goal ≥ 90 % against random" in out


def test_bench_bots_burraco_says_what_a_game_is(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--game", "burraco", "--players", "2", "--games", "2", "--precision", "0",
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
    (["--game", "briscola", "--jobs", "0"], "--jobs must be at least 1"),
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


@pytest.mark.parametrize("score,n,lo,hi", [
    (0, 10, 0.0, 0.2775),          # Wilson stays inside [0, 1] at 0 %
    (10, 10, 0.7225, 1.0),
    (5, 10, 0.2366, 0.7634),
    (86, 100, 0.7786, 0.9147),
    (170, 200, 0.7939, 0.8929),
])
def test_wilson_interval_matches_the_textbook(score: float, n: int, lo: float, hi: float) -> None:
    from p2p_burraco.benchmarks.bots import wilson

    got = wilson(score, n)
    assert got == pytest.approx((lo, hi), abs=5e-4)


def test_series_goes_on_until_the_interval_is_narrow_enough() -> None:
    """--precision: whole duplicate pairs are added until ±precision or the cap."""
    capped = play_series("briscola", 2, 2, opponent="random", seed=5,
                         precision=0.25, max_games=40)
    assert capped.games % 2 == 0 and 2 < capped.games <= 40
    assert capped.half_width <= 0.25 or capped.games == 40
    exact = play_series("briscola", 2, 4, opponent="random", seed=5, precision=0.0,
                        max_games=40)
    assert exact.games == 4


def test_series_is_the_same_whatever_the_jobs() -> None:
    """--jobs: games played side by side in worker processes give the very same series as
    one after another, the stop by --precision included (games played ahead are dropped)."""
    one = play_series("briscola", 2, 2, opponent="random", seed=5, precision=0.25,
                      max_games=40)
    two = play_series("briscola", 2, 2, opponent="random", seed=5, precision=0.25,
                      max_games=40, jobs=2)
    assert (one.wins, one.ties, one.losses, one.margin, one.hands) == \
        (two.wins, two.ties, two.losses, two.margin, two.hands)
    assert len(one.move_times) == len(two.move_times)


def test_bench_bots_prints_the_interval(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["bench", "bots", "--game", "briscola", "--games", "2", "--precision", "0",
               "--against", "random"])
    out = capsys.readouterr().out
    assert rc == 0 and "95 % interval" in out and "of 2: win rate" in out
