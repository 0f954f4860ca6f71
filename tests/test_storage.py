"""Files that must not lie (`p2p_burraco.storage`): PROTOCOL.md § 7 and § 9 ("its files are
its own").

- `write_private`: a fresh O_EXCL|O_NOFOLLOW temp file, mode 0600, fsync'd before it is
  renamed over the target, the directory fsync'd after; a symlink planted at the target or
  at the temp name is never followed; a failed write leaves no temp file behind.
- `AppendLog` / `read_records`: CRC-framed records; a torn or corrupt tail is ignored on
  read and cut off when the log is opened again.
- `FileSeatStore`: the seed is on disk before the commitment leaves, the spent mark before
  the reveal, one statement per seq (a second, different one is refused), the match record
  round-trips, secrets are 0600 in 0700 directories, and a new store on the same directory
  (a restarted peer) finds everything again.
"""

from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from p2p_burraco.fairdeal import signing
from p2p_burraco.fairdeal.derive import commitment
from p2p_burraco.fairdeal.transcript import Transcript
from p2p_burraco.selfplay import SelfplayConfig
from p2p_burraco.storage import files
from p2p_burraco.storage.files import AppendLog, ensure_dir, read_private, read_records
from p2p_burraco.storage.seatstore import FileSeatStore
from p2p_burraco.table.inprocess import InProcessTable
from p2p_burraco.table.seat import SeatClient
from p2p_burraco.table.store import StoreError


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ---------------------------------------------------------------------- write_private
def test_write_private_is_0600_and_replaces_atomically(tmp_path: Path) -> None:
    target = tmp_path / "secret.bin"
    files.write_private(target, b"one")
    assert target.read_bytes() == b"one" and mode(target) == 0o600
    os.chmod(target, 0o644)                      # whatever was there before…
    files.write_private(target, b"two")
    assert target.read_bytes() == b"two" and mode(target) == 0o600   # …is replaced, 0600
    files.write_record(tmp_path / "record.bin", b"public")
    assert mode(tmp_path / "record.bin") == 0o644
    assert leftovers(tmp_path) == []
    assert read_private(target, 3) == b"two"
    with pytest.raises(ValueError):
        read_private(target, 32)


def test_write_private_never_follows_a_symlink_at_the_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"do not touch")
    os.chmod(victim, 0o644)
    target = tmp_path / "seed"
    target.symlink_to(victim)
    files.write_private(target, b"secret")
    assert victim.read_bytes() == b"do not touch" and mode(victim) == 0o644
    assert not target.is_symlink() and target.read_bytes() == b"secret"
    assert mode(target) == 0o600
    # and a secret is never read through a link either
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(OSError):
        read_private(link)


def test_write_private_never_follows_a_symlink_at_the_temp_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attacker who guesses the temp name and plants a link there gets nothing: the
    O_EXCL|O_NOFOLLOW open fails, the link's target is untouched, no target is written."""
    monkeypatch.setattr(files.secrets, "token_hex", lambda n: "0" * (2 * n))
    victim = tmp_path / "victim"
    victim.write_bytes(b"do not touch")
    target = tmp_path / "seed"
    planted = tmp_path / f".seed.{'0' * 16}.tmp"
    planted.symlink_to(victim)
    with pytest.raises(OSError):
        files.write_private(target, b"secret")
    assert victim.read_bytes() == b"do not touch"
    assert not target.exists()
    planted.unlink()
    planted.write_bytes(b"a plain file planted there")     # not a link: still not reused
    with pytest.raises(FileExistsError):
        files.write_private(target, b"secret")
    assert planted.read_bytes() == b"a plain file planted there" and not target.exists()


def test_write_private_fsyncs_the_file_before_the_rename_and_the_directory_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        events.append(f"fsync {kind}")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        events.append("rename")
        real_replace(src, dst)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    files.write_private(tmp_path / "seed", b"x" * 64)
    assert events == ["fsync file", "rename", "fsync dir"]


def test_a_failed_write_leaves_no_temp_file_and_no_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files.write_private(tmp_path / "seed", b"old")

    def broken(fd: int) -> None:
        raise OSError(5, "EIO")
    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError):
        files.write_private(tmp_path / "seed", b"new")
    with pytest.raises(OSError):
        files.write_private(tmp_path / "other", b"new")
    assert leftovers(tmp_path) == []
    assert (tmp_path / "seed").read_bytes() == b"old"       # the old one is intact
    assert not (tmp_path / "other").exists()


def test_ensure_dir_is_0700_when_private_and_refuses_a_symlink(tmp_path: Path) -> None:
    d = ensure_dir(tmp_path / "a" / "b", private=True)
    assert mode(d) == 0o700
    os.chmod(d, 0o755)
    ensure_dir(d, private=True)
    assert mode(d) == 0o700
    (tmp_path / "link").symlink_to(d)
    with pytest.raises(OSError):
        ensure_dir(tmp_path / "link", private=True)


# ---------------------------------------------------------------------- AppendLog
def frame(body: bytes) -> bytes:
    return struct.pack(">II", len(body), zlib.crc32(body)) + body


def test_append_log_round_trip_and_torn_tail_cut(tmp_path: Path) -> None:
    path = tmp_path / "journal.p2pj"
    log = AppendLog.open(path)
    bodies = [b"first", b"", b"x" * 1000, bytes(range(256))]
    for b in bodies:
        log.append(b)
    assert log.dirty
    log.sync()
    assert not log.dirty
    log.close()
    assert mode(path) == 0o600
    whole = path.read_bytes()
    assert read_records(path) == (bodies, len(whole))
    # a crash in the middle of the next append: every torn length is ignored on read…
    nxt = frame(b"the record being written")
    for cut in range(1, len(nxt)):
        path.write_bytes(whole + nxt[:cut])
        assert read_records(path) == (bodies, len(whole)), cut
    # …and cut off when the log is opened again; appends go on after the good part
    log = AppendLog.open(path)
    assert path.stat().st_size == len(whole) == log.size
    log.append(b"after the crash")
    log.close()
    assert read_records(path)[0] == [*bodies, b"after the crash"]


def test_read_records_stops_at_a_corrupt_record(tmp_path: Path) -> None:
    path = tmp_path / "j"
    good = frame(b"good")
    bad = bytearray(frame(b"flipped"))
    bad[-1] ^= 1                                   # the CRC no longer matches
    path.write_bytes(good + bytes(bad) + frame(b"unreachable"))
    assert read_records(path) == ([b"good"], len(good))
    path.write_bytes(good + struct.pack(">II", files.MAX_RECORD + 1, 0))
    assert read_records(path) == ([b"good"], len(good))
    assert read_records(tmp_path / "missing") == ([], 0)


def test_append_log_refuses_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"")
    (tmp_path / "j").symlink_to(victim)
    with pytest.raises(OSError):
        AppendLog.open(tmp_path / "j")


# ---------------------------------------------------------------------- FileSeatStore
def briscola_start(seed: int = 5) -> tuple[InProcessTable, dict[str, Any]]:
    """A Briscola table whose host has just dealt: the table and its hand_start."""
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=seed))
    step = t.host.apply({"e": "deal", "t": 0})
    hs = step.out[0].msg
    assert hs["type"] == "hand_start"
    return t, hs


class WatchedStore(FileSeatStore):
    """A FileSeatStore that notes, at each write, what the seat had already sent."""

    seat: SeatClient | None = None

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.events: list[tuple[str, int]] = []

    def _outbox(self) -> int:
        return len(self.seat.outbox) if self.seat is not None else -1

    def save_seed(self, hand_id: bytes, seed: bytes, hand_start_hash: bytes) -> None:
        self.events.append(("seed", self._outbox()))
        super().save_seed(hand_id, seed, hand_start_hash)

    def mark_spent(self, hand_id: bytes) -> None:
        self.events.append(("spent", self._outbox()))
        super().mark_spent(hand_id)

    def save_statement(self, msg: Any) -> None:
        self.events.append((f"statement {msg['type']}", self._outbox()))
        super().save_statement(msg)


def test_seed_is_on_disk_before_the_commitment_leaves(tmp_path: Path) -> None:
    t, hs = briscola_start()
    store = WatchedStore(tmp_path / "id")
    seat = SeatClient(0, t.identities[0], t.controllers[0], seed_source=t._seed_for,
                      store=store, host_key=signing.public_key_bytes(t.host_key))
    store.seat = seat
    replies = seat.receive(hs)
    assert [r["type"] for r in replies] == ["commit"]
    # the seed, then the commitment itself, are written while nothing has been sent
    assert store.events == [("seed", 0), ("statement commit", 0)]
    seed = t._seed_for(hs["hand_id"], 0)
    assert replies[0]["commitment"] == commitment(hs["hand_id"], 0, seed)
    seed_file = next((tmp_path / "id").rglob(f"{hs['hand_id'].hex()}.seed"))
    assert seed_file.read_bytes() == seed + signing.entry_hash(hs) and mode(seed_file) == 0o600
    # a restarted peer (a new store on the same directory) finds the seed and the statement
    again = FileSeatStore(tmp_path / "id")
    assert again.hand_seed(hs["hand_id"]) == (seed, signing.entry_hash(hs))
    assert again.statement(hs["hand_id"], 0) == replies[0]
    # …and sends that very statement again, never another
    seat2 = SeatClient(0, t.identities[0], t.controllers[0], store=again,
                       seed_source=lambda h, s: b"\x01" * 32,   # a fresh draw is not used
                       host_key=signing.public_key_bytes(t.host_key))
    assert seat2.receive(hs) == replies
    # a different hand_start for the same hand id cannot take the seed
    with pytest.raises(StoreError):
        again.save_seed(hs["hand_id"], b"\x02" * 32, b"\x03" * 32)


def test_spent_mark_is_written_before_the_reveal_leaves(tmp_path: Path) -> None:
    t = InProcessTable(SelfplayConfig(game="briscola", players=2, hands=1, seed=6))
    store = WatchedStore(tmp_path / "id")
    seat = SeatClient(1, t.identities[1], t.controllers[1], seed_source=t._seed_for,
                      store=store, host_key=signing.public_key_bytes(t.host_key))
    store.seat = seat
    t.seats[1] = seat
    record = t.play_hand()
    hs = record.transcript.entries[0]
    assert record.outcome.kind == "scored"
    i = next(i for i, (what, _) in enumerate(store.events) if what == "spent")
    assert store.events[i + 1] == ("statement reveal", store.events[i][1])
    assert store.is_spent(hs["hand_id"])
    spent = next((tmp_path / "id").rglob(f"{hs['hand_id'].hex()}.spent"))
    assert mode(spent) == 0o600
    assert FileSeatStore(tmp_path / "id").is_spent(hs["hand_id"])
    # the hand as this seat saw it is kept for its own audit, with every seat's sign-off
    # (its own, and those the host's hand_end carries: AUDIT-1)
    kept = Transcript.load(str(next((tmp_path / "id").rglob("hand-001.p2pb"))))
    assert kept.entries == record.transcript.entries
    assert kept.hand_end == record.transcript.hand_end
    assert kept.sign_offs == record.transcript.sign_offs


def test_one_statement_per_seq(tmp_path: Path) -> None:
    store = FileSeatStore(tmp_path / "id")
    store.use_match(b"\x11" * 16)
    hand = b"\x22" * 16
    a = {"type": "commit", "hand_id": hand, "seat": 0, "seq": 0, "prev_hash": b"\0" * 32,
         "commitment": b"\1" * 32, "x25519": b"\2" * 32, "sig": b"\3" * 64}
    b = {**a, "commitment": b"\4" * 32}
    store.save_statement(a)
    store.save_statement(dict(a))                  # the same statement again: fine
    with pytest.raises(StoreError):
        store.save_statement(b)                    # another statement for seq 0: never
    nxt = {**a, "type": "shuffle", "seq": 1}
    store.save_statement(nxt)
    assert store.statements(hand) == [a, nxt]
    fresh = FileSeatStore(tmp_path / "id")          # after a restart, the same refusal
    assert fresh.statement(hand, 1) == nxt and fresh.statement(hand, 2) is None
    with pytest.raises(StoreError):
        fresh.save_statement(b)
    log = next((tmp_path / "id").rglob(f"{hand.hex()}.log"))
    assert mode(log) == 0o600


def test_a_damaged_statement_log_is_kept_and_said_never_cut(tmp_path: Path) -> None:
    """Damage inside a seat's own signed statements (not a torn tail) is refused, naming the
    file, and the file stays byte for byte: cutting it would forget statements already sent,
    and the seat could then sign another one at the same seq."""
    store = FileSeatStore(tmp_path / "id")
    store.use_match(b"\x11" * 16)
    hand = b"\x22" * 16
    a = {"type": "commit", "hand_id": hand, "seat": 0, "seq": 0, "prev_hash": b"\0" * 32,
         "commitment": b"\1" * 32, "x25519": b"\2" * 32, "sig": b"\3" * 64}
    for seq in range(3):
        store.save_statement({**a, "seq": seq})
    log = next((tmp_path / "id").rglob(f"{hand.hex()}.log"))
    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 0xFF                    # inside the second record
    log.write_bytes(bytes(data))
    fresh = FileSeatStore(tmp_path / "id")
    with pytest.raises(StoreError, match=str(log)):
        fresh.statements(hand)
    with pytest.raises(StoreError, match="damaged"):
        fresh.save_statement({**a, "seq": 3})
    assert log.read_bytes() == bytes(data)


def test_match_record_round_trip_and_private_modes(tmp_path: Path) -> None:
    root = tmp_path / "identities" / "alice"
    store = FileSeatStore(root)
    match = b"\x33" * 16
    assert store.match_record(match) is None
    record = {"current": {"hand_no": 2, "hs_hash": b"\x44" * 32,
                          "state": {"match": {"totals": [1, 2]}, "voids": 0}},
              "closed": {"hand_no": 1, "result_hash": b"\x55" * 32, "state": {"voids": 1}}}
    store.save_match_record(match, record)
    assert FileSeatStore(root).match_record(match) == record
    store.save_seed(b"\x66" * 16, b"\x77" * 32, b"\x88" * 32)
    store.mark_spent(b"\x66" * 16)
    store.save_statement({"type": "reveal", "hand_id": b"\x66" * 16, "seat": 0, "seq": 0,
                          "prev_hash": b"\0" * 32, "seed": b"\x77" * 32, "sig": b"\0" * 64})
    store.save_seat({"host": "127.0.0.1:7000", "table": "t1", "seat": 0})
    assert store.seat() == {"host": "127.0.0.1:7000", "table": "t1", "seat": 0}
    store.save_record(match, "hand-001.p2pb", b"transcript")
    with pytest.raises(StoreError):
        store.save_record(match, "../escape", b"x")
    for p in [root, *root.rglob("*")]:
        if p.name == "hand-001.p2pb":
            assert mode(p) == 0o644            # a record others may read
        elif p.is_dir():
            assert mode(p) == 0o700, p
        else:
            assert mode(p) == 0o600, p
    assert leftovers(root) == []


def test_identity_key_is_private_and_a_planted_symlink_is_refused(tmp_path: Path) -> None:
    """Issue 10, item 6: the identity key file is 0600 in a 0700 directory, written through
    an exclusive temporary file; a symlink planted where it lives is never followed."""
    import os

    import pytest as _pytest

    from p2p_burraco.net.identity import load_or_create_identity

    home = tmp_path / "me"
    key = load_or_create_identity(home)
    assert os.stat(home / "identity.ed25519").st_mode & 0o777 == 0o600
    assert os.stat(home).st_mode & 0o777 == 0o700
    assert load_or_create_identity(home).public_key().public_bytes_raw() == \
        key.public_key().public_bytes_raw()
    secret = tmp_path / "elsewhere"
    secret.write_bytes(b"x" * 32)
    trap = tmp_path / "trap"
    trap.mkdir()
    (trap / "identity.ed25519").symlink_to(secret)
    with _pytest.raises(ValueError, match="cannot read the identity key"):
        load_or_create_identity(trap)
