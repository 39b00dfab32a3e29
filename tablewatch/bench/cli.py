"""``tablewatch demo`` and ``tablewatch bench``: simulated tables played through the pipeline and scored."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from rich.console import Console

from tablewatch.bench.scenarios import DEMO_HANDS, HandSet, hand_simulations
from tablewatch.calibration.decks import deck_names

# Written to a file or a pipe, rich would fit the tables to 80 columns and cut the violation kinds' names.
console = Console(highlight=False, width=None if sys.stdout.isatty() else 132)

# The camera channel of a benched table: what `run` does with a camera, or the simulator's truth (a diagnostic).
CAMERA_OPTION = click.option(
    "--camera", type=click.Choice(["vision", "truth"]), default="vision", show_default=True,
    help="vision: the hands recorded as a table's devices capture them (`sim record`) and played by `tablewatch "
    "run`, which finds each hand itself; truth: a DIAGNOSTIC of the rules and devices alone, the simulator's "
    "ground truth standing in for the camera and telling each hand's start, button, seats and stacks.")


def _simulate(hands_file: Path, *, hands: int, seed: int, first: int, deck: str | None = None) -> HandSet:
    with console.status(f"simulating {hands} hand(s) of {hands_file.name}…"):
        try:
            return hand_simulations(hands_file, hands=hands, seed=seed, first=first, deck=deck)
        except (OSError, ValueError) as exc:
            raise click.ClickException(str(exc)) from exc


@click.command()
@click.option("--hands", "hand_count", default=4, show_default=True, type=click.IntRange(1, 100),
              help="Hands to play (from the real hands shipped with tablewatch).")
@click.option("--phh", "hands_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=DEMO_HANDS,
              help="Another PHH file to take the hands from.")
@click.option("--mqtt", "mqtt_url", default=None, help="Publish to this broker (mqtt://host:port) instead of an "
              "embedded one.")
@click.option("--no-broker", is_flag=True, help="Publish nothing; alerts and hands go to the terminal and files.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out/demo"),
              show_default=True)
@click.option("--seed", default=1, show_default=True)
@click.option("--paced", is_flag=True, help="Play the recording at the table's own pace, alerts as they would come "
              "(default: `run --fast`, as fast as the monitor goes, with the same results).")
def demo(hand_count: int, hands_file: Path, mqtt_url: str | None, no_broker: bool, out: Path, seed: int,
         paced: bool) -> None:
    """A simulated table with violations, end to end: its devices recorded, then `tablewatch run` on them (the
    S6350 driver and the console over ptys, the video as the camera) → rules → MQTT; scored against the truth."""
    from tablewatch.bench.demo import run_demo

    try:
        run_demo(hands_file, hands=hand_count, seed=seed, out=out, mqtt_url=mqtt_url, broker=not no_broker,
                 console=console, fast=not paced)
    except (OSError, ValueError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from exc


@click.command()
@click.option("--phh", "hands_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=DEMO_HANDS,
              show_default="the demo's four hands", help="PHH file the hands come from.")
@click.option("--hands", "hand_count", default=8, show_default=True, type=click.IntRange(1, 5000))
@click.option("--first", default=1, show_default=True, help="First hand of the file to play.")
@click.option("--seed", default=1, show_default=True)
@click.option("--no-rfid", is_flag=True, help="A table without RFID readers (camera and console: starting stacks "
              "unknown).")
@click.option("--no-camera", is_flag=True, help="A table without a camera (RFID and console; the dealer keys each "
              "hand's start, button, seats and actions).")
@click.option("--deck", type=click.Choice(deck_names()), default=None,
              help="Card art dealt at the recorded table (default: the scenarios' anglo_poker).")
@CAMERA_OPTION
@click.option("--fps", default=15.0, show_default=True, help="Frames per second of the recorded video.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out/bench"),
              show_default=True)
@click.option("--paced", is_flag=True, help="Play the recording at its own pace, as a live table comes (default: "
              "`run --fast`, as fast as the monitor goes, with the same results).")
def bench(hands_file: Path, hand_count: int, first: int, seed: int, no_rfid: bool, no_camera: bool, deck: str | None,
          camera: str, fps: float, out: Path, paced: bool) -> None:
    """Score the monitor on real hands with known violations, recorded as a table's devices capture them and
    played by `tablewatch run`; prints a table, writes JSON."""
    if no_rfid and no_camera:
        raise click.UsageError("--no-rfid and --no-camera together leave a console alone, which finds no hand")
    if camera == "truth":
        if no_camera or deck is not None or paced:
            raise click.UsageError("--camera truth is the simulator's truth standing in for the camera: --no-camera, "
                                   "--deck and --paced don't apply")
        _bench_truth(hands_file, hand_count=hand_count, first=first, seed=seed, rfid=not no_rfid, out=out)
        return
    _bench_through_run(hands_file, hand_count=hand_count, first=first, seed=seed, fps=fps, out=out,
                       camera=not no_camera, rfid=not no_rfid, fast=not paced, deck=deck)


def _bench_truth(hands_file: Path, *, hand_count: int, first: int, seed: int, rfid: bool, out: Path) -> None:
    from tablewatch.bench.report import print_score, write_score_json
    from tablewatch.bench.score import score_session
    from tablewatch.bench.session import run_simulated_session

    hand_set = _simulate(hands_file, hands=hand_count, seed=seed, first=first)
    if not hand_set.sims:
        raise click.ClickException(f"None of the hands could be simulated: {hand_set.skipped}")
    started = time.perf_counter()
    with console.status(f"playing {len(hand_set.sims)} hands through the pipeline…"):
        result = run_simulated_session(hand_set.sims, out, rfid=rfid)
    score = score_session(result, skipped=hand_set.skipped)
    print_score(score, console)
    write_score_json(score, out / "bench.json")
    console.print(f"written: {out / 'bench.json'} ({time.perf_counter() - started:.0f} s in all)")


def _bench_through_run(hands_file: Path, *, hand_count: int, first: int, seed: int, fps: float, out: Path,
                       camera: bool, rfid: bool, fast: bool, deck: str | None) -> None:
    from tablewatch.bench.report import print_frame_score, print_score
    from tablewatch.bench.through_run import through_run

    with console.status(f"recording {hand_count} hand(s) and playing them through `tablewatch run`…"):
        try:
            score = through_run(hands_file, out, hands=hand_count, first=first, seed=seed, fps=fps, camera=camera,
                                rfid=rfid, fast=fast, deck=deck)
        except (OSError, ValueError, RuntimeError) as exc:
            raise click.ClickException(str(exc)) from exc
    print_score(score.session, console, through_run=score.devices, fast=fast)
    print_frame_score(score.frame, score.session.hands, console)
    console.print(f"injected: {'; '.join(score.injected) or 'none'}; recording made in {score.record_s:.0f} s")
    path = out / "bench.json"
    path.write_text(json.dumps(score.as_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    console.print(f"written: {path}")


@click.command("bench-conditions")
@click.option("--phh", "hands_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=DEMO_HANDS,
              help="PHH file the hands come from.  [default: (the demo's four hands)]", show_default=False)
@click.option("--hands", "hand_count", default=4, show_default=True, type=click.IntRange(1, 100))
@click.option("--seed", default=1, show_default=True)
@click.option("--cell", "cell_names", multiple=True, help="A cell to play (repeatable): a condition at a level "
              "('noise 12', 'H.264 2 Mbit/s', 'tilt 8°'…), 'single' (each condition alone), 'mixes' (the three "
              "rooms), 'physically based' (the session drawn again by the Mitsuba renderer: about 1.6 s a frame, "
              "never in the default); default: every cell but that one.")
@click.option("--ffmpeg-filter", "ffmpeg_filters", multiple=True, metavar="CHAIN",
              help="A cell of the clean video written again through an FFmpeg filter chain, as FFmpeg's -vf takes it "
              "(repeatable): a degradation the simulator does not make, e.g. 'tmix=frames=3' (frames averaged), "
              "'pad=1280:960:0:120' (letterboxed), 'fps=10'. Played after the --cell cells, or alone without them.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out/conditions"),
              show_default=True)
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Cells played at a time (each one `tablewatch run` and a video written again: about a core each).")
@click.option("--reuse-recording", "reuse", is_flag=True,
              help="Play the cells on the recording already in OUT when it was made of the same hands and seed "
              "(taken as it is: record again after the simulator changes).")
def bench_conditions(hands_file: Path, hand_count: int, seed: int, cell_names: tuple[str, ...],
                     ffmpeg_filters: tuple[str, ...], out: Path, jobs: int, reuse: bool) -> None:
    """The monitor under a camera's conditions: one session recorded clean, then its video written again under
    each condition (the room's light and lamps, focus, noise, the camera's exposure and own processing, H.264,
    H.265 and Motion-JPEG compression, dropped and stalled frames…) or recorded with the camera tilted, each
    played by `tablewatch run --fast` and scored against the truth; prints the matrix, writes OUT/conditions.json."""
    from tablewatch.bench.conditions import bench_conditions as run_matrix
    from tablewatch.bench.conditions import cells_named

    try:
        cells = cells_named(cell_names, ffmpeg_filters)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--cell or --ffmpeg-filter") from exc
    run_matrix(hands_file, out.resolve(), hands=hand_count, seed=seed, cells=cells, console=console, jobs=jobs,
               reuse=reuse)
