"""Who may do what on the central tier: the roster's roles (``tablewatch.alerts.acl``) as NATS permissions.

The roles are defined once, as MQTT topic rules, in ``acl.rules_for``; here each ``topic read|write`` line
becomes a NATS subscribe or publish permission on the same subject (``/`` → ``.``, ``+`` → ``*``, ``#`` → ``>``),
which is what NATS checks for its MQTT clients too. Two roles differ at the centre:

- ``archive`` reads through JetStream, not MQTT: it may make and read durable consumers on the stream of MQTT
  messages, and acknowledge what it read — no other JetStream call, so it can delete neither a stream nor a
  consumer.
- an MQTT client that subscribes at QoS 1 is served by NATS through an internal subject of its session
  (``$MQTT.sub.…``), which its permissions must allow.

Passwords never enter the rendered file: each user's is read from an environment variable
(``TW_PASSWORD_<NAME>``) that the node's service sets from a root-only file.
"""

from __future__ import annotations

import re

from tablewatch.alerts.acl import Roster, User, rules_for
from tablewatch.central.cluster import MQTT_STREAM

# A wildcard matches whole subject tokens only, so "its own consumers" is every consumer of that one stream.
_JS_READ = [f"$JS.API.CONSUMER.DURABLE.CREATE.{MQTT_STREAM}.*", f"$JS.API.CONSUMER.CREATE.{MQTT_STREAM}.>",
            f"$JS.API.CONSUMER.INFO.{MQTT_STREAM}.*", f"$JS.API.CONSUMER.MSG.NEXT.{MQTT_STREAM}.*",
            f"$JS.ACK.{MQTT_STREAM}.>"]


def nats_subject(topic: str) -> str:
    """The NATS subject of an MQTT topic filter, as NATS maps one (a '.' inside a level becomes '//')."""
    return ".".join({"+": "*", "#": ">"}.get(level, level.replace(".", "//")) for level in topic.split("/"))


def password_variable(user: str) -> str:
    return "TW_PASSWORD_" + re.sub(r"[^A-Za-z0-9]", "_", user).upper()


def permissions(user: User) -> tuple[list[str], list[str]]:
    """(publish, subscribe) subjects of ``user`` at the centre."""
    if user.role == "archive":
        return _JS_READ, ["_INBOX.>"]
    publish: list[str] = []
    subscribe: list[str] = ["$MQTT.sub.>"]
    for rule in rules_for(user):
        _, access, topic = rule.split(" ", 2)
        if "write" in access:
            publish.append(nats_subject(topic))
        if "read" in access:
            subscribe.append(nats_subject(topic))
    return publish, subscribe


def render_authorization(roster: Roster) -> str:
    """The ``authorization`` block every central node includes."""
    lines = ["# who may connect to the central tier, rendered by tablewatch.central.access from the roster",
             "authorization {", "  users: ["]
    for user in roster.users:
        if user.role == "table":  # a table speaks to its pit broker only; its bridge carries the table's messages
            continue
        publish, subscribe = permissions(user)
        lines.append(f'    {{user: "{user.name}", password: ${password_variable(user.name)}, permissions: {{'
                     f"publish: {_quoted(publish)}, subscribe: {_quoted(subscribe)}}}}}")
    return "\n".join([*lines, "  ]", "}"]) + "\n"


def _quoted(subjects: list[str]) -> str:
    return "[" + ", ".join(f'"{s}"' for s in subjects) + "]"
