"""A table's Prometheus endpoint and health check, read while ``run_table`` runs on a real reader line (the S6350
emulator over a pty): the scrape parsed by prometheus_client's own text-format parser."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console

from tablewatch.config import ConfigError
from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.rules.game import GameConfig
from tablewatch.table.config import MetricsConfig, RunConfig
from tablewatch.table.run import run_table

KNOWN, COUNTERFEIT = "E007000000000001", "E0FFFFFFFFFFFF01"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError:
        return 0, ""


def until(condition: Callable[[], T | None], *, what: str, timeout: float = 60.0) -> T:
    """Wait for a condition, not for a time (the timeout only ends a test that would hang)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (value := condition()) is not None:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[str, ReaderEmulator]]:
    registry = tmp_path / "registry.csv"
    registry.write_text(f"uid,denomination,chip_set\n{KNOWN},100,house\n")
    port = free_port()
    stop = threading.Event()
    with ReaderEmulator({"seat3.stack": 1}, tags={"seat3.stack": [KNOWN]}) as emulator:
        config = RunConfig(table="T07", game=GameConfig(), registry=registry, out=tmp_path / "out",
                           metrics=MetricsConfig(port=port), readers=[{"url": emulator.serve_pty(), "name": "line1",
                                                                      "antennas": {"seat3.stack": 1}}])
        with (tmp_path / "console.txt").open("w") as screen:
            runner = threading.Thread(target=run_table, args=(config,), daemon=True,
                                      kwargs={"console": Console(file=screen), "stop": stop, "status_every": 0.2})
            runner.start()
            yield f"http://127.0.0.1:{port}", emulator
            stop.set()
            runner.join(timeout=60)


def test_metrics_count_alerts_and_events_and_health_follows_the_reader(
        table: tuple[str, ReaderEmulator]) -> None:
    url, emulator = table
    def health(status: int) -> str | None:
        code, body = get(f"{url}/healthz")
        return body if code == status else None

    def scrape_with(text: str) -> str | None:
        body = get(f"{url}/metrics")[1]
        return body if text in body else None

    until(lambda: health(200), what="the table healthy (its reader answering)")
    emulator.add_tags("seat3.stack", [COUNTERFEIT])
    scrape = until(lambda: scrape_with("TDA-16B"), what="the counterfeit chip's alert counted")
    found = samples(scrape)
    table_label = ("table", "T07")
    assert found[("tablewatch_alerts_total", (("rule", "TDA-16B"), ("severity", "violation"), table_label))] == 1
    assert found[("tablewatch_reader_online", (("reader", "rfid line1"), table_label))] == 1
    assert found[("tablewatch_events_total", (("source", "rfid"), table_label))] > 0
    assert found[("tablewatch_alert_lag_seconds_count", (table_label,))] == 1
    emulator.stop()  # the reader line goes quiet
    assert "rfid line1: offline" in until(lambda: health(503), what="health to fail")


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        config = RunConfig(out=tmp_path, metrics=MetricsConfig(port=taken.getsockname()[1]))
        with pytest.raises(ConfigError, match="metrics: can't listen"):
            run_table(config, console=Console(file=(tmp_path / "screen.txt").open("w")), duration=5)
