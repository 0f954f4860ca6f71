"""Our table rules (seeds/table.md) on a real table: clocks, timeouts, stalls, grace, voids,
abandonment — `InProcessTable(..., rules=TableRules(...))` with its virtual clock, whose
`advance(ms)` fires every deadline that falls due (PROTOCOL.md § 8.11, § 8.12).

Each test names the TABLE-n rule it checks: TABLE-1 (the move clock), TABLE-2 (the match
clock), TABLE-3 (Burraco: the bot plays the rest of a timed-out turn; three in a row and
the bot plays for good, or the side loses), TABLE-4 (Briscola: a clock that runs out loses
the match, BRISCOLA-24/26), TABLE-5 (a protocol step withheld: a stall, a forfeit),
TABLE-6 (grace), TABLE-8 (void hands, at most 3), TABLE-9 (abandonment), and, on the host's
side of TABLE-10 and TABLE-11, a false timeout and a flood of refused statements.

A seat that "never answers" is one the pump no longer delivers to or from (its program
hangs) while the host still thinks it connected; a seat that drops is one the host is told
about (`set_connected(s, False, t)`).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_table_host import (
    actions_in_log,
    deal_to_first_move,
    forge,
    in_play,
    make_table,
    play_on,
    reconnect,
    send,
)

from p2p_burraco.fairdeal.deal import PublicDeal
from p2p_burraco.games.briscola.state import side_of
from p2p_burraco.table.audit import audit_hand, audit_transcript
from p2p_burraco.table.events import TableLine
from p2p_burraco.table.host import HandRecord
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.matchstate import MatchState
from p2p_burraco.table.replica import void_result
from p2p_burraco.table.rules import TableRules


def timeouts(t: InProcessTable) -> list[tuple[int, str, int]]:
    return [(e["seat"], e["kind"], e["count"]) for e in t.host.log if e.get("type") == "timeout"]


def expect_deadline(t: InProcessTable, ms: int, seat: int, kind: str) -> None:
    """The next deadline is `ms` from now, for `seat`'s `kind`: nothing happens a
    millisecond before it, and its timeout is stated at it."""
    due = t.host.next_deadline()
    assert due == (t.now + ms, seat, kind), due
    before = len(timeouts(t))
    t.advance(ms - 1)
    assert len(timeouts(t)) == before and t.host.next_deadline() == due
    t.advance(1)
    assert timeouts(t)[before:before + 1] and timeouts(t)[before][:2] == (seat, kind)


def hung(t: InProcessTable, seat: int) -> None:
    """The seat's program stops answering; its connection stays up (the host waits)."""
    t.disconnected.add(seat)


def dropped(t: InProcessTable, seat: int) -> None:
    """The seat's connection drops: the host is told."""
    t.disconnected.add(seat)
    t.post(t.host.set_connected(seat, False, t.now))


def fair_record(t: InProcessTable, signers: list[int]) -> HandRecord:
    """The last hand's record; its transcript audits with no fault, signed by `signers`."""
    assert t.records, f"no hand closed (stage {t.host.stage})"
    record = t.records[-1]
    report = audit_transcript(record.transcript)
    assert not report.verdict.faults, report.verdict.faults
    assert report.signed == signers
    assert report.outcome == record.outcome
    return record


def seats_agree(t: InProcessTable) -> None:
    """Every seat folded the same standings as the host."""
    for s, client in enumerate(t.seats):
        if s not in t.disconnected:
            assert client.standings == t.host.standings(), s


def bot_lines(t: InProcessTable, seat: int) -> int:
    """How many moves the seat was told its bot played for it."""
    return sum(1 for e in t.controllers[seat].notes  # type: ignore[attr-defined]
               if isinstance(e, TableLine) and "TABLE-3" in e.text)


# ---------------------------------------------------------------------- TABLE-1, TABLE-4
@pytest.mark.parametrize("sleeper", [0, 1])
def test_table_1_table_4_briscola_move_clock_runs_out_the_match_is_lost(sleeper: int) -> None:
    """TABLE-1, TABLE-4: a Briscola seat whose move clock runs out loses the match; the
    opponents receive the points still in play up to 20 and the quitter is never ahead
    (BRISCOLA-24); the quitting line gets 0 victory points against at least 14
    (BRISCOLA-26)."""
    t = make_table("briscola", 2, seed=1, rules=TableRules(turn_ms=30_000),
                   sleeps={sleeper: lambda n: n == 1})
    t.step({"e": "deal"})
    t.pump()
    assert t.host.replica is not None and t.host.replica.hand.to_move == sleeper
    assert actions_in_log(t) >= 2                       # its first move came in time
    expect_deadline(t, 30_000, sleeper, "turn")
    assert timeouts(t) == [(sleeper, "turn", 1)]
    record = fair_record(t, [0, 1])                     # nobody at fault; every seat signed
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("abandon", sleeper, "timeout")
    result = record.result
    quitter, other = side_of(sleeper), 1 - side_of(sleeper)
    assert result.reason == "abandon" and result.extra["abandoned_by"] == sleeper
    gift = min(result.extra["unplayed"], 20)
    assert ("abbandono: punti in gioco (max 20)", gift) in \
        [(line.label, line.points) for line in result.breakdown[other]]
    assert result.points[quitter] <= result.points[other]
    standings = t.host.standings()
    assert standings["over"] and standings["winner"] == other
    assert standings["decided_by"] == "abandon" and standings["abandoned_by"] == sleeper
    vp = standings["victory_points"]
    assert vp[quitter] == 0 and vp[other] >= 14
    assert t.host.match_over and t.host.end_reason == "timeout"
    seats_agree(t)


# ---------------------------------------------------------------------- TABLE-3
def test_table_1_table_3_burraco_timeout_the_bot_plays_the_rest_of_the_turn() -> None:
    """TABLE-1, TABLE-3: a Burraco turn whose clock runs out is finished by the seat's own
    program's bot; a decision that comes after is too late; the next move the person makes
    in time resets the count."""
    t = make_table("burraco", 4, seed=2, audit=False, bots=("greedy",),
                   rules=TableRules(turn_ms=90_000),
                   sleeps={s: (lambda n: n == 0) for s in range(4)})
    replica, mover = deal_to_first_move(t)
    person = t.controllers[mover]
    late = person.pending                                    # type: ignore[attr-defined]
    assert late is not None
    n = len(t.host.log)
    expect_deadline(t, 90_000, mover, "turn")
    assert timeouts(t) == [(mover, "turn", 1)]
    replica = t.host.replica
    assert replica is not None
    assert replica.timeouts[mover] == 1 and not replica.auto[mover]
    # the bot played the whole rest of the turn: draw … discard, then the next seat moved
    after = [e for e in t.host.log[n:] if e.get("type") == "action"]
    own = []
    for e in after:
        if e["seat"] != mover:
            break
        own.append(e["action"]["kind"])
    assert own[0] in ("draw", "take", "take_top") and own[-1] == "discard", own
    assert bot_lines(t, mover) == len(own)
    # the person decides now: too late
    state, seat, submit = late
    submit(person.strategy.choose(state, seat))              # type: ignore[attr-defined]
    assert person.rejections and "too late" in person.rejections[-1]  # type: ignore
    # every other seat slept on its first turn too; then everyone plays in time
    t.advance(3 * 90_000)
    assert [c for _, _, c in timeouts(t)] == [1, 1, 1, 1]
    t.pump()
    record = fair_record(t, [0, 1, 2, 3])
    assert record.outcome.kind == "scored"
    assert t.host.state.timeouts == [0, 0, 0, 0]             # moves in time reset the count
    assert t.host.state.auto == [False] * 4


@pytest.mark.parametrize("bots", [True, False])
def test_table_3_table_9_three_timeouts_in_a_row(bots: bool) -> None:
    """TABLE-3: after `max_timeouts` turns in a row ran out, the seat is abandoned: its
    program's bot plays every move for the rest of the match if the table allows bots,
    else its side loses the match by abandonment (TABLE-9)."""
    rules = TableRules(turn_ms=90_000, bots=bots, max_timeouts=3)
    t = make_table("burraco", 4, seed=3, audit=False, bots=("greedy",), rules=rules,
                   sleeps={0: lambda n: True})
    t.step({"e": "deal"})
    t.pump()
    for _ in range(3):
        due = t.host.next_deadline()
        assert due is not None and due[1:] == (0, "turn")
        t.advance(due[0] - t.now)
    assert timeouts(t) == [(0, "turn", 1), (0, "turn", 2), (0, "turn", 3)]
    if bots:
        replica = t.host.replica
        assert replica is not None and replica.auto[0]
        t.pump()
        record = fair_record(t, [0, 1, 2, 3])
        assert record.outcome.kind == "scored"           # the bot played on to the end
        assert t.host.state.auto[0] and t.host.state.timeouts[0] == 3
        # for good: the next hand starts with its bot playing (no move clock for it), and
        # the person is never asked again
        asked = t.controllers[0].turn                          # type: ignore[attr-defined]
        t.step({"e": "deal"})
        hs = t.host.log[0]
        assert hs["state"]["auto"] == [True, False, False, False]
        t.pump(until=lambda: any(e.get("type") == "action" and e["seat"] == 0
                                 for e in t.host.log))
        assert not timeouts(t) and t.controllers[0].turn == asked  # type: ignore
        replica = t.host.replica
        assert replica is not None and replica.bot_plays(0)
    else:
        record = fair_record(t, [0, 1, 2, 3])
        outcome = record.outcome
        assert (outcome.kind, outcome.seat, outcome.cause) == ("abandon", 0, "timeout")
        standings = t.host.standings()
        assert standings["over"] and standings["abandoned_by"] == 0
        assert standings["winner"] == t.host.state.match.standings()["winner"] != 0
        assert t.host.match_over and t.host.end_reason == "timeout"
        seats_agree(t)


def test_table_3_a_move_made_in_time_resets_the_count() -> None:
    """TABLE-3: the count is of turns IN A ROW that ran out."""
    rules = TableRules(turn_ms=60_000, max_timeouts=3)
    t = make_table("burraco", 4, seed=4, audit=False, bots=("greedy",), rules=rules,
                   sleeps={1: lambda n: n in (0, 2, 3)})
    t.step({"e": "deal"})
    t.pump()
    counts: list[int] = []
    while len(counts) < 3:
        due = t.host.next_deadline()
        assert due is not None and due[1:] == (1, "turn"), due
        t.advance(due[0] - t.now)
        counts = [c for s, _, c in timeouts(t) if s == 1]
    assert counts == [1, 1, 2]
    replica = t.host.replica
    assert replica is not None and not replica.auto[1]
    t.pump()
    assert t.records[-1].outcome.kind == "scored"
    assert t.host.state.timeouts[1] == 0 and t.host.state.auto[1] is False


# ---------------------------------------------------------------------- TABLE-2
@pytest.mark.parametrize("game,players", [("burraco", 4), ("briscola", 2)])
def test_table_2_table_9_match_clock(game: str, players: int) -> None:
    """TABLE-2: the time a seat spends on its own moves adds up; used up during a move, the
    seat has abandoned (TABLE-9; Briscola TABLE-4). The clock notices show what is left."""
    rules = TableRules(turn_ms=None, match_ms=100_000)
    t = make_table(game, players, seed=5, audit=False, bots=("greedy",), rules=rules)
    t.step({"e": "deal"})
    replica = t.host.replica
    assert replica is not None
    sleeper = replica.hand.to_move                       # the first to move thinks long
    assert sleeper is not None
    t.controllers[sleeper].sleeps = lambda n: n in (0, 1)         # type: ignore[attr-defined]
    t.pump()
    watcher = (sleeper + 1) % players
    assert t.host.next_deadline() == (t.now + 100_000, sleeper, "match_clock")
    t.advance(60_000)                                    # a long think…
    assert not timeouts(t)
    t.controllers[sleeper].go()                          # type: ignore[attr-defined]
    t.pump()                                             # …then the seat plays on, in time
    assert t.host.state.clock_used[sleeper] == 60_000
    clock = t.seats[watcher].clock
    assert clock is not None and clock["seat"] == sleeper and clock["kind"] == "match_clock"
    assert clock["ms"] == 40_000 and clock["match_ms"][sleeper] == 40_000
    expect_deadline(t, 40_000, sleeper, "match_clock")
    record = fair_record(t, list(range(players)))
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("abandon", sleeper, "match_clock")
    assert t.host.match_over and t.host.end_reason == "timeout"
    standings = t.host.standings()
    assert standings["abandoned_by"] == sleeper and standings["winner"] is not None
    assert sleeper not in standings["sides"][standings["winner"]]
    seats_agree(t)


# ---------------------------------------------------------------------- TABLE-5
@pytest.mark.parametrize("when", ["commit", "keys", "seed", "bot_move"])
def test_table_5_table_7_a_withheld_step_is_a_stall(when: str) -> None:
    """TABLE-5: the automatic steps — the commitment, the keys the public state calls for,
    the seed at the end, the bot's move after a timeout — are the program's: a connected
    seat that withholds one past `step_ms` stalls, and its side loses by forfeit (TABLE-7;
    Briscola: 0 victory points against at least 14)."""
    game, players = ("burraco", 4) if when == "bot_move" else ("briscola", 2)
    rules = TableRules(step_ms=20_000, turn_ms=60_000 if when == "bot_move" else None)
    t = make_table(game, players, seed=6, audit=False, bots=("greedy",), rules=rules,
                   sleeps={s: (lambda n: n == 0) for s in range(players)}
                   if when == "bot_move" else None)
    staller = 1
    if when == "commit":
        hung(t, staller)
        t.step({"e": "deal"})
        t.pump()
    elif when == "keys":
        t.step({"e": "deal"})
        t.pump(until=lambda: actions_in_log(t) >= 3)
        hung(t, staller)
        t.pump()
    elif when == "seed":
        t.step({"e": "deal"})
        t.pump(until=lambda: t.host.replica is not None
               and t.host.replica.stage == "reveal")
        hung(t, staller)
        t.pump()
    else:
        t.step({"e": "deal"})
        t.pump()
        replica = t.host.replica
        assert replica is not None
        staller = replica.hand.to_move                   # type: ignore[assignment]
        hung(t, staller)
        t.advance(60_000)                                # its turn ran out; its bot hangs
        assert timeouts(t) == [(staller, "turn", 1)]
    replica = t.host.replica
    assert replica is not None
    owed = replica.due(staller)
    assert owed == {"commit": "commit", "keys": "release", "seed": "reveal",
                    "bot_move": "move"}[when]
    expect_deadline(t, 20_000, staller, "step")
    signers = [s for s in range(players) if s != staller]
    record = fair_record(t, signers)
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("forfeit", staller, "stall")
    assert record.result.points == (0,) * len(record.result.sides)
    standings = t.host.standings()
    assert standings["over"] and standings["forfeit_by"] == staller
    assert standings["forfeit_cause"] == "stall"
    assert t.host.match_over and t.host.end_reason == "forfeit"
    if game == "briscola":
        vp = standings["victory_points"]
        assert vp[side_of(staller)] == 0 and vp[1 - side_of(staller)] >= 14
    seats_agree(t)


def test_table_1_the_move_clock_starts_when_the_cards_are_unlocked() -> None:
    """TABLE-1: "the clock of a turn starts when the seat can move (its cards unlocked)".
    Briscola: a trick's winner leads once the other seat has released the key of the card
    it drew. If that seat drops right then, the leader owes nothing and its clock does not
    run; only the dropped seat's grace does (TABLE-6). Back, its key arrives and the
    leader's clock starts from there."""
    rules = TableRules(turn_ms=30_000, step_ms=10_000, grace_ms=120_000)
    t = make_table("briscola", 2, seed=14, audit=False, bots=("greedy",), rules=rules)

    def leader_waits() -> bool:
        r = t.host.replica
        if r is None or r.stage != "play" or actions_in_log(t) < 2:
            return False
        mover = r.hand.to_move
        return mover is not None and r.due(mover) is None and r.due(1 - mover) == "release"
    t.step({"e": "deal"})
    t.pump(until=leader_waits)
    replica = t.host.replica
    assert replica is not None
    leader = replica.hand.to_move
    assert leader is not None
    dropped(t, 1 - leader)                     # its release (if sent) is lost with it
    t.pump()
    assert t.host.next_deadline() == (t.now + 120_000, 1 - leader, "grace")
    t.advance(100_000)
    assert not timeouts(t)
    reconnect(t, 1 - leader)
    t.pump(until=lambda: replica.due(leader) == "move")
    assert t.host.next_deadline() == (t.now + 30_000, leader, "turn")
    t.pump()
    assert fair_record(t, [0, 1]).outcome.kind == "scored"


def test_table_1_every_briscola_card_has_its_own_clock() -> None:
    """TABLE-1: each Briscola card is a move with its own clock — also for a seat that
    played second, took the trick and leads the next one. Both seats think 20 s of their
    30 s every time: nobody ever times out."""
    rules = TableRules(turn_ms=30_000)
    t = make_table("briscola", 2, seed=14, audit=False, bots=("greedy",), rules=rules,
                   sleeps={0: lambda n: True, 1: lambda n: True})
    t.step({"e": "deal"})
    t.pump()
    moves = 0
    while t.host.replica is not None and t.host.replica.stage == "play":
        replica = t.host.replica
        mover = replica.hand.to_move
        assert mover is not None and replica.due(mover) == "move"
        assert t.host.next_deadline() == (t.now + 30_000, mover, "turn"), moves
        t.advance(20_000)
        t.controllers[mover].go()                          # type: ignore[attr-defined]
        t.pump()
        moves += 1
    assert moves == 40 and not timeouts(t)
    assert fair_record(t, [0, 1]).outcome.kind == "scored"


def test_table_2_a_timed_out_turn_counts_once_on_the_match_clock() -> None:
    """TABLE-2 with TABLE-3: the turn that ran out is spent on the match clock once."""
    rules = TableRules(turn_ms=60_000, match_ms=1_000_000)
    t = make_table("burraco", 4, seed=15, audit=False, bots=("greedy",), rules=rules,
                   sleeps={s: (lambda n: n == 0) for s in range(4)})
    replica, mover = deal_to_first_move(t)
    expect_deadline(t, 60_000, mover, "turn")
    t.pump(until=lambda: replica.hand.to_move != mover)      # its bot ends the turn
    t.pump(until=lambda: t.host.turn_seat not in (None, mover))
    assert t.host.state.clock_used[mover] == 60_000


# ---------------------------------------------------------------------- TABLE-6
def test_table_6_a_seat_back_within_its_grace_plays_on() -> None:
    """TABLE-6: a dropped seat keeps its seat for `grace_ms`, its clocks paused: no move or
    step clock runs out meanwhile; back in time, it resyncs and the hand ends fair."""
    rules = TableRules(turn_ms=30_000, step_ms=10_000, grace_ms=120_000)
    t = make_table("briscola", 2, seed=7, audit=False, bots=("greedy",), rules=rules)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions_in_log(t) >= 3)
    dropped(t, 0)
    t.pump()
    due = t.host.next_deadline()
    assert due is not None and due[1:] == (0, "grace") and due[0] == t.now + 120_000
    t.advance(119_999)
    assert not timeouts(t)
    reconnect(t, 0)
    t.pump()
    record = fair_record(t, [0, 1])
    assert record.outcome.kind == "scored"


def test_table_6_table_9_grace_runs_out_mid_hand() -> None:
    """TABLE-6, TABLE-9: past its grace mid-hand the seat has abandoned: a signed `grace`
    timeout, its side loses; nobody waits for its seed or its sign-off."""
    rules = TableRules(step_ms=10_000, grace_ms=120_000)
    t = make_table("briscola", 2, seed=8, audit=False, bots=("greedy",), rules=rules)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions_in_log(t) >= 3)
    dropped(t, 0)
    t.pump()
    expect_deadline(t, 120_000, 0, "grace")
    record = fair_record(t, [1])
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("abandon", 0, "grace")
    assert t.host.match_over and t.host.end_reason == "abandonment"
    assert t.host.standings()["abandoned_by"] == 0
    seats_agree(t)


def test_table_6_between_hands_a_bot_takes_the_seat_or_the_side_loses() -> None:
    """TABLE-6: between hands, a seat away past its grace is taken by a host bot from the
    next hand on (a `seat` event: the next hand_start names the bot's key), or — no bots —
    its side loses by abandonment (a `lost` event)."""
    t = make_table("briscola", 2, seed=9, audit=False, options={"hands": 2})
    t.play_hand()
    assert t.host.stage == "between"
    bot_key = b"\x42" * 32
    step = t.step({"e": "seat", "seat": 1, "key": bot_key, "name": "bot-1"})
    assert step.journal == {"e": "seat", "t": t.now, "seat": 1, "key": bot_key,
                            "name": "bot-1"}
    hs = t.host.apply({"e": "deal", "t": t.now}).out[0].msg
    assert hs["seat_keys"][1] == bot_key and hs["names"][1] == "bot-1"
    t2 = make_table("briscola", 2, seed=9, audit=False, options={"hands": 2})
    t2.play_hand()
    step = t2.step({"e": "lost", "seat": 1})
    assert step.over and step.journal is not None and step.journal["e"] == "lost"
    assert t2.host.match_over and t2.host.end_reason == "abandonment"
    standings = t2.host.standings()
    assert standings["over"] and standings["winner"] == 0
    assert not t2.host.can_deal()


# ---------------------------------------------------------------------- TABLE-8
def test_table_8_match_state_counts_voids_and_the_fourth_ends_the_match() -> None:
    """TABLE-8: a void hand scores nothing; the fourth ends the match as unplayable, no
    winner."""
    state = MatchState("burraco", "fibur", 4, 0, {}, TableRules(max_voids=3))
    dealer = state.new_hand().dealer
    for n in range(1, 4):
        state.record(void_result(state.match, "bad_reveal"), void=True)
        assert state.voids == n and not state.is_over
        assert state.new_hand().dealer == dealer              # the same dealer deals again
        assert state.standings()["hands"] == 0
    state.record(void_result(state.match, "bad_reveal"), void=True)
    assert state.is_over and state.end is not None and state.end["reason"] == "unplayable"
    standings = state.standings()
    assert standings["over"] and standings["winner"] is None
    assert standings["decided_by"] == "unplayable" and standings["voids"] == 4
    again = MatchState("burraco", "fibur", 4, 0, {}, TableRules(), state.snapshot())
    assert again.is_over and again.standings() == standings


def test_table_8_void_hands_on_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """TABLE-8 end to end: every node sees a public card decode to no card (here, by a
    patched decoder, since honest seats never produce one): the host states `hand_void`,
    nobody is at fault, the hand scores nothing and the same dealer deals again; the fourth
    void ends the match as unplayable."""
    real = PublicDeal.decode_public

    def broken(self: PublicDeal, positions: Any) -> dict[int, int | None]:
        return dict.fromkeys(real(self, positions))
    monkeypatch.setattr(PublicDeal, "decode_public", broken)
    t = make_table("briscola", 2, seed=10, audit=False)
    dealers = []
    while not t.host.match_over:
        record = t.play_hand()
        assert record.outcome.kind == "void" and record.result.reason == "void"
        assert any(e.get("type") == "hand_void" for e in record.transcript.entries)
        report = audit_transcript(record.transcript)
        assert not report.verdict.faults and report.signed == [0, 1]
        dealers.append(record.transcript.entries[0]["dealer"])
    assert len(dealers) == 4 and len(set(dealers)) == 1
    assert t.host.end_reason == "unplayable"
    standings = t.host.standings()
    assert standings["winner"] is None and standings["voids"] == 4
    seats_agree(t)


# ---------------------------------------------------------------------- TABLE-9
@pytest.mark.parametrize("game,players", [("briscola", 2), ("burraco", 4)])
def test_table_9_the_abandon_statement(game: str, players: int) -> None:
    """TABLE-9: `abbandona` — the seat signs an `abandon` statement at the first place it
    can; its side loses the match. Briscola scores it by BRISCOLA-24; Burraco records the
    hand with nothing scored and the match to the best of the other sides."""
    t = make_table(game, players, seed=11, audit=False)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions_in_log(t) >= 5)
    quitter = 1
    t.seats[quitter].request_abandon()
    t.pump()
    record = fair_record(t, list(range(players)))
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("abandon", quitter, "abandon")
    abandon = [e for e in record.transcript.entries if e.get("type") == "abandon"]
    assert [(e["seat"], e["reason"]) for e in abandon] == [(quitter, "abbandona")]
    standings = t.host.standings()
    assert standings["over"] and standings["abandoned_by"] == quitter
    assert standings["decided_by"] == "abandon"
    assert quitter not in t.host.state.match.standings()["sides"][standings["winner"]]
    if game == "briscola":
        assert record.result.extra["abandoned_by"] == quitter
        assert record.result.points[side_of(quitter)] <= record.result.points[
            1 - side_of(quitter)]
    else:
        assert record.result.points == (0, 0)
    assert t.host.match_over and t.host.end_reason == "abandonment"
    seats_agree(t)
    assert all(c.final == t.host.standings() for c in t.controllers)  # type: ignore


# ---------------------------------------------------------------------- TABLE-10, TABLE-11
def test_table_10_a_timeout_of_a_seat_that_owed_nothing_stops_the_honest_peers() -> None:
    """TABLE-10 (the host's side): a host that times out a seat which owed nothing signs a
    lie every peer's judge refuses on arrival: the peers stop playing the match, keeping the
    statement as evidence, and the audit of the log names the host."""
    t, mover = in_play("briscola", 2, seed=12, audit=False)
    replica = t.host.replica
    assert replica is not None
    idle = 1 - mover
    assert replica.due(idle) is None
    lie = replica.deal.host_statement(t.host_key, "timeout", seat=idle, kind="turn", count=1,
                                      detail="a lie")
    replica.apply_host(lie)                       # the host's own record takes it…
    t.post(t.host._relay_pending())               # …and relays it to every seat
    t.pump()
    for client in t.seats:
        assert client.halted and "owed nothing" in client.halted
        assert client.evidence and client.evidence[0]["statement"] == lie
    # and the log is the host's signed lie for anyone who audits it
    report = audit_hand(t.host.log, passes=False)
    assert report.outcome is not None and report.outcome.kind == "host_fault"
    assert ("false_timeout", "host") in [(f.what, f.party) for f in report.verdict.faults]
    assert not [f for f in report.verdict.faults if f.party == "seat"]


def test_table_11_more_than_16_refused_statements_is_a_stall() -> None:
    """TABLE-11: a seat whose statements are refused more than `max_refusals` times in one
    hand stalls: the hand stops and its side loses by forfeit."""
    t, mover = in_play("briscola", 2, seed=13, audit=False,
                       rules=TableRules(max_refusals=16))
    replica = t.host.replica
    assert replica is not None
    cheat = 1 - mover
    for n in range(17):
        msg = forge(t, cheat, "action", action={"kind": "play", "pos": 0, "card": 0},
                    positions=[], cards=[], keys=[])
        step = send(t, cheat, msg)
        assert step.out[0].msg["code"] == "table.not_your_turn"
        assert (replica.stop is not None) == (n == 16), n
        t.pump()
    play_on(t)
    record = fair_record(t, [0, 1])
    outcome = record.outcome
    assert (outcome.kind, outcome.seat, outcome.cause) == ("forfeit", cheat, "stall")
    assert "TABLE-11" in outcome.detail
    assert t.host.match_over and t.host.end_reason == "forfeit"
