"""A surveillance camera for tests: GStreamer's RTSP server sending a live H.264 picture over RTP, as IP cameras
and video recorders do, in a process of its own so a test can kill it as a camera dies and start it again on the
same port.

    server = RtspServer().start()       # server.url: rtsp://127.0.0.1:<port>/test
    server.kill(); server.start()

The server runs under the system's python, which has GStreamer's bindings (``gi``); the tests' virtualenv need not.
``rtsp_missing()`` says why none can run here (the tests skip with it).
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

from tests.support.camera_process import CameraProcess

SYSTEM_PYTHON = "/usr/bin/python3"
APT_PACKAGES = ("python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good "
                "gstreamer1.0-plugins-ugly")
FPS = 10
SIZE = (320, 240)
# videotestsrc's moving ball, H.264 as a camera sends it: no B-frames, a key frame every second.
PIPELINE = ("( videotestsrc is-live=true pattern=ball ! video/x-raw,width={w},height={h},framerate={fps}/1 "
            "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max={fps} ! rtph264pay name=pay0 pt=96 )")


def serve(port: int, fps: int) -> None:
    """Serve rtsp://127.0.0.1:``port``/test until killed; prints "ready" once listening."""
    import gi  # type: ignore[import-not-found]

    gi.require_version("Gst", "1.0")
    gi.require_version("GstRtspServer", "1.0")
    from gi.repository import GLib, Gst, GstRtspServer  # type: ignore[import-not-found]

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(PIPELINE.format(w=SIZE[0], h=SIZE[1], fps=fps))
    factory.set_shared(True)  # one encoder for every client, as a camera has
    server.get_mount_points().add_factory("/test", factory)
    if server.attach(None) == 0:
        raise SystemExit(f"cannot listen on 127.0.0.1:{port}")
    print("ready", flush=True)
    GLib.MainLoop().run()


@functools.cache
def rtsp_missing() -> str:
    """Why no RTSP server can run here (the tests skip with it), or empty."""
    check = ("import gi; gi.require_version('Gst', '1.0'); gi.require_version('GstRtspServer', '1.0');"
             "from gi.repository import Gst, GstRtspServer; Gst.init(None);"
             "print(' '.join(n for n in ('videotestsrc', 'x264enc', 'rtph264pay') if not Gst.ElementFactory.find(n)))")
    try:
        result = subprocess.run([SYSTEM_PYTHON, "-c", check], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no system python with GStreamer ({exc}); apt-get install {APT_PACKAGES} (.ci/run does it)"
    lacking = result.stdout.strip() or (result.stderr.strip().splitlines() or [""])[-1]
    if result.returncode != 0 or lacking:
        return f"GStreamer's RTSP server can't run here ({lacking}); apt-get install {APT_PACKAGES} (.ci/run does it)"
    return ""


class RtspServer(CameraProcess):
    def __init__(self, port: int | None = None, *, fps: int = FPS) -> None:
        from tests.support.mosquitto import free_port  # (not at the top: the server's own python lacks pytest)

        self.port = port or free_port()
        self.fps = fps

    @property
    def url(self) -> str:
        return f"rtsp://127.0.0.1:{self.port}/test"

    def start(self) -> RtspServer:
        command = [SYSTEM_PYTHON, "-m", "tests.support.rtsp_server", str(self.port), str(self.fps)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True,
                                        cwd=Path(__file__).resolve().parents[2])
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "ready":  # (the line comes once it listens, or it failed)
            self.kill()
            raise RuntimeError(f"the RTSP server on port {self.port} did not start")
        return self


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
