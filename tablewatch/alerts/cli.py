"""``tablewatch floor``, ``tablewatch broker`` and ``tablewatch web``."""

from __future__ import annotations

import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError
from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from tablewatch.alerts.broker import BrokerStartError, EmbeddedBroker, start_broker
from tablewatch.alerts.config import BrokerConfig
from tablewatch.alerts.connection import BrokerError
from tablewatch.alerts.floor import FloorConsole, acknowledging_as, command
from tablewatch.config import describe_validation_error


def _broker_config(url: str, username: str | None, password_file: Path | None, ca_file: Path | None) -> BrokerConfig:
    try:
        return BrokerConfig(url=url, username=username, password_file=password_file, ca_file=ca_file)
    except ValidationError as exc:
        raise click.BadParameter(describe_validation_error(exc, "--url/--username/--ca-file")) from exc


Decorated = TypeVar("Decorated", bound=Callable[..., Any])


def broker_options(command: Decorated) -> Decorated:
    for option in reversed([
        click.option("--url", default="mqtt://127.0.0.1:1883", show_default=True, envvar="TABLEWATCH_MQTT_URL",
                     help="broker: mqtt://, mqtts:// (TLS), ws:// or wss://"),
        click.option("--username", envvar="TABLEWATCH_MQTT_USER", help="user name on the broker"),
        click.option("--password-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="file holding the password (first line)"),
        click.option("--ca-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="CA certificate of the broker (TLS)"),
    ]):
        command = option(command)
    return command


@click.command()
@broker_options
@click.option("--site", default="+", show_default=True, help="site to watch ('+' for every site)")
@click.option("--as", "by", help="your name on acknowledgements when the broker has no user names "
              "(default 'floor'); with --username, acknowledgements carry the user name")
@click.option("--ack", "ack", metavar="ALERT", help="acknowledge ALERT (id or id prefix) and exit")
@click.option("--do", "do", metavar="COMMAND", help="carry out one console command and exit, e.g. "
              "'d in-3f2a dealer tidying chips' (dismiss) or 'mute casino/T01 TDA-49 30' (see 'help')")
@click.option("--once", is_flag=True, help="print one snapshot after --wait seconds and exit (scripts, logs)")
@click.option("--wait", default=1.0, show_default=True, type=click.FloatRange(0, 600),
              help="seconds to collect retained state before --once/--ack")
def floor(url: str, username: str | None, password_file: Path | None, ca_file: Path | None, site: str,
          by: str | None, ack: str | None, do: str | None, once: bool, wait: float) -> None:
    """Live console for the floor: incidents to review, every table's status and alerting; acknowledge, resolve,
    dismiss, keep, export, mute."""
    broker_config = _broker_config(url, username, password_file, ca_file)
    try:
        by = acknowledging_as(broker_config, by)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--as") from exc
    console = FloorConsole(broker_config, site=site, by=by)
    try:
        console.start()
    except BrokerError as exc:
        raise click.ClickException(str(exc)) from exc
    out = Console()
    try:
        if ack or once or do:
            time.sleep(wait)
            if do:
                click.echo(command(console, do))
            elif ack:
                try:
                    click.echo(f"acknowledged {console.acknowledge(ack)} as {console.by}")
                except KeyError as exc:
                    raise click.ClickException(str(exc.args[0])) from exc
            else:
                out.print(console.snapshot())
            return
        _interactive(console, out)
    finally:
        console.stop()


def _interactive(console: FloorConsole, out: Console) -> None:
    quit_event = threading.Event()
    said = [""]  # the answer to the last typed line, shown under the incidents

    def read_keys() -> None:  # a line at a time (floor.command: help lists them); q quits
        for line in sys.stdin:
            if line.strip() in {"q", "quit"}:
                break
            said[0] = command(console, line)
            console.changed.set()
        quit_event.set()

    def screen() -> Group:
        return Group(console.snapshot(), Text(said[0]))

    if sys.stdin.isatty():
        threading.Thread(target=read_keys, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: quit_event.set())  # systemd / kill: leave cleanly
    rung = console.board.rings
    with Live(screen(), console=out, refresh_per_second=4, screen=False) as live:
        try:
            while not quit_event.is_set():
                console.changed.wait(0.5)
                console.changed.clear()
                if console.board.rings > rung:  # a new incident, or one escalated: ring once
                    rung = console.board.rings
                    out.bell()
                live.update(screen())
        except KeyboardInterrupt:
            pass


@click.command()
@click.option("--root", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="folder served: the page is staged here; stills and clips go under its evidence/")
@click.option("--roster", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="the roster the broker's ACL is rendered from (roles floor and surveillance may look)")
@click.option("--password-file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="the broker's mosquitto_passwd file")
@click.option("--cert-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="TLS certificate")
@click.option("--key-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="TLS key")
@click.option("--host", default="0.0.0.0", show_default=True, help="address to listen on")
@click.option("--port", default=8443, show_default=True, type=click.IntRange(0, 65535))
@click.option("--duration", type=click.FloatRange(0), help="stop after this many seconds (default: until Ctrl-C)")
def web(root: Path, roster: Path, password_file: Path, cert_file: Path | None, key_file: Path | None, host: str,
        port: int, duration: float | None) -> None:
    """Serve the surveillance page and the evidence to floor and surveillance users only (HTTPS, passwords)."""
    from tablewatch.alerts.web import stage_console
    from tablewatch.alerts.webserver import Viewers, WebServer

    if cert_file is None and host not in ("127.0.0.1", "localhost", "::1"):
        raise click.BadParameter("passwords travel only over TLS: give --cert-file and --key-file "
                                 "(or listen on loopback behind a TLS proxy)", param_hint="--cert-file")
    stage_console(root)
    try:
        server = WebServer(root, Viewers(roster=roster, password_file=password_file), host=host, port=port,
                           cert_file=cert_file, key_file=key_file).start()
    except (OSError, ValueError, ssl.SSLError) as exc:
        raise click.ClickException(f"can't serve {root}: {exc}") from exc
    click.echo(f"surveillance page and evidence: {server.url}index.html")
    try:
        deadline = None if duration is None else time.monotonic() + duration
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


@click.command()
@click.option("--config", "config", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="run mosquitto with this configuration (e.g. deploy/mosquitto/mosquitto.conf)")
@click.option("--port", default=1883, show_default=True, type=click.IntRange(0, 65535),
              help="MQTT port of the embedded broker (0: any free port)")
@click.option("--web/--no-web", default=True, show_default=True,
              help="serve the surveillance page on a websockets listener")
@click.option("--workdir", type=click.Path(file_okay=False, path_type=Path),
              help="folder for its config, log, persistence and the page (default: a temporary folder)")
@click.option("--duration", type=click.FloatRange(0), help="stop after this many seconds (default: until Ctrl-C)")
def broker(config: Path | None, port: int, web: bool, workdir: Path | None, duration: float | None) -> None:
    """Run a mosquitto for tablewatch: the given config, or an embedded one for the demo (anonymous, loopback)."""
    if config is not None:
        try:
            binary = EmbeddedBroker.find_binary()
        except BrokerStartError as exc:
            raise click.ClickException(str(exc)) from exc
        try:
            done = subprocess.run([binary, "-c", str(config)], timeout=duration, check=False)
        except subprocess.TimeoutExpired:
            return
        except KeyboardInterrupt:
            return
        if done.returncode:
            raise click.ClickException(f"mosquitto exited with status {done.returncode} (config {config})")
        return
    folder = workdir or Path(tempfile.mkdtemp(prefix="tablewatch-broker-"))
    try:
        running = start_broker(folder, port=port, web=web)
    except BrokerStartError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"broker: {running.url}")
    if running.ws_url:
        click.echo(f"websockets: {running.ws_url}")
    if running.web_url:
        click.echo(f"surveillance page: {running.web_url}")
    click.echo(f"config and log: {folder}")
    try:
        deadline = None if duration is None else time.monotonic() + duration
        while deadline is None or time.monotonic() < deadline:
            if running.process is None or running.process.poll() is not None:
                raise click.ClickException(f"mosquitto stopped: {running.log_tail()}")
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
