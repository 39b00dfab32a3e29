"""The surveillance page as an incident review tool, in headless Chromium against a real mosquitto fed by real
Publishers: reviews sent from the page and the table's answer shown, a dismissal without a reason refused by the
page, a rule muted from the page, and the sign-in form against a broker with a password file."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewatch.alerts.acl import write_password_file
from tablewatch.alerts.broker import BrokerSetup, EmbeddedBroker, start_broker
from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.publisher import Publisher
from tablewatch.alerts.web import stage_console
from tablewatch.events import HandEnded, HandStarted
from tests.alerts.scenes import string_raise
from tests.alerts.secure_broker import ACL, ROSTER
from tests.alerts.test_web import cards, feed_frames, set_filter, table_publisher
from tests.alerts.webdriver import Browser, chromium_missing

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or "")

CARD = "document.querySelector('[data-testid=incident]')"
GRID = "document.querySelector('[data-testid=table][data-table=\"casino/T01\"]')"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[EmbeddedBroker, Publisher, Browser]]:
    """An anonymous broker serving the page, table T01's publisher (evidence under the page, exports on), and the
    page already open and live: what the table sends from now on comes live, as to a room watching."""
    broker = start_broker(tmp_path / "broker")
    assert broker.setup.http_dir is not None and broker.web_url is not None
    publisher = table_publisher(tmp_path, broker.url, "T01", broker.setup.http_dir)
    browser = None
    try:
        assert publisher.wait_connected(5)
        browser = Browser(tmp_path)
        browser.get(broker.web_url)
        browser.wait_js("return document.getElementById('link').textContent.startsWith('live')")
        publisher.publish_event(HandStarted(ts=0.0, table="T01", source="sim", hand_no=12, button=1, seats=(1, 3, 6, 8),
                                            players=((3, "Bo Chan"),)))
        yield broker, publisher, browser
    finally:
        if browser is not None:
            browser.close()
        publisher.stop()
        broker.stop()


def click(browser: Browser, action: str, note: str | None = None) -> None:
    """Type ``note`` into the incident's note (None: leave it) and press the ``action`` button."""
    if note is not None:
        browser.js(f"const n = {CARD}.querySelector('[data-testid=note]'); n.value = arguments[0];"
                   "n.dispatchEvent(new Event('input'))", note)
    browser.js(f"{CARD}.querySelector('[data-testid=do-{action}]').click()")


def card_text(browser: Browser, testid: str) -> str:
    return str(browser.js(f"const e = {CARD}.querySelector('[data-testid={testid}]'); return e ? e.textContent : ''"))


def test_reviews_from_the_page_come_back_as_the_tables_next_revision(served: tuple[EmbeddedBroker, Publisher,
                                                                                   Browser]) -> None:
    _, publisher, browser = served
    feed_frames({"T01": publisher}, [(publisher, string_raise(1.5, table="T01", hand_no=12)),
                                     (publisher, string_raise(1.7, table="T01", hand_no=12, seat=8))])
    browser.wait_js(f"return {CARD} && {CARD}.querySelector('video[data-testid=clip]') && "
                    f"{CARD}.querySelector('[data-testid=count]').textContent === ' · 2 alerts'")
    ident = browser.js(f"return {CARD}.dataset.id")
    # one ring for the incident: not for its second alert, nor for the clips' revisions
    assert browser.js("return [document.body.dataset.rings, document.title]") == ["1", "(1) tablewatch — surveillance"]
    assert browser.js(f"return {CARD}.classList.contains('flash')")
    browser.js("document.body.click()")  # someone looked
    assert browser.js("return document.title") == "tablewatch — surveillance"

    click(browser, "dismiss", "  ")  # no reason: the page refuses it and sends nothing (had it gone, the table
    # would have refused it and counted it before answering the reviews sent after it: commands_refused stays 0)
    browser.wait_js(f"return {CARD}.querySelector('[data-testid=refusal]').textContent !== ''")
    assert card_text(browser, "refusal") == "A dismissal needs a reason: write it in the note, then Dismiss."
    assert card_text(browser, "pending") == ""

    # acknowledged with a note: the page shows it when the table says so, not before
    sent = browser.js(f"const n = {CARD}.querySelector('[data-testid=note]'); n.value = 'spoke to seat 3';"
                      f"{CARD}.querySelector('[data-testid=do-acknowledge]').click(); render();"
                      f"return [{CARD}.dataset.state, {CARD}.querySelector('[data-testid=pending]').textContent]")
    assert sent == ["open", "acknowledge sent as surveillance, waiting for the table's answer…"]
    browser.wait_js(f"return {CARD}.dataset.state === 'acknowledged'")
    assert card_text(browser, "review").startswith("acknowledged · acknowledge by surveillance: “spoke to seat 3”")
    assert card_text(browser, "pending") == "" and card_text(browser, "refusal") == ""
    assert browser.js(f"return {CARD}.querySelector('[data-testid=note]').value") == ""
    incident = publisher.incidents.get(ident)
    assert incident is not None and incident.state == "acknowledged"
    assert [(r.action, r.by, r.note) for r in incident.reviews] == [("acknowledge", "surveillance", "spoke to seat 3")]

    click(browser, "keep")
    browser.wait_js(f"return {CARD}.querySelector('[data-testid=kept]') !== null")
    click(browser, "export")
    browser.wait_js(f"return {CARD}.querySelectorAll('[data-testid=bundle]').length === 1", timeout=20)
    assert Path(card_text(browser, "bundle")).is_dir()

    # the hand is over: its history is one click away
    publisher.publish_event(HandEnded(ts=3.0, table="T01", source="sim", hand_no=12))
    actions = [{"ts": 1.2, "seat": 3, "street": "flop", "kind": "cbr", "amount": 1500},
               {"ts": 2.0, "seat": 8, "street": "flop", "kind": "f"}]
    publisher.publish_hand(12, phh="variant = 'NT'\nplayers = ['Bo Chan']\n",
                           summary={"winnings": {"3": 700, "8": -700}, "violations": ["TDA-29"], "actions": actions})
    browser.js(f"{CARD}.querySelector('[data-testid=hand-link]').click()")
    browser.wait_js("return document.getElementById('hand-phh').textContent.includes(\"players = ['Bo Chan']\")")
    assert browser.js("return document.getElementById('hand-title').textContent") == "hand 12 · casino/T01"
    assert browser.js("return [...document.getElementById('hand-meta').children].slice(1).map(e => e.textContent)") == [
        "winnings seat 3: 700, seat 8: -700", "rules broken TDA-29"]
    assert browser.js("return [...document.querySelectorAll('[data-testid=step]')].filter(e => e.className === 'step')"
                      ".map(e => e.textContent)") == ["▶ 1.2 s flop seat 3 cbr 1500", "▶ 2.0 s flop seat 8 f"]

    click(browser, "dismiss", "the exposed card was the burn card")
    browser.wait_js(f"return {CARD}.dataset.state === 'dismissed'")
    assert browser.js(f"return {CARD}.querySelector('[data-testid=do-reopen]').hidden") is False
    assert browser.js(f"return {CARD}.querySelector('[data-testid=do-dismiss]').hidden") is True
    reviews = browser.js(f"return [...{CARD}.querySelectorAll('[data-testid=review-entry]')].map(e => e.textContent)")
    assert [r.split(" · ", 1)[1] for r in reviews] == [
        "acknowledge by surveillance: “spoke to seat 3”", "keep by surveillance", "export by surveillance",
        "dismiss by surveillance: “the exposed card was the burn card”"]
    set_filter(browser, "state", "open")
    assert cards(browser) == []
    set_filter(browser, "state", "dismissed")
    assert cards(browser) == ["casino/T01"]
    assert browser.js("return document.body.dataset.rings") == "1"  # reviews never ring
    assert publisher.commands_refused == 0


def test_a_rule_muted_from_the_page_raises_muted_alerts_and_no_incident(served: tuple[EmbeddedBroker, Publisher,
                                                                                      Browser]) -> None:
    _, publisher, browser = served
    publisher.publish_violation(string_raise(1.0, table="T01", hand_no=12))
    browser.wait_js("return document.querySelectorAll('[data-testid=incident]').length === 1")
    browser.wait_js(f"return {GRID}.querySelector('[data-testid=alerting]').textContent === 'alerting on'")

    browser.js(f"{GRID}.querySelector('[data-testid=mute-rule]').value = 'TDA-29';"
               f"{GRID}.querySelector('[data-testid=mute-for]').value = '900';"
               f"{GRID}.querySelector('[data-testid=mute]').click()")
    browser.wait_js(f"return {GRID}.querySelector('[data-testid=alerting]').textContent"
                    ".startsWith('alerting on · TDA-29 muted until ')")
    assert browser.js(f"return {GRID}.querySelector('[data-testid=alerting]').textContent").endswith(
        " · set by surveillance")
    assert not publisher.switches.allows("TDA-29", time.time()) and publisher.switches.allows("TDA-49", time.time())

    publisher.publish_violation(string_raise(2.0, table="T01", hand_no=13))  # another hand: a new incident, unmuted
    browser.wait_js(f"return {GRID}.querySelector('[data-testid=suppressed]').textContent === "
                    "'suppressed while muted or off: TDA-29 ×1'")
    browser.wait_js("return [...alerts.values()].some(a => a.muted && a.hand_no === 13)")
    assert cards(browser, "e.dataset.rule") == ["TDA-29"]  # still the one incident of hand 12
    assert browser.js("return document.body.dataset.rings") == "1"  # the muted alert rang nothing
    assert browser.js("return document.querySelectorAll('[data-testid=muted-alert], [data-testid=alert]').length") == 0
    set_filter(browser, "muted", True)
    muted = browser.js("return [...document.querySelectorAll('[data-testid=muted-alert]')].map(e => e.textContent)")
    assert len(muted) == 1 and "hand 13" in muted[0] and "muted · open" in muted[0]
    set_filter(browser, "muted", False)

    for button, shown in [("switch-off", "alerting OFF · TDA-29 muted until "), ("switch-on", "alerting on · TDA-29")]:
        browser.js(f"{GRID}.querySelector('[data-testid=mute-rule]').value = '';"
                   f"{GRID}.querySelector('[data-testid={button}]').click()")
        browser.wait_js(f"return {GRID}.querySelector('[data-testid=alerting]').textContent.startsWith('{shown}')")
    browser.js(f"{GRID}.querySelector('[data-testid=mute-rule]').value = 'TDA-29';"
               f"{GRID}.querySelector('[data-testid=mute-for]').value = '0';"
               f"{GRID}.querySelector('[data-testid=mute]').click()")
    browser.wait_js(f"return {GRID}.querySelector('[data-testid=alerting]').textContent === "
                    "'alerting on · set by surveillance'")
    assert publisher.switches.allows("TDA-29", time.time()) and publisher.commands_refused == 0


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[tuple[EmbeddedBroker, Publisher]]:
    """A broker that wants a password from everyone (deploy/'s roster and ACL, each user's password ``pw-<name>``),
    serving the page on its websockets listener, and table T01 publishing as its own user."""
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is needed (apt-get install mosquitto)")
    folder = tmp_path / "secured"
    folder.mkdir()
    shutil.copyfile(ACL, folder / "acl")
    write_password_file(folder / "passwd", {u.name: f"pw-{u.name}" for u in ROSTER.users})
    broker = EmbeddedBroker(folder, web_dir=stage_console(folder / "web"),
                            setup=BrokerSetup(password_file=folder / "passwd", acl_file=folder / "acl")).start()
    assert broker.setup.http_dir is not None
    table = BrokerConfig(url=broker.url, username="table-casino-T01", password="pw-table-casino-T01")
    publisher = table_publisher(tmp_path, broker.url, "T01", broker.setup.http_dir, broker=table)
    try:
        assert publisher.wait_connected(5), publisher.health().problem
        yield broker, publisher
    finally:
        publisher.stop()
        broker.stop()


def test_sign_in_refused_with_a_wrong_password_then_reviews_as_the_signed_in_user(
        tmp_path: Path, secured: tuple[EmbeddedBroker, Publisher]) -> None:
    broker, publisher = secured
    assert broker.web_url is not None
    publisher.publish_violation(string_raise(1.0, table="T01", hand_no=12))
    assert publisher.link.drain(10)
    browser = Browser(tmp_path)
    try:
        browser.get(broker.web_url)  # no user: the broker refuses the anonymous page, which asks to sign in
        browser.wait_js("return !document.getElementById('signin').hidden")
        assert browser.js("return [document.getElementById('signin-why').textContent, "
                          "document.getElementById('link').textContent]") == [
            "This broker needs a user name and a password.", "sign-in needed"]
        sign_in = ("document.getElementById('signin-user').value = arguments[0];"
                   "document.getElementById('signin-pass').value = arguments[1];"
                   "document.getElementById('signin-go').click()")
        browser.js(sign_in, "surveillance-room", "guess")
        browser.wait_js("return document.getElementById('signin-error').textContent !== ''")
        refusal = browser.js("return document.getElementById('signin-error').textContent")
        assert refusal.startswith("Sign-in refused for surveillance-room: the broker said “")
        assert browser.js("return [document.getElementById('signin').hidden, "
                          "document.getElementById('signin-pass').value, "
                          "document.querySelectorAll('[data-testid=incident]').length]") == [False, "", 0]

        browser.js(sign_in, "surveillance-room", "pw-surveillance-room")
        browser.wait_js(f"return {CARD} !== null")
        assert browser.js("return [document.getElementById('signin').hidden, "
                          "document.getElementById('who').textContent]") == [True, "signed in as surveillance-room"]
        click(browser, "acknowledge", "watching")  # as the signed-in user: the ACL lets him write only his own topic
        browser.wait_js(f"return {CARD}.dataset.state === 'acknowledged'")
        assert card_text(browser, "review").startswith("acknowledged · acknowledge by surveillance-room: “watching”")

        browser.js("document.getElementById('sign-out').click()")
        assert browser.js("return [document.getElementById('signin').hidden, "
                          "document.querySelectorAll('[data-testid=incident]').length]") == [False, 0]

        browser.get(broker.web_url + "&user=floor-pit-1&pass=pw-floor-pit-1&site=casino")  # a kiosk
        browser.wait_js(f"return {CARD} !== null && {CARD}.dataset.state === 'acknowledged'")
        assert browser.js("return [document.getElementById('signin').hidden, "
                          "document.getElementById('who').textContent]") == [True, "signed in as floor-pit-1"]
    finally:
        browser.close()
