"""How cards are named to people, per game and language: one function for the screen, the
help, the log, the errors and `verify`, so a card is written one way everywhere.

Presentation only: it reads the engine's card types (games/cards.py) and Briscola's face
names (games/briscola/faces.py) and decides nothing. What a person *types* stays the
engine's notation (`7h`, `JK`, `2h`), which help explains with `typing_help`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .games.cards import Card, Suit

LANGS: tuple[str, ...] = ("it", "en")
"""The languages of card names and help (--lang, `set lang`), in the order offered."""

_SUIT_WORDS: dict[str, dict[Suit, str]] = {
    "en": {Suit.HEARTS: "hearts", Suit.DIAMONDS: "diamonds", Suit.CLUBS: "clubs",
           Suit.SPADES: "spades", Suit.DENARI: "denari", Suit.COPPE: "coppe",
           Suit.BASTONI: "bastoni", Suit.SPADE: "spade"},
    "it": {Suit.HEARTS: "cuori", Suit.DIAMONDS: "quadri", Suit.CLUBS: "fiori",
           Suit.SPADES: "picche", Suit.DENARI: "denari", Suit.COPPE: "coppe",
           Suit.BASTONI: "bastoni", Suit.SPADE: "spade"},
}
_RANKS: dict[str, dict[int, str]] = {
    "en": {1: "ace", 11: "jack", 12: "queen", 13: "king"},
    "it": {1: "asso", 11: "fante", 12: "donna", 13: "re"},
}
JOKER_WORD = {"en": "joker", "it": "jolly"}
_CARD_WORD = re.compile(r"(?<![\w#])(?:(?:10|[2-9AJQK])[hdcsbDCBS]|JK)(?![\w])")
"""The engine's canonical card words (`str(card)`), the only ones renamed inside a text
(standing alone: `#10` is a meld, `10s` inside a word is not a card). Case-sensitive, as
the engine writes them: `as`, `jk` and `7H` are words, not cards."""
_PROSE_AS = re.compile(r" (?!(?:is|was|does)\b)[a-z]")
"""After `As`: a lowercase word other than the verbs the engine puts after a card
(`As is not in your hand`) makes it the English word (`As the pile is empty, …`). Why
only `As`: it is the one card word that is also an English word; the engine writes plural
numbers as words (`twos`), never `2s`, so `2s` is always a card."""


def _lang(lang: str | None) -> str:
    return lang if lang in LANGS else "en"


def _briscola_style(card: Card, style: str | None) -> str:
    """The deck style a Briscola card is drawn in: a French card always as French, else the
    table's style (default napoletane)."""
    if card.suit is not None and not card.suit.italian:
        return "french"
    return style or "napoletane"


def card_label(card: Card, game: str | None = None, style: str | None = None) -> str:
    """The short label a table shows: `7♥`, `★` (Burraco); `9 coppe`, `Q♥` (Briscola, by
    the deck's display style). The same in both languages: it is what is printed on the
    card."""
    if game == "briscola" and not card.is_joker:
        from .games.briscola.faces import card_label as briscola_label

        return briscola_label(card, _briscola_style(card, style))
    return card.display()


def card_name(card: Card, game: str | None = None, lang: str | None = "en",
              style: str | None = None, names: Mapping[str, str] | None = None) -> str:
    """The spoken name, for help and sentences: `7 of hearts` / `7 di cuori`, `joker` /
    `jolly`; Briscola's own names (`Cavallo di coppe`) whatever the language.

    `names`: the Burraco rule set's own words (RuleSet.names: modificato calls a 2 `jolly`
    and the joker `jollone`); why: the table and its refusals speak that rule set's
    language, so the card names must too. Unknown (None): the usual words."""
    lang = _lang(lang)
    if card.is_joker:
        word = names.get("jolly") if game == "burraco" and names else None
        if word is None:
            return JOKER_WORD[lang]
        return word if lang == "it" or word == "joker" else f"joker ({word})"
    assert card.suit is not None
    if game == "briscola":
        from .games.briscola.faces import card_name as briscola_name

        return briscola_name(card, _briscola_style(card, style))
    rank = _RANKS[lang].get(card.rank, str(card.rank))
    joiner = "of" if lang == "en" else "di"
    name = f"{rank} {joiner} {_SUIT_WORDS[lang][card.suit]}"
    if game == "burraco" and card.rank == 2:
        word = (names or {}).get("pinella", "pinella")
        if word != "2":                 # buraco: a 2 is just a 2
            name += f" ({word})"
    return name


def name_cards(text: str, parse: object, game: str | None = None,
               style: str | None = None) -> str:
    """`text` with every card word in the engine's notation (`Kc is not in your hand`,
    `5c…Jc`) replaced by its label — for refusals, log lines and score lines that come from
    the engine. `parse(word) -> Card` is the deck's own parser (a word it refuses stays)."""

    def label(m: re.Match[str]) -> str:
        if m.group(0) == "As" and _PROSE_AS.match(text, m.end()):
            return m.group(0)
        try:
            card = parse(m.group(0))  # type: ignore[operator]  # parse: typed object, a Card parser
        except ValueError:
            return m.group(0)
        return card_label(card, game, style)

    return _CARD_WORD.sub(label, text)


def typing_help(game: str | None, lang: str | None = "en") -> list[str]:
    """How to type cards, for `help`: the notation, the joker and the pinella, numbers."""
    if _lang(lang) == "it":
        if game == "briscola":
            return [("Carte: il numero accanto alla carta (gioca 2), oppure la carta come si "
                    "vede (gioca 9 coppe, gioca A denari) o in breve: 1d = Asso di denari, "
                    "8c/9c/10c = Fante/Cavallo/Re di coppe, 3b, 7s.")]
        return [("Carte: il numero accanto alla carta (scarta 5, cala 1 2 3), oppure: 7h 7♥ "
                "7cu = 7 di cuori, 10s, Qd, Kc, Af. Jolly: JK (o jolly, joker, *). "
                "Pinella: è il suo 2 (2h, 2s); fa da matta dove serve.")]
    if game == "briscola":
        return [("Cards: the number beside the card (play 2), or the card as shown (play 9 "
                "coppe, play A denari), or short: 1d = Asso di denari, 8c/9c/10c = "
                "Fante/Cavallo/Re di coppe, 3b, 7s.")]
    return [("Cards: the number beside the card (discard 5, meld 1 2 3), or its name: 7h 7♥ "
            "= 7 of hearts, 10s, Qd, Kc, Ac. Joker: JK (or jolly, joker, *). A pinella is "
            "just its 2 (2h, 2s): it stands in as wild where it has to.")]
