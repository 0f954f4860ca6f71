"""The Briscola rule set: every option an explicit field, presets by name, rules in words.

Nothing about a variant hides in an `if variant == …`: a preset is just a `RuleSet` value.
Rule ids refer to seeds/briscola.md.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, replace

from ..cards import DeckKind
from .faces import DISPLAY_STYLES

MATCH_KINDS: tuple[str, ...] = ("punti", "smazzate")
MAX_PLAYOFFS = 3  # knock-out: up to three play-off smazzate [BRISCOLA-22]


@dataclass(frozen=True)
class RuleSet:
    """One way to play Briscola.

    - `deck`: `italian40` (denari, coppe, bastoni, spade) or `french40` (no jokers, 8, 9, 10)
      [BRISCOLA-1, BRISCOLA-2]; `display`: napoletane / piacentine (Italian deck) or french.
    - `match_kind`: "punti" (side totals against a target, over `hands` smazzate) or
      "smazzate" (best of an odd `hands`) [BRISCOLA-19, BRISCOLA-20]; `target` None means
      60 × hands + 1 ("more than half the points").
    - `vinco_subito`: the trick winner ends the smazzata (and wins) on reaching the points
      that decide it [BRISCOLA-21].
    - `knockout`: a tied match goes to play-offs [BRISCOLA-22, BRISCOLA-23].
    - `carte_viste`: earlier tricks in every view; head to head, the last three tricks face up
      [BRISCOLA-27, BRISCOLA-28]. `carte_scoperte` (pairs only): partners see each other's
      hands [BRISCOLA-29].
    """

    name: str = "standard"
    deck: DeckKind = DeckKind.ITALIAN_40
    display: str = "napoletane"
    match_kind: str = "punti"
    hands: int = 1
    target: int | None = None
    vinco_subito: bool = False
    knockout: bool = False
    carte_viste: bool = False
    carte_scoperte: bool = False

    def __post_init__(self) -> None:
        if self.deck not in (DeckKind.ITALIAN_40, DeckKind.FRENCH_40):
            raise ValueError(f"Briscola is played with a 40-card deck, not {self.deck.value} "
                             "[BRISCOLA-1]")
        if self.display not in DISPLAY_STYLES:
            raise ValueError(f"unknown card display {self.display!r}; choose one of: "
                             f"{', '.join(DISPLAY_STYLES)}")
        if (self.display == "french") != (self.deck is DeckKind.FRENCH_40):
            raise ValueError(f"display {self.display!r} does not fit the {self.deck.value} deck "
                             "(napoletane/piacentine are Italian, french is French) [BRISCOLA-2]")
        check_match_shape(self.match_kind, self.hands, self.target)

    @property
    def seat_counts(self) -> tuple[int, ...]:
        """Head to head or two pairs [BRISCOLA-5]; carte scoperte needs partners."""
        return (4,) if self.carte_scoperte else (2, 4)

    def with_options(self, **changes: object) -> RuleSet:
        return replace(self, **changes)  # type: ignore[arg-type]  # fields checked by dataclasses


def check_match_shape(kind: str, hands: int | None, target: int | None) -> None:
    """Refuse a match that cannot be played as described (ValueError naming the rule)."""
    if kind not in MATCH_KINDS:
        raise ValueError(f"unknown match kind {kind!r}; choose one of: {', '.join(MATCH_KINDS)}")
    if hands is not None and hands < 1:
        raise ValueError(f"a match needs at least one smazzata, not {hands}")
    if kind == "smazzate":
        if hands is None or hands % 2 == 0:
            raise ValueError(f"a match a smazzate needs an odd number of smazzate, not {hands} "
                             "[BRISCOLA-20]")
        if target is not None:
            raise ValueError("a match a smazzate has no points target [BRISCOLA-20]")
    if target is not None and target < 1:
        raise ValueError(f"a points target must be positive, not {target} [BRISCOLA-19]")


STANDARD = RuleSet()

PRESETS: dict[str, RuleSet] = {
    "standard": STANDARD,
    "piacentine": replace(STANDARD, name="piacentine", display="piacentine"),
    "francesi": replace(STANDARD, name="francesi", deck=DeckKind.FRENCH_40, display="french"),
    "smazzate": replace(STANDARD, name="smazzate", match_kind="smazzate", hands=3),
    "vinco-subito": replace(STANDARD, name="vinco-subito", vinco_subito=True),
    "carte-viste": replace(STANDARD, name="carte-viste", carte_viste=True),
    "carte-scoperte": replace(STANDARD, name="carte-scoperte", carte_scoperte=True),
    "torneo-ko": replace(STANDARD, name="torneo-ko", knockout=True),
}
DEFAULT_VARIANT = "standard"


def seat_counts(rules: RuleSet) -> tuple[int, ...]:
    return rules.seat_counts


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def describe(rules: RuleSet) -> str:
    """The rule set in plain words (what `p2p-burraco rules --game briscola` prints)."""
    deck = ("40 Italian cards (denari, coppe, bastoni, spade), "
            f"{rules.display} pictures" if rules.deck is DeckKind.ITALIAN_40 else
            "40 French cards (no jokers, 8, 9, 10): quadri = denari, cuori = coppe, "
            "fiori = bastoni, picche = spade")
    figures = ("Re, Cavallo, Donna (the napoletane fante)" if rules.display == "napoletane"
               else "Re, Cavallo, Fante" if rules.display == "piacentine"
               else "Re (K), Donna (Q, the cavallo), Fante (J)")
    if rules.match_kind == "punti":
        target = rules.target or 60 * rules.hands + 1
        count = "1 smazzata" if rules.hands == 1 else f"{rules.hands} smazzate"
        match = (f"a punti: {count}, points add up; first side to "
                 f"{target} wins, else the higher total; level totals are a tie")
    else:
        match = (f"a smazzate: best of {rules.hands}; a smazzata is won with 61 points "
                 "(60-60 counts for nobody); more smazzate won takes the match")
    lines = [
        f"Briscola — rule set {rules.name!r}",
        f"  deck         {deck} [BRISCOLA-1, BRISCOLA-2]",
        f"  figures      {figures}",
        ("  seats        2 head to head, or 4 in two pairs (partners opposite: seats 0+2, 1+3)"
         " [BRISCOLA-5]" + ("; carte scoperte: 4 only" if rules.carte_scoperte else "")),
        ("  direction    counter-clockwise; seat n+1 sits at seat n's right and plays after it"
         " [BRISCOLA-6]"),
        ("  dealer       first one at random (from the deal's randomness), then the next seat"
         " every smazzata [BRISCOLA-7, BRISCOLA-8]"),
        ("  deal         3 cards each, one at a time, from the dealer's right; the next card face"
         " up under the stock is the briscola (trump) and is drawn last [BRISCOLA-9, BRISCOLA-10]"),
        ("  play         the seat after the dealer leads, then each trick's winner; any card may"
         " be played, no duty to follow suit or trump [BRISCOLA-11..13]"),
        ("  trick        highest briscola, else highest card of the suit led; strength"
         " A 3 K Q J 7 6 5 4 2 [BRISCOLA-3, BRISCOLA-14, BRISCOLA-15]"),
        ("  drawing      after each trick the winner draws first, then in play order; the last"
         " three tricks are played without drawing [BRISCOLA-16, BRISCOLA-17]"),
        ("  points       Asso 11, Tre 10, Re 4, Cavallo 3, Fante 2, others 0: 120 in all; 61 wins"
         " the smazzata, 60-60 is a tie [BRISCOLA-4, BRISCOLA-18]"),
        f"  match        {match} [BRISCOLA-19, BRISCOLA-20]",
        (f"  vinco subito {_yes(rules.vinco_subito)} — the trick winner ends and wins on reaching"
         " the deciding points [BRISCOLA-21]"),
        (f"  knock-out    {_yes(rules.knockout)} — a tied match goes to up to {MAX_PLAYOFFS}"
         " play-off smazzate; if the third is tied too, the side that took its last trick"
         " loses [BRISCOLA-22, BRISCOLA-23]"),
        ("  abandon      the side that abandons or times out loses the match; the opponents get"
         " the points still in play up to 20; a lead left to the quitter counts as 0"
         " [BRISCOLA-24]"),
        (f"  carte viste  {_yes(rules.carte_viste)} — cards of earlier tricks are shown; head to"
         " head the last three tricks are face up [BRISCOLA-27, BRISCOLA-28]"),
        (f"  carte scoperte {_yes(rules.carte_scoperte)} — partners see each other's hands, the"
         " opponents do not [BRISCOLA-29]"),
        ("  tournaments  victory points from the point difference, by 1, 2 or 3 smazzate"
         " [BRISCOLA-25, BRISCOLA-26]"),
        ("  typing       `play 3d` (a card of your hand) or `play 2` (the 2nd card as shown)"
         " [BRISCOLA-30]"),
    ]
    # Wrap long entries under their text column so the rules read well in 100 columns.
    return "\n".join(textwrap.fill(line, width=100, subsequent_indent=" " * 15)
                     for line in lines)
