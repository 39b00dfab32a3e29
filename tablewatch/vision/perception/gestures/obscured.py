"""Stacks whose largest chips are out of sight (TDA-16A): a ``StackObscured`` every ``obscure_every_s`` while
it lasts, and once more with the whole time when they show again; not while the stack's player is betting
(the bet may be those chips)."""

from __future__ import annotations

from tablewatch.events import Event, StackObscured
from tablewatch.vision.perception.gestures.model import EventMaker, GestureConfig, TableState


class ObscuredStacks:
    """Reads which seats are betting from ``TableState``."""

    def __init__(self, state: TableState, make: EventMaker, config: GestureConfig) -> None:
        self.state, self.make, self.config = state, make, config
        self.reported: dict[int, float] = {}  # seat → when its stack was last reported obscured
        # seat → (since when its stack is obscured, the denomination out of sight), while it is
        self.since: dict[int, tuple[float, int | None]] = {}

    def stacks(self, t: float, hidden: dict[int, tuple[float, int | None]]) -> list[Event]:
        """``hidden``: seat → (since when, denomination) for each stack whose largest chips are out of sight."""
        cfg, out = self.config, []
        betting = self.state.betting()
        for seat, (since, denomination) in hidden.items():
            if seat in betting:
                continue  # its largest chips may be going out as a bet: the bet's decision resets the stack
            held = t - since
            self.since[seat] = since, denomination
            if held >= cfg.obscure_after_s and t - self.reported.get(seat, -1e9) >= cfg.obscure_every_s - 1e-6:
                self.reported[seat] = t
                out.append(self.make(StackObscured, t, seat=seat, duration=round(held, 2), denomination=denomination))
        for seat in [s for s in self.since if s not in hidden]:
            since, denomination = self.since.pop(seat)
            last = self.reported.get(seat, -1e9)
            if last >= since and t - last > cfg.obscure_last_s + 1e-6:
                out.append(self.make(StackObscured, t, seat=seat, duration=round(t - since, 2),
                                     denomination=denomination))
        return out
