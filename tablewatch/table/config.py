"""The configuration of one table (``tablewatch run TABLE.toml``): what it plays, its sensors, where results go."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from tablewatch.alerts.config import BroadcastDelay, BrokerConfig, check_name
from tablewatch.alerts.evidence import EvidenceConfig
from tablewatch.config import StrictModel
from tablewatch.devices.console import PERSON_NAME
from tablewatch.devices.poller import ReaderConfig
from tablewatch.rules.game import GameConfig
from tablewatch.rules.profiles import RuleProfile
from tablewatch.table.drift import DEFAULT_EVERY
from tablewatch.table.levels import LevelConfig, check_structure
from tablewatch.table.replay import ReplayConfig


class CameraConfig(StrictModel):
    source: str = Field(description="video file, rtsp://…, http://…, /dev/videoN or a camera index; Motion-JPEG "
                        "(a USB camera's usual 4K format) is read compressed and decoded only where vision looks. "
                        "A network stream (RTSP with H.264 or H.265, HTTP Motion-JPEG) is read at its own rate "
                        "and reconnected when it drops; its frames are timed by the stream's own timestamps where "
                        "it sends them (RTSP does, Motion-JPEG over HTTP does not), so frames that arrive late or "
                        "in a burst keep the camera's spacing. A video file in any codec FFmpeg decodes (AV1 "
                        "through PyAV where OpenCV lacks it) is timed by its frames' own timestamps where they "
                        "differ from the file's frame rate (a recorder that writes only the frames it got)")
    name: str = Field(default="overhead", description="camera name in evidence and events")
    profile: Path | None = Field(default=None, description="the table profile calibrated from this camera "
                                 "(`tablewatch calibrate`): its frames then go through vision perception and "
                                 "its events join the table's; none: the camera gives evidence only")
    deck: str | None = Field(default=None, description="card faces to read identities against: the venue's deck "
                             "atlas (`tablewatch deck register`, a .png) or a shipped deck (`tablewatch deck list`, "
                             "e.g. anglo_poker); none: cards are seen but not read")
    drift_every: int = Field(default=DEFAULT_EVERY, ge=0, description="with a profile: look for the table's "
                             "markers every this many frames to notice the camera moved or knocked (0: never)")
    hand_finder: bool = Field(default=True, description="with a profile: find the hands vision's motion path "
                              "misses with the table-objects detector (~4 ms per analysed frame while dealing)")
    own_process: bool = Field(default=False, description="read, decode and perceive this camera in a process of its "
                              "own (a 4K camera beside the rules on a small box), its frames shared with the "
                              "table's process through shared memory; a recording played --fast keeps it in a "
                              "thread")
    shared_memory_mb: int = Field(default=512, ge=8, le=65536, description="with own_process: the frames kept in "
                                  "shared memory for evidence clips (a 4K Motion-JPEG frame is ~1.5 MB: 512 MB "
                                  "keeps ~11 s at 30 frames/s; a container's /dev/shm may need --shm-size)")


class EventLogConfig(StrictModel):
    """``events.jsonl``: when it is rotated, and how long its rotated files are kept (whichever limit comes first)."""

    rotate_mb: float = Field(default=256, gt=0, description="start a new events.jsonl once it is this big")
    rotate_hours: float = Field(default=24, gt=0, description="... or once it has been written this long")
    keep_days: float = Field(default=14, gt=0, description="delete rotated files older than this")
    keep_gb: float = Field(default=20, gt=0, description="delete the oldest rotated files past this total")


class MetricsConfig(StrictModel):
    """The table's Prometheus metrics and health endpoint (``/metrics``, ``/healthz``)."""

    host: str = Field(default="127.0.0.1", description="address to listen on (0.0.0.0: every interface)")
    port: int = Field(default=9310, ge=1, le=65535, description="TCP port of /metrics and /healthz")


class RunConfig(StrictModel):
    """One table: what it plays, its sensors and where its results go."""

    site: str = Field(default="casino", description="site id: the second MQTT topic level")
    table: str = Field(default="T01", description="table id: the third MQTT topic level")
    game: GameConfig = Field(default_factory=GameConfig)
    rules: RuleProfile = Field(default_factory=RuleProfile)
    levels: list[LevelConfig] = Field(default_factory=list, description="a tournament's level structure, numbers "
                                      "ascending: each hand plays the blinds and ante of the level in force when it "
                                      "starts (the clock's, or the console's `level N`); none: the game's stakes")
    level_started_at: datetime | None = Field(default=None, description="when the first level started (a time "
                                              "with its zone); none: at the run's start")
    readers: list[ReaderConfig] = Field(default_factory=list, description="RFID reader lines")
    registry: Path | None = Field(default=None, description="chip tag registry CSV (uid,denomination,chip_set); "
                                  "needed with RFID readers")
    console: str | None = Field(default=None, description="dealer console serial URL")
    dealer: str | None = Field(default=None, description="who deals when the table starts, for the statistics "
                               "(1-40 letters, digits, spaces, . ' -); the console's `dealer NAME` changes it")
    console_typing_lag_s: float = Field(default=0.5, ge=0, le=5, description="how long after a player speaks the "
                                        "dealer's entry of it arrives: declarations are stamped that much earlier "
                                        "and the table's events held as long, so words said as the chips went out "
                                        "govern them (TDA-27A); 0: stamped on arrival, events not held")
    cameras: list[CameraConfig] = Field(default_factory=list, description="the table's cameras (an overhead one "
                                        "with a profile is what vision watches); none: no video")
    mqtt: BrokerConfig | None = Field(default=None, description="the broker: a URL (`mqtt = \"mqtts://host:8883\"`) "
                                      "or a table with url, username, password_file, ca_file, cert_file, key_file; "
                                      "none: alerts to the terminal and files only")
    broadcast_delay_s: BroadcastDelay = 0.0
    out: Path = Field(default=Path("out/run"), description="where events, alerts, hands and evidence go")
    hand_store: str | None = Field(default=None, description="where finished hands and their statistics are kept "
                                   "as well as `out`/hands: a SQLite file, `sqlite:///path` or `postgresql://…` "
                                   "(the room's store, for `tablewatch stats` over every table); none: "
                                   "`out`/hands/hands.sqlite")
    event_log: EventLogConfig = Field(default_factory=EventLogConfig, description="rotation and retention of "
                                      "`out`/events.jsonl (a busy table writes gigabytes a day)")
    evidence: EvidenceConfig = Field(default_factory=EvidenceConfig, description="each alert's still and clip "
                                     "(with a broker and a camera); a relative folder is under `out`")
    metrics: MetricsConfig | None = Field(default=None, description="serve Prometheus metrics and a health check "
                                          "over HTTP; none: no endpoint")
    replay: ReplayConfig | None = Field(default=None, description="play a recording of the devices instead of "
                                        "the devices (tablewatch.table.replay): each reader line and the console "
                                        "are served on ptys the run makes, from the recorded timelines")

    @field_validator("site", "table")
    @classmethod
    def _topic_level(cls, value: str) -> str:
        return check_name("site/table", value)

    @field_validator("dealer")
    @classmethod
    def _dealer_name(cls, value: str | None) -> str | None:
        if value is not None and not PERSON_NAME.fullmatch(value):
            raise ValueError(f"{value[:40]!r} is not a dealer's name (1-40 letters, digits, spaces, . ' -)")
        return value

    @model_validator(mode="after")
    def _readers_need_the_registry(self) -> RunConfig:
        if self.readers and self.registry is None:  # every chip would be unknown: one TDA-16B alert per chip
            raise ValueError("RFID readers need `registry`, the house's tag registry (CSV): without it no chip has a "
                             "value and every chip read is an unknown chip")
        return self

    @field_validator("game")
    @classmethod
    def _flop_game(cls, value: GameConfig) -> GameConfig:
        if not value.flop_game:  # the framer and vision follow a flop game's deal; the others are replayed
            raise ValueError(f"{value.variant} is replayed and checked from hand histories (`tablewatch replay`); "
                             "a live table watches hold'em and Omaha")
        return value

    @field_validator("levels")
    @classmethod
    def _level_structure(cls, value: list[LevelConfig]) -> list[LevelConfig]:
        check_structure(value)
        return value

    @field_validator("mqtt", mode="before")
    @classmethod
    def _url_alone(cls, value: Any) -> Any:
        return {"url": value} if isinstance(value, str) else value
