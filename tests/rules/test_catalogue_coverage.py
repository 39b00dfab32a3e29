"""Every worked example of the catalogue (§3, EX-1 … EX-n) is a test named after it, or is listed below with
the reason a table monitor does not rule on it (issue #2: "the worked examples … that concern the engine,
chip reading or procedures are tests, each named after its example id")."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

NOT_RULED_BY_THE_MONITOR: dict[int, str] = {
    28: "club team-play ladder: starts from the dealer's suspicion and the floor's count of offences; no table "
        "event shows either",
    29: "missed-round penalty: the floor imposes it and no event tells the monitor a seat is penalised; the count "
        "of hands is the floor's bookkeeping",
    33: "the 1-minute dispute window before a break runs on the tournament clock, which the monitor does not see "
        "(the usual window, until the next hand's substantial action, is in the TDA-5 misaward ruling)",
    34: "dealer change shortly before a level ends: needs the tournament level clock and a dealer-swap event, "
        "neither of which the monitor receives",
    36: "seat draw when a table breaks: a seating procedure away from any dealt hand, with no event of its own",
    37: "halting play at a short table: tournament-wide balancing across tables, the TD's call",
    82: "final-table size (2022): a tournament structure the TD sets when tables merge, not a table's play",
    83: "stud dealing when the deck runs out on 7th street: the monitor follows flop games only",
    94: "final-table size (2017): a tournament structure the TD sets when tables merge, not a table's play",
    95: "stud 7th-street card dealt face up: the monitor follows flop games only",
    99: "short buy-in amount: a sale at the cash desk or by the dealer between hands, with no buy-in event",
}

EXAMPLE = re.compile(r"^\*\*EX-(\d+) — ", re.MULTILINE)
TEST_NAME = re.compile(r"^\s*(?:async\s+)?def test_ex_((?:\d+_)+)", re.MULTILINE)


def examples_in_catalogue(text: str) -> set[int]:
    """The EX ids of §3 (from its heading to the next top-level section)."""
    start = text.index("\n## 3. ")
    end = text.index("\n## ", start + 1)
    return {int(n) for n in EXAMPLE.findall(text[start:end])}


def examples_named_by_tests(sources: list[str], known: set[int]) -> set[int]:
    """Ids named by ``test_ex_<n>_…`` functions. A name may cover consecutive examples (``test_ex_38_39_…``);
    a later number counts only while it is a catalogue id above the one before, so the amounts in
    ``test_ex_47_500_and_1000_…`` are not read as ids."""
    found: set[int] = set()
    for source in sources:
        for numbers in TEST_NAME.findall(source):
            ids = [int(n) for n in numbers.strip("_").split("_")]
            found.add(ids[0])
            for prev, n in pairwise(ids):
                if n not in known or n <= prev:
                    break
                found.add(n)
    return found


def test_the_parsers_read_ids_not_amounts() -> None:
    known = {38, 39, 47}
    sources = ["def test_ex_38_39_wrong_count() -> None:\n", "    def test_ex_47_500_and_1000_call():\n"]
    assert examples_named_by_tests(sources, known) == {38, 39, 47}
    text = "## 2. x\n**EX-0 — no**\n## 3. Worked\n**EX-1 — a**\n- **EX-9 — b**\n**EX-2 — c**\n## 4. T\n**EX-3 — d**"
    assert examples_in_catalogue(text) == {1, 2}


def test_every_worked_example_is_tested_or_listed(shared_dir: Path) -> None:
    examples = examples_in_catalogue((shared_dir / "rules" / "CATALOGUE.md").read_text(encoding="utf-8"))
    assert len(examples) >= 122 and examples == set(range(1, max(examples) + 1)), "§3 numbering is not EX-1…EX-n"
    sources = [p.read_text(encoding="utf-8") for p in sorted(TESTS.rglob("test_*.py"))]
    tested = examples_named_by_tests(sources, examples)
    listed = set(NOT_RULED_BY_THE_MONITOR)
    untested = sorted(examples - tested - listed)
    assert untested == [], f"EX ids with no test_ex_<n> test, not listed as not ruled: {untested}"
    stale = sorted(listed & tested)
    assert stale == [], f"EX ids listed as not ruled by the monitor, yet tested (stale entries): {stale}"
    unknown = sorted(listed - examples)
    assert unknown == [], f"listed ids that are not examples of the catalogue: {unknown}"
    assert all(reason.strip() for reason in NOT_RULED_BY_THE_MONITOR.values())
