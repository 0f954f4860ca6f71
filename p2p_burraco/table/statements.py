"""Signed statements about a closed hand, checked once for every reader.

A seat's `sign_off` is the one statement every reader of a hand's record has to weigh: the
seat checks each one the host's `hand_end` carries before it stores them in its own record,
the host journals them, and `verify` counts them. `sign_off_problem` says, once, what makes a
sign-off a statement of its seat about this hand; `merge_sign_offs` is the union of several
copies (the host's record, each seat's), each signature kept once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..fairdeal import signing


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def sign_off_problem(hs: Mapping[str, Any], so: Any) -> str | None:
    """Why `so` is not a sign-off its seat signed for the hand `hs` opens, or None."""
    if not isinstance(so, Mapping) or so.get("type") != "sign_off":
        return "not a sign_off"
    keys = hs.get("seat_keys")
    seat = so.get("seat")
    if not isinstance(keys, list) or not _is_int(seat) or not 0 <= seat < len(keys):
        return f"a sign-off naming seat {seat!r}, which the hand does not have"
    if so.get("hand_id") != hs.get("hand_id"):
        return f"seat {seat}'s sign-off is for another hand"
    key = keys[seat]
    try:
        ok = isinstance(key, bytes) and signing.verify(key, so)
    except (TypeError, ValueError, OverflowError, RecursionError):
        ok = False
    if not ok:
        return f"a sign-off claimed by seat {seat} does not verify with its key"
    return None


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
    out.sort(key=lambda so: (so.get("seat") if _is_int(so.get("seat")) else 1 << 30))
    return out


def carried_sign_offs(hand_end: Mapping[str, Any] | None) -> Sequence[Any]:
    """The sign-offs a host's hand_end carries (none for a record made before they were)."""
    if not isinstance(hand_end, Mapping):
        return []
    carried = hand_end.get("sign_offs")
    return carried if isinstance(carried, list) else []
