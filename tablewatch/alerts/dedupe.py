"""Drop repeats by ``msg_id``: QoS 1 is at-least-once, and the outbox replays what was not acknowledged.

A message the broker received but whose PUBACK was lost in an outage comes again, byte for byte, with
the same ``msg_id``. Every tablewatch consumer (floor console, web page, hand archive) keeps the ids it
has seen; the archive also has a primary key on it.
"""

from __future__ import annotations

from collections import OrderedDict


class SeenIds:
    """The last ``capacity`` message ids, oldest forgotten first."""

    def __init__(self, capacity: int = 50_000) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self.repeats = 0
        self._ids: OrderedDict[str, None] = OrderedDict()

    def first_time(self, msg_id: str) -> bool:
        """True the first time ``msg_id`` is seen; False (and counted) for a repeat."""
        if msg_id in self._ids:
            self._ids.move_to_end(msg_id)
            self.repeats += 1
            return False
        self._ids[msg_id] = None
        if len(self._ids) > self.capacity:
            self._ids.popitem(last=False)
        return True
