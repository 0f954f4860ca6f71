"""Pure rules engines (no I/O, no randomness, no Twisted) and the registry of games.

`get_game(name)` imports a game package lazily; each game package exposes `SPEC: GameSpec`.
"""

from __future__ import annotations

import importlib

from .base import GameSpec

GAME_NAMES: tuple[str, ...] = ("burraco", "briscola")


def get_game(name: str) -> GameSpec:
    """The GameSpec of a game by name; ValueError naming the choices otherwise."""
    if name not in GAME_NAMES:
        raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(GAME_NAMES)}")
    module = importlib.import_module(f"{__name__}.{name}")
    spec: GameSpec = module.SPEC
    return spec
