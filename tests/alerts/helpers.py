"""Test helpers for the alerts part: a subscriber that records what a real broker delivers."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import jsonschema
import paho.mqtt.client as mqtt
from referencing import Registry, Resource

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import connect, make_client
from tablewatch.alerts.payloads import SCHEMA_VERSIONS, load_schema
from tablewatch.events import Violation


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    retain: bool
    qos: int

    def json(self) -> Any:
        return json.loads(self.payload)


class Collector:
    """Subscribes with its own client and keeps every message in arrival order."""

    def __init__(self, broker: BrokerConfig, topics: Iterable[str], *, client_id: str | None = None,
                 persistent: bool = False) -> None:
        self.messages: list[Received] = []
        self.granted: list[int] = []
        self._cond = threading.Condition()
        self.broker = broker
        self.topics = list(topics)
        self.client = make_client(broker, client_id or f"collector-{uuid.uuid4().hex[:8]}")
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_connect = None
        self.client.reconnect_delay_set(min_delay=0.2, max_delay=1)
        self.persistent = persistent

    def start(self) -> Collector:
        connect(self.client, self.broker, clean_start=not self.persistent,
                session_expiry_s=3600 if self.persistent else 0)
        self.client.on_connect = self._resubscribe
        self._subscribe()
        self.wait(lambda: len(self.granted) >= len(self.topics), 5, "SUBACK")
        return self

    def _subscribe(self) -> None:
        for topic in self.topics:
            self.client.subscribe(topic, qos=1)

    def _resubscribe(self, *_: object) -> None:
        if not self.persistent:
            self._subscribe()

    def _on_subscribe(self, _c: mqtt.Client, _u: object, _mid: int, codes: list[Any], _p: object) -> None:
        with self._cond:
            self.granted.extend(int(getattr(c, "value", c)) for c in codes)
            self._cond.notify_all()

    def _on_message(self, _c: mqtt.Client, _u: object, message: mqtt.MQTTMessage) -> None:
        with self._cond:
            self.messages.append(Received(message.topic, bytes(message.payload), bool(message.retain),
                                          message.qos))
            self._cond.notify_all()

    def on(self, topic_suffix: str) -> list[Received]:
        with self._cond:
            return [m for m in self.messages if m.topic.endswith(topic_suffix)]

    def wait(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}; got "
                                         f"{[(m.topic, m.payload[:80]) for m in self.messages[-10:]]}")
                self._cond.wait(min(left, 0.2))

    def wait_count(self, topic_suffix: str, count: int, timeout: float = 10) -> list[Received]:
        self.wait(lambda: len([m for m in self.messages if m.topic.endswith(topic_suffix)]) >= count, timeout,
                  f"{count} message(s) on *{topic_suffix}")
        return self.on(topic_suffix)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Collector:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def validate(name: str, payload: Any) -> None:
    """Check ``payload`` against the shipped schema ``name`` (schemas may refer to each other by $id)."""
    registry: Registry = Registry().with_resources(
        (load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in SCHEMA_VERSIONS)
    validator = jsonschema.Draft202012Validator(load_schema(name), registry=registry,
                                                format_checker=jsonschema.FormatChecker())
    validator.validate(payload)


def violation(n: int, *, table: str = "T01", hand_no: int = 1, ts: float | None = None) -> Violation:
    return Violation(ts=float(n) if ts is None else ts, table=table, source="rules", seat=3, rule_id="TDA-29",
                     title="Raise amounts (string raise)", observed=f"seat 3 put chips out in 2 motions (#{n})",
                     ruling="the bet stands as a call", hand_no=hand_no, street="flop", seats=(3,),
                     confidence=0.9, evidence_ts=(float(n),))
