"""A simulated session through the table pipeline, the simulator's truth standing in for the camera
(``tablewatch bench --camera truth``: the rules and the devices alone), and what is needed to score it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablewatch.bench.simulated import SimulatedRfid, on_session_clock, session_steps
from tablewatch.events import BoardCardDealt, Event, Violation
from tablewatch.hands import FinishedHand
from tablewatch.rules.game import GameConfig
from tablewatch.rules.table import TableRules
from tablewatch.scene.fusion import SceneFusion
from tablewatch.sim.session import Simulation
from tablewatch.table.outputs import FilesOutput, HandHistoryOutput
from tablewatch.table.pipeline import Output, TablePipeline


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
    alerts: list[TimedAlert]
    hands: list[Any]  # FinishedHand records, in order
    hand_paths: list[Path]
    injected: list[InjectedTruth]
    wall_s: float
    session_s: float


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

    def __init__(self, out: Path, *, game: GameConfig, table: str = "T01", rfid: bool = True, fps: float = 15.0,
                 extra_outputs: Sequence[Output] = (), store_url: str | None = None, gap_s: float = 2.0,
                 rfid_period: float | None = None) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.use_rfid, self.fps, self.gap_s, self.rfid_period = rfid, fps, gap_s, rfid_period
        self.record = SessionRecord()
        self.history = HandHistoryOutput(out / "hands", store_url=store_url)
        self.outputs: list[Output] = [self.record, FilesOutput(out), self.history, *extra_outputs]
        self.pipeline = TablePipeline(rules=TableRules(game, table=table), outputs=self.outputs,
                                      fusion=SceneFusion(expect_rfid=rfid))
        self.offset, self.hand_no = 0.0, 0
        self.injected: list[InjectedTruth] = []

    def play(self, sim: Simulation) -> None:
        """One simulation (a hand, or a scenario's hands), its events moved onto the table's clock and hand
        numbers after the hands before it."""
        before, self.hand_no = self.hand_no, self.hand_no + max(1, len(sim.hands))
        self.injected += [InjectedTruth(v.type, v.rule_id, before + v.hand_no, v.ts + self.offset,
                                        v.end_ts + self.offset, tuple(v.seats), observable_at(v, sim) + self.offset)
                          for v in sim.violations]
        reader = SimulatedRfid.start(sim, period=self.rfid_period) if self.use_rfid else None
        self.pipeline.fusion.stack_chips = reader.ledger.held if reader is not None else None
        last = sim.duration
        try:
            for step in session_steps(sim, reader, fps=self.fps):
                last = step.t
                self.record.now, self.record.step_started = step.t + self.offset, time.perf_counter()
                for event in step.events:
                    self.pipeline.process(on_session_clock(event, offset=self.offset, first_hand=before + 1))
                self.pipeline.tick(step.t + self.offset)
        finally:
            if reader is not None:
                reader.stop()
        # Every event of the hand is in: released now, while fusion still reads this hand's RFID ledger (a
        # stack reported obscured as the hand ends would otherwise be counted in the next hand's).
        self.pipeline.release_until(last + self.offset)
        # The next hand starts after the gap, and never before this one's last step.
        self.offset = round(self.offset + max(sim.duration + self.gap_s, last + 1.0 / self.fps), 6)

    def close(self) -> None:
        self.record.now = self.offset
        self.pipeline.drain()
        for output in self.outputs:
            output.close()


def run_simulated_session(sims: Sequence[Simulation], out: Path, *, extra_outputs: Sequence[Output] = (),
                          fps: float = 15.0, rfid: bool = True, store_url: str | None = None,
                          rfid_period: float | None = None) -> SessionResult:
    """Play the hands of ``sims`` through the real pipeline, the simulator's truth standing in for the camera and
    telling each hand's start (a diagnostic); events, alerts and hands are written under ``out``."""
    if not sims:
        raise ValueError("A session needs at least one simulated hand.")
    started = time.perf_counter()
    table = SimulatedTable(out, game=game_for(sims[0]), table=sims[0].scenario.table, rfid=rfid, fps=fps,
                           extra_outputs=extra_outputs, store_url=store_url, rfid_period=rfid_period)
    try:
        for sim in sims:
            table.play(sim)
    finally:
        table.close()
    return SessionResult(sims=list(sims), alerts=table.record.alerts, hands=table.record.hands,
                         hand_paths=table.history.paths, injected=table.injected,
                         wall_s=time.perf_counter() - started, session_s=table.offset)
