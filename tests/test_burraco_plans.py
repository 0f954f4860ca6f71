"""The plans `legal_actions` keeps for `apply` never outlive the position they were made in:
every method that changes the position (`apply`, `learn`, `abandon`, and a copy given other
cards) forgets them, so an action offered before is checked again afterwards. Seeds fixed
and named in each test."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2p_burraco.games.base import RuleViolation
from p2p_burraco.games.burraco import PRESETS, new_match
from p2p_burraco.games.burraco import actions as A
from p2p_burraco.games.burraco.state import BurracoHand
from p2p_burraco.selfplay import deal_known

SEED = 20261203


def _playing(seed: int = SEED) -> tuple[BurracoHand, int, list[A.Discard]]:
    """A dealt fibur hand after the first player drew: the mover and its offered discards."""
    rng = random.Random(seed)
    match = new_match(PRESETS["fibur"], 4, first_dealer=rng.randrange(4), target=10**9)
    state = match.new_hand()
    deal_known(state, rng)
    seat = state.to_move
    assert seat is not None
    state.apply(seat, next(a for a in state.legal_actions(seat) if isinstance(a, A.Draw)))
    discards = [a for a in state.legal_actions(seat) if isinstance(a, A.Discard)]
    assert len(discards) >= 2
    return state, seat, discards


def _counting_checks(state: BurracoHand) -> list[Any]:
    """Record every full check `apply` makes on `state` (a plan trusted makes none)."""
    calls: list[Any] = []
    check = state._check

    def counted(seat: int, action: Any) -> object:
        calls.append(action)
        return check(seat, action)
    state._check = counted  # type: ignore[method-assign]  # a spy on this one instance
    return calls


def test_an_offered_action_is_applied_with_its_plan() -> None:
    """The baseline the others depend on: just offered, an action is not checked again."""
    state, seat, discards = _playing()
    calls = _counting_checks(state)
    state.apply(seat, discards[0])
    assert calls == []


def test_a_step_applied_forgets_the_other_plans() -> None:
    """After one discard ends the turn, a second offered discard is checked (and refused)."""
    state, seat, discards = _playing()
    state.apply(seat, discards[0])
    with pytest.raises(RuleViolation):
        state.apply(seat, discards[1])


def test_an_abandon_forgets_the_plans() -> None:
    state, seat, discards = _playing()
    state.abandon((seat + 1) % 4)
    with pytest.raises(RuleViolation):
        state.apply(seat, discards[0])


def test_a_card_learned_forgets_the_plans() -> None:
    """Learning a card (here one already known: nothing else changes) ends the plans, so
    the offered action goes through the full check."""
    state, seat, discards = _playing()
    pos = state.hands[seat][0]
    card = state.card_at(pos)
    assert card is not None
    state.learn(pos, card)
    calls = _counting_checks(state)
    state.apply(seat, discards[0])
    assert calls == [discards[0]]


def test_a_copy_with_other_cards_checks_afresh_and_leaves_the_original_its_plans() -> None:
    """A determinization where the discarded position holds another card refuses the
    action offered in the original; the original still applies it with its plan."""
    state, seat, discards = _playing()
    act = discards[0]
    pos, cid = act.card
    other = next(p for p, o in enumerate(state.owner) if o != seat and state.card_at(p) is not None)
    cards = {p: c for p, c in enumerate(state.known) if c is not None}
    cards[pos], cards[other] = cards[other], cards[pos]
    twin = state.with_cards(cards)
    with pytest.raises(RuleViolation):
        twin.apply(seat, act)
    calls = _counting_checks(state)
    state.apply(seat, act)
    assert calls == []


def test_a_draw_forgets_the_plan_to_take_the_pile() -> None:
    """A draw from the stock learns no card here (the replica knows them all), so only
    `apply` itself can end the plan it made for taking the pile: taking it after drawing
    is checked, and refused."""
    rng = random.Random(SEED)
    match = new_match(PRESETS["fibur"], 4, first_dealer=rng.randrange(4), target=10**9)
    state = match.new_hand()
    deal_known(state, rng)
    seat = state.to_move
    assert seat is not None
    offered = list(state.legal_actions(seat))
    take = next(a for a in offered if isinstance(a, A.Take))
    state.apply(seat, next(a for a in offered if isinstance(a, A.Draw)))
    with pytest.raises(RuleViolation):
        state.apply(seat, take)
