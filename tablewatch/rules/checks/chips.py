"""Chips on the table: stacks kept countable (TDA-16A), chips hidden or taken off the table (TDA-49),
chips appearing during a hand (HOUSE-002-2.4 / ENG-41), and chips the tag registry does not know.

These are judged across hands (a stack hidden between hands still counts), so the checks keep no
per-hand state beyond what each event says.
"""

from __future__ import annotations

from tablewatch.events import (
    ChipsAppeared,
    ChipsLeftTable,
    Event,
    Severity,
    StackObscured,
    UnknownChip,
    Violation,
    Zone,
    seat_of_zone,
)
from tablewatch.rules.checks.base import LIVE_PHASES, HandCheck, to_call
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot


def in_hand(snapshot: HandSnapshot) -> bool:
    return snapshot.phase in LIVE_PHASES


def facing_all_in_decision(snapshot: HandSnapshot) -> bool:
    """Someone is to act on a bet that would take all his chips, or on an all-in (TDA-16A, TDA-46)."""
    seat = snapshot.to_act
    if seat is None:
        return False
    owed = to_call(snapshot, seat)
    return owed > 0 and (owed >= snapshot.stacks.get(seat, owed + 1) or bool(snapshot.all_in))


class StackVisibilityCheck(HandCheck):
    """StackObscured past the profile's thresholds: logged, then alerted (TDA-16A)."""

    rule_id = "TDA-16A"
    events = (StackObscured,)

    def __init__(self, profile: RuleProfile) -> None:
        super().__init__(profile)
        self.episodes: dict[int, tuple[float, Severity | None]] = {}  # seat -> (last duration, level reported)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not isinstance(event, StackObscured) or event.seat is None or event.seat in snapshot.all_in:
            return []  # (a player all in has no chips behind: none are out of sight)
        last, reported = self.episodes.get(event.seat, (0.0, None))
        if event.duration < last:
            reported = None  # a new episode: the stack was visible in between
        level = self._level(snapshot, event)
        self.episodes[event.seat] = (event.duration, reported if level is None else level)
        if level is None or reported is Severity.VIOLATION or reported is level:
            return []
        hidden = f" (about {event.hidden_value} hidden)" if event.hidden_value else ""
        urgent = " while a player faces an all-in decision" if facing_all_in_decision(snapshot) else ""
        return [self.violation(
            snapshot, event, severity=level, title="Stack not countable: top denominations hidden",
            observed=f"Seat {event.seat}'s highest-denomination chips out of sight for {event.duration:.0f} s"
            f"{hidden}{urgent}.",
            ruling="Chips must be kept in countable stacks with the highest denominations visible at all times "
            "(TDA-16A; vertical stacks of 20 recommended): the dealer asks the player to rearrange them.")]

    def _level(self, snapshot: HandSnapshot, event: StackObscured) -> Severity | None:
        if event.duration >= self.profile.stack_obscured_alert_s:
            return Severity.VIOLATION
        if event.duration >= self.profile.stack_obscured_advisory_s:
            return Severity.VIOLATION if facing_all_in_decision(snapshot) else Severity.ADVISORY
        return None


class ChipsLeftTableCheck(HandCheck):
    """ChipsLeftTable: chips that were on the table are no longer anywhere on it (TDA-49, HOUSE-002-2.4.3)."""

    rule_id = "TDA-49"
    events = (ChipsLeftTable,)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not isinstance(event, ChipsLeftTable):
            return []
        seat = event.seat if event.seat is not None else seat_of_zone(event.zone)
        during = in_hand(snapshot)
        when = f"during hand {snapshot.hand_no}" if during else "between hands"
        # a camera counts the chip tops that went (a column's height does not show from above): at least those
        least = "at least " if event.source == "vision" else ""
        observed = f"{least}{event.chips.value} in chips ({event.chips.count}) left the table from {event.zone} {when}."
        if event.emptied and not during:
            return [self.violation(
                snapshot, event, severity=Severity.ADVISORY, seats=[seat] if seat else [], observed=observed,
                title="A player's whole stack left the table",
                ruling="Between hands a seat emptied with all its chips: a player leaving, or moved with his chips "
                "(table balancing). The floor confirms; chips taken away by a player still in the event are "
                "forfeited (TDA-49).")]
        if self.profile.game_format == "cash":
            if not during:
                return [self.violation(
                    snapshot, event, severity=Severity.ADVISORY, seats=[seat] if seat else [], observed=observed,
                    title="Chips taken off the table",
                    ruling="Cash: chips may not leave the table until the player ends his session "
                    "(HOUSE-002-2.4.3); the dealer checks whether he is leaving the game.")]
            ruling = ("Only the chips on the table play and none may be taken off during a hand "
                      "(HOUSE-002-2.4, ENG-41): call the floor.")
        else:
            ruling = ("Chips hidden from view or carried off the table are forfeited and taken out of play; the "
                      "player may be disqualified (TDA-49). Chips are moved only in racks or bags.")
        return [self.violation(snapshot, event, title="Chips removed from the table", observed=observed,
                               ruling=ruling, seats=[seat] if seat else [])]


class ChipsAppearedCheck(HandCheck):
    """ChipsAppeared: chips showed up in a zone without coming from another (HOUSE-002-2.4 / ENG-41)."""

    rule_id = "HOUSE-002-2.4"
    events = (ChipsAppeared,)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not isinstance(event, ChipsAppeared):
            return []
        seat = event.seat if event.seat is not None else seat_of_zone(event.zone)
        seats = [seat] if seat else []
        if in_hand(snapshot):
            return [self.violation(
                snapshot, event, seats=seats, title="Chips added during a hand",
                observed=f"{event.chips.value} in chips ({event.chips.count}) appeared in {event.zone} during hand "
                f"{snapshot.hand_no}, not from any other zone.",
                ruling="No chips may be added during a hand; only the chips on the table when the hand began play "
                "(HOUSE-002-2.4.2, ENG-41). In a tournament, chips from outside are not in play (TDA-49): call "
                "the floor.")]
        if event.onto_empty and Zone.parse(event.zone).is_stack:
            return []  # a player sitting down with his stack (a buy-in, a player moved in): no chips added to one
        return [self.violation(
            snapshot, event, seats=seats, severity=Severity.ADVISORY, title="Chips added between hands",
            observed=f"{event.chips.value} in chips appeared in {event.zone} between hands.",
            ruling="Chips added between hands must be bought from the house and announced to the table ('this "
            "much plays', HOUSE-002-2.4.2); in a tournament only rebuys and add-ons bring chips (TDA22-27).")]


class UnknownChipCheck(HandCheck):
    """UnknownChip: a UID the tag registry does not know, a possible counterfeit. One alert per chip: the same chip
    read again as it moves from stack to bet to pot, in this hand or a later one, is the same finding."""

    rule_id = "TDA-16B"
    events = (UnknownChip,)

    def __init__(self, profile: RuleProfile) -> None:
        self._reported: set[str] = set()  # kept across hands (a chip seen between hands is read again in the next)
        super().__init__(profile)

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if not isinstance(event, UnknownChip) or event.uid in self._reported:
            return []
        self._reported.add(event.uid)
        seat = event.seat if event.seat is not None else seat_of_zone(event.zone)
        return [self.violation(
            snapshot, event, seats=[seat] if seat else [], title="Unknown chip (possible counterfeit)",
            observed=f"Chip UID {event.uid} in {event.zone} is not in the house's tag registry.",
            ruling="Only the house's chips are in play: management controls the chips in play (TDA-16B). Hold the "
            "chip, call the floor and check it against the inventory; a foreign chip is taken out of play.")]
