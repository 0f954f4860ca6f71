"""The audit: re-derive a whole hand from its revealed seeds and name whoever deviated.

`audit(transcript)` checks, in this order: every signature and every seat's chain; every
commitment against its revealed seed (a seat that never revealed is named); every shuffle and
lock pass, recomputed from its SIGNED recorded input and its author's seed (the first
mismatch names the author, the signed message is the proof); every released key, every
sealed envelope and every face-up proof against the seeds; every alarm (a false alarm names
the alarmist); every incident (a signed message the host refused); and, for a whole
transcript, that the log is the one the seats signed at the end.

A fault is (seat, what, where, detail, party). `party` says who the evidence convicts:
"seat" (`seat` names it: its own signed statement proves the deviation), "host" (a statement
signed by the host's key is false), or "record" (something no key signed: the file was
altered, or entries were cut — whoever wrote it). `where` is the log index of the message
that proves it (None when the proof is an absence).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from . import signing
from .deal import HOST_TYPES, SEAT_TYPES, HandStartProblem, hand_start_problem, x25519_key_error
from .derive import SEED_BYTES, SeatSecrets, commitment
from .envelope import EnvelopeError, open_box
from .group import BadPoint, card_points, invalid_points, is_valid_point, mul_each, scalar_product
from .passes import claim_holds, deck_hash, deck_shape_error, lock_pass, shuffle_pass
from .transcript import Transcript, TranscriptError, log_hash

PARTIES = ("seat", "host", "record")


@dataclass(frozen=True)
class Fault:
    """One deviation: who, what, and which message proves it (see the module docstring)."""

    seat: int | None
    what: str
    where: int | None
    detail: str = ""
    party: str = ""

    def __post_init__(self) -> None:
        if not self.party:
            object.__setattr__(self, "party", "seat" if self.seat is not None else "record")
        if self.party not in PARTIES:
            raise ValueError(f"no party {self.party!r}")

    def to_wire(self) -> list[Any]:
        return [self.seat, self.what, self.where, self.detail, self.party]

    @classmethod
    def from_wire(cls, v: Sequence[Any]) -> Fault:
        party = str(v[4]) if len(v) > 4 and v[4] in PARTIES else ""
        return cls(v[0], str(v[1]), v[2], str(v[3]) if len(v) > 3 else "", party)

    def who(self) -> str:
        if self.party == "seat":
            return f"seat {self.seat}"
        if self.party == "host":
            return "the host"
        return "the record (no key signed this: altered or cut by whoever wrote it)"

    def __str__(self) -> str:
        at = f" at message {self.where}" if self.where is not None else ""
        return f"{self.who()}: {self.what}{at}" + (f" — {self.detail}" if self.detail else "")


@dataclass
class Verdict:
    """'fair', or the list of faults. `deal[pos]` is the card at each position when the
    seeds let the auditor re-derive it (None otherwise); `notes` are remarks, not faults."""

    faults: list[Fault] = field(default_factory=list)
    deal: list[int] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def fair(self) -> bool:
        return not self.faults

    def culprits(self) -> set[int | None]:
        return {f.seat for f in self.faults}

    def to_wire(self) -> dict[str, Any]:
        return {"fair": self.fair, "faults": [f.to_wire() for f in self.faults]}

    @classmethod
    def from_wire(cls, v: Mapping[str, Any]) -> Verdict:
        return cls([Fault.from_wire(f) for f in v.get("faults", [])])

    def __str__(self) -> str:
        if self.fair:
            return "fair"
        return "; ".join(str(f) for f in self.faults)


# --------------------------------------------------------------------------- the log walk

@dataclass
class _Log:
    """What the walk over the entries collected (only messages whose signature verifies)."""

    hand_id: bytes
    n_seats: int
    n_cards: int
    deck_id: str
    keys: list[bytes]
    host_key: bytes
    commits: dict[int, tuple[int, bytes, bytes]] = field(default_factory=dict)
    passes: list[tuple[int, int, str, Mapping[str, Any]]] = field(default_factory=list)
    releases: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)
    sealed: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)
    actions: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)
    alarms: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)
    reveals: dict[int, tuple[int, bytes]] = field(default_factory=dict)
    voids: list[int] = field(default_factory=list)
    incidents: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    abandons: list[tuple[int, int]] = field(default_factory=list)


def _walk(entries: Sequence[Mapping[str, Any]], faults: list[Fault],
          hashes: Sequence[bytes] | None = None) -> _Log | None:
    """Every entry's signature, hand, chain and place, and what each proves. `hashes`: the
    entry hashes of a log whose every signature its holder verified as it arrived (a live
    replica's own log): the walk then trusts those and recomputes neither."""
    hs = entries[0] if entries else {}
    problem = hand_start_problem(hs) if isinstance(hs, Mapping) else \
        HandStartProblem("entry 0 is not a hand_start", False)
    if problem is not None:     # a field the host signed is its word; else the record's
        faults.append(Fault(None, "bad_hand_start", 0, problem.why,
                            party="host" if problem.signed else "record"))
        return None
    log = _Log(hs["hand_id"], hs["n_seats"], hs["n_cards"], hs["deck"],
               [bytes(k) for k in hs["seat_keys"]], bytes(hs["host_key"]))
    start = hashes[0] if hashes is not None else signing.entry_hash(hs)
    head = signing.chain_step(signing.chain_start(), start)
    chains = _SeatChains(log, faults, start, live=hashes is not None)
    for i in range(1, len(entries)):
        e = entries[i]
        t = e.get("type")
        eh = hashes[i] if hashes is not None else signing.entry_hash(e)
        if t in HOST_TYPES:
            _host_statement(log, chains, i, e, str(t), head, faults)
            head = signing.chain_step(head, eh)
            continue
        head = signing.chain_step(head, eh)
        if t not in SEAT_TYPES or t == "sign_off":
            faults.append(Fault(None, "unexpected_entry", i, f"a {t!r} entry in the log"))
            continue
        seat = chains.seat_of(i, e, str(t), eh)
        if seat is None:
            continue
        try:
            _collect(log, i, seat, t, e, faults)
        except (KeyError, TypeError, ValueError) as exc:
            faults.append(Fault(seat, "malformed", i, f"{t}: {exc}"))
    if any(f.party == "record" for f in faults):
        # entries were altered, cut or moved: a host statement no longer sitting at the place
        # it names proves nothing against the host
        faults[:] = [Fault(f.seat, f.what, f.where, f.detail, "record")
                     if f.what == "host_history" else f for f in faults]
    return log


class _SeatChains:
    """Each seat's own chain of statements (`seq`, `prev_hash`) as the walk meets them, so
    a seat statement is its author's proven word only when its signature, hand and place
    hold. `live`: the signatures were verified as the log grew (a replica's)."""

    def __init__(self, log: _Log, faults: list[Fault], start: bytes, live: bool) -> None:
        self.log, self.faults, self.live = log, faults, live
        self.chains = [(0, start) for _ in range(log.n_seats)]

    def verified(self, key: bytes, e: Mapping[str, Any]) -> bool:
        return self.live or signing.verify(key, e)

    def seat_of(self, i: int, e: Mapping[str, Any], t: str,
                eh: bytes | None = None) -> int | None:
        """The seat of a seat statement whose signature holds (its chain is checked and
        moved on); None, with a fault, when it is nobody's proven word."""
        log, faults = self.log, self.faults
        seat = e.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < log.n_seats:
            faults.append(Fault(None, "unexpected_entry", i, f"no seat {seat!r}"))
            return None
        if not self.verified(log.keys[seat], e):
            faults.append(Fault(None, "bad_signature", i,
                                f"a {t} claimed by seat {seat} does not verify with its key"))
            return None
        if e.get("hand_id") != log.hand_id:
            faults.append(Fault(None, "wrong_hand", i, f"seat {seat}'s {t} is from another hand"))
            return None
        seq, last = self.chains[seat]
        if e.get("seq") != seq or e.get("prev_hash") != last:
            faults.append(Fault(None, "broken_chain", i,
                                f"seat {seat}'s messages are missing or reordered before "
                                f"this one (seq {e.get('seq')!r}, expected {seq})"))
        got = e.get("seq")
        self.chains[seat] = ((got if isinstance(got, int) else seq) + 1,
                             eh if eh is not None else signing.entry_hash(e))
        return seat


def _host_statement(log: _Log, chains: _SeatChains, i: int, e: Mapping[str, Any], t: str,
                    head: bytes, faults: list[Fault]) -> None:
    """A host statement: signed by the host for this hand and for exactly this place in the
    log (`at`, `head`: else it was signed for another history), and what it records — a
    void, a timeout, or a refused seat message kept as an incident (itself a seat
    statement, checked against its author's chain)."""
    if t == "hand_start" or not chains.verified(log.host_key, e) \
            or e.get("hand_id") != log.hand_id:
        faults.append(Fault(None, "bad_signature", i,
                            f"a {t} the host's key did not sign for this hand"))
        return
    if e.get("at") != i or e.get("head") != head:
        faults.append(Fault(None, "host_history", i,
                            f"the host signed this {t} for another history "
                            f"(at {e.get('at')!r})", party="host"))
    if t == "hand_void":
        log.voids.append(i)
    elif t == "timeout":
        log.timeouts.append(i)
    elif t == "refusal":
        inner = e.get("msg")
        seat = chains.seat_of(i, inner, str(inner.get("type"))) \
            if isinstance(inner, Mapping) else None
        if seat is not None and isinstance(inner, Mapping):
            log.refusals.append((i, seat, inner))
            log.incidents.append({"code": e.get("code"), "at": i, "msg": inner})


def _collect(log: _Log, i: int, seat: int, t: str, e: Mapping[str, Any],
             faults: list[Fault]) -> None:
    if t == "commit":
        if seat in log.commits:
            faults.append(Fault(seat, "second_commit", i, "committed twice"))
        else:
            log.commits[seat] = (i, bytes(e["commitment"]), bytes(e["x25519"]))
    elif t in ("shuffle", "lock"):
        log.passes.append((i, seat, t, e))
    elif t == "release":
        log.releases.append((i, seat, e))
    elif t == "sealed":
        log.sealed.append((i, seat, e))
    elif t == "action":
        log.actions.append((i, seat, e))
    elif t == "alarm":
        log.alarms.append((i, seat, e))
    elif t == "abandon":
        log.abandons.append((i, seat))
    elif t == "reveal" and seat not in log.reveals:
        log.reveals[seat] = (i, bytes(e["seed"]))


# --------------------------------------------------------------------------- the audit

_AUDITS: dict[tuple[bytes, bool, bool, bool, bool], Verdict] = {}
_AUDITS_MAX = 64


def audit_log(entries: Sequence[Mapping[str, Any]], judge_alarms: bool = True,
              passes: bool = True, key: bytes | None = None,
              hashes: Sequence[bytes] | None = None, compose: bool = False) -> Verdict:
    """Audit a hand's log — what the host and every peer run at the end of a hand.
    `judge_alarms=False` leaves the alarms to a caller that finds more faults first (the
    table audit: an alarm may be about a rule, not a key). `passes=False` is the host's
    quick settlement of a plain hand: it derives the deal from the seeds and checks the
    commitments, the log and the face-up claims, but recomputes neither the shuffle and lock
    passes nor the keys (released, sealed, shown) — most of the cost, and exactly what every
    seat's own full audit checks before it signs the result off. The host keeps the quick
    result only when every seat signs it; otherwise it runs the full audit before it signs
    the hand's end (`table.host.HostTable`).

    The verdict is a pure function of the log, so it is kept by the log's hash: where the
    host and several seats share a process (`play`, `host --bots`, the benches) one hand is
    audited once, not once per node. The caller gets its own copy. `key`: the log's hash
    when the caller keeps it already (a replica's `head`). `hashes`: the entry hashes of a
    log the caller verified entry by entry as it grew (a live replica's): signatures and
    hashes are then not recomputed (see `_walk`). `compose=True` (a seat's own audit before
    it signs off, PROTOCOL § 9): the passes are first checked all at once — the final locked
    deck against the one the seeds derive from the card points, one multiplication a card
    (`_final_deck_deal`) — and recomputed pass by pass, to name who deviated, only when that
    fails; `verify` (and so the history) always goes pass by pass."""
    cache_key = (key if key is not None else log_hash(entries), judge_alarms, passes,
                 hashes is not None, compose)
    kept = _AUDITS.get(cache_key)
    if kept is None:
        kept = _audit_log(entries, judge_alarms, passes, hashes, compose)
        if len(_AUDITS) >= _AUDITS_MAX:
            _AUDITS.clear()
        _AUDITS[cache_key] = kept
    return Verdict(list(kept.faults), list(kept.deal) if kept.deal is not None else None,
                   list(kept.notes))


def _final_deck_deal(log: _Log, secrets: Mapping[int, SeatSecrets], points: Sequence[bytes]
                     ) -> tuple[list[int], list[bytes]] | None:
    """The deal and the final locked deck when the recorded passes, taken together, are
    exactly what the revealed seeds derive; None when anything differs (the caller then
    recomputes pass by pass to name the author).

    Why this holds: a shuffle pass gives D'[j] = k_i·D[π_i(j)] and a lock pass
    L'[j] = (k_ij·k_i⁻¹)·L[j], so after every seat's two passes L[j] = (∏_i k_ij)·P[deal[j]]:
    one multiplication a card checks the deck the cards are drawn from, against 2·S a card
    pass by pass. Each pass must still name the deck before it (`input_hash`) and have the
    shape of a deck. What it does not check is an intermediate deck that only colluding
    seats, one after another, worked on (an honest seat's pass on a wrong deck makes the
    final deck wrong): the deal is the seeds' either way, and `verify` names them."""
    n, s_count = log.n_cards, log.n_seats
    if len(log.passes) != 2 * s_count or len(secrets) != s_count:
        return None
    prev: Sequence[bytes] = points
    for k, (_, seat, kind, e) in enumerate(log.passes):
        deck = e.get("deck")
        if seat != k % s_count or kind != ("shuffle" if k < s_count else "lock") \
                or e.get("input_hash") != deck_hash(prev) or deck_shape_error(deck, n) \
                or not isinstance(deck, list):
            return None
        prev = deck
    order = _seed_order(secrets, s_count, n)
    locks = [secrets[seat].lock_keys for seat in range(s_count)]
    try:
        expected = mul_each([scalar_product(ks[j] for ks in locks) for j in range(n)],
                            [points[c] for c in order])
    except BadPoint:          # pragma: no cover - ∏ k_ij is never 0 (each key is in 1..ℓ-1)
        return None
    return (order, list(prev)) if expected == list(prev) else None


def _audit_log(entries: Sequence[Mapping[str, Any]], judge_alarms: bool,
               passes: bool, hashes: Sequence[bytes] | None = None,
               compose: bool = False) -> Verdict:
    """`audit_log` uncached: the walk, then each kind of statement against the seeds, in
    the order the module docstring gives (a later check uses what an earlier one derived:
    the seeds, the deal, the keys made public)."""
    faults: list[Fault] = []
    log = _walk(entries, faults, hashes)
    if log is None:
        return Verdict(faults)
    # entries lost, altered or reordered: what the log lacks is then no seat's proven word
    cut = any(f.party == "record" for f in faults)
    points = card_points(log.deck_id, log.n_cards)
    secrets = _seat_secrets(log, entries, cut, faults)
    deal, locked = _check_passes(log, secrets, points, passes, compose, faults)
    known = secrets if passes else {}       # quick: keys are the seats' audit
    _check_releases(log, known, faults)
    if passes:
        _check_sealed(log, secrets, faults)
    published = _check_proofs(log, known, deal, cut, faults)
    # incidents: signed messages the host refused as proof of a deviation
    for inc in log.incidents:
        faults.extend(_judge_incident(inc, log, secrets, deal, locked, published, points))
    if judge_alarms:
        faults.extend(judge_alarms_of(entries, faults))
    return Verdict(faults, deal)


def _seat_secrets(log: _Log, entries: Sequence[Mapping[str, Any]], cut: bool,
                  faults: list[Fault]) -> dict[int, SeatSecrets]:
    """Each revealed seed against its commitment: the secrets of the seats whose seed holds
    (every later check derives from them). A seed missing with no timeout to explain it is
    a hand closed too early; a reveal without a commit is the seat's, unless the record is
    cut (its commit may be the entry the record lost)."""
    secrets: dict[int, SeatSecrets] = {}
    timed_out = {entries[i].get("seat") for i in log.timeouts}   # a timeout of another
    for seat in range(log.n_seats):                              # seat explains nothing
        if seat not in log.reveals:
            if seat in log.commits and seat not in timed_out:
                faults.append(Fault(None, "no_reveal", None,
                                    f"seat {seat}'s seed is missing and no timeout says why: "
                                    "the hand was closed without it"))
            continue
        idx, seed = log.reveals[seat]
        committed = log.commits.get(seat)
        if committed is None:
            if not cut:
                faults.append(Fault(seat, "no_commit", idx, "revealed a seed it never committed"))
            continue
        if len(seed) != SEED_BYTES or commitment(log.hand_id, seat, seed) != committed[1]:
            faults.append(Fault(seat, "bad_commitment", idx,
                                "the revealed seed does not match its commitment"))
            continue
        sec = SeatSecrets(seed, log.hand_id, seat, log.n_cards)
        if sec.x25519_public != committed[2]:
            faults.append(Fault(seat, "bad_x25519", committed[0],
                                "the committed X25519 key is not the one its seed derives"))
        secrets[seat] = sec
    return secrets


def _seed_order(secrets: Mapping[int, SeatSecrets], n_seats: int, n_cards: int) -> list[int]:
    """The deal the seeds derive: every seat's permutation applied in seat order (card at
    each deck position)."""
    order = list(range(n_cards))
    for seat in range(n_seats):
        perm = secrets[seat].permutation
        order = [order[perm[j]] for j in range(n_cards)]
    return order


def _check_passes(log: _Log, secrets: Mapping[int, SeatSecrets], points: Sequence[bytes],
                  passes: bool, compose: bool, faults: list[Fault]
                  ) -> tuple[list[int] | None, list[bytes] | None]:
    """Every shuffle and lock pass, each recomputed from its signed recorded input (or, for
    a seat's own audit, all at once first: `_final_deck_deal`): the deal (None unless every
    pass holds and every seed is known) and the final locked deck (None: passes missing)."""
    n, s_count = log.n_cards, log.n_seats
    prev: list[bytes] = list(points)
    passes_ok = True
    composed = _final_deck_deal(log, secrets, points) if passes and compose else None
    for k, (idx, seat, kind, e) in enumerate(log.passes if composed is None else ()):
        want_kind = "shuffle" if k < s_count else "lock"
        if k >= 2 * s_count or seat != k % s_count or kind != want_kind:
            faults.append(Fault(None, "out_of_order", idx,
                                f"a {kind} pass by seat {seat} where the protocol has none"))
            passes_ok = False
            continue
        deck = e.get("deck")
        if e.get("input_hash") != deck_hash(prev):
            faults.append(Fault(None, "fed_other_deck", idx,
                                f"seat {seat}'s {kind} pass was built on a deck the record "
                                "does not hold"))
            passes_ok = False
        elif seat in secrets and not passes:
            pass
        elif seat in secrets:
            passes_ok = _check_pass(idx, seat, kind, deck, secrets[seat], prev, faults) \
                and passes_ok
        else:
            passes_ok = False
        if isinstance(deck, list) and len(deck) == n:
            prev = deck
    complete = len(log.passes) == 2 * s_count
    if composed is not None:
        return composed[0], composed[1]
    locked = prev if complete else None
    if complete and passes_ok and len(secrets) == s_count:
        return _seed_order(secrets, s_count, n), locked
    return None, locked


def _check_pass(idx: int, seat: int, kind: str, deck: Any, sec: SeatSecrets,
                prev: list[bytes], faults: list[Fault]) -> bool:
    """One pass against what its author's seed makes of its input; a mismatch is named by
    the most specific thing wrong with it (a repeated point, a malformed deck, a point off
    the group, else how many points differ). False: the deal cannot be trusted from it."""
    shape = deck_shape_error(deck, len(prev))
    expected: list[bytes] | None
    try:
        expected = (shuffle_pass if kind == "shuffle" else lock_pass)(sec, prev)
    except BadPoint:
        return False        # the previous author's fault, named already
    if deck == expected:
        return True
    bad = invalid_points(deck) if isinstance(deck, list) and not shape else []
    if shape and "same point" in shape:
        faults.append(Fault(seat, "duplicate_point", idx, shape))
    elif shape:
        faults.append(Fault(seat, f"wrong_{kind}", idx, shape))
    elif bad:
        faults.append(Fault(seat, "bad_point", idx,
                            f"{kind} output at positions {bad[:6]} is no valid group element"))
    else:
        assert isinstance(deck, list)
        diff = [j for j in range(len(prev)) if deck[j] != expected[j]]
        faults.append(Fault(seat, f"wrong_{kind}", idx,
                            f"{len(diff)} of {len(prev)} points differ from what its seed "
                            f"derives (first at position {diff[0]})"))
    return False


def _key_ok(known: Mapping[int, SeatSecrets], seat: int, pos: int, key: Any) -> bool | None:
    """Whether `key` is seat's lock key for `pos`; None when its seed is not known (or the
    audit is the host's quick one, `known` empty): nothing can be said."""
    sec = known.get(seat)
    return None if sec is None else key == sec.lock_key(pos)


def _check_releases(log: _Log, known: Mapping[int, SeatSecrets], faults: list[Fault]) -> None:
    """Every released key against the lock key its author's seed derives."""
    for idx, seat, e in log.releases:
        wrong = [p for p, k in zip(e["positions"], e["keys"])
                 if _key_ok(known, seat, p, k) is False]
        if wrong:
            faults.append(Fault(seat, "wrong_key", idx,
                                f"released keys for positions {wrong[:6]} are not its lock keys"))


def _check_sealed(log: _Log, secrets: Mapping[int, SeatSecrets], faults: list[Fault]) -> None:
    """Every sealed envelope opened with its sender's derived X25519 key: it must open, and
    hold the sender's lock keys for the positions it names."""
    for idx, seat, e in log.sealed:
        sender = secrets.get(seat)
        to = e["to"]
        if sender is None or to not in log.commits:
            continue
        try:
            keys = open_box(sender.x25519_private, log.commits[to][2], log.hand_id, seat, to,
                            e["seq"], e["positions"], e["box"])
        except EnvelopeError as exc:
            faults.append(Fault(seat, "bad_envelope", idx, str(exc)))
            continue
        wrong = [p for p, k in zip(e["positions"], keys) if k != sender.lock_key(p)]
        if wrong:
            faults.append(Fault(seat, "bad_envelope", idx,
                                f"the envelope to seat {to} holds wrong keys for {wrong[:6]}"))


def _check_proofs(log: _Log, known: Mapping[int, SeatSecrets], deal: list[int] | None,
                  cut: bool, faults: list[Fault]) -> dict[tuple[int, int], bytes]:
    """Every face-up proof: the keys of a proof belong to the seats whose key was not yet
    public, in seat order, so releases and actions are walked in log order to know which
    those were; each key against the derived one, each claimed card against the deal. The
    keys made public, by (position, seat), for the incidents to use."""
    published: dict[tuple[int, int], bytes] = {}
    events = sorted([(idx, "release", seat, e) for idx, seat, e in log.releases]
                    + [(idx, "action", seat, e) for idx, seat, e in log.actions],
                    key=lambda x: x[0])
    for idx, kind, seat, e in events:
        if kind == "release":
            for p, k in zip(e["positions"], e["keys"]):
                published[(p, seat)] = k
            continue
        for pos, card, ks in zip(e["positions"], e["cards"], e["keys"]):
            owners = [s for s in range(log.n_seats) if (pos, s) not in published]
            if not isinstance(ks, list) or len(ks) != len(owners):
                # the record lost a release (its keys would pair with the wrong seats), or
                # the proof itself is malformed
                if not cut:
                    faults.append(Fault(seat, "malformed", idx,
                                        f"the proof of position {pos} does not carry one key "
                                        f"per lock still hidden ({len(owners)})"))
                owners, ks = [], []
            for owner, key in zip(owners, ks):
                if _key_ok(known, owner, pos, key) is False:
                    who = "its" if owner == seat else f"seat {owner}'s"
                    faults.append(Fault(seat, "wrong_key", idx,
                                        f"the key shown as {who} lock of position {pos} "
                                        "is not the derived one"))
                published[(pos, owner)] = key
            if deal is not None and deal[pos] != card:
                faults.append(Fault(seat, "false_claim", idx,
                                    f"claimed card {card} at position {pos}, "
                                    f"which holds card {deal[pos]}"))
    return published


def judge_alarms_of(entries: Sequence[Mapping[str, Any]], faults: list[Fault]) -> list[Fault]:
    """Every alarm in the log, judged against the faults found (a false one names the
    alarmist): the alarms' own faults, to add."""
    out: list[Fault] = []
    for idx in range(1, len(entries)):
        e = entries[idx]
        seat = e.get("seat")
        if e.get("type") == "alarm" and isinstance(seat, int):
            out.extend(_judge_alarm(idx, seat, e, entries, faults + out))
    return out


def _judge_incident(inc: Mapping[str, Any], log: _Log, secrets: Mapping[int, SeatSecrets],
                    deal: list[int] | None, locked: list[bytes] | None,
                    published: Mapping[tuple[int, int], bytes],
                    points: Sequence[bytes]) -> list[Fault]:
    """Judge a host refusal whose code says the refused statement (validly signed, in its
    seat's chain) proves a cryptographic deviation: the seat if it does, the host if the
    statement was sound. Refusals on rules or entitlement are judged by the table audit."""
    msg, code, at = inc["msg"], inc.get("code"), inc.get("at")
    seat = int(msg["seat"])
    if code == "table.bad_deck":
        shape = deck_shape_error(msg.get("deck"), log.n_cards)
        if shape:
            what = "duplicate_point" if "same point" in shape else "bad_deck"
            return [Fault(seat, what, at, f"refused {msg.get('type')} pass: {shape}")]
        return [Fault(None, "false_refusal", at, "the host refused a well-formed pass",
                      party="host")]
    if code == "table.bad_key":
        problem = x25519_key_error(msg.get("x25519"))
        if problem:
            return [Fault(seat, "bad_key", at, f"refused commitment: {problem}")]
        return [Fault(None, "false_refusal", at, "the host refused a sound X25519 key",
                      party="host")]
    if code == "table.bad_proof":
        out: list[Fault] = []
        unsure = False
        for pos, card, ks in zip(msg.get("positions", []), msg.get("cards", []),
                                 msg.get("keys", [])):
            if not isinstance(pos, int) or not 0 <= pos < log.n_cards or not isinstance(ks, list):
                continue
            owners = [s for s in range(log.n_seats) if (pos, s) not in published]
            if len(ks) != len(owners):  # the judge counted them: the record lost a release
                unsure = True
                continue
            given = dict(zip(owners, ks))
            wrong = [o for o, k in given.items()
                     if o in secrets and k != secrets[o].lock_key(pos)]
            if wrong:
                out.append(Fault(seat, "wrong_key", at,
                                 f"refused action showed a false key of position {pos}"))
            elif deal is not None and deal[pos] != card:
                out.append(Fault(seat, "false_claim", at,
                                 f"refused action claimed card {card} at position {pos}, "
                                 f"which holds card {deal[pos]}"))
            elif deal is None and locked is not None and isinstance(card, int) \
                    and 0 <= card < log.n_cards:
                keys = [given.get(s, published.get((pos, s))) for s in range(log.n_seats)]
                if None not in keys and not claim_holds(locked[pos], keys,  # type: ignore[arg-type]  # None ruled out just before
                                                        points[card]):
                    out.append(Fault(seat, "false_claim", at,
                                     f"refused action's proof for position {pos} fails"))
        if out or deal is None or unsure:
            return out
        return [Fault(None, "false_refusal", at, "the host refused a face-up proof that holds",
                      party="host")]
    return []


def _equivocation(idx: int, e: Mapping[str, Any],
                  entries: Sequence[Mapping[str, Any]]) -> Fault | None:
    """An alarm's evidence — a statement the host's key signed for a place of this hand's
    log — that the record does not hold at that place: the host signed two entries for one
    place (it showed seats different histories). None when the record holds it there (the
    judge rules on it) or the evidence is not such a statement."""
    ev = e.get("evidence")
    hs = entries[0] if entries else {}
    host_key = hs.get("host_key")
    if not isinstance(ev, Mapping) or ev.get("type") not in HOST_TYPES \
            or ev.get("type") == "hand_start" or ev.get("hand_id") != hs.get("hand_id") \
            or not isinstance(host_key, bytes) or not signing.verify(host_key, ev):
        return None
    at = ev.get("at")
    if not isinstance(at, int) or at < 1:
        return None
    if at < len(entries) and signing.entry_hash(entries[at]) == signing.entry_hash(ev):
        return None
    return Fault(None, "equivocation", idx,
                 f"the host signed a {ev.get('type')} for place {at} of this hand that the "
                 "record does not hold there (the alarm carries it): it showed seats "
                 "different histories", party="host")


def _judge_alarm(idx: int, seat: int, e: Mapping[str, Any],
                 entries: Sequence[Mapping[str, Any]], faults: list[Fault]) -> list[Fault]:
    what, ref, positions = e.get("what"), e.get("ref"), e.get("positions", [])
    lie = _equivocation(idx, e, entries)
    if lie is not None:
        return [lie]
    if what == "bad_point" and isinstance(ref, int) and 0 < ref < len(entries):
        deck = entries[ref].get("deck")
        bad = [p for p in positions if isinstance(deck, list) and isinstance(p, int)
               and 0 <= p < len(deck) and not is_valid_point(deck[p])]
        if bad:
            culprit = entries[ref].get("seat")
            if not any(f.seat == culprit and f.where == ref for f in faults):
                return [Fault(culprit if isinstance(culprit, int) else None, "bad_point", ref,
                              f"positions {bad[:6]} hold no valid group element "
                              f"(alarm by seat {seat})")]
            return []
        return [Fault(seat, "false_alarm", idx, "the points it called invalid are valid")]
    others = [f for f in faults if f.seat != seat and f.what != "no_reveal"]
    if others:
        return []
    return [Fault(seat, "false_alarm", idx,
                  f"raised {what!r} but every pass and key checks out")]


def audit(transcript: Transcript) -> Verdict:
    """The whole audit of a recorded hand: the log, the incidents, and that the log is the
    history the seats signed at the end."""
    if not transcript.entries:
        raise TranscriptError("an empty transcript")
    verdict = audit_log(transcript.entries)
    hs = transcript.entries[0]
    if hand_start_problem(hs) is not None:
        return verdict
    computed = log_hash(transcript.entries)
    end = transcript.hand_end
    if end is None:
        verdict.faults.append(Fault(None, "incomplete", None, "the record has no hand_end"))
    elif end.get("transcript_hash") != computed:
        verdict.faults.append(Fault(None, "tampered", None,
                                    "the log is not the one the hand closed on (entries "
                                    "cut, added or changed)"))
    keys = [Ed25519PublicKey.from_public_bytes(k) for k in hs["seat_keys"]]
    matched: set[int] = set()
    disputed: list[int] = []
    for so in transcript.sign_offs:
        seat = so.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(keys) \
                or not signing.verify(keys[seat], so) or so.get("type") != "sign_off" \
                or so.get("hand_id") != hs["hand_id"]:
            verdict.faults.append(Fault(None, "bad_signature", None,
                                        f"a sign-off claimed by seat {seat!r} does not verify"))
            continue
        if so.get("transcript_hash") == computed:
            matched.add(seat)
        else:
            disputed.append(seat)
    if not matched:
        verdict.faults.append(Fault(None, "tampered" if disputed else "unsigned", None,
                                    "no seat signed this history" if not disputed else
                                    f"seats {sorted(disputed)} signed a different history"))
    else:
        for seat in disputed:
            verdict.faults.append(Fault(None, "history_differs", None,
                                        f"seat {seat} signed a different history"))
        missing = sorted(set(range(len(keys))) - matched - set(disputed))
        if missing:
            verdict.notes.append(f"no sign-off from seats {missing}")
    return verdict
