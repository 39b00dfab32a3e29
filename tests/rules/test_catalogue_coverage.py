"""Every worked example of the catalogue (§3, EX-1 … EX-n) is a test named after it, or is listed below with
the reason a table monitor does not rule on it (issue #2: "the worked examples … that concern the engine,
chip reading or procedures are tests, each named after its example id")."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

NOT_RULED_BY_THE_MONITOR: dict[int, str] = {
    33: "the 1-minute dispute window before a break runs on the tournament clock, which the monitor does not see "
        "(the usual window, until the next hand's substantial action, is in the TDA-5 misaward ruling)",
    34: "dealer change shortly before a level ends: needs the tournament level clock and a dealer-swap event, "
        "neither of which the monitor receives",
    36: "seat draw when a table breaks: a seating procedure away from any dealt hand, with no event of its own",
    37: "halting play at a short table: tournament-wide balancing across tables, the TD's call",
    83: "stud dealing when the deck runs out on 7th street: the monitor follows flop games only",
    95: "stud 7th-street card dealt face up: the monitor follows flop games only",
    28: "the club's team-play ladder: a penalty the TD gives after the hand, not seen at the table",
    29: "missed-round penalty arithmetic: the TD's penalty ledger, not seen at the table",
    79: "prizes shared on the bubble: tournament-wide, across tables",
    80: "the hand-for-hand clock: tournament-wide, across tables",
    81: "all-in during hand-for-hand: the floor's call across tables",
    82: "final-table size: a seating decision away from any dealt hand",
    94: "final-table size (2017): a seating decision away from any dealt hand",
    99: "an incomplete buy-in: the cage's business before the player is dealt in",
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
    assert_covered(examples, tested, NOT_RULED_BY_THE_MONITOR, covered_as="with a test_ex_<n> test",
                   listed_as="as not ruled by the monitor")


def assert_covered(ids: set, covered: set, listed: dict, *, covered_as: str, listed_as: str) -> None:
    """Every id is covered or listed with a reason, never both, and only ids that exist are listed."""
    missing = sorted(ids - covered - set(listed))
    assert missing == [], f"ids neither {covered_as} nor listed {listed_as}: {missing}"
    stale = sorted(set(listed) & covered)
    assert stale == [], f"ids listed {listed_as}, yet {covered_as} (stale entries): {stale}"
    unknown = sorted(set(listed) - ids)
    assert unknown == [], f"listed ids that are not in the catalogue: {unknown}"
    assert all(reason.strip() for reason in listed.values())


# --- every engine rule of §2 is named in the rules code ------------------------------------------------------

RULES_CODE = Path(__file__).resolve().parents[2] / "tablewatch" / "rules"

# ENG ids of catalogue §2 deliberately not implemented, with the reason; an id here that the code names is stale
ENG_NOT_IMPLEMENTED: dict[str, str] = {
    "ENG-27": "the chip race: a colour-up at a break, away from any dealt hand",
    "ENG-28": "counting rights: the floor's answer to a player's request, not seen at the table",
    "ENG-29": "chips found after an all-in was called: the floor's finding, not seen at the table",
    "ENG-30": "bets returned to a hand killed by mistake: the floor's finding that it was a mistake",
    "ENG-31": "penalty bookkeeping: the TD's penalty ledger",
    "ENG-32": "the hand-for-hand clock and ties on the bubble: tournament-wide, across tables",
    "ENG-33": "final-table size: a seating decision away from any dealt hand",
    "ENG-34": "the club's team-play penalty ladder: the TD's penalty ledger",
    "ENG-37": "conditional statements and early calls: the floor's ruling on words the monitor does not parse",
    "ENG-38": "who may see cards shown: a request to the floor",
    "ENG-39": "hands miscalled at the showdown: cards speak, the engine reads the cards, not the words",
    "ENG-40": "rebuys and buy-ins: the cage's business before the player is dealt in",
}

ENG_HEADING = re.compile(r"^#### (ENG-\d+) — ", re.MULTILINE)


def eng_rules_in_catalogue(text: str) -> set[str]:
    """The ENG ids of §2 (from its heading to the next top-level section)."""
    start = text.index("\n## 2. ")
    end = text.index("\n## ", start + 1)
    return set(ENG_HEADING.findall(text[start:end]))


def named_in(source: str, ids: set[str]) -> set[str]:
    """The ids ``source`` names, whole: ENG-1 is not ENG-10."""
    return {rule for rule in ids if re.search(rf"{re.escape(rule)}(?!\d)", source)}


def test_the_eng_parsers_read_whole_ids() -> None:
    text = "#### ENG-99 — x\n## 2. Game\n#### ENG-01 — a\n#### ENG-02 — b\n- #### ENG-07 — no\n## 3. W\n#### ENG-03 — c"
    assert eng_rules_in_catalogue(text) == {"ENG-01", "ENG-02"}
    assert named_in("see ENG-010 and ENG-02.", {"ENG-01", "ENG-02"}) == {"ENG-02"}


def test_every_eng_rule_is_named_in_the_rules_code_or_listed(shared_dir: Path) -> None:
    ids = eng_rules_in_catalogue((shared_dir / "rules" / "CATALOGUE.md").read_text(encoding="utf-8"))
    assert len(ids) >= 45 and ids == {f"ENG-{n:02d}" for n in range(1, len(ids) + 1)}, "§2 is not ENG-01…ENG-n"
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(RULES_CODE.rglob("*.py")))
    assert_covered(ids, named_in(source, ids), ENG_NOT_IMPLEMENTED, covered_as="named in tablewatch/rules",
                   listed_as="as not implemented")
