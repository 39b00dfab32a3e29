"""The bench's count of routine alerts: SYSTEM and ADVISORY alerts that answer no injected incident."""

from __future__ import annotations

from tablewatch.bench.score import routine_alerts
from tablewatch.bench.session import InjectedTruth, TimedAlert
from tablewatch.events import Severity, Violation


def alert(rule_id: str, severity: Severity, hand_no: int | None) -> TimedAlert:
    violation = Violation(ts=1.0, table="T01", source="rules", rule_id=rule_id, severity=severity, hand_no=hand_no,
                          title=rule_id, observed="", ruling="")
    return TimedAlert(violation, 1.0, 0.0)


def test_routine_alerts_leave_out_the_injected_incidents_and_the_violations() -> None:
    injected = [InjectedTruth(type="missing_burn", rule_id="TDA-26B", hand_no=2, ts=50.0, end_ts=51.0, seats=(),
                              observable_ts=51.0)]
    alerts = [alert("TDA-26B", Severity.ADVISORY, 2),  # the injected missing burn's own advisory: not routine
              alert("TDA-26B", Severity.ADVISORY, 3),  # the same rule on a hand played by the book: routine
              alert("SYS-SENSORS", Severity.SYSTEM, None),
              alert("SYS-SENSORS", Severity.SYSTEM, 1),
              alert("TDA-29", Severity.VIOLATION, 1)]  # a false violation is counted apart
    assert routine_alerts(injected, alerts) == {"SYS-SENSORS": 2, "TDA-26B": 1}
