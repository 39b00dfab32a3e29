"""The chip ledger: which chips are in which zone, and the differences between reads as events.

Every chip has a UID, so the ledger follows chips one by one, not only totals:
- a chip read in a new zone is ``ChipsMoved`` from where it was (grouped per source and destination:
  "seat3.stack -> seat3.bet, 2,500 in 3 chips");
- a chip no longer read anywhere is first held as missing (a hand carrying it between antennas) and,
  when it has not come back after ``leave_after`` seconds (``dealer_leave_after`` for the pot and the
  tray), ``ChipsLeftTable`` from its last zone (TDA-49);
- a chip never seen before is ``ChipsAppeared`` (except on a zone's first read, the baseline);
- a UID the registry does not know is ``UnknownChip`` (once per zone it shows up in): a possible counterfeit.

Zones are named as in ``tablewatch/events.py`` (``tray``, ``seat3.stack``, ``seat3.bet``, ``pot``);
antennas map to zones (by default an antenna's name is its zone).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping

from tablewatch.devices.registry import TagRegistry
from tablewatch.events import (
    Chips,
    ChipsAppeared,
    ChipsLeftTable,
    ChipsMoved,
    Event,
    RfidInventory,
    UnknownChip,
    seat_of_zone,
)

# A player's chips carried from stack to bet are off the antennas about half a second; three sweeps (0.25 s
# apart) without them is a pocket or a hand leaving the table. Chips riffled in the hand stay over the stack
# antenna. The dealer pushing a big pot across the table carries chips longer (a push: up to ~0.75 s).
LEAVE_AFTER_S = 0.75
DEALER_LEAVE_AFTER_S = 1.0
DEPARTED_KEPT_S = 30.0  # how long chips counted gone stay on record for ``lifted``


class ChipLedger:
    def __init__(self, registry: TagRegistry, *, table: str, zones: Mapping[str, str] | None = None,
                 leave_after: float = LEAVE_AFTER_S, dealer_leave_after: float = DEALER_LEAVE_AFTER_S,
                 announce_first_read: bool = False) -> None:
        self.registry = registry
        self.table = table
        self.zones = dict(zones or {})
        self.leave_after = leave_after  # for chips last in a seat's zones
        self.dealer_leave_after = dealer_leave_after
        self.announce_first_read = announce_first_read
        self._location: dict[str, str] = {}  # uid -> zone
        # uid -> (last zone, when it was first missed, whether that zone was read empty then: the whole pile went)
        self._missing: dict[str, tuple[str, float, bool]] = {}
        self._departed: dict[str, tuple[str, float]] = {}  # uid -> (last zone, when first missed): gone lately
        self._read_zones: set[str] = set()
        self._reported_unknown: set[tuple[str, str]] = set()
        self._lock = threading.RLock()  # several reader pollers may share one ledger

    # --- what is where -------------------------------------------------------------------------------------

    def uids(self, zone: str) -> frozenset[str]:
        with self._lock:  # read from the pipeline's thread while a poller applies reads
            return frozenset(u for u, z in self._location.items() if z == zone)

    def chips(self, zone: str) -> Chips:
        return self.registry.chips(self.uids(zone))[0]

    def value(self, zone: str) -> int:
        return self.chips(zone).value

    def held(self, zone: str) -> Chips:
        """The chips of a zone counting those lifted off it and not yet gone: a player's stack is still his while
        a hand carries part of it to the bet or riffles it above the antenna."""
        with self._lock:
            uids = [*self.uids(zone), *(u for u, (z, _, _) in self._missing.items() if z == zone)]
        return self.registry.chips(uids)[0]

    def lifted(self, zone: str, *, since: float) -> Chips:
        """Chips missed off a zone at ``since`` or later that have come to rest nowhere since: in a hand, or gone
        from the table."""
        with self._lock:
            uids = [u for u, (z, t, _) in self._missing.items() if z == zone and t >= since]
            uids += [u for u, (z, t) in self._departed.items() if z == zone and t >= since]
        return self.registry.chips(uids)[0]

    def snapshot(self) -> dict[str, Chips]:
        """Chips per zone read so far (zones with no chips included)."""
        return {zone: self.chips(zone) for zone in sorted(self._read_zones)}

    def missing(self) -> dict[str, Chips]:
        """Chips not read anywhere yet not declared gone, by the zone they were last in."""
        by_zone: dict[str, list[str]] = {}
        for uid, (zone, _, _) in self._missing.items():
            by_zone.setdefault(zone, []).append(uid)
        return {zone: self.registry.chips(uids)[0] for zone, uids in by_zone.items()}

    # --- reads -> events ----------------------------------------------------------------------------------

    def apply(self, inventories: Iterable[RfidInventory]) -> list[Event]:
        """Take one sweep (any set of antennas read together, oldest first) and return its events."""
        with self._lock:
            return self._apply(list(inventories))

    def _apply(self, inventories: list[RfidInventory]) -> list[Event]:
        if not inventories:
            return []
        ts = max(inv.ts for inv in inventories)
        read: dict[str, str] = {}  # uid -> zone, the latest read wins when a chip shows up twice
        read_at: dict[str, float] = {}  # zone -> when it was read: its chips' events are stamped then
        for inv in inventories:
            zone = self.zones.get(inv.antenna, inv.antenna)
            read_at[zone] = inv.ts
            for uid in inv.uids:
                read[uid.upper()] = zone
        zones_read = set(read_at)
        first = zones_read - self._read_zones
        # Zones a stack stood in before this sweep: where a chip was read and not missed since, or where a missed
        # chip is read again now (a stack lifted and set down with chips added is chips added; a stack gone whole
        # and a new one set down a sweep later is a player leaving and another sitting down).
        held = set(self._location.values())
        moved: dict[tuple[str, str], list[str]] = {}
        appeared: dict[str, list[str]] = {}
        events: list[Event] = []
        for uid, zone in read.items():
            old = self._location.get(uid)
            if old is None and uid in self._missing:
                old = self._missing.pop(uid)[0]
                held |= {zone} if old == zone else set()
            self._departed.pop(uid, None)
            if old is None:
                if zone not in first or self.announce_first_read:
                    appeared.setdefault(zone, []).append(uid)
            elif old != zone:
                moved.setdefault((old, zone), []).append(uid)
            self._location[uid] = zone
            events += self._unknown(uid, zone, read_at[zone])
        occupied = set(read.values())
        for uid, zone in list(self._location.items()):
            if zone in zones_read and uid not in read:
                del self._location[uid]
                self._missing[uid] = (zone, ts, zone not in occupied)
        self._read_zones |= zones_read
        events += self._moved_events(moved, read_at) + self._appeared_events(appeared, read_at, held=held)
        return events + self.expire(ts)

    def expire(self, ts: float) -> list[Event]:
        """Chips missing for ``leave_after`` seconds or more (``dealer_leave_after`` from the pot or the tray)
        have left the table."""
        with self._lock:
            return self._expire(ts)

    def next_expiry(self, *, sweep_every: float) -> float | None:
        """When the first sweep comes that finds a chip missing now gone, if it does not come back and the reader
        sweeps every ``sweep_every`` seconds from the sweep that missed it (None: no chip is missing)."""
        with self._lock:
            return min((since + math.ceil(self._leave_after(zone) / sweep_every - 1e-6) * sweep_every
                        for zone, since, _ in self._missing.values()), default=None)

    def _leave_after(self, zone: str) -> float:
        return self.leave_after if seat_of_zone(zone) is not None else self.dealer_leave_after

    def _expire(self, ts: float) -> list[Event]:
        gone: dict[tuple[str, bool], list[str]] = {}
        for uid, (zone, since, emptied) in list(self._missing.items()):
            if ts - since >= self._leave_after(zone):
                del self._missing[uid]
                self._departed[uid] = (zone, since)
                gone.setdefault((zone, emptied), []).append(uid)
        self._departed = {u: (z, t) for u, (z, t) in self._departed.items() if ts - t <= DEPARTED_KEPT_S}
        events: list[Event] = []
        for (zone, emptied), uids in sorted(gone.items()):
            chips = self.registry.chips(uids)[0]
            if chips.count:
                events.append(ChipsLeftTable(ts=ts, table=self.table, source="rfid", seat=seat_of_zone(zone), zone=zone,
                                             chips=chips, emptied=emptied))
        return events

    def _unknown(self, uid: str, zone: str, ts: float) -> list[Event]:
        if self.registry.lookup(uid) is not None or (uid, zone) in self._reported_unknown:
            return []
        self._reported_unknown.add((uid, zone))
        return [UnknownChip(ts=ts, table=self.table, source="rfid", seat=seat_of_zone(zone), uid=uid, zone=zone)]

    def _moved_events(self, moved: dict[tuple[str, str], list[str]], read_at: dict[str, float]) -> list[Event]:
        """A move is stamped when its chips were read where they came to rest: a sweep across many antennas may
        take seconds, and what waits for a seat's reads (the scene fusion) has the move before the reads after it."""
        events: list[Event] = []
        for (src, dst), uids in sorted(moved.items()):
            chips = self.registry.chips(uids)[0]
            if chips.count:
                events.append(ChipsMoved(ts=read_at[dst], table=self.table, source="rfid",
                                         seat=seat_of_zone(src) or seat_of_zone(dst), src=src, dst=dst, chips=chips))
        return events

    def _appeared_events(self, appeared: dict[str, list[str]], read_at: dict[str, float], *,
                         held: set[str]) -> list[Event]:
        events: list[Event] = []
        for zone, uids in sorted(appeared.items()):
            chips = self.registry.chips(uids)[0]
            if chips.count:
                events.append(ChipsAppeared(ts=read_at[zone], table=self.table, source="rfid", seat=seat_of_zone(zone),
                                            zone=zone, chips=chips, onto_empty=zone not in held))
        return events
