"""A tournament's level structure and the level in force (ENG-25: TDA-14), from the clock or the console.

The levels run one after another from the clock's start, each for its ``minutes``; the console's ``level N``
announces a level at that moment and the clock runs on from it (a level without ``minutes`` lasts until the
next announcement). A hand plays the level in force when it starts, so an announcement during a hand applies
from the next one. The blinds a hand was seen posting are checked against its level (``rules.levels``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import Field, model_validator

from tablewatch.config import StrictModel
from tablewatch.rules.chipreading import Finding
from tablewatch.rules.levels import Level, blinds_ruling

log = logging.getLogger(__name__)


class LevelConfig(StrictModel):
    """One level of the structure: its blinds and ante, and how long it lasts."""

    number: int = Field(ge=1, description="the level's number, as the clock and the console's `level N` call it")
    small_blind: int = Field(gt=0, description="small blind at this level")
    big_blind: int = Field(gt=0, description="big blind at this level")
    ante: int = Field(default=0, ge=0, description="ante posted by every player")
    big_blind_ante: int = Field(default=0, ge=0, description="ante posted by the big blind for everyone (TDA-60)")
    minutes: float | None = Field(default=None, gt=0, description="its length on the clock; none: until the "
                                  "console announces the next level")

    @model_validator(mode="after")
    def _stakes(self) -> LevelConfig:
        if self.small_blind > self.big_blind:
            raise ValueError(f"level {self.number}: small_blind {self.small_blind} is larger than big_blind "
                             f"{self.big_blind}")
        if self.ante and self.big_blind_ante:
            raise ValueError(f"level {self.number}: use either ante or big_blind_ante, not both")
        return self


def check_structure(levels: Sequence[LevelConfig]) -> None:
    numbers = [level.number for level in levels]
    if numbers != sorted(set(numbers)):
        raise ValueError(f"levels must be numbered in ascending order, got {numbers}")


class LevelClock:
    """The level in force at any time of the session (``ts`` as the events', seconds)."""

    def __init__(self, structure: Sequence[LevelConfig], *, started: float = 0.0) -> None:
        check_structure(structure)
        if not structure:
            raise ValueError("a level clock needs at least one level")
        self.structure = {level.number: level for level in structure}
        self.schedule: list[Level] = self._run_from(structure[0].number, started)

    def announce(self, ts: float, number: int) -> None:
        """The console's ``level N`` at ``ts``: that level from now, the clock running on from it."""
        if number not in self.structure:
            log.warning("level %d announced but not in the structure (%s): ignored", number, list(self.structure))
            return
        kept = [level for level in self.schedule if level.starts < ts and level.number < number]
        self.schedule = kept + self._run_from(number, ts)

    def at(self, ts: float) -> LevelConfig:
        """The level in force at ``ts`` (before the clock's start: the first level)."""
        in_force = [level for level in self.schedule if level.starts <= ts]
        return self.structure[(in_force or self.schedule)[-1 if in_force else 0].number]

    def posted_findings(self, *, hand_started: float, small_blind: int, big_blind: int) -> tuple[Finding, ...]:
        """The blinds seen posted at a hand's start, before any betting, against the level it plays (TDA-14);
        the big blind's post may carry its big-blind ante (TDA-60)."""
        level = self.at(hand_started)
        if big_blind == level.big_blind + level.big_blind_ante:
            big_blind = level.big_blind
        schedule = [lv for lv in self.schedule if lv.starts <= hand_started] or self.schedule[:1]
        ruling = blinds_ruling(schedule, hand_started=max(hand_started, schedule[0].starts),
                               small_blind=small_blind, big_blind=big_blind, ante=level.ante,
                               substantial_action=False)
        return ruling.findings

    def _run_from(self, number: int, ts: float) -> list[Level]:
        """``number`` from ``ts``, then each later level as the one before it runs out."""
        out: list[Level] = []
        for level in (lv for lv in self.structure.values() if lv.number >= number):
            out.append(Level(number=level.number, starts=ts, small_blind=level.small_blind,
                             big_blind=level.big_blind, ante=level.ante))
            if level.minutes is None:
                break
            ts += 60 * level.minutes
        return out
