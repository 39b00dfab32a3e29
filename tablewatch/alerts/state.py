"""The live table for the retained ``state`` topic, folded from the event stream. No hole cards, ever."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablewatch.alerts.payloads import LiveTable, names_payload
from tablewatch.events import (
    BoardCardDealt,
    CardsMucked,
    CardsTabled,
    DeviceStatus,
    Event,
    HandEnded,
    HandStarted,
    PotGathered,
)

_STREET_BY_BOARD = {0: "preflop", 3: "flop", 4: "turn", 5: "river"}


@dataclass
class LiveState:
    hand_no: int | None = None
    street: str | None = None
    button: int | None = None
    seats: list[int] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    board: list[str | None] = field(default_factory=list)
    pot: int | None = None
    started_ts: float | None = None
    devices: dict[str, bool] = field(default_factory=dict)
    open_alerts: list[str] = field(default_factory=list)
    last_ts: float | None = None
    players: dict[int, str] = field(default_factory=dict)  # the hand's players' names by seat, where known

    @property
    def hand_in_progress(self) -> bool:
        return self.hand_no is not None and self.street != "complete"

    def apply(self, event: Event) -> bool:
        """Fold one event in; True when something the state topic shows has changed."""
        self.last_ts = event.ts
        if isinstance(event, HandStarted):
            self.hand_no, self.button, self.street = event.hand_no, event.button, "preflop"
            self.seats, self.active, self.board = list(event.seats), list(event.seats), []
            self.pot, self.started_ts, self.players = 0, event.ts, dict(event.players)
        elif isinstance(event, BoardCardDealt):
            self._place_board(event)
        elif isinstance(event, CardsMucked) and event.seat in self.active:
            self.active.remove(event.seat)
        elif isinstance(event, PotGathered) and event.value is not None:
            self.pot = event.value
        elif isinstance(event, CardsTabled):
            self.street = "showdown"
        elif isinstance(event, HandEnded):
            self.street = "complete"
        elif isinstance(event, DeviceStatus):
            self.devices[event.device] = event.online
        else:
            return False
        return True

    def _place_board(self, event: BoardCardDealt) -> None:
        while len(self.board) <= event.slot:
            self.board.append(None)
        self.board[event.slot] = event.card if event.face_up else None
        self.street = _STREET_BY_BOARD.get(len(self.board), self.street)

    def as_dict(self) -> LiveTable:
        return {"hand_no": self.hand_no, "street": self.street, "button": self.button, "seats": list(self.seats),
                "active": list(self.active), "board": list(self.board), "pot": self.pot,
                "open_alerts": list(self.open_alerts), "devices": dict(self.devices), "last_ts": self.last_ts,
                "players": names_payload(self.players)}
