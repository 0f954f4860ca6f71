"""The one chain check: a `hand_start` against the hand before it (PROTOCOL § 8.6, § 8.12).

Each `hand_start` names its hand id (derived from the match id, the hand number and every
key), the previous hand's result hash and the match state it deals from. Whether those hold
is decided here, once, for everyone: the seat runs it live on every hand_start it receives
(`first_fault`: it stops at the first and halts, TABLE-10), the auditor of a whole match
offline on every link (`chain_faults`: it collects them all). The structure and the
signature of a hand_start are `fairdeal.deal.hand_start_problem`'s; the seat's own memory
(a hand it is still playing, a seed it already spent) stays the seat's.

A `hand_start` is host-signed: every fault here is the host's signed word against the
previous hand's close and the fold of the signed results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..fairdeal.local import NO_RESULT, hand_id_for
from .matchstate import MatchState, MatchStateError


@dataclass(frozen=True)
class Before:
    """What the checker knows of the hand before: its number, the result hash it closed
    with (None: unknown) and the match after it — the checker's own fold (`state`), else
    the host's signed word for it (`stated`), else nothing."""

    hand_no: int
    result_hash: bytes | None
    state: Mapping[str, Any] | None
    stated: Mapping[str, Any] | None = None
    over: bool = False


@dataclass(frozen=True)
class ChainFault:
    """One link that does not hold: `what` is the audit's code (CHAIN_FAULTS)."""

    what: str
    detail: str


BINDING = ("game", "variant", "n_seats", "first_dealer", "options", "clock")
"""The hand_start fields a match keeps from its first hand to its last (its rules)."""


@dataclass(frozen=True)
class Binding:
    """What binds every hand of a match: the host's key and the rules, as the first
    hand_start the checker knows stated them."""

    host_key: Any
    rules: Mapping[str, Any]

    @classmethod
    def of(cls, hs: Mapping[str, Any]) -> Binding:
        return cls(hs.get("host_key"), {k: hs.get(k) for k in BINDING})

    def to_record(self) -> dict[str, Any]:
        return {"host_key": self.host_key, "rules": dict(self.rules)}

    @classmethod
    def from_record(cls, value: Any) -> Binding | None:
        if not isinstance(value, Mapping) or not isinstance(value.get("rules"), Mapping):
            return None
        return cls(value.get("host_key"), dict(value["rules"]))


FIRST = "first"
"""`before` for the match's first hand: no previous result, a fresh match."""


def same_state(a: Any, b: Any) -> bool:
    """Two match states agree on everything a peer recomputes (the host's clock aside)."""
    return MatchState.comparable(a if isinstance(a, Mapping) else {}) == \
        MatchState.comparable(b if isinstance(b, Mapping) else {})


def state_diff(stated: Mapping[str, Any], folded: Mapping[str, Any]) -> str:
    """The first few fields where a stated match state and a folded one differ."""
    s, f = MatchState.comparable(stated), MatchState.comparable(folded)
    out = []
    for k in sorted(set(s) | set(f)):
        if k == "match" and isinstance(s.get(k), Mapping) and isinstance(f.get(k), Mapping):
            for kk in sorted(set(s[k]) | set(f[k])):
                if s[k].get(kk) != f[k].get(kk):
                    out.append(f"{kk}: stated {s[k].get(kk)!r}, folded {f[k].get(kk)!r}")
        elif s.get(k) != f.get(k):
            out.append(f"{k}: stated {s.get(k)!r}, folded {f.get(k)!r}")
    return "; ".join(out[:4]) or "they differ"


def chain_faults(hs: Mapping[str, Any], before: Before | str | None,
                 binding: Binding | None = None,
                 stop_at_first: bool = False) -> list[ChainFault]:
    """Every link of `hs` to the hand before that does not hold. `before`: a `Before`;
    `FIRST` for the match's first hand; None when the hand before is not known (only the
    hand id is checked then). `binding`: the match's host key and rules as an earlier
    hand_start stated them (`other_host` is another host's hand; `rules_changed`)."""
    out: list[ChainFault] = []

    def add(what: str, detail: str) -> bool:
        out.append(ChainFault(what, detail))
        return stop_at_first

    if binding is not None:
        if hs.get("host_key") != binding.host_key and add(
                "other_host", "this hand is signed by another host key than the match's "
                              "first hand"):
            return out
        changed = [k for k in BINDING if hs.get(k) != binding.rules.get(k)]
        if changed and add("rules_changed", "the match's rules changed mid-match "
                                            f"({', '.join(changed)})"):
            return out

    try:
        hand_no = hs["hand_no"]
        want = hand_id_for(bytes(hs["match_id"]), int(hand_no), bytes(hs["host_key"]),
                           [bytes(k) for k in hs["seat_keys"]])
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        add("bad_hand_id", f"the hand id cannot be derived ({exc})")
        return out
    if hs.get("hand_id") != want and add(
            "bad_hand_id", "the hand id is not the one the match id, the hand number and the "
                           "keys derive (§8.2)"):
        return out
    raw_state = hs.get("state")
    stated: Mapping[str, Any] = raw_state if isinstance(raw_state, Mapping) else {}
    if before == FIRST:
        if hand_no != 0 and add("not_fresh", f"hand {hand_no + 1} is not the match's first"):
            return out
        if hs.get("prev_result") != NO_RESULT and add(
                "wrong_prev_result", "the first hand of the match names a previous result"):
            return out
        try:
            fresh = MatchState.of_hand_start({**hs, "state": {}}).snapshot()
        except MatchStateError as exc:
            add("not_fresh", f"the match cannot be rebuilt: {exc}")
            return out
        if not same_state(stated, fresh):
            add("not_fresh", "the first hand does not start from a fresh match: "
                + state_diff(stated, fresh))
        return out
    if not isinstance(before, Before):
        return out
    if hand_no <= before.hand_no:
        add("dealt_twice", f"hand {hand_no + 1} was already played and closed (a replayed "
                           "hand)")
        return out
    if hand_no != before.hand_no + 1 and add(
            "skipped", f"hand {hand_no + 1} skips hands after {before.hand_no + 1}"):
        return out
    if before.over and add("after_match_end", "a hand dealt after the match ended"):
        return out
    if before.result_hash is not None and hs.get("prev_result") != before.result_hash and add(
            "wrong_prev_result", f"the previous hand's result is not the result hash hand "
                                 f"{before.hand_no + 1} closed with"):
        return out
    if before.state is not None:
        if not same_state(stated, before.state):
            add("wrong_state", "the match state it deals from is not the fold of the hands "
                "before it: " + state_diff(stated, before.state))
    elif before.stated is not None and not same_state(stated, before.stated):
        add("wrong_state", f"the match state is not the one hand {before.hand_no + 1}'s "
                           "hand_end stated")
    return out


def first_fault(hs: Mapping[str, Any], before: Before | str | None,
                binding: Binding | None = None) -> ChainFault | None:
    """The live check: the first link that does not hold, or None."""
    found = chain_faults(hs, before, binding, stop_at_first=True)
    return found[0] if found else None


def dealing_fault(hs: Mapping[str, Any], hand: Any) -> ChainFault | None:
    """The hand_start against the hand the match deals next (`MatchState.new_hand`): the
    dealer the rotation gives, and the deck the rules deal. Part of the chain check; run
    where the hand is built (`replica.build_hand`), live and offline alike."""
    if hand.dealer != hs.get("dealer"):
        return ChainFault("wrong_dealer", f"hand_start names dealer {hs.get('dealer')}, the "
                                          f"match says {hand.dealer}")
    if len(hand.deck) != hs.get("n_cards") or hand.deck.kind.value != hs.get("deck"):
        return ChainFault("wrong_deck", f"hand_start names a {hs.get('n_cards')}-card "
                                        f"{hs.get('deck')} deck, the rules deal "
                                        f"{len(hand.deck)} cards ({hand.deck.kind.value})")
    return None
