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
    assert engine_text("it", "connected to 10.0.0.2:7777 as seat 0 of t1") == \
        "connesso a 10.0.0.2:7777: posto 0 di t1"          # no English "seat" left in Italian
    assert engine_text("it", "back at t1 as seat 2") == "di nuovo a t1, posto 2"
    assert engine_text("it", "time ran out: the bot plays meld 7h 8h 9h for you") == \
        "tempo scaduto: il bot gioca cala 7h 8h 9h per te"      # the step's verb too
    assert "posto 2" in engine_text("it", "a chat line for seat 2 breaking the text rule "
                                          "was dropped")
    assert engine_text("en", "abbandono: punti in gioco (max 20)").startswith("abandonment")
    assert engine_text("en", "Kc is not in your hand") == "Kc is not in your hand"
    assert engine_text("it", "something nobody wrote") == "something nobody wrote"
    assert t("it", "title.to_move", who="Bob") == "tocca a Bob"


def test_every_refusal_of_the_rules_walk_reads_in_italian() -> None:
    """Every kind of illegal Burraco step the refusal-id walk makes, in every preset: the
    engine's English becomes the catalog's Italian (nothing left as it came)."""
    from test_burraco_refusal_ids import CASES, parse_position

    from p2p_burraco.games.base import RuleViolation

    untranslated = set()
    for kind, variant, position, seat, step in CASES:
        st = parse_position(position.format(v=variant))
        if variant in ("classic", "modificato") and kind == "opening under 75":
            st.open_req = (75, 0, 75, 0)
        try:
            act = step(st) if callable(step) else st.parse_action(seat, step)
            st.apply(seat, act)
        except RuleViolation as exc:
            if engine_text("it", exc.message) == exc.message:
                untranslated.add(exc.message)
    assert not untranslated, sorted(untranslated)


def test_player_lines_have_no_rule_ids_message_numbers_or_seat_numbers() -> None:
    """Issue 47: what the table shows names people, not seats, and keeps rule ids and
    message numbers for `why` and `verify`; in Italian it is Italian."""
    from p2p_burraco.console.model import ConsoleModel

    model = ConsoleModel("Ann", game="burraco")
    model.names, model.seat = ["Ann", "Bob", "Cy", "Di"], 0
    line = "forfeit by seat 1: a false alarm (message 46) [TABLE-7]"
    assert model.player_text(line) == "forfeit by Bob: a false alarm"
    assert model.player_text("closing (seat 3 went out)") == "closing (Di went out)"
    model.lang = "it"
    assert model.player_text("closing (seat 3 went out)") == "chiusura (Di)"
    assert model.player_text("it is seat 2's turn, not seat 0's [FIBUR-5]") == \
        "tocca a Cy, non a Ann"


def test_the_recent_matches_panel_reads_in_italian() -> None:
    line = ("2026-12-03 20:00  35403b29ab12  burraco fibur: Ann+Cy 2110 | Bob+Di 800; "
            "winner Ann+Cy (target); 5 hand(s); verify: fair; bots: Bob (heuristic)")
    assert engine_text("it", line) == (
        "2026-12-03 20:00  35403b29ab12  burraco fibur: Ann+Cy 2110 | Bob+Di 800; "
        "vince Ann+Cy (obiettivo raggiunto); 5 mani; verifica: regolare; bot: Bob (heuristic)")
    assert engine_text("it", "no finished matches in the history yet").startswith("ancora")


def test_the_hosts_disk_and_bug_sentences_read_in_italian() -> None:
    """What a host says when its disk fails or it hits a bug, and a seat's own bug, reach an
    Italian console in Italian (issues 46, 50)."""
    from p2p_burraco.errors import BUG_MARK
    from p2p_burraco.net.host import DISK_FULL_MESSAGE

    assert engine_text("it", DISK_FULL_MESSAGE).startswith("l'host non riesce a scrivere")
    host_bug = f"the host hit an {BUG_MARK}: KeyError: 'x'; the traceback is in /tmp/b.txt"
    assert engine_text("it", host_bug).startswith("l'host ha incontrato un errore interno")
    assert engine_text("it", f"{BUG_MARK}: KeyError: 'x'").startswith("errore interno")
    differs = "the host's log of this hand differs at entry 7 from the one this seat holds"
    assert engine_text("it", differs).endswith("alla voce 7")
