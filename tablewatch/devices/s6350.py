"""The Texas Instruments S6350 family: ISO 15693 commands passed through command 0x60."""

from __future__ import annotations

from typing import Any

from tablewatch.devices import iso15693 as iso
from tablewatch.devices.frames import FLAG_ADDRESSED, FLAG_ERROR, Frame, StreamDecoder, decode_frame, encode_frame
from tablewatch.devices.readers import ReaderError, ReaderFamily

ISO_PASS_THROUGH = 0x60
CONFIG_DEFAULT = 0x00  # reader settings byte; the S6350 takes data rate and slot count from the ISO flags too

ERRORS: dict[int, str] = {
    0x01: "transponder not found",
    0x02: "command not supported",
    0x04: "invalid flags",
}
ISO_COMMANDS: dict[int, str] = {
    iso.INVENTORY: "inventory",
    iso.STAY_QUIET: "stay quiet",
    iso.READ_SINGLE_BLOCK: "read single block",
    iso.GET_SYSTEM_INFO: "get system info",
}


def error_frame(*, node: int, code: int) -> Frame:
    return Frame(node=node, flags=FLAG_ERROR, command=ISO_PASS_THROUGH, data=bytes((code,)))


class S6350(ReaderFamily):
    name = "s6350"
    description = "Texas Instruments S6350 (ISO 15693 through command 0x60), 57,600 baud"
    baudrate = 57600

    def new_decoder(self) -> StreamDecoder:
        return StreamDecoder(commands=frozenset({ISO_PASS_THROUGH}))

    def inventory_request(self, *, node: int, mask_len: int, mask_value: int) -> bytes:
        data = bytes((CONFIG_DEFAULT,)) + iso.inventory_request_data(mask_len, mask_value)
        return encode_frame(node=node, flags=0, command=ISO_PASS_THROUGH, data=data)

    def inventory_reply(self, frame: Frame, *, node: int) -> iso.InventoryReply | None:
        if frame.node != node or frame.command != ISO_PASS_THROUGH:
            return None
        if frame.is_error:
            code = frame.data[0] if frame.data else 0
            if code == 0x01:  # no tag answered: an empty field
                return iso.InventoryReply(valid=0, collisions=0, tags=())
            raise ReaderError(code, ERRORS.get(code, "unknown error"))
        return iso.parse_inventory_reply(frame.data)

    def describe(self, raw: bytes, *, kind: str = "auto") -> dict[str, Any]:
        frame = decode_frame(raw)
        if kind == "auto":
            kind = "request" if _looks_like_request(frame) else "response"
        out: dict[str, Any] = {
            "frame": kind,
            "length": len(raw),
            "node": frame.node,
            "flags": f"0x{frame.flags:02X}",
            "command": f"0x{frame.command:02X}",
            "command_name": "ISO 15693 pass-through" if frame.command == ISO_PASS_THROUGH else "unknown",
            "data": frame.data.hex(" ").upper(),
            "checksum": raw[-2:].hex(" ").upper(),
        }
        if frame.command == ISO_PASS_THROUGH:
            out.update(_describe_request(frame) if kind == "request" else _describe_response(frame))
        return out


def _looks_like_request(frame: Frame) -> bool:
    if frame.command != ISO_PASS_THROUGH or len(frame.data) < 3:
        return False
    try:
        iso.parse_inventory_request(frame.data[1:])
        return True
    except ValueError:
        return frame.data[2] in ISO_COMMANDS and frame.data[2] != iso.INVENTORY


def _describe_request(frame: Frame) -> dict[str, Any]:
    if len(frame.data) < 3:
        raise ValueError(f"A 0x60 request carries a configuration byte, ISO flags and an ISO command; "
                         f"this one has {len(frame.data)} data byte(s).")
    out: dict[str, Any] = {"addressed": bool(frame.flags & FLAG_ADDRESSED), "config": f"0x{frame.data[0]:02X}",
                           "iso_flags": f"0x{frame.data[1]:02X}", "iso_command": f"0x{frame.data[2]:02X}",
                           "iso_command_name": ISO_COMMANDS.get(frame.data[2], "unknown")}
    if frame.data[2] == iso.INVENTORY:
        req = iso.parse_inventory_request(frame.data[1:])
        out.update(slots=req.slots, mask_length=req.mask_len,
                   mask=f"{req.mask_value:0{max(1, (req.mask_len + 3) // 4)}X}" if req.mask_len else "")
    elif frame.data[1] & iso.FLAG_ADDRESS and len(frame.data) >= 11:
        out["uid"] = iso.uid_hex(iso.uid_from_wire(frame.data[3:11]))
    return out


def _describe_response(frame: Frame) -> dict[str, Any]:
    if frame.is_error:
        code = frame.data[0] if frame.data else None
        message = ERRORS.get(code, "unknown error") if code is not None else "no error code"
        return {"error": {"code": code, "message": message}}
    try:
        reply = iso.parse_inventory_reply(frame.data)
    except ValueError as exc:
        return {"note": f"not an inventory response: {exc}"}
    return {
        "error": None,
        "valid_slots": [t.slot + 1 for t in reply.tags],
        "collision_slots": [s + 1 for s in reply.collided_slots],
        "tags": [{"slot": t.slot + 1, "flags": f"0x{t.flags:02X}", "dsfid": f"0x{t.dsfid:02X}",
                  "uid": iso.uid_hex(t.uid), "manufacturer": iso.manufacturer(t.uid)} for t in reply.tags],
    }
