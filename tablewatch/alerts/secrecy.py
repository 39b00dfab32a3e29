"""What the floor and broadcast roles may see of a hand in play: the one policy for every payload they can read.

Until a hand is over, no card identity reaches a topic those roles read: hole, burn and face-down board
cards lose their identity on ``event``, and every card named in an alert's or a ruling's text (``observed``,
``ruling``, ``title``) or drawn on an evidence still is written ``??``. The cards in play go to
``secure/holecards`` (surveillance) as they are dealt; once the hand is over the publisher sends the alert's
full text in a new revision and the finished hand with its hole cards.

Text is redacted by the shape of a card (``As``, ``Td``, runs like ``AsKd``), not by a list of the cards
dealt: a card named in an alert may never have been seen as an event here (a monitor started mid-hand, a
misread), and a public card named beside a seat can still tell what that seat holds (``As seen at seat 1
and again at seat 2``). A public card is hidden in alert text too, until the hand is over.
"""

from __future__ import annotations

import dataclasses
import re

from tablewatch.events import BoardCardDealt, CardBurned, CardDealt, Event, HandEnded, HandStarted, Violation

CARDS = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")  # "As", "Td", "AsKd"
HIDDEN = "??"


def hide_cards(text: str) -> str:
    """``text`` with every card identity written ``??`` (``"As seen at seat 1"`` -> ``"?? seen at seat 1"``)."""
    return CARDS.sub(lambda m: HIDDEN * (len(m.group()) // 2), text)


def redact_event(event: Event) -> tuple[Event, bool]:
    """The card event as the floor may see it: hole, burn and face-down board cards lose their identity.

    Always, not only between HandStarted and HandEnded: a card is dealt only while a hand is on, and a
    monitor started in the middle of a hand must not leak the cards of that hand either.
    """
    if isinstance(event, CardDealt | BoardCardDealt) and not event.face_up and (event.card or event.doubts):
        return dataclasses.replace(event, card=None, doubts=()), True  # (a doubt names the card too)
    if isinstance(event, CardBurned) and event.card is not None:
        return dataclasses.replace(event, card=None), True
    return event, False


def redact_violation(violation: Violation) -> tuple[Violation, bool]:
    """The violation with the cards of its text hidden; True when anything was hidden."""
    hidden = dataclasses.replace(violation, title=hide_cards(violation.title),
                                 observed=hide_cards(violation.observed), ruling=hide_cards(violation.ruling))
    changed = (hidden.title, hidden.observed, hidden.ruling) != (violation.title, violation.observed,
                                                                 violation.ruling)
    return (hidden, True) if changed else (violation, False)


class HandSecrecy:
    """Follows the table's hands from its event stream and says what may be shown now.

    A hand is in play from HandStarted (or from the first hidden card, for a monitor started mid-hand)
    to HandEnded. A finding is secret while any hand is in play, or while its own hand has not been seen
    to end: a late finding of the last hand waits for the next hand to end too.
    """

    def __init__(self) -> None:
        self.in_play = False
        self._ended: set[int] = set()

    def observe(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            self.in_play = True
            self._ended.discard(event.hand_no)
        elif isinstance(event, HandEnded):
            self.in_play = False
            self._ended.add(event.hand_no)
        elif redact_event(event)[1]:
            self.in_play = True

    def secret(self, hand_no: int | None) -> bool:
        return self.in_play or (hand_no is not None and hand_no not in self._ended)

    def event(self, event: Event) -> tuple[Event, bool]:
        """What the ``event`` topic may carry of ``event`` now, and whether anything was hidden."""
        if isinstance(event, Violation):
            return self.violation(event)
        return redact_event(event)

    def violation(self, violation: Violation) -> tuple[Violation, bool]:
        """The finding as the floor may read it now, and whether anything was hidden."""
        if not self.secret(violation.hand_no):
            return violation, False
        return redact_violation(violation)

    def text(self, text: str, hand_no: int | None) -> str:
        """A caption or label drawn on evidence now (an image is not revised later)."""
        return hide_cards(text) if self.secret(hand_no) else text
