"""Every tablewatch MQTT client sends at once (no Nagle delay behind QoS 0 traffic) and speaks 3.1.1 when told."""

from __future__ import annotations

import socket

import pytest

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import BrokerError, connect, make_client
from tests.support.mosquitto import Mosquitto


@pytest.mark.parametrize("protocol", ["5", "3.1.1"])
def test_a_client_sends_without_waiting_for_acks_of_earlier_data(mqtt_broker: Mosquitto, protocol: str) -> None:
    broker = BrokerConfig(url=mqtt_broker.url, protocol=protocol)  # type: ignore[arg-type]
    client = make_client(broker, f"nodelay-{protocol}")
    connect(client, broker)
    try:
        sock = client.socket()
        assert isinstance(sock, socket.socket)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_persistent_session_over_3_1_1_is_refused_with_the_reason(mqtt_broker: Mosquitto) -> None:
    broker = BrokerConfig(url=mqtt_broker.url, protocol="3.1.1")
    with pytest.raises(BrokerError, match="persistent session needs MQTT 5"):
        connect(make_client(broker, "keeper"), broker, clean_start=False)
