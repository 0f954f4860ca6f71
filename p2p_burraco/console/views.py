"""What each game looks like on the console: the table panel, the seats panel, card labels
and the action Enter performs. Pure formatting of the engine's `player_view` (no rule is
decided here: anything about legality is asked of the engine).

A *line* is a list of `(style, text)` fragments, the shape prompt-toolkit renders; nothing
here imports prompt-toolkit, so these functions are tested as plain data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from wcwidth import wcswidth, wcwidth

from ..games.cards import Card
from .model import ConsoleModel
from .words import t, verb_words

Fragment = tuple[str, str]
Line = list[Fragment]


def card_style(card: Card, wild: bool = False) -> str:
    """Red suits red, black suits plain, the joker and wild cards marked."""
    if card.is_joker:
        return "class:card.joker"
    if wild:
        return "class:card.wild"
    return "class:card.red" if card.suit is not None and card.suit.is_red else "class:card.black"


def display_width(text: str) -> int:
    """Columns `text` takes on a terminal: an emoji or a CJK sign two, a combining accent
    none (wcwidth, the measure terminals use); a character it cannot measure counts one."""
    width = wcswidth(text)
    if width >= 0:
        return width
    return sum(max(0, w) if (w := wcwidth(ch)) >= 0 else 1 for ch in text)


def cut_to(text: str, columns: int) -> str:
    """The longest start of `text` that fits `columns` (a wide character never halved)."""
    used = 0
    for i, ch in enumerate(text):
        w = display_width(ch)
        if used + w > columns:
            return text[:i]
        used += w
    return text


def text_width(line: Line) -> int:
    return sum(display_width(t) for _, t in line)


def split_wide(item: Line, width: int) -> list[Line]:
    """An item wider than a line, broken between its fragments (a meld between two cards)
    into pieces that fit; a single fragment too wide is clipped (and marked)."""
    pieces: list[Line] = []
    cur: Line = []
    for frag in item:
        if cur and text_width(cur) + display_width(frag[1]) > width:
            pieces.append(cur)
            cur = [(frag[0], frag[1].lstrip())] if frag[1].strip() else []
            continue
        cur.append(frag)
    if cur:
        pieces.append(cur)
    return [clip(p, width) for p in pieces]


def flow(items: Iterable[Line], width: int, sep: str = "  ") -> list[Line]:
    """Pack items (each a short line) onto lines of at most `width` columns, never splitting
    an item unless it alone is wider than a line (then it breaks between fragments)."""
    lines: list[Line] = []
    cur: Line = []
    used = 0
    for item in items:
        w = text_width(item)
        if w > width:
            if cur:
                lines.append(cur)
            pieces = split_wide(item, width)
            lines += pieces[:-1]
            cur, used = list(pieces[-1]), text_width(pieces[-1])
            continue
        if cur and used + len(sep) + w > width:
            lines.append(cur)
            cur, used = [], 0
        if cur:
            cur.append(("", sep))
            used += len(sep)
        cur.extend(item)
        used += w
    if cur:
        lines.append(cur)
    return [clip(ln, width) for ln in lines]


def labelled(label: str, items: Iterable[Line], width: int, sep: str = "   ") -> list[Line]:
    """`label` then items flowed over as many lines as they need, continuation lines
    indented under the first item."""
    pad = display_width(label)
    body = flow(items, max(10, width - pad), sep=sep)
    out = [[("class:label", label)] + body[0]] if body else [[("class:label", label)]]
    out += [[("", " " * pad)] + ln for ln in body[1:]]
    return [clip(ln, width) for ln in out]


CUT = "…"
"""Ends a line that had to be cut: no text is lost without a mark."""


def clip(line: Line, width: int) -> Line:
    """Fit a line to `width` columns (the window never wraps our lines). Trailing blanks
    are dropped first; a line still too long ends in "…"."""
    if text_width(line) <= width:
        return list(line)
    trimmed = list(line)
    while trimmed and not trimmed[-1][1].strip():
        trimmed.pop()
    if text_width(trimmed) <= width:
        pad = width - text_width(trimmed)
        return trimmed + ([(line[-1][0], " " * pad)] if pad and line else [])
    out: Line = []
    left = max(0, width - 1)
    for style, text in trimmed:
        if left <= 0:
            break
        piece = cut_to(text, left)
        out.append((style, piece))
        left -= display_width(piece)
    if width > 0:
        out.append((out[-1][0] if out else "", CUT + " " * max(0, left)))
    return out


def clip_text(text: str, width: int) -> str:
    """Plain text fitted to `width` columns, "…" where it was cut."""
    if display_width(text) <= width:
        return text
    return cut_to(text, max(0, width - 1)) + CUT


def wrap_text(text: str, width: int, style: str = "") -> list[Line]:
    """Plain text wrapped at spaces to `width` columns. Each row keeps its own spacing (the
    columns of a score or a help list); continuation rows are indented two more than the
    paragraph; a word longer than a row is cut with "…"."""
    lines: list[Line] = []
    for para in text.splitlines() or [""]:
        indent = para[:len(para) - len(para.lstrip(" "))]
        cont = indent + "  "
        cur = para
        while display_width(cur) > width:
            lead = len(cur) - len(cur.lstrip(" "))
            fits = len(cut_to(cur, width))          # characters that fit the row
            cut = cur.rfind(" ", lead + 1, fits + 1)
            if cut <= lead or len(cont) >= width:
                lines.append([(style, clip_text(cur, width))])
                cur = ""
                break
            lines.append([(style, cur[:cut].rstrip())])
            cur = cont + cur[cut:].lstrip()
        if cur or not lines or not para:
            lines.append([(style, cur)])
    return lines


WIDE_SEATS = 34
"""The seats panel's width from which seat rows use whole words (`11 cards`)."""


class Presenter:
    """Game-independent parts; subclasses draw the table of their game."""

    game = ""

    def card_label(self, model: ConsoleModel, card: Card) -> str:
        """One naming for screen, help, log and errors (cardnames, via the model)."""
        return model.card_label(card)

    def card(self, model: ConsoleModel, card: Card, wild: bool = False) -> Fragment:
        return (card_style(card, wild), self.card_label(model, card))

    def cards(self, model: ConsoleModel, cards: Sequence[Card]) -> Line:
        out: Line = []
        for i, c in enumerate(cards):
            if i:
                out.append(("", " "))
            out.append(self.card(model, c))
        return out

    def view(self, model: ConsoleModel, real: bool = False) -> dict[str, Any]:
        """The seat's view of the preview (staged steps applied), or of the replica itself
        with `real=True` (what the table really holds)."""
        st = model.state if real else model.view_state
        if st is None or model.seat is None:
            return {}
        return st.player_view(model.seat)

    def card_of_text(self, model: ConsoleModel, text: str | None) -> Card | None:
        st = model.view_state
        if st is None or text is None:
            return None
        try:
            return st.deck.parse(text)
        except ValueError:
            return None

    def title(self, model: ConsoleModel) -> str:
        return model.game or ""

    def table_lines(self, model: ConsoleModel, width: int) -> list[Line]:
        return []

    def seat_lines(self, model: ConsoleModel, width: int) -> list[Line]:
        return []

    def attach_targets(self, model: ConsoleModel) -> list[int]:
        return []

    def default_action(self, model: ConsoleModel) -> str | None:
        """The command line Enter runs on an empty prompt (shown in the hint line)."""
        return None

    def keys_hint(self, model: ConsoleModel) -> str:
        return t(model.lang, "keys.bare")

    def action_label(self, model: ConsoleModel, action: str, hint: bool = False) -> str:
        """Console words as shown (hint line, log): verbs in the console's language, card
        tokens with this game's labels. `hint`: said to the person (`raccogli`), else of a
        seat in the log (`raccoglie`)."""
        return model.display_text(verb_words(model.lang, action, hint=hint))

    def hand_label(self, model: ConsoleModel) -> str:
        return t(model.lang, "hand.label", n=len(model.hand_cards()), more="", pz="")

    def seats_head(self, model: ConsoleModel) -> Line:
        """`seats · hints`: the seats panel's title, and whether the table allows hints."""
        return [("class:label", t(model.lang, "table.seats")),
                ("class:dim", t(model.lang, "table.hints_on" if model.hints_on
                                else "table.hints_off"))]

    def _seat_row(self, model: ConsoleModel, seat: int, to_move: int | None,
                  side_names: dict[int, str], detail: str, width: int) -> Line:
        mark = "▶" if seat == to_move else " "
        name = model.seat_name(seat)
        style = "class:seat.me" if seat == model.seat else "class:seat"
        if seat == to_move:
            style += " class:seat.turn"
        side = side_names.get(seat, "")
        if model.seat_away(seat):
            detail += t(model.lang, "seat.away")
        room = 10 if width >= WIDE_SEATS else 8
        shown = name if display_width(name) <= room else cut_to(name, room - 1) + "…"
        shown += " " * (room - display_width(shown))
        return clip([(style, f"{mark}{shown}"), ("class:side", f" {side:<2}"),
                     ("", detail)], width)


# ------------------------------------------------------------------------------- Briscola
class BriscolaPresenter(Presenter):
    """Trump, the trick on the table, cards left, points taken, the three cards in hand."""

    game = "briscola"

    def default_action(self, model: ConsoleModel) -> str | None:
        if not model.my_turn or model.cursor_card() is None:
            return None
        return f"play {model.cursor + 1}"

    def keys_hint(self, model: ConsoleModel) -> str:
        return t(model.lang, "keys.briscola")

    def action_label(self, model: ConsoleModel, action: str, hint: bool = False) -> str:
        """`play 2` in the hint line also names the card: `play 2 (Re di spade)`."""
        words = action.split()
        if len(words) == 2 and words[1].isdigit():
            cards = model.hand_cards()
            n = int(words[1])
            if 1 <= n <= len(cards):
                return (f"{verb_words(model.lang, action, hint=hint)} "
                        f"({self.card_label(model, cards[n - 1][1])})")
        return super().action_label(model, action, hint)

    def title(self, model: ConsoleModel) -> str:
        v = self.view(model)
        return f"Briscola {v.get('rules', model.variant or '')}".strip()

    def table_lines(self, model: ConsoleModel, width: int) -> list[Line]:
        v = self.view(model)
        lang = model.lang
        if not v:
            return [[("class:dim", t(lang, "table.waiting_deal"))]]
        lines: list[Line] = []
        trump = v.get("trump") or {}
        tcard = self.card_of_text(model, trump.get("card"))
        head: Line = [("class:label", t(lang, "bris.trump"))]
        head += [self.card(model, tcard)] if tcard else [("class:dim", t(lang, "bris.not_shown"))]
        if trump.get("drawn"):
            head.append(("class:dim", t(lang, "bris.drawn")))
        head += [("", "   "), ("class:label", t(lang, "bris.stock")),
                 ("", t(lang, "bris.left", n=v.get("stock", 0)))]
        if v.get("last_hand"):
            head.append(("class:dim", t(lang, "bris.last_tricks")))
        lines.append(clip(head, width))
        lines.append([])
        plays = v.get("trick") or []
        items = [self._play_item(model, seat, text) for seat, _pos, text in plays]
        on_table = t(lang, "bris.on_table")
        last_label = t(lang, "bris.last_trick")
        pad = max(len(on_table), len(last_label))
        lines += labelled(on_table.ljust(pad),
                          items or [[("class:dim", t(lang, "bris.nothing"))]], width)
        last = v.get("last_trick")
        if last:
            items = [self._play_item(model, seat, text) for seat, _pos, text in last["plays"]]
            items.append([("class:dim", t(lang, "bris.takes",
                                          who=model.seat_name(last.get("winner"))))])
            lines += labelled(last_label.ljust(pad), items, width)
        lines.append([])
        sides = v.get("sides") or []
        for i, taken in enumerate(v.get("taken") or []):
            members = sides[i] if i < len(sides) else []
            who = " + ".join(model.seat_name(s) for s in members)
            style = "class:seat.me" if model.seat in members else "class:seat"
            detail = t(lang, "bris.points", p=f"{taken.get('points', 0):>3}",
                       t=taken.get("tricks", 0))
            lines.append(clip([("class:label", t(lang, "bris.points_taken")),
                               (style, f"{who:<16}"), ("", detail)], width))
        partner = v.get("partner_hand")
        if partner:
            ln = [("class:label", t(lang, "bris.partner_hand"))]
            ln += self.cards(model, [c for c in (self.card_of_text(model, t) for _, t in partner)
                                     if c is not None])
            lines.append(clip(ln, width))
        for seat, cards in (v.get("shown_hands") or {}).items():
            if int(seat) == model.seat or (partner and int(seat) == ((model.seat or 0) + 2) % 4):
                continue
            ln = [("class:label", t(lang, "bris.shows", who=model.seat_name(int(seat))))]
            ln += self.cards(model, [c for c in (self.card_of_text(model, t) for _, t in cards)
                                     if c is not None])
            lines.append(clip(ln, width))
        if v.get("seen"):
            lines.append([])
            seen = [self.card(model, c) for c in (self.card_of_text(model, t)
                                                   for _, t in v["seen"]) if c is not None]
            lines.append([("class:label", t(lang, "bris.seen"))])
            lines += flow([[f] for f in seen], width, sep=" ")
        return lines

    def _play_item(self, model: ConsoleModel, seat: int, text: str | None) -> Line:
        card = self.card_of_text(model, text)
        return [("class:seat", f"{model.seat_name(seat)}: "),
                self.card(model, card) if card else ("", "?")]

    def seat_lines(self, model: ConsoleModel, width: int) -> list[Line]:
        v = self.view(model, real=True)
        if not v:
            return []
        sides = v.get("sides") or []
        side_names = {s: "AB"[i] for i, side in enumerate(sides) for s in side}
        sizes = v.get("hand_sizes") or []
        out = [self.seats_head(model)]
        wide = width >= WIDE_SEATS
        for seat in range(int(v.get("n_seats", len(sizes)))):
            n = sizes[seat] if seat < len(sizes) else "?"
            detail = f"{n} {t(model.lang, 'table.cards')}" if wide else f"{n}c"
            if seat == v.get("dealer"):
                detail += t(model.lang, "table.dealer" if wide else "table.dealer_short")
            out.append(self._seat_row(model, seat, v.get("to_move"), side_names, detail, width))
        return out


# ------------------------------------------------------------------------------- registry
_PRESENTERS: dict[str, Presenter] = {"briscola": BriscolaPresenter()}


def presenter_for(model: ConsoleModel) -> Presenter:
    """The presenter of the model's game (a bare one before the first hand)."""
    if model.game == "burraco" and "burraco" not in _PRESENTERS:
        from .burraco_view import BurracoPresenter
        _PRESENTERS["burraco"] = BurracoPresenter()
    return _PRESENTERS.get(model.game or "", _BARE)


_BARE = Presenter()
