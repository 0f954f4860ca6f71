"""What each seat may see: audience, views, carte viste, carte scoperte, replicas that know
only their own cards (BRISCOLA-10, -27, -28, -29 of seeds/briscola.md)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest

from p2p_burraco.bots import make_strategy
from p2p_burraco.games.briscola import PRESETS, BriscolaHand, RuleSet, new_match
from p2p_burraco.selfplay import deal_known

STANDARD = PRESETS["standard"]
VISTE = PRESETS["carte-viste"]
SCOPERTE = PRESETS["carte-scoperte"]


def dealt(rules: RuleSet, n: int, dealer: int = 0, seed: int = 0) -> BriscolaHand:
    h = BriscolaHand(rules, n, dealer)
    deal_known(h, random.Random(seed))
    return h


def step(h: BriscolaHand, n: int = 1) -> None:
    for _ in range(n):
        s = h.to_move
        assert s is not None
        h.apply(s, h.parse_action(s, "play 1"))


def strings(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)


def visible_cards(h: BriscolaHand, view: dict) -> set[str]:
    canon = {str(c) for c in h.deck.cards}
    return {s for s in strings(view) if s in canon}


def entitled_cards(h: BriscolaHand, seat: int | None) -> set[str]:
    everyone = frozenset(range(h.n_seats))
    out = set()
    for p in range(40):
        aud = h.audience(p)
        if (seat is None and aud == everyone) or (seat is not None and seat in aud):
            out.add(str(h.deck[h.card_at(p)]))  # type: ignore[index]
    return out


def assert_no_leak(h: BriscolaHand) -> None:
    for seat in [None, *range(h.n_seats)]:
        view = h.public_view() if seat is None else h.player_view(seat)
        assert msgpack.unpackb(msgpack.packb(view), raw=False) == view  # msgpack-safe
        extra = visible_cards(h, view) - entitled_cards(h, seat)
        assert not extra, f"seat {seat} sees {extra}"


# --- views in general ---------------------------------------------------------------------
@pytest.mark.parametrize("preset,n", [("standard", 2), ("standard", 4), ("carte-viste", 2),
                                      ("carte-viste", 4), ("carte-scoperte", 4),
                                      ("francesi", 2), ("vinco-subito", 4)])
def test_views_show_only_what_each_seat_may_know(preset: str, n: int) -> None:
    h = dealt(PRESETS[preset], n, seed=n)
    while not h.is_over:
        assert_no_leak(h)
        step(h)
    assert_no_leak(h)


def test_player_view_contents() -> None:
    h = dealt(STANDARD, 2, dealer=1, seed=3)
    v = h.player_view(0)
    assert v["seat"] == 0 and v["to_move"] == 0 and v["dealer"] == 1 and v["phase"] == "play"
    assert [e[0] for e in v["hand"]] == list(h.hand(0))
    assert all(isinstance(e[1], str) for e in v["hand"])
    assert v["stock"] == 34 and v["hand_sizes"] == [3, 3] and v["trick"] == []
    assert v["trump"]["card"] == str(h.trump_card) and v["trump"]["drawn"] is False
    step(h)
    v = h.player_view(1)
    assert v["trick"] == [[0, v["trick"][0][1], v["trick"][0][2]]]
    step(h)
    v = h.public_view()
    assert "hand" not in v and v["tricks_played"] == 1 and v["last_trick"]["winner"] in (0, 1)
    assert sum(t["cards"] for t in v["taken"]) == 2 and v["stock"] == 32
    assert "seen" not in v  # only with carte viste


# --- BRISCOLA-10: the briscola is public from the deal on ----------------------------------
def test_briscola_10_host_replica_learns_only_the_trump() -> None:
    full = dealt(STANDARD, 4, seed=1)
    host = BriscolaHand(STANDARD, 4, 0)
    for p in range(40):
        if full.audience(p) == frozenset(range(4)):
            host.learn(p, full.card_at(p))  # type: ignore[arg-type]
    assert {p for p in range(40) if host.card_at(p) is not None} == {full.trump_pos}
    assert all(full.audience(p) == frozenset() for p in full.schedule.stock)


# --- BRISCOLA-27: carte viste --------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_briscola_27_carte_viste_lists_earlier_tricks(n: int) -> None:
    h = dealt(VISTE, n, seed=5)
    step(h, 2 * n + 1)
    seen = h.player_view(0)["seen"]
    assert seen == [[s, str(h.deck[h.card_at(p)])] for t in h.tricks for s, p in t.plays]
    assert len(seen) == 2 * n and h.public_view()["seen"] == seen
    assert "seen" not in dealt(STANDARD, n).player_view(0)


# --- BRISCOLA-28: head to head, the last hand face up --------------------------------------
def test_briscola_28_last_hand_face_up_head_to_head() -> None:
    h = dealt(VISTE, 2, seed=7)
    p1 = h.hand(1)[0]
    assert h.audience(p1) == frozenset({1}) and h.player_view(0)["shown_hands"] == {}
    while not h.last_hand:
        step(h)
    assert not h.current_trick()
    for s in (0, 1):
        assert all(h.audience(p) == frozenset({0, 1}) for p in h.hand(s))
    v0 = h.player_view(0)
    assert [e[0] for e in v0["shown_hands"]["1"]] == list(h.hand(1))
    assert set(h.public_view()["shown_hands"]) == {"0", "1"}


def test_briscola_28_not_in_pairs_nor_without_the_option() -> None:
    for rules, n in ((VISTE, 4), (STANDARD, 2)):
        h = dealt(rules, n, seed=2)
        while not h.last_hand:
            step(h)
        assert h.audience(h.hand(1)[0]) == frozenset({1})
        assert h.public_view()["shown_hands"] == {}


# --- BRISCOLA-29: carte scoperte -----------------------------------------------------------
def test_briscola_29_partners_see_each_other() -> None:
    h = dealt(SCOPERTE, 4, seed=9)
    for seat in range(4):
        partner = (seat + 2) % 4
        assert h.audience(h.hand(seat)[0]) == frozenset({seat, partner})
        v = h.player_view(seat)
        assert [e[0] for e in v["partner_hand"]] == list(h.hand(partner))
        assert set(v["shown_hands"]) == {str(partner)}
    opponents_cards = {str(h.deck[h.card_at(p)]) for p in h.hand(0) + h.hand(2)}
    assert not opponents_cards & visible_cards(h, h.player_view(1))
    assert not opponents_cards & visible_cards(h, h.public_view())


def test_briscola_29_pairs_only() -> None:
    assert SCOPERTE.seat_counts == (4,)
    with pytest.raises(ValueError, match="BRISCOLA-29"):
        BriscolaHand(SCOPERTE, 2, 0)
    with pytest.raises(ValueError, match="BRISCOLA-29"):
        new_match(SCOPERTE, 2, first_dealer=0)
    h = dealt(STANDARD.with_options(carte_scoperte=False), 4)
    assert "partner_hand" not in h.player_view(0)


# --- replicas: a peer that knows only its own cards keeps in step --------------------------
@pytest.mark.parametrize("preset,n,seed", [("standard", 2, 1), ("standard", 4, 2),
                                           ("carte-scoperte", 4, 3), ("carte-viste", 2, 4)])
def test_peer_replicas_agree_with_the_full_replica(preset: str, n: int, seed: int) -> None:
    """Each seat's replica learns only what its seat is entitled to (as the fair-deal layer
    would release it); its bot decides on that replica; all replicas show the same table."""
    rules = PRESETS[preset]
    full = dealt(rules, n, seed=seed)
    peers = [BriscolaHand(rules, n, 0) for _ in range(n)]
    host = BriscolaHand(rules, n, 0)
    bots = [make_strategy("briscola", "greedy", random.Random(s)) for s in range(n)]

    def release() -> None:
        for p in range(40):
            aud = full.audience(p)
            for s in aud:
                if peers[s].card_at(p) is None:
                    peers[s].learn(p, full.card_at(p))  # type: ignore[arg-type]
            if aud == frozenset(range(n)) and host.card_at(p) is None:
                host.learn(p, full.card_at(p))  # type: ignore[arg-type]

    release()
    while not full.is_over:
        seat = full.to_move
        assert seat is not None
        action = bots[seat].choose(peers[seat], seat)
        for replica in (full, host, *peers):
            replica.apply(seat, action)
        release()
        for s, peer in enumerate(peers):
            assert peer.player_view(s) == full.player_view(s)
            assert peer.public_view() == full.public_view() == host.public_view()
    assert host.result() == full.result() == peers[0].result()
