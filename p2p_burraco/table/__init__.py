"""The sans-IO table layer: joins the game engines to the fair-deal protocol.

- `messages.py`  — registry of every table-level message and refusal code (wire reads it).
- `host.py`      — `HostTable`: the host's side of one table; holds no secret.
- `seat.py`      — `SeatClient`: one seat's peer logic (its seed, keys, replica, controller).
- `replica.py`   — building a hand's replica from its `hand_start`, shared by host, seats, audit.
- `audit.py`     — the whole audit of a recorded hand (crypto + game replay).
- `inprocess.py` — `run_fair_selfplay`: a host and one peer per seat in one process.
- `events.py`    — what a seat's controller is told (`SeatController.notify`): typed values.

No Twisted, no prompt-toolkit: the network layer feeds messages in and sends what comes out.
"""
