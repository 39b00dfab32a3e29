"""The surveillance page in headless Chromium, fed live over MQTT-over-WebSockets by an embedded mosquitto.

Set TABLEWATCH_SCREENSHOT=docs/surveillance.png to refresh the README's screenshot from this test.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.broker import start_broker
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.connection import connect, make_client
from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.alerts.publisher import Publisher
from tablewatch.alerts.web import EVIDENCE_URL, SCHEMAS
from tablewatch.cli import cli
from tablewatch.events import HandStarted
from tests.alerts.helpers import validate
from tests.alerts.scenes import felt_frame, hidden_chips, string_raise
from tests.alerts.webdriver import Browser, chromium_missing
from tests.history.test_stats import an_evening

FPS = 10


def table_publisher(tmp_path: Path, url: str, table: str, web_dir: Path) -> Publisher:
    recorder = EvidenceRecorder(EvidenceConfig(folder=web_dir / EVIDENCE_URL / table, before_s=1.0, after_s=0.3,
                                               url_base=f"{EVIDENCE_URL}/{table}"))
    config = PublisherConfig(site="casino", table=table, broker=BrokerConfig(url=url),
                             outbox=OutboxConfig(path=tmp_path / f"{table}.sqlite"))
    return Publisher(config, recorder=recorder).start()


@pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")
def test_surveillance_page_shows_live_alerts_evidence_and_tables(tmp_path: Path) -> None:
    broker = start_broker(tmp_path / "broker")
    web_dir = broker.setup.http_dir
    assert web_dir is not None and broker.web_url is not None
    publishers = {t: table_publisher(tmp_path, broker.url, t, web_dir) for t in ("T01", "T02", "T03")}
    browser = None
    try:
        for publisher in publishers.values():
            assert publisher.wait_connected(5)
        publishers["T03"].stop()  # a table whose monitor went away: offline
        raised = [(publishers["T01"], string_raise(1.5, table="T01", hand_no=12)),
                  (publishers["T02"], hidden_chips(1.6, table="T02", hand_no=7)),
                  (publishers["T01"], string_raise(1.7, table="T01", hand_no=12, seat=8))]
        for table, publisher in list(publishers.items())[:2]:
            named = ((3, "Bo Chan"), (8, "Ann Lee")) if table == "T01" else ()  # as the console named them
            publisher.publish_event(HandStarted(ts=0.0, table=table, source="sim", hand_no=12 if table == "T01" else 7,
                                                button=1, seats=(1, 3, 6, 8), players=named))
        for i in range(25):
            for table, publisher in list(publishers.items())[:2]:
                frame, box = felt_frame(i / FPS + (0.7 if table == "T02" else 0))
                assert publisher.recorder is not None
                publisher.recorder.add_frame("overhead", i / FPS, frame, [box])
            for publisher, violation in [r for r in raised if abs(r[1].ts - i / FPS) < 1e-6]:
                publisher.publish_violation(violation)
        for publisher in list(publishers.values())[:2]:
            assert publisher.link.drain(10)

        browser = Browser(tmp_path)
        browser.get(broker.web_url)
        browser.wait_js("return document.querySelectorAll('[data-testid=alert]').length === 3")
        browser.wait_js("return [...document.querySelectorAll('[data-testid=clip]')].length === 3")
        statuses = browser.js("return Object.fromEntries([...document.querySelectorAll('[data-testid=table]')]"
                              ".map(e => [e.dataset.table, e.dataset.status]))")
        assert statuses == {"casino/T01": "online", "casino/T02": "online", "casino/T03": "offline"}
        assert browser.wait_js("return [...document.querySelectorAll('[data-testid=alert] img')]"
                               ".every(i => i.complete && i.naturalWidth === 640)")
        assert "live" in browser.js("return document.getElementById('link').textContent")
        seats_shown = browser.js("return [...document.querySelectorAll('[data-table=\"casino/T01\"] .meta')]"
                                 ".map(e => e.textContent).filter(t => t.includes('seats'))")
        assert sorted(t.split(" · ")[3] for t in seats_shown) == ["seats 3 (Bo Chan)", "seats 8 (Ann Lee)"]
        assert browser.js("return document.querySelector('[data-testid=table][data-table=\"casino/T01\"] .players')"
                          ".textContent") == "seats 3 (Bo Chan), 8 (Ann Lee)"
        if shot := os.environ.get("TABLEWATCH_SCREENSHOT"):
            browser.screenshot(Path(shot))
        browser.screenshot(tmp_path / "surveillance.png")
        assert (tmp_path / "surveillance.png").stat().st_size > 10_000

        browser.js("const s = document.getElementById('filter-table'); s.value = 'casino/T02';"
                   "s.dispatchEvent(new Event('change'))")
        assert browser.js("return [...document.querySelectorAll('[data-testid=alert]')].map(e => e.dataset.rule)") == [
            "TDA-49"]
        browser.js("const s = document.getElementById('filter-table'); s.value = '';"
                   "const r = document.getElementById('filter-rule'); r.value = 'TDA-29';"
                   "r.dispatchEvent(new Event('change'))")
        assert browser.js("return document.querySelectorAll('[data-testid=alert]').length") == 2

        acknowledged: list[tuple[str, str]] = []
        publishers["T02"].ack_callbacks.append(lambda alert, by: acknowledged.append((alert, by)))
        browser.js("const r = document.getElementById('filter-rule'); r.value = '';"
                   "r.dispatchEvent(new Event('change'));"
                   "document.querySelector('[data-table=\"casino/T02\"] button').click()")
        browser.wait_js("return document.querySelector('[data-testid=alert][data-table=\"casino/T02\"]')"
                        ".textContent.includes('acknowledged by surveillance')")
        assert [by for _, by in acknowledged] == ["surveillance"]
    finally:
        if browser is not None:
            browser.close()
        for table, publisher in publishers.items():
            if table != "T03":
                publisher.stop()
        broker.stop()


def schema_keywords(schema: object) -> set[str]:
    """Every keyword a schema uses (property names under ``properties`` are not keywords)."""
    if isinstance(schema, list):
        return set().union(*map(schema_keywords, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        children = value.values() if key == "properties" else [value]
        found |= set().union(*map(schema_keywords, children)) if children else set()
    return found


def test_the_page_checks_every_keyword_the_shipped_schemas_use() -> None:
    script = (Path(pl.__file__).parent / "static" / "schema.js").read_text()
    listed = set(json.loads(re.search(r"SCHEMA_KEYWORDS = (\[.*?\]);", script, re.S).group(1)))  # type: ignore[union-attr]
    used = set().union(*(schema_keywords(pl.load_schema(name)) for name in SCHEMAS))
    assert used - listed == set()


@pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")
def test_the_page_skips_bad_payloads_and_runs_nothing_they_carry(tmp_path: Path) -> None:
    """Junk, an alert without seats, a retained malformed snapshot: skipped and counted, the page goes on. A
    javascript: clip or still is not linked, markup in an alert's text is shown as text."""
    broker = start_broker(tmp_path / "broker")
    assert broker.web_url is not None
    ctx = pl.Context(site="casino", table="T01", session="s", epoch=1_800_000_000.0)
    attack = "javascript:document.title='pwned'"
    hostile = dataclasses.replace(string_raise(1.0, table="T01"), title="<b>bold</b>",
                                  observed="seat 3 <img src=x onerror=\"document.title='xss'\">")
    evil = pl.alert_payload(ctx, hostile, evidence=pl.Evidence(still_url=attack, clip_url=attack, clip_ready=True))
    plain = pl.alert_payload(ctx, hidden_chips(2.0, table="T02"))
    no_seats = {k: v for k, v in plain.items() if k != "seats"}
    client = make_client(BrokerConfig(url=broker.url), "hostile-web")
    connect(client, BrokerConfig(url=broker.url))
    browser = None
    try:
        client.publish("tablewatch/casino/T03/alerts", json.dumps({"schema": "tablewatch/alerts/1"}), qos=1,
                       retain=True).wait_for_publish(5)
        browser = Browser(tmp_path)
        browser.get(broker.web_url)
        browser.wait_js("return document.getElementById('link').textContent.startsWith('live')")
        for topic, body in [("T01/alert", json.dumps(no_seats)), ("T01/alert", "not json"), ("T01/status", "pwned"),
                            ("T01/alert", json.dumps(evil)), ("T02/alert", json.dumps(plain))]:
            client.publish(f"tablewatch/casino/{topic}", body, qos=1).wait_for_publish(5)
        browser.wait_js("return document.querySelectorAll('[data-testid=alert]').length === 2")
        assert browser.js("return document.getElementById('skipped').textContent") == (
            "4 malformed message(s) skipped")
        card = f"document.querySelector('[data-id=\"{evil['id']}\"]')"
        assert browser.js(f"return {card}.querySelectorAll('a, img, b').length") == 0
        assert "<img src=x onerror=" in browser.js(f"return {card}.querySelector('.observed').textContent")
        assert "<b>bold</b>" in browser.js(f"return {card}.querySelector('.rule').textContent")
        assert browser.js("return document.title") == "tablewatch — surveillance"
    finally:
        client.publish("tablewatch/casino/T03/alerts", b"", qos=1, retain=True).wait_for_publish(5)
        client.disconnect()
        client.loop_stop()
        if browser is not None:
            browser.close()
        broker.stop()


@pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")
def test_the_page_shows_the_rooms_statistics_and_refuses_a_bad_file(tmp_path: Path) -> None:
    """`tablewatch stats --web` writes stats.json beside the page: per table, dealer and shift. A file its schema
    refuses is named and the last good figures stay; markup in a name is shown as text."""
    broker = start_broker(tmp_path / "broker")
    web_dir = broker.setup.http_dir
    assert web_dir is not None and broker.web_url is not None
    an_evening(tmp_path / "hands.sqlite")
    browser = None
    try:
        browser = Browser(tmp_path)
        browser.get(broker.web_url)
        browser.wait_js("return document.getElementById('stats-body').textContent.includes('No statistics yet')")
        written = CliRunner().invoke(cli, ["stats", str(tmp_path / "hands.sqlite"), "--web", str(web_dir)])
        assert written.exit_code == 0, written.output
        browser.js("loadStats()")
        rows = "return [...document.querySelectorAll('[data-testid=stats-row]')].map(r => r.cells[0].textContent)"
        browser.wait_js(f"{rows}.join() === 'T'")
        browser.js("const by = document.getElementById('stats-by'); by.value = 'dealer'; by.onchange()")
        assert browser.js(rows) == ["Ann", "Bo"]
        figures = json.loads((web_dir / "stats.json").read_text())
        validate("stats", figures)  # as the schema says, checked here as well as by the page
        figures["dealer"][0]["name"] = "<img src=x onerror=\"document.title='xss'\">"
        (web_dir / "stats.json").write_text(json.dumps(figures))
        browser.js("loadStats()")
        browser.wait_js("return document.querySelector('[data-testid=stats-row]').cells[0].textContent"
                        ".startsWith('<img')")
        (web_dir / "stats.json").write_text(json.dumps({**figures, "dealer": [{"name": "Bo", "hands": "many"}]}))
        browser.js("loadStats()")
        browser.wait_js("return document.getElementById('stats-body').textContent.includes('statistics refused')")
        assert len(browser.js(rows)) == 2 and browser.js("return document.title") == "tablewatch — surveillance"
        assert browser.js("return document.querySelectorAll('#stats img').length") == 0
    finally:
        if browser is not None:
            browser.close()
        broker.stop()
