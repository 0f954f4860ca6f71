"""The opening deal through the real engines: every seat's replica knows exactly its own
cards and the face-up ones — the cards the seeds put there — and nothing else."""

from __future__ import annotations

import pytest

from p2p_burraco.fairdeal.derive import SeatSecrets
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table.inprocess import InProcessTable


@pytest.mark.parametrize("game,players,variant", [
    ("burraco", 2, None), ("burraco", 3, None), ("burraco", 4, None), ("burraco", 5, None),
    ("burraco", 6, None), ("briscola", 2, None), ("briscola", 4, "carte-scoperte"),
])
def test_each_seat_learns_exactly_what_the_rules_entitle_it_to(game: str, players: int,
                                                               variant: str | None) -> None:
    t = InProcessTable(SelfplayConfig(game=game, variant=variant, players=players, hands=1,
                                      seed=21, bots=["random"]), audit_at_seats=False)
    for c in t.controllers:                  # nobody plays: the deal settles, then we look
        c.your_turn = lambda *args: None     # type: ignore[method-assign]
    t.post(t.host.start_hand())
    t.pump()
    assert t.host.stage == "play" and all(s._ready() for s in t.seats)
    hs = t.host.deal.log[0]                                     # type: ignore[union-attr]
    n = hs["n_cards"]
    assert n == {"burraco": 108 if players <= 4 else 162, "briscola": 40}[game]
    # the truth, from the seats' secrets: the composition of their permutations
    order = list(range(n))
    for s in t.seats:
        perm = SeatSecrets(s._dealer._secrets.seed, hs["hand_id"], s.seat, n).permutation
        order = [order[perm[j]] for j in range(n)]
    start = t.seats[0].hand
    assert start is not None
    everyone = frozenset(range(players))
    for s in t.seats:
        hand = s.hand
        assert hand is not None
        entitled = {p for p in range(n) if s.seat in hand.audience(p)}
        known = {p: hand.card_at(p) for p in range(n) if hand.card_at(p) is not None}
        assert known == {p: order[p] for p in entitled}
        own = {p for p in entitled if hand.audience(p) != everyone}
        per_seat = 11 if game == "burraco" else 3
        assert len(own) == per_seat * (2 if variant == "carte-scoperte" else 1)
    host_known = {p for p in range(n) if t.host.hand.card_at(p) is not None}  # type: ignore
    assert host_known == {p for p in range(n) if t.host.hand.audience(p) == everyone}  # type: ignore
