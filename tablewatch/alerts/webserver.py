"""The surveillance page and the evidence (stills, clips) over HTTPS, for authenticated viewers only.

mosquitto's ``http_dir`` serves its files to anyone who reaches the port, and evidence shows the table and
its players; so a deployed pit serves the page and its ``evidence/`` folder from here: HTTP Basic over TLS,
each request checked against the broker's own password file (mosquitto_passwd hashes) and the roster's
roles. Only the roles that read alerts on the floor, ``floor`` and ``surveillance``, are let in; both files
are read again on every request, so a user taken out of either is refused at once.

    tablewatch web --root /usr/share/tablewatch/web --roster /etc/tablewatch/roster.yaml \\
        --password-file /etc/mosquitto/tablewatch/passwd --cert-file server.crt --key-file server.key
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import ssl
import threading
from dataclasses import dataclass
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tablewatch.alerts.acl import Roster
from tablewatch.config import ConfigError, load_config

log = logging.getLogger(__name__)
VIEWER_ROLES = frozenset({"floor", "surveillance"})
REALM = "tablewatch surveillance"


def verify_password(hashed: str, password: str) -> bool:
    """Whether ``password`` matches a mosquitto_passwd hash: ``$7$<iterations>$<salt>$<hash>`` (PBKDF2-SHA512,
    mosquitto 2.0) or ``$6$<salt>$<hash>`` (salted SHA-512, mosquitto 1.x)."""
    parts = hashed.split("$")
    try:
        if len(parts) == 5 and parts[1] == "7":
            salt, digest = base64.b64decode(parts[3], validate=True), base64.b64decode(parts[4], validate=True)
            computed = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, int(parts[2]))
        elif len(parts) == 4 and parts[1] == "6":
            salt, digest = base64.b64decode(parts[2], validate=True), base64.b64decode(parts[3], validate=True)
            computed = hashlib.sha512(password.encode() + salt).digest()
        else:
            return False
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(computed, digest)


@dataclass(frozen=True)
class Viewers:
    """Who may look: a roster user of a viewer role whose password matches the broker's password file."""

    roster: Path
    password_file: Path

    def refusal(self, user: str, password: str) -> HTTPStatus | None:
        """None when ``user`` may look; UNAUTHORIZED (unknown, wrong password) or FORBIDDEN (another role)."""
        hashed = self._hashes().get(user)
        if hashed is None or not verify_password(hashed, password):
            return HTTPStatus.UNAUTHORIZED
        roles = {u.role for u in self._roster().users if u.name == user}
        return None if roles & VIEWER_ROLES else HTTPStatus.FORBIDDEN

    def _hashes(self) -> dict[str, str]:
        lines = self.password_file.read_text(encoding="utf-8").splitlines()
        return dict(line.split(":", 1) for line in lines if ":" in line)

    def _roster(self) -> Roster:
        return load_config(self.roster, Roster)

    def check(self) -> None:
        """Fail now, with the reason, when either file can't be read."""
        try:
            self._hashes()
            self._roster()
        except (OSError, UnicodeDecodeError, ConfigError) as exc:
            raise ValueError(f"can't check viewers: {exc}") from exc


class _Handler(SimpleHTTPRequestHandler):
    viewers: Viewers

    def __init__(self, *args: Any, viewers: Viewers, **kwargs: Any) -> None:
        self.viewers = viewers
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        if self._allowed():
            super().do_GET()

    def do_HEAD(self) -> None:
        if self._allowed():
            super().do_HEAD()

    def list_directory(self, path: str | Any) -> None:  # no folder listings: a file is reached by its URL
        self.send_error(HTTPStatus.NOT_FOUND)
        return None

    def _allowed(self) -> bool:
        user, password = _basic_credentials(self.headers.get("Authorization", ""))
        try:
            refusal = self.viewers.refusal(user, password) if user else HTTPStatus.UNAUTHORIZED
        except (OSError, UnicodeDecodeError, ConfigError) as exc:  # a file being rewritten: refuse, say why
            log.error("can't check %r's credentials: %s", user, exc)
            refusal = HTTPStatus.SERVICE_UNAVAILABLE
        if refusal is None:
            return True
        log.warning("refused %s to %r from %s (%s)", self.path[:200], user[:64], self.client_address[0],
                    refusal.phrase)
        self.send_response(refusal)
        if refusal == HTTPStatus.UNAUTHORIZED:
            self.send_header("WWW-Authenticate", f'Basic realm="{REALM}", charset="UTF-8"')
        self.send_header("Content-Length", "0")
        self.end_headers()
        return False

    def log_message(self, format: str, *args: Any) -> None:
        log.info("%s %s", self.client_address[0], format % args)


def _basic_credentials(header: str) -> tuple[str, str]:
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return "", ""
    try:
        user, _, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except (ValueError, binascii.Error):
        return "", ""
    return user, password


class WebServer:
    """Serves ``root`` (the staged page, with ``evidence/``) to viewers; TLS when given a certificate."""

    def __init__(self, root: Path, viewers: Viewers, *, host: str = "0.0.0.0", port: int = 8443,
                 cert_file: Path | None = None, key_file: Path | None = None) -> None:
        viewers.check()
        handler = partial(_Handler, viewers=viewers, directory=str(root))
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.tls = cert_file is not None
        if cert_file is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            context.load_cert_chain(str(cert_file), str(key_file) if key_file else None)
            # the handshake runs in the request's thread, so a slow client can't hold up the others
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True,
                                                    do_handshake_on_connect=False)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host!s}:{port}/"

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="web", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
