"""Incidents: which alerts belong together, severity and escalation, the floor's reviews, and the alerting
switches (mute, off) — the model alone; test_incident_feed.py runs them through a real broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.incidents import KEEP_INCIDENTS, IncidentBook, ReviewError
from tablewatch.alerts.switches import AlertSwitches
from tablewatch.events import Severity, Violation
from tests.alerts.helpers import validate

CTX = pl.Context(site="casino", table="T01", session="s1", epoch=1_800_000_000.0)


def alert(rule: str = "TDA-29", *, ts: float = 1.0, hand: int | None = 1, seats: tuple[int, ...] = (3,),
          severity: Severity = Severity.VIOLATION) -> pl.AlertPayload:
    found = Violation(ts=ts, table="T01", source="rules", rule_id=rule, title=f"{rule} title", observed="seen",
                      ruling="ruled", hand_no=hand, seats=seats, severity=severity, confidence=0.9)
    return pl.alert_payload(CTX, found)


def test_one_alert_and_its_revisions_are_one_incident_that_rings_once() -> None:
    book = IncidentBook(CTX)
    first = alert()
    opened = book.add(first)
    revised = book.add({**first, "type": "update", "revision": 1, "msg_id": first["id"] + "/1"})
    assert (opened["type"], opened["notify"], opened["revision"]) == ("new", True, 0)
    assert (revised["type"], revised["notify"], revised["revision"], revised["count"]) == ("update", False, 1, 1)
    assert opened["id"] == revised["id"] and revised["alerts"] == [first["id"]]
    validate("incident", opened)
    validate("incident", revised)


def test_a_hands_misdeal_is_one_incident_and_other_rules_are_their_own() -> None:
    book = IncidentBook(CTX)
    deal = book.add(alert("TDA-22A(7)", ts=1.0))
    redeal = book.add(alert("TDA-22C", ts=2.0))
    string_raise = book.add(alert("TDA-29", ts=3.0))
    next_hand = book.add(alert("TDA-22A(2)", ts=9.0, hand=2))
    assert redeal["id"] == deal["id"] and redeal["count"] == 2 and redeal["rule_ids"] == ["TDA-22A(7)", "TDA-22C"]
    assert len({deal["id"], string_raise["id"], next_hand["id"]}) == 3


def test_repeats_of_one_sensor_fault_are_one_incident_across_hands_until_resolved() -> None:
    book = IncidentBook(CTX)
    sensor = dict(rule="SYS-SENSORS", severity=Severity.SYSTEM, seats=(4,))
    first = book.add(alert(ts=1.0, hand=1, **sensor))  # type: ignore[arg-type]
    repeats = [book.add(alert(ts=float(t), hand=t, **sensor)) for t in range(2, 7)]  # type: ignore[arg-type]
    assert {r["id"] for r in repeats} == {first["id"]} and repeats[-1]["count"] == 6
    assert not any(r["notify"] for r in repeats) and repeats[-1]["hands"] == [1, 2, 3, 4, 5, 6]
    other_seat = book.add(alert(ts=7.0, rule="SYS-SENSORS", severity=Severity.SYSTEM, seats=(5,)))
    assert other_seat["id"] != first["id"] and other_seat["notify"]
    ended = book.review(first["id"], "resolve", by="floor-anna", note="antenna 4 replaced", time=pl.iso_time(0))
    assert (ended["type"], ended["state"]) == ("end", "resolved")
    again = book.add(alert(ts=8.0, hand=8, **sensor))  # type: ignore[arg-type]
    assert again["id"] != first["id"] and again["type"] == "new" and again["notify"]


def test_a_later_alert_of_higher_severity_escalates_and_rings_again() -> None:
    book = IncidentBook(CTX)
    advisory = book.add(alert("TDA-16A", severity=Severity.ADVISORY))
    violation = book.add(alert("TDA-16B", ts=2.0, severity=Severity.VIOLATION))
    assert advisory["id"] != violation["id"]  # two rules, two incidents
    book = IncidentBook(CTX)
    book.add(alert("TDA-22A(7)", severity=Severity.ADVISORY))
    escalated = book.add(alert("TDA-22A(2)", ts=2.0))
    assert (escalated["severity"], escalated["escalated_from"], escalated["notify"]) == ("violation", "advisory", True)
    assert escalated["rule_id"] == "TDA-22A(2)"  # the leading alert is the most severe
    quiet = book.add(alert("TDA-22C", ts=3.0, severity=Severity.ADVISORY))
    assert (quiet["severity"], quiet["notify"], quiet["escalated_from"]) == ("violation", False, None)


def test_reviews_change_the_state_keep_a_log_and_refuse_what_makes_no_sense() -> None:
    book = IncidentBook(CTX)
    ident = book.add(alert())["id"]
    acked = book.review(ident, "acknowledge", by="floor-anna", note="watching seat 3", time=pl.iso_time(10))
    kept = book.review(ident, "keep", by="surveillance-room", note="case 118", time=pl.iso_time(11))
    assert (acked["state"], acked["type"]) == ("acknowledged", "update")
    assert kept["keep"] and kept["reviews"][-1] == {"action": "keep", "by": "surveillance-room", "note": "case 118",
                                                   "time": pl.iso_time(11)}
    with pytest.raises(ReviewError, match="reason"):
        book.review(ident, "dismiss", by="floor-anna", note="  ", time=pl.iso_time(12))
    with pytest.raises(ReviewError, match="not resolved or dismissed"):
        book.review(ident, "reopen", by="floor-anna", note="", time=pl.iso_time(12))
    with pytest.raises(ReviewError, match="not known"):
        book.review("in-0000000000000000", "resolve", by="floor-anna", note="", time=pl.iso_time(12))
    dismissed = book.review(ident, "dismiss", by="floor-anna", note="dealer tidying chips", time=pl.iso_time(13))
    assert (dismissed["type"], dismissed["state"]) == ("end", "dismissed")
    assert book.open_incidents(10) == []
    reopened = book.review(ident, "reopen", by="surveillance-room", note="seen again on tape", time=pl.iso_time(14))
    assert (reopened["type"], reopened["state"]) == ("update", "open") and book.open_incidents(10) == [reopened]
    validate("incident", reopened)


def test_the_book_forgets_the_oldest_incidents_past_its_cap() -> None:
    book = IncidentBook(CTX)
    first = book.add(alert(ts=0.0, hand=0))
    for n in range(1, KEEP_INCIDENTS + 1):
        book.add(alert(ts=float(n), hand=n))
    assert book.get(first["id"]) is None and book.of_alert(first["alerts"][0]) is None
    assert len(list(book)) == KEEP_INCIDENTS


def test_switches_mute_and_switch_off_a_rule_or_the_table_and_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "alerting.json"
    switches = AlertSwitches.load(path)
    now = 1_800_000_000.0

    def command(rule: str | None, enabled: bool | None, mute: float | None) -> pl.AlertingSetPayload:
        return pl.alerting_set_payload(site="casino", table="T01", by="floor-anna", now=now, rule_id=rule,
                                       enabled=enabled, mute_for_s=mute)

    switches.apply(command("TDA-22A", None, 600), now)
    assert not switches.allows("TDA-22A(7)", now + 1)  # the catalogue entry mutes its sub-cases
    assert switches.allows("TDA-22A(7)", now + 601) and switches.allows("TDA-29", now + 1)
    switches.apply(command(None, False, None), now)
    assert not switches.allows("TDA-29", now + 1)
    again = AlertSwitches.load(path)
    assert not again.allows("TDA-29", now + 1) and not again.allows("TDA-22A", now + 1)
    again.apply(command(None, True, None), now)
    again.count_suppressed("TDA-22A(7)")
    state = again.payload(CTX, seq=1, now=now + 1)
    validate("alerting", state)
    assert state["enabled"] and state["muted_until"] is None and state["changed_by"] == "floor-anna"
    assert state["rules"] == {"TDA-22A": {"enabled": True, "muted_until": pl.iso_time(now + 600)}}
    assert state["suppressed"] == {"TDA-22A(7)": 1}


def test_a_switch_file_that_cannot_be_read_is_set_aside_and_every_alert_is_on(tmp_path: Path,
                                                                             caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "alerting.json"
    path.write_text(json.dumps({"table": {"enabled": "maybe"}}))
    switches = AlertSwitches.load(path)
    assert switches.allows("TDA-29", 0.0)
    assert (tmp_path / "alerting.json.bad").exists() and "set aside" in caplog.text


def test_an_incident_of_a_hand_in_play_shows_the_alert_as_published() -> None:
    """The incident repeats its leading alert's text as the alert went out: with cards hidden while the hand is on."""
    book = IncidentBook(CTX)
    hidden = alert()
    hidden = {**hidden, "observed": "?? seen at seat 1 and again at seat 2."}
    incident = book.add(hidden)  # type: ignore[arg-type]
    assert incident["observed"] == "?? seen at seat 1 and again at seat 2."
    shown = {**hidden, "observed": "As seen at seat 1 and again at seat 2.", "revision": 1, "type": "end"}
    assert book.add(shown)["observed"] == "As seen at seat 1 and again at seat 2."  # type: ignore[arg-type]
