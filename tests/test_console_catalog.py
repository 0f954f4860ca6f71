"""The console's one message catalog (issue 47): every id in every language, with the same
fields; every id the code asks for exists; engine refusals and score lines come out in
Italian; the .po files are what gettext's tools read."""

from __future__ import annotations

import re
from pathlib import Path

from p2p_burraco.console import catalog
from p2p_burraco.console.catalog import LANGS, engine_text, messages, parse_po, t

CONSOLE = Path(catalog.__file__).parent
FIELD = re.compile(r"\{(\w+)\}")


def test_every_message_id_has_every_language_with_the_same_fields() -> None:
    english = messages("en")
    assert len(english) > 300
    for lang in LANGS:
        other = messages(lang)
        missing = sorted(set(english) - set(other))
        extra = sorted(set(other) - set(english))
        assert not missing, f"{lang} lacks {missing}"
        assert not extra, f"{lang} has ids English lacks: {extra}"
        for msg_id, text in english.items():
            assert set(FIELD.findall(other[msg_id])) == set(FIELD.findall(text)), (lang, msg_id)
            if text:
                assert other[msg_id], (lang, msg_id)


def test_every_id_the_code_names_is_in_the_catalog() -> None:
    """A literal id in a `t(…, "id")` or `model.t("id")` call, anywhere in the console."""
    used: set[str] = set()
    call = re.compile(r"""\bt\((?:[\w.]+, )?["']([a-z_]+\.[\w.]+)["']""")
    for path in CONSOLE.glob("*.py"):
        used |= set(call.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 100
    missing = sorted(u for u in used if u not in messages("en"))
    assert not missing, missing


def test_the_po_reader_reads_what_gettext_writes() -> None:
    text = ('# comment\nmsgid ""\nmsgstr ""\n"Language: it\\n"\n\n'
            'msgid "a.b"\nmsgstr "uno \\"due\\"\\n"\n"tre"\n')
    assert parse_po(text) == {"a.b": 'uno "due"\ntre'}
    for lang in LANGS:
        assert (CONSOLE / "locale" / f"{lang}.po").read_text(encoding="utf-8").count("\nmsgid ") \
            == len(messages(lang)) + 1           # + the header


def test_engine_lines_in_italian_and_the_engine_italian_in_english() -> None:
    assert engine_text("it", "Kc is not in your hand") == "Kc non è nella tua mano"
    assert engine_text("it", "7h 8h 10h: the cards of a run must follow each other "
                             "(one wild card may fill one gap)") == \
        "7h 8h 10h: le carte di una scala devono seguirsi (una matta può riempire un buco)"
    assert engine_text("it", "cards in melds") == "carte calate"
    assert engine_text("it", "closing (Bob went out)") == "chiusura (Bob)"
    assert engine_text("en", "abbandono: punti in gioco (max 20)").startswith("abandonment")
    assert engine_text("en", "Kc is not in your hand") == "Kc is not in your hand"
    assert engine_text("it", "something nobody wrote") == "something nobody wrote"
    assert t("it", "title.to_move", who="Bob") == "tocca a Bob"
