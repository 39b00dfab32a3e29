"""The surveillance page in headless Chromium, fed live over MQTT-over-WebSockets by an embedded mosquitto."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.broker import start_broker
from tablewatch.alerts.bundle import ExportConfig
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.connection import connect, make_client
from tablewatch.alerts.evidence import EvidenceConfig, EvidenceRecorder
from tablewatch.alerts.incidents import IncidentBook
from tablewatch.alerts.publisher import Publisher
from tablewatch.alerts.web import EVIDENCE_URL, SCHEMAS
from tablewatch.cli import cli
from tablewatch.events import BoardCardDealt, HandStarted, PotGathered, Violation
from tests.alerts.helpers import validate
from tests.alerts.scenes import felt_frame, hidden_chips, string_raise
from tests.alerts.webdriver import Browser, chromium_missing
from tests.history.test_stats import an_evening

FPS = 10


def table_publisher(tmp_path: Path, url: str, table: str, web_dir: Path, *, epoch: float | None = None,
                    broker: BrokerConfig | None = None) -> Publisher:
    recorder = EvidenceRecorder(EvidenceConfig(folder=web_dir / EVIDENCE_URL / table, before_s=1.0, after_s=0.3,
                                               url_base=f"{EVIDENCE_URL}/{table}",
                                               export=ExportConfig(folder=tmp_path / "cases")))
    config = PublisherConfig(site="casino", table=table, broker=broker or BrokerConfig(url=url),
                             outbox=OutboxConfig(path=tmp_path / f"{table}.sqlite"))
    return Publisher(config, recorder=recorder, epoch=epoch).start()


def feed_frames(publishers: dict[str, Publisher], raised: list[tuple[Publisher, Violation]], frames: int = 25) -> None:
    """``frames`` overhead frames at FPS to every table's recorder, each violation published at its time: a still
    now, and a clip once its "after" seconds are recorded."""
    for i in range(frames):
        for table, publisher in publishers.items():
            frame, box = felt_frame(i / FPS + (0.7 if table == "T02" else 0))
            assert publisher.recorder is not None
            publisher.recorder.add_frame("overhead", i / FPS, frame, [box])
        for publisher, violation in [r for r in raised if abs(r[1].ts - i / FPS) < 1e-6]:
            publisher.publish_violation(violation)
    for publisher in publishers.values():
        assert publisher.link.drain(10)


def cards(browser: Browser, what: str = "e.dataset.table") -> list[object]:
    """``what`` of each incident card shown, top to bottom (``e`` is the card)."""
    return list(browser.js(f"return [...document.querySelectorAll('[data-testid=incident]')].map(e => {what})"))


def set_filter(browser: Browser, name: str, value: str | bool) -> None:
    prop = "checked" if isinstance(value, bool) else "value"
    browser.js(f"const s = document.getElementById('filter-{name}'); s.{prop} = arguments[0];"
               "s.dispatchEvent(new Event('change'))", value)


@pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")
def test_surveillance_page_shows_incidents_evidence_and_tables(tmp_path: Path) -> None:
    """Two alerts of one rule in one hand are one incident; the still loads and the clip plays; the tables show
    their live hand; the filters hide and show; a page opened late rings for nothing (the retained snapshot)."""
    broker = start_broker(tmp_path / "broker")
    web_dir = broker.setup.http_dir
    assert web_dir is not None and broker.web_url is not None
    two_hours_ago = time.time() - 7200  # T02's session started two hours ago: its incident is old
    publishers = {t: table_publisher(tmp_path, broker.url, t, web_dir, epoch=two_hours_ago if t == "T02" else None)
                  for t in ("T01", "T02", "T03")}
    browser = None
    try:
        for publisher in publishers.values():
            assert publisher.wait_connected(5)
        publishers.pop("T03").stop()  # a table whose monitor went away: offline
        for table, publisher in publishers.items():
            named = ((3, "Bo Chan"), (8, "Ann Lee")) if table == "T01" else ()  # as the console named them
            publisher.publish_event(HandStarted(ts=0.0, table=table, source="sim", hand_no=12 if table == "T01" else 7,
                                                button=1, seats=(1, 3, 6, 8), players=named))
        for slot, card in enumerate(["As", "Kd", "7h"]):
            publishers["T01"].publish_event(BoardCardDealt(ts=0.1, table="T01", source="sim", card=card, slot=slot))
        publishers["T01"].publish_event(PotGathered(ts=0.2, table="T01", source="sim", value=1500))
        feed_frames(publishers, [(publishers["T01"], string_raise(1.5, table="T01", hand_no=12)),
                                 (publishers["T02"], hidden_chips(1.6, table="T02", hand_no=7)),
                                 (publishers["T01"], string_raise(1.7, table="T01", hand_no=12, seat=8))])

        (web_dir / "groups.json").write_text(json.dumps({"Pit 2": ["casino/T02", "casino/T09"]}))
        browser = Browser(tmp_path)
        browser.get(broker.web_url)
        browser.wait_js("return document.querySelectorAll('[data-testid=incident] video[data-testid=clip]').length"
                        " === 2")
        assert cards(browser) == ["casino/T01", "casino/T02"]  # newest first
        assert cards(browser, "e.querySelector('[data-testid=count]').textContent") == [" · 2 alerts", " · 1 alert"]
        t01 = "document.querySelector('[data-testid=incident][data-table=\"casino/T01\"]')"
        assert browser.js(f"return {t01}.querySelector('[data-testid=seats]').textContent") == (
            "seats 3 (Bo Chan), 8 (Ann Lee)")
        details = browser.js(f"return [...{t01}.querySelectorAll('[data-testid=incident-alert]')]"
                             ".map(e => e.textContent)")
        assert len(details) == 2 and all(" · TDA-29 · " in d and "over the line" in d for d in details)
        assert browser.wait_js("return [...document.querySelectorAll('[data-testid=still]')]"
                               ".every(i => i.complete && i.naturalWidth === 640)")
        browser.js(f"const v = {t01}.querySelector('video'); v.muted = true; v.play()")
        assert browser.wait_js(f"return {t01}.querySelector('video').currentTime > 0.2")  # the clip plays
        assert browser.js("return [document.body.dataset.rings, document.title]") == ["0", "tablewatch — surveillance"]

        statuses = browser.js("return Object.fromEntries([...document.querySelectorAll('[data-testid=table]')]"
                              ".map(e => [e.dataset.table, e.dataset.status]))")
        assert statuses == {"casino/T01": "online", "casino/T02": "online", "casino/T03": "offline"}
        grid = "document.querySelector('[data-testid=table][data-table=\"casino/T01\"]')"
        assert browser.js(f"return {grid}.querySelector('.players').textContent") == "seats 3 (Bo Chan), 8 (Ann Lee)"
        assert browser.js(f"return {grid}.querySelector('[data-testid=board]').textContent") == "board A♠K♦7♥"
        assert browser.js(f"return {grid}.querySelector('[data-testid=detail]').textContent") == (
            "hand 12 · flop · button 1 · pot 1,500")
        assert "live" in browser.js("return document.getElementById('link').textContent")
        browser.js("document.querySelectorAll('video').forEach(v => { v.muted = true; v.play(); })")
        browser.wait_js("return [...document.querySelectorAll('video')].every(v => v.ended)")  # a still frame to show
        browser.js(f"{t01}.querySelector('details').open = true")  # the incident's alerts, in the screenshot
        browser.screenshot(tmp_path / "surveillance.png")
        assert (tmp_path / "surveillance.png").stat().st_size > 10_000

        for name, value, shown in [("table", "casino/T02", ["casino/T02"]), ("table", "", ["casino/T01", "casino/T02"]),
                                   ("rule", "TDA-29", ["casino/T01"]), ("rule", "", None),
                                   ("severity", "advisory", ["casino/T02"]), ("severity", "", None),
                                   ("seat", "8", ["casino/T01"]), ("seat", "5", []), ("seat", "", None),
                                   ("since", "3600", ["casino/T01"]), ("since", "14400", ["casino/T01", "casino/T02"]),
                                   ("state", "acknowledged", []), ("state", "open", ["casino/T01", "casino/T02"])]:
            set_filter(browser, name, value)
            assert cards(browser) == (shown if shown is not None else ["casino/T01", "casino/T02"]), (name, value)

        tables_shown = "return [...document.querySelectorAll('[data-testid=table]')].map(e => e.dataset.table)"
        set_filter(browser, "state", "")
        set_filter(browser, "group", "group:Pit 2")  # a table group (groups.json beside the page): its incidents
        assert cards(browser) == ["casino/T02"] and browser.js(tables_shown) == ["casino/T02"]  # and its tables
        set_filter(browser, "group", "site:casino")  # every site is a group of its own
        assert cards(browser) == ["casino/T01", "casino/T02"] and len(browser.js(tables_shown)) == 3
        set_filter(browser, "group", "")
        (web_dir / "groups.json").write_text(json.dumps({"Pit 2": ["casino/T02", "<img src=x>"]}))
        browser.js("loadGroups()")  # (read again every minute) a hostile file is refused whole, and said so
        assert "groups.json refused" in browser.wait_js("return document.getElementById('groups-note').textContent")
        assert browser.js("return document.getElementById('count').textContent") == "2 of 2 incident(s)"
        assert browser.js("return document.getElementById('muted-box').hidden") is True
        set_filter(browser, "muted", True)
        assert browser.js("return [document.getElementById('muted-box').hidden, "
                          "document.querySelectorAll('[data-testid=muted-alert]').length]") == [False, 0]
        assert [e for e in browser.errors() if "404 (Not Found)" not in e] == []  # stats.json, favicon.ico: none yet
    finally:
        if browser is not None:
            browser.close()
        for publisher in publishers.values():
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
    """Junk, an alert without seats, a retained malformed snapshot, an incident or a state naming another table than
    its topic's: skipped and counted, the page goes on. A javascript: clip or still is not linked or played, markup in
    an alert's, an incident's or a hand's text is shown as text."""
    broker = start_broker(tmp_path / "broker")
    assert broker.web_url is not None
    ctx = pl.Context(site="casino", table="T01", session="s", epoch=time.time())
    attack = "javascript:document.title='pwned'"
    hostile = dataclasses.replace(string_raise(1.0, table="T01"), title="<b>bold</b>",
                                  observed="seat 3 <img src=x onerror=\"document.title='xss'\">")
    evil = pl.alert_payload(ctx, hostile, evidence=pl.Evidence(still_url=attack, clip_url=attack, clip_ready=True))
    evil_incident = IncidentBook(ctx).add(evil)
    plain = pl.alert_payload(dataclasses.replace(ctx, table="T02"), hidden_chips(2.0, table="T02"))
    no_seats = {k: v for k, v in plain.items() if k != "seats"}
    no_state = {k: v for k, v in evil_incident.items() if k != "state"}
    hand = pl.hand_payload(ctx, hand_no=12, started_ts=0.0, ended_ts=5.0, summary={"pot": "<i>4200</i>"}, alert_ids=[],
                           phh="variant = 'NT'\n# <script>document.title='phh'</script>")
    client = make_client(BrokerConfig(url=broker.url), "hostile-web")
    connect(client, BrokerConfig(url=broker.url))
    browser = None
    try:
        client.publish("tablewatch/casino/T03/alerts", json.dumps({"schema": "tablewatch/alerts/1"}), qos=1,
                       retain=True).wait_for_publish(5)
        browser = Browser(tmp_path)
        browser.get(broker.web_url)
        browser.wait_js("return document.getElementById('link').textContent.startsWith('live')")
        for topic, body in [("T02/alert", json.dumps(no_seats)), ("T01/alert", "not json"), ("T01/status", "pwned"),
                            ("T01/alert", json.dumps(evil)), ("T02/alert", json.dumps(plain)),
                            ("T02/incident", json.dumps(evil_incident)),  # T01's incident on T02's topic
                            ("T01/incident", json.dumps(no_state)), ("T01/alerting/state", json.dumps({"rules": 1})),
                            ("T01/incident", json.dumps(evil_incident)), ("T01/hand", json.dumps(hand))]:
            client.publish(f"tablewatch/casino/{topic}", body, qos=1).wait_for_publish(5)
        browser.wait_js("return document.querySelectorAll('[data-testid=incident]').length === 1 && "
                        "document.querySelectorAll('[data-testid=alert]').length === 1")  # T02's alert: no incident
        browser.wait_js("return document.getElementById('skipped').textContent === '7 malformed message(s) skipped'")
        card = f"document.querySelector('[data-id=\"{evil_incident['id']}\"]')"
        assert browser.js(f"return {card}.querySelectorAll('a, img, video, b, script').length") == 0
        assert "<img src=x onerror=" in browser.js(f"return {card}.querySelector('.observed').textContent")
        assert "<b>bold</b>" in browser.js(f"return {card}.querySelector('.rule').textContent")
        assert browser.js(f"return [...{card}.querySelectorAll('.media .meta')].map(e => e.textContent)") == [
            "still refused: not an http(s) URL", "clip refused: not an http(s) URL"]
        browser.js(f"{card}.querySelector('[data-testid=hand-link]').click()")
        browser.wait_js("return document.getElementById('hand-phh').textContent.includes('<script>')")
        assert browser.js("return document.querySelector('[data-testid=hand-summary]').textContent") == (
            'summary {"pot":"<i>4200</i>"}')
        assert browser.js("return document.querySelectorAll('#hand script, #hand i').length") == 0
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
