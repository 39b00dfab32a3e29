"""Misdeal conditions of the initial deal (TDA-22A, HOUSE-002-2.5) and the redeal (TDA-22C; ENG-24), the button dealt
too few cards (TDA-24), and a wrong number of hole cards after substantial action (TDA-25 / TDA22-ILL-38). In a
draw game only the last is ruled: a seat that acts after a draw holding more or fewer cards than its hand has (the
dealer gave it more or fewer than it threw away; the draw's procedures are house rules, catalogue TDA-22A).

The initial deal is modelled as the sequence of ``CardDealt`` events: one card per pass, clockwise from the
first dealt-in seat left of the button, ``hole_cards_per_player`` passes. The deal is over at the first
event of the game proper (an action, a burn, a board card, a pot). A condition found before the misdeal
cut-off (conflict C9) is a misdeal; after it, play goes on (TDA-22D).

A camera misses a card now and then (a blurred picture, a card landing under the dealer's hand). A dealer pitches at
a steady pace, and one who skips a seat goes on at that pace; so where the rotation skips a seat between two cards
pitched a card's interval or more further apart than the deal's usual interval (``UNSEEN_GAP``), a card went to that
seat unseen, and it counts: the camera missing a card is no short deal.

A burn seen while seats still wait for cards ends the deal only if no card is dealt after it: a hole card caught
near the muck (a picture frozen as it flew) reads as a burn, and the deal going on says it was none.
"""

from __future__ import annotations

from itertools import pairwise
from statistics import median

from tablewatch.events import (
    BoardCardDealt,
    BoxedCard,
    CardBurned,
    CardDealt,
    CardExposed,
    CardsTabled,
    Event,
    HandEnded,
    HandStarted,
    Party,
    PotGathered,
    PotPushed,
    Severity,
    Violation,
)
from tablewatch.rules.checks.base import (
    ACTION_EVENTS,
    ActionTally,
    HandCheck,
    is_action,
    is_standard_card,
    seat_list,
)
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot

MISDEAL = (
    "Misdeal. Redeal the hand exactly as before: the button does not move, no new players, the same limits; "
    "absent or penalised players are dealt in and their cards mucked at once (TDA-22C)."
)
NO_MISDEAL = "No misdeal once substantial action has taken place; play goes on (TDA-22D)."
DEAL_ENDERS = (CardBurned, BoardCardDealt, CardsTabled, PotGathered, PotPushed, HandEnded)
# Two cards seen landing this close together can't be put in order: a camera times each card as it comes to rest,
# and no dealer pitches two cards this fast (one every 0.3-0.6 s).
SEEN_TOGETHER_S = 0.25
UNSEEN_GAP = 0.6  # of the deal's usual interval, past the intervals of the cards seen: room for a card not seen


class MisdealCheck(HandCheck):
    rule_id = "TDA-22A"
    committed_by = Party.DEALER
    events = (*DEAL_ENDERS, CardDealt, BoxedCard, CardExposed, *ACTION_EVENTS)

    def __init__(self, profile: RuleProfile) -> None:
        self.redeal: tuple[int | None, tuple[int, ...]] | None = None  # (button, seats) of a misdealt hand
        super().__init__(profile)

    def reset(self) -> None:
        self.seats: tuple[int, ...] = ()
        self.button: int | None = None
        self.n_cards = 2
        self.dealt: list[int] = []  # seats in the order the cards were pitched
        self.dealt_at: list[float] = []  # ... and when each came to rest
        self.counts: dict[int, int] = {}
        self.exposed: dict[int, int] = {}
        self.boxed = 0
        self.deal_over = False
        self.reported: set[str] = set()  # conditions already reported this hand
        self.tally = ActionTally()
        self.wrong_count: dict[int, int] = {}  # seats with a wrong count, to rule on after substantial action
        self.button_short = False
        self.misdealt = False  # a misdeal was called in this hand: it is redealt
        self.wrong_first: CardDealt | None = None  # the deal's first card, seen at the wrong seat: to rule on
        self.burn_midway: CardBurned | None = None  # a burn with seats short: the deal's end, unless cards follow

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if snapshot.draw_game:
            return self._after_the_draw(snapshot, event)
        if isinstance(event, HandStarted):
            self.seats, self.button = tuple(sorted(event.seats)), event.button
            return self._redeal(snapshot, event)
        found: list[Violation] = []
        action = is_action(event)
        if not self.deal_over and self.dealt and (action or isinstance(event, DEAL_ENDERS)):
            found += self._deal_ends(snapshot, event)
        if isinstance(event, CardDealt):
            self.burn_midway = None  # the deal went on: what looked like a burn was none
            found += self._card_dealt(snapshot, event) if not self.deal_over else self._late_card(event)
        elif isinstance(event, BoxedCard):
            found += self._boxed(snapshot, event)
        found += self._non_standard(snapshot, event)
        if action:
            self.redeal = None  # the hand is played on (TDA-22D): the next one is not a redeal
            found += self._action(snapshot, event)
        if isinstance(event, PotPushed):
            self.redeal = None  # the hand was played out: the next one is not a redeal
        return found

    # --- the initial deal ----------------------------------------------------------------------------

    def _deal_ends(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        """The deal is over at ``event``; a burn while seats are short waits for the next event to say so."""
        if isinstance(event, CardBurned) and self.burn_midway is None and self._short():
            self.burn_midway = event
            return []
        ended_at, self.burn_midway = self.burn_midway or event, None
        self.deal_over = True
        found = self._wrong_start(snapshot)
        return found + ([] if self.misdealt else self._end_of_deal(snapshot, ended_at))  # a misdeal's cards don't count

    def _short(self) -> bool:
        return any(count < self.n_cards for count in self._cards_held().values())

    def _cards_held(self) -> dict[int, int]:
        """Each seat's cards from the deal so far, those the camera missed included."""
        unseen = self._unseen_cards()
        return {seat: self._effective(seat) + unseen.get(seat, 0) for seat in self.seats}

    def _card_dealt(self, snapshot: HandSnapshot, event: CardDealt) -> list[Violation]:
        if not self.seats:
            self.seats, self.button = snapshot.seats, snapshot.button
        self.n_cards = snapshot.hole_cards_per_player
        seat, index = event.seat, len(self.dealt)
        if seat is None:
            return []
        self.dealt.append(seat)
        self.dealt_at.append(event.ts)
        self.counts[seat] = self.counts.get(seat, 0) + 1
        found = self._order(snapshot, event, seat, index)
        if event.face_up:
            self.exposed[seat] = self.exposed.get(seat, 0) + 1
            found += self._exposed(snapshot, event, index)
        return found

    def _order(self, snapshot: HandSnapshot, event: CardDealt, seat: int, index: int) -> list[Violation]:
        """A card to a seat not in play, or a deal that starts at the wrong seat. A seat skipped or served twice
        later on shows in the counts at the end of the deal (TDA-22A(4)/(5)).

        A first card at the wrong seat is ruled on at the second card, or the third where the first two were seen
        together the other way round (``SEEN_TOGETHER_S``): a deal that then goes on from the right seat was only
        out of order as the camera timed its first two cards."""
        if seat not in self.seats:
            return self._misdeal(snapshot, event, "22A(3)", "Cards dealt to a seat not in play",
                                 f"Seat {seat} got a card but is not dealt in (dealt in: {seat_list(self.seats)}).")
        if index > 2:
            return []
        order = self._deal_order()
        if not order:
            return []
        expected = order[index % len(order)]
        if index == 0:
            self.wrong_first = event if seat != expected else None
            return []
        if self.wrong_first is None:
            return []
        if index == 1 and seat == order[0] and self.wrong_first.seat == expected \
                and event.ts - self.wrong_first.ts <= SEEN_TOGETHER_S:
            return []  # swapped as seen, perhaps: the third card tells
        if index == 2 and seat == expected:
            self.wrong_first = None
        return self._wrong_start(snapshot)

    def _wrong_start(self, snapshot: HandSnapshot) -> list[Violation]:
        """The misdeal of a deal that started at the wrong seat, once it is known (``wrong_first``)."""
        first, self.wrong_first = self.wrong_first, None
        if first is None:
            return []
        order = self._deal_order()
        return self._misdeal(snapshot, first, "22A(2)", "Deal started at the wrong seat",
                             f"The first card went to seat {first.seat}; the deal starts at seat {order[0]}, the "
                             f"first seat left of the button (seat {self.button}).")

    def _exposed(self, snapshot: HandSnapshot, event: CardDealt, index: int) -> list[Violation]:
        total = sum(self.exposed.values())
        card = event.card or "a card"
        if index < 2:
            return self._misdeal(snapshot, event, "22A(7)", "First or second card of the deal exposed",
                                 f"Card {index + 1} of the deal ({card}, seat {event.seat}) was dealt face up.")
        if total == 2:
            return self._misdeal(snapshot, event, "22A(7)", "Two cards exposed in the deal",
                                 f"A second card ({card}, seat {event.seat}) was dealt face up during the deal.")
        if total == 1:
            return [self.violation(
                snapshot, event, severity=Severity.ADVISORY, title="One card exposed in the deal",
                observed=f"Card {index + 1} of the deal ({card}, seat {event.seat}) was dealt face up.",
                ruling="One exposed card is not a misdeal (TDA-22A(7)): the deal goes on, the card is replaced "
                "and used as the burn card (HOUSE-002-2.5(f)); the button may get two cards in a row (TDA-22B).")]
        return []

    def _boxed(self, snapshot: HandSnapshot, event: BoxedCard) -> list[Violation]:
        self.boxed += 1
        if self.boxed >= 2:
            return self._misdeal(snapshot, event, "22A(1)", "Two boxed cards in the deck",
                                 f"{self.boxed} cards found face up in the deck during the deal.")
        return [self.violation(
            snapshot, event, rule_id="HOUSE-002-2.7.4", severity=Severity.ADVISORY, title="Boxed card",
            observed=f"A card ({event.card or 'unknown'}) was found face up in the deck.",
            ruling="A single boxed card is ignored and replaced by the next card (HOUSE-002-2.7.4); a second one "
            "during the deal is a misdeal (TDA-22A(1)).")]

    def _end_of_deal(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        found: list[Violation] = []
        effective = self._cards_held()
        extra = sum(max(0, c - self.n_cards) for c in effective.values())
        for seat, count in effective.items():
            if count == 0:
                found += self._misdeal(snapshot, event, "22A(4)", "A player was not dealt in",
                                       f"Seat {seat} is in the hand but got no cards.", seats=(seat,),
                                       key=f"none{seat}")
            elif seat == self.button and count < self.n_cards:
                self.button_short = True
                found.append(self.violation(
                    snapshot, event, rule_id="TDA-24", title="Button dealt too few cards", seats=(seat,),
                    observed=f"The button (seat {seat}) has {count} card(s) of {self.n_cards}.",
                    ruling="Not a misdeal. The missing card may be dealt to the button, even after substantial "
                    "action, if he has not acted; once he checks or bets his hand is dead (TDA-24)."))
            elif count != self.n_cards:
                found += self._wrong_count(snapshot, event, seat, count, extra)
        return found

    def _wrong_count(self, snapshot: HandSnapshot, event: Event, seat: int, count: int, extra: int) -> list[Violation]:
        if count == self.n_cards + 1 and extra == 1 and self.profile.extra_hole_card == "becomes_burn":
            return [self.violation(
                snapshot, event, rule_id="HOUSE-002-2.7.6", severity=Severity.ADVISORY, seats=(seat,),
                title="Extra hole card", observed=f"Seat {seat} was dealt {count} cards of {self.n_cards}.",
                ruling="The extra card goes back on the deck and is used as the flop burn (HOUSE-002-2.7.6).")]
        self.wrong_count[seat] = count
        return self._misdeal(snapshot, event, "22A(5)", "Wrong number of hole cards",
                             f"Seat {seat} was dealt {count} card(s) of {self.n_cards}.", seats=(seat,),
                             key=f"count{seat}")

    def _effective(self, seat: int) -> int:
        """Cards a seat holds: an exposed card that was replaced after the passes does not count."""
        count = self.counts.get(seat, 0)
        return count - min(self.exposed.get(seat, 0), max(0, count - self.n_cards))

    def _unseen_cards(self) -> dict[int, int]:
        """Cards the deal's rotation and pace say went to each seat unseen (the module docstring). None where the
        cards seen are not the rotation's in order, or no fewer."""
        order = self._deal_order()
        expected = list(order) * self.n_cards
        if len(self.dealt) < 3 or len(self.dealt) >= len(expected):
            return {}
        usual = median(b - a for a, b in pairwise(self.dealt_at))
        unseen: dict[int, int] = {}
        place = 0  # in the rotation's order
        for k, seat in enumerate(self.dealt):
            skipped = []
            while place < len(expected) and expected[place] != seat:
                skipped.append(expected[place])
                place += 1
            if place == len(expected):
                return {}  # not the rotation's order: the counts speak for themselves
            if skipped and k and self.dealt_at[k] - self.dealt_at[k - 1] >= (len(skipped) + UNSEEN_GAP) * usual:
                for missed in skipped:
                    unseen[missed] = unseen.get(missed, 0) + 1
            place += 1
        return unseen

    def _deal_order(self) -> tuple[int, ...]:
        seats = self.seats
        if not seats:
            return ()
        button = self.button if self.button is not None else seats[-1]
        first = next((i for i, s in enumerate(seats) if s > button), 0)
        return seats[first:] + seats[:first]

    # --- after the deal ------------------------------------------------------------------------------

    def _late_card(self, event: CardDealt) -> list[Violation]:
        if event.seat is not None:
            self.counts[event.seat] = self.counts.get(event.seat, 0) + 1
            if event.seat == self.button and self._effective(event.seat) >= self.n_cards:
                self.button_short = False  # TDA-24: the missing card was added in time
        return []

    def _action(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        found: list[Violation] = []
        if self.button_short and event.seat is not None and event.seat == self.button:
            self.button_short = False
            found.append(self.violation(
                snapshot, event, rule_id="TDA-24", title="Short button acted: hand dead",
                observed=f"The button (seat {event.seat}) acted holding {self._effective(event.seat)} card(s).",
                ruling="The button acted before the missing card was dealt: his hand is dead (TDA-24)."))
        self.tally.observe(snapshot, event)
        if self.wrong_count and self.tally.past_misdeal_cutoff(self.profile):
            for seat, count in sorted(self.wrong_count.items()):
                found.append(self.violation(
                    snapshot, event, rule_id="TDA-25", title="Wrong number of hole cards after substantial action",
                    seats=(seat,), observed=f"Seat {seat} still holds {count} card(s) of {self.n_cards} after "
                    "substantial action.",
                    ruling=f"No misdeal now (TDA-22D): seat {seat}'s hand is dead and not shown; the deal goes on "
                    "with exactly one burn per street: never burn two to restore the 'original' flop, never use "
                    "the extra card as the burn (TDA-25, TDA22-ILL-38)."))
            self.wrong_count.clear()
        return found

    def _after_the_draw(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        """Draw games: a seat's first action after a draw, holding the wrong number of cards (TDA-25)."""
        seat, key = event.seat, f"{event.seat}@{snapshot.phase}"
        if not is_action(event) or seat is None or not snapshot.discarded or key in self.reported:
            return []
        held = snapshot.hole_cards_dealt.get(seat, 0) - snapshot.discarded.get(seat, 0)
        if held == snapshot.hole_cards_per_player:
            return []
        self.reported.add(key)
        return [self.violation(
            snapshot, event, rule_id="TDA-25", title="Wrong number of cards after the draw", seats=(seat,),
            observed=f"Seat {seat} acted after the draw holding {held} card(s) of {snapshot.hole_cards_per_player}: "
            f"dealt {snapshot.hole_cards_dealt.get(seat, 0)}, thrown away {snapshot.discarded.get(seat, 0)}.",
            ruling=f"A wrong number of cards found after substantial action: seat {seat}'s hand is dead and not "
            "shown, and the deal goes on (TDA-25; the draw's own procedures are the house's, TDA-22A).")]

    def _non_standard(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        cards: tuple[str | None, ...] = ()
        if isinstance(event, CardDealt | CardExposed | BoardCardDealt | BoxedCard | CardBurned):
            cards = (event.card,)
        elif isinstance(event, CardsTabled):
            cards = event.cards
        odd = [c for c in cards if c is not None and not is_standard_card(c)]
        if not odd or "22A(6)" in self.reported:
            return []
        if not self.tally.past_misdeal_cutoff(self.profile):
            return self._misdeal(snapshot, event, "22A(6)", "Non-standard card",
                                 f"A card that is not in the deck ({', '.join(odd)}) was found.")
        self.reported.add("22A(6)")
        return [self.violation(
            snapshot, event, rule_id="TDA-22D", severity=Severity.ADVISORY, title="Non-standard card ignored",
            observed=f"A card that is not in the deck ({', '.join(odd)}) was found after substantial action.",
            ruling="After substantial action a non-standard card is ignored like a scrap of paper and play goes "
            "on (TDA-22D).")]

    def _redeal(self, snapshot: HandSnapshot, event: HandStarted) -> list[Violation]:
        """TDA-22C: the hand after a misdeal is a redeal: the button does not move and no new player joins."""
        if self.redeal is None:
            return []
        button, seats = self.redeal
        self.redeal = None
        new = sorted(set(event.seats) - set(seats))
        if event.button == button and not new:
            return []
        changes = ([f"the button moved from seat {button} to seat {event.button}"] if event.button != button else [])
        changes += [f"new seat(s) {seat_list(new)} dealt in"] if new else []
        return [self.violation(
            snapshot, event, rule_id="TDA-22C", title="Redeal after a misdeal changed the hand",
            observed=f"After the misdeal, {' and '.join(changes)}.", seats=new,
            ruling="A misdeal is redealt exactly as the hand it replaces: the button does not move, no new players "
            "are dealt in, the limits stay the same (TDA-22C).")]

    def _misdeal(self, snapshot: HandSnapshot, event: Event, condition: str, title: str, observed: str, *,
                 seats: tuple[int, ...] = (), key: str | None = None) -> list[Violation]:
        key = key or condition
        if key in self.reported:
            return []
        self.reported.add(key)
        if self.tally.past_misdeal_cutoff(self.profile):
            return [self.violation(snapshot, event, rule_id="TDA-22D", severity=Severity.ADVISORY, seats=seats,
                                   title=f"{title} (after substantial action)", observed=observed, ruling=NO_MISDEAL)]
        self.redeal, self.misdealt = (self.button, self.seats), True
        return [self.violation(snapshot, event, rule_id=f"TDA-{condition}", title=f"Misdeal: {title.lower()}",
                               observed=observed, ruling=MISDEAL, seats=seats)]
