"""The connection to the broker: one thread that connects, pumps the outbox and reconnects.

Each connection gets a fresh paho client; on a new connection everything still in the outbox is handed
to the broker again from the oldest row, so the order after an outage is the order of the outbox. paho
keeps no messages of its own across connections (a message the broker had received but whose PUBACK was
lost comes twice, with the same ``msg_id``: consumers drop the repeat).

A broker that is down never blocks or crashes the caller: ``Outbox.put`` is all the caller waits for,
``problem`` says what is wrong, and the thread keeps retrying with a capped back-off.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.reasoncodes import ReasonCode

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import BrokerError, Will, connect, make_client
from tablewatch.alerts.outbox import Outbox

log = logging.getLogger(__name__)

MessageHandler = Callable[[mqtt.MQTTMessage], None]


class Link:
    """Owns the MQTT connection of one publisher. ``start()``, ``wake()`` after ``Outbox.put``, ``stop()``."""

    def __init__(self, broker: BrokerConfig, *, client_id: str, outbox: Outbox, status_topic: str,
                 max_inflight: int = 64, reconnect_max_s: float = 5.0) -> None:
        self.broker = broker
        self.client_id = client_id
        self.outbox = outbox
        self.status_topic = status_topic
        self.max_inflight = max_inflight
        self.reconnect_max_s = reconnect_max_s
        self.subscriptions: dict[str, MessageHandler] = {}
        self.on_connected: Callable[[], None] | None = None  # e.g. refresh the retained state
        self.problem: str | None = "not connected yet"
        self.connects = 0
        self.events_dropped = 0
        self._client: mqtt.Client | None = None
        self._connected = threading.Event()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._acks: queue.SimpleQueue[tuple[int, ReasonCode]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    # --- the caller's side --------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"mqtt-link-{self.client_id}", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def publish_now(self, topic: str, payload: str | bytes, *, qos: int = 0, retain: bool = False) -> bool:
        """Send without the outbox (the QoS 0 event stream): False, and counted, when not connected."""
        client = self._client
        if client is None or not self.connected:
            self.events_dropped += 1
            return False
        info = client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            self.events_dropped += 1
            return False
        return True

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    def drain(self, timeout: float) -> bool:
        """Wait until the outbox is empty (everything acknowledged); False on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.outbox.backlog().rows == 0:
                return True
            self.wake()
            time.sleep(0.02)
        return self.outbox.backlog().rows == 0

    def stop(self, *, announce_offline: bool = True) -> None:
        """Close cleanly: ``offline`` on the status topic (the last will covers a crash)."""
        self._stopping.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout=10)
        client = self._client
        if client is not None:
            if announce_offline and self.connected:
                client.publish(self.status_topic, "offline", qos=1, retain=True).wait_for_publish(2)
            client.disconnect()
            client.loop_stop()
        self._connected.clear()
        self._client = None

    # --- the link thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        backoff = 0.25
        while not self._stopping.is_set():
            try:
                client = self._open()
            except (BrokerError, ValueError, OSError) as exc:  # never let the link thread die: say why, retry
                self._set_problem(str(exc))
                self._stopping.wait(backoff)
                backoff = min(backoff * 2, self.reconnect_max_s)
                continue
            backoff = 0.25
            self._pump(client)
            if not self._stopping.is_set():
                client.loop_stop()
                self._client = None

    def _open(self) -> mqtt.Client:
        client = make_client(self.broker, self.client_id,
                             will=Will(topic=self.status_topic, payload="offline", qos=1, retain=True))
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        self._acks = queue.SimpleQueue()
        connect(client, self.broker)
        self.connects += 1
        self._client = client
        self._set_problem(None)
        self._connected.set()
        client.publish(self.status_topic, "online", qos=1, retain=True)
        for topic, handler in self.subscriptions.items():
            client.message_callback_add(topic, _guarded(handler))
            client.subscribe(topic, qos=1)
        if self.on_connected is not None:
            self.on_connected()
        return client

    def _pump(self, client: mqtt.Client) -> None:
        """Hand outbox rows to paho in order, at most ``max_inflight`` unacknowledged; delete on PUBACK."""
        last_seq = 0
        inflight: dict[int, int] = {}  # paho mid -> outbox seq
        while self.connected and not self._stopping.is_set():
            self._wake.clear()
            self._settle(inflight)
            room = self.max_inflight - len(inflight)
            if room > 0:
                handed = set(inflight.values())
                for row in self.outbox.after(last_seq, limit=room + len(handed)):
                    if row.seq in handed:
                        continue
                    info = client.publish(row.topic, row.payload, qos=row.qos, retain=row.retain)
                    if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
                        break  # connection lost: the next connection replays from the first unacked row
                    inflight[info.mid] = row.seq
                    last_seq = max(last_seq, row.seq)
                    room -= 1
                    if room == 0:
                        break
            self._wake.wait(self._idle_wait())

    def _settle(self, inflight: dict[int, int]) -> None:
        done: list[int] = []
        while True:
            try:
                mid, reason = self._acks.get_nowait()
            except queue.Empty:
                break
            seq = inflight.pop(mid, None)
            if seq is None:
                continue
            if reason.is_failure:
                self.outbox.deny(seq, str(reason))
            else:
                done.append(seq)
        self.outbox.delete(done)

    def _idle_wait(self) -> float:
        due = self.outbox.next_due()
        return 0.5 if due is None else max(0.01, min(0.5, due - time.time()))

    def _on_publish(self, _c: mqtt.Client, _u: object, mid: int, reason: ReasonCode, _p: object) -> None:
        self._acks.put((mid, reason))
        self._wake.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: object, _f: object, reason: ReasonCode, _p: object) -> None:
        self._connected.clear()
        if not self._stopping.is_set():
            self._set_problem(f"lost the broker at {self.broker.shown_url}: {reason}")
        self._wake.set()

    def _set_problem(self, problem: str | None) -> None:
        if problem != self.problem:
            if problem is None:
                log.info("connected to %s as %s", self.broker.shown_url, self.client_id)
            else:
                log.warning("%s (%d message(s) wait in the outbox)", problem, self.outbox.backlog().rows)
        self.problem = problem


def _guarded(handler: MessageHandler) -> Callable[[mqtt.Client, object, mqtt.MQTTMessage], None]:
    def callback(_c: mqtt.Client, _u: object, message: mqtt.MQTTMessage) -> None:
        try:
            handler(message)
        except Exception:  # a bad message must not stop the network loop
            log.exception("handler for %s failed", message.topic)

    return callback
