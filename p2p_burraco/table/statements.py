"""Typed statements about a closed hand, parsed once and checked once for every reader.

A body the wire layer validated is still a `Mapping[str, Any]`; a table statement the trust
layer weighs is parsed here once into a frozen, typed value that does every structural
check and keeps its raw form (for hashing and signing: the signature is over the raw map,
the way h11 keeps its events' bytes). `SignOff` is a seat's word on a hand's log and result;
`HandEnd` the host's close, carrying every seat's sign-off it holds (AUDIT-1). The seat
checks each sign-off a hand_end carries before it stores them, the auditor counts them, the
merge of several copies unites them — all through `SignOff.problem`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeGuard

from ..fairdeal import signing
from ..fairdeal.deal import HandStartProblem, hand_start_problem


class StatementError(ValueError):
    """A statement whose fields are not what its type needs (the message names the field)."""


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _bytes(raw: Mapping[str, Any], name: str, size: int) -> bytes:
    v = raw.get(name)
    if not isinstance(v, bytes) or len(v) != size:
        raise StatementError(f"{raw.get('type')}: {name} is not {size} bytes")
    return v


def _uint(raw: Mapping[str, Any], name: str) -> int:
    v = raw.get(name)
    if not _is_int(v) or v < 0:
        raise StatementError(f"{raw.get('type')}: {name} is not a non-negative integer")
    return int(v)


@dataclass(frozen=True)
class HandStart:
    """The host's `hand_start`, parsed once: `fairdeal.deal.hand_start_problem` (the one
    check of its structure, place and signature), then the fields the chain check and the
    seat read, typed. `signed`: the problem, if any, is under the host's valid signature."""

    raw: Mapping[str, Any]
    hand_id: bytes
    match_id: bytes
    hand_no: int
    n_seats: int
    seat_keys: tuple[bytes, ...]
    host_key: bytes
    names: tuple[str, ...]
    prev_result: bytes
    protocol: str

    @classmethod
    def parse(cls, raw: Any, *, verify_signature: bool = True) -> HandStart:
        problem = hand_start_problem(raw, verify_signature=verify_signature) \
            if isinstance(raw, Mapping) else HandStartProblem("not a hand_start", False)
        if problem is not None:
            raise HandStartError(problem.why, problem.signed)
        names = raw["names"]        # their shape, like every field's, is the one check's
        protocol = raw.get("protocol")
        return cls(MappingProxyType(dict(raw)), raw["hand_id"], _bytes(raw, "match_id", 16),
                   _uint(raw, "hand_no"), int(raw["n_seats"]),
                   tuple(bytes(k) for k in raw["seat_keys"]), bytes(raw["host_key"]),
                   tuple(names), _bytes(raw, "prev_result", 32),
                   protocol if isinstance(protocol, str) else "")


class HandStartError(StatementError):
    """A hand_start that cannot open a hand; `signed`: the host signed it (its fault)."""

    def __init__(self, why: str, signed: bool) -> None:
        super().__init__(why)
        self.signed = signed


@dataclass(frozen=True)
class SignOff:
    """A seat's `sign_off`: the log hash and the result hash it computed for a hand."""

    raw: Mapping[str, Any]
    hand_id: bytes
    seat: int
    seq: int
    transcript_hash: bytes
    result_hash: bytes

    @classmethod
    def parse(cls, raw: Any) -> SignOff:
        if not isinstance(raw, Mapping) or raw.get("type") != "sign_off":
            raise StatementError("not a sign_off")
        _bytes(raw, "sig", 64)
        _bytes(raw, "prev_hash", 32)
        return cls(MappingProxyType(dict(raw)), _bytes(raw, "hand_id", 16),
                   _uint(raw, "seat"), _uint(raw, "seq"), _bytes(raw, "transcript_hash", 32),
                   _bytes(raw, "result_hash", 32))

    def problem(self, hs: Mapping[str, Any]) -> str | None:
        """Why this is not a statement its seat signed about the hand `hs` opens, or None."""
        keys = hs.get("seat_keys")
        if not isinstance(keys, list) or not 0 <= self.seat < len(keys):
            return f"a sign-off naming seat {self.seat}, which the hand does not have"
        if self.hand_id != hs.get("hand_id"):
            return f"seat {self.seat}'s sign-off is for another hand"
        key = keys[self.seat]
        if not isinstance(key, bytes) or not signing.verify(key, self.raw):
            return f"a sign-off claimed by seat {self.seat} does not verify with its key"
        return None

    @property
    def entry_hash(self) -> bytes:
        return signing.entry_hash(self.raw)


@dataclass(frozen=True)
class HandEnd:
    """The host's `hand_end`: the log hash and result it closed the hand on, and the
    sign-offs it carries (raw: each is parsed and checked on its own)."""

    raw: Mapping[str, Any]
    hand_id: bytes
    transcript_hash: bytes
    result_hash: bytes
    match_over: bool
    sign_offs: tuple[Any, ...]

    @classmethod
    def parse(cls, raw: Any) -> HandEnd:
        if not isinstance(raw, Mapping) or raw.get("type") != "hand_end":
            raise StatementError("not a hand_end")
        _bytes(raw, "sig", 64)
        over = raw.get("match_over")
        if not isinstance(over, bool):
            raise StatementError("hand_end: match_over is not a bool")
        carried = raw.get("sign_offs", [])      # a record made before hand_end carried them
        if not isinstance(carried, list):
            raise StatementError("hand_end: sign_offs is not a list")
        return cls(MappingProxyType(dict(raw)), _bytes(raw, "hand_id", 16),
                   _bytes(raw, "transcript_hash", 32), _bytes(raw, "result_hash", 32), over,
                   tuple(carried))

    def signed_by(self, host_key: Any) -> bool:
        return isinstance(host_key, bytes) and len(host_key) == 32 \
            and signing.verify(host_key, self.raw)


def sign_off_problem(hs: Mapping[str, Any], so: Any) -> str | None:
    """Why `so` is not a sign-off its seat signed for the hand `hs` opens, or None."""
    try:
        return SignOff.parse(so).problem(hs)
    except StatementError as exc:
        return f"a malformed sign-off ({exc})"
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        return f"a sign-off no key can have signed ({type(exc).__name__})"


def merge_sign_offs(*copies: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every distinct sign-off of several copies of one hand, in seat order (a statement
    present in several copies is kept once: the union of the signatures)."""
    seen: set[bytes] = set()
    out: list[dict[str, Any]] = []
    for copy in copies:
        for so in copy:
            try:
                h = signing.entry_hash(so)
            except (TypeError, ValueError, OverflowError, RecursionError):
                h = repr(sorted(map(repr, dict(so).items()))).encode()
            if h in seen:
                continue
            seen.add(h)
            out.append(dict(so))
    def seat_of(so: Mapping[str, Any]) -> int:
        seat = so.get("seat")
        return seat if _is_int(seat) else 1 << 30
    out.sort(key=seat_of)
    return out


def carried_sign_offs(hand_end: Mapping[str, Any] | None) -> Sequence[Any]:
    """The sign-offs a host's hand_end carries (none for a record made before they were,
    or for one that is no hand_end)."""
    try:
        return HandEnd.parse(hand_end).sign_offs if hand_end is not None else ()
    except StatementError:
        return ()
