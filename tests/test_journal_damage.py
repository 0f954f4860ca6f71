"""The journal's reader tells a torn tail (an incomplete *last* record: cut) from damage (a
bad record with whole ones after it, a whole last record with a wrong CRC: never cut), at
every byte of a small journal; `--salvage` keeps the damaged file and loses nothing when the
damage is before the last checkpoint."""

from __future__ import annotations

import random
from pathlib import Path

import msgpack
import pytest

from p2p_burraco.storage.files import AppendLog, LogDamaged, frame_record, scan_data
from p2p_burraco.storage.journal import (
    JOURNAL,
    JournalDamaged,
    load,
    salvage,
    survey,
)

EVENTS = [{"e": "match", "config": {"x": 1}}, {"e": "deal", "t": 1},
          {"e": "msg", "seat": 0, "msg": {"n": 1}}, {"e": "checkpoint", "hand_no": 1},
          {"e": "deal", "t": 2}, {"e": "checkpoint", "hand_no": 2}, {"e": "deal", "t": 3}]


def journal_bytes() -> tuple[bytes, list[int]]:
    out, offsets = b"", []
    for ev in EVENTS:
        offsets.append(len(out))
        out += frame_record(msgpack.packb(ev, use_bin_type=True))
    return out, offsets


def test_every_cut_of_the_last_record_is_a_torn_tail() -> None:
    data, offsets = journal_bytes()
    for cut in range(offsets[-1] + 1, len(data)):
        scan = scan_data(data[:cut])
        assert scan.damage is None and scan.good == offsets[-1], cut
        assert len(scan.records) == len(EVENTS) - 1


def test_every_flipped_byte_before_the_last_record_is_damage_at_its_record() -> None:
    data, offsets = journal_bytes()
    for at in range(offsets[-1]):
        bad = bytearray(data)
        bad[at] ^= 0x40
        scan = scan_data(bytes(bad))
        record = max(o for o in offsets if o <= at)
        assert scan.damage == record, (at, scan.damage, scan.reason)


def test_a_whole_last_record_with_a_wrong_crc_is_damage_not_a_tail() -> None:
    data, offsets = journal_bytes()
    bad = bytearray(data)
    bad[-1] ^= 0x01
    assert scan_data(bytes(bad)).damage == offsets[-1]


def test_a_damaged_journal_is_never_cut_and_salvage_keeps_it(tmp_path: Path) -> None:
    rng = random.Random(46)
    data, offsets = journal_bytes()
    at = rng.randrange(offsets[2] + 8, offsets[3])         # inside hand 1's message
    print(f"flipping byte {at}")
    bad = bytearray(data)
    bad[at] ^= 0xFF
    d = tmp_path / "m"
    d.mkdir()
    (d / JOURNAL).write_bytes(bytes(bad))
    with pytest.raises(JournalDamaged, match=f"damaged at byte {offsets[2]}"):
        load(d)
    with pytest.raises(LogDamaged):
        AppendLog.open(d / JOURNAL, strict=True)
    assert (d / JOURNAL).read_bytes() == bytes(bad)        # untouched
    (d / "hand-001.p2pb").write_bytes(b"one")
    (d / "hand-002.p2pb").write_bytes(b"two")
    found, problems = survey(tmp_path)
    assert not found and [p.offset for p in problems] == [offsets[2]]
    said = salvage(problems[0])
    assert "after hand 2" in said and "no event after it was lost" in said, said
    (aside,) = d.glob("journal.p2pj.damaged-*")
    assert aside.read_bytes() == bytes(bad)
    loaded = load(d)
    assert loaded is not None and loaded.checkpoint == EVENTS[5]
    assert loaded.events == [EVENTS[6]]
    assert sorted(p.name for p in d.glob("hand-*.p2pb")) == ["hand-001.p2pb", "hand-002.p2pb"]


def test_a_lost_journal_with_hand_records_is_reported(tmp_path: Path) -> None:
    d = tmp_path / "2026-01-01-ab"
    d.mkdir()
    (d / "hand-001.p2pb").write_bytes(b"x")
    found, problems = survey(tmp_path)
    assert not found and problems[0].kind == "missing" and str(d) in problems[0].message
    salvage(problems[0])
    assert (d / "set-aside.json").exists() and (d / "hand-001.p2pb").exists()
    assert survey(tmp_path) == ([], [])


def test_a_first_record_torn_as_it_was_written_is_no_match_yet(tmp_path: Path) -> None:
    """The host died (or its disk filled) while writing a new match's first record: nothing
    of that match ever left the host, so it is not a match; with hand records beside it, it
    would be reported."""
    data, offsets = journal_bytes()
    d = tmp_path / "m"
    d.mkdir()
    (d / JOURNAL).write_bytes(data[:offsets[1] - 3])
    assert load(d) is None and survey(tmp_path) == ([], [])
    (d / "hand-001.p2pb").write_bytes(b"x")
    with pytest.raises(JournalDamaged, match="damaged at byte 0"):
        load(d)
