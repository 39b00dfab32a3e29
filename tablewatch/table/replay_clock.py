"""The table's clock for a recording played as fast as the monitor can (``tablewatch run --fast``).

Time stands still until the conductor (``tablewatch.table.replay.Replay``) moves it. Whatever paces itself on the
table's clock joins as a player: a video file's camera (it waits for each frame's time), each reader line's poller
(it waits for its next sweep). The conductor moves the clock only once every player is waiting, and no further
than the earliest time one of them waits for (or the recording's next entry); it then releases them, so each frame
is analysed and each sweep read at the same moment of the recording as in a paced run, only sooner.
"""

from __future__ import annotations

import math
import threading

# How often the waits look at their stop event (wall seconds): the clock itself wakes them at once.
STOP_POLL_S = 0.05
# A reader line's sweep period at the recorded pace (22 antennas: ~0.05 s of inventories, then its poll_interval
# of 0.05 s). Played fast, a line reads a change one period after it happens, as it does paced (on average, the
# sweep under way ends, then the next one reads it), and a missing chip on this period's grid.
SWEEP_S = 0.1


class Player:
    """One thread that waits on the replay's clock; the conductor waits for it to wait."""

    def __init__(self, clock: ReplayClock, name: str, *, prompted: bool) -> None:
        self.clock, self.name = clock, name
        self.prompted = prompted  # goes on at once when the conductor changes what it reads (``prompt``)
        self.due: float | None = None  # the time it waits for; None while it works
        self.thread: threading.Thread | None = None  # the thread that waits (known from its first wait)

    def sleep_until(self, due: float, stop: threading.Event) -> bool:
        """Wait until the clock is released at ``due``; True when ``stop`` is set meanwhile."""
        return self.clock.wait(self, due, stop)

    def sleep(self, seconds: float, stop: threading.Event) -> bool:
        """Wait ``seconds`` of the table's time; True when ``stop`` is set meanwhile."""
        return self.clock.wait(self, self.clock() + seconds, stop)

    def leave(self) -> None:
        self.clock.leave(self)

    @property
    def gone(self) -> bool:
        """Its thread ended without leaving: nothing to wait for."""
        return self.thread is not None and not self.thread.is_alive() and self.due is None


class ReplayClock:
    """Seconds of the recording played so far; moved by the conductor only. Called like ``session_clock()``'s."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._released = start  # the time the players may go on at
        self._players: list[Player] = []
        self._changed = threading.Condition()

    def __call__(self) -> float:
        return self._now

    # --- the players' side -----------------------------------------------------------------------------------

    def join(self, name: str, *, prompted: bool = False) -> Player:
        """A new player, working until its first wait; ``prompted``: a reader line, swept again at once when the
        conductor changes what lies on the antennas."""
        player = Player(self, name, prompted=prompted)
        with self._changed:
            self._players.append(player)
            self._changed.notify_all()
        return player

    def leave(self, player: Player) -> None:
        with self._changed:
            if player in self._players:
                self._players.remove(player)
            self._changed.notify_all()

    def wait(self, player: Player, due: float, stop: threading.Event) -> bool:
        with self._changed:
            player.thread = threading.current_thread()
            player.due = due
            self._changed.notify_all()  # the conductor may be waiting for this player to wait
            while self._released < player.due and not stop.is_set():
                self._changed.wait(STOP_POLL_S)
            player.due = None
        return stop.is_set()

    # --- the conductor's side --------------------------------------------------------------------------------

    def earliest_due(self, stop: threading.Event) -> float | None:
        """Once every player waits: the earliest time one waits for (infinity without players); None when
        ``stop`` is set first."""
        with self._changed:
            while not stop.is_set():
                players = [p for p in self._players if not p.gone]
                dues = [p.due for p in players]
                if all(due is not None and due > self._released for due in dues):
                    return min((due for due in dues if due is not None), default=math.inf)
                self._changed.wait(STOP_POLL_S)
        return None

    def move_to(self, t: float) -> None:
        """Move the time on (the players stay where they are until ``release``): what the conductor does at
        this moment (places chips, types an entry) is stamped ``t``."""
        with self._changed:
            self._now = max(self._now, t)

    def prompt(self, at: float) -> None:
        """The prompted players go on at ``at`` at the latest (the antennas they read have changed)."""
        with self._changed:
            for player in self._players:
                if player.prompted and player.due is not None:
                    player.due = min(player.due, max(at, self._now))

    def release(self) -> None:
        """Let the players whose time has come go on."""
        with self._changed:
            self._released = self._now
            self._changed.notify_all()
