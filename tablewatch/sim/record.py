"""A simulated session recorded as a table's devices would have captured it, for ``tablewatch run`` to replay.

    DIR/
      table.toml            the table's configuration that plays the recording (``tablewatch run DIR/table.toml``)
      overhead_720p.mp4     the overhead camera (not at a table without one)
      profile.toml          the camera's table profile, calibrated from the video's frames (markers, chip paints)
      registry.csv          the chip tag registry (uid,denomination,chip_set; counterfeit chips are absent; not
                            at a table without RFID)
      rfid.jsonl            what each antenna holds, each time it changes (tablewatch.devices.recording; not at
                            a table without RFID)
      console.txt           the entries the dealer typed, each a little after what it says happened
      recording.json        what the recording holds: its devices, length, frames, entries, files
      truth/                the ground truth, for scoring only (never read by the run): truth.phhs,
                            events.jsonl, violations.json

The hands play one after another on one clock: a PHH file's hands are one continuous recording.

A table has a camera, RFID readers or both, and a dealer console. Where a camera watches, the dealer types
what players declared and nothing more (the scenarios model no venue that uses the set-up entries). Where no
camera watches (``camera=False``), the dealer keys what no device sees: at each hand's start "new hand",
``button N`` and the seats that opened or closed since the last hand (every seat at the first), and each
player's action once it is complete (fold, check, call, bet or raise with its total) unless the player
declared it, in which case the declaration as said is what was typed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from tablewatch.calibration import tomlio
from tablewatch.calibration.button import measure_button
from tablewatch.calibration.chips import painted_chip_colours
from tablewatch.calibration.cli import read_frames, tray_zone_chips
from tablewatch.calibration.layout import load_layout
from tablewatch.calibration.markers import calibrate_frames
from tablewatch.calibration.profile import new_profile, save_profile
from tablewatch.devices.console import PERSON_NAME, Entry, Setup, entry_line, setup_line
from tablewatch.devices.recording import ConsoleEntry, write_console_entries, write_rfid_timeline
from tablewatch.events import Declaration, HandStarted, RfidInventory, Zone, dump_events
from tablewatch.phhfile import forced_antes
from tablewatch.sim.output import VIDEO_FOURCC, write_registry
from tablewatch.sim.rfid import antenna_nodes
from tablewatch.sim.scenario import FELTS
from tablewatch.sim.session import Simulation

DEFAULT_FPS = 15.0  # what perception analyses (the bench's default)
CONSOLE_DELAY_S = 0.8  # the dealer types a declaration this long after it is spoken (an action after it is done)
DEALER_PUSH_S = 2.0  # a new dealer is named on the console this long before the first hand they deal
SETUP_KEY_S = 0.2  # between the set-up entries a dealer keys one after another as a hand starts
RFID_SAMPLE_S = 0.1  # how often the antennas' contents are looked at (a reader answers what lies there)
CALIBRATION_FRAMES = 5


def record(sim: Simulation, out: Path, *, fps: float = DEFAULT_FPS, max_seconds: float | None = None,
           effects: bool = True, console_delay_s: float = CONSOLE_DELAY_S, progress: bool = True,
           camera: bool = True, rfid: bool = True, dealers: Sequence[str] = (),
           name_players: bool = False) -> dict[str, Any]:
    """Write the recording of ``sim`` (its first ``max_seconds`` only, when given) into ``out``, as a table with
    the overhead ``camera``, the ``rfid`` readers or both, and a dealer console; its summary. ``dealers``: who
    deals each hand, named on the console as they sit down; ``name_players``: the players too."""
    if not (camera or rfid):
        raise ValueError("a recorded table needs a camera or RFID readers (a console alone finds no hand)")
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    length = min(sim.duration, max_seconds) if max_seconds is not None else sim.duration
    _write_truth(sim, out / "truth", fps)
    frames = reads = 0
    if camera:
        frames = _write_video(sim, out / "overhead_720p.mp4", fps=fps, length=length, effects=effects,
                              progress=progress)
        write_profile(sim, out / "profile.toml", video=out / "overhead_720p.mp4")
    if rfid:
        timeline = rfid_timeline(sim, until=length)
        reads = len(timeline)
        write_rfid_timeline(out / "rfid.jsonl", timeline)
        write_registry(sim, out / "registry.csv")
    entries = sorted([*console_entries(sim, delay_s=console_delay_s, until=length, keyed=not camera),
                      *dealer_entries(sim, dealers), *(player_entries(sim) if name_players else [])],
                     key=lambda entry: entry.t)
    write_console_entries(out / "console.txt", entries)
    (out / "table.toml").write_text(tomlio.dumps(run_config(sim, out, length=length, camera=camera, rfid=rfid),
                                                 header="A recorded session: tablewatch run table.toml"),
                                    encoding="utf-8")
    summary = {"table": sim.scenario.table, "layout": sim.run.layout.name, "devices": devices(camera=camera, rfid=rfid),
               "length_s": round(length, 3), "fps": fps if camera else None, "frames": frames, "rfid_reads": reads,
               "console_entries": len(entries), "antennas": len(sim.run.antennas) if rfid else 0,
               "chips": len(sim.registry), "files": sorted(p.name for p in out.iterdir())}
    (out / "recording.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def devices(*, camera: bool, rfid: bool) -> list[str]:
    """The devices of a recorded table, by name."""
    return [name for name, present in (("camera", camera), ("rfid", rfid), ("console", True)) if present]


def rfid_timeline(sim: Simulation, *, until: float) -> list[RfidInventory]:
    """Each antenna's contents whenever they change. The table is set when the recording starts: what lies on
    the antennas as the first hand begins is there from time 0 (the readers' first sweep, a baseline)."""
    start = sim.events[0].ts if sim.events else 0.0
    last: dict[str, tuple[str, ...]] = {}
    reads = []
    for t in np.arange(start, until, RFID_SAMPLE_S):
        ts = 0.0 if not last else round(float(t), 3)
        for antenna, uids in sim.antenna_contents(float(t)).items():
            if last.get(antenna) != uids:
                last[antenna] = uids
                reads.append(RfidInventory(ts=ts, table=sim.scenario.table, source="rfid",
                                           seat=Zone.parse(antenna).seat, antenna=antenna, uids=uids))
    return reads


def console_entries(sim: Simulation, *, delay_s: float, until: float, keyed: bool = False) -> list[ConsoleEntry]:
    """The declarations as the dealer types them, ``delay_s`` after they are spoken; with ``keyed`` (a table no
    camera watches) also each hand's set-up and each action no player declared, ``delay_s`` after it."""
    typed = [ConsoleEntry(t=round(e.ts + delay_s, 3), line=entry_line(Entry(seat=e.seat, word=e.word, amount=e.amount)))
             for e in sim.events if isinstance(e, Declaration)]
    if keyed:
        typed += setup_entries(sim, delay_s=delay_s)
        typed += [ConsoleEntry(t=round(a.ts + delay_s, 3),
                               line=entry_line(Entry(seat=a.seat, word=a.word, amount=a.amount)))
                  for a in sim.actions if not a.spoken]
    return sorted((entry for entry in typed if entry.t < until), key=lambda entry: entry.t)


def dealer_entries(sim: Simulation, dealers: Sequence[str]) -> list[ConsoleEntry]:
    """"dealer NAME" a little before the first hand each dealer of ``dealers`` (one per hand) deals in turn."""
    entries, last = [], None
    for start, dealer in zip((e for e in sim.events if isinstance(e, HandStarted)), dealers, strict=False):
        if dealer != last:
            entries.append(ConsoleEntry(t=round(max(0.0, start.ts - DEALER_PUSH_S), 3), line=f"dealer {dealer}"))
        last = dealer
    return entries


def player_entries(sim: Simulation) -> list[ConsoleEntry]:
    """"player SEAT NAME" as the floor seats a player, a little before the first hand they play in that seat (a
    name the console would refuse is not keyed)."""
    entries: list[ConsoleEntry] = []
    seated: dict[int, str] = {}
    for start in (e for e in sim.events if isinstance(e, HandStarted)):
        seated = {seat: name for seat, name in seated.items() if seat in start.seats}  # a seat left: keyed again
        for seat, name in start.players:
            if seated.get(seat) != name and PERSON_NAME.fullmatch(name):
                entries.append(ConsoleEntry(t=round(max(0.0, start.ts - DEALER_PUSH_S), 3),
                                            line=setup_line(Setup(entry="player", seat=seat, name=name))))
            seated[seat] = name
    return entries


def setup_entries(sim: Simulation, *, delay_s: float) -> list[ConsoleEntry]:
    """At each hand's start: "new hand", its button, then the seats opened or closed since the last hand (every
    seat dealt in, at the first), one key after another."""
    entries: list[ConsoleEntry] = []
    seated: set[int] = set()
    for start in (e for e in sim.events if isinstance(e, HandStarted)):
        seats = set(start.seats)
        changes = [Setup(entry="seat", seat=s, open=False) for s in sorted(seated - seats)]
        changes += [Setup(entry="seat", seat=s, open=True) for s in sorted(seats - seated)]
        keys = [Setup(entry="new hand"), Setup(entry="button", seat=start.button), *changes]
        entries += [ConsoleEntry(t=round(start.ts + delay_s + i * SETUP_KEY_S, 3), line=setup_line(key))
                    for i, key in enumerate(keys)]
        seated = seats
    return entries


def run_config(sim: Simulation, out: Path, *, length: float, camera: bool = True,
               rfid: bool = True) -> dict[str, Any]:
    """The ``RunConfig`` (as TOML data) of a table that plays the recording in ``out``."""
    scenario = sim.scenario
    config: dict[str, Any] = {"table": scenario.table, "out": str(out / "run")}
    replay: dict[str, Any] = {"console": str(out / "console.txt"), "length_s": round(length, 3)}
    if rfid:
        config["registry"] = str(out / "registry.csv")
        replay["rfid"] = str(out / "rfid.jsonl")
    config |= {"console": "replay", "game": _game(sim)}
    if rfid:
        config["readers"] = [{"url": "replay", "name": "rfid", "antennas": antenna_nodes(sim.run),
                              "response_timeout": 0.5, "poll_interval": 0.05}]
    if camera:
        config["cameras"] = [{"name": "overhead", "source": str(out / "overhead_720p.mp4"),
                              "profile": str(out / "profile.toml"), "deck": scenario.deck}]
    return config | {"replay": replay}


def _game(sim: Simulation) -> dict[str, Any]:
    first = sim.hands[0]
    blinds = sorted(int(b) for b in first.blinds_or_straddles or () if b)
    small, big = (blinds[0], blinds[1]) if len(blinds) >= 2 else (0, blinds[0] if blinds else 100)
    antes = [int(a) for a in first.antes or ()]
    # one seat's ante for everyone, with trimming on, is handed back whole: a table without that ante
    trimmed_away = len(set(antes)) > 1 and first.ante_trimming_status
    ante, big_blind_ante, button_ante = (0, 0, 0) if trimmed_away else (forced_antes(antes) or (0, 0, 0))
    return {"small_blind": small, "big_blind": big, "ante": ante, "big_blind_ante": big_blind_ante,
            "button_ante": button_ante,
            "chip_denominations": sorted(c.value for c in sim.scenario.chips), "seat_count": 10}


def _write_truth(sim: Simulation, folder: Path, fps: float) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "truth.phhs").write_text(sim.phh_text(), encoding="utf-8")
    (folder / "events.jsonl").write_text(dump_events(sim.events), encoding="utf-8")
    (folder / "violations.json").write_text(json.dumps([v.to_dict(fps) for v in sim.violations], indent=2),
                                            encoding="utf-8")


def _write_video(sim: Simulation, path: Path, *, fps: float, length: float, effects: bool, progress: bool) -> int:
    """The overhead camera's video; its frame count."""
    count = max(1, math.ceil(length * fps))
    camera = sim.camera("overhead", "720p")
    write_video(path, _frames(sim, fps=fps, count=count, effects=effects, progress=progress), fps=fps,
                size=(camera.width, camera.height))
    return count


def write_video(path: Path, frames: Iterable[np.ndarray], *, fps: float, size: tuple[int, int]) -> None:
    """``frames`` (BGR, ``size``) as the recorder stores the overhead camera's video."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*VIDEO_FOURCC), fps, size)
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV cannot write {VIDEO_FOURCC} video to {path}")
    try:
        for frame in frames:
            writer.write(frame)
    finally:
        writer.release()


def _frames(sim: Simulation, *, fps: float, count: int, effects: bool, progress: bool) -> Iterator[np.ndarray]:
    frames = sim.frames("overhead", "720p", fps=fps, stop=count, labels=False, effects=effects)
    for frame in tqdm(frames, total=count, desc="overhead_720p", unit="frame", disable=not progress):
        yield frame.image


def write_profile(sim: Simulation, path: Path, *, video: Path, tray: Sequence[int] = ()) -> None:
    """The camera's table profile, as ``tablewatch calibrate --sim-chips`` makes it from the video's frames
    (with the scenario's chip set; or, given the ``tray``'s denominations left to right, as ``--denominations``
    learns them from the tray zone of the first frame), and the dealer button's look measured where it lies in
    the first frame."""
    name = sim.run.layout.name
    layout = load_layout(name)
    frames = read_frames(video, limit=CALIBRATION_FRAMES)
    calibration, _ = calibrate_frames(frames, layout)
    chips = (tray_zone_chips(frames[0], layout, calibration, list(tray)) if tray
             else painted_chip_colours(sim.scenario.chips, felt_bgr=FELTS[sim.scenario.felt]))
    profile = new_profile(table=sim.scenario.table, layout=name, calibration=calibration, chips=chips,
                          source=str(video), button=measure_button(frames[0], calibration, layout))
    save_profile(profile, path)
