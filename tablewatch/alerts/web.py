"""The surveillance room's web page: static files served by mosquitto's websockets listener (``http_dir``).

The page (``static/``) talks MQTT over WebSockets with the vendored MQTT.js and checks every payload against
the schemas staged beside it (``schemas/``), those it reads and those it sends; evidence written under
``<web dir>/evidence`` is served beside it, so an alert's ``still_url``/``clip_url`` are relative URLs.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

from tablewatch.alerts.payloads import SCHEMA_VERSIONS, load_schema

STATIC_FILES = ("index.html", "console.js", "schema.js", "console.css", "mqtt.min.js", "mqtt.LICENSE.md",
                "VENDORED.md")
# The payloads the page reads (stats.json: ``tablewatch stats --web``) and those it sends (review, alerting-set, ack).
SCHEMAS = ("alert", "alerts", "state", "stats", "incident", "incidents", "alerting", "hand", "review", "alerting-set",
           "ack")
EVIDENCE_URL = "evidence"  # relative to the page


def stage_console(dest: Path) -> Path:
    """Copy the page into ``dest`` (mosquitto's ``http_dir``) with an ``evidence/`` folder; returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / EVIDENCE_URL).mkdir(exist_ok=True)
    static = resources.files("tablewatch.alerts").joinpath("static")
    for name in STATIC_FILES:
        with resources.as_file(static.joinpath(name)) as source:
            shutil.copyfile(source, dest / name)
    (dest / "schemas").mkdir(exist_ok=True)
    for name in SCHEMAS:
        (dest / "schemas" / f"{name}-{SCHEMA_VERSIONS[name]}.json").write_text(json.dumps(load_schema(name)))
    return dest
