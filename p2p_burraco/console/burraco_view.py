"""How a Burraco table looks on the console: each side's melds grouped and numbered (the
number `attach N` takes), burraco kinds marked, wild cards (jolly, pinella) marked, the whole
discard pile, stock and pozzetti, and per seat its cards in hand and its side's pozzetto.

Everything comes from the engine's `player_view`; legality is never decided here.
"""

from __future__ import annotations

from typing import Any

from ..games.cards import Card
from .model import ConsoleModel
from .views import WIDE_SEATS, Line, Presenter, card_style, clip, flow
from .words import t

BURRACO_MARK = {"pulito": "burraco pulito", "semipulito": "burraco semipulito",
                "sporco": "burraco sporco"}


class BurracoPresenter(Presenter):
    game = "burraco"

    def card(self, model: ConsoleModel, card: Card, wild: bool = False) -> tuple[str, str]:
        """A pinella (any 2) is underlined wherever it lies loose: it may stand in as wild."""
        style, text = super().card(model, card, wild)
        return (style + " class:card.pinella" if card.rank == 2 else style), text

    # ------------------------------------------------------------------ facts
    def my_side(self, view: dict[str, Any], seat: int | None) -> int | None:
        side_of = view.get("side_of") or []
        return side_of[seat] if seat is not None and seat < len(side_of) else None

    def side_seats(self, view: dict[str, Any], side: int) -> list[int]:
        return [s for s, t in enumerate(view.get("side_of") or []) if t == side]

    def side_has_pozzetto(self, view: dict[str, Any], side: int) -> bool:
        seats = set(self.side_seats(view, side))
        return any(pz.get("taken_by") in seats for pz in view.get("pozzetti") or [])

    def attach_targets(self, model: ConsoleModel) -> list[int]:
        """Ids of our side's melds (what `attach N` names)."""
        v = self.view(model)
        side = self.my_side(v, model.seat)
        return [m["id"] for m in v.get("melds") or [] if m.get("side") == side]

    def title(self, model: ConsoleModel) -> str:
        v = self.view(model)
        return f"Burraco {v.get('variant', model.variant or '')}".strip()

    # ------------------------------------------------------------------ actions
    def default_action(self, model: ConsoleModel) -> str | None:
        kinds = model.legal_kinds()
        if model.my_turn and model.staged and (not kinds or model.hidden_in_hand()):
            return "send"  # the hand ends, or the pozzetto comes in: lay it down first
        if not kinds:
            return None
        if "draw" in kinds or "take" in kinds or "take_top" in kinds:
            return "draw" if "draw" in kinds else "take"
        chosen = model.selected_cards()
        words = " ".join(str(c) for c in chosen)
        if len(chosen) >= 3:
            return f"meld {words}"
        if chosen:
            return f"attach {words}"
        if model.staged:
            return "send"
        return None

    def keys_hint(self, model: ConsoleModel) -> str:
        kinds = model.legal_kinds()
        if "draw" in kinds or "take" in kinds:
            return t(model.lang, "keys.burraco_draw")
        if kinds:
            return t(model.lang, "keys.burraco_play")
        return t(model.lang, "keys.burraco_wait")

    def hand_label(self, model: ConsoleModel) -> str:
        v = self.view(model)
        side = self.my_side(v, model.seat)
        lang = model.lang
        pz = ""
        if side is not None and v.get("pozzetti"):
            pz = t(lang, "hand.pozzetto_taken" if self.side_has_pozzetto(v, side)
                   else "hand.pozzetto_not_yet")
        hidden = model.hidden_in_hand() if model.preview is not None else 0
        more = t(lang, "hand.more_pozzetto", n=hidden) if hidden else ""
        return t(lang, "hand.label", n=len(model.hand_cards()), more=more, pz=pz)

    # ------------------------------------------------------------------ drawing
    def meld_item(self, model: ConsoleModel, meld: dict[str, Any], staged: str = "") -> Line:
        """`#3 7♥ 8♥ 9♥`, wild cards marked, a burraco named; staged changes flagged."""
        number_style = "class:meld.number" + (" class:staged" if staged else "")
        out: Line = [(number_style, f"#{meld.get('id')} ")]
        wild = meld.get("wild")
        for i, text in enumerate(meld.get("cards") or []):
            card = self.card_of_text(model, text)
            if i:
                out.append(("", " "))
            if card is None:
                out.append(("class:dim", "?"))
            else:
                out.append((card_style(card, wild=(i == wild and not card.is_joker)),
                            self.card_label(model, card)))
        cls = meld.get("class")
        if cls in BURRACO_MARK:
            out.append(("class:meld.burraco", f" ◆{BURRACO_MARK[cls]}"))
        if staged:
            out.append(("class:staged", f" ({t(model.lang, staged)})"))
        return out

    def table_lines(self, model: ConsoleModel, width: int) -> list[Line]:
        v = self.view(model)
        if not v:
            return [[("class:dim", t(model.lang, "table.waiting_deal"))]]
        lines: list[Line] = []
        mine = self.my_side(v, model.seat)
        order = list(dict.fromkeys(v.get("side_of") or []))
        sides = sorted(order, key=lambda t: (t != mine, t))
        melds = v.get("melds") or []
        real = {m["id"]: m.get("length") for m in self.view(model, real=True).get("melds") or []}

        def staged(m: dict[str, Any]) -> str:
            if m["id"] not in real:
                return "stage.meld_staged"
            return "stage.meld_staged_more" if m.get("length") != real[m["id"]] else ""

        for side in sides:
            seats = self.side_seats(v, side)
            who = " + ".join(model.seat_name(s) for s in seats)
            label = t(model.lang, "table.our_side" if side == mine else "table.side",
                      x="ABCDEF"[order.index(side)])
            head: Line = [("class:label", f"{label}: "),
                          ("class:seat.me" if side == mine else "class:seat", who)]
            if self.side_has_pozzetto(v, side):
                head.append(("class:dim", t(model.lang, "hand.pozzetto_taken")))
            side_melds = [m for m in melds if m.get("side") == side]
            if not side_melds:
                head.append(("class:dim", t(model.lang, "table.no_melds")))
            lines.append(clip(head, width))
            lines += [clip([("", " ")] + ln, width)
                      for ln in flow((self.meld_item(model, m, staged(m)) for m in side_melds),
                                     width - 1, sep="  │ ")]
        # the discard pile, all of it, top card last
        pile = v.get("pile") or []
        head = [("class:label", t(model.lang, "table.pile", n=len(pile))),
                ("class:dim", t(model.lang, "table.top_last"))]
        items: list[Line] = []
        for i, (_pos, text) in enumerate(pile):
            card = self.card_of_text(model, text)
            frag = self.card(model, card) if card else ("class:dim", "?")
            if i == len(pile) - 1:
                frag = (frag[0] + " class:card.top", frag[1])
            items.append([frag])
        if not items:
            items = [[("class:dim", t(model.lang, "table.empty"))]]
        body = flow(items, max(10, width - 2), sep=" ")
        lines.append(clip(head, width))
        lines += [clip([("", "  ")] + ln, width) for ln in body]
        pozz = v.get("pozzetti") or []
        left = [pz for pz in pozz if pz.get("taken_by") is None]
        facts = t(model.lang, "table.stock", n=v.get("stock", 0), k=len(left))
        if left:
            facts += t(model.lang, "table.pozzetti_sizes",
                       sizes="+".join(str(pz.get("size")) for pz in left))
        lines.append([("class:dim", facts)])
        return lines

    def seat_lines(self, model: ConsoleModel, width: int) -> list[Line]:
        v = self.view(model, real=True)
        if not v:
            return []
        side_of = v.get("side_of") or []
        order = list(dict.fromkeys(side_of))
        side_names = {s: "ABCDEF"[order.index(t)] for s, t in enumerate(side_of)}
        counts = v.get("hand_counts") or []
        wide = width >= WIDE_SEATS
        out = [self.seats_head(model)]
        for seat in range(int(v.get("n_seats", len(counts)))):
            n = counts[seat] if seat < len(counts) else "?"
            detail = f"{n:>2} {t(model.lang, 'table.cards')}" if wide else f"{n:>2}c"
            face_down = self.face_down(v, seat)
            if face_down:      # a pozzetto taken al volo, picked up at its next turn
                detail += f" +{face_down}▼"
            elif seat < len(side_of) and self.side_has_pozzetto(v, side_of[seat]):
                detail += " pozz ✓" if wide else " pz✓"
            else:
                detail += " pozz –" if wide else " pz–"
            if seat == v.get("dealer"):
                detail += t(model.lang, "table.dealer_short")
            out.append(self._seat_row(model, seat, v.get("to_move"), side_names, detail, width))
        return out

    @staticmethod
    def face_down(view: dict[str, Any], seat: int) -> int:
        """Cards of a pozzetto `seat` has claimed but not yet picked up (face down)."""
        return sum(int(pz.get("size") or 0) for pz in view.get("pozzetti") or []
                   if pz.get("taken_by") == seat and not pz.get("seen"))
