"""Every rule id in seeds/ is in the README table and named by at least one test."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PREFIXES = "FIBUR|PAGAT|BURACO|CLASSIC|MODIF|BRISCOLA|TABLE|DISC|HIST|REPLAY|AUDIT|TOURN"
ID_RE = re.compile(rf"\b({_PREFIXES})-(\d+)\b")
DEF_RE = re.compile(rf"^\s*[-*]\s+\*\*((?:{_PREFIXES})-\d+)\*\*", re.MULTILINE)


def defined_ids() -> set[str]:
    ids: set[str] = set()
    for path in (ROOT / "seeds").glob("*.md"):
        if path.name == "README.md":
            continue
        ids.update(DEF_RE.findall(path.read_text(encoding="utf-8")))
    return ids


def ids_named_in_tests() -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py")
                     if p.name != "test_seed_ids.py")
    text += "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.txt"))
    return {f"{m.group(1)}-{m.group(2)}" for m in ID_RE.finditer(text)}


def test_digests_define_ids() -> None:
    assert defined_ids(), "no rule ids found in seeds/*.md"


def test_every_rule_id_is_checked_by_a_test() -> None:
    unchecked = sorted(defined_ids() - ids_named_in_tests())
    assert not unchecked, f"rule ids no test names: {unchecked}"


def test_readme_table_lists_every_id_with_existing_tests() -> None:
    readme = (ROOT / "seeds" / "README.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in
            re.finditer(r"^\|\s*`?([A-Z]+-\d+)`?\s*\|(.*)\|\s*$", readme, re.MULTILINE)}
    missing = sorted(defined_ids() - set(rows))
    assert not missing, f"ids missing from seeds/README.md table: {missing}"
    test_files = {p.name for p in (ROOT / "tests").rglob("test_*.py")}
    for rule_id, cell in rows.items():
        for name in re.findall(r"(test_\w+\.py)", cell):
            assert name in test_files, f"{rule_id}: {name} does not exist"
