"""Who may read and write what on the broker: a roster of users and roles, rendered as a mosquitto ACL file.

Roles (the topic tree of topics.py makes each a few wildcard lines):
- ``table``: writes only under ``tablewatch/<site>/<table>/``; reads only its own ``ack/+`` topics.
- ``floor``: reads alerts, incidents, alerting switches, state, status, the redacted event stream and finished
  hands; writes acks, reviews and alerting switches, only on ``ack/``, ``review/`` and ``alerting/set/<his user
  name>``: the table takes the writer's name from the topic, so no one acks, reviews or mutes as another.
  Never ``secure/`` (hole cards of a hand in progress) and never ``broadcast/``.
- ``surveillance``: reads everything under ``tablewatch/`` (hole cards included); writes as itself as the floor.
- ``broadcast``: reads only ``broadcast/`` (hands after they end, or after the configured delay) and status.
- ``archive``: reads finished hands, alerts and incidents (the PostgreSQL writers, with ``$share/`` subscriptions).
- ``bridge``: a pit broker forwarding its site's tree to the central broker, and acks back.

    python -m tablewatch.alerts.acl deploy/roster.example.yaml > /etc/mosquitto/tablewatch.acl
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from tablewatch.alerts.config import check_name
from tablewatch.alerts.topics import COMMANDS
from tablewatch.config import ConfigError, StrictModel, load_config

FLOOR_READS = ("alert", "alerts", "incident", "incidents", "alerting/state", "state", "status", "event", "hand")
Role = Literal["table", "floor", "surveillance", "broadcast", "archive", "bridge"]


class User(StrictModel):
    name: str = Field(..., min_length=1, pattern=r"^[A-Za-z0-9_.@-]+$",
                      description="MQTT user name (config.check_user: it ends the user's ack topic)")
    role: Role
    site: str = Field(default="+", description="the site this user serves; '+' for every site")
    table: str | None = Field(default=None, description="the table, for role 'table' only")

    @model_validator(mode="after")
    def verify_table_for_tables(self) -> User:
        if self.role == "table":
            if self.table is None or self.site == "+":
                raise ValueError(f"user {self.name!r}: role 'table' needs a site and a table")
            check_name("table", self.table)
        elif self.table is not None:
            raise ValueError(f"user {self.name!r}: only role 'table' takes a table (role is {self.role!r})")
        if self.site != "+":
            check_name("site", self.site)
        return self


class Roster(StrictModel):
    users: list[User] = Field(..., min_length=1)

    @model_validator(mode="after")
    def verify_unique_names(self) -> Roster:
        names = [u.name for u in self.users]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"user names must be unique; repeated: {', '.join(repeated)}")
        return self


def rules_for(user: User) -> list[str]:
    """The ``topic read|write|readwrite`` lines of one user."""
    base = f"tablewatch/{user.site}"
    if user.role == "table":
        own = f"{base}/{user.table}"
        return [f"topic write {own}/#", *(f"topic read {own}/{command}/+" for command in COMMANDS)]
    # the name is the user's own: no one acks, reviews or mutes as another
    own_commands = [f"topic write {base}/+/{command}/{user.name}" for command in COMMANDS]
    if user.role == "floor":
        return [*(f"topic read {base}/+/{leaf}" for leaf in FLOOR_READS), *own_commands]
    if user.role == "surveillance":
        return [f"topic read {base}/#", *own_commands]
    if user.role == "broadcast":
        return [f"topic read {base}/+/broadcast/#", f"topic read {base}/+/status"]
    if user.role == "archive":
        return [f"topic read {base}/+/hand", f"topic read {base}/+/alert", f"topic read {base}/+/incident"]
    return [f"topic readwrite {base}/#"]  # bridge: the whole site's tree both ways


def render_acl(roster: Roster) -> str:
    lines = ["# mosquitto acl_file for tablewatch, rendered by tablewatch.alerts.acl from a roster.",
             "# Anything not listed is denied. Anonymous clients get nothing.", ""]
    for user in roster.users:
        where = f"{user.site}/{user.table}" if user.table else ("every site" if user.site == "+" else user.site)
        lines += [f"# {user.role}: {where}",
                  f"user {user.name}", *rules_for(user), ""]
    return "\n".join(lines)


def write_password_file(path: Path, passwords: Mapping[str, str]) -> None:
    """A mosquitto password file (hashed by ``mosquitto_passwd``), one line per user."""
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise RuntimeError("mosquitto_passwd is not installed (apt-get install mosquitto)")
    path.write_text("")
    for user, password in passwords.items():
        done = subprocess.run([tool, "-b", str(path), user, password], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"mosquitto_passwd failed for {user!r}: {done.stderr.strip() or done.stdout.strip()}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tablewatch.alerts.acl ROSTER.yaml > acl", file=sys.stderr)
        return 2
    try:
        roster = load_config(args[0], Roster)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(render_acl(roster))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
