"""`p2p-burraco verify` as an auditor uses it (PROTOCOL §8.8, §8.12, §8.13, §9).

A seeded match is played in process and recorded; each test forges a variant of its files the
way one of the threat model's parties could — a malicious seat (re-signing with its own key),
a malicious host (re-signing with the host key), both together, or an outsider with no key
(editing files) — and checks the exit status and the party the verdict names:
0 fair, 1 a cheat proven (seat N / the host / the record), 2 incomplete, 3 not a transcript.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from p2p_burraco.cli import main
from p2p_burraco.fairdeal import signing
from p2p_burraco.fairdeal.deal import HOST_TYPES
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.storage.known_keys import (
    MISMATCH,
    PINNED,
    UNKNOWN,
    KnownKeys,
    KnownKeysError,
    known_keys_path,
)
from p2p_burraco.table.host import transcript_name
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.replica import HandReplica, TableError

HANDS = 3


# --------------------------------------------------------------------------- material

@dataclass
class Played:
    """A finished match: its table (keys included) and its records, pristine."""

    table: InProcessTable
    records: list[bytes]            # each hand's transcript, as bytes (copied per test)
    result: dict[str, Any]

    def hand(self, i: int) -> Transcript:
        return Transcript.from_bytes(self.records[i])

    @property
    def match_id(self) -> bytes:
        return self.table.config.match_id


def play(seed: int, hands: int = HANDS) -> Played:
    cfg = SelfplayConfig(game="briscola", players=2, hands=hands, seed=seed,
                         options={"hands": hands})
    table = InProcessTable(cfg)
    while not table.host.match_over and table.host.can_deal():
        table.play_hand()
    assert all(r.outcome.kind == "scored" for r in table.records)
    return Played(table, [r.transcript.to_bytes() for r in table.records],
                  result_json(table))


def result_json(table: InProcessTable) -> dict[str, Any]:
    """What the host's room writes as result.json (net/room.py end_match)."""
    host = table.host
    out: dict[str, Any] = json.loads(json.dumps({
        "table": "t1", "game": host.config.game, "variant": host.config.variant,
        "players": host.n_seats, "reason": host.end_reason or "hands",
        "hands": host.hand_no, "match_id": host.match_id.hex(),
        "host_key": host.host_public.hex(), "standings": host.standings(),
        "last_hand": None,
        "seats": [{"seat": i, "name": n, "identity": k.hex(), "bot": True}
                  for i, (n, k) in enumerate(zip(host.names, host.seat_keys))],
        "transcripts": [transcript_name(r.hand_no) for r in table.records],
    }, default=lambda v: v.hex()))
    return out


@pytest.fixture(scope="module")
def match() -> Played:
    p = play(5)
    assert len(p.records) == HANDS and p.table.host.match_over
    return p


@pytest.fixture(scope="module")
def other() -> Played:
    p = play(6, hands=2)
    assert len(p.records) == 2
    return p


def write(directory: Path, played: Played, transcripts: Iterable[Transcript | None] | None = None,
          result: dict[str, Any] | None | bool = True) -> Path:
    """A host's match directory: <date>-<match id>/hand-NNN.p2pb (+ result.json)."""
    d = directory / f"2025-01-01-{played.match_id.hex()}"
    d.mkdir(parents=True)
    ts = list(transcripts) if transcripts is not None else \
        [played.hand(i) for i in range(len(played.records))]
    for i, t in enumerate(ts):
        if t is not None:
            t.save(str(d / transcript_name(i)))
    if result is True:
        result = played.result
    if isinstance(result, dict):
        (d / "result.json").write_text(json.dumps(result, indent=2))
    return d


def verify(capsys: pytest.CaptureFixture[str], tmp: Path, *args: str | Path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", "--data-dir", str(tmp / "home"), *map(str, args)])
    return code, capsys.readouterr().out


def verdict_line(out: str, prefix: str = "match verdict:") -> str:
    lines = [ln.strip() for ln in out.splitlines() if ln.strip().startswith(prefix)]
    assert lines, out
    return lines[-1]


def reseal(t: Transcript, played: Played, *, host: bool = False,
           seats: Iterable[int] = (), start: int = 1) -> None:
    """Re-chain a hand after an edit, re-signing only with the keys of the parties that
    lie: seat statements of `seats` from `start` on (seq and prev_hash recomputed), host
    statements (at, head) and the hand_end (the new log hash) when `host`."""
    seats = set(seats)
    table = played.table
    entries = t.entries
    hs = entries[0]
    chains = {s: (0, signing.entry_hash(hs)) for s in range(int(hs["n_seats"]))}
    head = signing.chain_step(signing.chain_start(), signing.entry_hash(hs))

    def seat_stmt(e: dict[str, Any], i: int) -> dict[str, Any]:
        s = e["seat"]
        if i >= start and s in seats:
            e = signing.sign(table.identities[s], {**e, "seq": chains[s][0],
                                                   "prev_hash": chains[s][1]})
        chains[s] = (e["seq"] + 1, signing.entry_hash(e))
        return e

    for i in range(1, len(entries)):
        e = entries[i]
        if e["type"] in HOST_TYPES:
            if e["type"] == "refusal":
                e = {**e, "msg": seat_stmt(dict(e["msg"]), i)}
            if i >= start and host:
                e = signing.sign(table.host_key, {**e, "at": i, "head": head})
        else:
            e = seat_stmt(e, i)
        entries[i] = e
        head = signing.chain_step(head, signing.entry_hash(e))
    if host and t.hand_end is not None:
        t.hand_end = signing.sign(table.host_key, {**t.hand_end, "transcript_hash": head})


def first(t: Transcript, kind: str, seat: int | None = None, after: int = 0) -> int:
    return next(i for i, e in enumerate(t.entries) if i > after and e.get("type") == kind
                and (seat is None or e.get("seat") == seat))


# --------------------------------------------------------------------------- fair

def test_fair_match_verifies_fair_exit_0(match: Played, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = write(tmp_path, match)
    code, out = verify(capsys, tmp_path, d)
    assert code == 0, out
    assert "briscola (standard), 2 seats, hand 1" in out and "seat 0 dealt:" in out
    assert out.count("verdict: FAIR") == HANDS + 1
    assert "3 hand(s) [1–3], chain OK" in out
    host = match.table.host
    assert "standings recomputed: bot 0 " in out and "— agree; match_over True (agrees)" in out
    assert "result.json: reason" in out and "agrees with the hands" in out
    # unpinned keys are shown in full, ready to pin, beside their names
    assert f"bot 1 {host.seat_keys[1].hex()}" in out and f"host {host.host_public.hex()}" in out
    # the same files given one by one, in any order: one match, chained by hand number
    files = sorted(d.glob("hand-*.p2pb"), reverse=True)
    code, out = verify(capsys, tmp_path, "--quiet", *files)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[:HANDS] == [f"{f}: fair" for f in sorted(files)]
    assert lines[HANDS] == f"match {match.match_id.hex()}: {HANDS} hand(s), chain OK: fair"


def test_a_single_file_is_verified_alone(match: Played, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = write(tmp_path, match)
    code, out = verify(capsys, tmp_path, d / "hand-002.p2pb")
    assert code == 0, out
    assert "verified alone: the chain to earlier hands was not checked" in out
    assert "verdict: FAIR" in out and "match verdict" not in out


def test_verify_as_a_command_json(match: Played, tmp_path: Path) -> None:
    d = write(tmp_path, match)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-m", "p2p_burraco", "verify", "--json",
                           "--data-dir", str(tmp_path / "home"), str(d)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["exit"] == 0 and report["verdict"] == "fair"
    (m,) = report["matches"]
    assert m["match_id"] == match.match_id.hex() and m["chain_ok"]
    assert [h["verdict"] for h in m["hands"]] == ["fair"] * HANDS
    assert m["standings"]["computed"] == m["standings"]["stated"] \
        == m["standings"]["result_json"]


# --------------------------------------------------------------------------- incomplete

def test_missing_sign_off_is_incomplete_exit_2(match: Played, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    t = match.hand(1)
    t.sign_offs = [so for so in t.sign_offs if so["seat"] != 1]
    assert t.hand_end is not None    # a host that closed the hand without seat 1's
    end = {k: v for k, v in t.hand_end.items() if k != "sig"}
    end["sign_offs"] = [so for so in end["sign_offs"] if so["seat"] != 1]
    t.hand_end = signing.sign(match.table.host_key, end)
    d = write(tmp_path, match, [match.hand(0), t, match.hand(2)])
    code, out = verify(capsys, tmp_path, d)
    assert code == 2, out
    assert "verdict: INCOMPLETE — missing: seat 1 (bot 1)'s sign-off" in out
    # alone, too: one sign-off of two is not fair
    code, out = verify(capsys, tmp_path, d / "hand-002.p2pb")
    assert code == 2 and "FAIR" not in out


def test_missing_hand_end_is_incomplete(match: Played, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    t = match.hand(2)
    t.hand_end = None
    d = write(tmp_path, match, [match.hand(0), match.hand(1), t])
    code, out = verify(capsys, tmp_path, d)
    assert code == 2, out
    assert "the host's hand_end" in verdict_line(out)


def test_missing_middle_hand_is_incomplete(match: Played, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    d = write(tmp_path, match, [match.hand(0), None, match.hand(2)], result=None)
    code, out = verify(capsys, tmp_path, d)
    assert code == 2, out
    assert "chain BROKEN" in out and "missing: hand 2 of the match" in out
    # the last hand missing: only result.json can tell
    d2 = write(tmp_path / "b", match, [match.hand(0), match.hand(1)])
    code, out = verify(capsys, tmp_path, d2)
    assert code == 2 and "hand 3 (" in verdict_line(out), out


# --------------------------------------------------------------------------- the record

def test_unsigned_void_inserted_is_tampering_exit_1(match: Played, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    """A `hand_void` slipped into a lost hand, right after the last move, with the place
    fields right but no host signature: the record's fault, never a fair void, and no
    honest seat named."""
    t = match.hand(2)
    i = first(t, "reveal") - 0
    head = signing.chain_start()
    for e in t.entries[:i]:
        head = signing.chain_step(head, signing.entry_hash(e))
    t.entries.insert(i, {"type": "hand_void", "hand_id": t.entries[0]["hand_id"], "at": i,
                         "head": head, "reason": "bad_reveal", "seat": None,
                         "detail": "a card failed to decode", "sig": bytes(64)})
    d = write(tmp_path, match, [match.hand(0), match.hand(1), t])
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    line = verdict_line(out)
    assert "CHEAT by the record: bad_signature at message" in line and "(hand_void)" in line
    assert "seat 0" not in line and "seat 1" not in line and "FAIR void" not in out
    hand3 = out[out.index("hand-003.p2pb: briscola"):]
    assert "outcome: none — the record was altered" in hand3
    assert "seat 0 (bot 0): " not in hand3 and "seat 1 (bot 1): " not in hand3


@pytest.mark.parametrize("edit", ["edited", "removed", "added", "reordered", "unsigned"])
def test_an_outsider_editing_entries_is_the_records_fault(
        edit: str, match: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = match.hand(1)
    i = first(t, "action")
    if edit == "edited":
        t.entries[i]["action"] = dict(t.entries[i]["action"], card=t.entries[i]["cards"][0])
        t.entries[i]["cards"] = [(t.entries[i]["cards"][0] + 1) % 40]
    elif edit == "removed":
        del t.entries[i]
    elif edit == "added":
        t.entries.insert(i + 3, dict(t.entries[i]))
    elif edit == "reordered":
        j = next(j for j in range(i + 1, len(t.entries))
                 if t.entries[j].get("seat") != t.entries[i].get("seat"))
        t.entries[i], t.entries[j] = t.entries[j], t.entries[i]
    else:
        del t.entries[i]["sig"]
    d = write(tmp_path, match, [match.hand(0), t, match.hand(2)])
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    line = verdict_line(out)
    assert "CHEAT by the record:" in line and "(hand 2," in line, line
    assert "seat 0 (" not in line and "seat 1 (" not in line


def test_hand_from_another_match_is_refused(match: Played, other: Played, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    d = write(tmp_path, match, [match.hand(0), other.hand(1), match.hand(2)])
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    line = verdict_line(out)
    assert "CHEAT by the record: other_match" in line and "hand-002.p2pb" in line
    assert other.match_id.hex() in line
    # the same files given one by one
    code, out = verify(capsys, tmp_path, *sorted(d.glob("*.p2pb")))
    assert code == 1 and "other_match" in verdict_line(out), out
    # and from separate places: a hand of another match where this match's hand 2 is missing
    (tmp_path / "x").mkdir()
    stray = tmp_path / "x" / "hand-002.p2pb"
    other.hand(1).save(str(stray))
    code, out = verify(capsys, tmp_path, d / "hand-001.p2pb", stray, d / "hand-003.p2pb")
    assert code == 1 and "other_match" in verdict_line(out), out


def test_wrong_standings_in_result_json_names_the_record(match: Played, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    result = json.loads(json.dumps(match.result))
    result["standings"]["totals"] = list(reversed(result["standings"]["totals"]))
    d = write(tmp_path, match, result=result)
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    line = verdict_line(out)
    assert "CHEAT by the record: wrong_standings" in line and "totals" in line
    assert "result.json" in line and "DIFFERS from the hands" in out
    # every hand is fair on its own: only the unsigned summary lies
    assert out.count("  verdict: FAIR") == HANDS


def test_pinned_key_mismatch_names_the_record(match: Played, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    d = write(tmp_path, match)
    host = match.table.host
    keys = tmp_path / "pins"
    keys.write_text("# pins\n"
                    f"host {host.host_public.hex()}\n"
                    f"bot 0 {host.seat_keys[0].hex()[:16]}\n"
                    f"bot 1 {bytes(32).hex()}\n")
    code, out = verify(capsys, tmp_path, "--keys", keys, d)
    assert code == 1, out
    line = verdict_line(out)
    assert "NOT FAIR — not signed by the keys pinned" in line and "'bot 1'" in line
    assert "nobody is proven at fault" in line and "CHEAT" not in line
    assert "NOT THE PINNED KEY" in out and "host: key" in out
    assert "pinned keys: host, seat 0 bot 0" in out
    # pinned right: fair, and nothing left unpinned
    keys.write_text(f"host {host.host_public.hex()}\nbot 0 {host.seat_keys[0].hex()}\n"
                    f"bot 1 {host.seat_keys[1].hex()[:20]}\n")
    code, out = verify(capsys, tmp_path, "--keys", keys, d)
    assert code == 0 and "unpinned keys" not in out, out
    # the keys this machine has seen (<data-dir>/known_keys) are used by default
    kk = KnownKeys()
    kk.remember("bot 1", bytes(range(32)))
    kk.save(known_keys_path(tmp_path / "home"))
    code, out = verify(capsys, tmp_path, d)
    # ... as memory, not as pins: a name met with another key is a warning naming both
    # keys (names are labels; keys are identities), never a fault (issue 45)
    assert code == 0, out
    assert bytes(range(32)).hex() in out and host.seat_keys[1].hex() in out
    assert "warning: seat 1 is named 'bot 1'" in out


def test_reordered_hands_break_the_chain(match: Played, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Renaming hand files to reorder them does not reorder the match — the signed hand
    numbers and result hashes do — and the renaming itself is named."""
    d = write(tmp_path, match, [match.hand(1), match.hand(0), match.hand(2)])
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    assert "chain BROKEN" in out
    line = verdict_line(out)
    assert "CHEAT by the record: reordered" in line and "hand-001.p2pb holds hand 2" in line


def test_not_a_transcript_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    garbage = tmp_path / "garbage.p2pb"
    garbage.write_bytes(os.urandom(64))
    code, out = verify(capsys, tmp_path, garbage)
    assert code == 3
    assert out.strip().splitlines() == [
        (f"{garbage}: not a recorded hand or match: it holds something else (a recorded "
         "hand is a hand-NNN.p2pb file).")]
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = verify(capsys, tmp_path, empty)
    assert code == 3 and "nothing to verify there" in out and "Traceback" not in out
    other = tmp_path / "other.p2pb"
    other.write_bytes(b"\x81\xa6format\xa3xyz")
    code, out = verify(capsys, tmp_path, other, tmp_path / "nope.p2pb")
    assert code == 3 and "no such file or directory" in out, out


# --------------------------------------------------------------------------- seats

@pytest.mark.parametrize("cheat", ["key", "seed", "pass", "claim"])
def test_a_seats_own_signed_lie_names_that_seat(cheat: str, match: Played, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A seat re-signs one of its statements with a lie in it (its own key): whatever that
    does to the rest of the record, its own statements convict it."""
    t = match.hand(1)
    s = 1
    if cheat == "key":
        i = first(t, "release", seat=s)
        t.entries[i]["keys"][0] = bytes(32 - 1) + b"\x01"
        what = "wrong_key"
    elif cheat == "seed":
        i = first(t, "reveal", seat=s)
        t.entries[i]["seed"] = bytes(32)
        what = "bad_commitment"
    elif cheat == "pass":
        i = first(t, "shuffle", seat=s)
        deck = t.entries[i]["deck"]
        deck[0], deck[1] = deck[1], deck[0]
        what = "wrong_shuffle"
    else:
        i = next(j for j, e in enumerate(t.entries) if e.get("type") == "action"
                 and e.get("seat") == s and e.get("cards"))
        t.entries[i]["cards"] = [(t.entries[i]["cards"][0] + 1) % 40]
        what = "false_claim"
    reseal(t, match, seats=[s], start=i)
    d = write(tmp_path, match, [match.hand(0), t, match.hand(2)])
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    line = verdict_line(out)
    assert f"CHEAT by seat 1 (bot 1): {what} at message {i}" in line, line
    assert "(hand 2, " in line


def play_one(seed: int) -> InProcessTable:
    return InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=seed))


def actions(t: InProcessTable) -> int:
    assert t.host.replica is not None
    return sum(1 for e in t.host.replica.deal.log if e.get("type") == "action")


def finish(t: InProcessTable) -> Transcript:
    t.pump()
    if not t.records:
        t.advance(t.config.rules.step_ms + 1)     # sign-offs overdue: the host closes
    assert t.records
    return t.records[-1].transcript


def test_a_false_alarm_names_the_alarmist(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    t = play_one(21)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions(t) >= 3)
    liar = t.seats[0]
    liar._raise_alarm("bad_relay", [], None, "made up")
    liar._pump()
    t.to_host.extend((0, m) for m in liar.take_outbox())
    rec = finish(t)
    path = tmp_path / "hand-001.p2pb"
    rec.save(str(path))
    code, out = verify(capsys, tmp_path, path)
    assert code == 1, out
    assert "CHEAT by seat 0 (bot 0): false_alarm at message" in out
    assert "(alarm)" in out


# --------------------------------------------------------------------------- the host

def test_a_false_refusal_names_the_host(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Live: the host refuses a sound move; the seat disputes it; the record convicts the
    host."""
    t = play_one(22)
    t.step({"e": "deal"})
    t.pump(until=lambda: actions(t) >= 2)
    replica = t.host.replica
    assert replica is not None
    sound = replica.check

    def lying_check(seat: int, msg: Any) -> None:
        if msg.get("type") == "action":
            raise TableError("table.illegal_action", "not today", "BRISCOLA-1")
        sound(seat, msg)

    replica.check = lying_check  # type: ignore[method-assign]
    rec = finish(t)
    path = tmp_path / "hand-001.p2pb"
    rec.save(str(path))
    code, out = verify(capsys, tmp_path, path)
    assert code == 1, out
    assert "CHEAT by the host: false_refusal at message" in out and "(refusal)" in out


@pytest.mark.parametrize("lie", ["timeout", "void", "result", "standings", "match_over",
                                 "next_state"])
def test_a_hosts_signed_lie_names_the_host(lie: str, match: Played, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    table = match.table
    ts = [match.hand(i) for i in range(HANDS)]
    t = ts[1]
    hid = t.entries[0]["hand_id"]
    if lie in ("timeout", "void"):
        # the host (colluding with the seat about to lose) stops a lost hand with a signed
        # statement the log does not support, and closes it on that log
        i = owes_nothing(t, 1) if lie == "timeout" else first(t, "reveal")
        body = {"seat": 1, "kind": "step", "count": 0, "detail": "owed nothing"} \
            if lie == "timeout" else {"reason": "bad_reveal", "seat": None, "detail": "x"}
        t.entries.insert(i, {"type": lie if lie == "timeout" else "hand_void",
                             "hand_id": hid, **body})
        reseal(t, match, host=True, start=i)
        what = "false_timeout" if lie == "timeout" else "false_hand_void"
        where = f"{what} at message {i}"
    elif lie in ("result", "standings", "match_over"):
        end = dict(t.hand_end or {})
        if lie == "result":
            end["result"] = dict(end["result"], points=list(reversed(end["result"]["points"])))
        elif lie == "standings":
            st = json.loads(json.dumps(end["state"], default=lambda v: v.hex()))
            st["match"]["points"] = list(reversed(st["match"]["points"]))
            end["state"] = st
        else:
            end["match_over"] = not end["match_over"]
        t.hand_end = signing.sign(table.host_key, end)
        where = "wrong_result at the hand_end"
    else:
        # the next hand is dealt from a state the results do not give
        t = ts[2]
        hs = dict(t.entries[0])
        st = json.loads(json.dumps(hs["state"], default=lambda v: v.hex()))
        st["match"]["points"] = [p + 10 for p in st["match"]["points"]]
        hs["state"] = st
        t.entries[0] = signing.sign(table.host_key, hs)
        reseal(t, match, host=True, seats=[0, 1])      # colluding seats follow the host
        where = "wrong_state at message 0 (hand_start)"
    d = write(tmp_path, match, ts)
    code, out = verify(capsys, tmp_path, d)
    assert code == 1, out
    line = verdict_line(out)
    assert f"CHEAT by the host: {where}" in line, line
    assert "seat 0 (" not in line and "seat 1 (" not in line


def owes_nothing(t: Transcript, seat: int) -> int:
    """A place in the play where `seat` owes nothing (a timeout of it there is false)."""
    r = HandReplica(t.entries[0], verify_signatures=False)
    for i in range(1, len(t.entries)):
        if r.stage == "play" and r.due(seat) is None and actions_logged(r) >= 2:
            return i
        e = t.entries[i]
        if e["type"] in HOST_TYPES:
            r.apply_host(e)
        else:
            r.apply(e)
    raise AssertionError("no such place")


def actions_logged(r: HandReplica) -> int:
    return sum(1 for e in r.deal.log if e.get("type") == "action")


# --------------------------------------------------------------------------- known keys

def test_known_keys_file(tmp_path: Path) -> None:
    path = known_keys_path(tmp_path / "d")
    kk = KnownKeys.load(path)
    assert len(kk) == 0 and kk.check("Anna", bytes(32)) == UNKNOWN
    a, b = bytes(range(32)), bytes(range(1, 33))
    assert kk.remember("Anna  Rossi", a) == UNKNOWN
    assert kk.remember("Anna Rossi", a) == PINNED
    with pytest.raises(KnownKeysError):
        kk.remember("Anna Rossi", b)
    kk.remember("host", b)
    kk.save()
    again = KnownKeys.load(path)
    assert again.check("Anna Rossi", a) == PINNED and again.check("Anna Rossi", b) == MISMATCH
    assert again.check("host", b) == PINNED and again.check("Bruno", a) == UNKNOWN
    assert again.remember("Anna Rossi", b, replace=True) == MISMATCH
    assert again.check("Anna Rossi", a) == MISMATCH
    text = path.read_text()
    assert text.startswith("#") and f"Anna Rossi {a.hex()}" in text
    with pytest.raises(KnownKeysError, match="line 2"):
        KnownKeys.parse("# ok\nAnna 1234\n")
    assert KnownKeys.parse(f"x y {a.hex()[:16].upper()}\n").check("x y", a) == PINNED
