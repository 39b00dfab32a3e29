"""Building paho-mqtt 2.x clients from a ``BrokerConfig``: TLS, credentials, websockets, last will.

Every MQTT user in tablewatch (publisher, floor console, hand archive, benchmark) builds its client here,
so TLS and credentials are handled once.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from dataclasses import dataclass

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from tablewatch.alerts.config import BrokerConfig


@dataclass(frozen=True, kw_only=True)
class Will:
    topic: str
    payload: str
    qos: int = 1
    retain: bool = True


class BrokerError(RuntimeError):
    """The broker can't be reached or refused us; the message says which and why."""


def make_client(broker: BrokerConfig, client_id: str, *, will: Will | None = None) -> mqtt.Client:
    """A paho client (MQTT 5 unless ``broker.protocol`` says 3.1.1; callback API 2) configured for ``broker``; not
    yet connected."""
    version = mqtt.MQTTv311 if broker.protocol == "3.1.1" else mqtt.MQTTv5
    if version == mqtt.MQTTv311:  # the central tier's NATS nodes refuse a client id with a dot in it
        client_id = client_id.replace(".", "_")
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=version,
                         transport=broker.transport)  # type: ignore[arg-type]
    if broker.transport == "websockets":
        client.ws_set_options(path=broker.ws_path)
    username, password = broker.resolved_credentials()
    if username:
        client.username_pw_set(username, password)
    if broker.tls:
        client.tls_set_context(tls_context(broker))
    if will is not None:
        client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)
    client.connect_timeout = broker.connect_timeout
    client.on_socket_open = _send_at_once
    client.suppress_exceptions = True  # a bug in a callback is logged by paho; it must not kill the loop
    return client


def _send_at_once(_client: mqtt.Client, _userdata: object, sock: object) -> None:
    """TCP_NODELAY: without it an alert sent right after QoS 0 events (which the broker never answers) waits for
    the broker's delayed ACK, 40 ms, under Nagle's algorithm. (A websocket has no such option; it keeps Nagle.)"""
    with contextlib.suppress(AttributeError, OSError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # type: ignore[attr-defined]


def tls_context(broker: BrokerConfig) -> ssl.SSLContext:
    """The TLS context for ``broker``: its CA and, for mutual TLS, the client certificate and key.
    Raises BrokerError naming the file that can't be used."""
    try:
        context = ssl.create_default_context(cafile=str(broker.ca_file) if broker.ca_file else None)
    except (OSError, ssl.SSLError) as exc:
        raise BrokerError(f"ca_file {broker.ca_file}: can't load a CA certificate from it ({_reason(exc)})") from exc
    if broker.cert_file:
        try:
            context.load_cert_chain(str(broker.cert_file), str(broker.key_file) if broker.key_file else None)
        except (OSError, ssl.SSLError) as exc:
            raise BrokerError(f"cert_file {broker.cert_file}, key_file {broker.key_file}: can't load the client "
                              f"certificate and key ({_reason(exc)})") from exc
    return context


def check_broker(broker: BrokerConfig) -> None:
    """Everything about ``broker`` that can be checked without connecting: its password file and TLS files.
    Raises BrokerError saying which file and why."""
    try:
        broker.resolved_credentials()
    except ValueError as exc:
        raise BrokerError(str(exc)) from exc
    if broker.tls:
        tls_context(broker)


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc) or type(exc).__name__


def connect(client: mqtt.Client, broker: BrokerConfig, *, clean_start: bool = True,
            session_expiry_s: int = 0) -> None:
    """Connect and start the network loop; wait for CONNACK. Raises BrokerError with the reason."""
    done = threading.Event()
    outcome: dict[str, object] = {}

    def on_connect(_c: mqtt.Client, _u: object, _f: object, reason: ReasonCode, _p: object) -> None:
        outcome["reason"] = reason
        done.set()

    previous = client.on_connect
    client.on_connect = on_connect
    properties = None
    if session_expiry_s:
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call, unused-ignore]  # paho: no annotations
        properties.SessionExpiryInterval = session_expiry_s
    if broker.protocol == "3.1.1" and not clean_start:
        raise BrokerError(f"{broker.shown_url}: a persistent session needs MQTT 5 (protocol is 3.1.1)")
    try:
        if broker.protocol == "3.1.1":  # a clean session: 3.1.1 sets it when the client is made
            client.connect(broker.host, broker.port, keepalive=broker.keepalive)
        else:
            client.connect(broker.host, broker.port, keepalive=broker.keepalive, clean_start=clean_start,
                           properties=properties)
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise BrokerError(f"can't reach the broker at {broker.shown_url}: {describe_os_error(exc)}") from exc
    client.loop_start()
    if not done.wait(broker.connect_timeout):
        client.loop_stop()
        client.disconnect()
        raise BrokerError(f"the broker at {broker.shown_url} did not answer CONNECT within {broker.connect_timeout} s")
    client.on_connect = previous
    reason = outcome["reason"]
    if isinstance(reason, ReasonCode) and reason.is_failure:
        client.loop_stop()
        raise BrokerError(f"the broker at {broker.shown_url} refused the connection: {reason}")


def describe_os_error(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({exc.verify_message})"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the broker running on that port?)"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__
