"""The central tier's example files in ``deploy/central/``, rendered from the code the tests run.

    python -m tablewatch.central.deploy deploy/     # rewrite them after changing cluster.py or access.py
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tablewatch.alerts.acl import Roster
from tablewatch.alerts.deploy import ROSTER_YAML, write_examples
from tablewatch.central.access import render_authorization
from tablewatch.central.cluster import NodeSetup, render_node

ETC = Path("/etc/tablewatch/central")
NODES = ("central-1", "central-2", "central-3")


def node_setup(name: str) -> NodeSetup:
    return NodeSetup(name=name, host="0.0.0.0", client_port=4222, cluster_port=6222, mqtt_port=8883, ws_port=8884,
                     monitor_port=8222, store_dir=Path("/var/lib/tablewatch/jetstream"),
                     routes=[f"{node}.casino.lan:6222" for node in NODES], cert_file=ETC / "server.crt",
                     key_file=ETC / "server.key", ca_file=ETC / "ca.crt",
                     authorization=render_authorization(Roster.model_validate(yaml.safe_load(ROSTER_YAML))))


def example_files() -> dict[str, str]:
    """Relative path under deploy/ -> text."""
    return {f"central/{name}.conf": render_node(node_setup(name)) for name in NODES}


def main(argv: list[str] | None = None) -> int:
    return write_examples(example_files(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
