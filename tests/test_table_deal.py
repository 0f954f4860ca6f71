"""The opening deal through the real engines (PROTOCOL.md § 8.1, § 8.7): every seat's replica
knows exactly its own cards and the face-up ones — the cards the seeds put there — and
nothing else; the host knows the face-up ones only; and what each seat owes next is
public (`HandReplica.due`)."""

from __future__ import annotations

import pytest
from test_table_host import make_table, persons

from p2p_burraco.fairdeal.derive import SeatSecrets
from p2p_burraco.selfplay import SelfplayConfig


@pytest.mark.parametrize("game,players,variant", [
    ("burraco", 2, None), ("burraco", 3, None), ("burraco", 4, None), ("burraco", 5, None),
    ("burraco", 6, None), ("briscola", 2, None), ("briscola", 4, "carte-scoperte"),
])
def test_each_seat_learns_exactly_what_the_rules_entitle_it_to(game: str, players: int,
                                                               variant: str | None) -> None:
    t = make_table(game, players, seed=21, variant=variant, audit=False)
    for p in persons(t):                     # nobody plays: the deal settles, then we look
        p.hold = True
    t.step({"e": "deal"})
    t.pump()
    replica = t.host.replica
    assert replica is not None and replica.stage == "play"
    assert all(s._ready() for s in t.seats)
    hs = replica.deal.log[0]
    n = hs["n_cards"]
    assert n == {"burraco": 108 if players <= 4 else 162, "briscola": 40}[game]
    # the truth, from the seats' secrets: the composition of their permutations
    order = list(range(n))
    for s in t.seats:
        perm = SeatSecrets(s._dealer._secrets.seed, hs["hand_id"], s.seat, n).permutation
        order = [order[perm[j]] for j in range(n)]
    everyone = frozenset(range(players))
    for s in t.seats:
        hand = s.hand
        assert hand is not None and s.replica is not None
        assert s.replica.deal.head == replica.deal.head       # one log for everyone
        entitled = {p for p in range(n) if s.seat in hand.audience(p)}
        known = {p: hand.card_at(p) for p in range(n) if hand.card_at(p) is not None}
        assert known == {p: order[p] for p in entitled}
        own = {p for p in entitled if hand.audience(p) != everyone}
        per_seat = 11 if game == "burraco" else 3
        assert len(own) == per_seat * (2 if variant == "carte-scoperte" else 1)
    host_hand = replica.hand
    host_known = {p: host_hand.card_at(p) for p in range(n) if host_hand.card_at(p) is not None}
    assert host_known == {p: order[p] for p in range(n) if host_hand.audience(p) == everyone}
    assert host_known                                         # the face-up card(s)
    # what is owed is public: only the first player's move, and every node agrees
    mover = host_hand.to_move
    assert [replica.due(s) for s in range(players)] == \
        ["move" if s == mover else None for s in range(players)]
    for s in t.seats:
        assert s.replica is not None
        assert [s.replica.due(x) for x in range(players)] == \
            [replica.due(x) for x in range(players)]


@pytest.mark.parametrize("game, variant, players", [
    ("briscola", None, 2), ("briscola", "carte-scoperte", 4), ("briscola", "carte-viste", 2),
    ("burraco", "fibur", 4), ("burraco", "pagat", 2), ("burraco", "fibur", 3)])
def test_every_audience_at_once_is_each_audience(game: str, variant: str | None,
                                                 players: int) -> None:
    """`audiences()` (one pass, what the replica asks after each move) is `audience(pos)` of
    every position, at every point of a hand (BRISCOLA-28, BRISCOLA-29, FIBUR-20)."""
    import random

    from p2p_burraco.selfplay import make_match, make_strategies

    cfg = SelfplayConfig(game=game, variant=variant, players=players, seed=3)
    rng = random.Random(1)
    match = make_match(cfg, rng)
    bots = make_strategies(cfg, rng)
    hand = match.new_hand()
    order = list(range(len(hand.deck)))
    random.Random(2).shuffle(order)
    for pos, card in enumerate(order):
        hand.learn(pos, card)
    while True:
        assert hand.audiences() == [hand.audience(p) for p in range(len(hand.deck))]
        if hand.is_over:
            break
        seat = hand.to_move
        hand.apply(seat, bots[seat].choose(hand, seat))
