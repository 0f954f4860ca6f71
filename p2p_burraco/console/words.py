"""The console's own words in Italian (`--lang it`, `set lang it`): the title, the hint and
key lines, the labels of the table and of the hand, the questions that must be understood.
What the engine says (refusals with their rule ids) stays in its words; commands are typed
in either language anyway.

`tr(lang, english, **fields)` takes the English template as the key, so a missing entry
falls back to English rather than to nothing.
"""

from __future__ import annotations

IT: dict[str, str] = {
    # title and turn
    "your turn": "tocca a te",
    "{who} to move": "tocca a {who}",
    "hand {n}": "mano {n}",
    "h{n}": "m{n}",
    "hand over": "mano finita",
    "score ": "punti ",
    "waiting for a table": "in attesa di un tavolo",
    "your turn: ": "tocca a te: ",
    "you may {kinds}": "puoi: {kinds}",
    "waiting for {who}": "si aspetta {who}",
    # the hand and the staging area
    "your hand ({n}{more}){pz}": "la tua mano ({n}{more}){pz}",
    " + {n} of the pozzetto once sent": " + {n} del pozzetto, una volta inviate",
    " · pozzetto taken": " · pozzetto preso",
    " · pozzetto not yet": " · pozzetto da prendere",
    "just drawn": "pescata",
    "staged: ": "preparate: ",
    "nothing yet": "niente",
    "nothing — meld/attach go here first; send lays them down":
        "niente — cala/attacca vengono preparate qui; invia le mette in tavola",
    # the table
    "our side {x}": "noi, squadra {x}",
    "side {x}": "squadra {x}",
    " · no melds yet": " · nessuna combinazione",
    "discard pile ({n})": "scarti ({n})",
    ", top last: ": ", l'ultimo in cima: ",
    "empty": "vuoto",
    "stock {n} · pozzetti left {k}": "tallone {n} · pozzetti rimasti {k}",
    " ({sizes} cards)": " ({sizes} carte)",
    "seats": "posti",
    "cards": "carte",
    # keys
    "F2 draw · F3 take pile · ←/→ Space select · F1 help · C-q quit":
        "F2 pesca · F3 raccogli · ←/→ Spazio scegli · F1 aiuto · C-q esci",
    "F4 meld · F5 attach · F6 discard · F7 send · F8 undo · F1 help":
        "F4 cala · F5 attacca · F6 scarta · F7 invia · F8 annulla · F1 aiuto",
    "←/→ Space select · Tab complete · F1 help · F10 score · C-q quit":
        "←/→ Spazio scegli · Tab completa · F1 aiuto · F10 punti · C-q esci",
    "←/→ choose · Enter/1-3 play · F1 help · F10 score · C-q quit":
        "←/→ scegli · Invio/1-3 gioca · F1 aiuto · F10 punti · C-q esci",
    # the link (net/peer.py's words)
    "host not reachable, retrying… ({s} s so far)":
        "host non raggiungibile, nuovo tentativo… ({s} s finora)",
    "waiting for {who} — reconnecting, {left} left":
        "si aspetta {who} — si sta ricollegando, ancora {left}",
    "you": "te",
    " away": " assente",
    # questions
    "Leave mid-match? Your side loses the match by abandonment [TABLE-9]. Ctrl-Q again "
    "(or yes) leaves; anything else stays":
        "Lasciare la partita? La tua squadra la perde per abbandono [TABLE-9]. Ctrl-Q di "
        "nuovo (o sì) per uscire; altro per restare",
    "Leave the table? The hand in progress ends here. Ctrl-Q again (or yes) leaves; "
    "anything else stays":
        "Lasciare il tavolo? La mano in corso finisce qui. Ctrl-Q di nuovo (o sì) per "
        "uscire; altro per restare",
}

KINDS_IT: dict[str, str] = {
    "draw": "pescare", "take": "raccogliere", "take_top": "raccogliere la cima",
    "meld": "calare", "attach": "attaccare", "discard": "scartare", "play": "giocare",
    "redraw": "ripescare",
}
"""The engine's action kinds as the turn hint says them in Italian."""


def tr(lang: str | None, english: str, **fields: object) -> str:
    """`english` (a template) in the console's language, its fields filled in."""
    text = IT.get(english, english) if lang == "it" else english
    return text.format(**fields) if fields else text


def kinds(lang: str | None, names: tuple[str, ...] | list[str]) -> str:
    """Legal action kinds for the turn hint (`draw, take` / `pescare, raccogliere`)."""
    if lang == "it":
        return ", ".join(KINDS_IT.get(k, k) for k in names)
    return ", ".join(names)
