"""The monitor itself: a reader, console or camera offline, a camera that moved, or one whose picture can't be read.
Not a rule of the game, but the floor must hear of it: while a device is down, violations it would have seen go
unnoticed.

Rule ids here are tablewatch's own (``SYS-…``), not the catalogue's: no seed rule covers the monitor.
"""

from __future__ import annotations

from tablewatch.events import (
    CameraMoved,
    CameraPicture,
    CameraRecalibrated,
    DeviceStatus,
    Event,
    Severity,
    Violation,
)
from tablewatch.rules.checks.base import HandCheck
from tablewatch.rules.profiles import RuleProfile
from tablewatch.rules.snapshot import HandSnapshot


class DeviceHealthCheck(HandCheck):
    rule_id = "SYS-DEVICE"
    events = (DeviceStatus, CameraRecalibrated, CameraMoved, CameraPicture)

    def __init__(self, profile: RuleProfile) -> None:
        super().__init__(profile)
        self.offline_since: dict[str, float] = {}  # kept across hands
        self.moved_since: dict[str, float] = {}  # camera -> when it was reported moved

    def on_event(self, snapshot: HandSnapshot, event: Event) -> list[Violation]:
        if isinstance(event, DeviceStatus):
            return self._status(snapshot, event)
        if isinstance(event, CameraRecalibrated):
            return self._recalibrated(snapshot, event)
        if isinstance(event, CameraPicture):
            return [self._picture(snapshot, event)]
        if isinstance(event, CameraMoved) and event.shift_mm > self.profile.camera_shift_tolerance_mm:
            self.moved_since.setdefault(event.camera, event.ts)
            return [self.violation(
                snapshot, event, rule_id="SYS-CAMERA", severity=Severity.SYSTEM, title="Camera moved",
                observed=f"Camera {event.camera} shifted {event.shift_mm:.1f} mm against its calibration.",
                ruling="Zones and betting lines no longer match the felt: the camera's chip and card positions are "
                "not checked until it holds still and is recalibrated from the markers (or with tablewatch "
                "calibrate).")]
        return []

    def _status(self, snapshot: HandSnapshot, event: DeviceStatus) -> list[Violation]:
        detail = f" ({event.detail})" if event.detail else ""
        camera = event.source == "vision"  # a camera down is SYS-CAMERA, as a camera moved is
        rule_id, what = ("SYS-CAMERA", "Camera") if camera else ("SYS-DEVICE", "Device")
        if not event.online:
            if event.device in self.offline_since:
                return []
            self.offline_since[event.device] = event.ts
            return [self.violation(
                snapshot, event, rule_id=rule_id, severity=Severity.SYSTEM, title=f"{what} offline",
                observed=f"{event.device} went offline{detail}.",
                ruling="The table is monitored without this device: what it sees (chips, cards, declarations) is "
                "not checked until it is back. Check the device; the floor watches the table meanwhile.")]
        since = self.offline_since.pop(event.device, None)
        if since is None:
            return []
        return [self.violation(
            snapshot, event, rule_id=rule_id, severity=Severity.SYSTEM, title=f"{what} back online",
            evidence_ts=(since,),
            observed=f"{event.device} is back after {event.ts - since:.0f} s offline{detail}.",
            ruling="Monitoring is complete again; events during the outage were not checked.")]

    def _recalibrated(self, snapshot: HandSnapshot, event: CameraRecalibrated) -> list[Violation]:
        since = self.moved_since.pop(event.camera, None)
        if since is None:
            return []  # never reported moved: nothing the floor was told to take back
        return [self.violation(
            snapshot, event, rule_id="SYS-CAMERA", severity=Severity.SYSTEM, title="Camera recalibrated",
            evidence_ts=(since,),
            observed=f"Camera {event.camera} held still again and was recalibrated from {event.markers} markers "
            f"(error {event.error_mm:.1f} mm), {event.ts - since:.0f} s after it moved.",
            ruling="Vision monitoring resumed with the new calibration; what the camera saw while it was moved "
            "was not checked.")]

    def _picture(self, snapshot: HandSnapshot, event: CameraPicture) -> Violation:
        if event.usable:
            return self.violation(
                snapshot, event, rule_id="SYS-CAMERA", severity=Severity.SYSTEM,
                title=f"Camera picture no longer {event.condition}",
                observed=f"Camera {event.camera}: {event.detail}.",
                ruling="The picture can be read again; what the camera reported meanwhile may be wrong.")
        return self.violation(
            snapshot, event, rule_id="SYS-CAMERA", severity=Severity.SYSTEM, title=f"Camera picture {event.condition}",
            observed=f"Camera {event.camera}: {event.detail}.",
            ruling="Surveillance sets the camera right; what it reports still counts meanwhile." if event.reliable else
            "What this camera reports (cards, chips, hands) may be wrong while the picture stays so, and findings are "
            "sent as advisories: the floor watches the table, and surveillance sets the camera right.")
