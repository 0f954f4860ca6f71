"""Bots read only what their seat may know, and every choice they make is legal.

Two checks at many decision points of real hands played by the heuristic bots:

- **other hidden cards changed**: the same hand replayed from a deal where every card the
  deciding seat has never been entitled to see is swapped with another such card (a wild
  only with a wild, so the other seats' moves stay legal) — the bot must choose the same;
- **a replica that does not know them**: the hand replayed on a fresh state that learns only
  what a peer of that seat would (the cards its `audience` grants, plus every card shown by an
  action) — the bot must choose the same as on the full-knowledge selfplay state.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from p2p_burraco.bots import Strategy, make_strategy
from p2p_burraco.bots.briscola_heuristic import HeuristicBot as BriscolaHeuristic
from p2p_burraco.games.base import Action, HandState, RuleViolation, check_cards_conserved
from p2p_burraco.selfplay import SelfplayConfig, make_match

Order = list[int]
History = list[tuple[int, Action]]


# The Briscola heuristic's playouts in pairs (up to 800 deals a decision, ~38 ms) dominate these
# tests' time. What they check (the seat's view only, legal moves, the same play from the same
# seed) does not depend on how many deals are sampled: 64 still goes through the early stop's
# check (from `_think.MIN_DEALS`, 48, on) and keeps the suite within its minute.
_PLAYOUTS = 64


def _bot(game: str, name: str, rng: random.Random, think: float | None = None) -> Strategy:
    """`make_strategy`, with the Briscola heuristic sampling `_PLAYOUTS` deals at most."""
    bot = make_strategy(game, name, rng, think=think)
    if isinstance(bot, BriscolaHeuristic):
        bot.playouts = _PLAYOUTS
    return bot


def _fresh(cfg: SelfplayConfig, seed: int) -> HandState:
    """The same hand (same dealer, same public schedule) with nothing known."""
    return make_match(cfg, random.Random(seed)).new_hand()


def _deal(state: HandState, seed: int) -> Order:
    order = list(range(len(state.deck)))
    random.Random(f"order:{seed}").shuffle(order)
    return order


def _replay(state: HandState, history: History) -> None:
    for seat, action in history:
        state.apply(seat, action)


def _swap_hidden(state: HandState, order: Order, hidden: list[int]) -> Order:
    """Rotate the cards of `hidden` positions among themselves, wilds with wilds."""
    other = list(order)

    def klass(cid: int) -> bool:
        c = state.deck[cid]
        return state.game == "burraco" and c.rank in (0, 2)

    for wild in (False, True):
        group = [p for p in hidden if klass(order[p]) == wild]
        ids = [order[p] for p in group]
        for p, cid in zip(group, ids[1:] + ids[:1]):
            other[p] = cid
    return other


def _choice(game: str, bot: str, seed: int, state: HandState, seat: int,
            think: float | None = None) -> dict[str, object]:
    return _bot(game, bot, random.Random(seed), think=think).choose(state, seat).to_wire()


def check_hygiene(game: str, players: int, seed: int, *, variant: str | None = None,
                  bot: str = "heuristic", every: int = 1, max_checks: int = 40,
                  think: float | None = None) -> int:
    """Play one hand with `bot` on every seat; at every `every`-th decision compare the
    choice on the full state, on a hidden-cards-swapped replay and on a peer-like replica.
    Returns how many decision points were compared."""
    cfg = SelfplayConfig(game=game, variant=variant, players=players)
    state = _fresh(cfg, seed)
    order = _deal(state, seed)
    for pos, cid in enumerate(order):
        state.learn(pos, cid)
    n = state.n_seats
    ever_seen: list[set[int]] = [set() for _ in range(n)]

    def look() -> None:
        for pos in range(len(order)):
            for s in state.audience(pos):
                ever_seen[s].add(pos)

    bots = [_bot(game, bot, random.Random(f"bot:{seed}:{s}"), think=think)
            for s in range(n)]
    history: History = []
    checked = decisions = 0
    look()
    while not state.is_over and checked < max_checks:
        seat = state.to_move
        assert seat is not None
        decisions += 1
        if decisions % every == 0:
            probe = 1000 + decisions
            want = _choice(game, bot, probe, state, seat, think)
            # 1. every card the seat never saw swapped for another hidden one
            hidden = [p for p in range(len(order)) if p not in ever_seen[seat]]
            swapped = _fresh(cfg, seed)
            for pos, cid in enumerate(_swap_hidden(state, order, hidden)):
                swapped.learn(pos, cid)
            try:
                _replay(swapped, history)
            except RuleViolation:  # a hidden card made another seat's move illegal: skip
                swapped = None  # type: ignore[assignment]
            if swapped is not None:
                assert _choice(game, bot, probe, swapped, seat, think) == want, \
                    f"seat {seat} chose differently when hidden cards changed"
            # 2. a replica that knows only what a peer of this seat would
            replica = _fresh(cfg, seed)
            for pos in range(len(order)):
                if seat in replica.audience(pos):
                    replica.learn(pos, order[pos])
            _replay(replica, history)
            for pos in range(len(order)):
                if seat in replica.audience(pos) and replica.card_at(pos) is None:
                    replica.learn(pos, order[pos])
            assert _choice(game, bot, probe, replica, seat, think) == want, \
                f"seat {seat} chose differently on a replica without the hidden cards"
            checked += 1
        action = bots[seat].choose(state, seat)
        state.apply(seat, action)
        history.append((seat, action))
        look()
    return checked


@pytest.mark.parametrize("players,variant,seed", [
    (2, None, 1), (4, None, 2), (4, "carte-scoperte", 3), (2, "carte-viste", 4),
])
def test_briscola_heuristic_sees_only_its_seat(players: int, variant: str | None,
                                               seed: int) -> None:
    """BRISCOLA-27 BRISCOLA-28 BRISCOLA-29: the heuristic bot reads only what its seat may
    know (its hand, the table, a partner's hand under carte scoperte)."""
    assert check_hygiene("briscola", players, seed, variant=variant, max_checks=20) >= 15


@pytest.mark.parametrize("players,variant,seed", [
    (4, "fibur", 5), (2, "fibur", 6), (2, "classic", 7),
])
def test_burraco_heuristic_sees_only_its_seat(players: int, variant: str, seed: int) -> None:
    """The Burraco heuristic bot never depends on a hidden card: not the other hands, not the
    stock, not a pozzetto it has not picked up."""
    assert check_hygiene("burraco", players, seed, variant=variant, every=3, max_checks=25) >= 15


@pytest.mark.parametrize("game,players,seed,every,checks", [
    ("burraco", 2, 8, 3, 4), ("briscola", 2, 9, 2, 18), ("briscola", 4, 10, 3, 6)])
def test_expert_sees_only_its_seat(game: str, players: int, seed: int, every: int,
                                   checks: int) -> None:
    """The expert's determinizations deal the hidden cards from the seat's view only: with the
    other hands and the stock order swapped, or unknown to its replica, it chooses the same
    (a tiny `think`: a few determinizations, the same code path as a long search; head to head
    the checks run into the sampled endgame search)."""
    checked = check_hygiene(game, players, seed, bot="expert", every=every, max_checks=checks,
                            think=0.003)
    assert checked >= checks - 1


@pytest.mark.parametrize("game,players,variant", [
    ("briscola", 2, "standard"), ("briscola", 4, "standard"), ("briscola", 2, "vinco-subito"),
    ("burraco", 4, "fibur"), ("burraco", 2, "fibur"), ("burraco", 3, "fibur"),
    ("burraco", 2, "pagat"), ("burraco", 4, "buraco"), ("burraco", 2, "classic"),
    ("burraco", 2, "modificato"),
])
def test_heuristic_moves_are_legal(game: str, players: int, variant: str) -> None:
    """Whole hands between heuristic bots: every chosen action applies (apply raises on an
    illegal one) and the cards stay conserved after each."""
    cfg = SelfplayConfig(game=game, variant=variant, players=players)
    for seed in range(2 if game == "briscola" else 1):     # a Burraco hand is ten times longer
        state = _fresh(cfg, seed)
        for pos, cid in enumerate(_deal(state, seed)):
            state.learn(pos, cid)
        bots = [_bot(game, "heuristic", random.Random(s)) for s in range(players)]
        steps = 0
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            action = bots[seat].choose(state, seat)
            legal = {str(a.to_wire()) for a in state.legal_actions(seat)}
            assert str(action.to_wire()) in legal
            state.apply(seat, action)
            check_cards_conserved(state)
            steps += 1
            assert steps < 5000
        state.result()


def _hand_log(game: str, players: int, seed: int,
              disturb: Callable[[], None] = lambda: None) -> list[tuple[int, str]]:
    cfg = SelfplayConfig(game=game, players=players)
    state = _fresh(cfg, seed)
    for pos, cid in enumerate(_deal(state, seed)):
        state.learn(pos, cid)
    bots = [_bot(game, "heuristic", random.Random(f"det:{s}")) for s in range(players)]
    log = []
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        disturb()
        action = bots[seat].choose(state, seat)
        log.append((seat, str(action.to_wire())))
        state.apply(seat, action)
    return log


@pytest.mark.parametrize("game,players", [("briscola", 4), ("burraco", 4)])
def test_heuristic_is_deterministic_given_its_rng(game: str, players: int) -> None:
    """Same seeds, same play — even with the global random module stirred in between."""
    first = _hand_log(game, players, 11)
    second = _hand_log(game, players, 11, disturb=lambda: random.random())
    assert first == second and len(first) > 10
