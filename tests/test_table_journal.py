"""A host killed at any frame boundary resumes the hand exactly (PROTOCOL.md § 7, § 8.12).

The host's table is the fold of its journaled events: `replay(config, host_key,
journal[:k])` must rebuild — for every k — a host from which the hand, once the host says
`resume` and the seats reconnect, ends exactly as the uninterrupted one: the same
transcript, byte for byte (every host and seat signature is deterministic), and the same
outcome.

The crash model. Every event is durable before any reply it causes leaves the host, so when
a host dies after its k-th event its peers have seen at most the replies to those k events,
and nothing the k+1-th would have caused. The peers here are restarted too — the
strictest case: each seat is a NEW `SeatClient` on a copy of its `MemorySeatStore` as it
stood at the crash (its seeds, spent marks, every statement it signed, its match record),
with the same identity and seed source, and it rebuilds the hand from the resynced log and
its store alone. "As it stood at the crash" is one of two faithful moments, alternated over
the prefixes: *late* — just before the host would have applied event k+1 (the seats ran as
far as they could: they may have signed statements the dead host never read), or *early* —
the moment the host applied event k (the seats had not yet seen its replies). The seats'
moves come from bots seeded by the public state, so a restarted seat decides as the
original one did.

Then: the host's `resume` event, each seat reconnects (`set_connected`), sends `resync`,
feeds the answer through `receive_all` and re-sends `unacknowledged()` unless it just sent
it; the driver deals if the journal had not; everything is pumped to the end.

Briscola (2 seats): every prefix. Burraco (4 seats, fibur): the first and the last prefix
and every boundary between event kinds (the deal, the first and last commit, shuffle and
lock, the first release and action, the last action, release, reveal and sign-off), plus
one in mid-play. Last, the same over the real on-disk journal (`storage.journal`):
truncated at every record boundary, and torn inside the next record, it loads to the same
events (the torn tail ignored) and replays to the same host.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import random
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from p2p_burraco.bots import make_strategy
from p2p_burraco.bots.controller import BotController
from p2p_burraco.fairdeal import signing
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.games.base import Action, HandState
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.storage.files import read_records
from p2p_burraco.storage.journal import JOURNAL, MatchJournal, load
from p2p_burraco.table.host import HandRecord, HostTable, replay
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.seat import SeatClient
from p2p_burraco.table.store import MemorySeatStore


class PublicSeeded:
    """A greedy bot whose tie-breaks are seeded by the public state and the seat: the same
    position gives the same move, whichever process (or restart) asks."""

    name = "greedy (seeded by the public state)"

    def __init__(self, game: str) -> None:
        self.game = game

    def choose(self, state: HandState, seat: int) -> Action:
        key = hashlib.sha256(signing.canonical(state.public_view()) + bytes([seat])).digest()
        return make_strategy(self.game, "greedy", random.Random(key)).choose(state, seat)


CASES = {"briscola": ("briscola", 2, None, 1, {}),
         "burraco": ("burraco", 4, "fibur", 2, {}),
         "briscola-2-hands": ("briscola", 2, None, 3, {"hands": 2})}


def new_table(case: str) -> InProcessTable:
    game, players, variant, seed, options = CASES[case]
    t = InProcessTable(SelfplayConfig(game=game, variant=variant, players=players, hands=1,
                                      seed=seed, options=options), audit_at_seats=False)
    for s, client in enumerate(t.seats):
        client.controller = t.controllers[s] = BotController(PublicSeeded(game))
    return t


class Baseline:
    """One uninterrupted hand, with the seats' stores as they stood at every event."""

    def __init__(self, case: str) -> None:
        t = new_table(case)
        self.late: dict[int, list[MemorySeatStore]] = {}
        inner = t.host.apply

        def apply(event: Any) -> Any:
            self.late[len(t.journal)] = copy.deepcopy(t.stores)
            return inner(event)
        t.host.apply = apply                                 # type: ignore[method-assign]
        self.record = t.play_hand()
        self.late[len(t.journal)] = copy.deepcopy(t.stores)
        t.host.apply = inner                                 # type: ignore[method-assign]
        self.table = t
        self.journal = list(t.journal)
        self.bytes = self.record.transcript.to_bytes()

    def stores(self, k: int, model: str) -> list[MemorySeatStore]:
        """The seats' stores at a crash after k events (see the module docstring)."""
        if model == "early":
            if k == 0:
                return [MemorySeatStore() for _ in self.table.seats]
            return copy.deepcopy(self.late[k - 1])
        return copy.deepcopy(self.late[k])


@functools.cache
def baseline(case: str) -> Baseline:
    return Baseline(case)


def resume(case: str, k: int, model: str) -> tuple[InProcessTable, HandRecord | None]:
    """The host killed after k events, rebuilt from its journal, its seats restarted on
    their stores and reconnected; the hand pumped to its end."""
    base = baseline(case)
    t = new_table(case)
    host = replay(t.config, t.host_key, base.journal[:k])
    t.host = host
    t.journal = list(base.journal[:k])
    t.now = host.now + 5_000                      # the restart takes a while
    step = t.step({"e": "resume"})
    assert step.journal == {"e": "resume", "t": t.now}
    for s, store in enumerate(base.stores(k, model)):
        old = t.seats[s]
        t.seats[s] = SeatClient(s, t.identities[s], old.controller, seed_source=t._seed_for,
                                store=store, host_key=signing.public_key_bytes(t.host_key),
                                fallback=old.fallback, audit=False)
        t.stores[s] = store
    for s, client in enumerate(t.seats):
        t.post(host.set_connected(s, True, t.now))
        answer = t.step({"e": "msg", "seat": s,
                         "msg": {"type": "resync", "hand_id": host.hand_id}})
        assert answer.journal is None
        replies = client.receive_all([o.msg for o in answer.out])
        t.to_host.extend((s, r) for r in replies)
        unacknowledged = client.unacknowledged()
        if unacknowledged is not None and not any(r is unacknowledged for r in replies):
            t.to_host.append((s, unacknowledged))
    if host.stage == "idle":
        t.step({"e": "deal"})
    t.pump()
    return t, (t.records[0] if t.records else None)


def check_resumed(case: str, k: int, model: str) -> None:
    base = baseline(case)
    t, record = resume(case, k, model)
    if k == len(base.journal):                   # the hand had closed before the crash
        assert record is None and t.host.hand_end == base.record.transcript.hand_end
        assert [dict(e) for e in t.host.log] == base.record.transcript.entries
    else:
        assert record is not None, f"prefix {k}: the hand did not close ({t.host.stage})"
        assert record.outcome == base.record.outcome, k
        assert record.transcript.to_bytes() == base.bytes, f"prefix {k} ({model})"
    assert t.host.standings() == base.table.host.standings()
    for s, client in enumerate(t.seats):
        assert client.halted is None, (k, s, client.halted)
        assert client.controller.events == [], (k, s)        # type: ignore[attr-defined]
        assert client.replica is not None
        assert client.replica.deal.head == base.table.seats[s].replica.deal.head  # type: ignore
    if k % 6 == 0 or k == len(base.journal):
        # the resumed host's own journal (with its `resume`) replays to the same host again
        again = replay(t.config, t.host_key, t.journal)
        assert again.hand_end == base.record.transcript.hand_end
        assert again.stage == t.host.stage


def kind(event: dict[str, Any]) -> str:
    return f"msg:{event['msg']['type']}" if event["e"] == "msg" else str(event["e"])


def boundaries(journal: list[dict[str, Any]]) -> list[int]:
    """0, the end, and around every kind of event: before its first, after its last."""
    out = {0, len(journal)}
    kinds = [kind(e) for e in journal]
    for kd in set(kinds):
        first = kinds.index(kd)
        last = len(kinds) - 1 - kinds[::-1].index(kd)
        out.update((first, last + 1))
    actions = [i for i, kd in enumerate(kinds) if kd == "msg:action"]
    out.add(actions[len(actions) // 2])
    return sorted(out)


def test_the_baselines_are_what_the_prefixes_cover() -> None:
    """The recorded hands end normally, and the prefixes chosen for Burraco include every
    kind of event's first and last boundary."""
    for case in ("briscola", "burraco"):
        base = baseline(case)
        assert base.record.outcome.kind == "scored"
        kinds = {kind(e) for e in base.journal}
        assert {"deal", "msg:commit", "msg:shuffle", "msg:lock", "msg:release",
                "msg:action", "msg:reveal", "msg:sign_off"} <= kinds
    ks = boundaries(baseline("burraco").journal)
    assert ks[0] == 0 and ks[-1] == len(baseline("burraco").journal) and len(ks) >= 10


BRISCOLA_CHUNKS = 4


@pytest.mark.parametrize("chunk", range(BRISCOLA_CHUNKS))
def test_briscola_resumes_exactly_from_every_prefix_of_its_journal(chunk: int) -> None:
    n = len(baseline("briscola").journal)
    for k in range(chunk, n + 1, BRISCOLA_CHUNKS):
        check_resumed("briscola", k, "early" if k % 2 == 0 else "late")


@pytest.mark.parametrize("half", [0, 1])
def test_burraco_resumes_exactly_from_every_kind_of_boundary(half: int) -> None:
    ks = boundaries(baseline("burraco").journal)
    for i, k in enumerate(ks):
        if i % 2 == half:
            check_resumed("burraco", k, "late" if (i // 2) % 2 == 0 else "early")


# ---------------------------------------------------------------------- on disk
def write_journal(root: Path) -> tuple[Path, list[dict[str, Any]], InProcessTable]:
    """A two-hand Briscola match journaled as the host's room does: the match header, every
    event, a checkpoint after each closed hand. Returns the match directory and the records
    written (header first)."""
    t = new_table("briscola-2-hands")
    header = {"config": t.config.to_wire(), "table": "t1", "target": None,
              "host_key": signing.public_key_bytes(t.host_key)}
    journal = MatchJournal.create(root, t.config.match_id, header)
    written: list[dict[str, Any]] = [{"e": "match", **header}]
    inner = t.step

    def step(event: dict[str, Any]) -> Any:
        out = inner(event)
        if out.journal is not None:
            journal.append(out.journal)
            written.append(out.journal)
        if out.record is not None:
            cp = t.host.checkpoint()
            journal.append(cp)
            written.append(cp)
        return out              # (the room syncs here; durability is not what is tested)
    t.step = step                                            # type: ignore[method-assign]
    while t.host.can_deal():
        t.play_hand()
    journal.close()
    assert sum(1 for r in written if r["e"] == "checkpoint") == 2
    return journal.dir, written, t


def fingerprint(host: HostTable) -> tuple[Any, ...]:
    """What a restarted host must have got back. Between hands a host restored from a
    checkpoint no longer holds the closed hand's log (a checkpoint is the table between
    hands, constant size): the hand in progress is compared only when there is one."""
    hand = None if host.stage in ("idle", "between", "over") else \
        ([signing.entry_hash(e) for e in host.log], host.relayed, host.hand_end,
         sorted(host.sign_offs), host.due_kind)
    return (host.stage, host.hand_no, host.hands_scored, host.prev_result,
            host.state.snapshot(), host.seat_keys, host.names, hand)


def test_the_on_disk_journal_loads_and_replays_at_every_record_boundary(
        tmp_path: Path) -> None:
    directory, written, t = write_journal(tmp_path / "matches")
    data = (directory / JOURNAL).read_bytes()
    records, size = read_records(directory / JOURNAL)
    assert size == len(data) and len(records) == len(written)
    ends = []
    pos = 0
    for _ in records:
        n = struct.unpack_from(">I", data, pos)[0]
        pos += 8 + n
        ends.append(pos)
    cut = tmp_path / "cut"
    cut.mkdir()
    replayed = 0
    for i, end in enumerate(ends):
        # the journal as a crash after record i left it: whole, then torn in the next one
        expected = written[:i + 1]
        checkpoints = [j for j, r in enumerate(expected) if r["e"] == "checkpoint"]
        cp = expected[checkpoints[-1]] if checkpoints else None
        events = expected[(checkpoints[-1] if checkpoints else 0) + 1:]
        tails = [b""]
        if i + 1 < len(ends):            # torn: in its length, in its body, its last byte
            nxt = data[end:ends[i + 1]]
            tails += [nxt[:len(nxt) // 2]] if i % 10 else [nxt[:3], nxt[:len(nxt) // 2],
                                                           nxt[:-1]]
        for tail in tails:
            (cut / JOURNAL).write_bytes(data[:end] + tail)
            loaded = load(cut)
            assert loaded is not None and loaded.header == written[0]
            assert loaded.checkpoint == cp and loaded.events == events, (i, len(tail))
            assert not loaded.ended
        if i in (0, 1, len(ends) - 1) or (cp is not None and not events) or i % 25 == 0:
            host = replay(t.config, t.host_key, events, cp)
            whole = replay(t.config, t.host_key, [r for r in expected[1:]
                                                  if r["e"] != "checkpoint"])
            assert fingerprint(host) == fingerprint(whole), i
            replayed += 1
    assert replayed >= 5
    final = load(cut)
    assert final is not None
    assert fingerprint(replay(t.config, t.host_key, final.events, final.checkpoint)) == \
        fingerprint(t.host)


def test_a_reopened_journal_cuts_its_torn_tail_and_goes_on(tmp_path: Path) -> None:
    directory, written, t = write_journal(tmp_path / "matches")
    path = directory / JOURNAL
    whole = path.read_bytes()
    path.write_bytes(whole + b"\x00\x00\x01\x00torn")        # a record half written
    journal = MatchJournal.reopen(directory)
    assert path.read_bytes() == whole                        # the torn tail is gone
    journal.append({"e": "end", "t": t.now, "reason": "target"})
    journal.close()
    loaded = load(directory)
    assert loaded is not None and loaded.ended
    assert loaded.checkpoint == written[-1]
    # a match id is never reused
    with pytest.raises(FileExistsError):
        MatchJournal.create(tmp_path / "matches", t.config.match_id, {"again": True})
    shutil.rmtree(directory)


@pytest.mark.parametrize("dealt_again", [False, True])
def test_a_seat_that_missed_hand_end_gets_it_from_a_host_restored_between_hands(
        tmp_path: Path, dealt_again: bool) -> None:
    """TABLE-6 (a seat comes back and nothing it is owed is lost): the host closes a hand and
    is killed before its hand_end reaches seat 1. Restarted from its checkpoint, it answers
    seat 1's resync (naming the closed hand) with that hand's log and hand_end read back from
    its record on disk — also once the next hand is dealt — then the current hand; the seat
    closes the hand as the others did. A record that is not the hand the match went on from
    is not served. (The host keeps no closed hand in memory for this: it costs a file read.)"""
    from p2p_burraco.net.room import read_closed_record

    t = new_table("briscola-2-hands")
    inner = t.deliver

    def deliver(s: int, msg: Any) -> None:
        if not (s == 1 and msg.get("type") == "hand_end"):
            inner(s, msg)
    t.deliver = deliver                                      # type: ignore[method-assign]
    record = t.play_hand()
    t.deliver = inner                                        # type: ignore[method-assign]
    seat1 = t.seats[1]
    closed_id = record.transcript.hand_start["hand_id"]
    assert seat1.hand_start is not None and seat1.hand_start["hand_id"] == closed_id
    name = (t.config.match_id, "hand-001.p2pb")
    assert name in t.stores[0].records and name not in t.stores[1].records
    (tmp_path / "hand-001.p2pb").write_bytes(record.transcript.to_bytes())

    host = replay(t.config, t.host_key, [], t.host.checkpoint())
    assert t.host.closed_hand(closed_id) is None            # still in memory: no file needed
    if dealt_again:
        host.apply({"e": "deal", "t": host.now + 1})
    assert host.closed_hand(closed_id) == 0 and host.closed_hand(None) is None
    got = read_closed_record(tmp_path, 0, closed_id, host)
    assert got is not None
    answer = host.apply({"e": "msg", "seat": 1, "t": host.now + 2,
                         "msg": {"type": "resync", "hand_id": closed_id}})
    msgs = [*got.entries, got.hand_end, *(o.msg for o in answer.out)]
    assert [m for m in msgs if m.get("type") == "hand_end"] == [record.transcript.hand_end]
    if dealt_again:
        assert msgs[-1]["type"] == "hand_start" and msgs[-1]["hand_id"] != closed_id
    else:                                    # between hands: nothing of a hand in memory
        assert not [o for o in answer.out if o.to == 1]
    seat1.receive_all(msgs)
    assert seat1.halted is None
    mine = Transcript.from_bytes(t.stores[1].records[name])   # the hand as seat 0 keeps it
    theirs = Transcript.from_bytes(t.stores[0].records[name])  # (each its own sign-off)
    assert (mine.entries, mine.hand_end) == (theirs.entries, theirs.hand_end)

    # a record that is not the one the match went on from is not served
    assert read_closed_record(tmp_path, 0, bytes(16), host) is None
    other = replay(t.config, t.host_key, [], {**t.host.checkpoint(), "prev_result": bytes(32)})
    assert read_closed_record(tmp_path, 0, closed_id, other) is None
    (tmp_path / "hand-001.p2pb").write_bytes(record.transcript.to_bytes()[:-9])
    assert read_closed_record(tmp_path, 0, closed_id, host) is None


def test_the_room_sends_the_closed_hand_from_its_record_before_the_current_one(
        tmp_path: Path) -> None:
    """TABLE-6, the host's I/O side: a resync naming the hand closed since makes the room read
    that hand's record back and send its log and hand_end to that seat alone; a resync of the
    hand in memory, or with no record on disk, reads nothing (one line said for the latter)."""
    from types import SimpleNamespace

    from p2p_burraco.net.room import TableRoom

    t = new_table("briscola-2-hands")
    record = t.play_hand()
    closed_id = record.transcript.hand_start["hand_id"]
    lines: list[str] = []
    room = TableRoom(SimpleNamespace(say=lines.append), "t1", "briscola", None, 2, None, 2,
                     {}, t.config.rules)                     # type: ignore[arg-type]
    room.journal = SimpleNamespace(dir=tmp_path)             # type: ignore[assignment]
    sent: list[tuple[int | None, str, dict[str, Any]]] = []
    room.send_to = lambda seat, mtype, body: sent.append((seat, mtype, body))  # type: ignore
    room.driver = t.host
    room._resend_closed(1, closed_id)                        # still the hand in memory
    assert sent == [] and lines == []
    room.driver = replay(t.config, t.host_key, [], t.host.checkpoint())
    room._resend_closed(1, closed_id)                        # restarted, no record on disk
    assert sent == [] and len(lines) == 1 and "asked for hand 1" in lines[0]
    (tmp_path / "hand-001.p2pb").write_bytes(record.transcript.to_bytes())
    room._resend_closed(1, closed_id)
    want = [*record.transcript.entries, record.transcript.hand_end]
    assert [(s, m) for s, m, _ in sent] == [(1, e["type"]) for e in want]
    assert [{"type": m, **b} for _, m, b in sent] == want
