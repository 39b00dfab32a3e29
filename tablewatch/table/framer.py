"""The hand's frame found from the table's own devices: where a hand starts and ends, its button, the seats dealt
in and their stacks, written as ``HandStarted`` and ``HandEnded`` into the event stream before the rules.

A hand starts at the first of these (any one is enough; the others, within the same deal, confirm it):
- the dealer's "new hand" on the console (``NewHandPressed``);
- blinds or antes going forward between hands (a ``BetMotion``, or the RFID ledger's chips from a seat's stack to
  its betting zone; at a table with readers, only chips they count: what the camera alone saw may be cards swept);
- the first hole card pitched (``CardDealt``) between hands.

The seats dealt in are those that get a card in the deal's first round, which ends when a seat gets its second card:
the round's first seat once every seat with chips has had one, or the first round's last seat (cards seen at that
same moment still count: one frame shows them in no order). Until then a seat with chips seen getting its first card
in the second round joins the round (the camera missed its first); an empty seat does not. At a table no camera
watches it ends at the first betting action or after ``DEAL_WAIT_S``; the seats are then those the console opened,
else those the RFID ledger sees chips in, else the last hand's, else those that posted. (Betting only the camera saw
before the first card is none.) A lone card followed by that seat's next is no round: a stray (chips read as a card
as a blind goes in), dropped, and the round begins again there; so a player who left is not dealt in because his
chips are still counted. A lone card whose face was read face up, dealt again, is a misdeal (TDA-22A(7)): that hand
goes to the rules with its exposed card and ends void (``HandEnded.void``), and the redeal is the next hand, in the
same frame.
``HandStarted`` goes out once they are known, stamped at the start signal's time, and the events held meanwhile
follow it in order; but for a seat's whole stack going, or a stack put down on an empty seat, before that seat's
first card or chips of the deal: a player leaving or sitting down as the deal began, which the rules take as
between hands (the hand's stacks count the new player's chips).

Its button is the console's (``button N``); else the dealer button puck the camera saw since the last hand started
(``ButtonSeen``, the latest); else the big blind's seat places it, as the blinds were seen going forward (what the
table did, whoever came and went between hands); else the rotation from the last hand's (``rules.button``, the
profile's dead or moving button); else, for a table's first hand, the dealer's first round does: its last card goes
to the button. A console's or seen button the rotation puts elsewhere stands, with a TDA22-32 advisory.
Its stacks are what the RFID ledger counts in each seat's stack and betting zones (the blinds already in front are
still the player's) when every seat dealt in has chips there; else they are unknown (empty): the engine plays on
and says so.
Its dealer is the one the console last named (``dealer NAME``, a dealer push), for the statistics.
Blinds and antes are the game's (``GameConfig``), or with a tournament's levels (``table.levels``) those of the
level in force when the hand starts, written into ``HandStarted``; blinds seen posted at another level are a
TDA-14 finding, sent right after it.

A hand ends once its pot has been pushed and then its cards are mucked, or when the next hand starts (a press,
blinds going forward or a card pitched once the pot is pushed, or, where no RFID reader counts the pot, once all
but one seat have mucked and chips went to the pot: a hand won without a showdown may show the camera no push;
a misdeal's cards taken back before any betting are not one), or when the stream ends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    ButtonPlaced,
    ButtonSeen,
    CardDealt,
    CardExposed,
    CardsMucked,
    Chips,
    ChipsAppeared,
    ChipsLeftTable,
    ChipsMoved,
    DealerChanged,
    Declaration,
    Event,
    HandEnded,
    HandStarted,
    LevelChanged,
    NewHandPressed,
    Party,
    PlayerNamed,
    PotGathered,
    PotPushed,
    SeatStatus,
    Severity,
    Tap,
    Violation,
    Zone,
    bet_zone,
    stack_zone,
)
from tablewatch.rules.button import Positions, check_button, next_positions
from tablewatch.rules.chipreading import Finding
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.table.levels import LevelClock, LevelConfig

# Without cards seen (no camera), how long after the start signal the seats are taken from what else is known.
DEAL_WAIT_S = 15.0
# Cards the camera reports this close together came to rest in the same analysed frame: their order is not the deal's.
SAME_MOMENT_S = 0.05
# Events after which the deal is over: the first round of cards, whatever was seen of it, is all there is.
BETTING = (Declaration, Tap, CardsMucked, BoardCardDealt, PotGathered, PotPushed)

StackChips = Callable[[str], Chips]


@dataclass
class _Deal:
    """A hand whose start is signalled and whose first round of cards is still being dealt."""

    ts: float
    table: str
    first_round: list[int] = field(default_factory=list)  # seats in the order their first card reached them
    first_card: float | None = None  # when the deal's first card was pitched: chips forward before it are posts
    round_over: float | None = None  # when a seat got its second card: cards seen at that moment still join the round
    repeated: list[int] = field(default_factory=list)  # seats seen getting a second card
    round_last: int | None = None  # the first round's last seat when the second round began
    forward: list[tuple[float, int, str, int]] = field(default_factory=list)  # (when, seat, source, value)
    gathered: dict[int, int] = field(default_factory=dict)  # seat -> value it sent to the pot (antes) in the deal
    held: list[Event] = field(default_factory=list)

    @property
    def posts(self) -> dict[int, int]:
        """Seat -> value gone forward before the first card: the camera's and the ledger's report of one post
        (either may come late) count once, and a seat's later chips (no card seen yet) are bets, not its post."""
        first: dict[tuple[int, str], int] = {}
        for ts, seat, source, value in self.forward:
            if self.first_card is None or ts <= self.first_card:
                first.setdefault((seat, source), value)
        posts: dict[int, int] = {}
        for (seat, _), value in first.items():
            posts[seat] = max(posts.get(seat, 0), value)
        return posts


@dataclass
class _Hand:
    start: HandStarted
    pushed: bool = False
    acted: bool = False  # betting seen: a new-hand press now is a new hand, not the confirmation of this one
    mucked: set[int] = field(default_factory=set)  # seats whose cards went
    gathered: bool = False  # chips went to the pot: betting happened (a misdeal's cards go back before any)
    push_counted: bool = False  # RFID readers count the pot: every push is seen, and a hand ends with one

    @property
    def live(self) -> set[int]:
        return set(self.start.seats) - self.mucked

    @property
    def decided(self) -> bool:
        """The pot is pushed, or, where no reader counts the pot, all but one seat have mucked after betting: the
        next deal or blinds are a new hand. (With readers a push always shows: cards taken for mucked, a bet read
        as a muck, start no hand.)"""
        return self.pushed or (not self.push_counted and self.gathered and len(self.live) <= 1)


class HandFramer:
    """Feed the table's events in time order; get them back with ``HandStarted``/``HandEnded`` where they belong."""

    def __init__(self, game: GameConfig, *, profile: RuleProfile | None = None,
                 stack_chips: StackChips | None = None, levels: LevelClock | None = None,
                 dealer: str | None = None) -> None:
        self.game = game
        self.levels = levels  # a tournament's levels (None: the game's stakes, every hand)
        self.profile = profile or RuleProfile()
        self.stack_chips = stack_chips  # the RFID ledger's count in a zone now (None: no readers)
        self.hand_no = 0
        self.button: int | None = None  # the console's button for the next hand
        self.seen_button: ButtonSeen | None = None  # the puck where the camera last saw it settle
        self._rotation_findings: list[Finding] = []  # a told button the rotation puts elsewhere, for the hand
        self.open_seats: dict[int, bool] = {}  # the console's seat open/closed
        self.level: int | None = None  # the console's level in force (the game's blinds stand until levels are set)
        self.dealer = dealer  # the dealer in the box: the configuration's, then as the console last named them
        self.players: dict[int, str] = {}  # the players' names by seat, as the console last named them
        self.last: HandStarted | None = None
        self._deal: _Deal | None = None
        self._hand: _Hand | None = None
        self._misdealt: _Deal | None = None  # a misdeal's deal, held until its redeal's seats are known
        self._seen = float("-inf")  # the latest event time fed

    def feed(self, event: Event) -> list[Event]:
        self._seen = max(self._seen, event.ts)
        if isinstance(event, HandStarted | HandEnded):  # a frame already told (a replay): it stands
            return [event]
        self._note_setup(event)
        if self._deal is not None:
            return self._deal_event(event)
        if self._starts_hand(event):
            out = self._end(event.ts) if self._hand is not None else []
            self._deal = _Deal(ts=event.ts, table=event.table)
            return out + self._deal_event(event)
        return self._hand_event(event)

    def tick(self, now: float) -> list[Event]:
        """Time passes on a quiet table: a deal no card came for is closed after ``DEAL_WAIT_S``."""
        if self._deal is not None and now - self._deal.ts >= DEAL_WAIT_S:
            return self._start()
        return []

    def flush(self) -> list[Event]:
        """The stream ends: what is held goes out and the hand in play ends."""
        out = self._start() if self._deal is not None else []
        if self._hand is not None:
            out += self._end(max(self._seen, self._hand.start.ts))
        return out

    # --- starting ---------------------------------------------------------------------------------------

    def _note_setup(self, event: Event) -> None:
        if isinstance(event, ButtonPlaced) and event.seat is not None:
            self.button = event.seat
        elif isinstance(event, ButtonSeen) and event.seat is not None:
            self.seen_button = event
        elif isinstance(event, SeatStatus) and event.seat is not None:
            self.open_seats[event.seat] = event.open
            if not event.open:  # the player left: whoever sits there next is named again
                self.players.pop(event.seat, None)
        elif isinstance(event, PlayerNamed) and event.seat is not None:
            if event.name:
                self.players[event.seat] = event.name
            else:
                self.players.pop(event.seat, None)
        elif isinstance(event, DealerChanged):
            self.dealer = event.dealer
        elif isinstance(event, LevelChanged):
            self.level = event.level
            if self.levels is not None:
                self.levels.announce(event.ts, event.level)

    def _starts_hand(self, event: Event) -> bool:
        """A start signal between hands: none is in play, or the one in play has been pushed."""
        between = self._hand is None or self._hand.decided
        if isinstance(event, NewHandPressed):  # within the same deal it confirms the start; after betting, a new hand
            return between or (self._hand is not None and self._hand.acted)
        pitched = isinstance(event, CardDealt) and event.seat is not None
        return between and (self._posted(event) or pitched)

    def _posted(self, event: Event) -> bool:
        """Chips going forward that may be a blind or an ante: with readers, those they count (the camera's report
        alone may be a winner's cards swept, overexposed white as chips; the readers count every post)."""
        return chips_forward(event) is not None and (self.stack_chips is None or event.source != "vision")

    def _deal_event(self, event: Event) -> list[Event]:
        deal = self._deal
        assert deal is not None
        if deal.round_over is not None and event.ts > deal.round_over + SAME_MOMENT_S:
            return self._start([event])
        if isinstance(event, CardDealt) and event.seat is not None:
            if event.seat in deal.first_round:
                if len(deal.first_round) >= 2:  # a second card: the first round is over, with this moment's cards
                    deal.round_last = deal.first_round[-1] if deal.round_last is None else deal.round_last
                    deal.repeated += [event.seat] * (event.seat not in deal.repeated)
                    if deal.round_over is None and self._round_done(deal):
                        deal.round_over = event.ts
                    deal.held.append(event)
                    return []
                if any(_card_at(e, event.seat) and _face_read(e) for e in deal.held):
                    return self._redeal(event)
                # A lone stray card (chips read as a card as the blind went in, no face read): the round begins
                # here, and the stray does not reach the rules.
                deal.first_round, deal.first_card = [], None
                deal.held = [e for e in deal.held if not _card_at(e, event.seat)]
            elif deal.repeated and not self._has_chips(event.seat):  # a card to a seat not in play, for the rules
                deal.held.append(event)
                return []
            deal.first_round.append(event.seat)
            deal.first_card = event.ts if deal.first_card is None else deal.first_card
        elif (posted := chips_forward(event)) is not None:
            seat, value = posted
            deal.forward.append((event.ts, seat, event.source, value))
        elif isinstance(event, ChipsMoved) and _to_pot(event):  # antes gathered as the cards are dealt
            _add(deal.gathered, Zone.parse(event.src).seat, event.chips.value)
        elif isinstance(event, CardsMucked) and self._cards_dealt(deal, event.seat) < self.game.hole_cards:
            return []  # nobody mucks a hand not yet dealt: the dealer took back a card turned over or misdealt
        deal.held.append(event)
        return self._start() if self._ends_deal(deal, event) else []

    def _ends_deal(self, deal: _Deal, event: Event) -> bool:
        """Betting, every seat the console opened dealt, or ``DEAL_WAIT_S`` gone. What the camera alone saw before
        the deal's first card is no betting: nobody acts without cards (the blinds' chips brightening under
        auto-exposure read as the pot gathered, and the hand began with every seat that has chips, one sitting
        out among them)."""
        if self._all_open_seats_dealt(deal) or event.ts - deal.ts >= DEAL_WAIT_S:
            return True
        return isinstance(event, BETTING) and (bool(deal.first_round) or event.source != "vision")

    @staticmethod
    def _cards_dealt(deal: _Deal, seat: int | None) -> int:
        return sum(1 for e in deal.held if isinstance(e, CardDealt) and e.seat == seat)

    def _redeal(self, card: CardDealt) -> list[Event]:
        """The deal's lone first card went face up and the deal begins again at that seat: a misdeal (TDA-22A(7))
        and its redeal. The misdealt deal is held until the redeal's first round names the seats; then it goes to
        the rules as a hand of its own, with its exposed card, ended void, and the redeal is the next hand in
        the same frame (TDA-22C: the button does not move). Its blinds stay in front: they place the button."""
        misdealt = self._deal
        assert misdealt is not None
        self._misdealt = misdealt
        self._deal = _Deal(ts=card.ts, table=card.table, forward=list(misdealt.forward),
                           gathered=dict(misdealt.gathered))
        return self._deal_event(card)

    def _void_hand(self, redeal: HandStarted) -> list[Event]:
        """The misdealt hand before its redeal (``_redeal``): the redeal's frame, its own start and events, and
        ``HandEnded`` void as the redeal begins."""
        misdealt, self._misdealt = self._misdealt, None
        if misdealt is None:
            return []
        void = dataclasses.replace(redeal, ts=misdealt.ts, hand_no=redeal.hand_no - 1)
        return [void, *misdealt.held, HandEnded(ts=redeal.ts, table=redeal.table, source="scene",
                                                hand_no=void.hand_no, void=True)]

    def _round_done(self, deal: _Deal) -> bool:
        """A second card ends the first round when the dealer has come round: it goes to the round's first seat and
        every seat with chips has had its first card; or the first round's last seat gets its second. Until then a
        seat with chips seen getting its first card joins the round: its first was missed (a seat not dealt in, a
        player sitting out with his chips, gets none in the second round either). (One seat's card turned over or
        taken back, as an exposed card is, is no second card while seats with chips wait for their first.)"""
        if deal.round_last in deal.repeated:
            return True
        if deal.repeated[0] != deal.first_round[0]:
            return False
        if self.stack_chips is None:
            return True
        with_chips = {seat for seat, chips in self._chips_by_seat().items() if chips.value > 0}
        return with_chips <= set(deal.first_round)

    def _has_chips(self, seat: int) -> bool:
        """Whether the readers count chips at ``seat`` (True where no readers count)."""
        return self.stack_chips is None or self._chips_by_seat((seat,))[seat].value > 0

    def _all_open_seats_dealt(self, deal: _Deal) -> bool:
        opened = {seat for seat, is_open in self.open_seats.items() if is_open}
        return len(opened) >= 2 and opened <= set(deal.first_round)

    def _start(self, after: list[Event] | None = None) -> list[Event]:
        deal = self._deal
        assert deal is not None
        self._deal = None
        seats = self._seats(deal)
        if len(seats) < 2:  # not a hand the rules can play: what was held goes on as it came
            misdealt, self._misdealt = self._misdealt, None
            return (misdealt.held if misdealt is not None else []) + deal.held + (after or [])
        self.hand_no += 1 + (self._misdealt is not None)  # (the misdealt hand takes the number before)
        level = self.levels.at(deal.ts) if self.levels is not None else None
        start = HandStarted(ts=deal.ts, table=deal.table, source="scene", hand_no=self.hand_no,
                            button=self._button(deal, seats, level), seats=seats, stacks=self._stacks(seats, deal),
                            dealer=self.dealer, players=tuple((s, self.players[s]) for s in seats if s in self.players),
                            **_stakes(level))
        self._hand, self.last, self.button = _Hand(start=start, push_counted=self.stack_chips is not None), start, None
        # a player sitting down or leaving with his stack as the deal began, before his first card or chips of it:
        # between hands for the rules (the stacks above already count his chips)
        ahead = [e for e in deal.held if _seat_changing(e) and not _in_the_deal(deal, e)]
        out: list[Event] = [*ahead, *self._void_hand(start), start, *self._posted_at_wrong_level(deal, start),
                            *self._rotation_advisories(start)]
        for event in [e for e in deal.held if e not in ahead] + (after or []):
            out += self._hand_event(event)
        return out

    def _seats(self, deal: _Deal) -> tuple[int, ...]:
        if len(deal.first_round) >= 2:
            return tuple(sorted(deal.first_round))
        opened = sorted(seat for seat, is_open in self.open_seats.items() if is_open)
        if len(opened) >= 2:
            return tuple(opened)
        if self.stack_chips is not None:
            counted = self._chips_by_seat()
            with_chips = sorted(seat for seat, chips in counted.items() if chips.value > 0)
            if len(with_chips) >= 2:
                return tuple(with_chips)
        if self.last is not None:
            return self.last.seats
        return tuple(sorted(deal.posts))

    def _posted_at_wrong_level(self, deal: _Deal, start: HandStarted) -> list[Violation]:
        """TDA-14: the blinds seen going forward before the deal ended, against the hand's level."""
        positions = _positions(start)
        small, big = deal.posts.get(positions.small_blind), deal.posts.get(positions.big_blind)
        if self.levels is None or small is None or big is None:
            return []  # both blinds not seen posted: nothing to compare
        findings = self.levels.posted_findings(hand_started=start.ts, small_blind=small, big_blind=big)
        return [Violation(ts=start.ts, table=start.table, source="rules", rule_id=f.rule_id, title=f.title,
                          observed=f.observed, ruling=f.ruling, severity=f.severity, by=Party.DEALER,
                          hand_no=start.hand_no, seats=(positions.small_blind, positions.big_blind))
                for f in findings]

    def _button(self, deal: _Deal, seats: tuple[int, ...], level: LevelConfig | None = None) -> int:
        told = self.button if self.button is not None else self._seen_since_last_hand()
        if told is not None:
            self._check_rotation(seats, told, seen=self.button is None)
            return told
        due = level.big_blind if level is not None else self.game.big_blind
        big_blind = next((seat for seat, value in deal.posts.items() if value == due), None)
        if big_blind in seats:
            return _before(seats, big_blind, 1 if len(seats) == 2 else 2)
        if self.last is not None:
            return next_positions(self.profile, players=seats, last=_positions(self.last)).button
        return deal.first_round[-1] if deal.first_round else seats[-1]

    def _seen_since_last_hand(self) -> int | None:
        """The seat the camera saw the puck settle in since the last hand started (before, it is that hand's)."""
        seen = self.seen_button
        if seen is None or (self.last is not None and seen.ts <= self.last.ts):
            return None
        return seen.seat

    def _check_rotation(self, seats: tuple[int, ...], button: int, *, seen: bool) -> None:
        """A told button the dead or moving button's rotation from the last hand puts elsewhere: it stands, and the
        hand gets a TDA22-32 advisory (``_rotation_advisories``)."""
        if self.last is None:
            return
        try:
            found = check_button(self.profile, players=seats, last=_positions(self.last), button=button,
                                 severity=Severity.ADVISORY)
        except ValueError:  # seats the rotation can't place (fewer than two, beyond ten)
            return
        who = "the puck is seen on" if seen else "the console puts it on"
        self._rotation_findings = [dataclasses.replace(f, observed=f"{who} seat {button}") for f in found]

    def _rotation_advisories(self, start: HandStarted) -> list[Violation]:
        found, self._rotation_findings = self._rotation_findings, []
        return [Violation(ts=start.ts, table=start.table, source="rules", rule_id=f.rule_id, title=f.title,
                          observed=f.observed, ruling=f.ruling, severity=f.severity, by=Party.DEALER,
                          hand_no=start.hand_no, seats=(start.button,)) for f in found]

    def _stacks(self, seats: tuple[int, ...], deal: _Deal) -> tuple[int, ...]:
        """Each seat's chips as the hand begins: in its stack and bet zones, and what it already sent to the pot
        in this deal (antes, a big blind's ante, gathered before the cards)."""
        if self.stack_chips is None:
            return ()
        counted = self._chips_by_seat(seats)
        stacks = tuple(counted[seat].value + deal.gathered.get(seat, 0) for seat in seats)
        if any(stack <= 0 for stack in stacks):  # (a short stack all in with its ante has sent its chips to the pot)
            return ()  # a stack the antennas do not count: all unknown rather than one wrong
        return stacks

    def _chips_by_seat(self, seats: tuple[int, ...] = tuple(range(1, 11))) -> dict[int, Chips]:
        assert self.stack_chips is not None
        return {seat: self.stack_chips(stack_zone(seat)) + self.stack_chips(bet_zone(seat)) for seat in seats}

    # --- in the hand ------------------------------------------------------------------------------------

    def _hand_event(self, event: Event) -> list[Event]:
        hand = self._hand
        if hand is None:
            return [event]
        if isinstance(event, CardsMucked) and event.seat is not None:
            hand.mucked.add(event.seat)
        if isinstance(event, CardsMucked) and hand.pushed:  # the pot is pushed and the cards go in: it is over
            return [event, *self._end(event.ts)]
        hand.pushed = hand.pushed or isinstance(event, PotPushed)
        hand.gathered = hand.gathered or isinstance(event, PotGathered) or _to_pot(event)
        hand.acted = hand.acted or isinstance(event, BETTING)
        return [event]

    def _end(self, ts: float) -> list[Event]:
        hand = self._hand
        assert hand is not None
        self._hand = None
        return [HandEnded(ts=ts, table=hand.start.table, source="scene", hand_no=hand.start.hand_no)]


def chips_forward(event: Event) -> tuple[int, int] | None:
    """(seat, value) of chips going forward from a seat: a bet motion, or the ledger's move from stack to bet.
    A move of no chips (a ledger's difference that nets to nothing) is none."""
    if isinstance(event, BetMotion) and event.seat is not None and event.chips.value > 0:
        return event.seat, event.chips.value
    if isinstance(event, ChipsMoved) and event.chips.value > 0:
        src, dst = Zone.parse(event.src), Zone.parse(event.dst)
        if src.is_stack and dst.is_bet and src.seat == dst.seat and src.seat is not None:
            return src.seat, event.chips.value
    return None


def _add(sums: dict[int, int], seat: int | None, value: int) -> None:
    if seat is not None:
        sums[seat] = sums.get(seat, 0) + value


def _seat_changing(event: Event) -> bool:
    """A seat's whole stack going, or a stack put down where there was none (the RFID ledger's readings)."""
    if isinstance(event, ChipsLeftTable):
        return event.emptied and Zone.parse(event.zone).is_stack
    return isinstance(event, ChipsAppeared) and event.onto_empty and Zone.parse(event.zone).is_stack


def _in_the_deal(deal: _Deal, event: Event) -> bool:
    """Whether ``event``'s seat had had a card of this deal (a stray dropped does not count) or put chips forward
    in it before ``event``."""
    seat = event.seat
    return (seat is None or any(_card_at(e, seat) and e.ts < event.ts for e in deal.held)
            or any(s == seat and ts < event.ts for ts, s, _, _ in deal.forward))


def _card_at(event: Event, seat: int) -> bool:
    return isinstance(event, CardDealt | CardExposed) and event.seat == seat


def _face_read(event: Event) -> bool:
    """A card dealt face up whose face was read: a card, not chips taken for one."""
    return isinstance(event, CardDealt | CardExposed) and event.card is not None and \
        (isinstance(event, CardExposed) or event.face_up)


def _to_pot(event: Event) -> bool:
    """The RFID ledger's chips from a betting zone to the pot: the bets gathered."""
    return isinstance(event, ChipsMoved) and event.dst == "pot" and Zone.parse(event.src).is_bet


def _stakes(level: LevelConfig | None) -> dict[str, Any]:
    """``HandStarted``'s fields for the stakes of a tournament level; none for the game's."""
    if level is None:
        return {}
    return {"level": level.number, "small_blind": level.small_blind, "big_blind": level.big_blind,
            "ante": level.ante, "big_blind_ante": level.big_blind_ante}


def _positions(start: HandStarted) -> Positions:
    """A hand's button and blinds as its seats place them: the two players after the button (heads-up: the
    button and the other)."""
    seats = start.seats
    if len(seats) == 2:
        other = next(seat for seat in seats if seat != start.button)
        return Positions(button=start.button, small_blind=start.button, big_blind=other)
    small = _after(seats, start.button)
    return Positions(button=start.button, small_blind=small, big_blind=_after(seats, small))


def _after(seats: tuple[int, ...], seat: int) -> int:
    return next((s for s in seats if s > seat), seats[0])


def _before(seats: tuple[int, ...], seat: int, steps: int) -> int:
    ordered = sorted(seats)
    return ordered[(ordered.index(seat) - steps) % len(ordered)]
