"""A floor client for tests: subscribes to every table's alerts on a real broker and keeps the new ones."""

from __future__ import annotations

import json
import threading

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
        assert self.ready.wait(5), "the floor client could not connect"

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        payload = json.loads(message.payload)
        if payload.get("type") == "new":
            self.alerts.append(payload)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
