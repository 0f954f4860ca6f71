"""The Burraco rule set: one type with explicit option fields, and one preset per seed.

Nothing about a variant hides in an `if name == ...`: the engine reads only these fields.
Each field's `cite` entry names the digest rule (seeds/*.md) it comes from, so a refusal can
say *which* rule it applied and `p2p-burraco rules` can print where every option comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from ..cards import Card, DeckKind

WildEnd = Literal["low", "either"]

# Abstract rule keys the engine raises and scores with, mapped per preset to the digest id.
# A key a preset does not map keeps the FIBUR (or classic) id: that preset's digest then lists
# the id under "Shared rules" (tests/test_burraco_refusal_ids.py checks every refusal).
FIBUR_CITE: dict[str, str] = {
    "deck": "FIBUR-1", "deal": "FIBUR-2", "opener": "FIBUR-3", "dealer": "FIBUR-4",
    "turn_draw": "FIBUR-5", "turn_meld": "FIBUR-6", "turn_discard": "FIBUR-7",
    "own_cards": "FIBUR-8", "run": "FIBUR-9", "ace": "FIBUR-10", "set": "FIBUR-11",
    "wild_limit": "FIBUR-12", "natural_two": "FIBUR-13", "wild_place": "FIBUR-14",
    "wild_only": "FIBUR-15", "wild_moves": "FIBUR-16", "max_len": "FIBUR-17",
    "table_final": "FIBUR-18", "attach_own": "FIBUR-19", "pozzetto": "FIBUR-20",
    "pozzetto_reserved": "FIBUR-21", "close": "FIBUR-22", "close_wild": "FIBUR-23",
    "close_discard": "FIBUR-24", "stock_end": "FIBUR-25", "burraco": "FIBUR-26",
    "semipuro": "FIBUR-27", "values": "FIBUR-28", "bonus": "FIBUR-29",
    "no_pozzetto": "FIBUR-30", "target": "FIBUR-31", "two_players": "FIBUR-32",
    "three": "FIBUR-33", "three_switch": "FIBUR-34", "four": "FIBUR-35", "five": "FIBUR-36",
    "six": "FIBUR-37", "each": "FIBUR-38", "single_pile": "FIBUR-39",
    "counts_visible": "FIBUR-40", "wild_stays": "FIBUR-16", "sets_forbidden": "FIBUR-11",
    "one_set_rank": "FIBUR-11", "take_top": "FIBUR-5", "take_opened": "FIBUR-5",
    "opening": "FIBUR-6", "stalemate": "TABLE-12", "first_turn": "FIBUR-5",
    "close_clean": "FIBUR-22", "royal": "FIBUR-26", "unopened": "FIBUR-26",
    "two_pressed": "FIBUR-16", "closing_bonus": "FIBUR-29", "hand_minus": "FIBUR-30",
}

PAGAT_CITE: dict[str, str] = {
    **FIBUR_CITE,
    "deck": "PAGAT-1", "four": "PAGAT-1", "two_players": "PAGAT-1", "deal": "PAGAT-2",
    "opener": "PAGAT-3", "turn_draw": "PAGAT-4", "turn_discard": "PAGAT-4",
    "take_top": "PAGAT-4", "single_pile": "PAGAT-5", "run": "PAGAT-6", "set": "PAGAT-6",
    "turn_meld": "PAGAT-7", "attach_own": "PAGAT-7", "ace": "PAGAT-8", "table_final": "PAGAT-8",
    "one_set_rank": "PAGAT-9", "wild_only": "PAGAT-9", "wild_limit": "PAGAT-10",
    "natural_two": "PAGAT-11", "two_pressed": "PAGAT-12", "wild_place": "PAGAT-13",
    "wild_moves": "PAGAT-14", "wild_stays": "PAGAT-14", "burraco": "PAGAT-15",
    "pozzetto": "PAGAT-16", "pozzetto_reserved": "PAGAT-17", "close": "PAGAT-18",
    "close_wild": "PAGAT-18", "close_discard": "PAGAT-18", "stock_end": "PAGAT-19",
    "stalemate": "PAGAT-20", "values": "PAGAT-21", "bonus": "PAGAT-22",
    "closing_bonus": "PAGAT-22", "no_pozzetto": "PAGAT-23", "hand_minus": "PAGAT-24",
    "target": "PAGAT-25", "own_cards": "PAGAT-26", "max_len": "PAGAT-27",
    "take_opened": "PAGAT-4", "first_turn": "PAGAT-4", "semipuro": "PAGAT-15",
}

BURACO_CITE: dict[str, str] = {
    **FIBUR_CITE,
    "deck": "BURACO-1", "two_players": "BURACO-1", "four": "BURACO-1", "deal": "BURACO-2",
    "first_turn": "BURACO-2", "turn_draw": "BURACO-3", "turn_discard": "BURACO-3",
    "turn_meld": "BURACO-3", "run": "BURACO-4", "sets_forbidden": "BURACO-4", "set": "BURACO-4",
    "burraco": "BURACO-5", "wild_place": "BURACO-6", "wild_only": "BURACO-6",
    "wild_moves": "BURACO-7", "wild_stays": "BURACO-7", "natural_two": "BURACO-8",
    "two_pressed": "BURACO-8", "wild_limit": "BURACO-9", "pozzetto": "BURACO-10",
    "pozzetto_reserved": "BURACO-10", "close": "BURACO-11", "close_clean": "BURACO-11",
    "close_discard": "BURACO-11", "stock_end": "BURACO-12", "values": "BURACO-13",
    "bonus": "BURACO-14", "royal": "BURACO-14", "closing_bonus": "BURACO-14",
    "no_pozzetto": "BURACO-15", "hand_minus": "BURACO-15", "target": "BURACO-16",
    "attach_own": "BURACO-17", "ace": "BURACO-18", "max_len": "BURACO-18",
    "take_top": "BURACO-3", "take_opened": "BURACO-3", "own_cards": "BURACO-19",
    "semipuro": "BURACO-14",
}

CLASSIC_CITE: dict[str, str] = {
    **FIBUR_CITE,
    "deck": "CLASSIC-1", "two_players": "CLASSIC-1", "four": "CLASSIC-1", "attach_own": "CLASSIC-1",
    "deal": "CLASSIC-2", "opener": "CLASSIC-3", "run": "CLASSIC-4", "set": "CLASSIC-4",
    "wild_place": "CLASSIC-5", "wild_moves": "CLASSIC-5", "wild_stays": "CLASSIC-5",
    "table_final": "CLASSIC-5", "burraco": "CLASSIC-7", "wild_limit": "CLASSIC-7",
    "take_top": "CLASSIC-8", "take_opened": "CLASSIC-8", "opening": "CLASSIC-9",
    "pozzetto": "CLASSIC-10", "pozzetto_reserved": "CLASSIC-10", "close": "CLASSIC-11",
    "close_discard": "CLASSIC-11", "values": "CLASSIC-12", "bonus": "CLASSIC-13",
    "closing_bonus": "CLASSIC-13", "no_pozzetto": "CLASSIC-14", "hand_minus": "CLASSIC-14",
    "unopened": "CLASSIC-15", "target": "CLASSIC-16", "turn_draw": "CLASSIC-17",
    "turn_meld": "CLASSIC-17", "turn_discard": "CLASSIC-17", "stock_end": "CLASSIC-18",
    "single_pile": "CLASSIC-17", "first_turn": "CLASSIC-17",
}

MODIF_CITE: dict[str, str] = {
    **CLASSIC_CITE,
    "target": "MODIF-1", "values": "MODIF-2", "unopened": "MODIF-3", "first_turn": "MODIF-4",
    "opener": "MODIF-4", "single_pile": "MODIF-5", "close": "MODIF-6",
    "sets_forbidden": "MODIF-7", "set": "MODIF-7",
}


@dataclass(frozen=True)
class RuleSet:
    """Every choice that differs between the seeds, as an explicit field.

    `cite` maps the engine's abstract rule keys (e.g. ``"wild_limit"``) to the digest id of
    this preset (e.g. ``"PAGAT-10"``); a seed silent on a point cites the rule we borrowed.
    """

    name: str
    title: str
    seed: str
    seat_counts: tuple[int, ...]
    cite: Mapping[str, str]
    # --- melds -------------------------------------------------------------------------
    sets_allowed: bool = True                 # same-rank melds exist at all
    one_set_per_rank: bool = False            # a side holds at most one set of each rank
    run_max_naturals: int = 13
    set_max_naturals: int = 8
    max_wilds: int = 1                        # wilds standing for another card, per meld
    free_wild_end: WildEnd = "low"            # where a wild not standing inside a run may go
    wild_moves_freely: bool = True            # re-placed at every attach (FIBUR, pagat) …
    replaced_wild_end: WildEnd = "low"        # … or only moved when its card arrives, to here
    ace_to_ace: bool = False                  # Brazilian: a run may go A-2-…-K-A (BURACO-18)
    # --- the turn ----------------------------------------------------------------------
    initial_discard: bool = True              # one card turned face up after the deal
    opener_right_of_dealer: bool = False      # modificato: the dealer's right begins
    first_turn_redraw: bool = False           # modificato: put the first card back, draw again
    take_top_allowed: bool = False            # classic: the top card alone may be taken
    take_needs_opened: bool = False           # classic: only a side that has opened takes
    single_card_pile: bool = True             # a lone pile card cannot go straight back
    stock_end: int = 2                        # the hand ends once the stock is down to this
    # --- opening (classic) ---------------------------------------------------------------
    open_threshold: int | None = None         # side total from which the big opening applies
    open_min_points: int = 0                  # points the opening melds must total …
    # --- pozzetto and closing ------------------------------------------------------------
    close_needs_discard: bool = True          # closing only by a final discard
    close_discard_not_wild: bool = True       # … which is not a wild
    close_needs_clean: bool = False           # Brazilian: a clean canasta is needed to close
    unseen_pozzetto_as_hand: bool = True      # a pozzetto taken but unseen counts as hand
    # --- scoring -----------------------------------------------------------------------
    joker_points: int = 30
    two_points: int = 20
    ace_points: int = 15
    high_points: int = 10                     # K Q J 10 9 8
    low_points: int = 5                       # 7 6 5 4 3
    clean_bonus: int = 200
    semipuro_bonus: int | None = 150          # None: no semipuro class (a dirty burraco)
    dirty_bonus: int = 100
    canasta_500: int | None = None
    canasta_1000: int | None = None
    closing_bonus: int = 100
    no_pozzetto_penalty: int = 100
    unopened_hand_factor: int = 1             # classic: a side never opened pays double
    unopened_penalty: int = 0                 # modificato: … or 300
    # --- match -------------------------------------------------------------------------
    target: int | None = 2005                 # None: one hand decides
    target_choices: tuple[int, ...] = ()
    target_strict: bool = False               # pagat: must *exceed* the target
    three_seat_switch_at: int | None = 1000   # FIBUR: 3 seats go 3×11 from this total
    names: Mapping[str, str] = field(default_factory=lambda: {
        "pinella": "pinella", "jolly": "jolly", "pozzetto": "pozzetto", "burraco": "burraco"})

    def rid(self, key: str) -> str:
        """The digest id this preset cites for an abstract rule key."""
        return self.cite.get(key) or FIBUR_CITE[key]

    @property
    def agree(self) -> str:
        """The ending an adjective takes beside this rule set's name for a burraco: "a" for
        canasta (pulita, sporca), "o" for burraco and buracco (pulito, sporco)."""
        return "a" if self.names["burraco"].endswith("a") else "o"

    def card_points(self, card: Card) -> int:
        """Face value of a card at the count (8 and 9 are high cards: 10, never 5)."""
        r = card.rank
        if card.is_joker:
            return self.joker_points
        if r == 2:
            return self.two_points
        if r == 1:
            return self.ace_points
        return self.high_points if r >= 8 else self.low_points

    def deck_kind(self, n_seats: int) -> DeckKind:
        """Two decks (108) up to 4 seats, three (162) for 5 and 6."""
        return DeckKind.FRENCH_162 if n_seats >= 5 else DeckKind.FRENCH_108

    def pozzetto_sizes(self, n_seats: int, each_for_himself: bool = False,
                       switched: bool = False) -> tuple[int, ...]:
        """Pozzetti, top first: 18+11 (3 seats), 18+11+11 (5), one 11 per player if each
        plays for himself, else two of 11."""
        if n_seats in (3, 5) and (each_for_himself or switched):
            return (11,) * n_seats
        if n_seats == 3:
            return (18, 11)
        if n_seats == 5:
            return (18, 11, 11)
        return (11, 11)

    def dynamic_sides(self, n_seats: int, each_for_himself: bool = False,
                      switched: bool = False) -> bool:
        """3 or 5 seats with an 18-card pozzetto: sides form when someone takes it."""
        return n_seats in (3, 5) and not (each_for_himself or switched)

    def with_options(self, **changes: object) -> RuleSet:
        """A copy with some options changed (e.g. `close_needs_clean=False`)."""
        return replace(self, **changes)  # type: ignore[arg-type]  # fields checked by dataclasses


FIBUR = RuleSet(
    name="fibur", title="Burraco — FIBUR official regulation", seed="000",
    seat_counts=(2, 3, 4, 5, 6), cite=FIBUR_CITE,
    target=2005, target_choices=(505, 1005, 2005, 3005, 5005),
)

PAGAT = RuleSet(
    name="pagat", title="Burraco — English rules (pagat-style)", seed="001",
    seat_counts=(2, 4), cite=PAGAT_CITE,
    one_set_per_rank=True, semipuro_bonus=None,
    target=2000, target_strict=True, target_choices=(2000,), three_seat_switch_at=None,
)

BURACO = RuleSet(
    name="buraco", title="Buraco — Brazilian (online) rules", seed="003",
    seat_counts=(2, 4), cite=BURACO_CITE,
    sets_allowed=False, free_wild_end="either", wild_moves_freely=False,
    replaced_wild_end="low", ace_to_ace=True, run_max_naturals=14, initial_discard=False,
    single_card_pile=False, stock_end=0, close_needs_discard=False,
    close_discard_not_wild=False, close_needs_clean=True,
    joker_points=50, two_points=10, semipuro_bonus=None, canasta_500=500, canasta_1000=1000,
    target=None, target_choices=(), three_seat_switch_at=None,
    names={"pinella": "2", "jolly": "jolly", "pozzetto": "morto", "burraco": "canasta"},
)

CLASSIC = RuleSet(
    name="classic", title="Buracco — classic (Fantini–Santella, 1985)", seed="004",
    seat_counts=(2, 4), cite=CLASSIC_CITE,
    free_wild_end="either", wild_moves_freely=False, replaced_wild_end="either",
    take_top_allowed=True, take_needs_opened=True, single_card_pile=False, stock_end=0,
    open_threshold=1000, open_min_points=75, close_needs_discard=False,
    close_discard_not_wild=False, joker_points=25, semipuro_bonus=None,
    unopened_hand_factor=2, target=2000, target_choices=(2000,), three_seat_switch_at=None,
    names={"pinella": "pinella", "jolly": "joker", "pozzetto": "mazzetto", "burraco": "buracco"},
)

MODIFICATO = replace(
    CLASSIC, name="modificato", title="Buracco modificato (house rules)", cite=MODIF_CITE,
    sets_allowed=False, initial_discard=False, opener_right_of_dealer=True,
    first_turn_redraw=True, joker_points=20, two_points=10, unopened_hand_factor=1,
    unopened_penalty=300, target=3000, target_choices=(3000,),
    names={"pinella": "jolly", "jolly": "jollone", "pozzetto": "morto", "burraco": "buracco"},
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (FIBUR, PAGAT, BURACO, CLASSIC, MODIFICATO)}
DEFAULT_VARIANT = "fibur"


def seat_counts(rules: RuleSet) -> tuple[int, ...]:
    """Seat counts a preset allows (the CLI and host offer only these)."""
    return rules.seat_counts
