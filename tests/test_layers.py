"""Layer rule: the pure layers load neither Twisted nor prompt-toolkit (architecture.md)."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", [
    "p2p_burraco.games", "p2p_burraco.games.cards", "p2p_burraco.games.burraco",
    "p2p_burraco.games.briscola", "p2p_burraco.fairdeal", "p2p_burraco.wire",
])
def test_pure_layers_load_no_twisted_or_prompt_toolkit(module: str) -> None:
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('twisted', 'prompt_toolkit')]; "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, f"{module} loaded: {proc.stdout.strip()} {proc.stderr[-500:]}"


@pytest.mark.parametrize("module", ["p2p_burraco.games.burraco", "p2p_burraco.games.briscola",
                                    "p2p_burraco.games.cards", "p2p_burraco.games.base"])
def test_games_use_only_the_standard_library(module: str) -> None:
    code = (
        "import sys, importlib; before = set(sys.modules); "
        f"importlib.import_module({module!r}); "
        "third = sorted({m.split('.')[0] for m in set(sys.modules) - before} - "
        "set(sys.stdlib_module_names) - {'p2p_burraco'}); print(third); sys.exit(1 if third else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-500:]


def test_only_net_imports_twisted_and_only_console_imports_prompt_toolkit() -> None:
    """architecture.md: net/ is the only layer that knows Twisted, console/ the only one that
    knows prompt-toolkit (commands reach them through net.runtime and console's entry);
    zeroconf (LAN discovery, network I/O on its own thread) lives in net/ too."""
    import re
    from pathlib import Path

    pkg = Path(__file__).resolve().parent.parent / "p2p_burraco"
    rules = {"twisted": "net", "prompt_toolkit": "console", "zeroconf": "net"}
    offenders = []
    for path in pkg.rglob("*.py"):
        rel = path.relative_to(pkg)
        text = path.read_text(encoding="utf-8")
        for lib, home in rules.items():
            if rel.parts[0] != home and re.search(rf"^\s*(from|import)\s+{lib}\b", text, re.MULTILINE):
                offenders.append(f"{rel} imports {lib}")
    assert not offenders, offenders


def test_pynacl_only_through_its_public_api() -> None:
    """PyNaCl's `nacl._sodium` is private: a PyNaCl release may move it without notice. Every
    libsodium call goes through `nacl.bindings` (same C entry points, same speed within 4 %),
    and the entry points we use are there in the installed PyNaCl."""
    import re
    from pathlib import Path

    import nacl.bindings

    pkg = Path(__file__).resolve().parent.parent / "p2p_burraco"
    private = [str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
               if re.search(r"nacl\._sodium|from\s+nacl\s+import\s+_sodium",
                            p.read_text(encoding="utf-8"))]
    assert not private, f"these modules use PyNaCl's private nacl._sodium: {private}"
    used = sorted({name for p in pkg.rglob("*.py")
                   for name in re.findall(r"\b(crypto_\w+)\b", p.read_text(encoding="utf-8"))
                   if not name.endswith("BYTES")})
    missing = [n for n in used if not hasattr(nacl.bindings, n)]
    assert not missing, (f"PyNaCl {getattr(nacl, '__version__', '?')} has no nacl.bindings."
                         f"{', '.join(missing)}: pin a PyNaCl release that has them")
