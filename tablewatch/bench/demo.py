"""``tablewatch demo``: simulated hands with violations through the whole monitor, exactly as a table runs it.

Steps: the hands are recorded as a table's devices would capture them (``sim record``: the overhead video, the
RFID reads, the console entries; the truth apart), a broker of our own is started (or ``--mqtt`` is used), and
``tablewatch run``'s own ``run_table`` plays the recording through the real S6350 driver, console and camera
source, finding every hand itself; the terminal shows the alerts as they come, MQTT carries them with their
evidence. Then the run's output is scored against the truth, and the hand histories, evidence and report
are named.
"""

from __future__ import annotations

import json
import shutil
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console

from tablewatch.alerts.web import EVIDENCE_URL
from tablewatch.bench.report import print_frame_score, print_score, write_html_report
from tablewatch.bench.through_run import ThroughRunScore, recorded_session, score_run, truth_hidden
from tablewatch.events import Violation, load_events
from tablewatch.table.config import RunConfig
from tablewatch.table.outputs import MqttOutput

SITE = "demo"
# What a demo's run leaves in its folder: a table's run appends to its logs and keeps its outbox (nothing lost when it
# restarts), so a demo run again would score, report and publish the last run's alerts with its own
LAST_RUN = ("alerts.jsonl", "events.jsonl", "hands", "outbox.sqlite", "broker", "evidence", "score.json", "report.html")


def run_demo(hands_file: Path, *, hands: int, seed: int, out: Path, mqtt_url: str | None, broker: bool,
             console: Console, fast: bool = True, web_dir: Path | None = None) -> ThroughRunScore:
    """Record ``hands`` hands of ``hands_file`` (one violation each), run them as a table, score, report.
    ``web_dir``: the folder the page at ``mqtt_url``'s broker is served from, the evidence written beneath it."""
    from tablewatch.sim.record import record

    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    clear_last_run(out)
    sim, injected = recorded_session(hands_file, hands=hands, first=1, seed=seed)
    recording = out / "recording"
    started = time.perf_counter()
    console.print(f"recording {hands} hand(s) as the table's devices capture them: {recording}")
    summary = record(sim, recording)
    record_s = time.perf_counter() - started
    with ExitStack() as stack:
        url, web_url, evidence_dir = _broker(stack, out, mqtt_url=mqtt_url, want=broker, console=console,
                                             web_dir=web_dir)
        config = _table_config(recording, out=out, url=url, evidence_dir=evidence_dir)
        console.rule(f"table {config.table}: `tablewatch run` on the recording"
                     + (" (--fast)" if fast else " at its pace"))
        started = time.perf_counter()
        with truth_hidden(recording):
            pipeline = _run(config, console=console, fast=fast)
        wall_s = time.perf_counter() - started
    session, frame = score_run(recording, out, session_s=summary["length_s"], wall_s=wall_s, frames=summary["frames"])
    score = ThroughRunScore(session=session, frame=frame, record_s=record_s, injected=injected, fast=fast)
    console.rule("result")
    print_score(session, console, through_run=score.devices, fast=fast)
    print_frame_score(frame, session.hands, console)
    console.print(f"injected: {'; '.join(injected) or 'none'}")
    (out / "score.json").write_text(json.dumps(score.as_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _report(out, pipeline, session, evidence_dir, console=console, web_url=web_url)
    return score


def clear_last_run(out: Path) -> None:
    """Take the last demo run's outputs out of ``out`` (``LAST_RUN``); nothing else in it is touched."""
    for name in LAST_RUN:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def _table_config(recording: Path, *, out: Path, url: str | None, evidence_dir: Path | None) -> RunConfig:
    """The recording's own table configuration, publishing to the demo's broker and writing into ``out``."""
    from tablewatch.alerts import BrokerConfig, EvidenceConfig
    from tablewatch.table.run import load_run_config

    config = load_run_config(recording / "table.toml")
    evidence = EvidenceConfig(folder=evidence_dir or out / "evidence", url_base="evidence", before_s=4.0, after_s=2.0)
    return config.model_copy(update={"out": out, "site": SITE, "evidence": evidence,
                                     "mqtt": BrokerConfig(url=url) if url else None})


def _run(config: RunConfig, *, console: Console, fast: bool) -> Any:
    from tablewatch.table.run import run_table

    return run_table(config, console=console, fast=fast, status_every=15.0)


def _report(out: Path, pipeline: Any, session: Any, evidence_dir: Path | None, *, console: Console,
            web_url: str | None) -> None:
    alerts = [v for v in load_events(_read(out / "alerts.jsonl")) if isinstance(v, Violation)]
    mqtt = next((o for o in pipeline.outputs if isinstance(o, MqttOutput)), None)
    stills = _stills(mqtt, evidence_dir, out) if mqtt is not None and evidence_dir is not None else {}
    hand_paths = sorted((out / "hands").glob("*.phh"))
    report = write_html_report(alerts, hand_paths, session, out / "report.html", stills=stills)
    console.print(f"hand histories: {out / 'hands'} ({len(hand_paths)} PHH files)")
    console.print(f"alerts: {out / 'alerts.jsonl'}   events: {out / 'events.jsonl'}   score: {out / 'score.json'}")
    if evidence_dir is not None:
        console.print(f"evidence stills and clips: {evidence_dir}")
    console.print(f"report: {report}")
    if web_url:
        console.print(f"(the surveillance page was served at {web_url} while the demo ran)")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _broker(stack: ExitStack, out: Path, *, mqtt_url: str | None, want: bool, console: Console,
            web_dir: Path | None) -> tuple[str | None, str | None, Path | None]:
    """The broker URL, the web console URL and the evidence folder; no broker when none can be had."""
    if mqtt_url:
        return mqtt_url, None, web_dir / EVIDENCE_URL if web_dir else out / "evidence"
    if not want:
        return None, None, out / "evidence"
    from tablewatch.alerts.broker import BrokerStartError, start_broker

    try:
        broker = start_broker(out / "broker", web=True)
    except BrokerStartError as exc:
        console.print(f"[yellow]no embedded broker ({exc}); alerts go to the terminal and files only[/]")
        return None, None, out / "evidence"
    stack.callback(broker.stop)
    console.print(f"embedded mosquitto at {broker.url}; surveillance page: {broker.web_url}")
    http_dir = broker.setup.http_dir
    return broker.url, broker.web_url, (http_dir / EVIDENCE_URL if http_dir else out / "evidence")


def _stills(mqtt: MqttOutput, folder: Path, out: Path) -> dict[Any, str]:
    """Each alert's still frame (named by the evidence recorder after the alert id), relative to ``out``."""
    stills = {}
    for violation, alert in mqtt.alert_ids.items():
        path = folder / f"{alert}-overhead.jpg"
        if path.exists():
            stills[violation] = str(path.relative_to(out)) if path.is_relative_to(out) else str(path)
    return stills
