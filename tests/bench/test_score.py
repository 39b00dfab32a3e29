"""The bench's count of routine alerts (SYSTEM and ADVISORY alerts that answer no injected incident) and of the
notifications a console would ring for."""

from __future__ import annotations

from tablewatch.bench.score import notifications, routine_alerts
from tablewatch.bench.session import InjectedTruth, TimedAlert
from tablewatch.events import Severity, Violation


def alert(rule_id: str, severity: Severity, hand_no: int | None, ts: float = 1.0) -> TimedAlert:
    violation = Violation(ts=ts, table="T01", source="rules", rule_id=rule_id, severity=severity, hand_no=hand_no,
                          title=rule_id, observed="", ruling="")
    return TimedAlert(violation, ts, 0.0)


def test_routine_alerts_leave_out_the_injected_incidents_and_the_violations() -> None:
    injected = [InjectedTruth(type="missing_burn", rule_id="TDA-26B", hand_no=2, ts=50.0, end_ts=51.0, seats=(),
                              observable_ts=51.0)]
    alerts = [alert("TDA-26B", Severity.ADVISORY, 2),  # the injected missing burn's own advisory: not routine
              alert("TDA-26B", Severity.ADVISORY, 3),  # the same rule on a hand played by the book: routine
              alert("SYS-SENSORS", Severity.SYSTEM, None),
              alert("SYS-SENSORS", Severity.SYSTEM, 1),
              alert("TDA-29", Severity.VIOLATION, 1)]  # a false violation is counted apart
    assert routine_alerts(injected, alerts) == {"SYS-SENSORS": 2, "TDA-26B": 1}


def test_a_console_rings_once_per_incident_and_again_on_an_escalation() -> None:
    injected = [InjectedTruth(type="misdeal", rule_id="TDA-22A", hand_no=2, ts=50.0, end_ts=51.0, seats=(),
                              observable_ts=51.0)]
    alerts = [alert("SYS-SENSORS", Severity.SYSTEM, 1, ts=1.0),  # rings: routine
              alert("SYS-SENSORS", Severity.SYSTEM, 2, ts=2.0),  # the same sensor fault: no ring
              alert("TDA-22A(7)", Severity.ADVISORY, 2, ts=3.0),  # rings: the injected misdeal
              alert("TDA-22C", Severity.VIOLATION, 2, ts=4.0),  # the same misdeal escalated: rings again
              alert("TDA-26B", Severity.ADVISORY, 3, ts=5.0)]  # rings: routine
    assert notifications(injected, alerts) == (4, 2)
