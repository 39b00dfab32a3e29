"""Configuration of the MQTT side: where the broker is, who we are, how the outbox and evidence behave."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import unquote, urlsplit

from pydantic import Field, field_validator

from tablewatch.config import StrictModel, hide_password

_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")  # a topic level: no "/", "+", "#", spaces
_USER = re.compile(r"^[A-Za-z0-9_.@-]+$")  # an MQTT user name of the roster, also a topic level


def check_name(kind: str, value: str) -> str:
    """A site or table id becomes a topic level, so it may not hold MQTT wildcards or separators."""
    if not _NAME.match(value):
        raise ValueError(f"{kind} {value!r} can't be an MQTT topic level: use letters, digits, '_', '.', '-'.")
    return value


def check_user(value: str) -> str:
    """A user name of the roster: it is also the last level of the user's acknowledgement topic."""
    if not _USER.match(value):
        raise ValueError(f"user name {value!r} can't be an MQTT topic level: use letters, digits, '_', '.', '@', '-'.")
    return value


class BrokerConfig(StrictModel):
    """How to reach the broker. ``url``: ``mqtt://host:port``, ``mqtts://host:port`` (TLS), ``ws://``/``wss://``."""

    url: str = Field(default="mqtt://127.0.0.1:1883", description="mqtt://, mqtts://, ws:// or wss:// host and port")
    username: str | None = Field(default=None, description="per-client user name (password file on the broker)")
    password: str | None = Field(default=None, description="password; prefer password_file in production")
    password_file: Path | None = Field(default=None, description="file whose first line is the password")
    ca_file: Path | None = Field(default=None, description="CA certificate that signed the broker's certificate")
    cert_file: Path | None = Field(default=None, description="client certificate (mutual TLS), optional")
    key_file: Path | None = Field(default=None, description="client key (mutual TLS), optional")
    keepalive: int = Field(default=15, ge=5, le=3600, description="seconds; the last will fires after 1.5x this")
    connect_timeout: float = Field(default=5.0, gt=0, le=120, description="seconds to wait for CONNACK")
    protocol: Literal["5", "3.1.1"] = Field(default="5", description="MQTT version; 3.1.1 for the central tier's "
                                            "NATS nodes, which speak no other (clean sessions only)")

    @field_validator("url")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in {"mqtt", "mqtts", "ws", "wss", "tcp", "ssl"} or not parts.hostname:
            raise ValueError(f"broker url {hide_password(value)!r} must look like mqtt://host:1883 or "
                             "mqtts://host:8883")
        return value

    @property
    def shown_url(self) -> str:
        """The url as it may be printed or logged: a password in it is masked."""
        return hide_password(self.url)

    @property
    def host(self) -> str:
        return str(urlsplit(self.url).hostname)

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or {"mqtt": 1883, "tcp": 1883, "mqtts": 8883, "ssl": 8883, "ws": 80, "wss": 443}[parts.scheme]

    @property
    def tls(self) -> bool:
        return urlsplit(self.url).scheme in {"mqtts", "ssl", "wss"} or self.ca_file is not None

    @property
    def transport(self) -> str:
        return "websockets" if urlsplit(self.url).scheme in {"ws", "wss"} else "tcp"

    @property
    def ws_path(self) -> str:
        return urlsplit(self.url).path or "/mqtt"

    def resolved_credentials(self) -> tuple[str | None, str | None]:
        """User name and password; a ``user:pass@`` in the url counts when the fields are empty."""
        parts = urlsplit(self.url)
        username = self.username or (unquote(parts.username) if parts.username else None)
        password = self.password or (unquote(parts.password) if parts.password else None)
        if self.password_file is not None:
            try:
                password = self.password_file.read_text(encoding="utf-8").splitlines()[0].strip()
            except (OSError, IndexError) as exc:
                raise ValueError(f"password_file {self.password_file}: can't read a password from it ({exc})") from exc
        return username, password


BroadcastDelay = Annotated[float, Field(ge=0, le=3600, description="finished hands reach broadcast/ this many "
                                                                  "seconds late (TV delay)")]


class OutboxConfig(StrictModel):
    path: Path = Field(default=Path("tablewatch-outbox.sqlite"), description="SQLite file that survives restarts")
    max_rows: int = Field(default=100_000, ge=10, description="cap; past it the drop policy of outbox.py applies")
    max_inflight: int = Field(default=64, ge=1, le=65000, description="messages handed to the broker before PUBACKs")


class PublisherConfig(StrictModel):
    """One table's publisher."""

    site: str = Field(..., description="site (casino) id: the second topic level")
    table: str = Field(..., description="table id: the third topic level")
    broker: BrokerConfig = Field(default_factory=BrokerConfig)
    outbox: OutboxConfig = Field(default_factory=OutboxConfig)
    client_id: str | None = Field(default=None, description="MQTT client id; default tablewatch-<site>-<table>")
    broadcast_delay_s: BroadcastDelay = 0.0
    reconnect_max_s: float = Field(default=5.0, ge=0.1, le=300, description="longest wait between reconnect attempts")
    state_min_interval_s: float = Field(default=0.2, ge=0, le=60, description="retained state at most this often")
    alerting_file: Path | None = Field(default=None, description="where the alerting switches (mute, off) are kept "
                                       "over a restart; default: beside the outbox, `<outbox>.alerting.json`")

    @property
    def alerting_path(self) -> Path:
        return self.alerting_file or self.outbox.path.with_name(self.outbox.path.name + ".alerting.json")

    @field_validator("site", "table")
    @classmethod
    def _topic_level(cls, value: str) -> str:
        return check_name("site/table", value)
