"""The floor console (model and command), the broker command and the MQTT benchmark command."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import connect, make_client
from tablewatch.alerts.floor import FloorBoard, FloorConsole, command, render
from tablewatch.alerts.incidents import IncidentBook
from tablewatch.cli import cli
from tablewatch.events import HandStarted
from tests.alerts.helpers import Collector, violation
from tests.alerts.test_publisher import make_publisher
from tests.support.mosquitto import Mosquitto, free_port, needs_mosquitto

CTX = pl.Context(site="casino", table="T09", session="s", epoch=1_800_000_000.0)


def alert_message(n: int, **kwargs: object) -> bytes:
    return json.dumps(pl.alert_payload(CTX, violation(n, table="T09"), **kwargs)).encode()  # type: ignore[arg-type]


def test_board_keeps_the_newest_revision_and_drops_repeats() -> None:
    board = FloorBoard()
    board.apply("tablewatch/casino/T09/status", b"online")
    board.apply("tablewatch/casino/T09/alert", alert_message(1))
    board.apply("tablewatch/casino/T09/alert", alert_message(2))
    board.apply("tablewatch/casino/T09/alert", alert_message(1, change="end", revision=1, acknowledged_by="bo"))
    board.apply("tablewatch/casino/T09/alert", alert_message(1))  # an old revision, replayed: ignored
    board.apply("tablewatch/casino/T09/alert", b"{not json")
    assert board.rejected == 1 and board.seen.repeats == 1
    ordered = board.ordered()
    assert [(a["observed"][-3:], a["status"]) for a in ordered] == [("#2)", "open"), ("#1)", "acknowledged")]
    assert board.find("1") is ordered[0] and board.find(ordered[1]["id"][:8]) is ordered[1]
    with pytest.raises(KeyError, match="no single alert matches 'zz'"):
        board.find("zz")
    assert board.tables["casino/T09"].status == "online"
    with pytest.raises(ValueError, match="not a tablewatch topic"):
        board.apply("other/topic", b"x")


def test_floor_once_shows_tables_and_open_alerts(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    publisher = make_publisher(tmp_path, mqtt_broker.url, table="T07").start()
    publisher.publish_event(HandStarted(ts=0.5, table="T07", source="sim", hand_no=1, button=1, seats=(1, 3),
                                        players=((3, "Bo Chan"),)))
    ident = publisher.publish_violation(violation(4, table="T07"))
    assert publisher.link.drain(5)
    result = CliRunner().invoke(cli, ["floor", "--url", mqtt_broker.url, "--once", "--wait", "0.5"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert re.search(r"casino/T07\s*│\s*online", result.output)
    assert "TDA-29" in result.output and "seat 3 put chips out in 2 motions (#4)" in result.output
    assert "3 (Bo Chan)" in result.output  # the seat's player, as the console named him

    acks: list[tuple[str, str]] = []
    publisher.ack_callbacks.append(lambda alert, by: acks.append((alert, by)))
    result = CliRunner().invoke(cli, ["floor", "--url", mqtt_broker.url, "--ack", ident[:10], "--as", "bo",
                                      "--wait", "0.5"])
    assert result.exit_code == 0, result.output
    assert f"acknowledged {ident} as bo" in result.output
    assert publisher.link.drain(5)
    publisher.stop()
    assert acks == [(ident, "bo")]


def test_floor_errors_are_sentences_with_exit_codes(mqtt_broker: Mosquitto) -> None:
    runner = CliRunner()
    bad_url = runner.invoke(cli, ["floor", "--url", "nonsense"])
    assert bad_url.exit_code == 2 and "must look like mqtt://host:1883" in bad_url.output
    down = runner.invoke(cli, ["floor", "--url", f"mqtt://127.0.0.1:{free_port()}", "--once"])
    assert down.exit_code == 1 and "connection refused" in down.output
    unknown = runner.invoke(cli, ["floor", "--url", mqtt_broker.url, "--ack", "al-nothing", "--wait", "0.2"])
    assert unknown.exit_code == 1 and "no single alert matches 'al-nothing'" in unknown.output
    other = runner.invoke(cli, ["floor", "--url", mqtt_broker.url, "--username", "anna", "--as", "bo", "--once"])
    assert other.exit_code == 2 and "acknowledgements go out as the broker user 'anna', not as 'bo'" in other.output


@needs_mosquitto
def test_broker_command_starts_an_embedded_mosquitto_with_the_page(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["broker", "--port", "0", "--duration", "0.5", "--workdir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert re.search(r"broker: mqtt://127\.0\.0\.1:\d+", result.output)
    assert "surveillance page: http://127.0.0.1:" in result.output
    assert (tmp_path / "web" / "index.html").exists() and (tmp_path / "web" / "mqtt.min.js").exists()
    conf = (tmp_path / "mosquitto.conf").read_text()
    assert "protocol websockets" in conf and "log_type subscribe" in conf


def test_broker_command_reports_a_port_in_use(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    result = CliRunner().invoke(cli, ["broker", "--port", str(mqtt_broker.port), "--no-web", "--duration", "0.5",
                                      "--workdir", str(tmp_path)])
    assert result.exit_code == 1 and "mosquitto did not start" in result.output


@needs_mosquitto
def test_bench_mqtt_prints_latency_and_rate() -> None:
    result = CliRunner().invoke(cli, ["bench-mqtt", "--tables", "4", "--seconds", "1", "--alert-rate", "4"])
    assert result.exit_code == 0, result.output
    assert re.search(r"alerts: (\d+) sent, \1 received \(0 missing\)", result.output)
    assert re.search(r"alert latency: median [\d.]+ ms, p99 [\d.]+ ms", result.output)
    assert re.search(r"messages received: \d+ \(\d+ messages/s\)", result.output)


@needs_mosquitto
def test_broker_command_with_a_bad_config_says_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conf"
    bad.write_text("listener not-a-port\n")
    result = CliRunner().invoke(cli, ["broker", "--config", str(bad), "--duration", "5"])
    assert result.exit_code == 1
    assert re.search(rf"mosquitto exited with status \d+ \(config {re.escape(str(bad))}\)", result.output)


def test_floor_skips_what_its_schema_refuses_and_shows_text_as_text(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    """A retained malformed alert, rich markup in an alert's text, junk on every topic: the console starts (and
    starts again) and says how many messages it skipped."""
    base = "tablewatch/casino/T10"
    marked = pl.alert_payload(CTX, dataclasses.replace(violation(1, table="T10"), observed="seat 3 [/bold] [red]x"))
    no_seats = {k: v for k, v in pl.alert_payload(CTX, violation(2, table="T10")).items() if k != "seats"}
    hostile = [(f"{base}/alerts", {"schema": "tablewatch/alerts/1", "alerts": [no_seats]}, True),
               (f"{base}/state", {"schema": "tablewatch/state/1", "hand_no": "x"}, True),
               (f"{base}/status", "pwned", True), (f"{base}/alert", no_seats, False),
               (f"{base}/alert", b"\xff\xfe not json", False),
               ("tablewatch/casino/T11/alerts", pl.open_alerts_payload(CTX, seq=1, alerts=[marked], now=0.0), True)]
    client = make_client(BrokerConfig(url=mqtt_broker.url), "hostile-publisher")
    connect(client, BrokerConfig(url=mqtt_broker.url))
    board = FloorBoard()
    try:
        for topic, body, retain in hostile:
            data = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body)
            client.publish(topic, data, qos=1, retain=retain).wait_for_publish(5)
            board.apply(topic, data if isinstance(data, bytes) else data.encode())
        assert board.rejected == 5 and list(board.alerts) == [marked["id"]]
        for start in ("first", "again"):  # the retained ones come back at every start
            result = CliRunner().invoke(cli, ["floor", "--url", mqtt_broker.url, "--site", "casino", "--once",
                                              "--wait", "0.5"], env={"COLUMNS": "250"})
            assert result.exit_code == 0, (start, result.output)
            assert "seat 3 [/bold] [red]x" in result.output
            assert re.search(r"\d+ malformed message\(s\) skipped", result.output)
    finally:
        for topic, _, retain in hostile:
            if retain:
                client.publish(topic, b"", qos=1, retain=True).wait_for_publish(5)  # (clears the retained message)
        client.disconnect()
        client.loop_stop()


def test_the_board_shows_incidents_rings_once_each_and_finds_them_by_row() -> None:
    board = FloorBoard()
    book = IncidentBook(CTX)
    first = book.add(pl.alert_payload(CTX, violation(1, table="T09")))
    repeat = book.add(pl.alert_payload(CTX, violation(2, table="T09")))  # the same rule, hand and seat
    other = book.add(pl.alert_payload(CTX, violation(3, table="T09", hand_no=2)))
    snapshot = pl.open_incidents_payload(CTX, seq=1, incidents=[first], now=0.0)
    board.apply("tablewatch/casino/T09/incidents", json.dumps(snapshot).encode())  # retained: no ring
    for body in (first, repeat, repeat, other):
        board.apply("tablewatch/casino/T09/incident", json.dumps(body).encode())
    assert board.rings == 1  # the first came retained (no ring), then live (a repeat id: dropped); other rang
    assert [i["count"] for i in board.ordered_incidents()] == [1, 2]
    assert board.find_incident("1")["id"] == other["id"] and board.find_incident(first["id"][:9])["id"] == first["id"]
    assert board.loose_alerts() == []
    text = Console(width=220, record=True)
    text.print(render(board))
    assert "Incidents" in text.export_text() and "Alerts outside incidents" not in text.export_text()


def test_the_floor_reviews_and_mutes_from_the_terminal(tmp_path: Path, mqtt_broker: Mosquitto) -> None:
    publisher = make_publisher(tmp_path, mqtt_broker.url, table="T12").start()
    publisher.publish_violation(violation(1, table="T12"))
    assert publisher.link.drain(5)
    console = FloorConsole(BrokerConfig(url=mqtt_broker.url), by="bo").start()
    try:
        with Collector(BrokerConfig(url=mqtt_broker.url), ["tablewatch/casino/T12/#"]) as sub:
            sub.wait(lambda: "casino/T12" in console.board.switches and any(
                i["table"] == "T12" for i in console.board.incidents.values()), 10, "the console to see the table")
            key = next(i["id"] for i in console.board.incidents.values() if i["table"] == "T12")[:10]
            assert command(console, f"{key} watching seat 3").startswith("acknowledged in-")
            assert command(console, f"d {key}") == "a dismissal needs a reason: d ROW REASON"
            assert command(console, "x 99") == "no single incident matches '99' (0 match)"
            assert command(console, "mute casino/T12 TDA-29 x") == "minutes must be a number, not 'x'"
            assert command(console, "mute casino/T12 TDA-29 30") == "casino/T12 TDA-29: muted for 30 min"
            assert command(console, "off casino/T99").startswith("no table 'casino/T99' seen")
            assert command(console, "fly away") == "not a command: 'fly away' (type help)"
            assert "dismiss as false" in command(console, "help")
            sub.wait(lambda: any(m.json()["rules"] for m in sub.on("/alerting/state")), 10, "the muted rule")
            sub.wait(lambda: any(m.json()["state"] == "acknowledged" for m in sub.on("/incident")), 10, "the ack")
            assert command(console, f"d {key} dealer tidying chips").startswith("dismiss: in-")
            sub.wait(lambda: any(m.json()["state"] == "dismissed" for m in sub.on("/incident")), 10, "the dismissal")
        publisher.stop()
        last = [m.json() for m in sub.on("/incident")][-1]
        assert [(r["action"], r["by"], r["note"]) for r in last["reviews"]] == [
            ("acknowledge", "bo", "watching seat 3"), ("dismiss", "bo", "dealer tidying chips")]
    finally:
        console.stop()
