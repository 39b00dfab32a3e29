"""Stills and clips only to an authenticated viewer: `tablewatch web` over TLS, checked against the broker's own
password file (made by mosquitto_passwd) and deploy/'s roster."""

from __future__ import annotations

import base64
import re
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablewatch.alerts.acl import write_password_file
from tablewatch.alerts.broker import free_port
from tablewatch.alerts.webserver import verify_password
from tests.alerts.secure_broker import DEPLOY, ROSTER, make_certificates
from tests.support.mosquitto import wait_for_port

STILL = "evidence/T01/al-0123456789abcdef-overhead.jpg"


def fetch(url: str, ca: Path, user: str | None = None, password: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url)
    if user is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())
    try:
        with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=str(ca)), timeout=20) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """`tablewatch web` as deployed: TLS, deploy's roster, a password for each of its users."""
    if shutil.which("openssl") is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("openssl and mosquitto_passwd are needed (apt-get install openssl mosquitto)")
    folder = tmp_path_factory.mktemp("web")
    make_certificates(folder)
    write_password_file(folder / "passwd", {u.name: f"pw-{u.name}" for u in ROSTER.users})
    root = folder / "root"
    (root / "evidence" / "T01").mkdir(parents=True)
    (root / STILL).write_bytes(b"\xff\xd8 a still \xff\xd9")
    port = free_port()
    command = [sys.executable, "-m", "tablewatch", "web", "--root", str(root), "--roster",
               str(DEPLOY / "roster.example.yaml"), "--password-file", str(folder / "passwd"), "--cert-file",
               str(folder / "server.crt"), "--key-file", str(folder / "server.key"), "--host", "127.0.0.1",
               "--port", str(port)]
    with (folder / "web.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_port(port, timeout=60)
            yield f"https://localhost:{port}/", folder / "ca.crt"
        finally:
            process.terminate()
            process.wait(timeout=10)


@pytest.mark.parametrize(("user", "password", "status"), [
    (None, None, 401),  # no credentials
    ("floor-pit-1", "guess", 401),  # wrong password
    ("mallory", "pw-mallory", 401),  # not in the password file
    ("broadcast-tv", "pw-broadcast-tv", 403),  # a real user, of a role that must not see the table live
    ("table-casino-T01", "pw-table-casino-T01", 403),
    ("floor-pit-1", "pw-floor-pit-1", 200),
    ("surveillance-room", "pw-surveillance-room", 200),
])
def test_evidence_is_served_only_to_floor_and_surveillance(served: tuple[str, Path], user: str | None,
                                                           password: str | None, status: int) -> None:
    url, ca = served
    for path in (STILL, "index.html"):
        code, body = fetch(url + path, ca, user, password)
        assert code == status, path
        if status == 200 and path == STILL:
            assert body == b"\xff\xd8 a still \xff\xd9"


def test_no_listing_no_way_out_and_a_challenge(served: tuple[str, Path]) -> None:
    url, ca = served
    viewer = ("floor-pit-1", "pw-floor-pit-1")
    assert fetch(url + "evidence/T01/", ca, *viewer)[0] == 404  # no folder listing: a file only by its URL
    assert fetch(url + "..%2fpasswd", ca, *viewer)[0] == 404
    assert fetch(url + "schemas/alert-1.json", ca, *viewer)[0] == 200  # the staged page's files
    request = urllib.request.Request(url + STILL)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, context=ssl.create_default_context(cafile=str(ca)), timeout=20)
    assert re.match(r'Basic realm="[^"]+"', refused.value.headers["WWW-Authenticate"])


def test_mosquitto_password_hashes_are_checked(tmp_path: Path) -> None:
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is needed")
    write_password_file(tmp_path / "passwd", {"anna": "s3cret:with colon"})
    hashed = (tmp_path / "passwd").read_text().strip().split(":", 1)[1]
    assert verify_password(hashed, "s3cret:with colon")
    assert not verify_password(hashed, "s3cret")
    assert not verify_password("$7$101$not base64!$x", "s3cret") and not verify_password("plain", "plain")


def test_web_refuses_passwords_over_plain_http_off_loopback(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tablewatch.cli import cli

    (tmp_path / "passwd").write_text("")
    result = CliRunner().invoke(cli, ["web", "--root", str(tmp_path / "root"), "--roster",
                                      str(DEPLOY / "roster.example.yaml"), "--password-file", str(tmp_path / "passwd"),
                                      "--host", "0.0.0.0", "--duration", "0"])
    assert result.exit_code == 2 and "passwords travel only over TLS" in result.output
