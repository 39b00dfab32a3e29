"""tablewatch.alerts: violations, events, hands and the live table state to the floor over MQTT.

The pieces, one module each:
- ``publisher.Publisher``: one table's publisher (``publish_event``, ``publish_violation``, ``publish_hand``,
  ``publish_state``, ``update_alert``, ``health``), on a durable SQLite ``outbox`` and a reconnecting ``link``.
- ``evidence.EvidenceRecorder``: ring buffers per camera; stills and clips for alerts.
- ``topics``, ``payloads`` (+ ``schemas/``): the topic tree and the versioned JSON payloads; ``secrecy``: what
  floor and broadcast may read of a hand in play.
- ``broker``: the mosquitto configuration (``render_config``, ``render_bridge``), ``EmbeddedBroker``, ``start_broker``.
- ``acl``: roster of users and roles -> mosquitto ACL; ``deploy``: the example files of deploy/.
- ``floor`` (terminal console), ``web`` + ``static/`` (surveillance page), ``webserver`` (the page and the
  evidence behind a login), ``archive`` (hands -> PostgreSQL), ``bench`` (many tables on one broker), ``cli``
  (``tablewatch floor | broker | web | bench-mqtt``).

Names are re-exported lazily so that importing one module does not load OpenCV.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Publisher": "publisher", "Health": "publisher",
    "PublisherConfig": "config", "BrokerConfig": "config", "OutboxConfig": "config",
    "EvidenceRecorder": "evidence", "EvidenceConfig": "evidence", "Box": "evidence",
    "Evidence": "payloads", "TableTopics": "topics",
    "EmbeddedBroker": "broker", "BrokerSetup": "broker", "start_broker": "broker",
    "stage_console": "web", "SeenIds": "dedupe", "BrokerError": "connection",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tablewatch.alerts' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tablewatch.alerts.{module}"), name)
