"""Count the cryptography a bench process does, by wrapping the library calls in place.

`install()` must run before any `p2p_burraco.fairdeal` module is imported: `fairdeal.group`
binds libsodium's functions by name at import time, so the wrapper has to be in
`nacl.bindings` first. What is counted (cumulative, per process):

- `mult`: ed25519 noclamp scalar multiplications (the card cipher: passes, decoding, audit);
- `verify`: Ed25519 signature checks (`crypto_sign_open`, every statement checked);
- `sign`: statements signed (`fairdeal.signing.sign`);
- `x25519`: X25519 key agreements (one per sealed envelope made or opened).

A bench multiplies each count by the cost of one bare call, timed in its own process, to
get the floor: the CPU a node cannot avoid for the cryptography the protocol asks of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

COUNTS: dict[str, int] = {"mult": 0, "verify": 0, "sign": 0, "x25519": 0}
KINDS: tuple[str, ...] = tuple(COUNTS)
_installed = [False]


def _counted(kind: str, inner: Callable[..., Any]) -> Callable[..., Any]:
    def call(*a: Any, **kw: Any) -> Any:
        COUNTS[kind] += 1
        return inner(*a, **kw)
    call.__wrapped__ = inner  # type: ignore[attr-defined]  # functools' convention, set on a plain function
    return call


def install() -> None:
    """Wrap the calls (idempotent). Raises RuntimeError when `fairdeal.group` is already
    imported: its multiplications would then go uncounted."""
    import sys

    if _installed[0]:
        return
    if "p2p_burraco.fairdeal.group" in sys.modules:
        raise RuntimeError("counting.install() must run before p2p_burraco.fairdeal loads")
    import nacl.bindings as nb

    nb.crypto_scalarmult_ed25519_noclamp = _counted("mult", nb.crypto_scalarmult_ed25519_noclamp)
    nb.crypto_sign_open = _counted("verify", nb.crypto_sign_open)
    from ..fairdeal import envelope, signing  # signing looks nacl.bindings up per call

    signing.sign = _counted("sign", signing.sign)
    envelope._key = _counted("x25519", envelope._key)
    _installed[0] = True


def line() -> str:
    """The cumulative counts as one stdout line a bench parses (`COUNT_LINE`)."""
    return (f"bench-count t={time.monotonic():.4f} cpu={time.process_time():.4f} "
            + " ".join(f"{k}={COUNTS[k]}" for k in KINDS))


COUNT_PATTERN = (r"^bench-count t=([\d.]+) cpu=([\d.]+) mult=(\d+) verify=(\d+) sign=(\d+) "
                 r"x25519=(\d+)")


def unit_costs(samples: int = 400) -> dict[str, float]:
    """Seconds of CPU one bare call of each kind costs here and now (the median of five
    runs of `samples` calls, process time): the unit of the floor."""
    import hashlib

    import nacl.bindings as nb
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    mult = getattr(nb.crypto_scalarmult_ed25519_noclamp, "__wrapped__",
                   nb.crypto_scalarmult_ed25519_noclamp)
    sign_open = getattr(nb.crypto_sign_open, "__wrapped__", nb.crypto_sign_open)
    point = nb.crypto_core_ed25519_from_uniform(hashlib.sha512(b"p").digest()[:32])
    scalar = nb.crypto_core_ed25519_scalar_reduce(hashlib.sha512(b"k").digest())
    key = Ed25519PrivateKey.generate()
    pub = key.public_key().public_bytes_raw()
    data = b"x" * 200
    sig = key.sign(data)
    xa, xb = X25519PrivateKey.generate(), X25519PrivateKey.generate().public_key()
    calls: dict[str, Callable[[], Any]] = {
        "mult": lambda: mult(scalar, point),
        "verify": lambda: sign_open(sig + data, pub),
        "sign": lambda: key.sign(data),
        "x25519": lambda: xa.exchange(xb),
    }
    out: dict[str, float] = {}
    for kind, f in calls.items():
        runs = []
        for _ in range(5):
            t = time.process_time()
            for _ in range(samples):
                f()
            runs.append((time.process_time() - t) / samples)
        out[kind] = sorted(runs)[2]
    return out
