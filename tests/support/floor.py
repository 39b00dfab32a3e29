"""A floor client for tests: subscribes to every table's alerts on a real broker and keeps the new ones."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt

from tests.support.mosquitto import Mosquitto


class AlertListener:
    """A floor client: subscribes to every table's alerts and keeps the new ones."""

    def __init__(self, broker: Mosquitto) -> None:
        self.alerts: list[dict[str, object]] = []
        self.ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="floor-test")
        self.client.on_connect = lambda c, *_: (c.subscribe("tablewatch/+/+/alert", qos=1), self.ready.set())
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        assert self.ready.wait(30), "the floor client could not connect"

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        payload = json.loads(message.payload)
        if payload.get("type") == "new":
            self.alerts.append(payload)

    def wait_for(self, condition: Callable[[list[dict[str, object]]], bool], timeout: float = 60.0, *,
                 expected: bool = True) -> None:
        """Until the alerts received so far meet ``condition`` (they arrive after the table has sent them); at
        the deadline an AssertionError, or with ``expected=False`` a return, leaving the caller to say why."""
        deadline = time.monotonic() + timeout
        while not condition(list(self.alerts)):
            if time.monotonic() >= deadline:
                assert not expected, f"the floor did not get the alerts in time: {self.alerts}"
                return
            time.sleep(0.05)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
