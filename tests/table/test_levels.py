"""A tournament's levels: the structure in the run config, the level in force from the clock or the console, the
stakes each framed hand plays, and TDA-14 on blinds posted at another level."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from tablewatch.events import (
    BetMotion,
    CardDealt,
    CardsMucked,
    Chips,
    Event,
    HandStarted,
    LevelChanged,
    PotPushed,
    Violation,
    load_events,
)
from tablewatch.hands import FinishedHand
from tablewatch.rules.game import GameConfig
from tablewatch.rules.table import TableRules
from tablewatch.table.config import RunConfig
from tablewatch.table.framer import HandFramer
from tablewatch.table.levels import LevelClock, LevelConfig
from tablewatch.table.outputs import FilesOutput
from tablewatch.table.pipeline import TablePipeline
from tablewatch.table.run import _level_clock

T = "T01"
STRUCTURE = [
    {"number": 1, "small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 10},
    {"number": 2, "small_blind": 200, "big_blind": 400, "big_blind_ante": 400, "minutes": 10},
    {"number": 3, "small_blind": 300, "big_blind": 600, "big_blind_ante": 600},
]


def levels(**changes: object) -> list[LevelConfig]:
    return [LevelConfig.model_validate(level | changes) for level in STRUCTURE]


def deal(ts: float, seats: list[int]) -> list[Event]:
    return [CardDealt(ts=ts + 0.3 * i, table=T, source="vision", seat=seat) for i, seat in enumerate(seats * 2)]


def post(ts: float, seat: int, value: int) -> BetMotion:
    return BetMotion(ts=ts, table=T, source="scene", seat=seat, chips=Chips.of({value: 1}))


def hand_over(ts: float) -> list[Event]:
    return [PotPushed(ts=ts, table=T, source="scene", seat=3, value=600),
            CardsMucked(ts=ts + 1, table=T, source="vision", seat=3)]


def frame(events: list[Event], clock: LevelClock) -> list[Event]:
    framer = HandFramer(GameConfig(), levels=clock)
    return [e for event in events for e in framer.feed(event)] + framer.flush()


def stakes(start: HandStarted) -> tuple[int | None, ...]:
    return start.level, start.small_blind, start.big_blind, start.ante, start.big_blind_ante


def test_the_structure_is_validated_in_the_run_config() -> None:
    config = RunConfig.model_validate({"levels": STRUCTURE, "level_started_at": "2026-12-01T20:00:00Z"})
    assert [level.big_blind for level in config.levels] == [200, 400, 600]
    for bad, why in [(STRUCTURE[::-1], "ascending"), (STRUCTURE + STRUCTURE[:1], "ascending"),
                     ([STRUCTURE[0] | {"small_blind": 0}], "greater than 0"),
                     ([STRUCTURE[0] | {"small_blind": 300}], "larger than big_blind"),
                     ([STRUCTURE[1] | {"ante": 50}], "either ante or big_blind_ante"),
                     ([STRUCTURE[0] | {"minutes": 0}], "greater than 0")]:
        with pytest.raises(ValidationError, match=why):
            RunConfig.model_validate({"levels": bad})


def test_the_clock_runs_the_levels_from_its_start_and_the_last_stands() -> None:
    clock = LevelClock(levels(), started=100.0)
    assert [clock.at(ts).number for ts in (0.0, 100.0, 699.0, 700.0, 1300.0, 99_999.0)] == [1, 1, 1, 2, 3, 3]


def test_the_clock_starts_at_the_configured_time_or_at_the_run_start() -> None:
    started = datetime.fromtimestamp(time.time() - 15 * 60, tz=UTC)
    clock = _level_clock(RunConfig.model_validate({"levels": STRUCTURE, "level_started_at": started}), 0.0)
    assert clock is not None and clock.at(0.0).number == 2 and clock.at(5 * 60 + 1).number == 3
    from_start = _level_clock(RunConfig.model_validate({"levels": STRUCTURE}), 0.0)
    assert from_start is not None and from_start.at(0.0).number == 1
    assert _level_clock(RunConfig(), 0.0) is None


def test_each_framed_hand_plays_its_levels_blinds_and_ante_from_the_clock() -> None:
    out = frame([*deal(5.0, [3, 6, 8, 1]), *hand_over(20.0), *deal(650.0, [3, 6, 8, 1])],
                LevelClock(levels(), started=0.0))
    started = [e for e in out if isinstance(e, HandStarted)]
    assert [stakes(s) for s in started] == [(1, 100, 200, 0, 0), (2, 200, 400, 0, 400)]  # 650 s: level 2 on the clock


def test_a_level_the_console_announces_applies_from_the_next_hand() -> None:
    clock = LevelClock(levels(minutes=None), started=0.0)  # no clock: the console moves the levels
    given = [*deal(5.0, [3, 6, 8, 1]), LevelChanged(ts=9.0, table=T, source="console", level=3), *hand_over(20.0),
             *deal(30.0, [3, 6, 8, 1])]
    started = [e for e in frame(given, clock) if isinstance(e, HandStarted)]
    assert [s.level for s in started] == [1, 3]
    assert stakes(started[1]) == (3, 300, 600, 0, 600)


def test_blinds_posted_at_the_old_level_are_a_tda_14_finding_and_the_right_ones_none() -> None:
    clock = LevelClock(levels(minutes=None), started=0.0)
    given = [LevelChanged(ts=1.0, table=T, source="console", level=2),
             post(5.0, 3, 100), post(5.5, 6, 200), *deal(6.0, [3, 6, 8, 1])]  # level 1's blinds
    out = frame(given, clock)
    found = [e for e in out if isinstance(e, Violation)]
    assert [(v.rule_id, v.hand_no, v.seats) for v in found] == [("TDA-14", 1, (3, 6))]
    assert "correct the blinds to level 2" in found[0].ruling and "posted 100/200" in found[0].observed
    start = next(e for e in out if isinstance(e, HandStarted))
    assert out.index(found[0]) == out.index(start) + 1  # right after the hand's start
    right = [LevelChanged(ts=1.0, table=T, source="console", level=2),
             post(5.0, 3, 200), post(5.5, 6, 800), *deal(6.0, [3, 6, 8, 1])]  # the big blind with its ante
    assert not [e for e in frame(right, LevelClock(levels(minutes=None))) if isinstance(e, Violation)]


def test_the_rules_play_a_hand_at_the_stakes_its_start_names() -> None:
    rules = TableRules(GameConfig(), table=T, checks=[], strict=True)
    start = HandStarted(ts=1.0, table=T, source="scene", hand_no=1, button=1, seats=(1, 3, 6), stacks=(9000,) * 3,
                        level=2, small_blind=200, big_blind=400, ante=0, big_blind_ante=400)
    rules.feed(start)
    assert rules.current is not None
    state = rules.current.hand.state
    assert rules.current.hand.config.big_blind == 400 and sorted(state.bets) == [0, 200, 400]
    assert sum(state.stacks) == 27000 - 200 - 400 - 400  # the big blind's ante is in the pot


class Hands:
    def __init__(self) -> None:
        self.finished: list[FinishedHand] = []

    def on_event(self, event: Event) -> None: ...

    def on_violation(self, violation: Violation) -> None: ...

    def on_hand(self, hand: FinishedHand) -> None:
        self.finished.append(hand)

    def close(self) -> None: ...


def test_the_pipeline_alerts_the_wrong_level_and_the_hand_keeps_it(tmp_path: Path) -> None:
    files, hands = FilesOutput(tmp_path), Hands()
    pipeline = TablePipeline(rules=TableRules(GameConfig(), table=T), outputs=[files, hands], lateness=0.0,
                             framer=HandFramer(GameConfig(), levels=LevelClock(levels(minutes=None))))
    given = [LevelChanged(ts=1.0, table=T, source="console", level=2),
             post(5.0, 3, 100), post(5.5, 6, 200), *deal(6.0, [3, 6, 8, 1])]
    for event in given:
        pipeline.process(event)
    pipeline.drain()
    files.close()
    alerts = [v for v in load_events((tmp_path / "alerts.jsonl").read_text()) if isinstance(v, Violation)]
    assert [v.rule_id for v in alerts if v.rule_id == "TDA-14"] == ["TDA-14"]
    logged = load_events((tmp_path / "events.jsonl").read_text())
    assert not [e for e in logged if isinstance(e, Violation)]  # an alert, not a device's event
    started = [e for e in logged if isinstance(e, HandStarted)]
    assert [stakes(s) for s in started] == [(2, 200, 400, 0, 400)]
    assert [v.rule_id for v in hands.finished[0].violations if v.rule_id == "TDA-14"] == ["TDA-14"]
    assert hands.finished[0].config.big_blind == 400  # the history's stakes: the level's
