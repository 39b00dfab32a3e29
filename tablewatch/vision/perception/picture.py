"""Whether a camera's picture can be read at all, judged off the calibration markers' white paper.

The light meter (``light``) brings a dim or over-bright picture back to a well-exposed camera's, within limits.
Past them perception goes on, but what it reports may be wrong, so the floor is told which condition holds and
when it ends (``CameraPicture``; the rules raise SYS-CAMERA):

- **too dark**: the paper under ``DARK_PAPER`` grey levels needs a gain past the meter's limit; a black chip is
  then the felt's noise.
- **overexposed**: the paper clipped white (a lamp's hot spot over the rail, or auto-exposure pushed up by a
  dark scene). The light can't be read off clipped paper, and cards' faces, paper and glare are one white.

A condition is reported once it has held ``HOLD_S`` (a hand over the markers or a flash does not count) and over
once it has been gone ``CLEAR_S``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tablewatch.vision.perception.light import GAIN_LIMITS, PAPER_WHITE

DARK_PAPER = PAPER_WHITE / GAIN_LIMITS[1]  # paper this dark needs more gain than the meter gives
CLIPPED_PAPER = 250.0  # paper this bright is clipped white (the camera's 255 less its noise and compression)
HOLD_S = 3.0
GAP_S = 1.0  # a condition not yet reported starts over when it is gone this long
CLEAR_S = 10.0


def too_dark(paper: float) -> str | None:
    if paper >= DARK_PAPER:
        return None
    return (f"the markers' white paper reads {paper:.0f} of 255: more gain than the light correction gives "
            f"({GAIN_LIMITS[1]:g}×); light the table or open the camera's iris")


def overexposed(paper: float) -> str | None:
    if paper < CLIPPED_PAPER:
        return None
    return (f"the markers' white paper is clipped white ({paper:.0f} of 255): cards' faces and glare can't be told "
            "apart and the light can't be read; lower the camera's exposure, turn off its auto-exposure, or move "
            "the lamp")


CONDITIONS: dict[str, Callable[[float], str | None]] = {"too dark": too_dark, "overexposed": overexposed}


@dataclass
class Spell:
    """One condition's time: since when it holds, when it was last seen, whether the floor was told."""

    since: float
    seen: float
    detail: str
    reported: bool = False


@dataclass(frozen=True)
class PictureChange:
    """A condition reported (``usable`` False) or reported over (True)."""

    ts: float
    condition: str
    usable: bool
    detail: str


class PictureWatch:
    """The conditions of one camera's picture, from the paper's level on each analysed frame."""

    def __init__(self) -> None:
        self.spells: dict[str, Spell] = {}

    @property
    def holding(self) -> list[str]:
        """The conditions reported and not yet over."""
        return [name for name, spell in self.spells.items() if spell.reported]

    def update(self, papers: np.ndarray, ts: float) -> list[PictureChange]:
        """The paper's grey level at each marker in view (none: nothing to judge by, nothing changes)."""
        if not len(papers):
            return []
        paper = float(np.median(papers))
        changes = []
        for name, judge in CONDITIONS.items():
            detail = judge(paper)
            spell = self.spells.get(name)
            if detail is not None:
                if spell is None:
                    spell = self.spells[name] = Spell(since=ts, seen=ts, detail=detail)
                spell.seen, spell.detail = ts, detail
                if not spell.reported and ts - spell.since >= HOLD_S:
                    spell.reported = True
                    changes.append(PictureChange(ts=ts, condition=name, usable=False,
                                                 detail=f"{detail} (for {ts - spell.since:.0f} s)"))
            elif spell is not None and ts - spell.seen >= (CLEAR_S if spell.reported else GAP_S):
                del self.spells[name]
                if spell.reported:
                    changes.append(PictureChange(ts=ts, condition=name, usable=True,
                                                 detail=f"over after {ts - spell.since:.0f} s"))
        return changes
