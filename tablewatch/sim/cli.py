"""``tablewatch sim render|dataset|coverage`` and ``tablewatch bench-sim``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from tablewatch.config import ConfigError
from tablewatch.sim.scenario import VIOLATION_TYPES

VIEWS = ("overhead_720p", "overhead_2160p", "board_720p")


@click.group()
def sim() -> None:
    """Simulated tables: scripted hands rendered as video, RFID reads and ground truth."""


@sim.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output folder.")
@click.option("--phh", type=click.Path(dir_okay=False, path_type=Path), help="Play a hand of this PHH file.")
@click.option("--hand", type=int, default=1, show_default=True, help="1-based hand index in the PHH file.")
@click.option("--violation", "--violations", "violations", multiple=True, metavar="TYPE[:KEY=VALUE,...]",
              help=f"Inject a violation (repeatable), e.g. missing_burn:street=turn. "
                   f"Types: {', '.join(VIOLATION_TYPES)}.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for a --phh run.")
@click.option("--view", "views", multiple=True, type=click.Choice(VIEWS), default=("overhead_720p", "board_720p"),
              show_default=True, help="Camera and resolution to render (repeatable).")
@click.option("--fps", type=float, default=30.0, show_default=True)
@click.option("--max-frames", type=int, default=None, help="Render only the first N frames.")
@click.option("--no-video", is_flag=True, help="Write labels and truth only.")
@click.option("--no-effects", is_flag=True, help="No noise, blur, lighting drift or shadows.")
@click.option("--card-boxes", type=click.Choice(("card", "index")), default="card", show_default=True,
              help="Label face-up cards whole, or by their corner indices (as the real photos are).")
def render(scenario: Path | None, out: Path, phh: Path | None, hand: int, violations: tuple[str, ...], seed: int,
           views: tuple[str, ...], fps: float, max_frames: int | None, no_video: bool, no_effects: bool,
           card_boxes: str) -> None:
    """Render SCENARIO (a YAML scenario file), or --phh FILE --hand N, into OUT."""
    from tablewatch.sim.session import Simulation

    if (scenario is None) == (phh is None):
        raise click.UsageError("give a SCENARIO file or --phh FILE (not both)")
    try:
        if phh is not None:
            sim_ = Simulation.from_phh(phh, hand, violations=[parse_violation(v) for v in violations], seed=seed)
        else:
            if violations:
                raise click.UsageError("--violation goes with --phh; a scenario file lists its own violations")
            sim_ = Simulation.from_file(scenario)  # type: ignore[arg-type]
    except ConfigError as exc:
        source = str(phh or scenario)
        raise click.ClickException(str(exc) if source in str(exc) else f"{source}: {exc}") from exc
    parsed = [tuple(v.split("_", 1)) for v in views]
    sim_.write(out, fps=fps, views=parsed, video=not no_video, max_frames=max_frames, effects=not no_effects,
               card_boxes=card_boxes)
    click.echo(f"wrote {out}: {sim_.frame_count(fps) if max_frames is None else max_frames} frames per view, "
               f"{len(sim_.events)} events, {len(sim_.violations)} injected violation(s)")


@sim.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Recording folder (DIR/table.toml plays it).")
@click.option("--phh", type=click.Path(dir_okay=False, path_type=Path), help="Play hands of this PHH file.")
@click.option("--hand", type=click.IntRange(min=1), default=1, show_default=True,
              help="1-based index of the (first) hand in the PHH file.")
@click.option("--hands", "count", type=click.IntRange(min=1), default=1, show_default=True,
              help="Hands to play from --hand on, one after another on one clock.")
@click.option("--violation", "--violations", "violations", multiple=True, metavar="TYPE[:KEY=VALUE,...]",
              help="Inject a violation into the first hand (repeatable), as for `sim render`.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for a --phh run.")
@click.option("--fps", type=click.FloatRange(min=1.0), default=15.0, show_default=True,
              help="Frames per second of the overhead video (what perception analyses).")
@click.option("--max-seconds", type=click.FloatRange(min=0.5), default=None,
              help="Record only the first seconds (the truth keeps the whole session).")
@click.option("--console-delay", type=click.FloatRange(min=0.0), default=0.8, show_default=True,
              help="Seconds between a declaration spoken and the dealer typing it.")
@click.option("--no-effects", is_flag=True, help="No noise, blur, lighting drift or shadows.")
@click.option("--no-camera", is_flag=True, help="A table without a camera (RFID and console): no video; the dealer "
              "keys each hand's start, its button, the seats and every action on the console.")
@click.option("--no-rfid", is_flag=True, help="A table without RFID readers (camera and console): no RFID reads, "
              "no tag registry; starting stacks are unknown to the run.")
@click.option("--name-players", is_flag=True, help="The floor keys each player's name (the scenario's, the PHH "
              "file's) on the console as they sit down: `player SEAT NAME`.")
def record(scenario: Path | None, out: Path, phh: Path | None, hand: int, count: int, violations: tuple[str, ...],
           seed: int, fps: float, max_seconds: float | None, console_delay: float, no_effects: bool, no_camera: bool,
           no_rfid: bool, name_players: bool) -> None:
    """Record SCENARIO (or --phh FILE hands) as a table's devices capture it, for `tablewatch run OUT/table.toml`.

    OUT gets the overhead video, its calibrated profile, the tag registry, the RFID reads and the console
    entries as timelines, and the table's configuration that replays them; the ground truth goes apart in
    OUT/truth (never read by the run). --no-camera or --no-rfid leaves that device out of the table.
    """
    from tablewatch.sim.record import record as record_session
    from tablewatch.sim.session import Simulation, phh_scenario

    if (scenario is None) == (phh is None):
        raise click.UsageError("give a SCENARIO file or --phh FILE (not both)")
    if no_camera and no_rfid:
        raise click.UsageError("--no-camera and --no-rfid together leave a console alone, which finds no hand")
    try:
        if phh is not None:
            sim_ = Simulation(phh_scenario(phh, hand, violations=[parse_violation(v) for v in violations], seed=seed,
                                           count=count))
        else:
            if violations or count != 1 or hand != 1:
                raise click.UsageError("--violation, --hand and --hands go with --phh; a scenario file lists its own")
            sim_ = Simulation.from_file(scenario)  # type: ignore[arg-type]
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    started = time.perf_counter()
    summary = record_session(sim_, out, fps=fps, max_seconds=max_seconds, effects=not no_effects,
                             console_delay_s=console_delay, camera=not no_camera, rfid=not no_rfid,
                             name_players=name_players)
    click.echo(f"recorded {out} ({' + '.join(summary['devices'])}): {summary['length_s']:.1f} s, "
               f"{len(sim_.hands)} hand(s), {summary['frames']} frames, "
               f"{summary['rfid_reads']} RFID reads, {summary['console_entries']} console entries "
               f"({time.perf_counter() - started:.0f} s); play it: tablewatch run {out / 'table.toml'}")


def parse_violation(text: str) -> dict[str, Any]:
    """``missing_burn:street=turn`` → ``{"type": "missing_burn", "street": "turn"}`` (numbers become ints)."""
    kind, _, rest = text.partition(":")
    if kind not in VIOLATION_TYPES:
        raise click.BadParameter(f"unknown violation {kind!r}; known: {', '.join(VIOLATION_TYPES)}",
                                 param_hint="--violation")
    out: dict[str, Any] = {"type": kind}
    for part in filter(None, rest.split(",")):
        key, eq, value = part.partition("=")
        if not eq:
            raise click.BadParameter(f"{part!r} in {text!r} is not KEY=VALUE", param_hint="--violation")
        out[key] = _value(value)
    return out


def _value(text: str) -> Any:
    if text.lstrip("-").isdigit():
        return int(text)
    if ":" in text and all(p.strip().isdigit() for p in text.replace(";", ":").split(":")):
        pairs = [p.split(":") for p in text.split(";")]
        return {int(d): int(n) for d, n in pairs}
    try:
        return float(text)
    except ValueError:
        return text


@sim.command()
@click.option("-n", "count", type=int, required=True, help="Number of images.")
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--resolution", default="720p", show_default=True, help="720p, 1080p, 2160p or WxH.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--held-out", is_flag=True, help="Use the held-out deck and felt only (for a test set).")
@click.option("--val-share", type=float, default=0.1, show_default=True, help="Share of images in the val split.")
@click.option("--card-boxes", type=click.Choice(("card", "index")), default="index", show_default=True,
              help="Label face-up cards by their corner indices (as the real photos are) or whole.")
def dataset(count: int, out: Path, resolution: str, seed: int, held_out: bool, val_share: float,
            card_boxes: str) -> None:
    """Training images with YOLO labels and a data.yaml, from random hands at random moments."""
    from tablewatch.sim.dataset import make_dataset

    if count <= 0:
        raise click.BadParameter("must be at least 1", param_hint="-n")
    stats = make_dataset(out, count=count, resolution=resolution, seed=seed, held_out=held_out, val_share=val_share,
                         card_boxes=card_boxes, progress=True)
    click.echo(f"wrote {stats['images']} images, {stats['labels']} boxes to {out} ({out / 'data.yaml'})")


@sim.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--violations", is_flag=True, help="Also simulate each hand once per violation it can carry.")
@click.option("--sample", "size", type=click.IntRange(min=1), default=None,
              help="Only N hands per file, spread evenly (default: every hand).")
@click.option("--layout", type=click.Choice(("auto", "oval6", "oval9", "oval10")), default="auto", show_default=True,
              help="Table layout (auto: the smallest that seats the hand; the benchmark uses oval6).")
@click.option("--progress", type=int, default=100, show_default=True, help="Print a line every N hands (0: never).")
def coverage(files: tuple[Path, ...], violations: bool, size: int | None, layout: str, progress: int) -> None:
    """Simulate every hand of FILES (no rendering) and count the failures by message."""
    from tablewatch.sim.coverage import report, run

    start = time.perf_counter()
    try:
        results = run(files, violations=violations, size=size, layout=layout, progress=progress,
                      echo=lambda line: click.echo(line, err=True))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report(results))
    click.echo(f"({time.perf_counter() - start:.0f} s)")


@click.command("bench-sim")
@click.option("--frames", type=int, default=30, show_default=True, help="Frames to time per resolution.")
@click.option("--images", type=int, default=20, show_default=True, help="Dataset images to time.")
def bench_sim(frames: int, images: int) -> None:
    """Frames rendered per second at 720p and 4K, and labelled images per minute."""
    import tempfile

    from tablewatch.sim.dataset import make_dataset
    from tablewatch.sim.scenarios import example
    from tablewatch.sim.session import Simulation

    sim_ = Simulation.from_file(example("demo"))
    for resolution in ("720p", "2160p"):
        renderer = sim_.renderer("overhead", resolution)
        renderer.render(10.0)  # warm caches
        start = time.perf_counter()
        for i in range(frames):
            renderer.render(10.0 + i / 30.0)
        elapsed = time.perf_counter() - start
        click.echo(f"render {resolution} overhead with labels: {frames / elapsed:.1f} frames/s "
                   f"({elapsed / frames * 1000:.0f} ms/frame)")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        make_dataset(Path(tmp), count=images, resolution="720p", seed=1, progress=False)
        elapsed = time.perf_counter() - start
    click.echo(f"dataset 720p: {images / elapsed * 60:.0f} labelled images/min (incl. simulating the hands)")
