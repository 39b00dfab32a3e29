"""The example files of ``deploy/``, rendered from the same code the tests run against a real mosquitto.

    python -m tablewatch.alerts.deploy deploy/     # rewrite the examples after changing broker.py or acl.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from tablewatch.alerts.acl import Roster, render_acl
from tablewatch.alerts.broker import BridgeSetup, BrokerSetup, render_bridge, render_config

ETC = Path("/etc/mosquitto/tablewatch")

PIT_BROKER = BrokerSetup(
    bind="127.0.0.1", mqtt_port=1883, tls_port=8883, ws_port=8884, ws_tls=True,  # no http_dir: see webserver.py
    ca_file=ETC / "ca.crt", cert_file=ETC / "server.crt",
    key_file=ETC / "server.key", password_file=ETC / "passwd", acl_file=ETC / "acl",
    persistence_dir=Path("/var/lib/mosquitto"), log_file=Path("/var/log/mosquitto/tablewatch.log"),
    include_dir=Path("/etc/mosquitto/tablewatch/conf.d"))

PIT_BRIDGE = BridgeSetup(name="central", addresses=["central-1.casino.lan:8883", "central-2.casino.lan:8883"],
                         site="casino", client_id="bridge-pit-1", username="bridge-pit-1",
                         password="CHANGE-ME", ca_file=ETC / "central-ca.crt")

ROSTER_YAML = """\
# Who may connect to a tablewatch broker, and in which role (see tablewatch/alerts/acl.py).
# Render the ACL with:  python -m tablewatch.alerts.acl roster.yaml > /etc/mosquitto/tablewatch/acl
# Passwords are not kept here: mosquitto_passwd /etc/mosquitto/tablewatch/passwd <name>
users:
  - {name: table-casino-T01, role: table, site: casino, table: T01}
  - {name: table-casino-T02, role: table, site: casino, table: T02}
  - {name: floor-pit-1, role: floor, site: casino}
  - {name: surveillance-room, role: surveillance}
  - {name: broadcast-tv, role: broadcast, site: casino}
  - {name: archive-1, role: archive}
  - {name: archive-2, role: archive}
  - {name: bridge-pit-1, role: bridge, site: casino}
"""


def example_files() -> dict[str, str]:
    """Relative path under deploy/ -> text."""
    roster = Roster.model_validate(yaml.safe_load(ROSTER_YAML))
    return {
        "roster.example.yaml": ROSTER_YAML,
        "mosquitto/mosquitto.conf": render_config(PIT_BROKER),
        "mosquitto/conf.d/bridge-central.conf": render_bridge(PIT_BRIDGE),
        "mosquitto/acl.example": render_acl(roster),
    }


def write_examples(files: dict[str, str], argv: list[str] | None) -> int:
    """Write ``files`` under the folder named by the command line (``deploy`` by default)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0] if args else "deploy")
    for name, text in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return write_examples(example_files(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
