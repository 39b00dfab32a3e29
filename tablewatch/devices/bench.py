"""How long a full inventory takes against the time its bytes need on a 57,600-baud line.

The lower bound is the wire time: every byte of every request and response, 10 bits each (start, 8 data,
stop), so 5,760 bytes/s at 57,600 baud. The reader emulator answers on a real pty; ``paced`` makes it
hold each answer back by the wire time of both frames, as a real line would.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

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
