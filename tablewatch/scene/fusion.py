"""Fusion of the sensors of one table into one event stream for the rules.

The camera sees *how* chips move (how many forward motions, whose hand, when) but reads denominations
with some doubt; RFID antennas under the stack and bet areas know *which* chips moved, exactly, but not
how. A bet is therefore the camera's ``BetMotion`` with the chips replaced by the RFID ledger's
``ChipsMoved`` from ``seatN.stack`` to ``seatN.bet`` when both report it within a short window; the same
pairing corrects pulled-back chips and pot pushes. A motion read by two RFID sweeps arrives as two
moves: they add up, and the pair is released as soon as the values agree, or when the window ends and the
seat's antennas have been read twice since the motion (a busy machine or a slow reader stretches the sweeps; the
camera alone counts a column's top chip only; a move is stamped at the read that saw its chips at rest and goes
before the reads, so the move of the reads counted is in), or the readers are down, or ``read_wait`` has passed. Reports
held for a twin keep their place: what comes after them waits behind them, so the rules get time order. A
camera report covers its whole motion, so RFID moves read since the motion began pair with it too. The
ledger move itself always goes on to the rules as well (the hidden-chip and ledger checks read it). A
camera report with no RFID twin goes through alone once the window has passed; an RFID move with no
camera twin stays a plain ``ChipsMoved`` (a blind posted, chips tidied) unless the table has no camera,
in which case it stands for the action itself (its ``prior``, the chips already in front, kept from the
earlier moves), and so it does while the table's perceiving cameras are all off their calibration, offline or
stalled (``CameraMoved`` until ``CameraRecalibrated``, ``DeviceStatus``, ``CameraPicture`` frozen): vision reports
nothing then; chips counted from the pot into a stack stand for a push in any case (the camera may miss the
dealer's hand, the count is the push), after a wait for the camera's twin.

When the two disagree on the value, the RFID chips win (they are counted, not seen). A SYSTEM finding
(``SYS-SENSORS``) says so only when the camera saw more chips than RFID counts where it looked (a bet's zone:
the chips already in front too, read again when the new ones nudge them) and more than its own error explains:
from overhead a column shows its top chip only (the camera seeing fewer is no disagreement); colours mix
denominations up (a 500 read as a 5000 among as many chips as RFID counted is a misread, not an extra chip);
and a colour count may run one chip over per colour (a 2500's dark print read as a black 500, a chip read again
as it settles). That error comes back whenever a player bets those chips (a seat opening with a lone 2500 read
one over on 4 bets in 5), so a run of such reads at a seat is no sign either: the finding wants two chips or
more beyond RFID's count, two of one colour (untagged chips, an antenna missing tags); one untagged chip is more
than the camera can tell. A seat's reads of chips over are one finding until a read of that seat agrees.

At a table without readers, a push the camera saw without chips (the dealer's hand turning back at a stack) may
be the dealer moving the button: picked up at the old seat's spot, set down at the next. It waits ``button_wait``;
the button seen arriving at that seat or leaving it meanwhile makes it that move, and it is dropped.

A stack the camera reports obscured (its largest denomination out of sight) gets its hidden value from
the RFID ledger when the table has readers (``stack_chips``): the chips of that denomination and up that
the stack's antenna counts. The camera knows which chips can't be seen, RFID how many there are; a report of
chips RFID counts none of in a stack it reads is dropped.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from tablewatch.events import (
    BLINDING,
    BetMotion,
    ButtonSeen,
    CameraMoved,
    CameraPicture,
    CameraRecalibrated,
    CardsMucked,
    Chips,
    ChipsLeftTable,
    ChipsMoved,
    ChipsPulledBack,
    DeviceStatus,
    Event,
    HandInZone,
    PotPushed,
    RfidInventory,
    Severity,
    StackObscured,
    Tap,
    UnknownChip,
    Violation,
    Zone,
    bet_zone,
    camera_condition,
    stack_zone,
)

# Chips counted gone, a UID the registry does not know: what RFID reports of these no camera report changes.
RfidFact = ChipsLeftTable | UnknownChip
# The chip movements both sensors report: the camera sees them, the RFID ledger's moves stand for them.
ChipAction = BetMotion | ChipsPulledBack | PotPushed
DISAGREEMENT_RULE = "SYS-SENSORS"  # not a poker rule: the monitor's own health
E = TypeVar("E", bound=Event)  # an event held back a while (a muck, a chipless push)
POT_MEMORY_S = 120.0  # a foreign chip read in the pot is still there when the pot is pushed, up to a hand later


def _chipless_motion(tap: Tap) -> BetMotion:
    """A tap as the motion it may have been: one reach to the line, no chips seen (``SceneFusion._may_be_tap``)."""
    return BetMotion(ts=tap.ts, table=tap.table, source=tap.source, seat=tap.seat, chips=Chips(), motions=1,
                     motion_times=(tap.ts,))


def rfid_move_as_event(move: ChipsMoved) -> ChipAction | None:
    """The table action an RFID ledger move stands for, or None when it stands for none."""
    src, dst = Zone.parse(move.src), Zone.parse(move.dst)
    within_seat = src.seat is not None and src.seat == dst.seat
    if within_seat and src.is_stack and dst.is_bet:
        return BetMotion(ts=move.ts, table=move.table, source="rfid", seat=src.seat, chips=move.chips)
    if within_seat and src.is_bet and dst.is_stack:
        return ChipsPulledBack(ts=move.ts, table=move.table, source="rfid", seat=src.seat, chips=move.chips)
    if move.src == "pot" and dst.is_stack:
        return PotPushed(ts=move.ts, table=move.table, source="rfid", seat=dst.seat, value=move.chips.value,
                         chips=move.chips)
    return None


@dataclass
class _Pending:
    first_ts: float
    camera: ChipAction | None = None
    parts: list[ChipAction] = field(default_factory=list)  # the RFID moves, translated into the action, as read
    instead_of_muck: bool = False  # RFID's bet of a seat the camera saw muck meanwhile: the bet stands, not the fold
    hand: HandInZone | None = None  # the camera's hand going into the seat's bet zone for this motion

    @property
    def rfid(self) -> ChipAction | None:
        """The RFID moves together (one motion can straddle two sweeps: the moves add up)."""
        return functools.reduce(_add_chips, self.parts) if self.parts else None


@dataclass
class SceneFusion:
    """Pairs camera and RFID reports of the same action; passes every other event through unchanged.

    ``window`` is how long (seconds) a report waits for its twin from the other sensor. It bounds the
    extra latency fusion adds to an alert. Set ``expect_rfid``/``expect_camera`` False when the table has
    no such sensor, so reports are not held back waiting for a twin that will never come.
    """

    # The readers sweep every 0.5 s, so a move is read up to a sweep after the motion the camera stamps:
    # a camera report waits a full sweep and a margin for its twin (a call read 0.45 s later is that call,
    # and a chipless bet read nothing by then is a tap).
    window: float = 0.7
    # ...and, while the readers answer, until the seat's antennas were read twice after the motion (the first
    # sweep's move is in by then), however long the sweeps take, up to this long
    read_wait: float = 10.0
    _reads: dict[int, dict[str, tuple[float, float]]] = field(default_factory=dict)  # seat -> antenna -> last 2 reads
    _readers_down: set[str] = field(default_factory=set)  # readers reported offline: no read is coming
    _behind: list[Event] = field(default_factory=list)  # events after a report held for its twin, in time order
    expect_rfid: bool = True
    expect_camera: bool = True
    cameras: frozenset[str] = frozenset()  # the perceiving cameras' names (none given: any one blind blinds all)
    _blind: set[str] = field(default_factory=set)  # cameras moved, offline or stalled: they report nothing
    _pending: dict[tuple[str, int], _Pending] = field(default_factory=dict)
    _unpaired: dict[tuple[str, int], list[ChipAction]] = field(default_factory=dict)  # RFID moves a camera may claim
    lookback: float = 2.0  # how long before a camera report's motion began its RFID moves may have been read
    left_window: float = 5.0  # chips seen leaving by one sensor are the same chips the other reports this soon
    _left: dict[str, tuple[str, float]] = field(default_factory=dict)  # zone -> (first sensor, when)
    _foreign: dict[int | str, float] = field(default_factory=dict)  # seat or zone -> when a foreign chip was read
    # A push the camera did not report stands on RFID's count: it waits this long after its last read for the
    # camera's twin (a push is read over several sweeps), and a twin later than that is the same push.
    push_wait: float = 1.0
    _pushed_alone: dict[int, float] = field(default_factory=dict)  # seat -> when RFID alone reported a push
    # the chips the RFID ledger holds in a zone now (``ChipLedger.held``), when the table has readers
    stack_chips: Callable[[str], Chips] | None = None
    # the chips the RFID ledger missed off a zone since a time that came to rest nowhere (``ChipLedger.lifted``)
    chips_lifted: Callable[[str, float], Chips] | None = None
    _in_front: dict[str, Chips] = field(default_factory=dict)  # betting zone -> the chips RFID moves put there
    # The camera's mucks wait a window (with readers and a camera): an arm shoving a stack in over the cards can
    # look like cards going, and chips RFID counts going forward from that seat meanwhile make it a bet.
    _mucks: list[CardsMucked] = field(default_factory=list)
    _faulty: set[int | None] = field(default_factory=set)  # seats whose reads of chips over were reported
    # No readers: a chipless push waits this long for the button seen moving at its seat (the module docstring).
    button_wait: float = 1.5
    _chipless_pushes: list[PotPushed] = field(default_factory=list)
    _button: tuple[int | None, float] = (None, -1e9)  # the seat the button was last seen at, and when
    # With readers, the camera's hand going into its own bet zone waits for the motion it began: a motion that
    # moved no chips is a tap (``_merge``), and a tap's hand over the line was no hand in a bet.
    _hands: dict[int, HandInZone] = field(default_factory=dict)
    hand_wait: float = 10.0  # the longest a hand waits (a motion's report follows it by its motions' length)

    def _prior(self, move: ChipsMoved) -> Chips:
        """The chips in the move's betting zone before it (what a camera reports as a bet's ``prior``), kept
        from the RFID moves in and out of the betting zones."""
        before = self._in_front.get(move.dst, Chips())
        if move.source != "rfid":  # a blind the camera saw go in is RFID's move seen again
            return before
        if Zone.parse(move.dst).is_bet:
            self._in_front[move.dst] = before + move.chips
        if Zone.parse(move.src).is_bet:
            self._in_front[move.src] = _less(self._in_front.get(move.src, Chips()), move.chips)
        return before

    @property
    def camera_sees(self) -> bool:
        """Whether a camera reports actions now: the table has one, and one of them is not paused."""
        if not self.expect_camera or not self._blind:
            return self.expect_camera
        return bool(self.cameras - self._blind)

    def _camera_state(self, event: Event) -> None:
        """A camera's vision paused (moved off its calibration, offline, its stream stalled) or going on again."""
        if not isinstance(event, CameraPicture | CameraMoved | CameraRecalibrated | DeviceStatus):
            return
        change = camera_condition(event, tolerance_mm=0.0)  # (a camera reported moved is paused by its drift gate)
        if change is None or change[0][1] not in BLINDING:
            return
        (camera, _), what = change
        if what is None:
            self._blind.discard(camera)
        else:
            self._blind.add(camera)

    def feed(self, event: Event) -> list[Event]:
        """Take one event (in time order); return what is ready for the rules, in time order."""
        return self._in_order(self._feed(event))

    def flush(self, now: float | None = None) -> list[Event]:
        """Release the reports whose window has passed (all of them when ``now`` is None), and what waited behind
        them."""
        return self._in_order(self._flush(now))

    def _in_order(self, ready: list[Event]) -> list[Event]:
        """What may go to the rules now: nothing later than a report still held for its twin overtakes it, but the
        readers' own record (reads, moves) goes at once, as the actions it stands for are what is held."""
        held_from = min((p.first_ts for p in self._pending.values()), default=float("inf"))
        waiting = list(heapq.merge(self._behind, ready, key=lambda e: e.ts))  # (each keeps its own order)
        self._behind = [e for e in waiting if e.ts > held_from and e.source != "rfid"]
        return [e for e in waiting if e.ts <= held_from or e.source == "rfid"]

    def _feed(self, event: Event) -> list[Event]:
        out = self._flush(event.ts)
        self._camera_state(event)
        self._reader_state(event)
        if isinstance(event, HandInZone) and self._begins_motion(event):
            assert event.seat is not None
            earlier = self._hands.pop(event.seat, None)  # a hand no motion followed goes out as it came
            self._hands[event.seat] = event
            return [*out, earlier] if earlier is not None else out
        if isinstance(event, ChipsMoved) and event.source != "rfid" and event.seat in self._hands:
            return [*out, self._hands.pop(event.seat), event]  # a blind or an ante the camera saw posted
        if isinstance(event, ChipsMoved):
            prior = self._prior(event)
            translated = rfid_move_as_event(event)
            if isinstance(translated, BetMotion) and not self.camera_sees:  # no camera to say what was in front
                translated = dataclasses.replace(translated, prior=prior)
            if translated is None or not self.expect_rfid:
                return [*out, event]
            return [*out, event, *self._hold(translated, from_rfid=True)]
        if isinstance(event, CardsMucked) and event.source != "rfid" and self.expect_rfid and self.camera_sees:
            self._mucks.append(event)
            return out
        if isinstance(event, PotPushed) and self._unseen_chips_pushed(event):
            if not self._button_set_down(event):
                self._chipless_pushes.append(event)  # until the button is seen leaving its seat, or not
            return out
        if isinstance(event, Tap) and self._may_be_bet(event):
            return [*out, *self._hold(_chipless_motion(event), from_rfid=False)]
        if isinstance(event, BetMotion | ChipsPulledBack | PotPushed) and event.source != "rfid":
            if isinstance(event, PotPushed) and self._reported_by_rfid(event):
                return out
            return [*out, *self._hold(event, from_rfid=False)]
        if isinstance(event, ButtonSeen):
            self._button_moved(event)
        if isinstance(event, RfidFact):
            return [*out, *self.rfid_fact(event)]
        if isinstance(event, StackObscured):
            return [*out, *self._counted(event)]
        return [*out, event]

    def _counted(self, event: StackObscured) -> list[Event]:
        """An obscured stack with the value RFID counts out of sight: its chips of the hidden denomination and up.
        Nothing when RFID counts chips in that stack but none that large: those the camera lost sight of are not
        there (a new player's stack set down where the last one's big chips were)."""
        if self.stack_chips is None or event.hidden_value is not None or event.denomination is None \
                or event.seat is None:
            return [event]
        chips = self.stack_chips(stack_zone(event.seat))
        hidden = sum(d * n for d, n in chips.counts if d >= event.denomination)
        if not hidden and chips.count:
            return []
        return [dataclasses.replace(event, hidden_value=hidden) if hidden else event]

    def rfid_fact(self, event: RfidFact) -> list[Event]:
        """Chips counted gone, or a UID the registry does not know: facts no camera report changes, so the
        pipeline may hand them over out of time order (nothing is flushed). [event], or [] for chips the
        other sensor already reported leaving."""
        if isinstance(event, UnknownChip):
            self._foreign[event.seat if event.seat is not None else event.zone] = event.ts
            return [event]
        return [] if self._seen_leaving(event) else [event]

    def _seen_leaving(self, event: ChipsLeftTable) -> bool:
        """True when the other sensor already reported these chips leaving (the first report stands)."""
        first = self._left.get(event.zone)
        if first is not None and first[0] != event.source and event.ts - first[1] <= self.left_window:
            return True
        self._left[event.zone] = (event.source, event.ts)
        return False

    def _reader_state(self, event: Event) -> None:
        """A read of a seat's antenna (the reports held for it count them), or a reader going down or up."""
        if isinstance(event, RfidInventory) and event.seat is not None:
            reads = self._reads.setdefault(event.seat, {})
            reads[event.antenna] = (reads.get(event.antenna, (float("-inf"),) * 2)[1], event.ts)
        elif isinstance(event, DeviceStatus) and event.source == "rfid" and event.online:
            self._readers_down.discard(event.device)
        elif isinstance(event, DeviceStatus) and event.source == "rfid":
            self._readers_down.add(event.device)

    def _flush(self, now: float | None) -> list[Event]:
        ready = [key for key, p in self._pending.items()
                 if now is None or (now - p.first_ts >= self._wait(p) and self._read_since(p, now))]
        # (a lone report may take its twin at another seat off the list meanwhile)
        released = [self._merge(self._pending.pop(key), key) for key in ready if key in self._pending]
        mucks, self._mucks = _waited(self._mucks, now, self.window)
        hands, kept = _waited(list(self._hands.values()), now, self.hand_wait)
        self._hands = {hand.seat: hand for hand in kept if hand.seat is not None}
        released.append(hands)
        pushes, self._chipless_pushes = _waited(self._chipless_pushes, now, self.button_wait)
        released += [mucks, pushes]
        if now is None:
            self._unpaired.clear()
        return sorted((e for group in released for e in group), key=lambda e: e.ts)

    def _wait(self, pending: _Pending) -> float:
        """How long after its first report a pair is released without agreement: a window past the camera's
        last motion (its chips are read up to a sweep after it), or past the first report; a push read by RFID
        alone waits ``push_wait`` past its last read."""
        if pending.camera is None and pending.parts and isinstance(pending.parts[0], PotPushed) and self.camera_sees:
            return pending.parts[-1].ts - pending.first_ts + self.push_wait
        last_motion = _motion_end(pending.camera) if pending.camera is not None else pending.first_ts
        return max(last_motion, pending.first_ts) - pending.first_ts + self.window

    def _read_since(self, pending: _Pending, now: float) -> bool:
        """The camera's report may go without its twin: the seat's antennas (if it has any) were read twice after
        its motion, the readers are down, or it waited ``read_wait``."""
        camera = pending.camera
        if camera is None or camera.seat not in self._reads or self._readers_down:
            return True
        end = _motion_end(camera)
        return now - end >= self.read_wait or any(before > end for before, _ in self._reads[camera.seat].values())

    def _unseen_chips_pushed(self, push: PotPushed) -> bool:
        """A push the camera alone saw, without chips: the dealer's hand may have been moving the button."""
        return not (self.expect_rfid or push.source == "rfid" or push.chips.count or push.value is not None)

    def _button_set_down(self, push: PotPushed) -> bool:
        """The button was seen arriving at the push's seat a moment before: the hand turned back from setting it
        down."""
        seat, when = self._button
        return seat == push.seat and 0 <= push.ts - when <= self.button_wait

    def _button_moved(self, event: ButtonSeen) -> None:
        """The button seen at a new seat: the chipless pushes held at that seat or at the one it left were the
        dealer's hand moving it."""
        left = self._button[0]
        self._chipless_pushes = [p for p in self._chipless_pushes if p.seat not in (left, event.seat)]
        self._button = (event.seat, event.ts)

    def _begins_motion(self, hand: HandInZone) -> bool:
        """The camera's hand going into its own seat's bet zone, at a table whose readers may show the motion a tap."""
        return (hand.source != "rfid" and self.expect_rfid and self.camera_sees and hand.seat is not None
                and hand.zone == bet_zone(hand.seat))

    def _may_be_bet(self, tap: Tap) -> bool:
        """The camera's tap at a table whose readers may count chips going forward with it: one chip set on a chip
        of its colour already in front shows the camera nothing new, and a hand that seemed to rest at the line
        (a frame delivered twice) reads as a tap."""
        return tap.source != "scene" and tap.seat is not None and self.expect_rfid and self.camera_sees

    def _may_be_tap(self, camera: ChipAction | None) -> bool:
        """A camera bet with no chips seen: a tap unless RFID reads the chips it carried."""
        return isinstance(camera, BetMotion) and not camera.chips.count and self.expect_rfid

    def _took_chips(self, camera: ChipAction) -> bool:
        """The readers missed chips off the seat's stack from a little before the motion on, landed nowhere."""
        if self.chips_lifted is None or camera.seat is None:
            return False
        return self.chips_lifted(stack_zone(camera.seat), _motion_start(camera) - self.lookback).count > 0

    def _hold(self, event: ChipAction, *, from_rfid: bool) -> list[Event]:
        assert event.seat is not None
        key = (event.kind, event.seat)
        pending = self._pending.setdefault(key, _Pending(first_ts=event.ts))
        if from_rfid:
            pending.parts.append(event)
            pending.instead_of_muck |= isinstance(event, BetMotion) and self._muck_taken_back(event)
        else:
            if not pending.parts:
                pending.parts += self._claim_unpaired(key, since=_motion_start(event) - self.lookback)
            pending.camera = event
            if isinstance(event, BetMotion):
                pending.hand = self._hands.pop(event.seat, None)
        twin_expected = self.camera_sees if from_rfid else self.expect_rfid
        rfid = pending.rfid
        if not twin_expected or (pending.camera and rfid and _complete(pending.camera, rfid, pending.parts)):
            return self._merge(self._pending.pop(key), key)
        return []

    def _claim_unpaired(self, key: tuple[str, int], *, since: float) -> list[ChipAction]:
        return [e for e in self._unpaired.pop(key, []) if e.ts >= since]

    def _merge(self, pending: _Pending, key: tuple[str, int]) -> list[Event]:
        if pending.camera is None or pending.rfid is None:
            pending = self._twin_at_another_seat(pending, key)
        decided = self._decided(pending, key)
        if pending.hand is None or any(isinstance(e, Tap) for e in decided):
            return decided
        return [pending.hand, *decided]

    def _decided(self, pending: _Pending, key: tuple[str, int]) -> list[Event]:
        """What a pair of reports (or a lone one) stands for."""
        camera, rfid = pending.camera, pending.rfid
        if camera is None:
            if isinstance(rfid, PotPushed) and rfid.seat is not None:
                # Chips counted from the pot into a stack are a push however the dealer's hand went.
                self._pushed_alone[rfid.seat] = rfid.ts
                return [rfid]
            if isinstance(rfid, BetMotion) and pending.instead_of_muck:
                return [rfid]  # chips counted going forward from a seat whose cards the camera saw go: a bet
            # RFID alone: the raw ChipsMoved already went out; it stands for the action only without a camera.
            if rfid is not None and self.camera_sees:
                kept = [e for e in self._unpaired.get(key, []) if rfid.ts - e.ts <= self.lookback]
                self._unpaired[key] = kept + pending.parts
            return [rfid] if rfid is not None and not self.camera_sees else []
        if rfid is None:
            if self._may_be_tap(camera):
                # A hand over the line that left no chips the camera could see, and no chips moved by RFID:
                # a tap on the felt, a check (TDA22-3), not a bet of nothing; unless chips went off the stack
                # with it and landed nowhere: a hand taking chips away (the readers report them gone, TDA-49).
                return [] if self._took_chips(camera) else [Tap(ts=camera.ts, table=camera.table, source="scene",
                                                                 seat=camera.seat)]
            if isinstance(camera, PotPushed) and _value(camera) is None and self.expect_rfid:
                # The dealer's hand went from the pot to a seat, but no chips were seen and none counted from the
                # pot into that stack: change made, a stack tidied, not a push.
                return []
            return [camera]
        if self._foreign_chip_near(camera):
            # RFID values only the house's chips: with a foreign chip in the move its count is short by that
            # chip, valued as it looks (the counterfeit is the floor's business, TDA-16B).
            return [_with_foreign_chip(camera, rfid)]
        merged: ChipAction = _with_rfid_chips(camera, rfid)
        if isinstance(merged, BetMotion) and merged.motions > 1 and not merged.motion_values:
            merged = dataclasses.replace(merged, motion_values=_per_motion(merged.motion_times, pending.parts))
        return [merged, *self._disagreement(camera, rfid)]

    def _disagreement(self, camera: ChipAction, rfid: ChipAction) -> list[Violation]:
        """A finding when the camera saw chips RFID did not count beyond its own error (see the module docstring),
        one for a seat's reads of chips over until a read of its chips leaves none over (a read of no chips, a
        push seen by its value, says nothing)."""
        if not camera.chips.count or _value(rfid) is None:
            return []
        counted = self._in_sight(camera, rfid)
        uncounted = _uncounted(camera.chips, counted) if _value(camera) != _value(rfid) else {}
        if not uncounted:
            self._faulty.discard(camera.seat)
            return []
        if camera.seat in self._faulty or not _beyond_error(camera.chips, counted, uncounted):
            return []
        self._faulty.add(camera.seat)
        return [_finding(camera, rfid, uncounted)]

    def _in_sight(self, camera: ChipAction, rfid: ChipAction) -> Chips:
        """The chips RFID counts where the camera looked: a bet's zone also holds the chips already in front, which
        the camera reads again when the new ones nudge them."""
        if not isinstance(camera, BetMotion) or camera.seat is None:
            return rfid.chips
        return _most(rfid.chips, self._in_front.get(bet_zone(camera.seat), Chips()))

    def _muck_taken_back(self, bet: BetMotion) -> bool:
        """Drops the camera's muck of the seat RFID counts betting, seen within a window of the read."""
        muck = next((m for m in self._mucks if m.seat == bet.seat and abs(m.ts - bet.ts) <= self.window), None)
        if muck is not None:
            self._mucks.remove(muck)
        return muck is not None

    def _twin_at_another_seat(self, pending: _Pending, key: tuple[str, int]) -> _Pending:
        """A lone report paired with the other sensor's lone report of the same action at a neighbouring seat,
        the RFID seat kept: the antennas under each seat's stack and bet say exactly whose chips moved, while the
        camera may give an arm reaching across to the neighbour's seat. The pending unchanged unless the two
        are each other's only candidates."""
        kind = key[0]
        if kind not in (BetMotion.__name__, ChipsPulledBack.__name__) or not (self.camera_sees and self.expect_rfid):
            return pending
        if pending.camera is not None:  # the camera's lone report: one RFID move at another seat meanwhile
            moves = self._lone_moves_near(pending.camera, kind)
            if len(moves) != 1:
                return pending
            found = moves[0]
            parts = (self._pending.pop(found).parts if found in self._pending
                     else [m for m in self._unpaired.pop(found) if self._near(pending.camera, m)])
            return _Pending(pending.first_ts, dataclasses.replace(pending.camera, seat=parts[0].seat), parts,
                            hand=pending.hand)
        move = pending.parts[0]  # the RFID's lone move: one camera report at another seat meanwhile
        cameras = [k for k, p in self._pending.items() if k[0] == kind and p.camera is not None
                   and not p.parts and self._near(p.camera, move)]
        camera = self._pending[cameras[0]].camera if len(cameras) == 1 else None
        if camera is None or self._lone_moves_near(camera, kind):
            return pending
        hand = self._pending.pop(cameras[0]).hand
        return _Pending(pending.first_ts, dataclasses.replace(camera, seat=move.seat), pending.parts, hand=hand)

    def _lone_moves_near(self, camera: ChipAction, kind: str) -> list[tuple[str, int]]:
        """The keys of the RFID moves of this kind, waiting or unpaired, read around the camera's motion."""
        waiting = [k for k, p in self._pending.items() if k[0] == kind and p.camera is None and p.parts
                   and self._near(camera, p.parts[0])]
        unpaired = [k for k, moves in self._unpaired.items() if k[0] == kind and k not in waiting
                    and any(self._near(camera, m) for m in moves)]
        return waiting + unpaired

    def _near(self, camera: ChipAction, move: ChipAction) -> bool:
        """An RFID move at a seat beside the camera's, read while the camera's motion went on (from a lookback
        before it to a window after)."""
        beside = camera.seat is not None and move.seat is not None and abs(camera.seat - move.seat) == 1
        return beside and _motion_start(camera) - self.lookback <= move.ts <= _motion_end(camera) + self.window

    def _reported_by_rfid(self, camera: PotPushed) -> bool:
        """The camera's push of a seat that RFID alone reported pushed just before: the same push, late."""
        assert camera.seat is not None
        return abs(camera.ts - self._pushed_alone.get(camera.seat, float("-inf"))) <= self.push_wait + self.window

    def _foreign_chip_near(self, camera: ChipAction) -> bool:
        """A foreign chip read at this seat around the motion (or, for a push, in the pot it came from)."""
        places: list[int | str] = [camera.seat] if camera.seat is not None else []
        if isinstance(camera, PotPushed):
            places.append("pot")
        since = _motion_start(camera) - (self.lookback if not isinstance(camera, PotPushed) else POT_MEMORY_S)
        return any(since <= self._foreign.get(p, float("-inf")) <= camera.ts + self.window for p in places)


def _waited(held: list[E], now: float | None, wait: float) -> tuple[list[Event], list[E]]:
    """The events held that have waited ``wait`` by ``now`` (all of them when ``now`` is None), and the rest."""
    done = [e for e in held if now is None or now - e.ts >= wait]
    return list(done), [e for e in held if e not in done]


def _per_motion(motion_times: tuple[float, ...], parts: list[ChipAction]) -> tuple[int, ...]:
    """The value each forward motion released, from the RFID moves read as they went (a read lags the
    motion it saw, so a move belongs to the last motion that began before it). Empty when a motion got
    nothing: the reads did not separate the motions, and no split is better than a wrong one."""
    if not motion_times or len(parts) < len(motion_times):
        return ()
    values = [0] * len(motion_times)
    for part in parts:
        index = max([i for i, t in enumerate(motion_times) if t <= part.ts] or [0])
        values[index] += _value(part) or 0
    return tuple(values) if all(values) else ()


def _motion_times(event: ChipAction) -> tuple[float, ...]:
    return event.motion_times if isinstance(event, BetMotion) else ()


def _motion_start(event: ChipAction) -> float:
    times = _motion_times(event)
    return min(times) if times else event.ts


def _motion_end(event: ChipAction) -> float:
    times = _motion_times(event)
    return max(times) if times else event.ts


def _complete(camera: ChipAction, rfid: ChipAction, parts: list[ChipAction]) -> bool:
    """The RFID moves read so far are the whole of what the camera reports. A bet in several motions is
    whole once a move was read after its last motion (the camera may have valued only part of it, and the
    rules need each motion's chips, TDA-29); anything else when the values agree."""
    if isinstance(camera, BetMotion) and camera.motions > 1:
        return any(part.ts >= _motion_end(camera) for part in parts)
    return _values_agree(camera, rfid)


def _value(event: ChipAction) -> int | None:
    """The value a report gives: its chips when it names them, else its stated value (a push seen whole)."""
    if event.chips.count:
        return event.chips.value
    return event.value if isinstance(event, PotPushed) else None


def _values_agree(camera: ChipAction, rfid: ChipAction) -> bool:
    """True when the RFID moves so far add up to what the camera saw (a camera that saw no chips can't
    tell: the pair then waits out the window for more moves)."""
    seen, counted = _value(camera), _value(rfid)
    return bool(seen) and seen == counted


def _less(chips: Chips, taken: Chips) -> Chips:
    """``chips`` without ``taken`` (none below zero: a zone's count starts when the readers do)."""
    left = chips.as_dict()
    for denomination, count in taken:
        left[denomination] = max(0, left.get(denomination, 0) - count)
    return Chips.of(left)


def _add_chips(first: ChipAction, second: ChipAction) -> ChipAction:
    chips = first.chips + second.chips
    if isinstance(first, PotPushed):
        return dataclasses.replace(first, chips=chips, ts=second.ts, value=chips.value)
    return dataclasses.replace(first, chips=chips, ts=second.ts)


def _with_foreign_chip(camera: ChipAction, rfid: ChipAction) -> ChipAction:
    """A bet holding a foreign chip: the house chips RFID counted, plus the most valuable chip the camera saw
    beyond them (from overhead a column shows its top chip only: the camera's own total is a poor count). When
    the camera saw nothing beyond the count (the foreign chip under a column), the count: the least it can be.
    A push keeps the chips as seen."""
    seen, counted = camera.chips, rfid.chips
    if not isinstance(camera, BetMotion):
        return dataclasses.replace(camera, source="scene")
    house = counted.as_dict()
    beyond = [denomination for denomination, n in seen if n > house.get(denomination, 0)]
    if not beyond:
        return dataclasses.replace(camera, chips=counted if counted.value > seen.value else seen, source="scene")
    return dataclasses.replace(camera, chips=counted + Chips.of({max(beyond): 1}), source="scene")


def _with_rfid_chips(camera: ChipAction, rfid: ChipAction) -> ChipAction:
    chips = rfid.chips
    if not chips.count:
        return dataclasses.replace(camera, source="scene")
    if isinstance(camera, PotPushed):
        return dataclasses.replace(camera, source="scene", chips=chips, value=chips.value)
    return dataclasses.replace(camera, source="scene", chips=chips)


def _uncounted(seen: Chips, counted: Chips) -> dict[int, int]:
    """The chips of each denomination the camera saw beyond RFID's count of it, when it saw more chips in all
    ({} otherwise: fewer is a column's hidden chips, as many is colours mixed up)."""
    if seen.count <= counted.count:
        return {}
    tagged = counted.as_dict()
    return {d: n - tagged.get(d, 0) for d, n in seen if n > tagged.get(d, 0)}


def _beyond_error(seen: Chips, counted: Chips, uncounted: dict[int, int]) -> bool:
    """More than the camera's colour count can run over: two more chips in all, two of them of one colour."""
    return min(seen.count - counted.count, max(uncounted.values())) >= 2


def _most(first: Chips, second: Chips) -> Chips:
    """The larger count of each denomination of the two."""
    counts = first.as_dict()
    for denomination, n in second:
        counts[denomination] = max(n, counts.get(denomination, 0))
    return Chips.of(counts)


def _finding(camera: ChipAction, rfid: ChipAction, uncounted: dict[int, int]) -> Violation:
    extra = ", ".join(f"{n} × {denomination}" for denomination, n in sorted(uncounted.items()))
    return Violation(
        ts=max(camera.ts, rfid.ts), table=camera.table, source="scene", seat=camera.seat,
        rule_id=DISAGREEMENT_RULE, title="Camera and RFID disagree on chips",
        observed=f"{camera.kind} of seat {camera.seat}: camera read {_value(camera)}, RFID counted {_value(rfid)}; "
        f"the camera saw chips RFID did not count ({extra})",
        ruling="RFID count used; check the seat's chips and the antenna", severity=Severity.SYSTEM,
        seats=(camera.seat,) if camera.seat else (), confidence=0.9, evidence_ts=(camera.ts, rfid.ts),
    )
