"""Arms and settles over time → events: the dealer's and the players' gestures, in table terms.

- A seat's *episode* is its arm on the table from arrival to leaving (gaps under ``GAP_S`` joined). Each
  run of its hand beyond the seat's betting line is one forward motion, released at the run's deepest
  point. When the episode ends and the table settles: new chips in the bet zone → ``BetMotion``; cards
  slid there → ``CardsMucked`` (seen on arrival); a brief reach to the line that moved no chips →
  ``Tap``. A stack whose largest chips are out of sight → ``StackObscured`` every second, and once more
  with the whole time when they show again (not while its player is betting: the bet may be them).
- Cards coming to rest are dealt, burned, laid on the board (identity read when face up) or mucked,
  by the zone they settle in. Chips leaving the bet zones or reaching the pot close to each other are
  one ``PotGathered`` (not a bet zone changing after a push, before chips go into one again); the dealer's
  hand at a seat's stack after the pot (or another stack) is a ``PotPushed`` to that seat.
- Chips gone from a player's stack while its hand was there, with none coming to rest anywhere on the table
  by the time the hand has left → ``ChipsLeftTable`` (TDA-49). Only what shows from above: a whole column
  taken leaves bare felt; one chip off the top of a column leaves the same column in sight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import cv2
import numpy as np

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import (
    BetMotion,
    BoardCardDealt,
    CardBurned,
    CardDealt,
    CardExposed,
    CardsMucked,
    CardsTabled,
    Chips,
    ChipsLeftTable,
    ChipsMoved,
    Event,
    HandInZone,
    PotGathered,
    PotPushed,
    StackObscured,
    Tap,
    seat_of_zone,
)
from tablewatch.vision.perception.scene import GHOST_S, Arm, Settle

GAP_S = 0.5  # an arm unseen this long has left (a bet's motions come back within it)
DECIDE_S = 0.7  # after an episode ends, wait this long for what it moved to settle (a string bet: no wait)
TAP_MAX_S = 1.0
TAP_MIN_DEPTH_MM = 0.0  # a tap reaches the betting line (the hand's tip at or over it)
LINE_DEPTH_MM = 15.0  # a hand this far beyond the line is over it
DWELL_MM = 30.0
DWELL_S = 0.18  # a tap holds still this long at its farthest point; a bet's release does not
OBSCURE_AFTER_S = 1.0
GATHER_GAP_S = 1.2
SWEEP_MAX_S = 2.5  # a gather's sweep goes on at most this long after the last chips seen leaving a bet
HISTORY_S = 3.0
DEAL_PACE_S = 1.0  # hole cards come to rest this soon after one another while the deal goes on
ROUND_MIN_S = 0.5  # a seat's next card comes a round later: two cards to the others at the least
HAND_AT_CARD_MM = 150.0  # a hand's tip this near a card may be touching it (a card is 88 mm long)
PIECES_S, PIECES_MM = 0.25, 90.0  # parts of one card coming to rest: this soon after, this close to each other
# A hand resting behind the line this long after a bet's last motion: the bet is decided without waiting for
# the hand to leave the felt (a string bet's motions come within a second of each other).
SETTLED_BET_S = 1.5
STACK_EDGE_MM = 40.0  # chips leaving this near a stack zone are its stack's (a column at its edge stands half out)
TOOK_MM = 60.0  # a hand pausing with its palm this near chips is taking them (a column is 39 mm across)
STILL_MM = 15.0  # a palm moving less than this between analysed frames pauses


@dataclass
class Sample:
    t: float
    tip: tuple[float, float]
    palm: tuple[float, float]
    zone: str  # where the palm is
    depth: float  # mm beyond the seat's betting line (negative: behind it); 0 for the dealer


@dataclass
class Episode:
    actor: str
    samples: list[Sample] = field(default_factory=list)
    zones_entered: set[str] = field(default_factory=set)
    hand_open: bool = True  # whether a hand was being dealt when the arm first went over the line
    crossed: bool = False  # over the line yet (from then on ``hand_open`` stays as it was)
    after_bet: bool = False  # the same arm resting on after a bet decided while it stayed: no tap, no bet

    def may_stamp_from(self, t: float) -> float:
        """The earliest time an event decided from this episode may carry: its start while it may still be a
        tap or has been over the line (a bet is stamped at its motions, the hand's entry before them), else
        the moment it is decided (cards mucked at its end)."""
        reached = any(s.depth > 0 for s in self.samples)
        return self.start - 0.2 if (self.short and not self.after_bet) or reached else t

    @property
    def short(self) -> bool:
        """Brief enough to be a tap."""
        return self.last - self.start <= TAP_MAX_S

    @property
    def reaches_line(self) -> bool:
        """The hand's tip got to the betting line, as a tap does; a brief move that stays over the stack
        (taking chips to a pocket, tidying a stack) is no check."""
        return max(s.depth for s in self.samples) >= TAP_MIN_DEPTH_MM

    @property
    def string_bet(self) -> bool:
        """Two or more forward motions: a bet whatever else settles (a tap has one), decided as soon as the
        arm has left, without ``DECIDE_S``: the floor wants a string raise (TDA-29) at once, and RFID counts
        each motion's chips."""
        return len(self.motions()) >= 2

    @property
    def start(self) -> float:
        return self.samples[0].t

    @property
    def last(self) -> float:
        return self.samples[-1].t

    def motions(self) -> list[float]:
        """Release times of the forward motions: the deepest sample of each run beyond the line."""
        times, run = [], []
        for s in [*self.samples, None]:
            if s is not None and s.depth > LINE_DEPTH_MM:
                if run and s.t - run[-1].t > GAP_S * 0.5:  # a gap in sight: the hand went back behind the line
                    times.append(max(run, key=lambda r: r.depth).t)
                    run = []
                run.append(s)
            elif run:
                times.append(max(run, key=lambda r: r.depth).t)
                run = []
        return times


@dataclass
class Found:
    """A settle classified: what came to rest (or left) where, and when it happened."""

    t: float
    zone: str
    what: str  # card_in, card_out, chips_in, chips_out, other
    face_up: bool = False
    card: str | None = None
    chips: dict[int, int] = field(default_factory=dict)
    centre: tuple[float, float] = (0.0, 0.0)


class Gestures:
    """Turns arms and classified settles into events (``source="vision"``)."""

    def __init__(self, layout: TableLayout, *, table: str, hand_in_progress: bool = False) -> None:
        self.layout, self.table = layout, table
        self.open: dict[str, Episode] = {}
        self.closed: list[Episode] = []
        self.found: list[Found] = []
        self.log: list[Found] | None = None  # every classified settle, when a caller wants to look
        self.dealer_path: list[Sample] = []
        self.hand_open = hand_in_progress  # from the first card dealt until the board is swept away
        self.dealt: dict[int, int] = {}
        self.board: set[int] = set()
        self.mucked: set[int] = set()
        self.last_burn = -1e9
        self.last_dealt = -1e9  # when the last hole card came to rest
        self.dealt_at: dict[int, float] = {}  # when each seat's last hole card came to rest
        self.dealt_where: dict[int, tuple[float, float]] = {}  # and where
        self.gather: list[float] = []
        self.pot_filled = hand_in_progress  # chips were gathered into the pot since it was last pushed (or may be)
        self.pushed: dict[int, float] = {}
        self.bet_at = -1e9  # when chips last went into a bet zone (a bet decided, or chips seen arriving there)
        self.cleared: list[tuple[float, str]] = []
        self.obscured_reported: dict[int, float] = {}  # seat -> when its stack was last reported obscured
        # seat -> (since when its stack is obscured, the denomination out of sight), while it is
        self.obscured_since: dict[int, tuple[float, int | None]] = {}
        self.chips_moved: list[int] = []  # seats whose stacks changed for a reason (read by the stack watch)

    def _event(self, cls: type[Event], ts: float, **fields: Any) -> Event:
        return cls(ts=round(ts, 3), table=self.table, source="vision", **fields)

    # --- arms -----------------------------------------------------------------------------------------

    def arms(self, t: float, arms: list[Arm]) -> list[Event]:
        out: list[Event] = []
        self._close_stale(t)  # an arm seen again after a gap is a new episode, whatever the frame rate
        for arm in arms:
            zone = self.layout.zone_at(*arm.palm_mm)
            depth = self._depth(arm.actor, arm.tip_mm)
            sample = Sample(t=t, tip=arm.tip_mm, palm=arm.palm_mm, zone=zone, depth=depth)
            if arm.actor == "dealer":
                self.dealer_path.append(sample)
                out += self._dealer_at(sample)
                continue
            ep = self.open.setdefault(arm.actor, Episode(actor=arm.actor, hand_open=self.hand_open))
            ep.samples.append(sample)
            if sample.depth > LINE_DEPTH_MM:
                ep.crossed = True
            elif not ep.crossed:
                # A hand resting on the felt from the blinds into the deal: its next motion is an action.
                ep.hand_open = self.hand_open
            out += self._seat_sample(ep, sample)
            if self._bet_settled(ep, t):
                out += self._episode(ep)
                self.open[arm.actor] = Episode(actor=arm.actor, samples=[sample], hand_open=self.hand_open,
                                               after_bet=True)
        self.dealer_path = [s for s in self.dealer_path if s.t > t - HISTORY_S]
        self._close_stale(t)
        return out

    def _close_stale(self, t: float) -> None:
        for actor, ep in list(self.open.items()):
            if t - ep.last > GAP_S:
                self.closed.append(self.open.pop(actor))

    def _bet_settled(self, ep: Episode, t: float) -> bool:
        """A bet made while the player's hand stays on the felt (resting on or by the stack): decided once the
        hand has been back behind the line ``SETTLED_BET_S`` since the last motion, not when it leaves."""
        if ep.samples[-1].depth > LINE_DEPTH_MM:
            return False
        times = ep.motions()
        return bool(times) and t - times[-1] >= SETTLED_BET_S

    def _depth(self, actor: str, tip: tuple[float, float]) -> float:
        if actor == "dealer":
            return 0.0
        seat = int(actor[4:])
        line = np.asarray(self.layout.seat(seat).line, float)
        d = np.min(np.hypot(*(line - np.asarray(tip)).T))
        return float(d if self.layout.beyond_line(seat, *tip) else -d)

    def _seat_sample(self, ep: Episode, s: Sample) -> list[Event]:
        out: list[Event] = []
        seat = int(ep.actor[4:])
        interesting = s.zone == "pot" or (
            s.zone.startswith("seat") and not s.zone.startswith(f"seat{seat}."))
        if interesting and s.zone not in ep.zones_entered:
            ep.zones_entered.add(s.zone)
            out.append(self._event(HandInZone, s.t, seat=seat, actor=ep.actor, zone=s.zone))
        return out

    def obscured(self, t: float, hidden: dict[int, tuple[float, int | None]]) -> list[Event]:
        """A ``StackObscured`` a second for each stack whose largest chips are out of sight, once it lasts, and
        a last one with the whole time when they show again (unless one went out half a second before or less)."""
        out: list[Event] = []
        betting = {int(ep.actor[4:]) for ep in [*self.open.values(), *self.closed] if ep.crossed}
        for seat, (since, denomination) in hidden.items():
            if seat in betting:
                continue  # its largest chips may be going out as a bet: the bet's decision resets the stack
            held = t - since
            self.obscured_since[seat] = since, denomination
            if held >= OBSCURE_AFTER_S and t - self.obscured_reported.get(seat, -1e9) >= 1.0 - 1e-6:
                self.obscured_reported[seat] = t
                out.append(self._event(StackObscured, t, seat=seat, duration=round(held, 2),
                                       denomination=denomination))
        for seat in [s for s in self.obscured_since if s not in hidden]:
            since, denomination = self.obscured_since.pop(seat)
            last = self.obscured_reported.get(seat, -1e9)
            if last >= since and t - last > 0.5 + 1e-6:
                out.append(self._event(StackObscured, t, seat=seat, duration=round(t - since, 2),
                                       denomination=denomination))
        return out

    def _dealer_at(self, s: Sample) -> list[Event]:
        """A pot pushed to a seat: the dealer's hand turns back in that seat's stack zone after visiting the pot
        (with the pot's chips gone) or after a push to another seat (a wrong push corrected)."""
        path = self.dealer_path
        if len(path) < 3 or path[-2].t < s.t - 0.5:
            return []
        origin = np.asarray(self.layout.dealer_position)
        peak, before = path[-2], path[-3]
        reach = [float(np.hypot(*(np.asarray(p.tip) - origin))) for p in (before, peak, s)]
        if not (reach[1] >= reach[0] and reach[1] > reach[2] + 5.0):
            return []  # the hand is still going out
        seat = seat_of_zone(peak.zone)
        if seat is None or not peak.zone.endswith(".stack") or peak.t - self.pushed.get(seat, -1e9) < 2.0:
            return []
        zones = [p.zone for p in path if peak.t - 2.0 <= p.t < peak.t]
        pot_emptied = self._pot_emptied(peak.t)
        moved_on = any(other != seat and peak.t - when < 5.0 for other, when in self.pushed.items())
        if not ((pot_emptied and "pot" in zones) or moved_on):
            return []  # e.g. an uncalled bet going back to its owner
        return self._pushed(seat, peak.t)

    # --- settles ----------------------------------------------------------------------------------------

    def settled(self, f: Found) -> list[Event]:
        self.found.append(f)
        if self.log is not None:
            self.log.append(f)
        self.found = [x for x in self.found if x.t > f.t - 10.0]
        zone, seat = f.zone, seat_of_zone(f.zone)
        if f.what == "card_out" and zone.startswith("board."):
            self.board.discard(int(zone.split(".")[1]))  # a card taken back: the slot takes the next one
            self.cleared = [(t, z) for t, z in self.cleared if t > f.t - 1.5] + [(f.t, zone)]
            if len({z for _, z in self.cleared}) >= 2:
                self.hand_open = False  # the dealer sweeps the board away: the hand is over
        if f.what == "card_on_card" and zone == "burn" and f.t - self.last_burn > 0.35:
            self.last_burn = f.t
            return [self._event(CardBurned, f.t)]
        if f.what == "card_on_card" and seat is not None and zone.endswith(".stack") and self._onto_first(f, seat):
            return self._dealt(f, seat)
        if f.what == "card_in":
            if seat is not None and zone.endswith(".stack"):
                return self._dealt(f, seat)
            if zone == "burn" and f.t - self.last_burn > 0.35:
                self.last_burn = f.t
                return [self._event(CardBurned, f.t)]
            if zone.startswith("board.") and f.face_up:
                slot = int(zone.split(".")[1])
                if slot not in self.board:
                    self.board.add(slot)
                    return [self._event(BoardCardDealt, f.t, card=f.card, slot=slot, face_up=True)]
            if seat is not None and zone.endswith(".bet") and not f.face_up and seat not in self.mucked \
                    and f"seat{seat}" not in self.open:  # with the player's hand there, its episode decides
                self.mucked.add(seat)
                return [self._event(CardsMucked, f.t, seat=seat, count=2)]
        if f.what == "chips_in" and seat is not None and zone.endswith(".stack") and f"seat{seat}" not in self.open:
            return self._pushed_by_settle(f, seat)
        if f.what == "chips_in" and zone.endswith(".bet"):
            self.bet_at = max(self.bet_at, f.t)
        bet_emptied = zone.endswith(".bet") and f.what == "chips_out" and f"seat{seat}" not in self.open \
            and not self._pushed_since_bets(f.t)
        if (zone == "pot" and f.what == "chips_in") or bet_emptied:
            self.gather.append(f.t)
        return []

    def _pushed_since_bets(self, t: float) -> bool:
        """A pot was pushed after the last chips went into a bet zone: the bets were gathered before it, and
        until new ones come, a bet zone that changes (the tabled cards swept away) holds no chips to gather."""
        return bool(self.pushed) and self.bet_at < max(self.pushed.values()) <= t

    def _pushed_by_settle(self, f: Found, seat: int) -> list[Event]:
        """Chips come to rest in a stack whose player did not move, soon after the pot emptied (or after a
        push to another seat): a push the dealer's hand path did not show clearly."""
        if f.t - self.pushed.get(seat, -1e9) < 3.0:
            return []
        pot_emptied = self._pot_emptied(f.t)
        moved_on = any(other != seat and f.t - when < 5.0 for other, when in self.pushed.items())
        if not (pot_emptied or moved_on):
            return []
        return self._pushed(seat, f.t)

    def _pushed(self, seat: int, t: float) -> list[Event]:
        self.pushed[seat] = t
        self.pot_filled = False
        self.chips_moved.append(seat)
        return [self._event(PotPushed, t, seat=seat)]

    def _pot_emptied(self, t: float) -> bool:
        """Chips left the pot in the last 3 s, and there were chips in it (a hand tidying cards by the pot
        changes it too)."""
        return (self.pot_filled or bool(self.gather)) and any(
            f.zone == "pot" and f.what == "chips_out" and t - 3.0 <= f.t <= t for f in self.found)

    def _onto_first(self, f: Found, seat: int) -> bool:
        """A seat's second hole card pitched squarely onto its first changes only a sliver of the picture (a
        card on a card): during the deal, at a seat holding one card since the last round (a sliver sooner
        is the edge of that card itself), with the player's hand away from it, that sliver is the second card."""
        return (self.hand_open and self.dealt.get(seat, 0) == 1 and f.t - self.last_dealt <= DEAL_PACE_S
                and f.t - self.dealt_at.get(seat, -1e9) >= ROUND_MIN_S and not self._hand_near(seat, f.centre))

    def _hand_near(self, seat: int, at: tuple[float, float]) -> bool:
        """The player's hand is at this spot (touching a card there), not merely on the felt: a hand resting
        beside the stack through the deal is no reason to doubt a card that lands."""
        episode = self.open.get(f"seat{seat}")
        if episode is None or not episode.samples:
            return False
        tip = episode.samples[-1].tip
        return float(np.hypot(tip[0] - at[0], tip[1] - at[1])) < HAND_AT_CARD_MM

    def _same_card(self, f: Found, seat: int) -> bool:
        """A card that came to rest in pieces (parts of it settling a frame or two apart, beside each other)."""
        where = self.dealt_where.get(seat)
        return (where is not None and f.t - self.dealt_at.get(seat, -1e9) < PIECES_S
                and float(np.hypot(f.centre[0] - where[0], f.centre[1] - where[1])) < PIECES_MM)

    def _dealt(self, f: Found, seat: int) -> list[Event]:
        if not self.hand_open:
            self.hand_open = True
            self.dealt, self.board, self.mucked, self.dealt_at, self.dealt_where = {}, set(), set(), {}, {}
        if self.dealt.get(seat, 0) >= 2 or self._same_card(f, seat):
            return []
        self.dealt[seat] = self.dealt.get(seat, 0) + 1
        self.last_dealt = self.dealt_at[seat] = f.t
        self.dealt_where[seat] = f.centre
        out = [self._event(CardDealt, f.t, seat=seat, card=f.card, face_up=f.face_up)]
        if f.face_up:
            out.append(self._event(CardExposed, f.t, seat=seat, card=f.card))
        return out

    def horizon(self, t: float) -> float:
        """The earliest time an event still to come may carry, as of the frame at ``t``: what is decided
        later is stamped at its moment (a bet at its last motion, a tap at its deepest point), never before
        its episode began; a gather not yet closed at its first chips less a second; a push at the dealer's
        turn-back, up to half a second earlier; anything else at the frame it is seen in."""
        earliest = [t, *(ep.may_stamp_from(t) for ep in self.open.values() if ep.samples),
                    *(ep.may_stamp_from(ep.last) for ep in self.closed if ep.samples)]
        if self.gather:
            earliest.append(self.gather[0] - 1.0)
        if self.dealer_path and self.dealer_path[-1].t >= t:
            earliest.append(t - 0.5)
        return min(earliest)

    # --- decisions once things settle ----------------------------------------------------------------------

    def decide(self, t: float) -> list[Event]:
        out: list[Event] = []
        for ep in [e for e in self.closed if t - e.last >= DECIDE_S or e.string_bet]:
            self.closed.remove(ep)
            decided = self._episode(ep)
            out += decided
            if not any(isinstance(e, BetMotion | ChipsMoved) for e in decided):  # (a bet's chips leave the stack)
                out += self._left_table(ep)
        if self.gather and t - (last := self._gather_end()) > GATHER_GAP_S:
            first = self.gather[0]
            in_pot = [s.t for s in self.dealer_path if s.zone == "pot" and first - 1.0 <= s.t <= last]
            out.append(self._event(PotGathered, max([self.gather[-1], *in_pot])))
            self.gather, self.pot_filled = [], True
        return out

    def _gather_end(self) -> float:
        """The last sign of a gather: chips leaving a bet or reaching the pot, or after them the dealer's hand
        sweeping on from bet to bet (where the chips it takes do not show: black and white chips on a grey
        felt) and into the pot, each within GATHER_GAP_S of the one before, over the felt only, and within
        SWEEP_MAX_S of the last chips seen (a hand lingering at a bet holds no gather open: vision's horizon waits
        on it). The hand going straight from the gathered pot back into it, or by a stack or the rail, is on to
        something else."""
        end, swept = self.gather[-1], False
        for s in self.dealer_path:
            if not end < s.t <= min(end + GATHER_GAP_S, self.gather[-1] + SWEEP_MAX_S):
                continue
            if s.zone.endswith(".bet"):
                end, swept = s.t, True
            elif s.zone == "pot":
                return s.t if swept else end
            elif not s.zone.startswith(("felt", "board")):
                return end  # off the way from the bets to the pot (a stack, the rail)
        return end

    def _episode(self, ep: Episode) -> list[Event]:
        seat = int(ep.actor[4:])
        window = self._found_during(ep)
        bet_zone, stack_zone = f"seat{seat}.bet", f"seat{seat}.stack"
        times = ep.motions()
        cards_went = any((f.zone == stack_zone and f.what == "card_out") or (f.zone == bet_zone and f.what == "card_in")
                         for f in window)
        shown = [f for f in window if f.zone == bet_zone and f.what == "card_in" and f.face_up]
        if cards_went and seat not in self.mucked:
            self.mucked.add(seat)
            at = times[-1] if times else ep.last
            if shown:  # turned face up in front of the player: a showdown, not a fold
                return [self._event(CardsTabled, at, seat=seat, cards=tuple(f.card for f in shown if f.card))]
            return [self._event(CardsMucked, at, seat=seat, count=2)]
        if cards_went:
            return []
        chips: Chips = Chips()
        for f in window:
            if f.zone == bet_zone and f.what == "chips_in":
                chips = chips + Chips.of(f.chips)
        chip_evidence = chips.count > 0 or any(f.zone == stack_zone and f.what.startswith("chips") and f.chips
                                               for f in window)
        if times and (chip_evidence or not self._dwells(ep, seat) or not ep.short):
            entered = next((s.t for s in ep.samples if s.zone == bet_zone), times[0])
            self.chips_moved.append(seat)
            self.bet_at = max(self.bet_at, times[-1])
            hand = self._event(HandInZone, entered, seat=seat, actor=ep.actor, zone=bet_zone)
            if not ep.hand_open:  # a blind or an ante before the cards: no action
                return [hand, self._event(ChipsMoved, times[-1], seat=seat, src=stack_zone, dst=bet_zone, chips=chips)]
            return [hand, self._event(BetMotion, times[-1], seat=seat, chips=chips, motions=len(times),
                                      motion_times=tuple(round(x, 3) for x in times))]
        if ep.short and not chip_evidence and not ep.after_bet and ep.reaches_line:
            return [self._event(Tap, max(self._at_deepest(ep, seat)), seat=seat)]
        return []

    def _found_during(self, ep: Episode) -> list[Found]:
        """What was found settling from just before the episode until DECIDE_S after it."""
        return [f for f in self.found if ep.start - 0.2 <= f.t <= ep.last + DECIDE_S]

    def _left_table(self, ep: Episode) -> list[Event]:
        """Chips gone from the player's stack while its hand was on the table, and nothing coming to rest on
        the felt meanwhile (chips in a bet, in another stack, in the pot): they left with the hand. Stamped when
        the hand was last seen. The chips named are the tops that went (a column's height does not show from
        above): at least that many."""
        seat = int(ep.actor[4:])
        window = self._found_during(ep)
        if any(f.what == "chips_in" and f.zone != "off_table" for f in window):
            return []
        gone = Chips()
        for f in window:
            taken = f.what == "chips_out" and f.chips and self._by_stack(seat, f.centre)
            if taken and self._took_from(ep, seat, f.centre) and not _card_trail(f, window):
                gone = gone + Chips.of(f.chips)
        if not gone.count:
            return []
        self.chips_moved.append(seat)
        return [self._event(ChipsLeftTable, ep.last, seat=seat, zone=f"seat{seat}.stack", chips=gone)]

    def _took_from(self, ep: Episode, seat: int, at: tuple[float, float]) -> bool:
        """The hand's last pause over its stack was where the chips went from, and brief: it left with them. (A
        hand that moves a column under another pauses last where it puts it: those chips are out of sight, still
        there.)"""
        over = [s for s in ep.samples if self._by_stack(seat, s.palm)]
        pauses = [b for a, b in pairwise(over) if math.dist(a.palm, b.palm) <= STILL_MM] or over
        if not pauses or math.dist(pauses[-1].palm, at) > TOOK_MM:
            return False
        # A hand resting there GHOST_S or longer became part of the scene's reference: what changes as it goes
        # is its imprint as much as chips.
        rested_since = min(s.t for s in over if math.dist(s.palm, pauses[-1].palm) <= STILL_MM)
        return pauses[-1].t - rested_since < GHOST_S

    def _by_stack(self, seat: int, at: tuple[float, float]) -> bool:
        """Whether a point is in the seat's stack zone or within STACK_EDGE_MM of it."""
        zone = self.layout.polygon(f"seat{seat}.stack").astype(np.float32)
        return cv2.pointPolygonTest(zone, (float(at[0]), float(at[1])), True) >= -STACK_EDGE_MM

    def _at_deepest(self, ep: Episode, seat: int) -> list[float]:
        """Times the hand was at (within DWELL_MM of) its farthest point from the player."""
        deepest = max(ep.samples, key=lambda s: np.hypot(*np.subtract(s.tip, self._origin(seat))))
        return [s.t for s in ep.samples if np.hypot(*np.subtract(s.tip, deepest.tip)) < DWELL_MM]

    def _dwells(self, ep: Episode, seat: int) -> bool:
        """A tap rests on the felt a moment; a bet releases its chips and the hand comes straight back."""
        times = self._at_deepest(ep, seat)
        return max(times) - min(times) >= DWELL_S

    def _origin(self, seat: int) -> tuple[float, float]:
        return self.layout.seat(seat).player


def _card_trail(f: Found, window: list[Found]) -> bool:
    """Whether a finding lies on the trail of a card slid away (a fold from beside the stack): its pieces
    settle a frame or two apart, and the last of them, paper-white, passes for a white chip."""
    return any(g.what == "card_out" and abs(g.t - f.t) <= 2 * PIECES_S and math.dist(g.centre, f.centre) <= PIECES_MM
               for g in window)


__all__ = ["Episode", "Found", "Gestures", "Settle"]
