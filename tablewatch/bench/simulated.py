"""A simulated table driven through the real pipeline: the simulator stands in for the felt.

What each sensor sees comes from the simulator, and then takes the real path:
- RFID: the chips resting on each antenna at time t are loaded into the reader emulator, which answers
  the real S6350 driver over a real pty pair; the driver's inventories go through the chip ledger.
- camera: either the vision pipeline on the rendered frames (``camera="vision"``), or — while vision
  cannot yet turn pixels into every event — the simulator's ground truth for what a camera would report
  (``camera="truth"``: cards, chips crossing lines with their motion count, taps, pushes). The mode is
  printed wherever results are shown, so no figure is mistaken for a vision figure.
- dealer console: declarations from the scenario, as the console would send them.

Time is the simulation's: the run goes as fast as the machine allows, and latencies are measured as the
simulated delay plus the wall-clock time spent processing (see ``bench``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.ledger import LEAVE_AFTER_S, ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller
from tablewatch.devices.registry import ChipTag, TagRegistry
from tablewatch.events import (
    ChipsAppeared,
    ChipsMoved,
    Declaration,
    Event,
    HandEnded,
    HandStarted,
    RfidInventory,
    UnknownChip,
)
from tablewatch.sim.rfid import antenna_nodes, feed_emulator
from tablewatch.sim.session import Simulation

T = TypeVar("T")

CameraMode = Literal["truth", "vision"]

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


# What the dealer console reports (the new-hand and end-of-hand buttons, spoken declarations): with
# ``camera="vision"`` these still come from the simulator, as a console would send them.
CONSOLE_KINDS = (HandStarted, HandEnded, Declaration)


def camera_truth(sim: Simulation) -> list[Event]:
    """What a camera would report, from the simulator's ground truth (the stand-in for vision)."""
    return [e for e in sim.events if not isinstance(e, RFID_KINDS)]


def console_truth(sim: Simulation) -> list[Event]:
    return [e for e in sim.events if isinstance(e, CONSOLE_KINDS)]


class Camera(Protocol):
    """The camera of a simulated hand: events from each frame, then what still waits when the hand ends."""

    def __call__(self, frame: object, t: float) -> list[Event]: ...

    def flush(self, t: float) -> list[Event]: ...

    @property
    def flush_after_s(self) -> float:
        """How long after the last frame ``flush`` has every decision due."""


class SimulatedVision:
    """Perception for one simulated hand's overhead camera: calibrated from the table's markers in the
    first frames (not from the simulator's true camera), chip colours of the scenario's chip set."""

    def __init__(self, sim: Simulation, clock: RenderClock | None = None) -> None:
        from tablewatch.calibration.chips import painted_chip_colours
        from tablewatch.vision.perception.perception import Perception

        self.perception = Perception(layout=sim.run.layout, table=sim.scenario.table,
                                     chips=painted_chip_colours(sim.scenario.chips), deck=sim.scenario.deck)
        self.uhd = sim.renderer("overhead", "2160p")
        self.clock = clock or RenderClock()

    def __call__(self, frame: object, t: float) -> list[Event]:
        # Identity is read from a 4K crop (the pixel budget of DESIGN.md): the 4K frame of the same moment
        # is rendered only when a card is being read. The callable perception keeps must not refer back to
        # this object: a reference cycle kept each played hand's 4K renderer (~180 MB) until a full collection.
        uhd, clock = self.uhd, self.clock
        return self.perception.process(frame, t, hires=lambda: clock.timed(  # type: ignore[arg-type]
            lambda: uhd.render(t, labels=False).image))

    def flush(self, t: float) -> list[Event]:
        return self.perception.flush(t)

    @property
    def flush_after_s(self) -> float:
        return self.perception.decision_wait_s


@dataclass
class RenderClock:
    """Wall time spent drawing the simulated camera's frames: a live table's camera draws them for free, so
    the monitor's own speed is the run's time less this."""

    seconds: float = 0.0

    def timed(self, draw: Callable[[], T]) -> T:
        started = time.perf_counter()
        try:
            return draw()
        finally:
            self.seconds += time.perf_counter() - started


def vision_for(sim: Simulation, clock: RenderClock | None = None) -> SimulatedVision:
    return SimulatedVision(sim, clock)


@dataclass
class Step:
    """One moment of the simulated session: the events the sensors report at ``t`` (the hand's own clock)."""

    t: float
    events: list[Event]
    frame: object | None = None  # the rendered overhead frame (numpy BGR) when vision runs


def session_steps(sim: Simulation, rfid: SimulatedRfid | None, *, camera: CameraMode = "truth",
                  perceive: Camera | None = None, fps: float = 15.0, render_fps: float = 0.0,
                  clock: RenderClock | None = None) -> Iterator[Step]:
    """One simulated hand in time order: RFID sweeps and camera reports (truth, or vision on frames).

    Steps come every ``1 / fps`` s. With ``camera="vision"`` every step carries a rendered frame and
    ``perceive(frame, t)`` gives the camera's events; after the last frame one more step, once every
    decision still waiting is due, carries ``perceive.flush`` (bets, gathers the hand's end left
    undecided). With ``camera="truth"``, ``render_fps`` > 0 still renders frames that often (for evidence
    clips). RFID reading starts when the hand does, so the chips already on the table are the ledger's
    first read (a baseline), not chips that appeared.
    """
    truth = camera_truth(sim) if camera == "truth" else console_truth(sim)
    frame_fps = fps if camera == "vision" else render_fps
    frames = iter(sim.frames(resolution="720p", fps=frame_fps, labels=False)) if frame_fps > 0 else None
    clock = clock or RenderClock()
    pending = clock.timed(lambda: next(frames, None)) if frames else None
    period = rfid.period if rfid else float("inf")
    step = 1.0 / fps
    t, i, last_frame = 0.0, 0, None
    next_read = sim.events[0].ts if sim.events else 0.0
    while t <= sim.duration + 2 * step:
        events: list[Event] = []
        while rfid is not None and next_read <= t:
            events += rfid.read_at(next_read)
            next_read = round(next_read + period, 6)
        while i < len(truth) and truth[i].ts <= t:
            events.append(truth[i])
            i += 1
        frame = None
        if frames is not None and pending is not None and pending.t <= t + 1e-6:
            frame, pending = pending.image, clock.timed(lambda: next(frames, None))
            if camera == "vision" and perceive is not None:
                events += perceive(frame, t)
                last_frame = t
        yield Step(t=t, events=sorted(events, key=lambda e: e.ts), frame=frame)
        t = round(t + step, 6)
    if last_frame is not None and perceive is not None:
        end = round(last_frame + perceive.flush_after_s, 6)
        yield Step(t=end, events=perceive.flush(end))


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
