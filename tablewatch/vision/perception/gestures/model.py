"""What the gesture recognisers share: their thresholds, what a settle was found to be, an arm's samples over
one stay on the table (an episode), and the small state of the table they read and write together."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from tablewatch.calibration.layout import TableLayout
from tablewatch.events import Event, Zone, actor_seat, seat_actor
from tablewatch.vision.perception.scene import Arm


@dataclass(frozen=True)
class GestureConfig:
    """The thresholds gestures are recognised by: seconds on the table's clock, millimetres on the felt."""

    gap_s: float = 0.5  # an arm unseen this long has left (a bet's motions come back within it)
    decide_s: float = 0.7  # after an episode ends, wait this long for what it moved to settle (a string bet: no wait)
    lead_s: float = 0.2  # what settles this long before an episode began is its doing (the hand came in moving)
    tap_max_s: float = 1.0  # a tap is brief: an episode this long at most
    tap_min_depth_mm: float = 0.0  # a tap reaches the betting line (the hand's tip at or over it)
    line_depth_mm: float = 15.0  # a hand this far beyond the line is over it
    motion_back_mm: float = 15.0  # ... and a motion over it ends only once the hand is back this much nearer
    motions_apart_s: float = 0.35  # ... and two releases closer than this are one motion: a string bet's hand goes
    # back to the stack for more chips between them, which no hand does that fast
    dwell_mm: float = 30.0  # a hand within this of its farthest point is still at it
    dwell_s: float = 0.18  # a tap holds still this long at its farthest point; a bet's release does not
    settled_bet_s: float = 1.5  # a hand resting behind the line this long after a motion: the bet is decided
    parked_s: float = 3.0  # an "arm" that has not moved this long is no gesture (a hand at rest, a thing left lying)
    parked_mm: float = 40.0  # ... not moved: its tip within this of where it is now
    parked_kept_s: float = 10.0  # ... and where it lay is known this long after it was last seen there
    obscure_after_s: float = 1.0  # a stack out of sight this long is obscured (a hand passing over it is not)
    obscure_every_s: float = 1.0  # an obscured stack is reported again this often while it lasts
    obscure_last_s: float = 0.5  # its end is reported unless a report went out this recently
    gather_gap_s: float = 1.2  # chips leaving bets or reaching the pot this close together are one gather
    gather_lead_s: float = 1.0  # a gather's hand in the pot from this long before its first chips counts
    sweep_max_s: float = 2.5  # a gather's sweep goes on at most this long after the last chips seen leaving a bet
    history_s: float = 3.0  # the dealer's hand path kept this long (a push looks 2 s back, a sweep 2.5 s)
    push_turn_s: float = 0.5  # a push is the dealer's hand turning back between frames this close
    turn_back_mm: float = 5.0  # ... coming back at least this much nearer the dealer
    push_path_s: float = 2.0  # the hand's path this long before its turn shows where it came from (the pot)
    push_again_s: float = 2.0  # a seat's second push by the hand's path this soon is the same one
    settle_push_again_s: float = 3.0  # ... and by its chips coming to rest in the stack
    pot_emptied_s: float = 3.0  # chips left the pot this recently: a push may be under way
    moved_on_s: float = 5.0  # a push to another seat this recent, then one here: a wrong push corrected
    findings_s: float = 10.0  # classified settles are kept this long (the longest window that looks back)
    burn_apart_s: float = 0.35  # cards settling on the burn pile this close together are one burn
    cleared_s: float = 1.5  # board cards taken away within this of each other sweep the board
    cleared_slots: int = 2  # ... from at least this many slots: the hand is over
    deal_pace_s: float = 1.0  # hole cards come to rest this soon after one another while the deal goes on
    shaded_pace_s: float = 1.0  # ... and this much later under a passing shadow, whose edge crossing a card that
    # has just landed is motion there (a button's second card, pitched 0.35 s after the card before, settled 1.2 s)
    round_min_s: float = 0.5  # a seat's next card comes a round later: two cards to the others at the least
    hand_at_card_mm: float = 150.0  # a hand's tip this near a card may be touching it (a card is 88 mm long)
    pieces_s: float = 0.25  # parts of one card come to rest this soon after each other
    pieces_mm: float = 90.0  # ... and this close to each other
    stack_edge_mm: float = 40.0  # chips leaving this near a stack zone are its stack's (a column stands half out)
    took_mm: float = 60.0  # a hand pausing with its palm this near chips is taking them (a column is 39 mm across)
    still_mm: float = 15.0  # a palm moving less than this between analysed frames pauses


class SettleKind(StrEnum):
    """What a settle was found to be."""

    CARD_IN = "card_in"  # a card came to rest
    CARD_OUT = "card_out"  # a card was taken away (bare felt where it lay)
    CARD_ON_CARD = "card_on_card"  # a sliver of card: one landing on another
    CHIPS_IN = "chips_in"  # chips came to rest
    CHIPS_OUT = "chips_out"  # chips were taken away
    OTHER = "other"

    @property
    def is_chips(self) -> bool:
        return self in (SettleKind.CHIPS_IN, SettleKind.CHIPS_OUT)


@dataclass
class Found:
    """A settle classified: what came to rest (or left) where, and when it happened."""

    t: float
    zone: str
    what: SettleKind
    face_up: bool = False
    card: str | None = None
    rival: str | None = None  # the face the card may as well be: the camera did not tell the two apart
    chips: dict[int, int] = field(default_factory=dict)
    centre: tuple[float, float] = (0.0, 0.0)
    shaded: bool = False  # a passing shadow was over the felt: its moving edge may have kept this from settling

    def __post_init__(self) -> None:
        self.what = SettleKind(self.what)

    @property
    def place(self) -> Zone:
        return Zone.parse(self.zone)


def doubts(*found: Found) -> tuple[tuple[str, str], ...]:
    """(card, rival) of each card read that the camera did not tell apart from another (an event's ``doubts``)."""
    return tuple((f.card, f.rival) for f in found if f.card and f.rival)


def board_slot(zone: str) -> int | None:
    """``board.3`` → 3; any other zone (``board`` itself among them) → None."""
    head, _, slot = zone.partition(".")
    return int(slot) if head == "board" and slot.isdigit() else None


@dataclass
class Sample:
    """An arm in one analysed frame."""

    t: float
    tip: tuple[float, float]
    palm: tuple[float, float]
    zone: str  # where the palm is
    depth: float  # mm beyond the seat's betting line (negative: behind it); 0 for the dealer

    @classmethod
    def of(cls, arm: Arm, t: float, layout: TableLayout) -> Sample:
        seat = actor_seat(arm.actor)
        return cls(t=t, tip=arm.tip_mm, palm=arm.palm_mm, zone=layout.zone_at(*arm.palm_mm),
                   depth=0.0 if seat is None else _depth(layout, seat, arm.tip_mm))


def _depth(layout: TableLayout, seat: int, tip: tuple[float, float]) -> float:
    line = np.asarray(layout.seat(seat).line, float)
    d = np.min(np.hypot(*(line - np.asarray(tip)).T))
    return float(d if layout.beyond_line(seat, *tip) else -d)


DEFAULT_CONFIG = GestureConfig()


@dataclass
class Episode:
    """A player's arm on the table from arrival to leaving (gaps under ``gap_s`` joined)."""

    actor: str
    samples: list[Sample] = field(default_factory=list)
    zones_entered: set[str] = field(default_factory=set)
    hand_open: bool = True  # whether a hand was being dealt when the arm first went over the line
    crossed: bool = False  # over the line yet (from then on ``hand_open`` stays as it was)
    after_bet: bool = False  # the same arm resting on after a bet decided while it stayed: no tap, no bet
    config: GestureConfig = field(default=DEFAULT_CONFIG, repr=False)

    @property
    def seat(self) -> int:
        seat = actor_seat(self.actor)
        assert seat is not None, f"{self.actor} is no seat's"
        return seat

    def may_stamp_from(self, t: float) -> float:
        """The earliest time an event decided from this episode may carry: its start while it may still be a
        tap or has been over the line (a bet is stamped at its motions, the hand's entry before them), else
        the moment it is decided (cards mucked at its end)."""
        reached = any(s.depth > 0 for s in self.samples)
        return self.start - self.config.lead_s if (self.short and not self.after_bet) or reached else t

    @property
    def short(self) -> bool:
        """Brief enough to be a tap."""
        return self.last - self.start <= self.config.tap_max_s

    @property
    def reaches_line(self) -> bool:
        """The hand's tip got to the betting line, as a tap does; a brief move that stays over the stack
        (taking chips to a pocket, tidying a stack) is no check."""
        return max(s.depth for s in self.samples) >= self.config.tap_min_depth_mm

    @property
    def string_bet(self) -> bool:
        """Two or more forward motions: a bet whatever else settles (a tap has one), decided as soon as the
        arm has left, without ``decide_s``: the floor wants a string raise (TDA-29) at once, and RFID counts
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
        times: list[float] = []
        run: list[Sample] = []
        # A hand's tip wavers a few mm between frames: one that reaches the line, dips under it and goes on is one
        # motion, not two (a string bet's hand goes back to the stack between its motions).
        over = self.config.line_depth_mm
        back = over - self.config.motion_back_mm
        for s in [*self.samples, None]:
            if run and (s is None or s.depth <= back or s.t - run[-1].t > self.config.gap_s * 0.5):
                release = max(run, key=lambda r: r.depth).t  # back behind the line, or a gap in sight: it went
                if times and release - times[-1] < self.config.motions_apart_s:
                    times[-1] = release  # the tip lost for a frame or wavering back over the line: one motion
                else:
                    times.append(release)
                run = []
            if s is not None and (s.depth > over or (run and s.depth > back)):
                run.append(s)
        return times


@dataclass
class TableState:
    """What the recognisers share: each reads it, and writes only what it is said to below."""

    # From the first card dealt until the board is swept away (the card settles) or the pot is pushed (the pot's
    # recogniser: a hand won before the flop has no board to sweep, and its next deal must open the next hand).
    hand_open: bool
    hand_opened_at: float = -1e9  # when the hand in play opened: its first card dealt (card settles)
    open: dict[str, Episode] = field(default_factory=dict)  # actor → its arm's episode, while on the table (bets)
    closed: list[Episode] = field(default_factory=list)  # episodes ended, waiting to be decided (bets)
    found: list[Found] = field(default_factory=list)  # settles classified in the last ``findings_s`` (Gestures)
    mucked: set[int] = field(default_factory=set)  # seats whose cards went this hand (card settles and bets)
    bet_at: float = -1e9  # when chips last went into a bet zone (bets, and chips seen arriving there)
    chips_moved: list[int] = field(default_factory=list)  # seats whose stacks changed for a reason (stack watch)

    def hand_at(self, seat: int) -> Episode | None:
        """The episode of the seat's arm on the table now, if it is."""
        return self.open.get(seat_actor(seat))

    def betting(self) -> set[int]:
        """Seats whose arm has been over the betting line in an episode not decided yet."""
        return {ep.seat for ep in [*self.open.values(), *self.closed] if ep.crossed}


class SettleRecogniser(Protocol):
    """A family of gestures that reads what settles: told of each classified settle in turn."""

    def settled(self, found: Found) -> list[Event]: ...


class EventMaker:
    """Events of one table seen by vision."""

    def __init__(self, table: str) -> None:
        self.table = table

    def __call__(self, cls: type[Event], ts: float, **fields: Any) -> Event:
        return cls(ts=round(ts, 3), table=self.table, source="vision", **fields)
