"""One console for every site, at the centre: a floor console connected to the central tier over MQTT-over-WebSocket
(as the surveillance page connects) sees the incidents and tables of two sites, each bridged from its own pit, and
its review goes back through the right pit to the right table."""

from __future__ import annotations

from pathlib import Path

from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.floor import FloorConsole, command
from tablewatch.central.cluster import CentralCluster
from tests.alerts.helpers import Collector, violation
from tests.central.room import new_site, pit_broker, tables
from tests.support.wait import wait_until


def test_a_console_at_the_centre_reviews_the_incidents_of_two_sites(tmp_path: Path, central: CentralCluster) -> None:
    sites = [new_site(), new_site()]
    pits = [pit_broker(tmp_path / site, site=site, addresses=central.mqtt_addresses, name=site).start()
            for site in sites]
    publishers = [tables(tmp_path, pit, site, 1)[0] for pit, site in zip(pits, sites, strict=True)]
    centre = BrokerConfig(url=central.ws_urls[1], protocol="3.1.1",  # another node than the bridges': one cluster
                          connect_timeout=30)  # (a node busy with the bridges answers late on a busy machine)
    console = FloorConsole(centre, by="surveillance-room").start()
    try:
        assert console.subscribed.wait(60), "the centre did not grant the console's subscriptions"
        with Collector(BrokerConfig(url=pits[1].url), [f"tablewatch/{sites[1]}/T01/incident"]) as at_the_pit:
            for publisher in publishers:
                publisher.publish_violation(violation(1))
            wait_until("both sites' incidents at the centre", lambda: {
                i["site"] for i in console.board.incidents.values()} >= set(sites), 60)
            assert {key.split("/")[0] for key in console.board.tables} >= set(sites)
            ident = next(i["id"] for i in console.board.incidents.values() if i["site"] == sites[1])
            assert command(console, f"r {ident[:12]} ruled a call").startswith("resolve: in-")
            at_the_pit.wait(lambda: any(m.json()["state"] == "resolved" for m in at_the_pit.on("/incident")), 60,
                            "the resolution, made at the centre, back at the second site's pit")
        wait_until("the resolution back at the centre", lambda: console.board.incidents[ident]["state"] == "resolved",
                   60)
        other = next(i for i in console.board.incidents.values() if i["site"] == sites[0])
        assert other["state"] == "open"
    finally:
        console.stop()
        for publisher in publishers:
            publisher.stop()
        for pit in pits:
            pit.stop()
