"""How often a process that plays hands runs Python's cyclic garbage collector.

A host keeps every table's state alive (hands, logs, the engine's memo) and makes and drops
many small containers per event (decoded frames, copies of a hand); a peer, a bot that
searches, `selfplay` and the benches do the same with their replicas and the copies they
try moves on. With CPython's default
thresholds (700, 10, 10) the collector then runs hundreds of times a minute, and each older
generation it walks holds every table: measured under `p2p-burraco bench host --tables 100`,
about a tenth of the host's CPU went to it. Nearly all of that work finds nothing, since a
frame's garbage is freed by reference counting the moment it is handled.

So such a process (1) freezes what exists once it is set up (modules, the protocol tables: never
garbage, never walked again) and (2) lets the youngest generation fill up to `YOUNG` objects
before a collection. Cycles are still collected (a closed connection's protocol and transport
point at each other), only in larger batches: the memory they hold waits for at most one
young collection.

Measured with `bench host --tables 100` (120 s, quiet machine): CPython's 700 spent 6.7 % of
the host's CPU in the collector; 10 000 spends 1.4 % (host CPU per hand 96.8 → 87.4 ms, RSS
growth per hand 7.3 → 8.1 KB); 50 000 spends nothing measurable but holds more garbage
between collections (9.6 KB a hand) for no further CPU gain.

The engine shows the same (`bench engine`, 60 hands, 2 cores at load ~2.4, three runs each):
without the policy 236–252 hands/s and `legal_actions` 19.0–20.5 µs a call; with it 262–266
hands/s and 17.1–17.8 µs. The time saved is the collector's: ~12 500 objects made at import
(modules, classes, the rule tables) are no longer walked by every older-generation pass, and
the first full pass — 10–12 ms, which lands inside some listing — no longer comes within the
run. Where it is applied: `net.host.start_host`, `net.peer.connect_peer`, the `selfplay`
command, `bench engine` and `bench bots` (before it forks its workers, so they share the frozen
pages).
"""

from __future__ import annotations

import gc

YOUNG = 10_000
"""Allocations (net of deallocations) before a young-generation collection (CPython: 700)."""
MIDDLE = 20
"""Young collections before a middle-generation one (CPython: 10)."""
OLD = 10
"""Middle collections before the oldest generation is considered (CPython: 10)."""

_applied = False


def apply_gc_policy() -> None:
    """Set the collector thresholds and freeze what exists now (once per process: call it
    once the process is set up, its modules imported)."""
    global _applied
    if _applied:
        return
    _applied = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, OLD)
