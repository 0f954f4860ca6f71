"""Every table-level message, and the stable codes of table-level refusals.

This module is the registry of record for the table layer: `p2p_burraco.wire` builds its
validation and protocol/schema from `MESSAGES`, `SENDERS`, `DOCS`, `SIGNED` and
`ERROR_CODES` below, and PROTOCOL.md (fair-deal section) describes the same list.

A table message is a msgpack-safe dict `{"type": name, **fields}`: no floats, `bytes` for
points, keys, hashes and signatures. On the wire the net layer sends it as a frame
`{type, seq, body}` with `body` = the fields (everything but `type`).

Who authors what
----------------
- *Seat-authored* messages (commit, shuffle, lock, release, sealed, action, alarm, reveal,
  sign_off) are signed with the seat's Ed25519 identity key and carry the chain fields
  `hand_id, seat, seq, prev_hash, sig`: `seq` counts that seat's accepted messages in the
  hand from 0, `prev_hash` is the hash of its previous accepted message (the hash of the
  `hand_start` entry for seq 0). The host relays each one VERBATIM to every seat once it is
  accepted (so their sender is "both": a peer sends them, the host relays them).
- *Host-authored* messages (hand_start, hand_void, hand_end) are not signed — the host holds
  no key that matters to the deal — but every seat binds `hand_start` into its chain and signs
  the transcript hash at the end, so a host that shows seats different histories is caught.
- Refusals travel in the transport's `error` message (`code`, `message`, `ref`, `fatal`,
  `rule`) with one of the `table.*` codes below; the table is left unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PROTOCOL_ID = "p2p-burraco/fairdeal/v1"
"""Named in every `hand_start`; a peer refuses a hand of a protocol it does not speak."""

CHAIN_FIELDS: dict[str, str] = {
    "hand_id": "bytes16",
    "seat": "seat",
    "seq": "uint",
    "prev_hash": "bytes32",
}
SIG_FIELD: dict[str, str] = {"sig": "bytes64"}

SIGNED_TEXT = ("the author seat's Ed25519 identity key over "
               "b'p2p-burraco/msg/v1\\x00' || canonical msgpack of the message without `sig` "
               "(map keys sorted, shortest encodings)")


def _seat_msg(doc: str, **fields: str) -> dict[str, Any]:
    return {"fields": {**CHAIN_FIELDS, **fields, **SIG_FIELD}, "signed_by": "seat",
            "sender": "both", "doc": doc}


def _host_msg(doc: str, **fields: str) -> dict[str, Any]:
    return {"fields": dict(fields), "signed_by": None, "sender": "host", "doc": doc}


TABLE_MESSAGES: dict[str, dict[str, Any]] = {
    # ------------------------------------------------------------------ host-authored
    "hand_start": _host_msg(
        "A new hand: its id, the rule set, the dealer, the deck and every seat's identity key, "
        "and what rebuilds the match before it (first dealer, options, the results of the "
        "hands so far) so that any peer or auditor replays the hand from this entry alone. "
        "Entry 0 of the hand's log; each seat's first message chains to its hash.",
        hand_id="bytes16", match_id="bytes16", hand_no="uint", game="str", variant="str",
        n_seats="uint", first_dealer="seat", dealer="seat", deck="str", n_cards="uint",
        seat_keys="list[bytes32]", options="map", history="list[map]", protocol="str"),
    "hand_void": _host_msg(
        "The hand stops (a failed check, an alarm, a seat lost past its grace): every seat "
        "reveals its seed so the audit can name who deviated; the hand scores zero. When a "
        "validly signed message was refused as proof of a deviation, `evidence` carries it "
        "verbatim ({code, msg}) so every auditor judges it.",
        hand_id="bytes16", reason="str", seat="opt[seat]", ref="opt[uint]", detail="str",
        evidence="opt[map]"),
    "hand_end": _host_msg(
        "The hand is over and audited: score, verdict, the transcript hash each seat signs, "
        "the match standings after this hand.",
        hand_id="bytes16", result="map", verdict="map", transcript_hash="bytes32",
        standings="map", match_over="bool"),
    # ------------------------------------------------------------------ seat-authored
    "commit": _seat_msg(
        "The seat's commitment to its secret seed, and its seed-derived X25519 key "
        "(sealed partner envelopes). The host relays the set once it holds all of them.",
        commitment="bytes32", x25519="bytes32"),
    "shuffle": _seat_msg(
        "A shuffle pass: D'[j] = k_i · D[pi_i(j)] over the deck named by input_hash.",
        input_hash="bytes32", deck="list[bytes32]"),
    "lock": _seat_msg(
        "A lock pass: L'[j] = (k_ij · k_i^-1) · L[j] over the deck named by input_hash.",
        input_hash="bytes32", deck="list[bytes32]"),
    "release": _seat_msg(
        "Lock keys the public state entitles someone to: key of positions[i] for the "
        "audience to[i] (sorted seats; every seat = a public reveal). Broadcast.",
        positions="list[uint]", to="list[list[seat]]", keys="list[bytes32]"),
    "sealed": _seat_msg(
        "Own lock keys of `positions` for one partner (Briscola carte scoperte), encrypted "
        "with X25519 + ChaCha20-Poly1305 so only `to` (and an auditor, after the seeds) can "
        "read them.", to="seat", positions="list[uint]", box="bytes"),
    "action": _seat_msg(
        "A game action (the engine's wire form) with a proof for each hidden card it turns "
        "face up: positions[i] holds cards[i], and keys[i] are the lock keys of that "
        "position not yet public, in seat order (the author's own, and a partner's it "
        "received sealed), so anyone checks K·P[card] == L[pos].",
        action="map", positions="list[uint]", cards="list[uint]", keys="list[list[bytes32]]"),
    "alarm": _seat_msg(
        "The seat found a point that is not a valid group element, or a decoded point that "
        "is no card / a card already held. `ref` is the log entry it blames. Voids the hand.",
        what="str", positions="list[uint]", ref="opt[uint]", detail="str"),
    "reveal": _seat_msg("The seat's seed, at the end of the hand (or of a void hand).",
                        seed="bytes32"),
    "sign_off": _seat_msg("The seat's signature over the transcript hash it computed.",
                          transcript_hash="bytes32"),
    "resync": {"fields": {"hand_id": "opt[bytes16]"}, "signed_by": None, "sender": "peer",
               "doc": "A reconnected peer asks for the current hand's log again (the host "
                      "answers with every entry, in order; the peer skips those it has)."},
}
"""name → {fields: {field: type string (wire.TYPE_GRAMMAR)}, signed_by, sender, doc}."""

MESSAGES: dict[str, dict[str, str]] = {n: m["fields"] for n, m in TABLE_MESSAGES.items()}
SENDERS: dict[str, str] = {n: m["sender"] for n, m in TABLE_MESSAGES.items()}
DOCS: dict[str, str] = {n: m["doc"] for n, m in TABLE_MESSAGES.items()}
SIGNED: dict[str, str] = {n: SIGNED_TEXT for n, m in TABLE_MESSAGES.items()
                          if m["signed_by"] == "seat"}
SEAT_AUTHORED: frozenset[str] = frozenset(n for n, m in TABLE_MESSAGES.items()
                                          if m["signed_by"] == "seat")
HOST_AUTHORED: frozenset[str] = frozenset(("hand_start", "hand_void", "hand_end"))

ERROR_CODES: dict[str, str] = {
    "table.no_hand": "no hand is in progress at this table",
    "table.wrong_hand": "hand_id is not the hand in progress",
    "table.wrong_phase": "this message is not expected in the hand's current phase",
    "table.wrong_seat": "the message names a seat other than the sender's",
    "table.not_your_turn": "it is another seat's turn (or another seat's pass)",
    "table.bad_signature": "the signature does not verify with the seat's identity key",
    "table.replayed_seq": "seq is not the next one expected from this seat",
    "table.bad_chain": "prev_hash is not the hash of the seat's previous accepted message",
    "table.bad_message": "fields that disagree with each other (list lengths, values)",
    "table.bad_deck": "a pass with the wrong number of points, or the same point twice",
    "table.bad_input": "a pass built on a deck other than the current one",
    "table.bad_proof": "a face-up card whose check K·P[card] == L[pos] fails (voids the hand)",
    "table.unknown_position": "a position outside the deck, or not hidden in the sender's hand",
    "table.not_entitled": "a key released for an audience the public state does not name "
                          "(voids the hand)",
    "table.duplicate_key": "a key already released for that position",
    "table.bad_action": "an action the engine cannot read, or proofs that do not match "
                        "the cards it shows",
    "table.illegal_action": "the rules forbid the action (`rule` names the rule id)",
    "table.bad_commitment": "the revealed seed does not match the seat's commitment",
    "table.bad_transcript_hash": "the signed transcript hash differs from the host's",
    "table.match_over": "the match is over",
}
"""Stable codes of table-level refusals (the transport's `error` message carries them)."""

VOIDING_CODES: frozenset[str] = frozenset({
    "table.bad_deck", "table.bad_proof", "table.not_entitled",
})
"""Refusals of a validly signed message that prove a deviation: the hand is void."""


def error(code: str, message: str, rule: str | None = None) -> dict[str, Any]:
    """A table-level refusal in the transport's `error` shape (ref is the net layer's)."""
    if code not in ERROR_CODES:
        raise ValueError(f"unknown table error code {code!r}")
    return {"type": "error", "code": code, "message": message, "ref": None, "fatal": False,
            "rule": rule}


def body_of(msg: Mapping[str, Any]) -> dict[str, Any]:
    """The frame body of a table message (every field but `type`)."""
    return {k: v for k, v in msg.items() if k != "type"}


def from_body(mtype: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Inverse of body_of: the table message a frame of `mtype` carries."""
    return {"type": mtype, **body}
