"""One table's pipeline: sources → time ordering → sensor fusion → hand framing (a live table) → rules → outputs.

``tablewatch run`` (live sources), ``tablewatch demo`` and ``tablewatch bench`` (simulated sources) all
drive this same class. Sources push events from their own threads; one worker thread puts them in time
order, fuses them, feeds the rules and hands what comes out to the outputs. A failing output is logged
and counted, never allowed to stop the table.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tablewatch.events import Event, HandStarted, Violation
from tablewatch.hands import FinishedHand
from tablewatch.scene.fusion import RfidFact, SceneFusion
from tablewatch.table.framer import HandFramer

log = logging.getLogger(__name__)

Emit = Callable[[Event], None]

# How long the pipeline holds events to put the sensors' reports back in time order. RFID and console
# reports are stamped when read. Vision stamps a bet at its motion but reports it once the hand has gone
# and the chips have settled (~0.7 s later): a perceiving camera says how far back its reports still to
# come may reach (its horizon), and the pipeline holds the others that long, never more than
# VISION_LATENESS_S.
LATENESS_S = 0.15
VISION_LATENESS_S = 1.2


class _Tick:
    """In the inbox: let time pass to the clock's present (``TablePipeline.catch_up``)."""


class EventSource(Protocol):
    """Anything that produces events from its own thread: a camera, an RFID reader, a dealer console."""

    name: str

    def start(self, emit: Emit) -> None: ...

    def stop(self) -> None: ...


class Rules(Protocol):
    """The rules layer as the pipeline sees it (``tablewatch.rules.table.TableRules``)."""

    def feed(self, event: Event) -> list[Violation]: ...

    def pop_finished(self) -> list[FinishedHand]: ...


class Output(Protocol):
    """Where results go: MQTT, files, the terminal, the hand store, evidence clips."""

    def on_event(self, event: Event) -> None: ...

    def on_violation(self, violation: Violation) -> None: ...

    def on_hand(self, hand: FinishedHand) -> None: ...

    def close(self) -> None: ...


@dataclass
class PipelineStats:
    events_in: int = 0
    events_out: int = 0
    violations: int = 0
    hands: int = 0
    output_errors: int = 0
    by_source: dict[str, int] = field(default_factory=dict)


class ReorderBuffer:
    """Releases events in time order once ``lateness`` seconds of event time have passed after them.

    Sensors report with different delays (RFID inventories take a few hundred ms); the rules need the
    table's events in the order they happened.
    """

    def __init__(self, lateness: float, *, horizon: Callable[[], float | None] | None = None,
                 max_lateness: float = VISION_LATENESS_S) -> None:
        self.lateness = lateness
        self.horizon = horizon  # a slow source's earliest time still to come (None: nothing pending)
        self.max_lateness = max_lateness  # ...held for at most this long
        self.until = float("-inf")  # everything up to this time has been released
        self._heap: list[tuple[float, int, Event]] = []
        self._counter = itertools.count()
        self._clock = float("-inf")

    def push(self, event: Event) -> list[Event]:
        heapq.heappush(self._heap, (event.ts, next(self._counter), event))
        self._clock = max(self._clock, event.ts)
        return self._release(self._limit(self._clock))

    def drain(self) -> list[Event]:
        return self._release(float("inf"))

    def tick(self, now: float) -> list[Event]:
        """Release what is older than ``now - lateness`` even if no newer event came (a quiet table)."""
        return self._release(self._limit(now))

    def release_until(self, until: float) -> list[Event]:
        """Release everything up to ``until`` now: nothing earlier is still to come."""
        return self._release(until)

    def _limit(self, now: float) -> float:
        """How far events may go out: ``lateness`` behind ``now``, and not past the slow source's horizon
        unless that is more than ``max_lateness`` behind."""
        until = now - self.lateness
        horizon = self.horizon() if self.horizon is not None else None
        return until if horizon is None else min(until, max(horizon, now - self.max_lateness))

    def holds(self, kind: type[Event], *, up_to: float) -> bool:
        """Whether an event of this kind at or before ``up_to`` is still held."""
        return any(isinstance(event, kind) and ts <= up_to for ts, _, event in self._heap)

    def _release(self, until: float) -> list[Event]:
        self.until = max(self.until, until)
        out = []
        while self._heap and self._heap[0][0] <= until:
            out.append(heapq.heappop(self._heap)[2])
        return out


class TablePipeline:
    """Runs one table. ``start()`` lists the steps, ``stop()`` undoes them in reverse."""

    def __init__(self, *, rules: Rules, outputs: Iterable[Output], sources: Iterable[EventSource] = (),
                 fusion: SceneFusion | None = None, lateness: float = LATENESS_S,
                 horizon: Callable[[], float | None] | None = None,
                 clock: Callable[[], float] | None = None, framer: HandFramer | None = None) -> None:
        self.rules = rules
        self.framer = framer  # finds the hands' frame from the devices (a live table); None: the sources tell it
        self.outputs = list(outputs)
        self.sources = list(sources)
        self.fusion = fusion or SceneFusion()
        self.order = ReorderBuffer(lateness, horizon=horizon)
        self._facts: list[RfidFact] = []  # RFID facts waiting for their hand's start to go out
        self.stats = PipelineStats()
        self.clock = clock  # the sources' clock: lets a quiet table release what it holds
        self._inbox: queue.Queue[Event | _Tick | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._unprocessed = 0  # submitted, not yet processed (``catch_up`` waits for none)
        self._processed = threading.Condition()

    # --- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> None:
        self._worker = threading.Thread(target=self._work, name="table-pipeline", daemon=True)
        self._worker.start()
        for source in self.sources:
            source.start(self.submit)

    def stop(self) -> None:
        """Stop the sources, process everything already received, close the outputs."""
        for source in reversed(self.sources):
            try:
                source.stop()
            except Exception:  # a broken source must not keep the others from stopping
                log.exception("source %s did not stop cleanly", source.name)
        self._inbox.put(None)
        if self._worker:
            self._worker.join()
        for output in reversed(self.outputs):
            self._safely(output.close)

    def submit(self, event: Event) -> None:
        """Thread-safe entry for sources."""
        self._put(event)

    @property
    def running(self) -> bool:
        """The worker is taking events (started and not stopped)."""
        return self._worker is not None and self._worker.is_alive()

    def catch_up(self, stop: threading.Event) -> None:
        """Wait until everything submitted so far is processed and time has passed to the clock's present
        (a recording played fast: its conductor moves the clock on only once the table has caught up, as the
        paced table keeps up); returns early when ``stop`` is set."""
        self._put(_Tick())
        with self._processed:
            while self._unprocessed and not stop.is_set():
                self._processed.wait(0.05)

    def _put(self, item: Event | _Tick) -> None:
        with self._processed:
            self._unprocessed += 1
        self._inbox.put(item)

    # --- processing ------------------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            try:
                event = self._inbox.get(timeout=0.05)
            except queue.Empty:
                if self.clock is not None:
                    self.tick(self.clock())
                continue
            if event is None:
                break
            if isinstance(event, _Tick):
                if self.clock is not None:
                    self.tick(self.clock())
            else:
                self.process(event)
            with self._processed:
                self._unprocessed -= 1
                self._processed.notify_all()
        self.drain()

    def process(self, event: Event) -> None:
        """Handle one event synchronously (the worker's step; tests and replays may call it directly)."""
        self.stats.events_in += 1
        self.stats.by_source[event.source] = self.stats.by_source.get(event.source, 0) + 1
        if isinstance(event, RfidFact) and event.source == "rfid":
            # Chips counted gone and counterfeit UIDs are facts no camera report can change, and the floor wants
            # them at once: they do not wait in time order behind a gesture the camera is still deciding. Only
            # the start of their hand goes first (held meanwhile, the fact would be the last hand's).
            self._facts.append(event)
            self._dispatch_facts()
            return
        self._fuse(self.order.push(event))

    def tick(self, now: float) -> None:
        """Let time pass to ``now`` (the sources' clock): release held events and fusion reports that are due."""
        self._fuse(self.order.tick(now))
        # Fusion's clock is the ordered stream's: reports still waiting in the reorder buffer may be the twins.
        self._dispatch(self.fusion.flush(self.order.until))
        if self.framer is not None:
            self._deliver(self.framer.tick(self.order.until))

    def release_until(self, until: float) -> None:
        """Every source has sent what it will up to ``until`` (a simulated hand that ended): release what is
        held up to then without waiting out the lateness, and fusion's reports due by then."""
        self._fuse(self.order.release_until(until))
        self._dispatch(self.fusion.flush(self.order.until))

    def drain(self) -> None:
        self._fuse(self.order.drain())
        self._dispatch(self.fusion.flush())
        if self.framer is not None:
            self._deliver(self.framer.flush())

    def _fuse(self, ordered: list[Event]) -> None:
        for i, event in enumerate(ordered):
            self._dispatch(self.fusion.feed(event))
            if self._facts:
                self._dispatch_facts(ordered[i + 1:])

    def _dispatch_facts(self, coming: list[Event] | None = None) -> None:
        """The RFID facts whose hand has started in the rules: no HandStarted before them is still held, or
        in ``coming`` (released, not yet dispatched)."""
        started = [e.ts for e in coming or () if isinstance(e, HandStarted)]
        ready = [fact for fact in self._facts if not self.order.holds(HandStarted, up_to=fact.ts)
                 and not any(ts <= fact.ts for ts in started)]
        self._facts = [fact for fact in self._facts if fact not in ready]
        for fact in ready:
            self._dispatch(self.fusion.rfid_fact(fact))

    def _dispatch(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Violation):  # fusion's own findings go straight out
                self.stats.events_out += 1
                self._emit_violation(event)
            else:
                self._deliver(self.framer.feed(event) if self.framer is not None else [event])

    def _deliver(self, events: list[Event]) -> None:
        """Events in their hand's frame to the outputs and the rules."""
        for event in events:
            self.stats.events_out += 1
            if not isinstance(event, Violation):  # the framer's findings (TDA-14) go out through the hand's rules
                for output in self.outputs:
                    self._safely(output.on_event, event)
            for violation in self.rules.feed(event):
                self._emit_violation(violation)
            for hand in self.rules.pop_finished():
                self.stats.hands += 1
                for output in self.outputs:
                    self._safely(output.on_hand, hand)

    def _emit_violation(self, violation: Violation) -> None:
        self.stats.violations += 1
        for output in self.outputs:
            self._safely(output.on_violation, violation)

    def _safely(self, call: Callable[..., None], *args: Any) -> None:
        try:
            call(*args)
        except Exception:
            self.stats.output_errors += 1
            log.exception("output %s failed; the table goes on", getattr(call, "__qualname__", call))
