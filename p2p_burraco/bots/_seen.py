"""What one seat may know of a hand: the only door through which a bot reads cards.

A bot's replica can know more than its seat is entitled to (in selfplay the single replica
knows the whole deal). Every card a bot looks at therefore goes through `seen_card`, which
answers only for positions whose `audience` includes the seat — its own hand, cards shown
face up, a partner's hand under carte scoperte — exactly what a peer would have been given.
"""

from __future__ import annotations

from ..games.base import HandState, Pos, Seat
from ..games.cards import Card, CardId


def seen_id(state: HandState, seat: Seat, pos: Pos) -> CardId | None:
    """The card id at `pos` if `seat` may know it now, else None."""
    if seat not in state.audience(pos):
        return None
    return state.card_at(pos)


def seen_card(state: HandState, seat: Seat, pos: Pos) -> Card | None:
    """The card face at `pos` if `seat` may know it now, else None."""
    cid = seen_id(state, seat, pos)
    return None if cid is None else state.deck[cid]


def seen_ids(state: HandState, seat: Seat) -> dict[Pos, CardId]:
    """Every position whose card `seat` may know now (own hand, public cards…)."""
    out: dict[Pos, CardId] = {}
    for pos in range(len(state.deck)):
        cid = seen_id(state, seat, pos)
        if cid is not None:
            out[pos] = cid
    return out


def unseen_ids(state: HandState, seat: Seat,
               seen: dict[Pos, CardId] | None = None) -> list[CardId]:
    """Physical cards `seat` cannot place yet, in deck order (so any sampling over them is
    independent of where the hidden cards really are). `seen`: `seen_ids` if already made."""
    known = set((seen if seen is not None else seen_ids(state, seat)).values())
    return [cid for cid in range(len(state.deck)) if cid not in known]
