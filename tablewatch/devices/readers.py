"""Reader families: what a driver needs from one family of RFID readers, and the dict of families.

A family knows its framing and how to ask for an inventory; the anti-collision loop (``inventory.py``),
the transports and the poller are shared. To add a family, write a ``ReaderFamily`` subclass in its own
module and add it to ``reader_families()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from tablewatch.devices.frames import Frame, StreamDecoder
from tablewatch.devices.iso15693 import InventoryReply


class ReaderError(Exception):
    """The reader answered with an error response."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"reader error 0x{code:02X}: {message}")
        self.code = code


class UnknownReaderFamily(ValueError):
    pass


class ReaderFamily(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    baudrate: ClassVar[int] = 57600

    def new_decoder(self) -> StreamDecoder:
        return StreamDecoder()

    @abstractmethod
    def inventory_request(self, *, node: int, mask_len: int, mask_value: int) -> bytes:
        """The bytes of one 16-slot inventory request with the given mask, for antenna/node ``node``."""

    @abstractmethod
    def inventory_reply(self, frame: Frame, *, node: int) -> InventoryReply | None:
        """The tags' answer carried by ``frame``, or None when the frame is not an inventory answer from
        ``node``. An empty field comes back as an empty reply; other reader errors raise ReaderError."""

    @abstractmethod
    def describe(self, raw: bytes, *, kind: str = "auto") -> dict[str, Any]:
        """One frame's fields as JSON-ready data (``tablewatch rfid decode``); FrameError/ValueError if bad."""


def reader_families() -> dict[str, type[ReaderFamily]]:
    """Every supported family by name. Imported here, not registered by side effect, so it reads in one place."""
    from tablewatch.devices.s6350 import S6350

    return {S6350.name: S6350}


def reader_family(name: str) -> ReaderFamily:
    families = reader_families()
    try:
        return families[name.lower()]()
    except KeyError:
        raise UnknownReaderFamily(f"Unknown reader family {name!r}; valid families: {', '.join(sorted(families))}."
                                  ) from None
