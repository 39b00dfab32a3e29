"""tablewatch.devices: RFID chip readers, the tag registry, the chip ledger and the dealer console.

Modules, one concept each:
- ``frames``: S6350 frames, checksum, the streaming decoder; ``iso15693``: UIDs, masks, slots;
- ``readers``: the dict of reader families (``s6350`` is the first); ``inventory``: the anti-collision loop;
- ``transport``: ports by pyserial URL that reopen; ``poller``: the reader poller and its config;
- ``emulator``: a reader on the far end of a pty or TCP port; ``registry``: UID -> chip; ``ledger``: chips
  per zone and the events of their moves; ``console``: the dealer console; ``cli``: the commands.
"""

from tablewatch.devices.console import ConsoleSession, MqttConsole, SerialConsole
from tablewatch.devices.emulator import Faults, ReaderEmulator
from tablewatch.devices.iso15693 import make_uid, make_uids, parse_uid, uid_hex
from tablewatch.devices.ledger import ChipLedger
from tablewatch.devices.poller import ReaderConfig, ReaderPoller, session_clock
from tablewatch.devices.registry import ChipTag, RegistryError, TagRegistry

__all__ = [
    "ChipLedger",
    "ChipTag",
    "ConsoleSession",
    "Faults",
    "MqttConsole",
    "ReaderConfig",
    "ReaderEmulator",
    "ReaderPoller",
    "RegistryError",
    "SerialConsole",
    "TagRegistry",
    "make_uid",
    "make_uids",
    "parse_uid",
    "session_clock",
    "uid_hex",
]
