"""A node's long-lived Ed25519 identity, kept in its data directory.

Why: a player is known to the table by a public key, not by a name anyone could type; the
same key lets a dropped peer take its seat back, and signs what the player says.
No Twisted here.
"""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import UsageError

IDENTITY_FILE = "identity.ed25519"


def default_data_dir() -> Path:
    """The user's data directory for p2p-burraco (platformdirs), e.g. ~/.local/share/…"""
    import platformdirs

    return Path(platformdirs.user_data_dir("p2p-burraco", appauthor=False))


def load_or_create_identity(data_dir: Path | str) -> Ed25519PrivateKey:
    """The identity key in `data_dir` (32 raw bytes, mode 0600, in a 0700 directory),
    created on first use. Written through a fresh O_EXCL temporary file, fsync'd and
    renamed, never following a symlink (`storage.files`)."""
    from ..storage.files import ensure_dir, read_private, write_private

    path = Path(data_dir) / IDENTITY_FILE
    if path.exists() or path.is_symlink():
        try:
            raw = read_private(path)
        except OSError as exc:
            raise UsageError(f"{path}: cannot read the identity key ({exc.strerror})") from None
        if len(raw) != 32:
            raise UsageError(f"{path}: an identity file holds exactly 32 bytes, not {len(raw)}")
        return Ed25519PrivateKey.from_private_bytes(raw)
    ensure_dir(path.parent, private=True)
    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                            serialization.NoEncryption())
    write_private(path, raw)
    return key


def public_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32-byte raw public key (what goes on the wire)."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_from_seed(seed: bytes) -> Ed25519PrivateKey:
    """A deterministic identity (test vectors, seeded runs): the seed IS the private key."""
    if len(seed) != 32:
        raise ValueError("an Ed25519 seed is 32 bytes")
    return Ed25519PrivateKey.from_private_bytes(seed)


def verify(public: bytes, signature: bytes, message: bytes) -> bool:
    """True if `signature` is `public`'s over `message` (never raises on bad input)."""
    from cryptography.exceptions import InvalidSignature

    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def fingerprint(public: bytes) -> str:
    """A short printable id of a key (first 8 hex digits of its SHA-256)."""
    import hashlib

    return hashlib.sha256(public).hexdigest()[:8]
