"""How long a full inventory takes against the time its bytes need on a 57,600-baud line.

The lower bound is the wire time: every byte of every request and response, 10 bits each (start, 8 data,
stop), so 5,760 bytes/s at 57,600 baud. The reader emulator answers on a real pty; ``paced`` makes it
hold each answer back by the wire time of both frames, as a real line would.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import click

from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.inventory import Link, run_inventory
from tablewatch.devices.iso15693 import make_uids
from tablewatch.devices.readers import reader_family
from tablewatch.devices.transport import Port

BAUD = 57600
BYTES_PER_SECOND = BAUD / 10


@dataclass(frozen=True, kw_only=True)
class BenchResult:
    tags: int
    paced: bool
    rounds: int
    wire_bytes: int
    seconds: float  # median of the repeats
    found: int

    @property
    def wire_seconds(self) -> float:
        return self.wire_bytes / BYTES_PER_SECOND

    @property
    def ratio(self) -> float:
        return self.seconds / self.wire_seconds


def bench_inventory(tags: int, *, paced: bool, repeat: int = 5, seed: int = 1) -> BenchResult:
    uids = make_uids(tags, seed=seed)
    with ReaderEmulator({"stack": 0}, tags={"stack": uids}, pace_baud=BAUD if paced else None) as emu:
        path = emu.serve_pty()
        with Port(path, baudrate=BAUD) as port:
            link = Link(port=port, family=reader_family("s6350"), response_timeout=2.0)
            results = [run_inventory(link, node=0) for _ in range(repeat)]
    if any(len(r.uids) != tags for r in results):
        raise RuntimeError(f"an inventory of {tags} tags came back incomplete")
    return BenchResult(tags=tags, paced=paced, rounds=results[0].rounds, wire_bytes=results[0].wire_bytes,
                       seconds=statistics.median(r.elapsed for r in results), found=len(results[0].uids))


@click.command("bench-rfid")
@click.option("--tags", "counts", default="40,300", show_default=True, help="stack sizes, comma-separated")
@click.option("--repeat", default=5, show_default=True)
def bench_rfid(counts: str, repeat: int) -> None:
    """Time a full inventory against the wire-time lower bound at 57,600 baud (bytes / 5,760 per second)."""
    try:
        sizes = [int(c) for c in counts.split(",") if c.strip()]
    except ValueError:
        raise click.BadParameter(f"--tags {counts!r} must be numbers separated by commas") from None
    click.echo(f"{'tags':>5} {'line':>9} {'rounds':>6} {'bytes':>6} {'wire ms':>8} {'read ms':>8} {'ratio':>6}")
    for size in sizes:
        for paced in (False, True):
            r = bench_inventory(size, paced=paced, repeat=repeat)
            click.echo(f"{r.tags:>5} {'57600' if paced else 'pty':>9} {r.rounds:>6} {r.wire_bytes:>6} "
                       f"{r.wire_seconds * 1000:>8.1f} {r.seconds * 1000:>8.1f} {r.ratio:>6.3f}")
    click.echo("ratio = read time / wire time; 'pty' = raw pty (no line speed), '57600' = emulator paced "
               "to the line.")
