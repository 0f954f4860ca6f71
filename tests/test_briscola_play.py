"""Briscola invariants (hypothesis), determinism, the greedy bot, selfplay and the CLI."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_burraco.bots import make_strategy
from p2p_burraco.cli import main
from p2p_burraco.games.base import HandState, Match, RuleViolation, check_cards_conserved
from p2p_burraco.games.briscola import (
    PRESETS,
    SPEC,
    BriscolaHand,
    BriscolaMatch,
    Play,
    stacked_order,
)
from p2p_burraco.selfplay import SelfplayConfig, run_selfplay

PRESET_NAMES = sorted(PRESETS)


def snapshot(h: BriscolaHand) -> tuple:
    return (h.public_view(), [h.player_view(s) for s in range(h.n_seats)],
            h.physical_locations(), {p: h.card_at(p) for p in range(40)})


def check_valid(h: BriscolaHand) -> None:
    """What must hold after any legal action."""
    check_cards_conserved(h)
    sizes = [len(h.hand(s)) for s in range(h.n_seats)]
    assert all(0 <= x <= 3 for x in sizes)
    if not h.is_over:
        assert h.to_move is not None and h.legal_kinds(h.to_move) == ("play",)
        assert sizes[h.to_move] > 0
    pts = [h.side_points(0), h.side_points(1)]
    assert sum(pts) <= 120


@st.composite
def games(draw: st.DrawFn) -> tuple:
    preset = draw(st.sampled_from(PRESET_NAMES))
    n = draw(st.sampled_from(PRESETS[preset].seat_counts))
    dealer = draw(st.integers(0, n - 1))
    order = draw(st.permutations(range(40)))
    picks = draw(st.lists(st.integers(0, 2), min_size=40, max_size=40))
    return preset, n, dealer, order, picks


@given(games())
@settings(max_examples=60, deadline=None)
def test_points_distributed_and_cards_conserved(game: tuple) -> None:
    """BRISCOLA-4/-18: a played-out smazzata hands out exactly 120 points; every position is
    in exactly one place after every action; every legal action leads to a valid state; an
    illegal one changes nothing."""
    preset, n, dealer, order, picks = game
    h = BriscolaHand(PRESETS[preset], n, dealer)
    for p, c in enumerate(order):
        h.learn(p, c)
    check_valid(h)
    for pick in picks:
        if h.is_over:
            break
        seat = h.to_move
        assert seat is not None
        legal = list(h.legal_actions(seat))
        assert len(legal) == len(h.hand(seat))
        for action in legal:  # no legal action leads to an invalid state
            trial = h.copy()
            trial.apply(seat, action)
            check_valid(trial)
        before = snapshot(h)
        other = (seat + 1) % n
        wrong = [(other, legal[0])]  # out of turn
        holders = [s for s in range(n) if s != seat and h.hand(s)]
        if holders:  # someone else's card
            pos = h.hand(holders[0])[0]
            wrong.append((seat, Play(pos, h.card_at(pos))))  # type: ignore[arg-type]
        for bad_seat, bad in wrong:
            with pytest.raises(RuleViolation):
                h.apply(bad_seat, bad)  # type: ignore[arg-type]
            assert snapshot(h) == before
        h.apply(seat, legal[pick % len(legal)])
        check_valid(h)
    assert h.is_over
    r = h.result()
    assert sum(r.points) + r.extra["unplayed"] == 120
    if r.reason == "tricks":
        assert sum(r.points) == 120 and len(h.physical_locations()) == 40
        assert sum(len(h.taken(s)) for s in (0, 1)) == 40
    else:
        assert r.reason == "vinco subito" and max(r.points) >= 61


@given(st.permutations(range(40)), st.integers(0, 39), st.sampled_from([2, 4]))
@settings(max_examples=30, deadline=None)
def test_abandon_keeps_cards_and_the_quitter_never_ahead(order: list, moment: int,
                                                         n: int) -> None:
    """BRISCOLA-24 at any moment: positions conserved, the quitter's side never ahead."""
    h = BriscolaHand(PRESETS["standard"], n, 0)
    for p, c in enumerate(order):
        h.learn(p, c)
    for _ in range(moment):
        seat = h.to_move
        h.apply(seat, next(iter(h.legal_actions(seat))))  # type: ignore[arg-type]
    quitter = h.to_move
    assert quitter is not None
    h.abandon(quitter)
    check_cards_conserved(h)
    r = h.result()
    q = quitter % 2
    assert r.points[q] <= r.points[1 - q] and r.extra["winner"] == 1 - q
    assert sum(r.points) <= 120


def test_spec_satisfies_the_contract() -> None:
    assert SPEC.name == "briscola" and SPEC.default_variant == "standard"
    m = SPEC.new_match(PRESETS["standard"], 2, first_dealer=1)
    assert isinstance(m, Match) and isinstance(m, BriscolaMatch) and m.deck_size() == 40
    h = m.new_hand()
    assert isinstance(h, HandState) and h.game == "briscola"
    c = h.copy()
    c.learn(0, 5)
    assert h.card_at(0) is None  # copies are independent
    for name, rules in PRESETS.items():
        assert rules.name == name and "Briscola" in SPEC.describe(rules)


# --- determinism ----------------------------------------------------------------------------
@pytest.mark.parametrize("players,kind", [(2, "smazzate"), (4, "punti")])
def test_selfplay_is_deterministic(players: int, kind: str) -> None:
    def go() -> tuple:
        cfg = SelfplayConfig(game="briscola", players=players, hands=3, seed=42,
                             bots=("greedy", "random"), options={"match_kind": kind, "hands": 3})
        match, results = run_selfplay(cfg)
        return match.standings(), [r.to_wire() for r in results]

    first = go()
    random.seed(12345)  # disturbing the global generator changes nothing
    random.random()
    assert go() == first


# --- the greedy bot ------------------------------------------------------------------------
def stacked(hands: dict[int, str], trump: str, n: int = 2, dealer: int = 1) -> BriscolaHand:
    h = BriscolaHand(PRESETS["standard"], n, dealer)
    for p, c in enumerate(stacked_order(h.deck, h.schedule, hands, trump)):
        h.learn(p, c)
    return h


@pytest.mark.parametrize("hands,trump,lead,expected", [
    ({0: "Ac 2c 3c", 1: "Kb 2b 4d"}, "7d", "Ac", "4d"),   # points on the table: trump cheaply
    ({0: "Ac 2c 3c", 1: "Kc 2b 4b"}, "7d", "Ac", "2b"),   # cannot take it: lowest liscio
    ({0: "2c 5c 6c", 1: "Kb 2b 4d"}, "7d", "2c", "2b"),   # nothing on the table: lowest liscio
    ({0: "Jc 5c 6c", 1: "Qc Ab 7d"}, "2d", "Jc", "Qc"),   # win in suit, spare the briscola
    ({0: "Jc 5c 6c", 1: "Ad 3b 7d"}, "2d", "Jc", "7d"),   # the lowest briscola, not the Asso
    ({0: "5c 6c 4c", 1: "Ab 3b Kb"}, "2d", "5c", "Kb"),   # no liscio: the cheapest card
])
def test_greedy_bot(hands: dict, trump: str, lead: str, expected: str) -> None:
    h = stacked(hands, trump)
    h.apply(0, h.parse_action(0, lead))
    bot = make_strategy("briscola", "greedy", random.Random(0))
    assert str(bot.choose(h, 1)) == f"play {expected}"


def test_greedy_bot_leads_its_lowest_liscio_and_spares_partners() -> None:
    bot = make_strategy("briscola", "greedy", random.Random(0))
    h = stacked({0: "Ab 2c Kd"}, "7d")
    assert str(bot.choose(h, 0)) == "play 2c"
    four = stacked({0: "Ac", 1: "2b", 2: "3b Kb 4c", 3: "5b"}, "7d", n=4, dealer=3)
    for text in ("Ac", "2b"):
        four.apply(four.to_move, four.parse_action(four.to_move, text))  # type: ignore[arg-type]
    assert str(bot.choose(four, 2)) == "play 4c"  # partner already takes it


# --- selfplay inside the suite -------------------------------------------------------------
@pytest.mark.slow
def test_hundred_selfplay_games() -> None:
    """100 whole matches over every preset, 2 and 4 seats, greedy against random, with the
    card-conservation check after every action."""
    decided = 0
    for i in range(100):
        preset = PRESET_NAMES[i % len(PRESET_NAMES)]
        counts = PRESETS[preset].seat_counts
        kind = ("punti", "smazzate")[i % 2]
        cfg = SelfplayConfig(game="briscola", variant=preset, players=counts[i % len(counts)],
                             hands=6, seed=i, bots=("greedy", "random"),
                             options={"match_kind": kind, "hands": 1 + 2 * (i % 2)})
        match, results = run_selfplay(cfg)
        st = match.standings()
        assert st["over"], (preset, i, st)
        assert st["hands"] == len(results)
        for r in results:
            if r.reason == "tricks":
                assert sum(r.points) == 120
        decided += st["winner"] is not None
    assert decided >= 90


# --- the command line ----------------------------------------------------------------------
@pytest.mark.parametrize("argv,expect", [
    (["--players", "2", "--hands", "3", "--match", "smazzate"], "(target 2)"),
    (["--players", "4", "--hands", "1"], "greedy (seat 0)+greedy (seat 2)"),
    (["--players", "2", "--hands", "1", "--variant", "vinco-subito", "--seed", "3"], "winner"),
])
def test_cli_selfplay(capsys: pytest.CaptureFixture[str], argv: list, expect: str) -> None:
    assert main(["selfplay", "--game", "briscola", *argv]) == 0
    out = capsys.readouterr().out
    assert "— hand 1" in out and "match after" in out and expect in out
    assert "dealer seat" in out and "briscola " in out  # the hand's one-line account


def test_cli_selfplay_refuses_an_even_best_of(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--game", "briscola", "--hands", "2", "--match", "smazzate"]) == 2
    assert "BRISCOLA-20" in capsys.readouterr().err


def test_cli_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--game", "briscola"]) == 0
    out = capsys.readouterr().out
    assert "Briscola" in out and "BRISCOLA-14" in out and "napoletane" in out
    assert main(["rules", "--game", "briscola", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert set(PRESETS) <= set(listed)
    assert main(["rules", "--game", "briscola", "--variant", "francesi"]) == 0
    assert "French" in capsys.readouterr().out
