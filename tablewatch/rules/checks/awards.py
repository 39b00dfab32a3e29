"""Awarding the pot: pushes compared with the engine's awards (TDA-5 misaward, correctable per TDA-13),
and side pots settled before the main pot (TDA22-21; the pots themselves, ENG-21, are the engine's).

The engine puts what each seat should get in ``snapshot.expected_awards`` at the showdown; with no
expected awards in the snapshot there is nothing to compare and the checks stay silent. The awards rest on the cards
as the camera read them: where it could not tell a card from another of the other suit (an event's ``doubts``) and
the other reading gives or takes a flush, a misaward goes out as an advisory that says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from tablewatch.events import (
    BoardCardDealt,
    CardsTabled,
    Event,
    HandEnded,
    HandStarted,
    Party,
    PotPushed,
    Severity,
    Violation,
)
from tablewatch.rules.checks.base import HandCheck
from tablewatch.rules.handstate import doubted
from tablewatch.rules.snapshot import HandSnapshot

CORRECTABLE = (
    "Anyone who sees chips pushed to the wrong player or a wrong count must say so at once; a misaward can be "
    "corrected until substantial action in the next hand (TDA-5, TDA-13)."
)


def push_amount(event: PotPushed) -> int | None:
    if event.value is not None:
        return event.value
    return event.chips.value if event.chips.count else None


def awards_of_this_hand(snapshot: HandSnapshot, event: Event) -> dict[int, int]:
    """The engine's awards in the snapshot, unless the event starts a hand: the snapshot checks see with it is
    still the last hand's, whose awards a hand with no showdown cards seen would otherwise be judged by."""
    if not snapshot.expected_awards or isinstance(event, HandStarted):
        return {}
    return dict(snapshot.expected_awards)


def flush_in(hole: Sequence[str], board: Sequence[str]) -> bool:
    """Whether a flush can be made of these cards: five of a suit among them, and with four hole cards or more
    (Omaha) two of them from the hand and three from the board."""
    suits, on_board = Counter(c[-1] for c in hole), Counter(c[-1] for c in board)
    if len(hole) >= 4:
        return any(n >= 2 and on_board[suit] >= 3 for suit, n in suits.items())
    return any(n >= 5 for n in (suits + on_board).values())


def suit_in_doubt(shown: Mapping[int, Sequence[str]], board: Sequence[str], doubts: Mapping[str, str]) -> str:
    """Why the hands shown may rank otherwise than as read: a card the camera could not tell from another of the
    other suit, read that way, gives or takes a seat's flush; empty when no doubt does."""
    def flushes(swap: Mapping[str, str]) -> set[int]:
        the_board = [swap.get(c, c) for c in board]
        return {seat for seat, hole in shown.items() if flush_in([swap.get(c, c) for c in hole], the_board)}

    as_read = flushes({})
    in_play = set(board).union(*shown.values()) if shown else set(board)
    for card, other in sorted(doubts.items()):
        if card in in_play and flushes({card: other}) != as_read:
            return f"the camera could not tell {card} from {other}, and read as {other} the hands rank otherwise"
    return ""


def _awards(expected: Mapping[int, int]) -> str:
    return ", ".join(f"seat {s}: {v}" for s, v in sorted(expected.items()) if v) or "nothing"


class PotAwardCheck(HandCheck):
    """Pushes judged against ``expected_awards``; a push made before the engine knows the awards (the last
    hand still face down) is judged as soon as it does."""

    rule_id = "TDA-5"
    on_the_betting = True
    committed_by = Party.DEALER

    def reset(self) -> None:
        self.expected: dict[int, int] = {}
        self.pushed: dict[int, int] = {}
        self.unjudged: list[PotPushed] = []
        self.amounts_known = True
        self.reported: set[tuple[str, int]] = set()
        self.shown: dict[int, tuple[str, ...]] = {}  # the hands tabled, as read
        self.doubts: dict[str, str] = {}  # card read -> a card the camera did not tell it apart from

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, CardsTabled | BoardCardDealt):
            self.doubts.update(event.doubts)
            if isinstance(event, CardsTabled) and event.seat is not None:
                self.shown[event.seat] = event.cards
        if awards := awards_of_this_hand(snapshot, event):
            self.expected = awards
        if isinstance(event, PotPushed) and event.seat is not None:
            self.unjudged.append(event)
        found: list[Violation] = []
        if self.expected:
            pushes, self.unjudged = self.unjudged, []
            for push in pushes:
                found += self._push(snapshot, push)
        if isinstance(event, HandEnded) and self.expected and self.pushed and self.amounts_known:
            found += self._shortfall(snapshot, event)
        return found

    def _push(self, snapshot: HandSnapshot, event: PotPushed) -> list[Violation]:
        seat = event.seat
        assert seat is not None
        amount = push_amount(event)
        self.amounts_known &= amount is not None
        self.pushed[seat] = self.pushed.get(seat, 0) + (amount or 0)
        owed = self.expected.get(seat, 0)
        if owed == 0:
            return self._misaward(snapshot, event, seat, f"Seat {seat} was pushed {amount or 'chips'} but wins "
                                  f"nothing in this hand (awards: {_awards(self.expected)}).")
        if amount is not None and self.pushed[seat] > owed + self.profile.misaward_tolerance:
            return self._misaward(snapshot, event, seat, f"Seat {seat} has been pushed {self.pushed[seat]}; it "
                                  f"should get {owed} (awards: {_awards(self.expected)}).")
        return []

    def _shortfall(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        found = []
        for seat, owed in sorted(self.expected.items()):
            got = self.pushed.get(seat, 0)
            if owed - got > self.profile.misaward_tolerance:
                found += self._misaward(snapshot, event, seat, f"Seat {seat} was pushed {got} but should get "
                                        f"{owed} (awards: {_awards(self.expected)}).")
        return found

    def _misaward(self, snapshot: HandSnapshot, event: Event, seat: int, observed: str) -> list[Violation]:
        key = ("short" if isinstance(event, HandEnded) else "over", seat)
        if key in self.reported:
            return []
        self.reported.add(key)
        found = self.violation(snapshot, event, title="Pot misawarded", seats=(seat,), observed=observed,
                               ruling=f"Cards speak: the pot goes as the hands read ({_awards(self.expected)}). "
                               + CORRECTABLE)
        board = [c for c in snapshot.board if c is not None]
        return [doubted(found, suit_in_doubt(self.shown, board, self.doubts))]


class SidePotOrderCheck(HandCheck):
    """TDA22-21: decide the side pot(s) first, then the main pot. Observable as the order of the pushes: a
    seat all-in for less can only win the lower layers, so it is paid after the seats that put in more and
    contest a side pot. Needs the starting stacks (``HandStarted.stacks``)."""

    rule_id = "TDA22-21"
    on_the_betting = True
    committed_by = Party.DEALER

    def reset(self) -> None:
        self.start_stacks: dict[int, int] = {}
        self.expected: dict[int, int] = {}
        self.pushed: dict[int, int] = {}
        self.all_in: set[int] = set()  # seats seen all-in this hand (a complete hand's snapshot has paid them)
        self.behind: dict[int, int] = {}  # chips behind per seat while the hand was live
        self.unjudged: list[PotPushed] = []
        self.reported = False

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, HandStarted) and len(event.stacks) == len(event.seats):
            self.start_stacks = dict(zip(event.seats, event.stacks, strict=True))
        if awards := awards_of_this_hand(snapshot, event):
            self.expected = awards
        if snapshot.phase not in ("complete", "idle"):
            self.all_in.update(snapshot.all_in)
            self.behind = dict(snapshot.stacks)
        if isinstance(event, PotPushed) and event.seat is not None:
            self.unjudged.append(event)
        if not self.expected:
            return []
        pushes, self.unjudged = self.unjudged, []
        return [v for push in pushes for v in self._push(snapshot, push)]

    def _push(self, snapshot: HandSnapshot, event: PotPushed) -> list[Violation]:
        seat = event.seat
        assert seat is not None
        waiting = [s for s, owed in self.expected.items()
                   if s != seat and owed > self.pushed.get(s, 0) and self._deeper(s, seat)]
        self.pushed[seat] = self.pushed.get(seat, 0) + (push_amount(event) or 0)
        if self.reported or seat not in self.all_in or not waiting:
            return []
        self.reported = True
        return [self.violation(
            snapshot, event, severity=Severity.ADVISORY, title="Main pot pushed before the side pot",
            seats=(seat, *waiting),
            observed=f"All-in seat {seat} was paid while seat(s) {', '.join(map(str, sorted(waiting)))}, who "
            "contest a side pot, were still owed chips.",
            ruling="Side pots are settled separately and first, then the main pot (TDA22-21); keep the layers apart "
            "until each is awarded.")]

    def _deeper(self, other: int, seat: int) -> bool:
        """``other`` contests a side pot above all-in ``seat``: it put more chips into the hand. Contributions
        are the starting stack less the chips behind; without starting stacks nothing is judged (a split main
        pot pays an all-in player and a caller in either order)."""
        return self._contribution(other) > self._contribution(seat) >= 0

    def _contribution(self, seat: int) -> int:
        if seat not in self.start_stacks or seat not in self.behind:
            return -1
        return self.start_stacks[seat] - self.behind[seat]
