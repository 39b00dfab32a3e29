"""Run a simulated session through the table pipeline and keep what is needed to score it.

The demo and the benchmark both call ``run_simulated_session``; the demo shows it as it goes, the
benchmark compares the result with the simulator's ground truth.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tablewatch.bench.simulated import (
    CameraMode,
    RenderClock,
    SimulatedRfid,
    on_session_clock,
    session_steps,
    vision_for,
)
from tablewatch.events import BoardCardDealt, Event, Violation
from tablewatch.hands import FinishedHand
from tablewatch.rules.game import GameConfig
from tablewatch.rules.table import TableRules
from tablewatch.scene.fusion import SceneFusion
from tablewatch.sim.session import Simulation
from tablewatch.table.outputs import FilesOutput, HandHistoryOutput
from tablewatch.table.pipeline import Output, TablePipeline


class FrameSink(Protocol):
    """Takes each frame the session renders, on the session's clock (the evidence ring buffer)."""

    def __call__(self, ts: float, frame: Any) -> None: ...


@dataclass
class TimedAlert:
    """An alert and when it came out: on the session's clock and the wall clock spent to get there."""

    violation: Violation
    session_t: float  # the newest sensor time the pipeline had seen when the alert was raised
    processing_s: float  # wall-clock time of the step that raised it


class SessionRecord:
    """An output that keeps what a simulated session produced, for scoring: every alert stamped with the
    session time at which it left the rules, and the finished hands."""

    def __init__(self) -> None:
        self.now = 0.0
        self.step_started = time.perf_counter()
        self.alerts: list[TimedAlert] = []
        self.hands: list[FinishedHand] = []

    def on_event(self, event: Event) -> None:
        """Only alerts are timed."""

    def on_violation(self, violation: Violation) -> None:
        self.alerts.append(TimedAlert(violation, self.now, time.perf_counter() - self.step_started))

    def on_hand(self, hand: FinishedHand) -> None:
        self.hands.append(hand)

    def close(self) -> None:
        """Nothing to release."""


@dataclass(frozen=True)
class InjectedTruth:
    """One injected violation on the session's clock."""

    type: str
    rule_id: str
    hand_no: int
    ts: float
    end_ts: float
    seats: tuple[int, ...]
    observable_ts: float  # when a sensor could first see it (a missing burn shows when the flop lands)


@dataclass
class SessionResult:
    sims: list[Simulation]
    camera: CameraMode
    alerts: list[TimedAlert]
    hands: list[Any]  # FinishedHand records, in order
    hand_paths: list[Path]
    injected: list[InjectedTruth]
    wall_s: float
    session_s: float
    frames: int
    render_s: float = 0.0  # of wall_s, drawing the simulated camera's frames


def game_for(sim: Simulation) -> GameConfig:
    """The betting structure the simulated hands are played at (from the first ground-truth hand)."""
    blinds = sorted(int(b) for b in sim.hands[0].blinds_or_straddles or () if b)
    small, big = (blinds[0], blinds[1]) if len(blinds) >= 2 else (0, blinds[0] if blinds else 100)
    denominations = tuple(sorted(c.value for c in sim.scenario.chips))
    return GameConfig(small_blind=small, big_blind=big, chip_denominations=denominations, seat_count=10)


# Violations of the deal that only show when the next board card lands.
SEEN_WITH_THE_BOARD = {"missing_burn", "double_burn", "four_card_flop"}


def observable_at(violation: Any, sim: Simulation) -> float:
    """The end of the violating motion, or for a burn error the moment the board card it concerns lands."""
    if violation.type in SEEN_WITH_THE_BOARD:
        board = [e.ts for e in sim.events if isinstance(e, BoardCardDealt) and e.ts >= violation.ts]
        if board:
            return float(max(violation.end_ts, board[0]))
    return float(violation.end_ts)


class SimulatedTable:
    """Plays simulated hands one after another at one table, through one pipeline, on one clock."""

    def __init__(self, out: Path, *, game: GameConfig, table: str = "T01", camera: CameraMode = "truth",
                 rfid: bool = True, fps: float = 15.0, extra_outputs: Sequence[Output] = (),
                 store_url: str | None = None, gap_s: float = 2.0, rfid_period: float | None = None,
                 render_fps: float = 0.0, frame_sinks: Sequence[FrameSink] = ()) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.camera, self.use_rfid, self.fps, self.gap_s = camera, rfid, fps, gap_s
        self.rfid_period, self.render_fps, self.frame_sinks = rfid_period, render_fps, list(frame_sinks)
        self.record = SessionRecord()
        self.history = HandHistoryOutput(out / "hands", store_url=store_url)
        self.outputs: list[Output] = [self.record, FilesOutput(out), self.history, *extra_outputs]
        # The earliest time (table clock) the playing hand's camera may still report, set once the events of
        # a step are in the pipeline, so none is overtaken; None when no camera is waited for.
        self.horizon: float | None = None
        self.pipeline = TablePipeline(rules=TableRules(game, table=table), outputs=self.outputs,
                                      fusion=SceneFusion(expect_rfid=rfid),
                                      horizon=(lambda: self.horizon) if camera == "vision" else None)
        self.offset, self.frames, self.hand_no = 0.0, 0, 0
        self._next_sink_ts = float("-inf")
        self.injected: list[InjectedTruth] = []
        self.render_clock = RenderClock()

    def play(self, sim: Simulation) -> None:
        """One simulation (a hand, or a scenario's hands), its events moved onto the table's clock and hand
        numbers after the hands before it."""
        before, self.hand_no = self.hand_no, self.hand_no + max(1, len(sim.hands))
        self.injected += [InjectedTruth(v.type, v.rule_id, before + v.hand_no, v.ts + self.offset,
                                        v.end_ts + self.offset, tuple(v.seats), observable_at(v, sim) + self.offset)
                          for v in sim.violations]
        reader = SimulatedRfid.start(sim, period=self.rfid_period) if self.use_rfid else None
        self.pipeline.fusion.stack_chips = reader.ledger.chips if reader is not None else None
        last = sim.duration
        try:
            perceive = vision_for(sim, self.render_clock) if self.camera == "vision" else None
            for step in session_steps(sim, reader, camera=self.camera, fps=self.fps, render_fps=self.render_fps,
                                      perceive=perceive, clock=self.render_clock):
                last = step.t
                self.record.now, self.record.step_started = step.t + self.offset, time.perf_counter()
                if step.frame is not None:
                    self.frames += 1
                    self._to_sinks(step.t + self.offset, step.frame)
                for event in step.events:
                    self.pipeline.process(on_session_clock(event, offset=self.offset, first_hand=before + 1))
                if perceive is not None and perceive.perception.horizon is not None:
                    self.horizon = perceive.perception.horizon + self.offset
                self.pipeline.tick(step.t + self.offset)
        finally:
            self.horizon = None  # the hand's camera is done: nothing more to wait for
            if reader is not None:
                reader.stop()
        # Every event of the hand is in: released now, while fusion still reads this hand's RFID ledger (a
        # stack reported obscured as the hand ends would otherwise be counted in the next hand's).
        self.pipeline.release_until(last + self.offset)
        # The next hand starts after the gap, and never before this one's last step (vision's flush).
        self.offset = round(self.offset + max(sim.duration + self.gap_s, last + 1.0 / self.fps), 6)

    def _to_sinks(self, ts: float, frame: object) -> None:
        """Evidence gets ``render_fps`` frames a second, however many vision is given."""
        if ts < self._next_sink_ts - 1e-6:
            return
        if self.render_fps > 0:
            self._next_sink_ts = ts + 1.0 / self.render_fps
        for sink in self.frame_sinks:
            sink(ts, frame)

    def close(self) -> None:
        self.record.now = self.offset
        self.pipeline.drain()
        for output in self.outputs:
            output.close()


def run_simulated_session(sims: Sequence[Simulation], out: Path, *, camera: CameraMode = "truth",
                          extra_outputs: Sequence[Output] = (), fps: float = 15.0, rfid: bool = True,
                          store_url: str | None = None, rfid_period: float | None = None,
                          render_fps: float = 0.0, frame_sinks: Sequence[FrameSink] = ()) -> SessionResult:
    """Play the hands of ``sims`` through the real pipeline; events, alerts and hands are written under ``out``."""
    if not sims:
        raise ValueError("A session needs at least one simulated hand.")
    started = time.perf_counter()
    table = SimulatedTable(out, game=game_for(sims[0]), table=sims[0].scenario.table, camera=camera, rfid=rfid,
                           fps=fps, extra_outputs=extra_outputs, store_url=store_url, rfid_period=rfid_period,
                           render_fps=render_fps, frame_sinks=frame_sinks)
    try:
        for sim in sims:
            table.play(sim)
            sim.release_renderers()  # fifty hands' 4K renderers do not fit in memory together
    finally:
        table.close()
    return SessionResult(sims=list(sims), camera=camera, alerts=table.record.alerts, hands=table.record.hands,
                         hand_paths=table.history.paths, injected=table.injected,
                         wall_s=time.perf_counter() - started, session_s=table.offset, frames=table.frames,
                         render_s=table.render_clock.seconds)
