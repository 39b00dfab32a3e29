"""tablewatch rfid decode / read / emulate, tablewatch console, tablewatch bench-rfid."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.cli import cli
from tablewatch.devices import iso15693 as iso
from tablewatch.devices.emulator import ReaderEmulator
from tablewatch.devices.frames import decode_frame
from tablewatch.devices.registry import TagRegistry
from tablewatch.devices.s6350 import S6350, error_frame
from tablewatch.devices.transport import Port
from tests.devices.socat import SocatPair


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def spaced(raw: bytes) -> str:
    return raw.hex(" ").upper()


def test_decode_an_inventory_request() -> None:
    code, out = run("rfid", "decode", "01 0D 00 00 00 00 60 00 06 01 00 6B 94")
    assert code == 0, out
    fields = json.loads(out)
    assert fields["frame"] == "request" and fields["iso_command_name"] == "inventory"
    assert (fields["slots"], fields["mask_length"], fields["node"]) == (16, 0, 0)


def test_decode_an_inventory_response_lists_slots_collisions_and_uids_msb_first() -> None:
    uids = iso.make_uids(6, seed=21)
    emu = ReaderEmulator({"stack": 0}, tags={"stack": uids})
    response = emu.respond(decode_frame(S6350().inventory_request(node=0, mask_len=0, mask_value=0)))
    assert response is not None
    reply = iso.parse_inventory_reply(response.data)
    code, out = run("rfid", "decode", *spaced(response.encode()).split())  # as separate words, too
    assert code == 0, out
    fields = json.loads(out)
    assert fields["frame"] == "response" and fields["error"] is None
    assert fields["valid_slots"] == [t.slot + 1 for t in reply.tags]
    assert fields["collision_slots"] == [s + 1 for s in reply.collided_slots]
    assert [t["uid"] for t in fields["tags"]] == [iso.uid_hex(t.uid) for t in reply.tags]
    assert all(t["uid"].startswith("E007") for t in fields["tags"])


def test_decode_an_error_response() -> None:
    assert spaced(error_frame(node=0, code=0x01).encode()) == "01 0A 00 00 00 10 60 01 7A 85"
    code, out = run("rfid", "decode", "01 0A 00 00 00 10 60 01 7A 85")
    assert code == 0, out
    assert json.loads(out)["error"] == {"code": 1, "message": "transponder not found"}


@pytest.mark.parametrize(("hex_text", "code", "message"), [
    ("01 0D 00 00 00 00 60 00 06 01 00 6B 95", 1, "Checksum is 6B 95 but the bytes give 6B 94"),
    ("01 0E 00 00 00 00 60 00 06 01 00 6B 94", 1, "length field says 14"),
    ("01 0D 0", 2, "odd number of hex digits"),
    ("01 0D ZZ", 2, "'Z' is not a hex digit"),
])
def test_decode_bad_input_is_a_clear_error(hex_text: str, code: int, message: str) -> None:
    exit_code, out = run("rfid", "decode", hex_text)
    assert exit_code == code and message in out and "Traceback" not in out


def test_read_prints_the_chips_per_antenna(tmp_path: Path) -> None:
    registry = TagRegistry.generate({500: 10, 1000: 5}, seed=5)
    registry.to_csv(tmp_path / "chips.csv")
    with ReaderEmulator({"tray": 0, "seat3.stack": 1}) as emu:
        emu.set_tags("seat3.stack", [*registry.uids_of(500)[:4], "E0070000DEADBEEF"])
        emu.set_tags("tray", registry.uids_of(1000))
        url = f"socket://127.0.0.1:{emu.serve_tcp()}"
        code, out = run("rfid", "read", url, "--antenna", "tray=0", "--antenna", "seat3.stack=1",
                        "--registry", str(tmp_path / "chips.csv"))
        assert code == 0, out
        assert "tray: 5 tag(s)" in out and "value 5,000 (5 x 1,000)" in out
        assert "seat3.stack: 5 tag(s)" in out and "value 2,000 (4 x 500); 1 UNKNOWN UID(s)" in out
        code, out = run("rfid", "read", url, "--antenna", "seat3.stack=1", "--json", "--sweeps", "2")
        records = [json.loads(line) for line in out.splitlines()]
        assert [r["count"] for r in records] == [5, 5] and "E0070000DEADBEEF" in records[0]["uids"]


def test_read_errors_are_clear(tmp_path: Path) -> None:
    code, out = run("rfid", "read", str(tmp_path / "no-such-port"))
    assert code == 1 and "cannot open" in out
    code, out = run("rfid", "read", "loop://", "--antenna", "tray")
    assert code == 2 and "must be NAME=NODE" in out
    code, out = run("rfid", "read", "loop://", "--family", "acme")
    assert code == 2 and "valid families: s6350" in out
    code, out = run("rfid", "read", "loop://", "--timeout", "0.02")  # nothing answers on a loop
    assert code == 1 and "no complete read" in out


def test_register_adds_the_chips_on_the_tray_to_the_registry_one_value_at_a_time(tmp_path: Path) -> None:
    chips = tmp_path / "registry.csv"
    fives, hundreds = iso.make_uids(12, seed=3)[:6], iso.make_uids(12, seed=3)[6:]
    with ReaderEmulator({"tray": 0}) as emu:
        url = f"socket://127.0.0.1:{emu.serve_tcp()}"
        emu.set_tags("tray", fives)
        code, out = run("rfid", "register", url, "--registry", str(chips), "--denomination", "5")
        assert code == 0 and "6 added as 5" in out, out
        emu.set_tags("tray", [*hundreds, fives[0]])  # a 5 left on the tray stays a 5
        code, out = run("rfid", "register", url, "--registry", str(chips), "--denomination", "100")
        assert code == 0 and "6 added as 100, 1 already listed" in out, out
    registry = TagRegistry.from_csv(chips)
    assert len(registry) == 12
    assert {tag.denomination for tag in registry if tag.uid in {iso.uid_hex(u) for u in fives}} == {5}
    assert {tag.chip_set for tag in registry} == {"house"}


def test_emulate_then_read_from_another_process() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tablewatch", "rfid", "emulate", "--pty", "--tags", "tray=17",
                             "--duration", "20"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("reader emulator answering on /dev/pts/"), first
        code, out = run("rfid", "read", first.split()[-1])
        assert code == 0 and "tray: 17 tag(s)" in out, out
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_console_command_prints_declarations(tmp_path: Path) -> None:
    with SocatPair(tmp_path, "console") as pair, Port(pair.b, baudrate=9600) as box:
        timer = threading.Timer(0.3, lambda: box.write(b"3 raise 2500\n"))
        timer.start()
        code, out = run("console", pair.a, "--table", "T09", "--duration", "1.0")
        timer.join()
    assert code == 0, out
    event = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    assert (event["type"], event["table"], event["seat"], event["word"], event["amount"]) == (
        "Declaration", "T09", 3, "raise", 2500)


def test_console_needs_a_port_or_a_broker() -> None:
    code, out = run("console")
    assert code == 2 and "give a serial PORT or --mqtt" in out


def test_bench_prints_the_ratio_to_wire_time() -> None:
    code, out = run("bench-rfid", "--tags", "17", "--repeat", "1")
    assert code == 0, out
    rows = [line.split() for line in out.splitlines()[1:3]]
    assert [r[1] for r in rows] == ["pty", "57600"]
    assert all(r[0] == "17" and float(r[-1]) > 0 for r in rows)
    assert float(rows[1][-1]) >= 1.0  # paced to the line: never faster than the wire allows
