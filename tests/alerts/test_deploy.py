"""deploy/ as shipped: the files match their renderers, and the pit configuration runs in a real mosquitto,
with TLS, passwords, the ACL, and a bridge that carries a table's alerts to a central broker and acks back.
"""

from __future__ import annotations

import json
import re
import ssl
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.acl import Roster, write_password_file
from tablewatch.alerts.acl import main as acl_main
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.deploy import example_files
from tablewatch.alerts.publisher import Publisher
from tests.alerts.helpers import Collector, violation
from tests.alerts.secure_broker import make_certificates
from tests.support.mosquitto import Mosquitto, free_port, needs_mosquitto

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


@pytest.mark.parametrize("name", sorted(example_files()))
def test_deploy_files_match_their_renderer(name: str) -> None:
    assert (DEPLOY / name).read_text() == example_files()[name], (
        f"deploy/{name} is stale: run python -m tablewatch.alerts.deploy deploy")


def test_acl_tool_renders_the_roster_and_rejects_a_bad_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert acl_main([str(DEPLOY / "roster.example.yaml")]) == 0
    assert capsys.readouterr().out == (DEPLOY / "mosquitto" / "acl.example").read_text()
    bad = tmp_path / "roster.yaml"
    bad.write_text("users:\n  - {name: t1, role: table, site: casino}\n  - {name: t1, role: floor}\n")
    assert acl_main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert "role 'table' needs a site and a table" in err


def deployed_config(folder: Path, *, tls_port: int, ws_port: int, plain_port: int, central_port: int) -> Path:
    """The shipped pit config with its /etc, /var paths and ports moved into ``folder``."""
    text = (DEPLOY / "mosquitto" / "mosquitto.conf").read_text()
    for old, new in [("/etc/mosquitto/tablewatch", str(folder)), ("/var/lib/mosquitto", str(folder)),
                     ("/var/log/mosquitto/tablewatch.log", str(folder / "mosquitto.log")),
                     ("listener 8883", f"listener {tls_port}"),
                     ("listener 8884", f"listener {ws_port}"), ("listener 1883", f"listener {plain_port}")]:
        assert old in text, old
        text = text.replace(old, new)
    bridge = (DEPLOY / "mosquitto" / "conf.d" / "bridge-central.conf").read_text()
    bridge = re.sub(r"^address .*$", f"address 127.0.0.1:{central_port}", bridge, flags=re.M)
    bridge = re.sub(r"^(bridge_cafile|bridge_insecure|remote_password|remote_username) .*\n", "", bridge, flags=re.M)
    (folder / "conf.d").mkdir()
    (folder / "conf.d" / "bridge-central.conf").write_text(bridge)
    config = folder / "pit.conf"
    config.write_text("user root\n" + text)
    return config


@needs_mosquitto
def test_the_shipped_pit_config_runs_and_bridges_to_the_central_broker(tmp_path: Path) -> None:
    pit_dir = tmp_path / "pit"
    pit_dir.mkdir()
    make_certificates(pit_dir)
    roster = Roster.model_validate(yaml.safe_load((DEPLOY / "roster.example.yaml").read_text()))
    (pit_dir / "acl").write_text((DEPLOY / "mosquitto" / "acl.example").read_text())
    write_password_file(pit_dir / "passwd", {u.name: f"pw-{u.name}" for u in roster.users})
    tls_port, central_port = free_port(), free_port()
    config = deployed_config(pit_dir, tls_port=tls_port, ws_port=free_port(), plain_port=free_port(),
                             central_port=central_port)
    central = Mosquitto(tmp_path / "central", port=central_port).start()
    pit = Mosquitto(pit_dir, port=tls_port, listener=False)
    pit.config = config  # run the deployed file itself
    pit.start()
    try:
        secure = BrokerConfig(url=f"mqtts://localhost:{tls_port}", username="table-casino-T01",
                              password="pw-table-casino-T01", ca_file=pit_dir / "ca.crt")
        with Collector(BrokerConfig(url=central.url), ["tablewatch/casino/+/alert", "$SYS/broker/connection/#"]) \
                as head_office:
            head_office.wait(lambda: any(m.payload == b"1" for m in head_office.on("/state")), 15, "the bridge up")
            config_t01 = PublisherConfig(site="casino", table="T01", broker=secure,
                                         outbox=OutboxConfig(path=tmp_path / "t01.sqlite"))
            table = Publisher(config_t01).start()
            assert table.wait_connected(5), table.health().problem
            acks: list[str] = []
            table.ack_callbacks.append(lambda alert, by: acks.append(by))
            ident = table.publish_violation(violation(1))
            forwarded = head_office.wait_count("/alert", 1)[0].json()
            ack = pl.ack_payload(site="casino", table="T01", alert=ident, by="head-office", now=time.time())
            head_office.client.publish("tablewatch/casino/T01/ack/head-office", json.dumps(ack), qos=1)
            deadline = time.monotonic() + 10
            while not acks and time.monotonic() < deadline:
                time.sleep(0.05)
            table.stop()
    finally:
        pit.stop()
        central.stop()
    assert forwarded["id"] == ident and forwarded["table"] == "T01"
    assert acks == ["head-office"]  # the central's ack came back over the bridge
    log = (pit_dir / "mosquitto.log").read_text()
    assert "u'table-casino-T01'" in log  # the audit trail of the deployed config


@needs_mosquitto
def test_the_shipped_pit_broker_serves_no_files(tmp_path: Path) -> None:
    """mosquitto's http_dir has no login: the pit's wss listener carries MQTT only, and the page and the
    evidence are served by `tablewatch web` to authenticated viewers (test_webserver.py)."""
    make_certificates(tmp_path)
    (tmp_path / "acl").write_text((DEPLOY / "mosquitto" / "acl.example").read_text())
    write_password_file(tmp_path / "passwd", {"floor-pit-1": "pw"})
    ws_port = free_port()
    config = deployed_config(tmp_path, tls_port=free_port(), ws_port=ws_port, plain_port=free_port(),
                             central_port=free_port())
    assert "http_dir" not in config.read_text()
    pit = Mosquitto(tmp_path, port=ws_port, listener=False)
    pit.config = config
    with pit:
        context = ssl.create_default_context(cafile=str(tmp_path / "ca.crt"))
        for name in ("index.html", "acl", "server.key"):
            try:
                with urllib.request.urlopen(f"https://localhost:{ws_port}/{name}", context=context, timeout=20) as r:
                    status = r.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            except (urllib.error.URLError, ConnectionError) as exc:  # the listener may just close the connection
                status = str(exc)
            assert status != 200, name
