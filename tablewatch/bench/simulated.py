"""A simulated table driven through the real pipeline, the simulator standing in for the felt: a diagnostic of
the rules and the devices alone (``tablewatch bench --camera truth``).

What each sensor sees comes from the simulator, and then takes the real path:
- RFID: the chips resting on each antenna at time t are loaded into the reader emulator, which answers
  the real S6350 driver over a real pty pair; the driver's inventories go through the chip ledger.
- camera: the simulator's ground truth for what a camera would report (cards, chips crossing lines with their
  motion count, taps, pushes), and each hand's start and end, which at a table the monitor finds itself: this is
  no measure of vision nor of the hand framer (``tablewatch bench`` without ``--camera truth`` records the
  hands and plays them through ``tablewatch run`` for that). The output says so wherever results are shown.

Time is the simulation's: the run goes as fast as the machine allows, and latencies are measured as the
simulated delay plus the wall-clock time spent processing (see ``bench``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.ledger import LEAVE_AFTER_S, ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller
from tablewatch.devices.registry import ChipTag, TagRegistry
from tablewatch.events import (
    ChipsAppeared,
    ChipsMoved,
    Event,
    RfidInventory,
    UnknownChip,
)
from tablewatch.sim.rfid import antenna_nodes, feed_emulator
from tablewatch.sim.session import Simulation

# Facts only the RFID path may report in a simulated run: the camera stand-in leaves them out, so they
# reach the rules through the real driver, emulator and ledger or not at all. (Chips carried off the
# table are seen by both: a camera sees the hand leave with them, the ledger sees them go missing.)
RFID_KINDS = (ChipsMoved, ChipsAppeared, UnknownChip, RfidInventory)


@dataclass
class SimulatedRfid:
    """The reader emulator on one end of a pty pair, the real driver on the other, both fed from the sim."""

    sim: Simulation
    emulator: ReaderEmulator
    poller: ReaderPoller
    period: float
    clock_value: list[float] = field(default_factory=lambda: [0.0])

    @classmethod
    def start(cls, sim: Simulation, *, leave_after: float = LEAVE_AFTER_S,
              period: float | None = None) -> SimulatedRfid:
        """Serve ``sim``'s antennas on a pty; read them every ``period`` s (default: the scenario's)."""
        nodes = antenna_nodes(sim.run)
        emulator = ReaderEmulator(nodes, seed=sim.scenario.seed)
        url = emulator.serve_pty()
        registry = TagRegistry(ChipTag(uid=uid, denomination=value, chip_set="sim")
                               for uid, value in sim.registry.items())
        ledger = ChipLedger(registry, table=sim.scenario.table, leave_after=leave_after)
        clock_value = [0.0]
        config = ReaderConfig(url=url, name="rfid-sim", antennas=nodes, response_timeout=0.5, offline_after=30.0)
        poller = ReaderPoller(config, table=sim.scenario.table, clock=lambda: clock_value[0], ledger=ledger)
        return cls(sim=sim, emulator=emulator, poller=poller, period=period or sim.scenario.timing.rfid_period,
                   clock_value=clock_value)

    @property
    def ledger(self) -> ChipLedger:
        """What the antennas count where."""
        assert self.poller.ledger is not None
        return self.poller.ledger

    def read_at(self, t: float) -> list[Event]:
        """Put the chips where the simulation has them at ``t`` and read every antenna once."""
        feed_emulator(self.emulator, self.sim.run, t)
        self.clock_value[0] = t
        return self.poller.sweep()

    def stop(self) -> None:
        self.poller.stop()
        self.emulator.stop()


def camera_truth(sim: Simulation) -> list[Event]:
    """What a camera would report, from the simulator's ground truth (the stand-in for vision)."""
    return [e for e in sim.events if not isinstance(e, RFID_KINDS)]


@dataclass
class Step:
    """One moment of the simulated session: the events the sensors report at ``t`` (the hand's own clock)."""

    t: float
    events: list[Event]


def session_steps(sim: Simulation, rfid: SimulatedRfid | None, *, fps: float = 15.0) -> Iterator[Step]:
    """One simulated hand in time order, a step every ``1 / fps`` s: RFID sweeps and the camera's truth. RFID
    reading starts when the hand does, so the chips already on the table are the ledger's first read (a
    baseline), not chips that appeared."""
    truth = camera_truth(sim)
    period = rfid.period if rfid else float("inf")
    step = 1.0 / fps
    t, i = 0.0, 0
    next_read = sim.events[0].ts if sim.events else 0.0
    while t <= sim.duration + 2 * step:
        events: list[Event] = []
        while rfid is not None and next_read <= t:
            events += rfid.read_at(next_read)
            next_read = round(next_read + period, 6)
        while i < len(truth) and truth[i].ts <= t:
            events.append(truth[i])
            i += 1
        yield Step(t=t, events=sorted(events, key=lambda e: e.ts))
        t = round(t + step, 6)


def on_session_clock(event: Event, *, offset: float, first_hand: int) -> Event:
    """An event of one simulation moved onto the session's clock and hand numbering (its hand 1 is the
    session's ``first_hand``)."""
    changes: dict[str, Any] = {"ts": round(event.ts + offset, 6)}
    motion_times = getattr(event, "motion_times", None)
    if motion_times is not None:
        changes["motion_times"] = tuple(round(t + offset, 6) for t in motion_times)
    hand_no = getattr(event, "hand_no", None)
    if hand_no is not None:
        changes["hand_no"] = first_hand + hand_no - 1
    return dataclasses.replace(event, **changes)
