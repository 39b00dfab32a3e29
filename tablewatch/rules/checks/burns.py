"""Burn procedure: exactly one burn before the flop, turn and river (TDA-25); four-card flop (TDA-26A);
flop without a burn (TDA-26B); no new burn when a premature street is redealt (TDA-57 / RP-5)."""

from __future__ import annotations

from collections.abc import Callable

from tablewatch.events import BoardCardDealt, CardBurned, Event, Party, Severity, Violation
from tablewatch.rules.checks.base import ACTION_EVENTS, ActionTally, HandCheck
from tablewatch.rules.checks.boardstate import BoardStep, BoardTracker
from tablewatch.rules.snapshot import HandSnapshot

Say = Callable[..., list[Violation]]  # a violation at this step: say(title, observed, ruling, rule_id, severity)

MISSING_BURN = (
    "Burn exactly one card before each street (TDA-25); the floor rules whether the card stands. "
    "In an all-in run-out the rule is the same."
)
DOUBLE_BURN = (
    "Only one card is burned per street, never more (TDA-25); the dealer must not burn two to restore an "
    "'original' board (TDA22-ILL-38). Call the floor."
)
FOUR_CARD_FLOP = (
    "Call the floor. The dealer scrambles the 4 cards face down, the floor picks one at random as the burn "
    "and the other 3 are the flop (TDA-26A)."
)
NO_BURN_FLOP = (
    "If no one has acted on the flop: scramble the 3 cards face down, choose one as the burn; the other 2 plus "
    "the next card from the stub are the flop. If anyone has acted (even a check), the flop stands. One burn "
    "per street after that (TDA-26B)."
)
FLOP_STANDS = (
    "Action was taken on the flop, so play goes on with the original 3 cards; burn one card before the turn "
    "and the river (TDA-26B)."
)
WRONG_BURN_SOURCE = (
    "A player's card may not be used as the burn: that hand is dead and the dealer burns one card from the stub "
    "as usual (TDA22-ILL-38)."
)


class BurnCheck(HandCheck):
    rule_id = "TDA-25"
    committed_by = Party.DEALER
    events = (CardBurned, BoardCardDealt, *ACTION_EVENTS)

    def reset(self) -> None:
        self.board = BoardTracker(self.profile)
        self.tally = ActionTally()

    def concerns(self, event: Event) -> bool:
        return super().concerns(event) or self.tally.turn_open  # (the tally sees every event while a turn is open)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        self.tally.observe(snapshot, event)
        found: list[Violation] = []
        if isinstance(event, CardBurned) and event.seat is not None and self.tally.substantial:
            found.append(self.violation(
                snapshot, event, title="Player's card used as the burn",
                observed=f"A card from seat {event.seat}'s hand went to the burn pile after substantial action.",
                ruling=WRONG_BURN_SOURCE))
        for step in self.board.update(snapshot, event):
            found.extend(self._judge(snapshot, event, step))
        return found

    def _judge(self, snapshot: HandSnapshot, event: Event, step: BoardStep) -> list[Violation]:
        def say(title: str, observed: str, ruling: str, rule_id: str = "TDA-25",
                severity: Severity = Severity.VIOLATION) -> list[Violation]:
            return [self.violation(snapshot, event, rule_id=rule_id, title=title, observed=observed, ruling=ruling,
                                   severity=severity, evidence_ts=step.burn_ts)]

        if step.kind == "four_card_flop":
            return say("Four-card flop", "A 4th card was turned with the flop, with no burn and no action between.",
                       FOUR_CARD_FLOP, "TDA-26A")
        if step.kind == "four_card_unrepaired":
            return say("Four-card flop played", "Players acted on a four-card flop before the floor chose the burn.",
                       FOUR_CARD_FLOP, "TDA-26A")
        if step.kind == "flop_stands":
            return say("Flop without a burn: flop stands", "A player acted on the flop dealt without a burn.",
                       FLOP_STANDS, "TDA-26B", Severity.ADVISORY)
        if step.kind == "redeal":
            return self._judge_redeal(say, step)
        if step.kind not in ("opening", "premature") or step.burns == step.expected_burns:
            return []
        return self._judge_count(say, step)

    def _judge_count(self, say: Say, step: BoardStep) -> list[Violation]:
        burned = f"{step.burns} card(s) burned before the {step.street}"
        if step.expected_burns == 0:  # the river of the 2017 premature-turn procedure
            return say("Burn on the river after a premature turn", f"{burned}; the procedure deals it without one.",
                       "After a premature turn (2017 procedure) the river is dealt without a burn: three burns are "
                       "already on the table (TR-002-L164-170).", "TDA-57")
        if step.burns == 0 and step.street == "flop":
            return say("Flop dealt without a burn", f"{burned}.", NO_BURN_FLOP, "TDA-26B")
        if step.burns == 0:
            return say(f"No burn before the {step.street}", f"{burned}.", MISSING_BURN)
        return say(f"Double burn before the {step.street}", f"{burned}.", DOUBLE_BURN)

    def _judge_redeal(self, say: Say, step: BoardStep) -> list[Violation]:
        if step.burns == step.expected_burns:
            return []
        burned = f"{step.burns} new burn(s) before the redealt {step.street}"
        if step.expected_burns == 0:
            return say(f"Burn on the redealt {step.street}", f"{burned}; the burn is already on the table.",
                       "A street redealt after a premature card comes without a new burn: the original burn stays "
                       "(TDA-57 / RP-5).", "TDA-57")
        return say("No burn before the turn (2017 procedure)", f"{burned}; the 2017 procedure burns once.",
                   "2017 procedure: after a premature turn, burn and deal the next card as the turn "
                   "(TR-002-L164-170).", "TDA-57")
