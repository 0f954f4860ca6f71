"""The network layer: the only code that imports Twisted.

- `framing.py`  — `FrameProtocol`: bytes ↔ validated frames, seq numbers, error frames.
- `host.py`     — `HostNode`: lobby, tables, seats, grace periods, relay, transcripts.
- `peer.py`     — `PeerNode`: handshake, lobby requests, drives a `SeatClient` for one seat.
- `identity.py` — the Ed25519 identity key kept in the data directory (no Twisted).
- `loopback.py` — reactor-free test kit: in-memory transports and a pump.

Importing this package imports no Twisted; the modules above do.
"""
