"""What the RFID antennas see: the chip UIDs lying in each antenna's zone, over time.

Antennas are the chip zones of the table: ``seatN.stack``, ``seatN.bet``, ``pot`` and ``tray``. A chip
in a hand (carried) or off the table is on no antenna. The reads are ground truth (``source="sim"``);
``feed_emulator`` puts one moment's contents into the devices part's ``ReaderEmulator`` so the real
reader protocol can serve them.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tablewatch.events import RfidInventory, Zone
from tablewatch.sim.script import SimRun


class TagSink(Protocol):
    antennas: dict[str, int]

    def set_tags(self, antenna: str, uids: list[str]) -> None: ...


def antenna_nodes(run: SimRun) -> dict[str, int]:
    """Antenna name → node address, for ``ReaderEmulator(antenna_nodes(run))``."""
    return {name: i + 1 for i, name in enumerate(run.antennas)}


def antenna_contents(run: SimRun, t: float) -> dict[str, tuple[str, ...]]:
    """Antenna → sorted UIDs of the chips resting in its zone at ``t``."""
    out: dict[str, list[str]] = {a: [] for a in run.antennas}
    for chip in run.world.chips:
        pose = chip.track.at(t)
        if pose is not None and pose.visible and pose.zone in out:
            out[pose.zone].append(chip.uid)
    return {a: tuple(sorted(uids)) for a, uids in out.items()}


def rfid_inventories(run: SimRun, *, period: float | None = None, changes_only: bool = False) -> list[RfidInventory]:
    """One ``RfidInventory`` per antenna every ``period`` seconds (the scenario's ``timing.rfid_period``).

    With ``changes_only`` an antenna is reported only when its contents differ from its last report.
    """
    period = period or run.scenario.timing.rfid_period
    last: dict[str, tuple[str, ...]] = {}
    reads = []
    for t in np.arange(0.0, run.duration, period):
        ts = round(float(t), 4)
        for antenna, uids in antenna_contents(run, ts).items():
            if changes_only and last.get(antenna) == uids:
                continue
            last[antenna] = uids
            reads.append(RfidInventory(ts=ts, table=run.scenario.table, source="sim", seat=Zone.parse(antenna).seat,
                                       antenna=antenna, uids=uids))
    return reads


def feed_emulator(emulator: TagSink, run: SimRun, t: float) -> None:
    """Set every antenna of a ``tablewatch.devices.emulator.ReaderEmulator`` to its contents at ``t``.

    Antennas the emulator was not built with are skipped (a table may wire only some zones).
    """
    for antenna, uids in antenna_contents(run, t).items():
        if antenna in emulator.antennas:
            emulator.set_tags(antenna, list(uids))

