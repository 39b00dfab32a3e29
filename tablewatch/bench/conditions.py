"""``tablewatch bench-conditions``: the monitor under a camera's conditions, each on its own and in realistic mixes.

One session is recorded clean (``sim record``: the demo's hands by default, one violation each). For each cell its
video is written again as the cell's camera and recorder would have delivered it (``sim.conditions``), the camera
calibrated again from that video (a table is calibrated under its own light; a cell ``calibrated_before`` keeps the
clean video's calibration, as when a recorder's setting changes after), and ``tablewatch run --fast`` plays it with
the same RFID reads and console entries; a tilted camera's cell is recorded again with the camera tilted.
Each cell is scored against the truth as ``bench`` scores a run, and the vision events against the simulator's;
its conditions are written into its ``recording.json``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from tablewatch.bench.perception_evaluate import match
from tablewatch.bench.score import SessionScore
from tablewatch.bench.through_run import play, recorded_session, score_run
from tablewatch.calibration import tomlio
from tablewatch.events import CameraPicture, Event, load_events
from tablewatch.sim.conditions import Conditions, degrade_video, filter_chain, filtered_video
from tablewatch.sim.record import record, run_config, write_profile, write_video
from tablewatch.sim.scenario import Scenario
from tablewatch.sim.session import Simulation

VIDEO = "overhead_720p.mp4"
SHARED_FILES = ("console.txt", "registry.csv", "rfid.jsonl", "recording.json")
MADE_FROM = "made-from.json"  # the hands file, hands and seed a recording was made of (``--reuse-recording``)
VISION_SOURCES = ("vision", "scene")  # the camera's events, alone or paired with the readers'


@dataclass(frozen=True)
class Cell:
    """One column of the matrix: a camera's conditions, and its tilt off vertical; or (``pbr_spp``) the session
    rendered again by the physically based renderer at that many samples a pixel."""

    name: str
    conditions: Conditions = field(default_factory=Conditions)
    tilt_deg: float = 0.0
    pbr_spp: int = 0
    calibrated_before: bool = False  # the table calibrated on the clean video: the condition came after (a recorder
    # set to a lower resolution since), where a cell's camera is otherwise calibrated under its own conditions
    ffmpeg_filter: str = ""  # the clean video written again through this FFmpeg filter chain instead (a degradation
    # the simulator does not make: ``conditions.filtered_video``)

    def describe(self) -> str:
        if self.pbr_spp:
            return f"physically based frames, {self.pbr_spp} samples a pixel"
        if self.ffmpeg_filter:
            return f"FFmpeg filter {self.ffmpeg_filter}"
        tilt = f"tilt={self.tilt_deg:g}°" if self.tilt_deg else ""
        shown = self.conditions.describe()
        before = "calibrated on the clean video" if self.calibrated_before else ""
        return ", ".join(x for x in (tilt, "" if shown == "clean" and tilt else shown, before) if x)


# Each condition at a level a casino camera meets, then a harsher one; then three rooms as they come.
SINGLE = (
    Cell("clean"),
    Cell("light 60 %", Conditions(light=0.6)), Cell("light 35 %", Conditions(light=0.35)),
    Cell("light 15 %", Conditions(light=0.15)),  # past the light correction: the monitor must say so
    Cell("fall-off 30 %", Conditions(falloff=0.3)), Cell("fall-off 60 %", Conditions(falloff=0.6)),
    Cell("hot spot 25 %", Conditions(hotspot=0.25)), Cell("hot spot 50 %", Conditions(hotspot=0.5)),
    Cell("glare 0.5", Conditions(glare=0.5)), Cell("glare 1.0", Conditions(glare=1.0)),
    Cell("blur 1 px", Conditions(blur_px=1.0)), Cell("blur 2 px", Conditions(blur_px=2.0)),
    Cell("noise 6", Conditions(noise=6.0)), Cell("noise 12", Conditions(noise=12.0)),
    Cell("H.264 2 Mbit/s", Conditions(h264_kbps=2000)), Cell("H.264 0.8 Mbit/s", Conditions(h264_kbps=800)),
    Cell("H.265 1 Mbit/s", Conditions(h265_kbps=1000)), Cell("H.265 0.4 Mbit/s", Conditions(h265_kbps=400)),
    Cell("MJPEG q50", Conditions(jpeg_quality=50)), Cell("MJPEG q25", Conditions(jpeg_quality=25)),
    Cell("drops 5 %", Conditions(drop=0.05)), Cell("drops 20 %", Conditions(drop=0.2)),
    Cell("auto-exposure 0.5", Conditions(auto_exposure=0.5)), Cell("auto-exposure 1", Conditions(auto_exposure=1.0)),
    Cell("warm light 0.5", Conditions(warmth=0.5)), Cell("warm light 1", Conditions(warmth=1.0)),
    Cell("gamma 1.4", Conditions(gamma=1.4)), Cell("gamma 0.7", Conditions(gamma=0.7)),
    Cell("colour 60 %", Conditions(saturation=0.6)), Cell("colour 30 %", Conditions(saturation=0.3)),
    Cell("black and white", Conditions(saturation=0.0)),  # a camera in night mode: the monitor must say so
    Cell("sharpening 1", Conditions(sharpen=1.0)), Cell("sharpening 2", Conditions(sharpen=2.0)),
    Cell("noise reduction 0.6", Conditions(denoise=0.6)), Cell("noise reduction 0.9", Conditions(denoise=0.9)),
    Cell("interlaced", Conditions(interlaced=True)),  # an analogue camera's fields woven: every edge that moves combed
    Cell("lens 0.06", Conditions(barrel=0.06)), Cell("lens 0.12", Conditions(barrel=0.12)),
    Cell("shake 1 px", Conditions(shake_px=1.0)), Cell("shake 2 px", Conditions(shake_px=2.0)),
    Cell("stall 0.5 s", Conditions(freeze_s=0.5)), Cell("stall 1 s", Conditions(freeze_s=1.0)),
    Cell("flicker 10 %", Conditions(flicker=0.1)), Cell("flicker 25 %", Conditions(flicker=0.25)),
    Cell("shadow 30 %", Conditions(shadow=0.3)), Cell("shadow 50 %", Conditions(shadow=0.5)),
    Cell("time burnt in", Conditions(timestamp=True)),
    Cell("7.5 frames/s", Conditions(frame_step=2)), Cell("5 frames/s", Conditions(frame_step=3)),
    Cell("480p", Conditions(height=480)), Cell("360p", Conditions(height=360)),
    Cell("480p after calibration", Conditions(height=480), calibrated_before=True),
    Cell("tilt 8°", tilt_deg=8.0), Cell("tilt 15°", tilt_deg=15.0),
)
MIXES = (
    Cell("dim club", Conditions(light=0.45, falloff=0.3, hotspot=0.2, noise=8.0, auto_exposure=0.5)),
    Cell("CCTV H.264 2 Mbit/s", Conditions(h264_kbps=2000, blur_px=0.8, drop=0.03)),
    Cell("camera 8° off vertical, H.264", Conditions(h264_kbps=2000), tilt_deg=8.0),
)
# Not in the default matrix (seconds a frame to render: a hand's worth takes half an hour on two cores).
PHYSICAL = Cell("physically based", pbr_spp=4)
CELLS = {cell.name: cell for cell in (*SINGLE, *MIXES, PHYSICAL)}


@dataclass
class CellScore:
    cell: Cell
    session: SessionScore
    events: tuple[int, int, int]  # vision events: matched, seen, true
    hands_found: int
    reported: tuple[str, ...] = ()  # what the camera's picture was reported to be (too dark, overexposed)
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        matched, seen, true = self.events
        return {"cell": self.cell.name, "conditions": self.cell.describe(), "hands": self.session.hands,
                "hands_found": self.hands_found, "hands_exact": self.session.hands_exact,
                "actions": self.session.actions, "actions_right": self.session.actions_right,
                "events_matched": matched, "events_seen": seen, "events_true": true,
                "violations_injected": sum(r.injected for r in self.session.per_type.values()),
                "violations_found": sum(r.found for r in self.session.per_type.values()),
                "false_violations": sum(self.session.false_by_rule.values()),
                "false_by_rule": self.session.false_by_rule, "picture_reported": list(self.reported),
                "realtime": round(self.session.realtime_factor, 2)}


def bench_conditions(hands_file: Path, out: Path, *, hands: int, seed: int, cells: Sequence[Cell],
                     console: Console, jobs: int = 1, reuse: bool = False) -> list[CellScore]:
    """Record once (or, ``reuse``, take the recording already in ``out`` of these hands), play every cell, ``jobs``
    at a time, print the matrix; ``out/conditions.json`` holds it, each cell's folder its own ``cell.json``."""
    sim, injected = recorded_session(hands_file, hands=hands, first=1, seed=seed)
    clean = out / "recording"  # (no cell's folder: cells are named by their conditions)
    made = {"phh": str(hands_file.resolve()), "hands": hands, "seed": seed}
    if reuse and (length_s := _recorded_length(clean, made)) is not None:
        console.print(f"the recording of {hands} hand(s) already made: {clean}")
    else:
        shutil.rmtree(clean, ignore_errors=True)
        console.print(f"recording {hands} hand(s) clean ({'; '.join(injected)}): {clean}")
        length_s = record(sim, clean, progress=False)["length_s"]
        (clean / MADE_FROM).write_text(json.dumps(made, indent=2) + "\n", encoding="utf-8")
    scores: dict[str, CellScore] = {}
    # Each cell's heavy part is its own `tablewatch run` process and video coding outside the interpreter's lock:
    # threads are enough to keep several cores busy.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        started = time.perf_counter()
        playing = {pool.submit(_play_cell, sim, clean, out / _slug(cell.name), cell, length_s=length_s): cell
                   for cell in cells}
        for done in as_completed(playing):
            cell = playing[done]
            try:
                scores[cell.name] = score = done.result()
            except (RuntimeError, ValueError, OSError) as exc:
                console.print(f"[red]{cell.name}: {exc}[/]")
                continue
            (out / _slug(cell.name) / "cell.json").write_text(json.dumps(score.as_dict(), indent=2) + "\n",
                                                               encoding="utf-8")
            console.print(f"{cell.name}: {_line(score)} ({time.perf_counter() - started:.0f} s in)")
    ordered = [scores[cell.name] for cell in cells if cell.name in scores]
    console.print(matrix(ordered))
    (out / "conditions.json").write_text(json.dumps([s.as_dict() for s in ordered], indent=2) + "\n",
                                         encoding="utf-8")
    return ordered


def _recorded_length(clean: Path, made: dict[str, Any]) -> float | None:
    """How long the recording in ``clean`` lasts, when it is whole and was made of ``made`` (hands file, hands,
    seed); None otherwise."""
    try:
        recorded = json.loads((clean / "recording.json").read_text(encoding="utf-8"))
        if json.loads((clean / MADE_FROM).read_text(encoding="utf-8")) != made:
            return None
        return float(recorded["length_s"])
    except (OSError, ValueError):
        return None


def _play_cell(sim: Simulation, clean: Path, folder: Path, cell: Cell, *, length_s: float) -> CellScore:
    shutil.rmtree(folder, ignore_errors=True)
    if cell.pbr_spp:
        _copy_recording(sim, clean, folder, length_s=length_s)
        _render_physically(sim, folder / VIDEO, spp=cell.pbr_spp, frames=_recorded_frames(clean))
    elif cell.tilt_deg:
        tilted = Simulation(Scenario.model_validate({**sim.scenario.model_dump(), "camera_tilt_deg": cell.tilt_deg}))
        record(tilted, folder, progress=False)
        source = folder / VIDEO
        if cell.conditions != Conditions():
            shutil.move(source, folder / f"tilted-{VIDEO}")
            degrade_video(folder / f"tilted-{VIDEO}", source, cell.conditions, seed=tilted.scenario.seed)
            (folder / f"tilted-{VIDEO}").unlink()
            write_profile(tilted, folder / "profile.toml", video=source)
    elif cell.ffmpeg_filter:
        _copy_recording(sim, clean, folder, length_s=length_s)
        filtered_video(clean / VIDEO, folder / VIDEO, cell.ffmpeg_filter)
        write_profile(sim, folder / "profile.toml", video=folder / VIDEO)
    else:
        _copy_recording(sim, clean, folder, length_s=length_s)
        degrade_video(clean / VIDEO, folder / VIDEO, cell.conditions, seed=sim.scenario.seed)
        if cell.calibrated_before:
            shutil.copy2(clean / "profile.toml", folder / "profile.toml")
        else:
            write_profile(sim, folder / "profile.toml", video=folder / VIDEO)
    recorded = json.loads((folder / "recording.json").read_text(encoding="utf-8"))
    recorded["conditions"] = {"cell": cell.name, **asdict(cell.conditions), "tilt_deg": cell.tilt_deg,
                              "calibrated_before": cell.calibrated_before, "ffmpeg_filter": cell.ffmpeg_filter}
    (folder / "recording.json").write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")
    wall_s = play(folder, folder / "run", length_s=length_s)
    session, frame = score_run(folder, folder / "run", session_s=length_s, wall_s=wall_s, frames=recorded["frames"])
    seen = load_events((folder / "run" / "events.jsonl").read_text(encoding="utf-8"))
    reported = tuple(dict.fromkeys(e.condition for e in seen if isinstance(e, CameraPicture) and not e.usable))
    return CellScore(cell=cell, session=session, events=_events(folder, seen), hands_found=frame.hands_found,
                     reported=reported)


def _copy_recording(sim: Simulation, clean: Path, folder: Path, *, length_s: float) -> None:
    """The clean recording's readers, console and truth in a cell's folder, with its table configuration."""
    folder.mkdir(parents=True)
    for name in SHARED_FILES:
        shutil.copy2(clean / name, folder / name)
    shutil.copytree(clean / "truth", folder / "truth")
    (folder / "table.toml").write_text(tomlio.dumps(run_config(sim, folder, length=length_s),
                                                    header="A recorded session: tablewatch run table.toml"),
                                       encoding="utf-8")


def _recorded_frames(clean: Path) -> tuple[int, float]:
    """How many frames the clean recording's video holds, and at what rate."""
    recorded = json.loads((clean / "recording.json").read_text(encoding="utf-8"))
    return int(recorded["frames"]), float(recorded["fps"])


def _render_physically(sim: Simulation, video: Path, *, spp: int, frames: tuple[int, float]) -> None:
    """The session's video drawn again by the physically based renderer, frame for frame, and its profile
    calibrated from it with the chip colours learned from its tray (the lamps shade every colour)."""
    from tablewatch.bench.pbr import tray_order
    from tablewatch.sim.pbr.render import PbrRenderer

    count, fps = frames
    renderer = PbrRenderer(sim.renderer(effects=False), spp=spp, seed=sim.scenario.seed)
    images = (renderer.render(i / fps, labels=False).image for i in range(count))
    camera = sim.camera("overhead", "720p")
    write_video(video, images, fps=fps, size=(camera.width, camera.height))
    write_profile(sim, video.with_name("profile.toml"), video=video, tray=tray_order(sim))


def _events(folder: Path, seen: list[Event]) -> tuple[int, int, int]:
    """The camera's events against the simulator's: (matched, seen, true), every kind together."""
    truth = load_events((folder / "truth" / "events.jsonl").read_text(encoding="utf-8"))
    score = match(truth, [e for e in seen if e.source in VISION_SOURCES])
    return tuple(sum(c[i] for c in score.counts.values()) for i in range(3))  # type: ignore[return-value]


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} %" if d else "-"


def _line(s: CellScore) -> str:
    d = s.as_dict()
    return (f"hands exact {d['hands_exact']}/{d['hands']}, event recall {_pct(d['events_matched'], d['events_true'])}, "
            f"precision {_pct(d['events_matched'], d['events_seen'])}, violations {d['violations_found']}/"
            f"{d['violations_injected']}, false {d['false_violations']}")


def matrix(scores: Sequence[CellScore]) -> Table:
    table = Table(title="The monitor under a camera's conditions (`tablewatch run --fast` on each)")
    for name in ("cell", "hands found", "hands exact", "actions right", "event recall",
                 "event precision", "violations found", "false violations", "picture reported", "× real time"):
        table.add_column(name, justify="left" if name == "cell" else "right")
    for s in scores:
        d = s.as_dict()
        table.add_row(d["cell"], f"{d['hands_found']}/{d['hands']}",
                      f"{d['hands_exact']}/{d['hands']}", _pct(d["actions_right"], d["actions"]),
                      _pct(d["events_matched"], d["events_true"]), _pct(d["events_matched"], d["events_seen"]),
                      f"{d['violations_found']}/{d['violations_injected']}", str(d["false_violations"]),
                      ", ".join(d["picture_reported"]) or "-", f"{d['realtime']:.2f}")
    return table


def cells_named(names: Sequence[str], ffmpeg_filters: Sequence[str] = ()) -> list[Cell]:
    """The cells of these names ("mixes": the three mixes, "single": every condition alone), then one for each FFmpeg
    filter chain; all the named cells when neither is given."""
    for chain in ffmpeg_filters:
        filter_chain(chain)  # (refused before anything is recorded)
    filtered = [Cell(f"FFmpeg {chain}", ffmpeg_filter=chain) for chain in dict.fromkeys(ffmpeg_filters)]
    if not names:
        return filtered or [*SINGLE, *MIXES]
    chosen: list[Cell] = []
    for name in names:
        if name == "single":
            chosen += SINGLE
        elif name == "mixes":
            chosen += MIXES
        elif name in CELLS:
            chosen.append(CELLS[name])
        else:
            raise ValueError(f"no cell {name!r}; cells: {', '.join(CELLS)}, or 'single', 'mixes'")
    return list(dict.fromkeys(chosen)) + filtered

