"""The surveillance page watching a demo session as it happens: ``tablewatch demo``'s recorded hands played through
``run_table`` to a real mosquitto, the page open in headless Chromium meanwhile. The incidents come with their
evidence; each table shows its last hand on a time line; the hand view plays the hand's recording from the moment
of each action and alert.

Set TABLEWATCH_SCREENSHOTS=docs to refresh the README's screenshots (surveillance.png, surveillance-hand.png) from
this test.
"""

from __future__ import annotations

import io
import os
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from tablewatch.alerts.broker import start_broker
from tablewatch.bench.demo import run_demo
from tablewatch.bench.scenarios import DEMO_HANDS
from tests.alerts.webdriver import Browser, chromium_missing
from tests.support.mosquitto import needs_mosquitto

pytestmark = [needs_mosquitto, pytest.mark.slow,
              pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")]

DEMO_CAP_S = 900  # the demo ends on its own; this only stops one that hangs (a busy machine plays slowly)
HAND_VIEW = "document.getElementById('hand')"


def test_the_page_follows_a_demo_session_and_plays_each_hand_at_each_step(tmp_path: Path) -> None:
    broker = start_broker(tmp_path / "broker")
    browser = Browser(tmp_path)
    try:
        assert broker.web_url is not None
        browser.get(broker.web_url)
        browser.wait_js("return document.getElementById('link').textContent.includes('live')", 30)
        result: dict[str, Any] = {}
        demo = threading.Thread(target=lambda: result.update(score=run_demo(
            DEMO_HANDS, hands=2, seed=1, out=tmp_path / "demo", mqtt_url=broker.url, broker=False,
            console=Console(file=io.StringIO()), web_dir=broker.setup.http_dir)))
        demo.start()
        demo.join(DEMO_CAP_S)
        assert not demo.is_alive() and "score" in result, "the demo did not end"
        browser.wait_js("return document.querySelectorAll('[data-testid=incident] video[data-testid=clip]').length"
                        " >= 2", 60)
        browser.wait_js("return document.querySelectorAll('[data-testid=table-timeline]').length === 1", 30)
        shown = browser.js("const h = [...hands.values()].at(-1); return [h.hand_no, h.summary.actions.length, "
                           "h.alerts.length, h.clip.from_ts, h.clip.to_ts]")
        hand_no, actions, raised, from_ts, to_ts = shown
        assert hand_no == 2 and actions > 4 and raised >= 1 and to_ts - from_ts > 10

        browser.js("document.querySelector('[data-testid=table] .last-hand button').click()")
        browser.wait_js(f"return !{HAND_VIEW}.hidden && document.querySelector('[data-testid=hand-video]')"
                        ".readyState >= 1", 30)
        duration = browser.js("return document.querySelector('[data-testid=hand-video]').duration")
        assert duration == pytest.approx(to_ts - from_ts, abs=0.6)  # the recording spans the hand
        assert browser.js("return document.querySelectorAll('#hand-timeline [data-testid=action-mark]').length") == (
            actions)
        assert browser.js("return document.querySelectorAll('#hand-timeline [data-testid=alert-mark]').length") == (
            raised)
        steps = browser.js("return [...document.querySelectorAll('[data-testid=step]')].map(e => [e.className, "
                           "Number(e.dataset.ts), e.textContent])")
        assert len(steps) == actions + raised and [s[1] for s in steps] == sorted(s[1] for s in steps)
        assert any("preflop" in text and "seat" in text for _, _, text in steps)
        violation = next(i for i, (cls, _, _) in enumerate(steps) if cls != "step")  # the alert's step
        at = steps[violation][1] - from_ts - 1.0  # played from a second before the alert
        browser.js(f"document.querySelectorAll('[data-testid=step]')[{violation}].querySelector('button').click()")
        browser.wait_js("const v = document.querySelector('[data-testid=hand-video]'); "
                        f"return !v.seeking && v.currentTime >= {at - 0.3}", 30)
        played = browser.js("return document.querySelector('[data-testid=hand-video]').currentTime")
        assert at - 0.3 <= played <= at + 5  # there, and playing on
        absent = r"/(favicon\.ico|stats\.json|groups\.json) .*404"
        unexpected = [e for e in browser.errors() if not re.search(absent, e)]
        assert unexpected == []  # (statistics and table groups: none put beside this page)
        if shots := os.environ.get("TABLEWATCH_SCREENSHOTS"):
            browser.js("document.querySelector('[data-testid=hand-video]').pause()")
            browser.js(f"{HAND_VIEW}.scrollIntoView()")
            browser.screenshot(Path(shots) / "surveillance-hand.png")
            browser.js("document.getElementById('hand-close').click(); window.scrollTo(0, 0)")
            browser.screenshot(Path(shots) / "surveillance.png")
    finally:
        browser.close()
        broker.stop()
