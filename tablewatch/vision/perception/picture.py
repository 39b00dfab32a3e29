"""Whether a camera's picture can be read, judged off the calibration markers' white paper and the felt.

The light meter (``light``) brings a dim or over-bright picture back to a well-exposed camera's, within limits.
Past them perception goes on, but what it reports may be wrong, so the floor is told which condition holds and
when it ends (``CameraPicture``; the rules raise SYS-CAMERA):

- **too dark**: the paper under ``DARK_PAPER`` grey levels needs a gain past the meter's limit; a black chip is
  then the felt's noise. What the camera reports is not to be relied on.
- **overexposed**: the paper clipped white (a lamp's hot spot over the rail, auto-exposure pushed up by a dark
  scene, or a camera's strong sharpening: its halos by the markers' black squares clip their small paper). The
  light can't be read off it and the brightest whites run together, but chips and cards on the felt are mostly
  still told apart: a warning to set the camera right.
- **washed out**: the felt, the darkest large surface on the table, as bright as white paper should be: anything
  lighter than the felt (cards, chips' stripes) is clipped. Not to be relied on.
- **no colour**: nothing on the table shows colour (a camera switched to black and white at night, or its colour
  turned off): chips are told apart by their colours, and clubs from spades by the red of the other suits. Not to
  be relied on.
- **colour faded**: the felt shows under ``COLOUR_FADED`` of the colour it showed when the chip colours were learned
  (the camera's colour setting turned down since, or a night mode fading in). Perception reads the chips by their
  colours faded alike down to that share; past it chips, card backs and hands run together. Not to be relied on.
- **flickering**: the light swings from one frame to the next by ``FLICKERING`` or more (lamps on the mains caught
  at another moment of their flicker each frame). The light meter brings each frame back by its own level, and
  holds the whites its brighter frames clip: a warning to set the camera's anti-flicker.
- **flickering hard**: the swing reaches ``FLICKERING_HARD``: the brighter frames clip more than white paper and
  every edge shifts between frames. Not to be relied on.
- **low resolution**: the calibration's scale at the table's centre coarser than ``SUIT_MM_PER_PX``: a card's suit
  symbol spans two or three pixels, and hearts are not told from diamonds, nor clubs from spades, with certainty
  (the hand histories' suits); chips, hands and cards are still seen: a warning.

A condition of the light is reported once it has held ``HOLD_S`` (a hand over the markers or a flash does not count)
and over once it has been gone ``CLEAR_S``; the resolution is judged once per calibration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tablewatch.events import CameraPicture
from tablewatch.vision.perception.light import FLICKERING, GAIN_LIMITS, PAPER_WHITE, Reading

DARK_PAPER = PAPER_WHITE / GAIN_LIMITS[1]  # paper this dark needs more gain than the meter gives
CLIPPED_PAPER = 250.0  # paper this bright is clipped white (the camera's 255 less its noise and compression)
COLOURLESS = 12.0  # grey levels between a pixel's channels: the table's most colourful pixels under this show none
COLOUR_FADED = 0.5  # the felt's saturation under this share of its own when the chips were learned: past reading
FLICKERING_HARD = 0.35  # the felt's level changing this much from frame to frame (past ``light.FLICKERING``): past
# what the light meter takes out (lamps swinging 25 % either way read 0.26-0.30 and are read as well as a steady
# light; 33 % read 0.39-0.43 and lose a tenth of the events)
SUIT_MM_PER_PX = 2.8  # a 480p camera over the 10-seat oval (3.0 mm a pixel) read a board card's suit as its
# sibling's in 10 hands of 50; 720p (2.0) in none
LOW_RESOLUTION = "low resolution"
HOLD_S = 3.0
GAP_S = 1.0  # a condition not yet reported starts over when it is gone this long
CLEAR_S = 10.0


@dataclass(frozen=True)
class Condition:
    name: str
    reliable: bool  # whether what the camera reports may still be relied on while it holds
    judge: Callable[[float, Reading], str | None]  # (the paper's median, the reading) → what is wrong, or None


def _too_dark(paper: float, reading: Reading) -> str | None:
    if paper >= DARK_PAPER:
        return None
    return (f"the markers' white paper reads {paper:.0f} of 255: more gain than the light correction gives "
            f"({GAIN_LIMITS[1]:g}×); light the table or open the camera's iris")


def _overexposed(paper: float, reading: Reading) -> str | None:
    if paper < CLIPPED_PAPER:
        return None
    return (f"the markers' white paper is clipped white ({paper:.0f} of 255): the light can't be read off it and "
            "the brightest whites run together; lower the camera's exposure or turn off its auto-exposure, move "
            "the lamp, or turn the camera's sharpening down")


def _washed_out(paper: float, reading: Reading) -> str | None:
    if reading.felt < PAPER_WHITE:
        return None
    return (f"the felt reads {reading.felt:.0f} of 255, as bright as white paper: cards and chips' stripes are clipped "
            "white; lower the camera's exposure or turn off its auto-exposure")


def _colourless(paper: float, reading: Reading) -> str | None:
    if reading.colour >= COLOURLESS:
        return None
    return (f"nothing on the table shows colour (the most colourful pixels differ by {reading.colour:.0f} grey levels "
            "between their channels): chips are told apart by colour; switch the camera's night mode (black and "
            "white) off, light the table, or turn its colour up")


def _faded(learned: float) -> Callable[[float, Reading], str | None]:
    """The judge of a camera whose felt showed saturation ``learned`` when the chip colours were learned."""
    def judge(paper: float, reading: Reading) -> str | None:
        if reading.saturation is None or reading.saturation >= COLOUR_FADED * learned or reading.colour < COLOURLESS:
            return None  # (with no colour at all, "no colour" says so)
        return (f"the felt shows {100 * reading.saturation / learned:.0f} % of the colour it showed when the chip "
                "colours were learned: chips, card backs and hands run together; turn the camera's colour (saturation) "
                "back up, or switch its night mode off")
    return judge


def _flickering(low: float, high: float) -> Callable[[float, Reading], str | None]:
    """The judge of a swing from ``low`` up to ``high``."""
    def judge(paper: float, reading: Reading) -> str | None:
        if not low <= reading.swing < high:
            return None
        return (f"the light changes by {100 * reading.swing:.0f} % from one frame to the next: lamps flickering with "
                "the mains, caught at another moment each frame; set the camera's anti-flicker (an exposure of 1/100 s "
                "on 50 Hz mains, 1/120 s on 60 Hz) or change the lamps")
    return judge


CONDITIONS = (Condition("too dark", False, _too_dark), Condition("overexposed", True, _overexposed),
              Condition("washed out", False, _washed_out), Condition("no colour", False, _colourless),
              Condition("flickering", True, _flickering(FLICKERING, FLICKERING_HARD)),
              Condition("flickering hard", False, _flickering(FLICKERING_HARD, float("inf"))))


@dataclass
class Spell:
    """One condition's time: since when it holds, when it was last seen, whether the floor was told."""

    since: float
    seen: float
    reported: bool = False


class PictureWatch:
    """The conditions of one camera's picture, from the light of each analysed frame."""

    def __init__(self, *, table: str, camera: str, felt_saturation: float | None = None) -> None:
        """``felt_saturation``: how colourful the felt was when the chip colours were learned, when known."""
        self.table, self.camera = table, camera
        self.spells: dict[str, Spell] = {}
        faded = (Condition("colour faded", False, _faded(felt_saturation)),) if felt_saturation else ()
        self.conditions = CONDITIONS + faded

    @property
    def status(self) -> str:
        """The conditions reported and not over, for a status line ("picture too dark"); empty when none."""
        held = [name for name, spell in self.spells.items() if spell.reported]
        return f"picture {' and '.join(held)}" if held else ""

    def holds(self, condition: str) -> bool:
        """Whether the condition holds now (reported or not yet)."""
        return condition in self.spells

    def update(self, reading: Reading, ts: float) -> list[CameraPicture]:
        """The conditions this frame's light reports or reports over (none while no marker is in view: nothing to
        judge by)."""
        if not len(reading.papers):
            return []
        paper = float(np.median(reading.papers))
        changes = []
        for condition in self.conditions:
            detail = condition.judge(paper, reading)
            spell = self.spells.get(condition.name)
            if detail is not None:
                if spell is None:
                    spell = self.spells[condition.name] = Spell(since=ts, seen=ts)
                spell.seen = ts
                if not spell.reported and ts - spell.since >= HOLD_S:
                    spell.reported = True
                    changes.append(self._change(ts, condition.name, condition.reliable, usable=False,
                                                detail=f"{detail} (for {ts - spell.since:.0f} s)"))
            elif spell is not None and ts - spell.seen >= (CLEAR_S if spell.reported else GAP_S):
                del self.spells[condition.name]
                if spell.reported:
                    changes.append(self._change(ts, condition.name, condition.reliable, usable=True,
                                                detail=f"over after {ts - spell.since:.0f} s"))
        return changes

    def resolution(self, mm_per_px: float, ts: float) -> list[CameraPicture]:
        """A calibration's scale at the table's centre judged: a low resolution reported (a warning), or over."""
        coarse, reported = mm_per_px > SUIT_MM_PER_PX, LOW_RESOLUTION in self.spells
        if coarse == reported:
            return []
        if not coarse:
            del self.spells[LOW_RESOLUTION]
            return [self._change(ts, LOW_RESOLUTION, True, usable=True,
                                 detail=f"the table now at {mm_per_px:.1f} mm a pixel")]
        self.spells[LOW_RESOLUTION] = Spell(since=ts, seen=ts, reported=True)
        return [self._change(ts, LOW_RESOLUTION, True, usable=False, detail=(
            f"the table at {mm_per_px:.1f} mm a pixel: a card's suit symbol spans two or three pixels, and hearts "
            "are not told from diamonds, nor clubs from spades, with certainty (the hand histories' suits may be "
            f"wrong); set the camera to a higher resolution (finer than {SUIT_MM_PER_PX:g} mm a pixel)"))]

    def _change(self, ts: float, condition: str, reliable: bool, *, usable: bool, detail: str) -> CameraPicture:
        return CameraPicture(ts=ts, table=self.table, source="vision", camera=self.camera, condition=condition,
                             usable=usable, reliable=reliable, detail=detail)
