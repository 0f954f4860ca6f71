"""Reconnect safety and the events a seat tells its controller.

A peer whose connection dropped re-sends `SeatClient.unacknowledged()` after feeding the
host's resync answer in; the host takes an exact copy of a message it already accepted as a
no-op (no answer), so the re-send is safe whether the original was lost, held or accepted.
Seats tell their controller the deal's progress, the standings, and every applied action."""

from __future__ import annotations

from typing import Any

from test_table_host import error_of, snapshot, table_in_play

from p2p_burraco.games.base import HandResult, HandState, Seat
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.table.inprocess import InProcessTable


def briscola(seed: int, hands: int = 1) -> InProcessTable:
    return InProcessTable(SelfplayConfig(game="briscola", players=2, hands=hands, seed=seed,
                                         bots=["random"]))


def actions_in_log(t: InProcessTable) -> int:
    assert t.host.deal is not None
    return sum(1 for e in t.host.deal.log if e.get("type") == "action")


def reconnect(t: InProcessTable, seat: int) -> dict[str, Any] | None:
    """What the net peer does when it is back: resync, then re-send the message in flight
    unless it is new (among the replies). Returns the message re-sent, if any."""
    t.disconnected.discard(seat)
    client = t.seats[seat]
    replies = client.receive_all([o.msg for o in t.host.resync(seat)])
    inflight = client.unacknowledged()
    resent = inflight if inflight is not None and inflight not in replies else None
    if resent is not None:
        t.to_host.append((seat, resent))
    t.to_host.extend((seat, r) for r in replies)
    return resent


def briscola_in_play(seed: int) -> tuple[InProcessTable, int]:
    """A 2-seat Briscola table at its first turn, and the seat to move."""
    t = table_in_play("briscola", 2, seed=seed)
    assert t.host.hand is not None and t.host.hand.to_move is not None
    return t, t.host.hand.to_move


def action_on_its_way(t: InProcessTable, seat: int) -> dict[str, Any]:
    """Run until `seat` has sent an action the host has not read yet; that action."""
    def sent() -> dict[str, Any] | None:
        return next((m for s, m in t.to_host if s == seat and m["type"] == "action"), None)
    t.pump(until=lambda: sent() is not None)
    msg = sent()
    assert msg is not None
    return msg


def commitment_held(seed: int) -> InProcessTable:
    """A Briscola hand whose seat 0 commitment the host holds, waiting for seat 1's."""
    t = briscola(seed)
    t.post(t.host.start_hand())
    t.pump(until=lambda: t.host.deal is not None and 0 in t.host.deal.commitments)
    assert t.host.stage == "commit"
    return t


def finish_fair(t: InProcessTable) -> None:
    t.pump()
    assert t.records, f"the hand stalled in stage {t.host.stage}"
    record = t.records[-1]
    assert record.verdict.fair and record.result.reason != "void", record.verdict


# ---------------------------------------------------------------------- host: duplicates
def test_an_exact_copy_of_an_accepted_entry_is_a_no_op() -> None:
    t = table_in_play("burraco", 4, seed=2)
    t.pump(until=lambda: actions_in_log(t) >= 3 and not t.to_host)
    host = t.host
    assert host.deal is not None
    before = snapshot(host)
    seat_entries = [e for e in host.deal.log if e.get("type") in
                    ("commit", "shuffle", "lock", "release", "action")]
    assert {e["type"] for e in seat_entries} == {"commit", "shuffle", "lock", "release",
                                                 "action"}
    for entry in seat_entries:
        assert host.receive(entry["seat"], dict(entry)) == [], entry["type"]
        assert snapshot(host) == before
    # a copy sent from another seat's connection is still refused
    entry = seat_entries[-1]
    other = (entry["seat"] + 1) % 4
    assert error_of(host.receive(other, dict(entry)), other)["code"] == "table.wrong_seat"
    # an old seq with other content is a replay, not a copy
    mover = host.hand.to_move if host.hand is not None else None
    assert mover is not None
    old = next(e for e in seat_entries if e["seat"] == mover and e["type"] == "release")
    forged = t.seats[mover]._dealer._sign("release", positions=[], to=[], keys=[])
    forged = {**forged, "seq": old["seq"], "prev_hash": old["prev_hash"]}
    assert error_of(host.receive(mover, forged), mover)["code"] in (
        "table.replayed_seq", "table.bad_signature")
    finish_fair(t)


def test_a_held_commitment_sent_again_is_a_no_op() -> None:
    t = commitment_held(seed=21)
    commit = t.seats[0].unacknowledged()
    assert commit is not None and commit["type"] == "commit"
    assert t.host.receive(0, commit) == []     # was table.replayed_seq: an error ping-pong
    finish_fair(t)


def test_a_sign_off_sent_again_after_the_hand_closed_is_a_no_op() -> None:
    t = briscola(seed=22)
    record = t.play_hand()
    assert t.host.stage in ("between", "over")   # before: table.no_hand / table.match_over
    for sign_off in record.transcript.sign_offs:
        assert t.host.receive(sign_off["seat"], sign_off) == []
    assert t.seats[0].unacknowledged() == record.transcript.sign_offs[0]


# ---------------------------------------------------------------------- seat: resend flow
def test_an_action_lost_with_the_connection_is_sent_again_after_resync() -> None:
    t, mover = briscola_in_play(seed=7)
    lost = action_on_its_way(t, mover)
    assert t.seats[mover].unacknowledged() == lost
    t.disconnected.add(mover)                  # the socket dies with the action on it
    t.pump()
    assert actions_in_log(t) == 0 and t.host.stage == "play"
    assert reconnect(t, mover) == lost
    finish_fair(t)


def test_an_action_whose_relay_was_lost_is_resolved_by_the_resync() -> None:
    t, mover = briscola_in_play(seed=8)
    t.pump(until=lambda: actions_in_log(t) == 1)   # accepted; the relay is still queued
    t.disconnected.add(mover)
    t.pump()
    assert t.seats[mover].unacknowledged() is not None   # it never saw its action come back
    assert reconnect(t, mover) is None         # the resync settled it: nothing re-sent
    finish_fair(t)


def test_a_commitment_the_host_holds_is_sent_again_harmlessly() -> None:
    t = commitment_held(seed=23)
    t.disconnected.add(0)
    t.pump()                                   # seat 1's commitment completes the set...
    assert t.host.stage == "shuffle"           # ...and the relay to seat 0 is lost
    again = reconnect(t, 0)
    assert again is None                       # the resync carried the commitments
    finish_fair(t)
    t2 = commitment_held(seed=23)
    t2.disconnected.add(0)
    t2.to_host.clear()                         # seat 1's commitment is still on its way
    t2.to_seats.clear()
    again = reconnect(t2, 0)
    assert again is not None and again["type"] == "commit"   # held: re-sent, a no-op
    t2.post(t2.host.receive(1, t2.seats[1].unacknowledged() or {}))
    finish_fair(t2)
    assert t2.seats[0].controller.events == []  # no error reached either seat
    assert t2.seats[1].controller.events == []


def test_messages_made_moot_by_a_void_are_not_sent_again() -> None:
    t, mover = briscola_in_play(seed=9)
    action_on_its_way(t, mover)
    t.to_host.clear()                          # lost
    t.disconnected.add(1 - mover)
    void = t.host.seat_lost(1 - mover)
    replies = t.seats[mover].receive_all([o.msg for o in void])
    assert [r["type"] for r in replies] == ["reveal"]
    assert t.seats[mover].unacknowledged() == replies[0]   # the action is not re-sent


# ---------------------------------------------------------------------- controller events
class Recorder:
    """Wraps a controller and records every call in order."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[tuple[str, Any]] = []
        self.events = inner.events

    def hand_started(self, state: HandState, seat: Seat) -> None:
        self.calls.append(("hand_started", None))
        self.inner.hand_started(state, seat)

    def your_turn(self, state: HandState, seat: Seat, submit: Any) -> None:
        self.inner.your_turn(state, seat, submit)

    def rejected(self, state: HandState, seat: Seat, error: str) -> None:
        self.inner.rejected(state, seat, error)

    def notify(self, event: dict[str, Any]) -> None:
        self.calls.append((str(event["type"]), event))
        self.inner.notify(event)

    def hand_ended(self, state: HandState, result: HandResult, verdict: str) -> None:
        self.calls.append(("hand_ended", result))
        self.inner.hand_ended(state, result, verdict)

    def match_ended(self, standings: dict[str, Any]) -> None:
        self.inner.match_ended(standings)


def test_progress_standings_and_actions_reach_the_controller() -> None:
    t = InProcessTable(SelfplayConfig(game="burraco", players=4, hands=2, seed=4,
                                      bots=["random"], target=100_000))
    recs = [Recorder(s.controller) for s in t.seats]
    for seat, rec in zip(t.seats, recs):
        seat.controller = rec
    first = t.play_hand()
    second = t.play_hand()
    n_actions = sum(1 for e in second.transcript.entries if e.get("type") == "action")
    for rec in recs:
        kinds = [k for k, _ in rec.calls]
        # standings just before each hand starts and just before each hand ends
        starts = [i for i, k in enumerate(kinds) if k == "hand_started"]
        ends = [i for i, k in enumerate(kinds) if k == "hand_ended"]
        assert len(starts) == len(ends) == 2
        for i in starts + ends:
            assert kinds[i - 1] == "standings"
        before_second = rec.calls[starts[1] - 1][1]
        assert before_second["hands"] == 1
        assert before_second["totals"] == list(first.result.points)
        after_second = rec.calls[ends[1] - 1][1]
        assert after_second["hands"] == 2 and after_second["target"] == 100_000
        # one action event per applied action, none twice
        hand2 = rec.calls[starts[1]:]
        assert sum(1 for k, _ in hand2 if k == "action") == n_actions
        # progress: from 0 up to done == total, one step at a time, before the first action
        progress = [e for k, e in hand2 if k == "progress"]
        dones = [e["done"] for e in progress]
        total = progress[0]["total"]
        assert dones[0] == 0 and dones[-1] == total == 3 * 4 + 11 + 1   # 11 cards + discard
        assert dones == sorted(set(dones)) and {e["total"] for e in progress} == {total}
        texts = " ".join(e["text"] for e in progress)
        for step in ("commits", "shuffle pass 4/4", "lock pass 1/4", "unlocking your cards"):
            assert step in texts
        last_progress = max(i for i, (k, _) in enumerate(rec.calls) if k == "progress")
        first_action = kinds.index("action", starts[1])
        assert last_progress < first_action


def test_a_void_deal_ends_the_progress_line() -> None:
    t = briscola(seed=24)
    recs = [Recorder(s.controller) for s in t.seats]
    for seat, rec in zip(t.seats, recs):
        seat.controller = rec
    t.post(t.host.start_hand())
    t.pump(until=lambda: t.host.stage == "lock")
    t.disconnected.add(1)
    t.post(t.host.seat_lost(1))
    t.pump()
    progress = [e for k, e in recs[0].calls if k == "progress"]
    assert progress[-1]["done"] == progress[-1]["total"]
    assert progress[-1]["text"] == "the deal stopped"
