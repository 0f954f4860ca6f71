"""The expert Burraco bot: the heuristic's play, with its two big decisions of every turn —
draw or take the pile, and which card to discard — checked by determinized rollouts.

A club player melds by habit and thinks hard twice a turn: "if I take this pile, where does it
leave me?" and "if I throw this, what does the next player do with it?". So:

1. **Candidates.** The heuristic bot (`burraco_heuristic`) makes every move; when it is about
   to draw/take, every legal draw and take is a candidate, and when it is about to discard,
   its own discard and the next best `WIDTH` by its discard score are. Melding and attaching
   stay with the heuristic.
2. **Determinizations.** The cards the seat cannot see (other hands, the stock, untaken
   pozzetti) are dealt at random from the cards it has not seen (`_seen.unseen_ids`), over
   the positions it cannot see — the seat's view and nothing else: the real cards there are
   never read, so the bot plays the same whatever they are (tests/test_bots_hygiene.py).
3. **Rollouts.** On each determinization every candidate is applied; the seat finishes its
   turn as the heuristic would, the others play one turn each as greedy bots, and the
   position at the seat's next turn is scored by the heuristic's estimate
   (`_burraco_eval.Evaluator`). The same deal and the same rollout seed serve every candidate
   (common random numbers), so the averages differ by the choice, not by luck.

The best average wins, the heuristic's own choice needing to be beaten by `PRIOR`. The
number of determinizations comes from the time budget (`_think.Budget`), so a seed and a
`--think` reproduce a game.
"""

from __future__ import annotations

import random
from itertools import islice

from ..games.base import Action, HandState, RuleViolation, Seat
from ..games.burraco import BurracoHand, Discard
from ._burraco_eval import Evaluator
from ._seen import seen_ids, unseen_ids
from ._think import DEFAULT_THINK, Budget
from .burraco_greedy import GreedyBot
from .burraco_heuristic import HeuristicBot

WIDTH = 2                  # discards weighed besides the heuristic's own
ROLLOUT_STEPS = 40         # safety cap on one rollout (an orbit is ~3 steps per seat)
COST_PER_ITERATION = 0.015  # seconds per determinization (all candidates), measured
PRIOR = 5.0                # the heuristic's choice must be beaten by this (estimate points)


class ExpertBot:
    """See the module docstring."""

    name = "expert"
    thinks = True

    def __init__(self, rng: random.Random, think: float = DEFAULT_THINK) -> None:
        self.rng = rng
        self.think = think
        self.heuristic = HeuristicBot(random.Random(rng.getrandbits(64)))
        self.last_iterations = 0

    def choose(self, state: HandState, seat: Seat) -> Action:
        if not isinstance(state, BurracoHand):
            raise TypeError("the Burraco expert bot plays Burraco only")
        if state.to_move != seat:
            raise RuntimeError(f"it is not seat {seat}'s turn")
        self.last_iterations = 0
        hunch = self.heuristic.choose(state, seat)
        if state.phase == "draw":
            candidates = [hunch] + [a for a in state.legal_actions(seat) if a != hunch]
        elif isinstance(hunch, Discard):
            candidates = self._discards(state, seat, hunch)
        else:
            return hunch
        if len(candidates) == 1:
            return hunch
        budget = Budget(self.think, COST_PER_ITERATION)
        seen = seen_ids(state, seat)
        hidden = [p for p in range(len(state.deck)) if p not in seen]
        pool = unseen_ids(state, seat)
        ev = Evaluator(state, seat)
        totals = [0.0] * len(candidates)
        done = 0
        for _ in range(budget.iterations):
            if done and budget.out_of_time():
                break
            self.rng.shuffle(pool)
            deal = dict(seen)
            deal.update(zip(hidden, pool))
            root = state.with_cards(deal)
            seed = self.rng.getrandbits(64)
            for i, a in enumerate(candidates):
                totals[i] += self._rollout(root, seat, a, ev, seed)
            done += 1
        self.last_iterations = done
        scores = [t / done + (PRIOR if i == 0 else 0.0) for i, t in enumerate(totals)]
        return candidates[max(range(len(candidates)), key=lambda i: (scores[i], -i))]

    def _discards(self, state: BurracoHand, seat: Seat, hunch: Action) -> list[Action]:
        """The heuristic's discard first, then its next best `WIDTH` by the same score (what
        the hand keeps, minus what the card gives an opponent next)."""
        ev = Evaluator(state, seat)
        scored: list[tuple[float, Action]] = []
        for a in islice(state.legal_actions(seat), 200):
            if not isinstance(a, Discard) or a == hunch:
                continue
            trial = state.copy()
            try:
                trial.apply(seat, a)
            except RuleViolation:
                continue
            card = state.deck[a.card[1]]
            scored.append((ev.margin(trial) - self.heuristic._danger(state, seat, ev, card), a))
        scored.sort(key=lambda t: t[0], reverse=True)
        return [hunch] + [a for _, a in scored[:WIDTH]]

    def _rollout(self, root: BurracoHand, seat: Seat, action: Action, ev: Evaluator,
                 seed: int) -> float:
        """Apply `action` on a copy of the determinization; the seat ends its turn as the
        heuristic, the others play one turn each as greedy bots; score it for `seat`."""
        state = root.copy()
        state.apply(seat, action)
        rng = random.Random(seed)
        bots: list[GreedyBot | HeuristicBot] = [
            GreedyBot(random.Random(rng.getrandbits(32))) for _ in range(state.n_seats)]
        bots[seat] = HeuristicBot(random.Random(rng.getrandbits(32)))
        stop_at = state.turns + state.n_seats - (0 if state.turn == seat else 1)
        for _ in range(ROLLOUT_STEPS):
            s = state.to_move
            if s is None or state.turns >= stop_at:
                break
            state.apply(s, bots[s].choose(state, s))
        return ev.margin(state)
