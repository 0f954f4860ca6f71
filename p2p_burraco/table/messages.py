"""Every table-level message, and the stable codes of table-level refusals.

This module is the registry of record for the table layer: `p2p_burraco.wire` builds its
validation and protocol/schema from `MESSAGES`, `SENDERS`, `DOCS`, `SIGNED` and
`ERROR_CODES` below, and PROTOCOL.md (fair-deal section) describes the same list.

A table message is a msgpack-safe dict `{"type": name, **fields}`: no floats, `bytes` for
points, keys, hashes and signatures. On the wire the net layer sends it as a frame
`{type, seq, body}` with `body` = the fields (everything but `type`).

Who authors what — every statement is signed by its author
---------------------------------------------------------
- *Seat statements* (commit, shuffle, lock, release, sealed, action, alarm, abandon, reveal,
  sign_off) are signed with the seat's Ed25519 identity key and carry `hand_id, seat, seq,
  prev_hash, sig`: `seq` counts every statement the seat signed in the hand from 0 (a
  refused one too: it is never reused), `prev_hash` is the hash of its previous statement
  (of the `hand_start` entry for seq 0). The host relays each accepted one VERBATIM to every
  seat (sender "both": a peer sends them, the host relays them).
- *Host statements* (hand_start, refusal, timeout, hand_void, hand_end) are signed with the
  host's identity key, named in `hand_start.host_key`, and carry `at` and `head` (the log
  index they take, the log hash before them) — except hand_end, which closes the log and
  names its hash. A false host statement is the host's signed lie: evidence against it.
- Refusals of a table message are `refusal` statements; those of a statement validly placed
  in its seat's chain are log entries (relayed to everyone), the others go to the sender
  only (`logged` false). A message outside any hand gets the transport's plain `error`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PROTOCOL_ID = "p2p-burraco/fairdeal/v3"
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
    return {"fields": {"hand_id": "bytes16", "at": "uint", "head": "bytes32", **fields,
                       **SIG_FIELD}, "signed_by": "host", "sender": "host", "doc": doc}


TABLE_MESSAGES: dict[str, dict[str, Any]] = {
    # ------------------------------------------------------------------ host statements
    "hand_start": _host_msg(
        "A new hand: entry 0 of its log (at 0, head = the empty log's hash). Its id is derived "
        "from the match, the hand number, the host key and every seat key; it carries the "
        "rule set, the dealer, the deck, the names and keys at the table, the match state "
        "before the hand (a constant-size snapshot every peer compares with its own fold of "
        "the signed results) and the hash of the previous hand's signed result, so hands "
        "chain without carrying the history.",
        match_id="bytes16", hand_no="uint", game="str", variant="str", n_seats="uint",
        names="list[str]", first_dealer="seat", dealer="seat", deck="str", n_cards="uint",
        seat_keys="list[bytes32]", host_key="bytes32", options="map", state="map",
        prev_result="bytes32", clock="map", protocol="str"),
    "refusal": _host_msg(
        "The host refuses a seat's table message: the code (a table.* code), what was "
        "wrong, the rule id for an illegal action, and the refused message itself. When the "
        "message was validly signed at its place in its seat's chain the refusal is a log "
        "entry (`logged`, relayed to every seat) and the seat's next statement chains after "
        "the refused one; otherwise only the sender gets it. Anyone can judge a refusal: a "
        "false one is evidence against the host.",
        seat="seat", code="str", message="str", rule="opt[str]", msg="map", logged="bool"),
    "timeout": _host_msg(
        "A seat's time ran out: `kind` is turn (its move clock), match_clock (its time for "
        "the whole match), step (a protocol step it owed while connected) or grace (it stayed "
        "away past the grace period). `count` is its consecutive turn timeouts. What follows "
        "is a table rule (seeds/table.md); the statement must name a seat that owed "
        "something at that point of the log.",
        seat="seat", kind="str", count="uint", detail="str"),
    "hand_void": _host_msg(
        "The hand stops without a result anyone can be held to (a failed check, an alarm, "
        "a failed reveal): every seat reveals its seed so the audit can name who deviated.",
        reason="str", seat="opt[seat]", detail="str"),
    "hand_end": {"fields": {"hand_id": "bytes16", "transcript_hash": "bytes32",
                            "result_hash": "bytes32", "result": "map", "outcome": "map",
                            "verdict": "map", "state": "map", "match_over": "bool",
                            "sign_offs": "list[map]", **SIG_FIELD},
                 "signed_by": "host", "sender": "host",
                 "doc": "The hand is over and audited (not a log entry: it names the log's "
                        "hash): the score, the outcome (scored, void, forfeit, abandon), the "
                        "verdict, the match state after it, and the result hash every seat "
                        "signs in its sign_off; and every seat's sign_off the host holds, so "
                        "each seat's own record of the hand proves it alone."},
    # ------------------------------------------------------------------ seat-authored
    "commit": _seat_msg(
        "The seat's commitment to its secret seed, and its seed-derived X25519 key "
        "(sealed partner envelopes; a low-order key is refused). The host relays the set "
        "once it holds all of them.",
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
        "The seat found something it can prove wrong: a point that is not a valid group "
        "element, a decoded point that is no card, a relayed statement the rules refuse, or a "
        "host statement that is false (a refusal of a sound statement, a timeout of a seat "
        "that owed nothing). `ref` is the log entry it blames. Stops the hand; the audit "
        "judges it (a false alarm is the alarmist's fault). `evidence` carries the host's "
        "signed statement the alarm disputes, so the audit judges it even when the host's "
        "own record holds another entry at that place (then the host signed two).",
        what="str", positions="list[uint]", ref="opt[uint]", detail="str",
        evidence="opt[map]"),
    "abandon": _seat_msg("The seat abandons the match (abbandona): its side loses it.",
                         reason="str"),
    "reveal": _seat_msg("The seat's seed, at the end of the hand (or of a stopped hand).",
                        seed="bytes32"),
    "sign_off": _seat_msg("The seat's signature over the transcript hash it computed and the "
                          "hash of the hand result it computed itself.",
                          transcript_hash="bytes32", result_hash="bytes32"),
    "resync": {"fields": {"hand_id": "opt[bytes16]"}, "signed_by": None, "sender": "peer",
               "doc": "A reconnected peer asks for the current hand's log again (the host "
                      "answers with every entry, in order; the peer skips those it has). "
                      "A hand id not in memory is taken for the last closed hand: its "
                      "record on disk goes first, if it names that hand."},
    "clock": {"fields": {"seat": "opt[seat]", "kind": "str", "ms": "opt[uint]",
                         "match_ms": "list[uint]", "warn_ms": "uint"},
              "signed_by": None, "sender": "host",
              "doc": "The clocks, for display: `seat` is the seat whose clock runs (`kind` "
                     "turn or step, `ms` left; nil: none runs), `match_ms` every seat's match "
                     "clock left (empty when off), `warn_ms` when to warn. Not evidence: a "
                     "timeout is only ever a signed `timeout` statement."},
}
"""name → {fields: {field: type string (wire.TYPE_GRAMMAR)}, signed_by, sender, doc}."""

MESSAGES: dict[str, dict[str, str]] = {n: m["fields"] for n, m in TABLE_MESSAGES.items()}
SENDERS: dict[str, str] = {n: m["sender"] for n, m in TABLE_MESSAGES.items()}
DOCS: dict[str, str] = {n: m["doc"] for n, m in TABLE_MESSAGES.items()}
HOST_SIGNED_TEXT = ("the host's Ed25519 identity key (hand_start.host_key) over "
                    "b'p2p-burraco/msg/v1\\x00' || canonical msgpack of the message without "
                    "`sig`")
SIGNED: dict[str, str] = {n: SIGNED_TEXT if m["signed_by"] == "seat" else HOST_SIGNED_TEXT
                          for n, m in TABLE_MESSAGES.items() if m["signed_by"]}
SEAT_AUTHORED: frozenset[str] = frozenset(n for n, m in TABLE_MESSAGES.items()
                                          if m["signed_by"] == "seat")
HOST_AUTHORED: frozenset[str] = frozenset(n for n, m in TABLE_MESSAGES.items()
                                          if m["signed_by"] == "host")
LOG_HOST_TYPES: frozenset[str] = frozenset(("hand_start", "refusal", "timeout", "hand_void"))

ERROR_CODES: dict[str, str] = {
    "table.no_hand": "no hand is in progress at this table",
    "table.wrong_hand": "hand_id is not the hand in progress",
    "table.wrong_phase": "this message is not expected in the hand's current phase",
    "table.wrong_seat": "the message names a seat other than the sender's",
    "table.not_your_turn": "it is another seat's turn (or another seat's pass)",
    "table.bad_signature": "the signature does not verify with the seat's identity key",
    "table.replayed_seq": "seq is below the next one expected from this seat (a replay)",
    "table.seq_gap": "seq skips ahead of the next one expected from this seat",
    "table.bad_key": "a commitment whose X25519 key is low-order (stops the hand)",
    "table.not_due": "nothing of this kind is due from this seat now",
    "table.bad_chain": "prev_hash is not the hash of the seat's previous accepted message",
    "table.bad_message": "fields that disagree with each other (list lengths, values)",
    "table.bad_deck": "a pass with the wrong number of points, or the same point twice",
    "table.bad_input": "a pass built on a deck other than the current one",
    "table.bad_proof": "a face-up card whose check K·P[card] == L[pos] fails (stops the hand)",
    "table.unknown_position": "a position outside the deck, or not hidden in the sender's hand",
    "table.not_entitled": "a key released for an audience the public state does not name "
                          "(stops the hand)",
    "table.duplicate_key": "a key already released for that position",
    "table.bad_action": "an action the engine cannot read, or proofs that do not match "
                        "the cards it shows",
    "table.illegal_action": "the rules forbid the action (`rule` names the rule id)",
    "table.match_over": "the match is over",
    "table.stopped": "the hand has stopped (void, timeout or abandon): only seeds are taken",
}
"""Stable codes of table-level refusals (the transport's `error` message carries them)."""

VOIDING_CODES: frozenset[str] = frozenset({
    "table.bad_deck", "table.bad_proof", "table.not_entitled", "table.bad_key",
})
"""Refusals of a validly signed message that prove a deviation: the hand stops and the
seat's side forfeits (TABLE-7) — a revealed seed that does not match its commitment is not
refused but logged, and convicts the same way in the audit; a sign-off over another history
is kept as a dispute, not refused."""


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
