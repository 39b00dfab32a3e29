"""The event vocabulary: the contract between perception (vision, RFID, dealer console) and the rules.

Every stage passes these frozen, keyword-only dataclasses and nothing else: never tuples or dicts.
The simulator writes the same events as ground truth, so each side is tested alone against them.

Conventions shared by every event:
- ``ts``: seconds since the start of the session (float); the same clock for every source of a table.
- ``table``: the table id, e.g. ``"T01"``.
- ``source``: who saw it: ``"vision"``, ``"rfid"``, ``"console"``, ``"sim"`` (ground truth), ``"scene"`` (fused
  from several sensors) or ``"rules"``.
- ``seat``: 1-based seat number, or ``None`` when the event belongs to no seat (board, dealer, tray).
- Cards are two-character strings as pokerkit writes them: rank ``23456789TJQKA`` + suit ``cdhs``
  (``"As"``, ``"Td"``); ``None`` when the card was seen face down and its identity is unknown.
  A card event's ``doubts`` pairs a card it names with one the camera could not tell it apart from (at 720p a
  club and a spade, or a diamond and a heart, differ only in a few pixels of their pips).
- Chips are ``Chips``: a mapping of denomination (in the table's smallest unit) to count.
- Zones are named as in the calibration layouts: ``seat3.stack``, ``seat3.bet``, ``pot``, ``board``,
  ``burn``, ``muck``, ``tray``, ``dealer``, ``off_table``.

``to_dict``/``from_dict`` give a stable JSON form (``{"type": "BetMotion", ...}``) for the event topic,
ground-truth files and recorded streams.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

SEAT_ZONE = re.compile(r"^seat(\d+)\.(stack|bet)$")


@dataclass(frozen=True, order=True)
class Zone:
    """A zone's name parsed once: a seat's ``stack`` or ``bet`` (``seat3.bet``), or any other place (``pot``,
    ``board``, ``burn``, ``muck``, ``tray``, ``dealer``, ``off_table``, a betting line ``seat3.line``…).

    Events carry zones as their names (the JSON contract); code that asks what a zone is parses it here rather
    than matching strings: ``Zone.parse(e.zone).is_bet``, ``Zone.stack(3).name``.
    """

    place: str
    seat: int | None = None

    @classmethod
    def parse(cls, name: str) -> Zone:
        match = SEAT_ZONE.match(name)
        return cls(match.group(2), int(match.group(1))) if match else cls(name)

    @classmethod
    def stack(cls, seat: int) -> Zone:
        return cls("stack", seat)

    @classmethod
    def bet(cls, seat: int) -> Zone:
        return cls("bet", seat)

    @property
    def name(self) -> str:
        return f"seat{self.seat}.{self.place}" if self.seat is not None else self.place

    @property
    def is_stack(self) -> bool:
        return self.seat is not None and self.place == "stack"

    @property
    def is_bet(self) -> bool:
        return self.seat is not None and self.place == "bet"

    def __str__(self) -> str:
        return self.name


def stack_zone(seat: int) -> str:
    """The name of ``seat``'s stack zone: ``seat3.stack``."""
    return Zone.stack(seat).name


def bet_zone(seat: int) -> str:
    """The name of ``seat``'s betting zone: ``seat3.bet``."""
    return Zone.bet(seat).name


def seat_actor(seat: int) -> str:
    """The actor name of the player in ``seat`` (hands and arms): ``seat3``; the dealer is ``dealer``."""
    return f"seat{seat}"


def actor_seat(actor: str) -> int | None:
    """``seat3`` → 3; ``dealer`` (or anything else) → None."""
    head = actor.removeprefix("seat")
    return int(head) if head != actor and head.isdigit() else None


def seat_zone(zone: str) -> tuple[int, str] | None:
    """``"seat3.bet"`` → ``(3, "bet")``; a zone of no seat → None."""
    parsed = Zone.parse(zone)
    return (parsed.seat, parsed.place) if parsed.seat is not None else None


def seat_of_zone(zone: str) -> int | None:
    """``"seat3.bet"`` → 3; any other zone → None."""
    return Zone.parse(zone).seat

Source = Literal["vision", "rfid", "console", "sim", "scene", "rules"]
Street = Literal["preflop", "flop", "turn", "river", "showdown"]


@dataclass(frozen=True, kw_only=True)
class Chips:
    """Chips by denomination, e.g. ``Chips.of({500: 2, 100: 3})`` is 1,300 in five chips."""

    counts: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, counts: Mapping[int, int]) -> Chips:
        for denomination, count in counts.items():
            if denomination <= 0 or count < 0:
                raise ValueError(f"Chips need positive denominations and counts >= 0, got {denomination}: {count}.")
        return cls(counts=tuple(sorted((d, c) for d, c in counts.items() if c)))

    @property
    def value(self) -> int:
        return sum(d * c for d, c in self.counts)

    @property
    def count(self) -> int:
        return sum(c for _, c in self.counts)

    @property
    def smallest(self) -> int | None:
        return self.counts[0][0] if self.counts else None

    @property
    def largest(self) -> int | None:
        return self.counts[-1][0] if self.counts else None

    def as_dict(self) -> dict[int, int]:
        return dict(self.counts)

    def __add__(self, other: Chips) -> Chips:
        merged = self.as_dict()
        for d, c in other.counts:
            merged[d] = merged.get(d, 0) + c
        return Chips.of(merged)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self.counts)


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every event. Subclasses add their own fields; ``kind`` is the class name."""

    ts: float
    table: str
    source: Source
    seat: int | None = None

    registry: ClassVar[dict[str, type[Event]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Event.registry[cls.__name__] = cls

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, **_plain(dataclasses.asdict(self))}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Event:
        payload = dict(data)
        name = payload.pop("type", None)
        cls = Event.registry.get(str(name))
        if cls is None:
            raise ValueError(f"Unknown event type {name!r}; known types: {', '.join(sorted(Event.registry))}.")
        return cls(**_revive(cls, payload))


def _plain(value: Any) -> Any:
    """Make asdict() output JSON-friendly: Chips become {"denomination": count} with string keys."""
    if isinstance(value, dict):
        if set(value) == {"counts"} and isinstance(value["counts"], tuple | list):
            return {str(d): c for d, c in value["counts"]}
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _revive(cls: type[Event], payload: dict[str, Any]) -> dict[str, Any]:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(payload) - set(fields)
    if unknown:
        raise ValueError(f"{cls.__name__} has no field(s) {', '.join(sorted(unknown))}.")
    out: dict[str, Any] = {}
    for name, value in payload.items():
        annotation = str(fields[name].type)
        if annotation.startswith("Chips"):
            out[name] = Chips.of({int(d): int(c) for d, c in value.items()})
        elif annotation.startswith("Severity"):
            out[name] = Severity(value)
        elif annotation.startswith("Party"):
            out[name] = Party(value)
        elif isinstance(value, list):
            out[name] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        else:
            out[name] = value
    return out


def dump_events(events: Iterable[Event]) -> str:
    """Events as JSON lines, the format of recorded streams and ground-truth files."""
    return "".join(e.to_json() + "\n" for e in events)


def load_events(text: str) -> list[Event]:
    return [Event.from_dict(json.loads(line)) for line in text.splitlines() if line.strip()]


# --- The hand's frame -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class HandStarted(Event):
    """The dealer starts a hand (first card pitched, or the console's new-hand button)."""

    hand_no: int
    button: int
    seats: tuple[int, ...]  # occupied seats dealt in, ascending
    stacks: tuple[int, ...] = ()  # starting stacks in the order of ``seats`` when known (RFID, vision)
    # (seat, amount) forced blinds of this hand when they differ from the game's (a dead small blind, a new
    # player's post); a negative amount is a post out of position, as in PHH. Empty: the game's blinds.
    blinds: tuple[tuple[int, int], ...] = ()
    # The stakes of the tournament level this hand plays (``level``); None: the game's.
    level: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    ante: int | None = None
    big_blind_ante: int | None = None
    dealer: str | None = None  # who deals the hand, as the console last named them (None: not told)
    players: tuple[tuple[int, str], ...] = ()  # (seat, name) of the players dealt in that the console named

    def player(self, seat: int) -> str | None:
        """The name of the player in ``seat`` where the console gave one."""
        return next((name for s, name in self.players if s == seat), None)


@dataclass(frozen=True, kw_only=True)
class HandEnded(Event):
    hand_no: int
    void: bool = False  # a misdeal, redealt as the next hand: nothing of this one stands (TDA-22C)


# --- The dealer's console: the hand's set-up as the dealer enters it (all optional) -------------------


@dataclass(frozen=True, kw_only=True)
class NewHandPressed(Event):
    """The dealer pressed "new hand" (or the shuffler reported one): a hand starts."""


@dataclass(frozen=True, kw_only=True)
class DealerChanged(Event):
    """A dealer took the box (a dealer push): the hands from the next one on are dealt by ``dealer``."""

    dealer: str


@dataclass(frozen=True, kw_only=True)
class PlayerNamed(Event):
    """The player in ``seat`` is ``name`` from the next hand on (the floor seated them); None: no name."""

    name: str | None


@dataclass(frozen=True, kw_only=True)
class ButtonPlaced(Event):
    """The dealer says the button is at ``seat`` for the hand about to be dealt."""


@dataclass(frozen=True, kw_only=True)
class ButtonSeen(Event):
    """The camera sees the dealer button puck lying still in ``seat``'s button spot (reported when the seat
    changes, and once at the start)."""


@dataclass(frozen=True, kw_only=True)
class SeatStatus(Event):
    """``seat`` is open (a player sits there and is dealt in) or closed (empty, or the player is out)."""

    open: bool


@dataclass(frozen=True, kw_only=True)
class LevelChanged(Event):
    """The blind level in force from the next hand (the console or the tournament clock)."""

    level: int


# --- Cards --------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CardDealt(Event):
    """A hole card pitched to ``seat``; ``face_up`` when it turned over on the way (an exposed card)."""

    card: str | None = None
    face_up: bool = False
    doubts: tuple[tuple[str, str], ...] = ()  # (card read, a card the camera did not tell it apart from)


@dataclass(frozen=True, kw_only=True)
class CardsDiscarded(Event):
    """Draw games: ``seat`` throws away ``cards`` for the draw, face down (a card not read is None); none: it stands
    pat. The dealer then pitches as many new cards (``CardDealt``)."""

    cards: tuple[str | None, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CardBurned(Event):
    card: str | None = None


@dataclass(frozen=True, kw_only=True)
class BoardCardDealt(Event):
    """A community card placed in board slot ``slot`` (0-4); ``face_up`` False while still face down."""

    card: str | None
    slot: int
    face_up: bool = True
    doubts: tuple[tuple[str, str], ...] = ()  # (card read, a card the camera did not tell it apart from)


@dataclass(frozen=True, kw_only=True)
class BoxedCard(Event):
    """A card found face up in the deck (stub) while dealing: a boxed card (HOUSE-002-2.7.4, TDA-22A(1))."""

    card: str | None = None


@dataclass(frozen=True, kw_only=True)
class CardExposed(Event):
    """A player's hole card seen face up (dropped, flashed, shown) outside the showdown."""

    card: str | None
    doubts: tuple[tuple[str, str], ...] = ()  # (card read, a card the camera did not tell it apart from)


@dataclass(frozen=True, kw_only=True)
class CardsMucked(Event):
    """``seat`` pushed its cards to the muck (a fold, or a loser's muck at showdown)."""

    count: int = 2


@dataclass(frozen=True, kw_only=True)
class CardsTabled(Event):
    """``seat`` turned its hole cards face up on the table (showdown)."""

    cards: tuple[str, ...]
    doubts: tuple[tuple[str, str], ...] = ()  # (card read, a card the camera did not tell it apart from)


# --- Chips, declarations and gestures ----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BetMotion(Event):
    """Chips that crossed ``seat``'s betting line and were released.

    ``motions`` counts the separate forward motions of the hand that carried them (1 = one motion);
    ``motion_times`` are the times each motion released its chips; ``prior`` are this seat's chips already
    in front from an earlier bet this round and not pulled in (TDA-33).
    """

    chips: Chips
    motions: int = 1
    motion_times: tuple[float, ...] = ()
    prior: Chips = field(default_factory=Chips)
    motion_values: tuple[int, ...] = ()  # value released by each motion, when the camera could split them (TDA-29)


@dataclass(frozen=True, kw_only=True)
class ChipsPulledBack(Event):
    """Chips the player took back from the betting area (TDA-33B)."""

    chips: Chips


@dataclass(frozen=True, kw_only=True)
class Declaration(Event):
    """A verbal (or console) declaration by ``seat``.

    ``word``: ``fold``, ``check``, ``call``, ``bet``, ``raise``, ``all-in``, ``pot``, ``time``, ``floor``.
    ``amount``: the number said, when one was said; with ``raise`` it is the total (TDA-30B).
    """

    word: Literal["fold", "check", "call", "bet", "raise", "all-in", "pot", "time", "floor"]
    amount: int | None = None


@dataclass(frozen=True, kw_only=True)
class Tap(Event):
    """A tap on the felt by ``seat``: a check (TDA22-3)."""


@dataclass(frozen=True, kw_only=True)
class PotGathered(Event):
    """The dealer pulled the bets of the round into the pot."""

    value: int | None = None


@dataclass(frozen=True, kw_only=True)
class PotPushed(Event):
    """The dealer pushed (part of) the pot to ``seat``."""

    value: int | None = None
    chips: Chips = field(default_factory=Chips)


# --- Chips on the table: visibility, ledger -----------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StackObscured(Event):
    """``seat``'s stack can't be counted: its largest denominations are out of sight (TDA-16A).

    ``denomination``: the largest one the camera saw there and sees no more; ``hidden_value``: what is out of
    sight, when something counts it (the RFID ledger's chips of that denomination and up in the stack).
    """

    hidden_value: int | None = None
    duration: float = 0.0
    denomination: int | None = None


@dataclass(frozen=True, kw_only=True)
class ChipsMoved(Event):
    """A chip-ledger difference between two zones (RFID or vision): ``src`` → ``dst``."""

    src: str
    dst: str
    chips: Chips


@dataclass(frozen=True, kw_only=True)
class ChipsLeftTable(Event):
    """Chips that were in ``zone`` and are no longer anywhere on the table (TDA-49). ``emptied``: the zone was
    seen empty as they went (the whole stack left, as when a player leaves or is moved with his chips)."""

    zone: str
    chips: Chips
    emptied: bool = False


@dataclass(frozen=True, kw_only=True)
class ChipsAppeared(Event):
    """Chips that showed up in ``zone`` without coming from another zone. ``onto_empty``: the zone held no chip
    before (a player sitting down with a stack, rather than chips added to one; a stack taken away whole the sweep
    before does not count, one lifted and set down again with these chips does)."""

    zone: str
    chips: Chips
    onto_empty: bool = False


@dataclass(frozen=True, kw_only=True)
class UnknownChip(Event):
    """A chip UID the tag registry does not know: a possible counterfeit."""

    uid: str
    zone: str


@dataclass(frozen=True, kw_only=True)
class RfidInventory(Event):
    """One complete inventory of an antenna: the chip UIDs present (most significant byte first)."""

    antenna: str
    uids: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class HandInZone(Event):
    """A hand/arm entered ``zone``; ``actor`` is ``dealer`` or ``seatN``."""

    actor: str
    zone: str


@dataclass(frozen=True, kw_only=True)
class PlayerPresence(Event):
    """Whether ``seat``'s player is at the table (TDA-20, TDA-21)."""

    present: bool


# --- Devices and cameras ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DeviceStatus(Event):
    """A reader, console or camera went offline or came back."""

    device: str
    online: bool
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class CameraMoved(Event):
    camera: str
    shift_mm: float


@dataclass(frozen=True, kw_only=True)
class CameraRecalibrated(Event):
    """A camera that moved has held still and was calibrated again from the table's markers."""

    camera: str
    error_mm: float  # the new calibration's mean marker error on the table
    markers: int  # how many markers it was fitted to


PICTURE_FROZEN = "frozen"  # a camera's stream stalled: the same picture delivered again, nothing new seen


@dataclass(frozen=True, kw_only=True)
class CameraPicture(Event):
    """A camera's picture can't be read right (``vision.perception.picture``), or can again."""

    camera: str
    condition: str  # "too dark", "overexposed", "washed out", "no colour", "colour faded", "flickering",
    # "flickering hard", "low resolution"; PICTURE_FROZEN (``vision.perception.stall``); "interlaced"
    # (``vision.perception.interlace``); "colour offset" (``vision.perception.chroma``)
    usable: bool  # False: the condition holds; True: it is over
    reliable: bool = True  # whether what the camera reports may still be relied on while the condition holds
    detail: str = ""


CAMERA_MOVED = "moved"  # a camera off its calibration (``CameraMoved`` until ``CameraRecalibrated``)
CAMERA_OFFLINE = "offline"  # a camera's stream gone (``DeviceStatus`` of a camera)
BLINDING = (CAMERA_MOVED, CAMERA_OFFLINE, PICTURE_FROZEN)  # conditions in which a camera reports nothing new


def camera_condition(event: CameraPicture | CameraMoved | CameraRecalibrated | DeviceStatus,
                     tolerance_mm: float) -> tuple[tuple[str, str], str | None] | None:
    """(camera, condition) and what is wrong with the camera's picture (None: it is over), for an event that says a
    camera's reports may not be relied on, or may again; None for any other (a warning whose reports stand, a device
    that is no camera, a move within the tolerance). The rules doubt findings on it; fusion, for the conditions in
    which the camera reports nothing (``BLINDING``), lets the readers' counts stand for actions."""
    if isinstance(event, CameraPicture):
        if event.reliable:
            return None
        what = None if event.usable else f"camera {event.camera}'s picture {event.condition}"
        return (event.camera, event.condition), what
    if isinstance(event, CameraMoved):
        if event.shift_mm <= tolerance_mm:
            return None
        return (event.camera, CAMERA_MOVED), f"camera {event.camera} moved off its calibration"
    if isinstance(event, CameraRecalibrated):
        return (event.camera, CAMERA_MOVED), None
    if event.source != "vision":  # a reader or a console: RFID's and the dealer's reports do not rest on it
        return None
    what = None if event.online else f"camera {event.device} offline"
    return (event.device, CAMERA_OFFLINE), what


# --- What the rules layer says -----------------------------------------------------------------------


class Severity(enum.StrEnum):
    VIOLATION = "violation"  # a rule was broken: the floor should act
    ADVISORY = "advisory"  # worth a look; not necessarily an infraction
    SYSTEM = "system"  # the monitor itself: a device offline, a camera moved


class Party(enum.StrEnum):
    """Whose error a violation is, for the room's statistics (``tablewatch stats``)."""

    DEALER = "dealer"  # a procedure the dealer carries out: the deal, burns, the board, the blinds, the pot's award
    PLAYER = "player"  # a player's action or conduct


@dataclass(frozen=True, kw_only=True)
class Violation(Event):
    """A finding of the rules layer: the rule, what was seen and the ruling the floor would give."""

    rule_id: str  # an id of shared/rules/CATALOGUE.md, e.g. "TDA-29"
    title: str
    observed: str
    ruling: str
    severity: Severity = Severity.VIOLATION
    by: Party = Party.PLAYER
    hand_no: int | None = None
    street: str | None = None
    seats: tuple[int, ...] = ()
    confidence: float = 1.0
    evidence_ts: tuple[float, ...] = ()  # times of the frames/events that show it
