"""Reconnect safety (PROTOCOL.md § 7, § 8.5) and what a seat tells its controller.

A peer whose connection dropped sends `resync`, feeds the host's answer (the hand's log
from its start) through `SeatClient.receive_all`, then re-sends `unacknowledged()` unless
that was just sent. The host takes an exact copy of a statement it already has — in the
log, held (a commitment), refused in the log, or a sign-off — as a no-op: no answer, no
journal event, nothing changed. So the re-send is safe whether the original was lost,
held, accepted or refused; a statement the hand made moot meanwhile is refused by a true,
logged refusal and the seat goes on to its seed.
Seats tell their controller the deal's progress, the standings and every applied action."""

from __future__ import annotations

from typing import Any

from test_table_host import (
    actions_in_log,
    forge,
    in_play,
    make_table,
    play_on,
    reconnect,
    refusal_of,
    send,
    snapshot,
)

from p2p_burraco.games.base import HandResult, HandState, Seat
from p2p_burraco.table.audit import audit_transcript
from p2p_burraco.table.events import ActionPlayed, DealProgress, SeatEvent, StandingsChanged
from p2p_burraco.table.host import Step
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.rules import TableRules


def no_answer(step: Step) -> bool:
    """The host said nothing (a `clock` notice is display only) and journaled nothing."""
    return step.journal is None and step.record is None and \
        all(o.msg.get("type") == "clock" for o in step.out)


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
    t = make_table("briscola", 2, seed=seed)
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.replica is not None and 0 in t.host.replica.deal.commitments)
    assert t.host.replica is not None and t.host.replica.stage == "commit"
    assert not any(o.msg.get("type") == "commit" for o in t.to_seats)   # held, not relayed
    return t


def drop(t: InProcessTable, seat: int, host_sees_it: bool = True) -> None:
    """The seat's connection dies: what is in flight to or from it is lost."""
    t.disconnected.add(seat)
    if host_sees_it:
        t.post(t.host.set_connected(seat, False, t.now))


def finish_fair(t: InProcessTable) -> None:
    play_on(t)
    assert t.records, f"the hand stalled in stage {t.host.stage}"
    record = t.records[-1]
    assert record.outcome.kind == "scored", record.outcome.describe()
    report = audit_transcript(record.transcript)
    assert report.verdict.fair and report.signed == list(range(len(t.seats)))


# ---------------------------------------------------------------------- host: duplicates
def test_an_exact_copy_of_a_statement_in_the_log_is_a_no_op() -> None:
    t = make_table("burraco", 4, seed=2, audit=False)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions_in_log(t) >= 3 and not t.to_host)
    host = t.host
    assert host.replica is not None
    # a refused statement is in the log too (inside its refusal)
    mover = host.replica.hand.to_move
    assert mover is not None
    other = (mover + 1) % 4
    refused = forge(t, other, "action", action={"kind": "draw"}, positions=[], cards=[],
                    keys=[])
    assert refusal_of(send(t, other, refused), other, True)["code"] == "table.not_your_turn"
    t.pump(until=lambda: not t.to_seats)
    before = snapshot(host)
    seat_entries = [e for e in host.log if e.get("type") in
                    ("commit", "shuffle", "lock", "release", "action")]
    assert {e["type"] for e in seat_entries} == {"commit", "shuffle", "lock", "release",
                                                 "action"}
    for entry in [*seat_entries, refused]:
        assert no_answer(send(t, entry["seat"], dict(entry))), entry["type"]
        assert snapshot(host) == before
    # a copy sent from another seat's connection is still refused (to the sender only)
    entry = seat_entries[-1]
    wrong = (entry["seat"] + 1) % 4
    assert refusal_of(send(t, wrong, dict(entry)), wrong, False)["code"] == \
        "table.wrong_seat"
    # an old seq with other content is a replay, not a copy
    old = next(e for e in seat_entries if e["seat"] == mover and e["type"] == "release")
    forged = forge(t, mover, "release", positions=[0], to=[[0]], keys=[b"\1" * 32])
    forged = {**forged, "seq": old["seq"], "prev_hash": old["prev_hash"]}
    assert refusal_of(send(t, mover, forged), mover, False)["code"] in (
        "table.replayed_seq", "table.bad_signature")
    assert snapshot(host) == before
    finish_fair(t)


def test_a_held_commitment_sent_again_is_a_no_op() -> None:
    t = commitment_held(seed=21)
    commit = t.seats[0].unacknowledged()
    assert commit is not None and commit["type"] == "commit"
    assert no_answer(send(t, 0, commit))       # not an error ping-pong
    finish_fair(t)
    assert all(c.events == [] for c in t.controllers)       # type: ignore[attr-defined]


def test_a_sign_off_sent_again_after_the_hand_closed_is_a_no_op() -> None:
    t = make_table("briscola", 2, seed=22)
    record = t.play_hand()
    assert t.host.stage == "over"
    assert [s.unacknowledged() for s in t.seats] == [None, None]   # the hand_end settled it
    for sign_off in record.transcript.sign_offs:
        assert no_answer(send(t, sign_off["seat"], sign_off))
    assert all(c.events == [] for c in t.controllers)       # type: ignore[attr-defined]


# ---------------------------------------------------------------------- seat: resend flow
def test_an_action_lost_with_the_connection_is_sent_again_after_resync() -> None:
    t, mover = in_play("briscola", 2, seed=7)
    t.controllers[mover].go()                                 # type: ignore[attr-defined]
    lost = action_on_its_way(t, mover)
    assert t.seats[mover].unacknowledged() == lost
    drop(t, mover)                             # the socket dies with the action on it
    t.pump()
    assert actions_in_log(t) == 0 and t.host.stage == "hand"
    assert reconnect(t, mover) == lost
    finish_fair(t)


def test_an_action_whose_relay_was_lost_is_resolved_by_the_resync() -> None:
    t, mover = in_play("briscola", 2, seed=8)
    t.controllers[mover].go()                                 # type: ignore[attr-defined]
    t.pump(until=lambda: actions_in_log(t) == 1)   # accepted; the relay is still queued
    drop(t, mover)
    t.pump()
    assert t.seats[mover].unacknowledged() is not None   # it never saw its action come back
    assert reconnect(t, mover) is None         # the resync settled it: nothing re-sent
    assert t.seats[mover].unacknowledged() is None
    finish_fair(t)


def test_a_commitment_the_host_holds_is_sent_again_harmlessly() -> None:
    t = commitment_held(seed=23)
    drop(t, 0)
    t.pump()                                   # seat 1's commitment completes the set…
    assert t.host.replica is not None and t.host.replica.stage == "shuffle"
    assert reconnect(t, 0) is None             # …and the resync carried the commitments
    finish_fair(t)
    t2 = commitment_held(seed=23)
    drop(t2, 0)
    t2.to_host.clear()                         # seat 1's commitment is still on its way
    t2.to_seats.clear()
    again = reconnect(t2, 0)
    assert again is not None and again["type"] == "commit"   # held: re-sent, a no-op
    pending = t2.seats[1].unacknowledged()
    assert pending is not None
    t2.to_host.append((1, pending))
    finish_fair(t2)
    assert all(c.events == [] for c in t2.controllers)      # type: ignore[attr-defined]


def test_a_statement_the_hand_made_moot_is_refused_truly_and_the_seat_reveals() -> None:
    """The mover's action is lost on the way while the host still thinks it connected; its
    clock runs out (Briscola: the match is lost, TABLE-4). Back, the seat re-sends the
    action: the host refuses it in the log (the hand is over), the refusal is true, and
    the seat goes on to reveal its seed. Nobody is at fault."""
    t, mover = in_play("briscola", 2, seed=9, rules=TableRules(turn_ms=30_000))
    t.controllers[mover].go()                                 # type: ignore[attr-defined]
    lost = action_on_its_way(t, mover)
    drop(t, mover, host_sees_it=False)
    t.pump()
    t.advance(30_000)
    timeout = next(e for e in t.host.log if e.get("type") == "timeout")
    assert (timeout["seat"], timeout["kind"]) == (mover, "turn")
    assert not t.records                       # it owes its seed still
    assert reconnect(t, mover) == lost
    t.pump()
    record = t.records[-1]
    refusals = [e for e in record.transcript.entries if e.get("type") == "refusal"]
    assert [(e["msg"], e["code"]) for e in refusals] == [(lost, "table.wrong_phase")]
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("abandon", mover, "timeout")
    report = audit_transcript(record.transcript)
    assert not report.verdict.faults and report.signed == [0, 1]
    assert all(s.halted is None for s in t.seats)


# ---------------------------------------------------------------------- controller events
KINDS: dict[type, str] = {StandingsChanged: "standings", ActionPlayed: "action",
                          DealProgress: "progress"}
"""The events these tests look for, by a short name."""


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

    def notify(self, event: SeatEvent) -> None:
        self.calls.append((KINDS.get(type(event), type(event).__name__), event))
        self.inner.notify(event)

    def hand_ended(self, state: HandState, result: HandResult, verdict: str) -> None:
        self.calls.append(("hand_ended", result))
        self.inner.hand_ended(state, result, verdict)

    def match_ended(self, standings: dict[str, Any]) -> None:
        self.inner.match_ended(standings)


def test_progress_standings_and_actions_reach_the_controller() -> None:
    t = make_table("burraco", 4, seed=4, audit=False, options={"target": 100_000})
    recs = [Recorder(s.controller) for s in t.seats]
    for seat, rec in zip(t.seats, recs):
        seat.controller = rec
    first = t.play_hand()
    second = t.play_hand()
    assert first.outcome.kind == second.outcome.kind == "scored"
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
        assert before_second.standings["hands"] == 1
        assert before_second.standings["totals"] == list(first.result.points)
        after_second = rec.calls[ends[1] - 1][1].standings
        assert after_second["hands"] == 2 and after_second["target"] == 100_000
        # one action event per applied action, none twice
        hand2 = rec.calls[starts[1]:]
        assert sum(1 for k, _ in hand2 if k == "action") == n_actions
        # progress: from 0 up to done == total, one step at a time, before the first action
        progress = [e for k, e in hand2 if k == "progress"]
        dones = [e.done for e in progress]
        total = progress[0].total
        assert dones[0] == 0 and dones[-1] == total == 3 * 4 + 11 + 1   # 11 cards + discard
        assert dones == sorted(set(dones)) and {e.total for e in progress} == {total}
        texts = " ".join(e.text for e in progress)
        for step in ("commits", "shuffle pass 4/4", "lock pass 1/4", "unlocking your cards"):
            assert step in texts
        last_progress = max(i for i, (k, _) in enumerate(rec.calls) if k == "progress")
        first_action = kinds.index("action", starts[1])
        assert last_progress < first_action


def test_a_stopped_deal_ends_the_progress_line() -> None:
    """A seat stalls in the lock passes (TABLE-5): the deal stops, and so does the line."""
    t = make_table("briscola", 2, seed=24, rules=TableRules(step_ms=10_000))
    recs = [Recorder(s.controller) for s in t.seats]
    for seat, rec in zip(t.seats, recs):
        seat.controller = rec
    t.step({"e": "deal"})
    t.pump(until=lambda: t.host.replica is not None and t.host.replica.stage == "lock")
    drop(t, 1, host_sees_it=False)             # its program hangs: the host waits for it
    t.pump()
    t.advance(10_000)
    record = t.records[-1]
    assert (record.outcome.kind, record.outcome.seat, record.outcome.cause) == \
        ("forfeit", 1, "stall")
    progress = [e for k, e in recs[0].calls if k == "progress"]
    assert progress[-1].done == progress[-1].total
    assert progress[-1].text == "the deal stopped"
