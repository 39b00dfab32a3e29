"""How many tables one edge box keeps at real time: each table a 4K overhead camera that vision watches and a
720p camera kept for evidence, its cameras in threads of the table's process or each in a process of its own
(``own_process``), side by side.

The simulator renders a stretch of the demo scenario's deal at both resolutions (not timed); the stretch is played
forward and back into Motion-JPEG files as long as the run (a USB camera's 4K format; the loop changes nothing of
what a frame costs). Each table is ``tablewatch run``'s own ``run_table`` on its configuration, in a process of
its own, all of them pinned to the same ``--cpus`` cores; the video files are played at their frame rate as a
camera delivers them. A camera keeps real time when its last frame was analysed less than ``BEHIND_S`` after
its moment: speed is the video's seconds analysed per second (``frames / fps`` against that plus the lag at the
end). CPU is what each table's process and its camera processes used over the run.

    tablewatch bench-edge [--tables 1 --tables 2 --tables 3] [--seconds 30] [--cpus 2]
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import click
import numpy as np

from tablewatch.bench.card_reader import write_video
from tablewatch.bench.soak import rss_mb
from tablewatch.calibration import tomlio
from tablewatch.calibration.profile import load_profile, save_profile
from tablewatch.sim.record import write_profile
from tablewatch.sim.session import Simulation

DEMO = Path(__file__).resolve().parents[1] / "sim" / "scenarios" / "demo.yaml"
DEAL_STARTS_S = 2.0  # the demo's blinds are in and the deal begins
BEHIND_S = 1.0  # a camera whose last frame was analysed later than this after its moment has fallen behind
MODES = ("thread", "process")
CAMERAS = (("overhead", "2160p", True), ("dealer", "720p", False))  # name, resolution, watched by vision


@dataclass(frozen=True)
class CameraResult:
    name: str
    frames: int
    events: int
    lag_s: float  # at the end
    worst_lag_s: float
    error: str

    def speed(self, fps: float) -> float:
        """Seconds of video analysed per second of the run."""
        seconds = self.frames / fps
        return seconds / (seconds + max(self.lag_s, 0.0)) if seconds else 0.0


@dataclass(frozen=True)
class TableResult:
    table: str
    cameras: list[CameraResult]
    cpu_s: float  # the table's process
    camera_cpu_s: float  # its camera processes
    rss_mb: float  # the table's process at the end
    camera_rss_mb: float  # the biggest camera process at its peak
    wall_s: float

    def keeps_up(self) -> bool:
        return all(c.lag_s < BEHIND_S and not c.error for c in self.cameras)


def render(folder: Path, *, fps: float, frames: int, seconds: float) -> dict[str, Path]:
    """Each camera's video (made once per folder) and the overhead camera's profile (``profile.toml``)."""
    folder.mkdir(parents=True, exist_ok=True)
    sim = Simulation.from_file(DEMO)
    videos = {}
    for name, resolution, _ in CAMERAS:
        path = folder / f"{name}_{resolution}_{fps:g}fps_{frames}x_{seconds:g}s.avi"
        if not path.exists():
            start = round(DEAL_STARTS_S * fps)
            stretch = [f.image for f in sim.frames("overhead", resolution, fps=fps, start=start, stop=start + frames,
                                                  labels=False)]
            partial = path.with_suffix(".partial.avi")
            write_video(_back_and_forth(stretch, round(seconds * fps)), partial, fps)
            partial.rename(path)
        videos[name] = path
    profile = folder / "profile.toml"
    if not profile.exists():
        write_profile(sim, profile, video=videos["overhead"])
    return videos | {"profile": profile}


def _back_and_forth(stretch: Sequence[np.ndarray], count: int) -> Iterator[np.ndarray]:
    lap = [*stretch, *stretch[-2:0:-1]] if len(stretch) > 2 else list(stretch)
    for n in range(count):
        yield lap[n % len(lap)]


def table_config(folder: Path, table: str, files: dict[str, Path], *, mode: str, deck: str) -> Path:
    """A table's run configuration and its profile (a profile names its table)."""
    profile = folder / f"{table}.toml"
    save_profile(load_profile(files["profile"]).model_copy(update={"table": table}), profile)
    cameras = []
    for name, _, watched in CAMERAS:
        camera = {"name": name, "source": str(files[name]), "own_process": mode == "process", "shared_memory_mb": 256}
        if watched:
            camera |= {"profile": str(profile), "deck": deck}
        cameras.append(camera)
    path = folder / f"{table}.run.toml"
    path.write_text(tomlio.dumps({"table": table, "out": str(folder / table), "cameras": cameras}), encoding="utf-8")
    return path


def _table(config_path: str, seconds: float, cpus: list[int], pipe: Connection) -> None:
    """One table's process: ``run_table`` for ``seconds`` on ``cpus`` (its camera processes inherit them)."""
    from rich.console import Console

    from tablewatch.edge.camera import CameraProcess
    from tablewatch.table.run import load_run_config, run_table
    from tablewatch.table.sources import CameraFeed

    os.sched_setaffinity(0, cpus)
    config = load_run_config(Path(config_path))
    started = time.monotonic()
    with open(os.devnull, "w") as quiet:
        pipeline = run_table(config, console=Console(file=quiet), duration=seconds, status_every=seconds)
    wall = time.monotonic() - started
    cameras = [CameraResult(name=s.name, frames=s.frames, events=s.events, lag_s=s.lag_s, worst_lag_s=s.worst_lag_s,
                            error=s.error) for s in pipeline.sources if isinstance(s, CameraFeed)]
    times = os.times()
    own = any(isinstance(s, CameraProcess) for s in pipeline.sources)
    pipe.send(TableResult(table=config.table, cameras=cameras, cpu_s=times.user + times.system,
                          camera_cpu_s=times.children_user + times.children_system if own else 0.0,
                          rss_mb=rss_mb() or 0.0,
                          camera_rss_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 if own else 0.0,
                          wall_s=wall))
    pipe.close()


def run_tables(configs: list[Path], *, seconds: float, cpus: list[int]) -> list[TableResult]:
    """The tables side by side, each in its process, until they end."""
    context = multiprocessing.get_context("spawn")
    running = []
    for config in configs:
        ours, theirs = context.Pipe(duplex=False)
        process = context.Process(target=_table, args=(str(config), seconds, cpus, theirs), daemon=False)
        process.start()
        theirs.close()
        running.append((process, ours))
    results = []
    for process, pipe in running:
        try:
            results.append(pipe.recv())
        except EOFError as exc:
            raise RuntimeError(f"a table's process ended without its figures (exit code {process.exitcode})") from exc
        process.join()
    return results


def report(mode: str, results: list[TableResult], *, fps: float, seconds: float) -> list[str]:
    kept = sum(r.keeps_up() for r in results)
    where = "each in a process of its own" if mode == "process" else "in threads of the table's process"
    lines = [f"{len(results)} table(s), cameras {where}: {kept}/{len(results)} at real time"]
    for r in results:
        cams = "; ".join(f"{c.name} {c.speed(fps):.2f}× real time, lag {c.lag_s * 1000:.0f} ms at the end "
                         f"(worst {c.worst_lag_s * 1000:.0f}), {c.events} events" + (f" ({c.error})" if c.error else "")
                         for c in r.cameras)
        cpu = f"CPU {100 * r.cpu_s / r.wall_s:.0f} % of a core in the table's process"
        if mode == "process":
            cpu += f", {100 * r.camera_cpu_s / r.wall_s:.0f} % in its camera processes"
        memory = f"RSS {r.rss_mb:.0f} MiB at the end" + (f" (+ {r.camera_rss_mb:.0f} MiB the biggest camera "
                                                        "process at its peak)" if mode == "process" else "")
        lines.append(f"  {r.table}: {cams} | {cpu} | {memory}")
    return lines


@click.command("bench-edge")
@click.option("--tables", "counts", multiple=True, type=click.IntRange(1, 16), default=(1, 2, 3), show_default=True,
              help="how many tables the box runs at once (repeat for several runs)")
@click.option("--mode", "modes", multiple=True, type=click.Choice(MODES), default=MODES, show_default=True)
@click.option("--seconds", default=30.0, show_default=True, type=click.FloatRange(5, 600), help="each run's length")
@click.option("--fps", default=30.0, show_default=True, type=click.FloatRange(1, 60))
@click.option("--frames", "rendered", default=60, show_default=True, type=click.IntRange(2, 600),
              help="frames of the deal rendered, played forward and back")
@click.option("--cpus", default=2, show_default=True, type=click.IntRange(1, 256), help="cores the tables share")
@click.option("--work", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="keep the rendered videos here for the next run (default: a temporary folder)")
def bench_edge(counts: tuple[int, ...], modes: tuple[str, ...], seconds: float, fps: float, rendered: int, cpus: int,
               work: Path | None) -> None:
    """Tables of a 4K and a 720p camera on one edge box: real time, lag and CPU, cameras in threads or processes."""
    available = sorted(os.sched_getaffinity(0))
    if cpus > len(available):
        raise click.UsageError(f"--cpus {cpus}: this machine lets the bench use {len(available)}")
    folder = work or Path(tempfile.mkdtemp(prefix="tablewatch-edge-"))
    try:
        files = render(folder / "videos", fps=fps, frames=rendered, seconds=seconds + 15)  # longer than a run
        click.echo(f"{cpus} core(s); each table: a 4K camera watched by vision and a 720p camera for evidence, "
                   f"Motion-JPEG at {fps:g} frames/s; {seconds:g} s each run")
        for count in counts:
            for mode in modes:
                run_folder = folder / f"{mode}-{count}"
                shutil.rmtree(run_folder, ignore_errors=True)
                run_folder.mkdir(parents=True)
                configs = [table_config(run_folder, f"T{n + 1:02d}", files, mode=mode, deck="anglo_poker")
                           for n in range(count)]
                results = run_tables(configs, seconds=seconds, cpus=available[:cpus])
                for line in report(mode, results, fps=fps, seconds=seconds):
                    click.echo(line)
    finally:
        if work is None:
            shutil.rmtree(folder, ignore_errors=True)
