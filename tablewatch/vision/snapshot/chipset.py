"""A chip set: the colours of a venue's chips, and the value of each (``--chips``).

Given as a TOML file or inline, ``"white=1,red=5,blue=10,green=25,black=100"``; a colour is one of the named
paints (``tablewatch.calibration.chips.CHIP_PAINTS``) or any name with its measured colour in the file::

    [[chip]]
    colour = "red"
    value = 5
    [[chip]]
    colour = "teal"
    value = 25
    bgr = [120, 110, 20]   # as measured on a photo of the chip (optional for a named paint)

Without one, chips are named in the five colours of a common set (white, red, green, blue, black) and have no
value. A chip's colour is compared with the set's after white balance against the photo's card paper: a
chip with little colour is told by its lightness among the set's neutral colours (white, grey, black); a
coloured chip by the nearest hue among the set's coloured ones, or by its whole colour when the set gives
measured colours (then a chip far from all of them is "other").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablewatch.calibration.chips import CHIP_PAINTS

DEFAULT_COLOURS = ("white", "red", "green", "blue", "black")
NEUTRAL_CHROMA = 15.0  # Lab chroma (after white balance) under which a chip has no colour of its own
MAX_COLOUR_DISTANCE = 40.0  # Lab (L at half weight): a chip further than this from every measured colour is "other"


class ChipSetError(ValueError):
    """A chip set that can't be read; the message says where and why."""


@dataclass(frozen=True)
class ChipColour:
    name: str
    value: float | None
    lab: tuple[float, float, float]  # the reference colour (8-bit Lab)
    measured: bool  # a measured colour (compared whole) rather than a named paint (compared by hue)

    @property
    def neutral(self) -> bool:
        return float(np.hypot(self.lab[1] - 128.0, self.lab[2] - 128.0)) < NEUTRAL_CHROMA


@dataclass(frozen=True)
class ChipSet:
    colours: tuple[ChipColour, ...]
    source: str

    @property
    def has_values(self) -> bool:
        return any(c.value is not None for c in self.colours)

    def value_of(self, name: str) -> float | None:
        return next((c.value for c in self.colours if c.name == name), None)

    def name(self, lab: np.ndarray | tuple[float, float, float]) -> str:
        """The set's colour for a chip body colour (white-balanced 8-bit Lab), or "other"."""
        lightness, a, b = (float(v) for v in lab)
        chroma = float(np.hypot(a - 128.0, b - 128.0))
        if chroma < NEUTRAL_CHROMA:
            neutral = [c for c in self.colours if c.neutral]
            if not neutral:
                return "other"
            return min(neutral, key=lambda c: abs(c.lab[0] - lightness)).name
        coloured = [c for c in self.colours if not c.neutral]
        if not coloured:
            return "other"
        best, best_d = "other", np.inf
        for c in coloured:
            if c.measured:
                d = float(np.linalg.norm([(c.lab[0] - lightness) * 0.5, c.lab[1] - a, c.lab[2] - b]))
                if d > MAX_COLOUR_DISTANCE:
                    continue
            else:  # a named paint: the nearest hue of the set's (a set says which colours there are)
                d = _hue_difference(_hue(a, b), _hue(c.lab[1], c.lab[2]))
            if d < best_d:
                best, best_d = c.name, d
        return best


def _hue(a: float, b: float) -> float:
    return float(np.degrees(np.arctan2(b - 128.0, a - 128.0)) % 360.0)


def _hue_difference(h1: float, h2: float) -> float:
    d = abs(h1 - h2) % 360.0
    return min(d, 360.0 - d)


def _lab(bgr: tuple[int, int, int] | list[int]) -> tuple[float, float, float]:
    pixel = np.clip(np.asarray(bgr, np.float32), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab).reshape(3)
    return float(lab[0]), float(lab[1]), float(lab[2])


def default_chip_set() -> ChipSet:
    return ChipSet(tuple(ChipColour(name, None, _lab(CHIP_PAINTS[name]), False) for name in DEFAULT_COLOURS),
                   source="the five colours of a common set, no values")


def parse_chip_set(spec: str | Path) -> ChipSet:
    """A chip set from a TOML file or an inline ``colour=value,...`` list (see the module)."""
    text = str(spec)
    path = Path(text)
    if path.suffix == ".toml" or path.is_file():
        return _from_file(path)
    entries: list[dict[str, object]] = []
    for item in (part.strip() for part in text.split(",") if part.strip()):
        if "=" not in item:
            raise ChipSetError(f"chip set {text!r}: write each chip as colour=value (e.g. red=5), not {item!r}")
        name, value = (v.strip() for v in item.split("=", 1))
        entries.append({"colour": name, "value": value})
    if not entries:
        raise ChipSetError(f"chip set {text!r} names no chips")
    return _build(entries, source=f"--chips {text}")


def _from_file(path: Path) -> ChipSet:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ChipSetError(f"chip set file not found: {path}") from exc
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ChipSetError(f"cannot read the chip set {path}: {exc}") from exc
    entries = data.get("chip")
    if not isinstance(entries, list) or not entries:
        raise ChipSetError(f"{path}: no [[chip]] entries (each with a colour and a value)")
    return _build(entries, source=str(path))


def _build(entries: list[dict[str, object]], *, source: str) -> ChipSet:
    colours = []
    seen: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            raise ChipSetError(f"{source}: each chip is a table with a colour and a value")
        name = str(entry.get("colour", "")).strip().lower()
        if not name:
            raise ChipSetError(f"{source}: a chip without a colour")
        if name in seen:
            raise ChipSetError(f"{source}: the colour {name!r} is given twice")
        seen.add(name)
        raw_value = entry.get("value")
        try:
            value = None if raw_value is None else float(str(raw_value))
        except ValueError as exc:
            raise ChipSetError(f"{source}: the value of {name!r} is not a number: {raw_value!r}") from exc
        bgr = entry.get("bgr")
        if bgr is not None:
            if not (isinstance(bgr, list) and len(bgr) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in bgr)):
                raise ChipSetError(f"{source}: the bgr of {name!r} must be three integers 0-255")
            colours.append(ChipColour(name, value, _lab(bgr), True))
        elif name in CHIP_PAINTS:
            colours.append(ChipColour(name, value, _lab(CHIP_PAINTS[name]), False))
        else:
            known = ", ".join(sorted(CHIP_PAINTS))
            raise ChipSetError(f"{source}: {name!r} is not a named colour ({known}); give its measured bgr")
    return ChipSet(tuple(colours), source=source)
