"""What one seat may know of a hand: the only door through which a bot reads cards.

A bot's replica can know more than its seat is entitled to (in selfplay the single replica
knows the whole deal). Every card a bot looks at therefore goes through `seen_card`, which
answers only for positions whose `audience` includes the seat — its own hand, cards shown
face up, a partner's hand under carte scoperte — exactly what a peer would have been given,
and for cards the seat has seen face up before (a Burraco pile card now in the hand of whoever
took the pile: `was_shown`), which a peer learned when they were shown and a player remembers.
"""

from __future__ import annotations

from ..games.base import HandState, Pos, Seat
from ..games.cards import Card, CardId


def seen_id(state: HandState, seat: Seat, pos: Pos) -> CardId | None:
    """The card id at `pos` if `seat` may know it now, else None."""
    return state.card_at(pos) if _may_know(state, seat, pos, state.audience(pos)) else None


def _may_know(state: HandState, seat: Seat, pos: Pos, audience: frozenset[Seat]) -> bool:
    """The one test of what a seat may know: it is in the position's audience, or the card
    there was shown face up before."""
    return seat in audience or _shown(state, pos)


def _shown(state: HandState, pos: Pos) -> bool:
    """Was the card at `pos` shown face up to everyone before (games that move shown cards
    back into a hand have `was_shown`)?"""
    shown = getattr(state, "was_shown", None)
    return shown is not None and bool(shown(pos))


def seen_card(state: HandState, seat: Seat, pos: Pos) -> Card | None:
    """The card face at `pos` if `seat` may know it now, else None."""
    cid = seen_id(state, seat, pos)
    return None if cid is None else state.deck[cid]


def seen_ids(state: HandState, seat: Seat) -> dict[Pos, CardId]:
    """Every position whose card `seat` may know now (own hand, public cards…)."""
    # every audience at once: a bot asks this at every decision
    out: dict[Pos, CardId] = {}
    for pos, audience in enumerate(state.audiences()):
        if _may_know(state, seat, pos, audience):
            cid = state.card_at(pos)
            if cid is not None:
                out[pos] = cid
    return out


def unseen_ids(state: HandState, seat: Seat,
               seen: dict[Pos, CardId] | None = None) -> list[CardId]:
    """Physical cards `seat` cannot place yet, in deck order (so any sampling over them is
    independent of where the hidden cards really are). `seen`: `seen_ids` if already made."""
    known = set((seen if seen is not None else seen_ids(state, seat)).values())
    return [cid for cid in range(len(state.deck)) if cid not in known]
