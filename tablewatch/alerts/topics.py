"""The topic tree, one per table, laid out so broker ACLs can tell who may read what.

``tablewatch/<site>/<table>/``
  ``alert``            QoS 1  one JSON per alert revision, cards hidden while the hand is on  floor, surveillance
  ``alerts``           retained  the open alerts, newest revision of each (for late joiners)   floor, surveillance
  ``event``            QoS 0  the event stream, hole cards of a hand in progress REDACTED      floor, surveillance
  ``hand``             QoS 1  one finished hand (hole cards allowed: the hand is over)       floor, archive
  ``state``            retained  the live table (no hole cards)                              floor, surveillance
  ``status``           retained  ``online`` / ``offline`` (the last will)                     everyone
  ``ack/<user>``       QoS 1  an acknowledgement by MQTT user <user> (the ACL lets each write only his own)
  ``incident``         QoS 1  one JSON per incident revision (alerts that belong together)   floor, surv., archive
  ``incidents``        retained  the incidents not yet resolved or dismissed                   floor, surveillance
  ``review/<user>``    QoS 1  <user> acknowledges, resolves, dismisses, keeps or exports an incident
  ``alerting/set/<user>`` QoS 1  <user> switches or mutes the table's alerting, or one rule's
  ``alerting/state``   retained  the table's alerting switches                                 floor, surveillance
  ``secure/holecards`` QoS 1  hole cards as they are dealt                                   surveillance only
  ``broadcast/hand``   QoS 1  the finished hand again, ``broadcast_delay_s`` after it ended   broadcast role

Everything secret lives under ``secure/`` and everything a broadcaster may read under ``broadcast/``, so
an ACL is a handful of wildcard lines (deploy/mosquitto/acl.example) and never depends on payloads.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablewatch.alerts.config import check_name, check_user

ROOT = "tablewatch"
LEAVES = ("alert", "alerts", "event", "hand", "state", "status", "ack/<user>", "incident", "incidents",
          "review/<user>", "alerting/set/<user>", "alerting/state", "secure/holecards", "broadcast/hand")
# The topics where consoles write, each ending in the writer's MQTT user name (the ACL holds him to it).
COMMANDS = ("ack", "review", "alerting/set")


@dataclass(frozen=True)
class TableTopics:
    site: str
    table: str

    def __post_init__(self) -> None:
        check_name("site", self.site)
        check_name("table", self.table)

    @property
    def base(self) -> str:
        return f"{ROOT}/{self.site}/{self.table}"

    @property
    def alert(self) -> str:
        return f"{self.base}/alert"

    @property
    def open_alerts(self) -> str:
        return f"{self.base}/alerts"

    @property
    def event(self) -> str:
        return f"{self.base}/event"

    @property
    def hand(self) -> str:
        return f"{self.base}/hand"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def status(self) -> str:
        return f"{self.base}/status"

    @property
    def acks(self) -> str:
        """Every acknowledgement of this table, whoever sent it."""
        return f"{self.base}/ack/+"

    def ack_by(self, user: str) -> str:
        """Where ``user`` acknowledges: the last level is his MQTT user name, which the ACL holds him to."""
        return f"{self.base}/ack/{check_user(user)}"

    @property
    def incident(self) -> str:
        return f"{self.base}/incident"

    @property
    def open_incidents(self) -> str:
        return f"{self.base}/incidents"

    @property
    def reviews(self) -> str:
        """Every review of this table's incidents, whoever sent it."""
        return f"{self.base}/review/+"

    def review_by(self, user: str) -> str:
        return f"{self.base}/review/{check_user(user)}"

    @property
    def alerting_sets(self) -> str:
        return f"{self.base}/alerting/set/+"

    def alerting_set_by(self, user: str) -> str:
        return f"{self.base}/alerting/set/{check_user(user)}"

    @property
    def alerting_state(self) -> str:
        return f"{self.base}/alerting/state"

    @property
    def holecards(self) -> str:
        return f"{self.base}/secure/holecards"

    @property
    def broadcast_hand(self) -> str:
        return f"{self.base}/broadcast/hand"


def all_tables(leaf: str, site: str = "+") -> str:
    """Subscription filter for ``leaf`` on every table (of one site, or of all with ``site="+"``)."""
    if leaf not in LEAVES:
        raise ValueError(f"unknown topic leaf {leaf!r}; known: {', '.join(LEAVES)}")
    return f"{ROOT}/{site}/+/{leaf}"


def acknowledger(topic: str, command: str = "ack") -> str:
    """The MQTT user who wrote on the command topic ``topic`` (``…/ack/floor-pit-1`` -> ``floor-pit-1``;
    ``command`` is one of COMMANDS)."""
    _, _, leaf = split_topic(topic)
    kind, _, user = leaf.rpartition("/")
    if kind != command:
        raise ValueError(f"{topic!r} is not a {command} topic (…/{command}/<user>)")
    return check_user(user)


def split_topic(topic: str) -> tuple[str, str, str]:
    """``tablewatch/casino/T01/alert`` -> ``("casino", "T01", "alert")``; ValueError for a foreign topic."""
    parts = topic.split("/", 3)
    if len(parts) != 4 or parts[0] != ROOT:
        raise ValueError(f"{topic!r} is not a tablewatch topic (tablewatch/<site>/<table>/<leaf>)")
    return parts[1], parts[2], parts[3]
