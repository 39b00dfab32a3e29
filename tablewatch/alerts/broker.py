"""The project's mosquitto configuration, rendered from one model, and an embedded broker for the demo.

``render_config(BrokerSetup(...))`` writes the text of ``deploy/mosquitto/mosquitto.conf`` (the shipped
file is this function's output for the /etc paths; a test keeps them in step). ``EmbeddedBroker`` starts
a mosquitto of our own with that configuration for the demo and for ``tablewatch broker``:

    with EmbeddedBroker(Path("out/broker"), web_dir=console_dir) as broker:
        PublisherConfig(..., broker=BrokerConfig(url=broker.url))
        print(broker.web_url)   # the surveillance page, fed over MQTT-over-WebSockets
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from pydantic import Field, field_validator

from tablewatch.alerts.topics import COMMANDS
from tablewatch.config import StrictModel


class BrokerSetup(StrictModel):
    """What a tablewatch broker listens on and how it checks clients."""

    bind: str = Field(default="127.0.0.1", description="address of the plain and websockets listeners")
    mqtt_port: int | None = Field(default=1883, ge=1, le=65535,
                                  description="plain MQTT (loopback or a trusted LAN only)")
    tls_port: int | None = Field(default=None, ge=1, le=65535, description="MQTT over TLS")
    ws_port: int | None = Field(default=None, ge=1, le=65535, description="MQTT over WebSockets (browsers)")
    ws_tls: bool = Field(default=False, description="serve the websockets listener over TLS too (wss://)")
    http_dir: Path | None = Field(default=None, description="static files served on the websockets port (web console)")
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    require_client_cert: bool = Field(default=False, description="mutual TLS on top of passwords")
    password_file: Path | None = Field(default=None, description="mosquitto_passwd file; None = anonymous (demo only)")
    acl_file: Path | None = Field(default=None, description="rendered by tablewatch.alerts.acl")
    persistence_dir: Path | None = Field(default=None,
                                         description="where the broker keeps sessions and retained messages")
    save_every_change: bool = Field(default=True, description="write the persistence file after each queued "
                                    "message, retained message or subscription, so a crash loses nothing the "
                                    "broker acknowledged; False: every 30 s (a crash loses up to 30 s)")
    log_file: Path | None = Field(default=None, description="None: no log_dest line (mosquitto's default, or the "
                                  "including config's)")
    audit: bool = Field(default=True, description="log every connect, subscribe and unsubscribe with the client's name")
    include_dir: Path | None = Field(default=None, description="extra sections (a bridge) read from this folder")


def render_config(setup: BrokerSetup) -> str:
    lines = ["# mosquitto configuration for tablewatch (rendered by tablewatch.alerts.broker.render_config)",
             "per_listener_settings false"]
    secured = setup.password_file is not None
    lines += ["allow_anonymous false" if secured else "allow_anonymous true"]
    if setup.password_file:
        lines.append(f"password_file {setup.password_file}")
    if setup.acl_file:
        lines.append(f"acl_file {setup.acl_file}")
    if setup.persistence_dir:
        lines += ["persistence true", f"persistence_location {str(setup.persistence_dir).rstrip('/')}/"]
        # A publisher deletes a QoS 1 message once the broker acknowledges it: from then on the broker's file is
        # its only copy. Saved at each change, a kill -9 or OOM kill loses nothing acknowledged.
        lines += ["autosave_on_changes true", "autosave_interval 1"] if setup.save_every_change else [
            "autosave_interval 30"]
    lines += ["max_queued_messages 100000", "max_inflight_messages 100"]
    if setup.log_file:
        lines.append(f"log_dest file {setup.log_file}")
    lines += ["log_timestamp_format %Y-%m-%dT%H:%M:%S", "log_type error", "log_type warning", "log_type notice",
              "log_type information"]
    if setup.audit:  # who connected as whom, who subscribed to what: the audit trail
        lines += ["connection_messages true", "log_type subscribe", "log_type unsubscribe"]
    if setup.mqtt_port:
        lines += ["", f"listener {setup.mqtt_port} {setup.bind}", "protocol mqtt"]
    if setup.tls_port:
        lines += ["", f"listener {setup.tls_port}", "protocol mqtt", *_tls_lines(setup)]
    if setup.ws_port:
        # plain ws:// stays on `bind` (loopback for the demo); wss:// serves the surveillance room's LAN
        where = f"listener {setup.ws_port}" if setup.ws_tls else f"listener {setup.ws_port} {setup.bind}"
        lines += ["", where, "protocol websockets"]
        if setup.http_dir:
            lines.append(f"http_dir {setup.http_dir}")
        if setup.ws_tls:
            lines += _tls_lines(setup)
    if setup.include_dir:
        lines += ["", f"include_dir {setup.include_dir}"]
    return "\n".join(lines) + "\n"


class BridgeSetup(StrictModel):
    """A pit broker's bridge to the central (clustered) broker: its site's tree out, acks back in."""

    name: str = Field(default="central", pattern=r"^[A-Za-z0-9_-]+$")
    addresses: list[str] = Field(..., min_length=1, description="host:port of the central nodes, in failover order")
    site: str = Field(..., description="the site whose tree this pit forwards")
    client_id: str = Field(..., description="the bridge's client id on the central broker")
    username: str | None = None
    password: str | None = None
    ca_file: Path | None = Field(default=None, description="CA of the central broker: TLS when set")
    # mosquitto's private-bridge flag rides in CONNECT's protocol level (132 for 3.1.1); a NATS central node
    # refuses that ("unacceptable protocol version of 132") and the bridge loses seconds on every connect.
    # tablewatch's bridge topics never loop (what goes out never comes back in), so the flag is not needed.
    try_private: bool = Field(default=False, description="mosquitto's private-bridge flag: only for a mosquitto "
                              "central broker")
    restart_timeout_s: tuple[int, int] = Field(default=(2, 30), description="seconds before the first reconnection "
                                               "try, and the most between tries as they back off")

    @field_validator("restart_timeout_s")
    @classmethod
    def _backoff(cls, value: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= value[0] <= value[1]:
            raise ValueError(f"restart_timeout_s {value}: the first wait is at least 1 s and at most the longest")
        return value


def render_bridge(bridge: BridgeSetup) -> str:
    """mosquitto bridge sections, failover across ``addresses``: what must arrive (alerts, incidents, hands, state,
    and the consoles' acks, reviews and switches) at QoS 1 over a persistent session, and the QoS 0 event stream
    over a connection of its own. Apart, a burst of events never delays an alert: mosquitto leaves Nagle's
    algorithm on for a bridge's socket, and a QoS 0 message, which the far side never answers, held the next alert
    up to the peer's delayed ACK (40 ms)."""
    site = f"tablewatch/{bridge.site}/+"
    must = [f"topic {site}/{leaf} out 1" for leaf in ("alert", "alerts", "incident", "incidents", "alerting/state",
                                                     "state", "status", "hand", "secure/#", "broadcast/#")]
    must += [f"topic {site}/{command}/+ in 1" for command in COMMANDS]
    text = _bridge_section(bridge, bridge.name, bridge.client_id, persistent=True, topics=must)
    return text + "\n" + _bridge_section(bridge, f"{bridge.name}-events", f"{bridge.client_id}-events",
                                         persistent=False, topics=[f"topic {site}/event out 0"])


def _bridge_section(bridge: BridgeSetup, name: str, client_id: str, *, persistent: bool, topics: list[str]) -> str:
    lines = [f"# bridge to the central tier (rendered by tablewatch.alerts.broker.render_bridge): {name}",
             f"connection {name}", f"address {' '.join(bridge.addresses)}", "round_robin false",
             f"remote_clientid {client_id}", f"cleansession {str(not persistent).lower()}",
             "bridge_protocol_version mqttv311", f"try_private {str(bridge.try_private).lower()}",
             f"restart_timeout {bridge.restart_timeout_s[0]} {bridge.restart_timeout_s[1]}",
             "notifications true",  # $SYS/broker/connection/<client id>/state: 1 up, 0 down
             *topics]
    if bridge.username:
        lines.append(f"remote_username {bridge.username}")
    if bridge.password:
        lines.append(f"remote_password {bridge.password}")
    if bridge.ca_file:
        lines += [f"bridge_cafile {bridge.ca_file}", "bridge_insecure false"]
    return "\n".join(lines) + "\n"


def bridged_broker(workdir: Path, bridge: BridgeSetup) -> EmbeddedBroker:
    """A pit's mosquitto as tablewatch configures one (persistence saved at each change, a deep queue), bridged to
    the central tier by ``bridge``; not started yet."""
    conf = workdir / "conf.d"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "bridge.conf").write_text(render_bridge(bridge))
    return EmbeddedBroker(workdir, ws_port=None, setup=BrokerSetup(include_dir=conf))


def _tls_lines(setup: BrokerSetup) -> list[str]:
    missing = [n for n in ("ca_file", "cert_file", "key_file") if getattr(setup, n) is None]
    if missing:
        raise ValueError(f"a TLS listener needs {', '.join(missing)}")
    lines = [f"cafile {setup.ca_file}", f"certfile {setup.cert_file}", f"keyfile {setup.key_file}",
             "tls_version tlsv1.2"]
    if setup.require_client_cert:
        lines += ["require_certificate true", "use_identity_as_username false"]
    return lines


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def terminate(process: subprocess.Popen[bytes] | None, *, timeout: float) -> None:
    """SIGTERM, and SIGKILL if it is still there after ``timeout`` seconds."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class BrokerStartError(RuntimeError):
    """mosquitto is missing or would not start; the message carries the reason from its log."""


class EmbeddedBroker:
    """A mosquitto process of our own (demo, ``tablewatch broker``, tests): anonymous on loopback unless
    ``setup`` says otherwise. Ports left as 0 are chosen free."""

    def __init__(self, workdir: Path, *, port: int = 0, ws_port: int | None = 0, web_dir: Path | None = None,
                 setup: BrokerSetup | None = None) -> None:
        self.binary = self.find_binary()
        self.workdir = workdir.resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        setup = setup or BrokerSetup()
        updates: dict[str, object] = {"mqtt_port": port or free_port(), "log_file": self.workdir / "mosquitto.log",
                                      "persistence_dir": self.workdir}
        if ws_port is not None:
            updates["ws_port"] = ws_port or free_port()
            if web_dir is not None:
                updates["http_dir"] = web_dir.resolve()
        self.setup = setup.model_copy(update=updates)
        self.config_path = self.workdir / "mosquitto.conf"
        self.process: subprocess.Popen[bytes] | None = None

    @staticmethod
    def find_binary() -> str:
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            raise BrokerStartError("mosquitto is not installed: apt-get install mosquitto (or give --url of a broker)")
        return binary

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.setup.mqtt_port}"

    @property
    def ws_url(self) -> str | None:
        return f"ws://127.0.0.1:{self.setup.ws_port}/mqtt" if self.setup.ws_port else None

    @property
    def web_url(self) -> str | None:
        """The surveillance page, when ``web_dir`` is served on the websockets port."""
        if not (self.setup.ws_port and self.setup.http_dir):
            return None
        return f"http://127.0.0.1:{self.setup.ws_port}/index.html?ws={self.ws_url}"

    def start(self, timeout: float = 10.0) -> EmbeddedBroker:
        # Run as root, mosquitto would switch to the 'mosquitto' user and lose access to our files.
        ports = [p for p in (self.setup.mqtt_port, self.setup.ws_port) if p]
        busy = [p for p in ports if _listening(p)]
        if busy:
            raise BrokerStartError(f"mosquitto did not start: port(s) {busy} already in use (another broker?)")
        text = "user root\n" + render_config(self.setup)
        self.config_path.write_text(text)
        self.process = subprocess.Popen([self.binary, "-c", str(self.config_path)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while not all(_listening(p) for p in ports):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise BrokerStartError(f"mosquitto did not start on {ports}: {self.log_tail()}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        terminate(self.process, timeout=5)
        self.process = None

    def log_tail(self, lines: int = 8) -> str:
        path = self.workdir / "mosquitto.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        if self.process is not None and self.process.stderr is not None and self.process.poll() is not None:
            text += self.process.stderr.read().decode(errors="replace")
        return " | ".join(text.strip().splitlines()[-lines:]) or "(no log)"

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def start_broker(workdir: Path, *, port: int = 0, web: bool = True) -> EmbeddedBroker:
    """The demo's one call: an anonymous loopback broker with the web console on its websockets port."""
    from tablewatch.alerts.web import stage_console

    web_dir = stage_console(workdir / "web") if web else None
    return EmbeddedBroker(workdir, port=port, ws_port=0 if web else None, web_dir=web_dir).start()
