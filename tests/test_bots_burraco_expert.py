"""What the Burraco expert weighs with its rollouts: besides draw/take and the discard, every
meld the heuristic proposes against stopping there, and the meld the heuristic passed up
against its discard."""

from __future__ import annotations

import random

import pytest

from p2p_burraco.bots._burraco_eval import Evaluator
from p2p_burraco.bots.burraco_expert import ExpertBot
from p2p_burraco.bots.burraco_heuristic import HeuristicBot
from p2p_burraco.games.base import check_cards_conserved
from p2p_burraco.games.burraco import Attach, BurracoHand, Discard, Meld
from p2p_burraco.games.burraco.notation import parse_position
from p2p_burraco.selfplay import SelfplayConfig, deal_known, make_match


def _legal(state: BurracoHand, seat: int) -> set[str]:
    return {str(a) for a in state.legal_actions(seat)}


def test_a_meld_is_weighed_against_stopping() -> None:
    """FIBUR-6 FIBUR-7: melding is optional and a turn ends with a discard, so when the
    heuristic would meld, the other candidate is discarding now (its own best discard)."""
    state = parse_position("fibur 4 | turn 0 play | hand 7h 8h 9h 4s Kc")
    check_cards_conserved(state)
    bot = ExpertBot(random.Random(0), think=0.01)
    hunch = bot.heuristic.choose(state, 0)
    candidates = bot._candidates(state, 0, hunch)
    assert isinstance(hunch, Meld) and candidates[0] == hunch
    assert len(candidates) == 2 and isinstance(candidates[1], Discard)
    assert str(candidates[1]) in _legal(state, 0)
    assert str(bot.choose(state, 0)) in {str(a) for a in candidates}


def test_a_discard_is_weighed_against_the_meld_passed_up() -> None:
    """FIBUR-6: where the heuristic would discard although a meld was open to it (keeping
    cards for a burraco), that meld is among the expert's candidates — found in a seeded
    4-seat hand between heuristic bots."""
    deal_rng = random.Random("expert-candidates")
    state = make_match(SelfplayConfig(game="burraco", players=4), deal_rng).new_hand()
    deal_known(state, deal_rng)
    bots = [HeuristicBot(random.Random(s)) for s in range(4)]
    found = 0
    while not state.is_over and found < 2:
        seat = state.to_move
        assert seat is not None
        if state.phase == "play":
            probe = ExpertBot(random.Random(1), think=0.01)
            hunch = probe.heuristic.choose(state, seat)
            step = probe.heuristic.best_meld(state, seat, Evaluator(state, seat))
            if isinstance(hunch, Discard) and step is not None:
                candidates = probe._candidates(state, seat, hunch)
                assert candidates[0] == hunch
                assert isinstance(candidates[-1], (Meld, Attach))
                assert str(candidates[-1]) == str(step[0])
                assert all(str(a) in _legal(state, seat) for a in candidates)
                found += 1
        state.apply(seat, bots[seat].choose(state, seat))
    assert found >= 1, "no decision where the heuristic passed up a meld in this hand"


_STEADY = [170.0, -50.0] * 4  # paired differences: mean 60, 1.44 standard errors of it


@pytest.mark.parametrize("mine,base,sigmas,gain", [
    ([100.0, -50.0, 30.0], [90.0, -70.0, 10.0], 2.0, (10 + 20 + 20) / 3),   # ahead, clearly
    ([100.0, -50.0], [96.0, -54.0], 2.0, 0.0),    # ahead by 4 points a deal: under PRIOR
    ([100.0, -50.0], [96.0, -54.0], 1.0, 0.0),    # … whatever the bar in errors
    ([500.0, -400.0], [0.0, 0.0], 2.0, 0.0),      # ahead on average, within the noise
    ([60.0, 40.0, 50.0], [0.0, 0.0, 0.0], 2.0, 50.0),   # ahead by many standard errors
    (_STEADY, [0.0] * 8, 2.0, 0.0),               # 1.44 errors ahead: not enough at 2 …
    (_STEADY, [0.0] * 8, 1.0, 60.0),              # … enough at 1 (the draw's bar)
    ([-10.0, 0.0], [0.0, 0.0], 1.0, 0.0),         # behind
    ([50.0], [0.0], 1.0, 0.0),                    # one deal says nothing about the spread
    ([], [], 2.0, 0.0),
])
def test_a_candidate_replaces_the_heuristic_only_on_clear_evidence(
        mine: list[float], base: list[float], sigmas: float, gain: float) -> None:
    """The rule that picks between the heuristic's choice and a candidate: the mean paired
    difference over the same deals, if it beats PRIOR points and `sigmas` standard errors
    (module doc: why a bar at all, and why a lower one for the draw or the take)."""
    from p2p_burraco.bots._think import PairedMeans
    from p2p_burraco.bots.burraco_expert import PRIOR, _clear_gain

    assert PRIOR == 5.0
    acc = PairedMeans(2)
    for b, m in zip(base, mine):
        acc.add([b, m])
    assert _clear_gain(acc, 1, sigmas) == pytest.approx(gain)


@pytest.mark.parametrize("position,sigmas", [
    ("fibur 4 | turn 0 draw | hand 7h 8h Kc 4s 6d 10c Qs 3c 5s 9d Jd | pile 9h", 1.0),
    ("fibur 4 | turn 0 play | hand 7h 8h 9h 4s Kc", 2.0),
])
def test_the_draw_or_the_take_is_overruled_on_less_evidence(
        monkeypatch: pytest.MonkeyPatch, position: str, sigmas: float) -> None:
    """The bar in standard errors is SIGMAS_DRAW for the draw phase and SIGMAS otherwise
    (burraco_expert.md: measured against rollouts played by the heuristic at every seat)."""
    import p2p_burraco.bots.burraco_expert as expert

    assert (expert.SIGMAS_DRAW, expert.SIGMAS) == (1.0, 2.0)
    bars: set[float] = set()
    real = expert._clear_gain

    def spy(acc, i, bar):  # type: ignore[no-untyped-def]
        bars.add(bar)
        return real(acc, i, bar)

    monkeypatch.setattr(expert, "_clear_gain", spy)
    ExpertBot(random.Random(0), think=0.05).choose(parse_position(position), 0)
    assert bars == {sigmas}


_WORSE = [-100.0, -90.0, -110.0, -95.0] * 7
_CLOSE = [300.0, -290.0, 310.0, -300.0] * 7


@pytest.mark.parametrize("candidates,done,settled", [
    ([_WORSE], 24, True),              # clearly worse after SETTLE_FROM deals: stop
    ([_WORSE], 23, False),             # too few deals to tell
    ([_WORSE], 25, False),             # not a deal the search looks at
    ([_WORSE], 28, True),              # the next look
    ([_CLOSE], 24, False),             # as likely better as worse: keep dealing
    ([_WORSE, _CLOSE], 24, False),     # one candidate still in the running is enough
    ([[-60.0, 60.0] * 14], 24, False),  # even on average, but half an SE reaches PRIOR
    ([[-3.0, 3.0] * 14], 24, True),    # even, and too steady ever to beat PRIOR
])
def test_a_search_stops_once_the_heuristics_choice_is_settled(
        candidates: list[list[float]], done: int, settled: bool) -> None:
    """The rollouts stop early when no candidate is within SETTLE_SIGMAS standard errors of
    the PRIOR it must beat (the heuristic's move would stand whatever the remaining deals
    said, with the odds burraco_expert.md measured), looked at every SETTLE_EVERY deals."""
    from p2p_burraco.bots._think import PairedMeans
    from p2p_burraco.bots.burraco_expert import SETTLE_EVERY, SETTLE_FROM, SETTLE_SIGMAS, _settled

    assert (SETTLE_FROM, SETTLE_EVERY, SETTLE_SIGMAS) == (24, 4, 0.5)
    acc = PairedMeans(1 + len(candidates))
    for d in range(done):
        acc.add([0.0] + [c[d] for c in candidates])
    assert _settled(acc) is settled


def test_the_search_ends_where_the_choice_is_settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """`choose` asks `_settled` after every deal and stops dealing at the first yes."""
    import p2p_burraco.bots._think as think
    import p2p_burraco.bots.burraco_expert as expert
    from p2p_burraco.bots._think import PairedMeans

    monkeypatch.setattr(think, "HARD_STOP", 1e6)   # a loaded machine: the count, not the clock

    asked: list[int] = []

    def settled_at_thirty(acc: PairedMeans) -> bool:
        asked.append(acc.n)
        return acc.n == 30

    monkeypatch.setattr(expert, "_settled", settled_at_thirty)
    state = parse_position("fibur 4 | turn 0 play | hand 7h 8h 9h 4s Kc")
    bot = ExpertBot(random.Random(0), think=1.0)
    bot.choose(state, 0)
    assert bot.last_iterations == 30 and asked == list(range(31))


def test_a_rollout_ends_the_seats_turn_as_the_heuristic_then_plays_greedy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In a rollout the seat finishes the turn it is weighing as the heuristic (the rest of
    that turn is what the candidate is about), then greedy bots play every seat, its own
    included, to the hand's end (burraco_expert.md: why its later turns are not the heuristic's)."""
    from p2p_burraco.bots.burraco_greedy import GreedyBot

    turns: dict[str, set[tuple[int, int]]] = {"heuristic": set(), "greedy": set()}
    real_h, real_g = HeuristicBot.choose, GreedyBot.choose

    def spy(kind: str, real):  # type: ignore[no-untyped-def]
        def choose(self, state, seat):  # type: ignore[no-untyped-def]
            turns[kind].add((seat, state.turns))
            return real(self, state, seat)
        return choose

    monkeypatch.setattr(HeuristicBot, "choose", spy("heuristic", real_h))
    monkeypatch.setattr(GreedyBot, "choose", spy("greedy", real_g))
    rng = random.Random(4)
    state = make_match(SelfplayConfig(game="burraco", players=4), rng).new_hand()
    deal_known(state, rng)
    seat = state.to_move
    assert seat is not None and state.phase == "draw"
    draw = next(a for a in state.legal_actions(seat) if str(a) == "draw")
    margin = ExpertBot(random.Random(0))._rollout(state, seat, draw, Evaluator(state, seat), 7)
    assert isinstance(margin, float)
    assert turns["heuristic"] == {(seat, state.turns)}
    later = {t for s, t in turns["greedy"] if s == seat}
    assert later and min(later) > state.turns
    assert {s for s, _ in turns["greedy"]} == set(range(4))
