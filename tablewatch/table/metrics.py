"""One table's Prometheus endpoint (``[metrics]`` in its configuration): what operations graph and alert on.

``/metrics`` serves the Prometheus text format: events taken in by source, hands captured, alerts by rule and
severity, how late each alert came after the moment it judges (on the sensors' clock), each camera's frames,
each reader line online or not, the broker link and its outbox. ``/healthz`` answers 200 ``ok`` while the table
works, 503 with one line per problem (a camera down, a reader offline, the broker unreachable, the pipeline
stopped) for a load balancer, systemd or a monitoring check.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import ThreadingWSGIServer  # a thread per scrape
from prometheus_client.registry import Collector

from tablewatch.events import Event, Violation
from tablewatch.hands import FinishedHand
from tablewatch.table.config import MetricsConfig
from tablewatch.table.pipeline import TablePipeline
from tablewatch.table.sources import CameraFeed, RfidSource

LAG_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)


class AlertMetrics:
    """An output of the pipeline: counts alerts and hands as they go out, and how late each alert is."""

    def __init__(self, registry: CollectorRegistry, table: str, clock: Callable[[], float]) -> None:
        self.table, self.clock = table, clock
        self.alerts = Counter("tablewatch_alerts", "Alerts raised, by rule and severity", ["table", "rule", "severity"],
                              registry=registry)
        self.hands = Counter("tablewatch_hands", "Hands captured (hand histories written)", ["table"],
                             registry=registry)
        self.lag = Histogram("tablewatch_alert_lag_seconds", "How long after the moment it judges an alert went out "
                             "(the sensors' clock)", ["table"], buckets=LAG_BUCKETS, registry=registry)

    def on_event(self, event: Event) -> None:
        pass

    def on_violation(self, violation: Violation) -> None:
        self.alerts.labels(self.table, violation.rule_id, violation.severity.value).inc()
        self.lag.labels(self.table).observe(max(0.0, self.clock() - violation.ts))

    def on_hand(self, hand: FinishedHand) -> None:
        self.hands.labels(self.table).inc()

    def close(self) -> None:
        pass


@dataclass(eq=False)  # registered by identity
class TableState(Collector):
    """What the table's parts say at scrape time: events in, cameras, reader lines, the broker's outbox."""

    table: str
    pipeline: TablePipeline
    sources: list[Any]
    publisher: Any = None  # tablewatch.alerts.publisher.Publisher, when the table has a broker

    def collect(self) -> Iterator[Any]:
        events = CounterMetricFamily("tablewatch_events", "Events taken in, by source", labels=["table", "source"])
        for source, count in sorted(self.pipeline.stats.by_source.items()):
            events.add_metric([self.table, source], count)
        yield events
        yield from self._cameras()
        readers = GaugeMetricFamily("tablewatch_reader_online", "1 while an RFID reader line answers",
                                    labels=["table", "reader"])
        for reader in self._of(RfidSource):
            readers.add_metric([self.table, reader.name], float(reader.online))
        yield readers
        if self.publisher is not None:
            health = self.publisher.health()
            connected = GaugeMetricFamily("tablewatch_broker_connected", "1 while the broker has the table connected",
                                          labels=["table"])
            connected.add_metric([self.table], float(health.connected))
            outbox = GaugeMetricFamily("tablewatch_outbox_depth", "Alerts and hands in the outbox waiting for the "
                                       "broker", labels=["table"])
            outbox.add_metric([self.table], float(health.backlog))
            yield from (connected, outbox)

    def _cameras(self) -> Iterator[Any]:
        frames = CounterMetricFamily("tablewatch_camera_frames", "Frames taken from each camera",
                                     labels=["table", "camera"])
        up = GaugeMetricFamily("tablewatch_camera_up", "1 while a camera delivers frames", labels=["table", "camera"])
        for camera in self._of(CameraFeed):
            frames.add_metric([self.table, camera.name], camera.frames)
            up.add_metric([self.table, camera.name], float(not camera.error))
        yield frames
        yield up

    def _of(self, kind: type) -> Iterable[Any]:
        return (s for s in self.sources if isinstance(s, kind))

    def problems(self) -> list[str]:
        """What is wrong now, one line each (none: the table works)."""
        found = [] if self.pipeline.running else ["the pipeline is not running"]
        found += [f"{c.name}: {c.error}" for c in self._of(CameraFeed) if c.error]
        found += [f"{r.name}: offline" for r in self._of(RfidSource) if not r.online]
        if self.publisher is not None and (problem := self.publisher.health().problem):
            found.append(f"broker: {problem}")
        return found


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # a scrape every few seconds is no news for the table's log


class MetricsServer:
    """``/metrics`` and ``/healthz`` over HTTP, in a thread of their own, until ``close``."""

    def __init__(self, config: MetricsConfig, state: TableState, registry: CollectorRegistry) -> None:
        registry.register(state)
        metrics = make_wsgi_app(registry)

        def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            if environ.get("PATH_INFO") != "/healthz":
                return metrics(environ, start_response)
            problems = state.problems()
            status = "503 Service Unavailable" if problems else "200 OK"
            start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
            return ["\n".join(problems or ["ok"]).encode() + b"\n"]

        self.server = make_server(config.host, config.port, app, server_class=ThreadingWSGIServer, handler_class=_Quiet)
        self.url = f"http://{config.host}:{self.server.server_port}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="metrics", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
