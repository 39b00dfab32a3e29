"""``tablewatch demo``: simulated hands with violations through the whole monitor, shown as it happens.

Steps: start a broker of our own (or use ``--mqtt``), start the table's publisher with its evidence
recorder, play the hands (the simulator drives the RFID emulator over a real pty, the rules raise
alerts, the terminal shows them, MQTT carries them), then stop everything in reverse and say where the
hand histories, evidence and report are.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console

from tablewatch.bench.report import CAMERA_NOTE, print_score, write_html_report, write_score_json
from tablewatch.bench.scenarios import HandSet
from tablewatch.bench.score import score_session
from tablewatch.bench.session import run_simulated_session
from tablewatch.table.outputs import MqttOutput, TerminalOutput, start_publisher

SITE = "demo"


def run_demo(hand_set: HandSet, *, out: Path, mqtt_url: str | None, broker: bool, evidence_fps: float,
             console: Console, camera: str = "vision") -> None:
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if not hand_set.sims:
        raise RuntimeError(f"none of the hands could be simulated: {hand_set.skipped}")
    table = hand_set.sims[0].scenario.table
    with ExitStack() as stack:
        url, web_url, evidence_dir = _broker(stack, out, mqtt_url=mqtt_url, want=broker, console=console)
        recorder, publisher = _publisher(stack, out, url=url, table=table, evidence_dir=evidence_dir,
                                         evidence_fps=evidence_fps)
        outputs: list[Any] = [TerminalOutput(console)]
        mqtt = MqttOutput(publisher) if publisher is not None else None
        if mqtt is not None:
            outputs.append(mqtt)
        sinks = [lambda ts, frame: recorder.add_frame("overhead", ts, frame)] if recorder is not None else []
        console.rule(f"table {table}: {len(hand_set.sims)} hands — {CAMERA_NOTE[camera]}")
        result = run_simulated_session(hand_set.sims, out, extra_outputs=outputs, render_fps=evidence_fps,
                                       frame_sinks=sinks, camera=camera)  # type: ignore[arg-type]
        if publisher is not None:
            health = publisher.health()
            console.print(f"MQTT: {'connected' if health.connected else 'NOT connected'} to {url}; "
                          f"{health.backlog} message(s) still queued in the outbox"
                          + (f"; problem: {health.problem}" if health.problem else ""))
    score = score_session(result, skipped=hand_set.skipped)
    console.rule("result")
    print_score(score, console)
    write_score_json(score, out / "score.json")
    stills = _stills(mqtt, evidence_dir, out) if mqtt is not None and evidence_dir is not None else {}
    report = write_html_report(result, score, out / "report.html", stills=stills)
    console.print(f"hand histories: {out / 'hands'} ({len(result.hand_paths)} PHH files, hands.sqlite)")
    console.print(f"alerts: {out / 'alerts.jsonl'}   events: {out / 'events.jsonl'}")
    if evidence_dir is not None:
        console.print(f"evidence stills and clips: {evidence_dir}")
    console.print(f"report: {report}")
    if web_url:
        console.print(f"(the surveillance page was served at {web_url} while the demo ran)")


def _broker(stack: ExitStack, out: Path, *, mqtt_url: str | None, want: bool,
            console: Console) -> tuple[str | None, str | None, Path | None]:
    """The broker URL, the web console URL and the evidence folder; no broker when none can be had."""
    if mqtt_url:
        return mqtt_url, None, out / "evidence"
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
    return broker.url, broker.web_url, (http_dir / "evidence" if http_dir else out / "evidence")


def _publisher(stack: ExitStack, out: Path, *, url: str | None, table: str, evidence_dir: Path | None,
               evidence_fps: float) -> tuple[Any, Any]:
    from tablewatch.alerts import BrokerConfig, EvidenceConfig

    evidence = None
    if evidence_dir is not None and evidence_fps > 0:
        evidence = EvidenceConfig(folder=evidence_dir, url_base="evidence", before_s=4.0, after_s=2.0)
    broker = BrokerConfig(url=url) if url else None
    recorder, publisher = start_publisher(stack, broker=broker, site=SITE, table=table, out=out, evidence=evidence)
    if publisher is not None:
        publisher.wait_connected(5.0)
    return recorder, publisher


def _stills(mqtt: MqttOutput, folder: Path, out: Path) -> dict[Any, str]:
    """Each alert's still frame (named by the evidence recorder after the alert id), relative to ``out``."""
    stills = {}
    for violation, alert in mqtt.alert_ids.items():
        path = folder / f"{alert}-overhead.jpg"
        if path.exists():
            stills[violation] = str(path.relative_to(out)) if path.is_relative_to(out) else str(path)
    return stills
