"""The surveillance page at the centre: pointed at a central NATS node's MQTT-over-WebSocket (MQTT 3.1.1 only:
``mqtt=3.1.1`` in its address), it shows a pit's incident, and its review goes back through the pit's bridge to
the table, whose answer comes back to the page."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tablewatch.alerts.web import stage_console
from tablewatch.central.cluster import CentralCluster
from tests.alerts.helpers import violation
from tests.alerts.webdriver import Browser, chromium_missing
from tests.central.room import new_site, pit_broker, tables


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(root: Path) -> Iterator[str]:
    """The staged page over plain HTTP on loopback (at the centre, `tablewatch web` serves it behind a login)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")
def test_the_page_at_the_centre_reviews_a_pits_incident(tmp_path: Path, central: CentralCluster) -> None:
    site = new_site()
    pit = pit_broker(tmp_path / site, site=site, addresses=central.mqtt_addresses, name=site).start()
    publisher = tables(tmp_path, pit, site, 1)[0]
    browser = None
    try:
        with serve(stage_console(tmp_path / "web")) as page:
            browser = Browser(tmp_path)
            browser.get(f"{page}?ws={central.ws_urls[2]}&mqtt=3.1.1&site={site}")
            browser.wait_js("return document.getElementById('link').textContent.startsWith('live')", timeout=20)
            publisher.publish_violation(violation(1))
            card = "document.querySelector('[data-testid=incident]')"
            browser.wait_js(f"return {card} !== null", timeout=30)
            assert browser.js(f"return {card}.dataset.table") == f"{site}/T01"
            browser.js(f"{card}.querySelector('[data-testid=note]').value = 'seen at the centre';"
                       f"{card}.querySelector('[data-testid=do-acknowledge]').click()")
            browser.wait_js(f"return {card}.dataset.state === 'acknowledged'", timeout=30)
            assert "“seen at the centre”" in browser.js(f"return {card}.querySelector('[data-testid=review]')"
                                                        ".textContent")
    finally:
        if browser is not None:
            browser.close()
        publisher.stop()
        pit.stop()
