"""Command line of the devices part: ``tablewatch rfid ...`` and ``tablewatch console``."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tablewatch.devices import iso15693 as iso
from tablewatch.devices.frames import FrameError
from tablewatch.devices.readers import UnknownReaderFamily, reader_families, reader_family

if TYPE_CHECKING:  # (imported where used: `rfid decode` does not pay for them)
    from tablewatch.devices.inventory import InventoryResult
    from tablewatch.devices.registry import TagRegistry


def _hex_bytes(parts: tuple[str, ...]) -> bytes:
    text = "".join(parts).replace(" ", "").replace(":", "").replace("-", "")
    text = text.removeprefix("0x").removeprefix("0X")
    if not text:
        raise click.BadParameter("give the frame as hex, e.g. '01 0D 00 00 00 00 60 00 06 01 00 6B 94'")
    if len(text) % 2:
        raise click.BadParameter(f"odd number of hex digits ({len(text)}): a byte is two digits")
    try:
        return bytes.fromhex(text)
    except ValueError:
        bad = next(c for c in text if c not in "0123456789abcdefABCDEF")
        raise click.BadParameter(f"{bad!r} is not a hex digit") from None


def _antennas(values: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values or ("tray=0",):
        name, sep, node = value.partition("=")
        if not sep or not name or not node.strip().isdigit():
            raise click.BadParameter(f"antenna {value!r} must be NAME=NODE, e.g. seat3.stack=4")
        out[name] = int(node)
    return out


def _family(name: str) -> None:
    try:
        reader_family(name)
    except UnknownReaderFamily as exc:
        raise click.BadParameter(str(exc)) from None


def _wait_until_interrupted(duration: float | None) -> None:
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    with contextlib.suppress(KeyboardInterrupt):
        done.wait(duration)


@click.group()
def rfid() -> None:
    """RFID chip readers: decode frames, read antennas, run a reader emulator."""


@rfid.command()
@click.argument("hex_bytes", nargs=-1, required=True)
@click.option("--as", "kind", type=click.Choice(["auto", "request", "response"]), default="auto",
              help="read the frame as a request or a response (auto: guess from its data)")
@click.option("--family", default="s6350", show_default=True, help=f"one of: {', '.join(reader_families())}")
def decode(hex_bytes: tuple[str, ...], kind: str, family: str) -> None:
    """Decode one frame given as hex (spaces allowed) and print its fields as JSON."""
    _family(family)
    raw = _hex_bytes(hex_bytes)
    try:
        fields = reader_family(family).describe(raw, kind=kind)
    except (FrameError, ValueError) as exc:
        raise click.ClickException(f"not a valid {family} frame: {exc}") from None
    click.echo(json.dumps(fields, indent=2))


@rfid.command()
@click.argument("port")
@click.option("--antenna", "antennas", multiple=True, help="NAME=NODE (repeatable); default tray=0")
@click.option("--family", default="s6350", show_default=True)
@click.option("--baud", default=57600, show_default=True)
@click.option("--timeout", default=0.3, show_default=True, help="seconds to wait for each answer")
@click.option("--sweeps", default=1, show_default=True, help="how many times to read every antenna")
@click.option("--registry", type=click.Path(dir_okay=False), help="tag registry CSV: show chips and values")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per antenna read")
def read(port: str, antennas: tuple[str, ...], family: str, baud: int, timeout: float, sweeps: int,
         registry: str | None, as_json: bool) -> None:
    """Run inventories on PORT (a device, socket://host:port, rfc2217://host:port) and print the chips."""
    _family(family)
    tags = _registry(Path(registry)) if registry else None
    failures = 0
    for sweep, name, result in _inventories(port, _antennas(antennas), family=family, baud=baud, timeout=timeout,
                                            sweeps=sweeps):
        if result is None:
            failures += 1
        else:
            _print_read(name, result, tags, sweep=sweep, as_json=as_json)
    if failures:
        sys.exit(1)


@rfid.command()
@click.argument("port")
@click.option("--registry", "registry_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="tag registry CSV to add to (made if missing)")
@click.option("--denomination", type=click.IntRange(min=1), required=True, help="value of every chip on the antenna")
@click.option("--chip-set", default="house", show_default=True, help="the chip set's name in the registry")
@click.option("--antenna", default="tray=0", show_default=True, help="NAME=NODE of the antenna the chips lie on")
@click.option("--family", default="s6350", show_default=True)
@click.option("--baud", default=57600, show_default=True)
@click.option("--sweeps", default=3, show_default=True, help="inventories to merge (a tag missed once is read next)")
def register(port: str, registry_path: Path, denomination: int, chip_set: str, antenna: str, family: str, baud: int,
             sweeps: int) -> None:
    """Add the chips lying on one antenna (a rack of one value on the tray) to the tag registry: scan each
    value's chips in turn. Chips already listed are left as they are."""
    from tablewatch.devices.registry import ChipTag, TagRegistry

    _family(family)
    nodes = _antennas((antenna,))
    (name,) = nodes
    known = _registry(registry_path) if registry_path.exists() else TagRegistry()
    seen: set[str] = set()
    for _, _, result in _inventories(port, nodes, family=family, baud=baud, timeout=0.3, sweeps=sweeps):
        seen.update(result.uid_strings() if result is not None else ())
    new = sorted(uid for uid in seen if uid not in known)
    TagRegistry([*known, *(ChipTag(uid=uid, denomination=denomination, chip_set=chip_set) for uid in new)]).to_csv(
        registry_path)
    click.echo(f"{len(seen)} chips read on {name}: {len(new)} added as {denomination}, "
               f"{len(seen) - len(new)} already listed; {registry_path} lists {len(known) + len(new)}")


def _registry(path: Path) -> TagRegistry:
    from tablewatch.devices.registry import RegistryError, TagRegistry

    try:
        return TagRegistry.from_csv(path)
    except RegistryError as exc:
        raise click.ClickException(str(exc)) from None


def _inventories(port: str, nodes: dict[str, int], *, family: str, baud: int, timeout: float,
                 sweeps: int) -> Iterator[tuple[int, str, InventoryResult | None]]:
    """(sweep, antenna, its inventory) for every antenna in every sweep over the port; None where a read failed
    (said on stderr)."""
    from tablewatch.devices.inventory import InventoryFailed, Link, run_inventory
    from tablewatch.devices.readers import ReaderError
    from tablewatch.devices.transport import Port, PortGone

    try:
        with Port(port, baudrate=baud) as serial_port:
            link = Link(port=serial_port, family=reader_family(family), response_timeout=timeout)
            for sweep in range(sweeps):
                for name, node in nodes.items():
                    try:
                        yield sweep, name, run_inventory(link, node=node)
                    except (InventoryFailed, ReaderError) as exc:
                        click.echo(f"{name}: no complete read: {exc}", err=True)
                        yield sweep, name, None
    except PortGone as exc:
        raise click.ClickException(str(exc)) from None


def _print_read(name: str, result: object, registry: object, *, sweep: int, as_json: bool) -> None:
    from tablewatch.devices.inventory import InventoryResult
    from tablewatch.devices.registry import TagRegistry

    assert isinstance(result, InventoryResult)
    uids = result.uid_strings()
    chips, unknown = registry.chips(uids) if isinstance(registry, TagRegistry) else (None, ())
    if as_json:
        record = {"sweep": sweep, "antenna": name, "count": len(uids), "uids": list(uids), "rounds": result.rounds,
                  "wire_bytes": result.wire_bytes, "ms": round(result.elapsed * 1000, 2)}
        if chips is not None:
            record.update(chips=chips.as_dict(), value=chips.value, unknown=list(unknown))
        click.echo(json.dumps(record))
        return
    line = f"{name}: {len(uids)} tag(s) in {result.rounds} round(s), {result.wire_bytes} bytes"
    if chips is not None:
        line += f"; value {chips.value:,} ({', '.join(f'{c} x {d:,}' for d, c in chips) or 'no chips'})"
        if unknown:
            line += f"; {len(unknown)} UNKNOWN UID(s)"
    click.echo(line)
    for uid in uids:
        click.echo(f"  {uid}")


@rfid.command()
@click.option("--pty", "use_pty", is_flag=True, help="create a pty pair and print the path to open (default)")
@click.option("--port", "serial_port", help="answer on this serial port (e.g. one end of a socat pair)")
@click.option("--tcp", help="listen on [HOST:]PORT (a networked serial server)")
@click.option("--antenna", "antennas", multiple=True, help="NAME=NODE (repeatable); default tray=0")
@click.option("--tags", "tag_counts", multiple=True, help="NAME=COUNT random tags on an antenna (repeatable)")
@click.option("--seed", default=0, show_default=True)
@click.option("--noise", default=0.0, help="chance of noise bytes before an answer (0..1)")
@click.option("--drop", default=0.0, help="chance an answer loses a byte (0..1)")
@click.option("--delay", default=0.0, help="seconds before each answer")
@click.option("--pace", is_flag=True, help="answer no faster than a 57,600-baud line")
@click.option("--duration", type=float, help="stop after this many seconds (default: until Ctrl-C)")
def emulate(use_pty: bool, serial_port: str | None, tcp: str | None, antennas: tuple[str, ...],
            tag_counts: tuple[str, ...], seed: int, noise: float, drop: float, delay: float, pace: bool,
            duration: float | None) -> None:
    """Run a reader emulator for manual use (pty, serial port or TCP)."""
    from tablewatch.devices.emulator import Faults, ReaderEmulator

    if sum(bool(x) for x in (use_pty, serial_port, tcp)) > 1:
        raise click.UsageError("choose one of --pty, --port, --tcp")
    for option, probability in (("--noise", noise), ("--drop", drop)):
        if not 0 <= probability <= 1:
            raise click.BadParameter(f"{option} is a probability 0..1, got {probability}")
    nodes = _antennas(antennas)
    emu = ReaderEmulator(nodes, faults=Faults(noise=noise, drop=drop, delay=delay), seed=seed,
                         pace_baud=57600 if pace else None)
    for i, value in enumerate(tag_counts):
        name, sep, count = value.partition("=")
        if not sep or name not in nodes or not count.isdigit():
            raise click.BadParameter(f"--tags {value!r} must be NAME=COUNT with NAME one of {', '.join(nodes)}")
        emu.set_tags(name, iso.make_uids(int(count), seed=seed + 1000 * (i + 1)))
    if tcp:
        host, _, port_text = tcp.rpartition(":")
        if not port_text.isdigit():
            raise click.BadParameter(f"--tcp {tcp!r} must be [HOST:]PORT")
        where = f"socket://{host or '127.0.0.1'}:{emu.serve_tcp(host or '127.0.0.1', int(port_text))}"
    elif serial_port:
        emu.serve_serial(serial_port)
        where = serial_port
    else:
        where = emu.serve_pty()
    click.echo(f"reader emulator answering on {where}")
    for name in nodes:
        click.echo(f"  {name} (node {nodes[name]}): {len(emu.tags(name))} tag(s)")
    sys.stdout.flush()
    try:
        _wait_until_interrupted(duration)
    finally:
        emu.stop()
        click.echo(f"answered {emu.stats.responses} of {emu.stats.requests} request(s)")


@click.command()
@click.argument("port", required=False)
@click.option("--mqtt", help="HOST:PORT of an MQTT broker (instead of a serial PORT)")
@click.option("--topic", help="MQTT topic (default tablewatch/<site>/<table>/console)")
@click.option("--site", default="site", show_default=True)
@click.option("--table", default="T01", show_default=True)
@click.option("--baud", default=9600, show_default=True)
@click.option("--duration", type=float, help="stop after this many seconds (default: until Ctrl-C)")
def console(port: str | None, mqtt: str | None, topic: str | None, site: str, table: str, baud: int,
            duration: float | None) -> None:
    """Read the dealer console (serial PORT or --mqtt) and print each declaration as a JSON line."""
    from tablewatch.devices.console import MqttConsole, SerialConsole
    from tablewatch.events import Event

    if bool(port) == bool(mqtt):
        raise click.UsageError("give a serial PORT or --mqtt HOST:PORT (one of them)")

    def show(event: Event) -> None:
        click.echo(event.to_json())
        sys.stdout.flush()

    if mqtt:
        host, _, port_text = mqtt.rpartition(":")
        if not host or not port_text.isdigit():
            raise click.BadParameter(f"--mqtt {mqtt!r} must be HOST:PORT")
        reader: MqttConsole | SerialConsole = MqttConsole(host=host, port=int(port_text), table=table,
                                                          topic=topic or f"tablewatch/{site}/{table}/console",
                                                          on_event=show)
        try:
            reader.start()
        except (OSError, ConnectionError) as exc:
            raise click.ClickException(f"cannot reach the MQTT broker {mqtt}: {exc}") from None
    else:
        assert port is not None
        reader = SerialConsole(port, table=table, on_event=show, baudrate=baud).start()
    click.echo(f"dealer console on {mqtt or port}", err=True)
    try:
        _wait_until_interrupted(duration)
    finally:
        reader.stop()
