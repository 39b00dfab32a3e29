"""The procedure checks on real hands: hands of ``shared/data/hands/high_stakes`` acted out at the table by the
replay (``tablewatch.rules.replay.perform``) through ``TableRules`` with every registered check. Correctly
dealt hands must raise nothing, except what the simulated dealer really does wrong: it pushes the pots in
pokerkit's order, main pot first, which TDA22-21 logs (an advisory) when a side pot has another winner.

Run as a script for the whole set: ``.venv/bin/python -m tests.rules.test_procedures_replay [hands per file]``;
it also times the checks alone on the recorded (snapshot, event) pairs of the replayed hands.
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tablewatch import phhfile
from tablewatch.events import Event, Severity, Violation
from tablewatch.rules import replay
from tablewatch.rules.registry import default_checks
from tablewatch.rules.snapshot import HandSnapshot
from tablewatch.rules.table import TableRules

HANDS = Path(__file__).resolve().parents[3] / "shared" / "data" / "hands" / "high_stakes"


def replay_with_checks(path: Path, limit: int, record: list[tuple[HandSnapshot, Event]] | None = None
                       ) -> tuple[int, list[Violation]]:
    """Replay up to ``limit`` hands of ``path``; return the hands played and every check's findings.
    ``record`` collects each event with the snapshot the checks saw."""
    played, found = 0, []
    for section in phhfile.split_sections(path.read_text(encoding="utf-8"))[:limit]:
        hand = replay.normalize(phhfile.parse_section(section, path.name), section.name)
        truth = replay.oracle(hand)
        rules = TableRules(hand.config, table="T01", strict=True)
        feed = rules.feed

        def collect(event: Event, feed: Callable[[Event], list[Violation]] = feed,
                    rules: TableRules = rules) -> list[Violation]:
            if record is not None:
                record.append((rules.snapshot(), event))
            out = feed(event)
            found.extend(out)
            return out

        rules.feed = collect  # type: ignore[method-assign]
        for _ in replay.perform(hand, truth, rules, hand_no=played + 1, table="T01"):
            pass
        played += 1
    return played, found


def test_real_hands_raise_no_procedure_findings(shared_dir: Path) -> None:
    files = sorted((shared_dir / "data" / "hands" / "high_stakes").glob("*.phh"))
    assert files, "no real hands found"
    played, found = 0, []
    for path in files:
        n, violations = replay_with_checks(path, limit=40)
        played += n
        found += violations
    assert played >= 100
    unexpected = [v for v in found if not (v.rule_id == "TDA22-21" and v.severity is Severity.ADVISORY)]
    assert unexpected == []


def bench_checks(pairs: list[tuple[HandSnapshot, Event]], repeat: int = 3) -> float:
    """Seconds per event for a fresh set of every registered check, on recorded pairs (best of ``repeat``)."""
    best = float("inf")
    for _ in range(repeat):
        checks = default_checks()
        start = time.perf_counter()
        for snapshot, event in pairs:
            for check in checks:
                check.observe(snapshot, event)
        best = min(best, (time.perf_counter() - start) / len(pairs))
    return best


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 10**6
    start, played, counts = time.perf_counter(), 0, collections.Counter[str]()
    pairs: list[tuple[HandSnapshot, Event]] = []
    for path in sorted(HANDS.glob("*.phh")):
        n, violations = replay_with_checks(path, limit, pairs)
        played += n
        counts.update(f"{v.rule_id} ({v.severity})" for v in violations)
    print(f"{played} real hands ({len(pairs)} events) replayed with every procedure check in "
          f"{time.perf_counter() - start:.1f} s")
    print("findings:", dict(counts) or "none")
    per_event = bench_checks(pairs)
    print(f"the {len(default_checks())} checks alone: {per_event * 1e6:.1f} us per event, "
          f"{1 / per_event:,.0f} events/s")


if __name__ == "__main__":
    main()
