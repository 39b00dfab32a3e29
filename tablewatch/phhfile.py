"""Reading PHH files (the Poker Hand History format pokerkit reads): one hand, or many in ``[n]`` sections, with
errors that name the file, the hand and the line. Every part that reads a PHH file reads it here."""

from __future__ import annotations

import re
import tomllib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from datetime import time as dt_time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pokerkit import HandHistory

_HEADER = re.compile(r"^\[([^\]]+)\]\s*$")
_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)")
SUFFIXES = (".phh", ".phhs")


class PhhError(ValueError):
    """A hand that cannot be read; the message names the file, hand and line."""


@dataclass(frozen=True, kw_only=True)
class PhhSection:
    name: str  # the [n] label, or "1" for a single-hand file
    line: int  # 1-based line of the section's first line in the file
    text: str


def split_sections(text: str) -> list[PhhSection]:
    """The ``[n]`` sections of a multi-hand file (or the whole text as one hand)."""
    lines = text.splitlines()
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    if not starts:
        return [PhhSection(name="1", line=1, text=text)]
    out = []
    for k, (i, name) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        out.append(PhhSection(name=name, line=i + 2, text="\n".join(lines[i + 1:end])))
    return out


def parse_section(section: PhhSection, source: str, *,
                  parse_value: Callable[[str], Any] | None = None) -> HandHistory:
    """The section's hand (``parse_value``: how pokerkit reads a number, e.g. ``Decimal``)."""
    try:
        tomllib.loads(section.text)
    except tomllib.TOMLDecodeError as exc:
        found = _AT_LINE.search(str(exc))  # Python 3.11 puts the position in the message only
        line = section.line + int(found.group(1)) - 1 if found else section.line
        message = _AT_LINE.sub("", str(exc)).strip()
        raise PhhError(f"{source}: hand [{section.name}] line {line}: not valid PHH/TOML: {message}") from exc
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # venue files carry fields the standard does not define
            if parse_value is None:
                return HandHistory.loads(section.text)
            return HandHistory.loads(section.text, parse_value=parse_value)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise PhhError(f"{source}: hand [{section.name}] (line {section.line}): {exc}") from exc


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PhhError(f"{path}: cannot read the file ({exc}).") from exc


def read_hands(path: Path, *, parse_value: Callable[[str], Any] | None = None) -> list[HandHistory]:
    """Every hand of a PHH file, one hand or many; PhhError at the first one that can't be read."""
    return [parse_section(section, str(path), parse_value=parse_value)
            for section in split_sections(read_text(path))]


def hand_name(hh: HandHistory, section: PhhSection) -> str:
    """What a hand is called: the number the file gives it (``hand = 10``), else its section's label."""
    return str(hh.hand) if getattr(hh, "hand", None) is not None else section.name


def seat_numbers(hh: HandHistory) -> list[int]:
    """The players' seats, in the file's order of players (the file's ``seats``, else 1..n)."""
    return [int(s) for s in hh.seats] if hh.seats else list(range(1, len(hh.starting_stacks) + 1))


def player_names(hh: HandHistory) -> dict[int, str]:
    """Seat → the player's name, where the file names them (a live table writes "" for a player not named)."""
    return {seat: str(name) for seat, name in zip(seat_numbers(hh), hh.players or (), strict=False) if name}


def forced_antes(antes: list[int]) -> tuple[int, int, int] | None:
    """(each player's ante, the big blind's ante for everyone, the button's ante for everyone) from PHH ``antes``
    in pokerkit's order; None for antes that differ by seat otherwise. Heads-up, pokerkit posts index 1's ante at
    the big blind and index 0's at the button (it turns the two round, as it does the blinds)."""
    if len(set(antes)) <= 1:
        return (antes[0] if antes else 0), 0, 0
    posting = [i for i, a in enumerate(antes) if a]
    if posting == [1]:
        return 0, antes[1], 0
    if posting == [0 if len(antes) == 2 else len(antes) - 1]:
        return 0, 0, antes[posting[0]]
    return None


def started_utc(hh: HandHistory) -> datetime | None:
    """When the hand started, in UTC, from its ``year``/``month``/``day``/``time`` in its ``time_zone`` (an IANA
    name; none, or one this machine does not know, is read as UTC); None without a date."""
    if not (hh.year and hh.month and hh.day):
        return None
    clock = hh.time if isinstance(hh.time, dt_time) else dt_time()
    try:
        zone: tzinfo = ZoneInfo(str(hh.time_zone)) if hh.time_zone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        zone = UTC
    return datetime.combine(date(int(hh.year), int(hh.month), int(hh.day)), clock, zone).astimezone(UTC)


def phh_files(sources: list[Path]) -> list[Path]:
    """The PHH files named: files as given, folders by their ``.phh``/``.phhs`` files, patterns (``hands/*.phh``)
    by what they match, in order."""
    out: list[Path] = []
    for source in sources:
        if source.is_dir():
            out += sorted(p for p in source.iterdir() if p.suffix in SUFFIXES)
        elif any(ch in str(source) for ch in "*?[") and not source.exists():
            anchor = Path(source.anchor or ".")
            out += sorted(anchor.glob(str(source.relative_to(anchor)) if source.is_absolute() else str(source)))
        else:
            out.append(source)
    return out
