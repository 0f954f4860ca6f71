"""A rule set in plain words, each line with the digest rule it comes from."""

from __future__ import annotations

from collections.abc import Callable

from .rules import RuleSet

Add = Callable[[str, str], None]
"""add(text, key): one line of the description, citing the rule `key` names."""


def describe(rules: RuleSet) -> str:
    """What `p2p-burraco rules --variant V` prints: a title, then one section after another
    (each a function below), every line citing the digest rule it comes from."""
    r = rules
    lines = [f"{r.title}  (preset '{r.name}', seed {r.seed})", ""]

    def add(text: str, key: str) -> None:
        lines.append(f"- {text}  [{r.rid(key)}]")

    sections: list[tuple[str, Callable[[RuleSet, Add], None]]] = [
        ("Table", _table), ("A turn", _a_turn), ("Melds", _melds),
        (f"{r.names['pozzetto'].capitalize()} and closing", _closing),
        ("Scoring", _scoring), ("Match", _match)]
    for i, (title, section) in enumerate(sections):
        if i:
            lines.append("")
        lines.append(title)
        section(r, add)
    return "\n".join(lines)


def _table(r: RuleSet, add: Add) -> None:
    """The seats, the decks, the deal, who begins."""
    n = r.names
    seats = ", ".join(map(str, r.seat_counts))
    add(f"Players: {seats}. Two French decks with jokers (108 cards)"
        + ("; three decks (162) for 5 and 6 players." if 5 in r.seat_counts else "."), "deck")
    if 4 in r.seat_counts:
        add("Four players: two pairs, partners sitting opposite, sharing melds and points.", "four")
    if 3 in r.seat_counts:
        add("Three players: pozzetti of 18 (on top) and 11; the first to take the 18 plays alone, "
            "the other two pair up and split the hand's points.", "three")
        if r.three_seat_switch_at:
            add(f"Once anyone reaches {r.three_seat_switch_at}, three pozzetti of 11, each for "
                "himself.", "three_switch")
    if 5 in r.seat_counts:
        add("Five players: 162 cards, pozzetti 18+11+11; the first to the 18 plays alone against "
            "two pairs of players sitting opposite.", "five")
        add("Three or five players may also play each for himself with one 11-card pozzetto "
            "each (--each-for-himself).", "each")
    if 6 in r.seat_counts:
        add("Six players: 162 cards, two trios of alternate seats.", "six")
    add(f"Each player gets 11 cards; the {n['pozzetto']} piles (11 cards each) wait face down"
        + ("; one card is turned face up to start the discard pile." if r.initial_discard
           else "; no card is turned face up."), "deal")
    add("The player to the dealer's " + ("right" if r.opener_right_of_dealer else "left")
        + " begins; play goes round in order; the deal passes on each hand.", "opener")


def _a_turn(r: RuleSet, add: Add) -> None:
    """Draw or take, meld and attach, one discard, opening."""
    n = r.names
    pile = "take the whole discard pile"
    if r.take_top_allowed:
        pile += ", or only its top card"
    add(f"First draw the top card of the stock or {pile}.", "turn_draw")
    add("You play only cards from your own hand.", "own_cards")
    if r.take_needs_opened:
        add("Taking from the pile needs your side to have opened (you may open with the cards "
            "taken, in the same step).", "take_opened")
    if r.first_turn_redraw:
        add("First turn: the pile is empty; the first player may put the drawn card face up on "
            "the pile and draw again.", "first_turn")
    add("Then meld new groups and attach cards to your side's melds, as many as you like.",
        "turn_meld")
    add(f"End the turn with one discard (running out by melding is the exception: you take "
        f"the {n['pozzetto']} and go on).", "turn_discard")
    if r.single_card_pile:
        add("A pile of one card: if you take it you cannot discard that card this turn "
            "(another copy is fine).", "single_pile")
    if r.open_threshold is not None:
        add(f"Opening: any meld while your side has less than {r.open_threshold} points; from "
            f"{r.open_threshold} the opening melds must total {r.open_min_points} points or "
            f"include a {n['burraco']}.", "opening")


def _melds(r: RuleSet, add: Add) -> None:
    """Runs and sets, the ace, the wild cards, the longest meld."""
    n = r.names
    add("Runs: three or more consecutive cards of one suit.", "run")
    if r.ace_to_ace:
        add("The ace is low (A-2-3) or high (Q-K-A); a run may go from ace to ace "
            "(A-2-…-K-A, 14 cards), however it was built; no wrap-around (K-A-2).", "ace")
    else:
        add("The ace is low (A-2-3) or high (Q-K-A), never both, no wrap-around (K-A-2).",
            "ace")
    add("Where the ace fits at both ends, you choose: typed after the other cards (or "
        "`attach … high`) it goes after the K, typed first (or `low`) before the 2; said "
        "neither way, where the " + n["burraco"] + " scores more, else low.", "ace")
    if r.sets_allowed:
        add("Sets: three or more cards of one rank, copies allowed"
            + ("; one set per rank per side." if r.one_set_per_rank else "."), "set")
    else:
        add("Only runs: sets of one rank are not played.", "sets_forbidden")
    add(f"Wild cards: jokers ({n['jolly']}) and 2s ({n['pinella']}); at most one per meld.",
        "wild_limit")
    add("A 2 in its own place of a run of its suit is natural, and then another wild may join.",
        "natural_two")
    if r.free_wild_end == "low":
        add("A wild not filling a gap stands at the low end of the run (at the high end when "
            "a low ace closes the bottom); in a set it stands last.", "wild_place")
    else:
        add("A wild not filling a gap stands at either end of the run, as the player chooses.",
            "wild_place")
    if r.wild_moves_freely:
        add("When you attach, the wild moves inside its run as needed; replaced by its natural "
            "card it goes back to the low end. It never returns to the hand.", "wild_moves")
    else:
        end = "the low end" if r.replaced_wild_end == "low" else "either end (player's choice)"
        add(f"A wild moves only when the card it stands for is attached; then it goes to {end}. "
            "It never returns to the hand.", "wild_moves")
    add("No meld of wild cards only; no wild replaces another wild.", "wild_only")
    run_len = ("14 cards in a run (ace to ace, or A–K plus one wild)" if r.ace_to_ace else
               f"{r.run_max_naturals} natural cards plus one wild in a run")
    add(f"At most {run_len}"
        + (f", {r.set_max_naturals} plus one in a set." if r.sets_allowed else "."), "max_len")
    add("Cards on the table never come back to the hand.", "table_final")


def _closing(r: RuleSet, add: Add) -> None:
    """The pozzetto, closing, the other ways a hand ends."""
    n = r.names
    add(f"Run out of cards by melding: take the {n['pozzetto']} at once and go on; by "
        "discarding: it waits face down until your next turn.", "pozzetto")
    add(f"Each side takes one {n['pozzetto']}; the other is kept for the other side.",
        "pozzetto_reserved")
    need = f"a clean {n['burraco']}" if r.close_needs_clean else f"a {n['burraco']} (7+ cards)"
    how = "with a final discard" if r.close_needs_discard else "by discarding or melding the last card"
    add(f"Close (end the hand) once your side has its {n['pozzetto']} and {need}, {how}"
        + (", which may not be a wild card." if r.close_discard_not_wild else "."), "close")
    if r.stock_end:
        add(f"The hand also ends when the stock is down to {r.stock_end} cards; the pile is "
            "never turned into a new stock.", "stock_end")
    else:
        add("The hand also ends after the turn that draws the last stock card; the pile is "
            "never turned into a new stock.", "stock_end")
    took = "a one-card pile" + (" or the top card alone" if r.take_top_allowed else "")
    add(f"Stalemate: if every player in turn only takes the previous discard ({took}), lays "
        "nothing and discards, for a whole round, the hand ends with no closing bonus. So "
        "every hand ends within seats × (2 × stock after the deal + deck + 2) turns.", "stalemate")


def _scoring(r: RuleSet, add: Add) -> None:
    """Card values, bonuses, penalties."""
    n = r.names
    add(f"Cards: joker {r.joker_points}, 2 {r.two_points}, ace {r.ace_points}, K Q J 10 9 8 "
        f"{r.high_points}, 7 to 3 {r.low_points}.", "values")
    o = r.agree  # canasta pulita, burraco pulito
    bon = f"{n['burraco']} pulit{o} {r.clean_bonus}"
    if r.semipuro_bonus:
        bon += f", semipuro {r.semipuro_bonus} (8+ cards, 7 naturals in a row beside the wild)"
    bon += f", sporc{o} {r.dirty_bonus}; closing {r.closing_bonus}."
    add(bon, "bonus")
    if r.canasta_500:
        add(f"Clean A–K run (every rank once) laid in one move: {r.canasta_500}; clean A–A "
            f"(both aces) laid in one move: {r.canasta_1000}, instead of the "
            f"{r.clean_bonus}. One that grew by attaching, even to A–K or A–A, is an ordinary "
            f"{n['burraco']}.", "royal")
    add(f"Melded cards count for the side, cards left in hand against it; a side that never "
        f"took its {n['pozzetto']} loses {r.no_pozzetto_penalty}.", "no_pozzetto")
    if r.unopened_hand_factor > 1:
        add("A side that never opened pays its hand cards double.", "unopened")
    if r.unopened_penalty:
        add(f"A side that never opened loses {r.unopened_penalty}.", "unopened")


def _match(r: RuleSet, add: Add) -> None:
    """The target and the winner."""
    if r.target is None:
        add("One hand: the higher score wins (choose a target with --target to play on).", "target")
    else:
        more = f" (also {', '.join(map(str, r.target_choices))})" if len(r.target_choices) > 1 else ""
        add(f"Play to {r.target}{more}: the match ends when a side "
            + ("passes" if r.target_strict else "reaches") + " it; the higher total wins, a tie "
            "at the top plays another hand.", "target")
