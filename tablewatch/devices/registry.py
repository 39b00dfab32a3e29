"""The tag registry: which chip each UID is (denomination, chip set). A UID it does not know is suspect.

File format: CSV with a header row, as chip suppliers deliver their lists (extra columns are ignored)::

    uid,denomination,chip_set
    E0 07 A1 B2 C3 D4 E5 F6,500,main-2024
    E007A1B2C3D4E5F7,"1,000",main-2024

``uid`` is 16 hex digits with or without spaces, colons or dashes, most significant byte first (starting
E0). Lists written least significant byte first (ending in E0) are recognised and turned round.
``chip_set`` may be left out when the loader is given one. Every problem is reported with its line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tablewatch.devices import iso15693 as iso
from tablewatch.events import Chips

COLUMNS = ("uid", "denomination", "chip_set")


class RegistryError(ValueError):
    """A registry file that can't be used; one line per problem, each naming the file and line."""


@dataclass(frozen=True, kw_only=True)
class ChipTag:
    uid: str  # 16 hex digits, most significant byte first
    denomination: int
    chip_set: str


class TagRegistry:
    def __init__(self, tags: Iterable[ChipTag] = ()) -> None:
        self._tags: dict[str, ChipTag] = {}
        for tag in tags:
            if tag.uid in self._tags:
                raise RegistryError(f"UID {tag.uid} is listed twice.")
            self._tags[tag.uid] = tag

    def __len__(self) -> int:
        return len(self._tags)

    def __iter__(self) -> Iterator[ChipTag]:
        return iter(self._tags.values())

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and _normal(uid) in self._tags

    def lookup(self, uid: str | int) -> ChipTag | None:
        key = iso.uid_hex(uid) if isinstance(uid, int) else _normal(uid)
        return self._tags.get(key)

    def chips(self, uids: Iterable[str | int]) -> tuple[Chips, tuple[str, ...]]:
        """The chips these UIDs are, and the UIDs it does not know (suspect)."""
        counts: dict[int, int] = {}
        unknown: list[str] = []
        for uid in uids:
            tag = self.lookup(uid)
            if tag is None:
                unknown.append(iso.uid_hex(uid) if isinstance(uid, int) else _normal(uid))
            else:
                counts[tag.denomination] = counts.get(tag.denomination, 0) + 1
        return Chips.of(counts), tuple(unknown)

    @classmethod
    def generate(cls, denominations: Mapping[int, int], *, chip_set: str = "demo", seed: int = 0,
                 manufacturer_code: int = 0x07) -> TagRegistry:
        """A chip set of ``{denomination: count}`` with fresh realistic UIDs (for the simulator and demos)."""
        total = sum(denominations.values())
        uids = iter(iso.make_uids(total, seed=seed, manufacturer_code=manufacturer_code))
        return cls(ChipTag(uid=iso.uid_hex(next(uids)), denomination=d, chip_set=chip_set)
                   for d, n in sorted(denominations.items()) for _ in range(n))

    def uids_of(self, denomination: int) -> list[str]:
        return [t.uid for t in self._tags.values() if t.denomination == denomination]

    # --- files -----------------------------------------------------------------------------------------------

    @classmethod
    def from_csv(cls, path: str | Path, *, chip_set: str | None = None) -> TagRegistry:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise RegistryError(f"{path}: cannot read the file ({exc.strerror}).") from exc
        return cls.from_csv_text(text, source=str(path), chip_set=chip_set)

    @classmethod
    def from_csv_text(cls, text: str, *, source: str = "<registry>", chip_set: str | None = None) -> TagRegistry:
        reader = csv.DictReader(io.StringIO(text))
        header = [h.strip().lower() for h in reader.fieldnames or []]
        missing = [c for c in COLUMNS if c not in header and not (c == "chip_set" and chip_set)]
        if missing:
            raise RegistryError(f"{source}: the header row needs columns {', '.join(missing)}; it has "
                                f"{', '.join(header) or 'nothing'}.")
        reader.fieldnames = header
        tags: list[ChipTag] = []
        problems: list[str] = []
        seen: dict[str, int] = {}
        for row in reader:
            line = reader.line_num
            try:
                tag = _row_to_tag(row, chip_set)
            except ValueError as exc:
                problems.append(f"  line {line}: {exc}")
                continue
            if tag.uid in seen:
                problems.append(f"  line {line}: UID {tag.uid} already listed on line {seen[tag.uid]}")
                continue
            seen[tag.uid] = line
            tags.append(tag)
        if problems:
            raise RegistryError(f"{source}: {len(problems)} problem(s):\n" + "\n".join(problems))
        return cls(tags)

    def to_csv(self, path: str | Path) -> None:
        with Path(path).open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            for tag in self._tags.values():
                writer.writerow((tag.uid, tag.denomination, tag.chip_set))


def _normal(uid: str) -> str:
    return re.sub(r"[\s:\-_]", "", uid).upper()


def _row_to_tag(row: Mapping[str, str | None], chip_set: str | None) -> ChipTag:
    raw_uid = (row.get("uid") or "").strip()
    digits = _normal(raw_uid)
    if len(digits) == 16 and not digits.startswith("E0") and digits.endswith("E0"):  # LSB first: turn round
        digits = bytes.fromhex(digits)[::-1].hex().upper()
    uid = iso.uid_hex(iso.parse_uid(digits)) if digits else ""
    if not uid:
        raise ValueError("the uid is empty")
    text = re.sub(r"[\s,_]", "", row.get("denomination") or "")
    if not text.isdigit() or int(text) <= 0:
        raise ValueError(f"denomination must be a positive whole number, got {row.get('denomination')!r}")
    chips = (row.get("chip_set") or "").strip() or chip_set
    if not chips:
        raise ValueError("chip_set is empty and no default chip set was given")
    return ChipTag(uid=uid, denomination=int(text), chip_set=chips)
