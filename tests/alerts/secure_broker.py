"""A mosquitto with deploy/'s security: TLS, a password per user of deploy/roster.example.yaml, and the shipped
ACL (deploy/mosquitto/acl.example, which test_deploy keeps equal to its renderer's output).

Certificates are made with the openssl CLI and passwords with mosquitto_passwd; each user's password is
``pw-<name>``.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tablewatch.alerts.acl import Roster, write_password_file
from tablewatch.alerts.broker import BrokerSetup, render_config
from tablewatch.alerts.config import BrokerConfig, OutboxConfig, PublisherConfig
from tablewatch.alerts.publisher import Publisher
from tests.support.mosquitto import Mosquitto, free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ROSTER = Roster.model_validate(yaml.safe_load((DEPLOY / "roster.example.yaml").read_text()))
ACL = DEPLOY / "mosquitto" / "acl.example"


@dataclass
class Secure:
    broker: Mosquitto
    ca: Path
    port: int
    folder: Path

    def config(self, user: str | None, *, password: str | None = None, ca: Path | None = None,
               scheme: str = "mqtts") -> BrokerConfig:
        return BrokerConfig(url=f"{scheme}://localhost:{self.port}", username=user,
                            password=password if password is not None else (f"pw-{user}" if user else None),
                            ca_file=ca if ca is not None else self.ca, connect_timeout=3)


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(folder: Path) -> None:
    """A CA and a server certificate for localhost / 127.0.0.1 (EC keys: fast to make)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=tablewatch test CA",
            cwd=folder)
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=folder)
    (folder / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "san.ext", cwd=folder)
    # a CA that signed nothing here
    openssl("req", "-x509", *ec, "-keyout", "other.key", "-out", "other-ca.crt", "-days", "2", "-subj", "/CN=other",
            cwd=folder)


@contextmanager
def secure_broker(folder: Path) -> Iterator[Secure]:
    """mosquitto on a TLS port with deploy/'s ACL and a password for every user of its roster."""
    if shutil.which("openssl") is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("openssl and mosquitto_passwd are needed (apt-get install openssl mosquitto)")
    make_certificates(folder)
    shutil.copyfile(ACL, folder / "acl")
    write_password_file(folder / "passwd", {u.name: f"pw-{u.name}" for u in ROSTER.users})
    port = free_port()
    setup = BrokerSetup(mqtt_port=None, tls_port=port, ca_file=folder / "ca.crt", cert_file=folder / "server.crt",
                        key_file=folder / "server.key", password_file=folder / "passwd", acl_file=folder / "acl")
    with Mosquitto(folder, port=port, listener=False, extra_config=render_config(setup)) as broker:
        yield Secure(broker=broker, ca=folder / "ca.crt", port=port, folder=folder)


def publisher_as(tmp_path: Path, secure: Secure, *, user: str, table: str, **extra: object) -> Publisher:
    config = PublisherConfig(site="casino", table=table, broker=secure.config(user),
                             outbox=OutboxConfig(path=tmp_path / f"{user}-{table}.sqlite"), reconnect_max_s=0.5,
                             **extra)  # type: ignore[arg-type]
    publisher = Publisher(config).start()
    assert publisher.wait_connected(5), publisher.health().problem
    return publisher
