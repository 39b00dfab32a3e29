"""The simulator's front door: a scenario in, frames, events, RFID reads, labels and truth out.

    sim = Simulation.from_file("tablewatch/sim/scenarios/string_raise.yaml")
    for frame in sim.frames(resolution="720p", fps=30):   # Frame(t, image, ids, labels)
        ...
    sim.events            # ground-truth events (tablewatch.events), time order
    sim.rfid_reads()      # RfidInventory per antenna over time
    sim.violations        # InjectedViolation list (type, rule_id, ts, end_ts, seats, ...)
    sim.phh_text()        # ground-truth PHH (pokerkit loads and replays it)
    sim.write("out/")     # everything above into a folder (see output.py)
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from pokerkit import HandHistory

from tablewatch.events import Event, RfidInventory
from tablewatch.sim.camera import CameraModel, board_camera, overhead_camera
from tablewatch.sim.hand import ActionTaken, InjectedViolation
from tablewatch.sim.render import Effects, Frame, Renderer
from tablewatch.sim.rfid import antenna_contents, rfid_inventories
from tablewatch.sim.scenario import (
    ChipSpec,
    HandSpec,
    PhhSource,
    Scenario,
    ScenarioError,
    load_scenario,
)
from tablewatch.sim.script import SimRun, simulate

RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "2160p": (3840, 2160), "4k": (3840, 2160)}
PHH_CHIP_COLOURS = ("white", "red", "green", "black", "purple", "yellow", "orange", "pink")


class Simulation:
    """One scenario, simulated once; cameras and renderers are made on demand and cached."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.run: SimRun = simulate(scenario)
        self._renderers: dict[tuple[str, str, bool], Renderer] = {}

    @classmethod
    def from_file(cls, path: str | Path) -> Simulation:
        return cls(load_scenario(path))

    @classmethod
    def from_phh(cls, path: str | Path, hand: int, *, violations: Sequence[dict[str, Any]] = (), seed: int = 0,
                 table: str = "T01") -> Simulation:
        return cls(phh_scenario(path, hand, violations=violations, seed=seed, table=table))

    # --- truth ----------------------------------------------------------------------------------------

    @property
    def events(self) -> list[Event]:
        return self.run.events

    @property
    def violations(self) -> list[InjectedViolation]:
        return self.run.violations

    @property
    def actions(self) -> list[ActionTaken]:
        """Each player's action as it completes, as a dealer keys it."""
        return self.run.actions

    @property
    def hands(self) -> list[HandHistory]:
        return self.run.hands

    @property
    def duration(self) -> float:
        return self.run.duration

    @property
    def registry(self) -> dict[str, int]:
        """Chip UID → value, the tag registry (counterfeit UIDs are absent)."""
        return self.run.registry

    def phh_text(self) -> str:
        return "".join(f"[{i}]\n{hh.dumps()}\n" for i, hh in enumerate(self.hands, start=1))

    def rfid_reads(self, *, period: float | None = None, changes_only: bool = False) -> list[RfidInventory]:
        return rfid_inventories(self.run, period=period, changes_only=changes_only)

    def antenna_contents(self, t: float) -> dict[str, tuple[str, ...]]:
        return antenna_contents(self.run, t)

    # --- pictures -------------------------------------------------------------------------------------

    def camera(self, name: str = "overhead", resolution: str = "720p") -> CameraModel:
        width, height = _resolution(resolution)
        rng = random.Random(self.scenario.seed * 1000 + (0 if name == "overhead" else 1))
        if name == "overhead":
            return overhead_camera(self.run.table.extent(margin=120.0), width=width, height=height, rng=rng,
                                   tilt_deg=self.scenario.camera_tilt_deg)
        if name == "board":
            return board_camera(self.run.table.centre("board"), width=width, height=height, rng=rng)
        raise ValueError(f"unknown camera {name!r}: 'overhead' or 'board'")

    def renderer(self, camera: str = "overhead", resolution: str = "720p", *, effects: bool = True) -> Renderer:
        key = (camera, resolution, effects)
        if key not in self._renderers:
            self._renderers[key] = Renderer(self.run, self.camera(camera, resolution),
                                            effects=Effects() if effects else Effects.none())
        return self._renderers[key]

    def release_renderers(self) -> None:
        """Drop the renderers made so far (a 4K one holds a few hundred MB of buffers and sprites): a hand
        that has been played keeps only its truth. ``renderer`` makes them again when asked."""
        self._renderers.clear()

    def frame_count(self, fps: float = 30.0) -> int:
        return math.ceil(self.duration * fps)

    def frames(self, camera: str = "overhead", resolution: str = "720p", *, fps: float = 30.0, start: int = 0,
               stop: int | None = None, labels: bool = True, effects: bool = True,
               card_boxes: str = "card") -> Iterator[Frame]:
        """Frames ``start`` .. ``stop`` (exclusive) at ``fps``; frame i shows time i / fps.

        ``card_boxes``: label face-up cards with one whole-card box (``card``) or a box per corner index
        (``index``, as in ``shared/data/cards-real``).
        """
        renderer = self.renderer(camera, resolution, effects=effects)
        for i in range(start, min(stop if stop is not None else 1 << 30, self.frame_count(fps))):
            yield renderer.render(i / fps, labels=labels, card_boxes=card_boxes)

    def write(self, out_dir: str | Path, **options: Any) -> Path:
        from tablewatch.sim.output import write_run

        return write_run(self, Path(out_dir), **options)

    @cached_property
    def summary(self) -> dict[str, Any]:
        return {"table": self.scenario.table, "layout": self.run.layout.name, "seed": self.scenario.seed,
                "hands": len(self.hands), "duration_s": round(self.duration, 3), "events": len(self.events),
                "violations": [v.type for v in self.violations], "deck": self.scenario.deck,
                "felt": self.scenario.felt}


def _resolution(name: str) -> tuple[int, int]:
    if name in RESOLUTIONS:
        return RESOLUTIONS[name]
    if "x" in name:
        w, _, h = name.partition("x")
        if w.isdigit() and h.isdigit():
            return int(w), int(h)
    raise ValueError(f"unknown resolution {name!r}: one of {', '.join(RESOLUTIONS)} or WIDTHxHEIGHT")


def phh_scenario(path: str | Path, hand: int, *, violations: Sequence[dict[str, Any]] = (), seed: int = 0,
                 table: str = "T01", count: int = 1) -> Scenario:
    """A scenario playing ``count`` hands of a PHH file from hand ``hand`` on, one after another at one table,
    with a chip set that pays their amounts; ``violations`` go into the first hand."""
    from tablewatch.sim.plan import plan_phh

    path = Path(path)
    numbers = range(hand, hand + count)
    # One chip unit for every hand (the smallest that pays each exactly), so the blinds keep their size.
    unit_of_phh = math.lcm(*(plan_phh(HandSpec(phh=PhhSource(file=path, hand=k)), hand_no=1, seat_count=10).unit
                             for k in numbers))
    plans = [plan_phh(HandSpec(phh=PhhSource(file=path, hand=k, unit=unit_of_phh)), hand_no=1, seat_count=10)
             for k in numbers]
    amounts = [a for plan in plans for a in (*plan.stacks, *plan.blinds, *(a.amount or 0 for a in plan.acts))]
    unit = math.gcd(*[a for a in amounts if a]) or 1
    unit = max(d for d in (1, 5, 10, 25, 100, 500, 1000) if unit % d == 0)
    chips = [ChipSpec(value=unit * k, colour=c) for k, c in zip((1, 5, 25, 100, 500, 1000, 5000), PHH_CHIP_COLOURS,
                                                                 strict=False)]
    top = max(seat for plan in plans for seat in plan.seats)
    layout = "oval6" if top <= 6 else "oval9" if top <= 9 else "oval10"
    hands = [{"phh": {"file": str(path), "hand": k, "unit": unit_of_phh},
              "violations": list(violations) if k == hand else []} for k in numbers]
    data = {"table": table, "layout": layout, "seed": seed, "chips": [c.model_dump() for c in chips], "hands": hands}
    try:
        return Scenario.model_validate(data)
    except Exception as exc:  # pydantic's ValidationError: say it in one paragraph
        raise ScenarioError(f"{path} hand {hand}: {exc}") from exc
