"""Which level's blinds a hand plays (ENG-25: TDA-14, TDA22-23), as small pure units.

A new level starts when the last one's time runs out and it is announced, and applies from the next hand. A
hand starts at the first riffle, the shuffling machine's button press, or a dealer change: it plays the level
in force at that moment. Blinds posted at another level are corrected while they can be; once there has been
substantial action (ENG-18) the hand is finished with them.

The level clock and the hand's start are the floor's and the dealer's (a shuffler press, a dealer change), given
as plain data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from tablewatch.events import Severity
from tablewatch.rules.chipreading import Finding


@dataclass(frozen=True, kw_only=True)
class Level:
    number: int
    starts: float  # when it was announced, the last level's time having run out
    small_blind: int
    big_blind: int
    ante: int = 0


@dataclass(frozen=True, kw_only=True)
class LevelRuling:
    level: Level  # the level the hand plays
    action: Literal["as_posted", "correct_blinds", "play_on"]
    findings: tuple[Finding, ...] = ()
    rule_id: str = "TDA-14"


def level_of_hand(levels: Sequence[Level], *, hand_started: float) -> Level:
    """The level in force when the hand started (its first riffle, shuffler press or dealer change)."""
    if not levels:
        raise ValueError("No levels: the structure of the event is needed.")
    if any(b.starts <= a.starts or b.number <= a.number for a, b in pairwise(levels)):
        raise ValueError("Levels must be in order, each starting after the one before.")
    if hand_started < levels[0].starts:
        raise ValueError(f"The hand started at {hand_started}, before the first level ({levels[0].starts}).")
    return [level for level in levels if level.starts <= hand_started][-1]


def blinds_ruling(levels: Sequence[Level], *, hand_started: float, small_blind: int, big_blind: int, ante: int = 0,
                  substantial_action: bool) -> LevelRuling:
    """The blinds a hand was posted with, against the level it plays; ``substantial_action``: the hand has had
    substantial action (ENG-18) by the time this is looked at."""
    level = level_of_hand(levels, hand_started=hand_started)
    posted = (small_blind, big_blind, ante)
    due = (level.small_blind, level.big_blind, level.ante)
    if posted == due:
        return LevelRuling(level=level, action="as_posted")
    observed = (f"posted {small_blind}/{big_blind} ante {ante}; the hand started at level {level.number}, "
                f"{level.small_blind}/{level.big_blind} ante {level.ante}")
    if substantial_action:
        return LevelRuling(level=level, action="play_on", findings=(Finding(
            rule_id="TDA-14", title="Hand played at the wrong level", severity=Severity.ADVISORY, observed=observed,
            ruling="there has been substantial action: the hand is finished with the blinds posted (TDA-14)"),))
    return LevelRuling(level=level, action="correct_blinds", findings=(Finding(
        rule_id="TDA-14", title="Blinds of the wrong level", observed=observed,
        ruling=f"correct the blinds to level {level.number}'s before substantial action (TDA-14)"),))
