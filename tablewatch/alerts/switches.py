"""Alerting switches of one table: on or off, and muted for a time, for the whole table or one rule.

The floor sets them over MQTT (``alerting/set/<user>``, like Frigate's ``…/set`` topics) or from the page;
the table answers with the retained ``alerting/state``. An alert raised while its rule or table is muted or off
is still published on ``alert`` (flagged ``muted``, so the archive keeps it and nothing is lost) but opens no
incident and rings no console. A rule is named by its catalogue entry (``TDA-22A``) or a sub-case
(``TDA-22A(7)``). The switches survive a restart of the monitor: they are kept in a small JSON file.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from tablewatch.alerts import payloads as pl
from tablewatch.alerts.incidents import rule_family

log = logging.getLogger(__name__)
MAX_RULES = 200  # switches kept per table; a flood of made-up rule ids can't grow the state without end


@dataclass
class Switch:
    enabled: bool = True
    muted_until: float = 0.0  # wall-clock (UNIX seconds); 0: not muted

    def allows(self, now: float) -> bool:
        return self.enabled and now >= self.muted_until

    def as_dict(self, now: float) -> pl.RuleSwitch:
        return {"enabled": self.enabled,
                "muted_until": pl.iso_time(self.muted_until) if self.muted_until > now else None}


@dataclass
class AlertSwitches:
    path: Path | None = None  # where they are kept; None: not kept over a restart
    table: Switch = field(default_factory=Switch)
    rules: dict[str, Switch] = field(default_factory=dict)
    changed_by: str | None = None
    suppressed: dict[str, int] = field(default_factory=dict)  # alerts raised while muted or off, by rule

    @classmethod
    def load(cls, path: Path | None) -> AlertSwitches:
        """The switches kept at ``path``; all on when there is no file yet. A file that can't be read is set aside
        (renamed ``.bad``) and logged, and alerting starts all on: muting is a convenience, alerting the duty."""
        switches = cls(path=path)
        if path is None or not path.exists():
            return switches
        try:
            body = json.loads(path.read_text())
            switches.table = Switch(bool(body["table"]["enabled"]), float(body["table"]["muted_until"]))
            switches.rules = {str(rule): Switch(bool(s["enabled"]), float(s["muted_until"]))
                              for rule, s in body["rules"].items()}
            switches.changed_by = body.get("changed_by")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.error("alerting switches in %s can't be read (%s): set aside as %s.bad, every alert is on", path,
                      exc, path.name)
            path.replace(path.with_name(path.name + ".bad"))
            return cls(path=path)
        return switches

    def allows(self, rule_id: str, now: float) -> bool:
        """True when an alert of ``rule_id`` may open an incident and notify now."""
        switches = [self.table, self.rules.get(rule_id), self.rules.get(rule_family(rule_id))]
        return all(s.allows(now) for s in switches if s is not None)

    def count_suppressed(self, rule_id: str) -> None:
        self.suppressed[rule_id] = self.suppressed.get(rule_id, 0) + 1

    def apply(self, command: pl.AlertingSetPayload, now: float) -> None:
        """One ``alerting/set`` command: ``enabled`` switches, ``mute_for_s`` mutes (0 unmutes); None leaves as is."""
        rule = command["rule_id"]
        if rule is not None and rule not in self.rules and len(self.rules) >= MAX_RULES:
            raise ValueError(f"already {MAX_RULES} rules switched at this table")
        switch = self.table if rule is None else self.rules.setdefault(rule, Switch())
        if command["enabled"] is not None:
            switch.enabled = command["enabled"]
        if command["mute_for_s"] is not None:
            switch.muted_until = now + command["mute_for_s"] if command["mute_for_s"] > 0 else 0.0
        self.changed_by = command["by"]
        self._keep()

    def payload(self, ctx: pl.Context, *, seq: int, now: float) -> pl.AlertingPayload:
        rules = {rule: s.as_dict(now) for rule, s in sorted(self.rules.items())
                 if not s.enabled or s.muted_until > now}
        state = self.table.as_dict(now)
        return {**ctx.head("alerting", pl.stable_id("sw", ctx.site, ctx.table, ctx.session, seq)),
                "time": pl.iso_time(now), "enabled": state["enabled"], "muted_until": state["muted_until"],
                "rules": rules, "changed_by": self.changed_by, "suppressed": dict(sorted(self.suppressed.items()))}

    def _keep(self) -> None:
        if self.path is None:
            return
        body = {"table": {"enabled": self.table.enabled, "muted_until": self.table.muted_until},
                "rules": {r: {"enabled": s.enabled, "muted_until": s.muted_until} for r, s in self.rules.items()},
                "changed_by": self.changed_by}
        aside = self.path.with_name(self.path.name + ".new")
        aside.write_text(json.dumps(body, indent=1))
        os.replace(aside, self.path)
