"""A network camera for tests: an HTTP Motion-JPEG stream (``multipart/x-mixed-replace``, as IP cameras serve
it) in a process of its own, so a test can kill it as a camera dies and start it again on the same port.

    server = MjpegServer().start()      # server.url: http://127.0.0.1:<port>/stream.mjpg
    server.kill(); server.start()
"""

from __future__ import annotations

import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import numpy as np

from tests.support.mosquitto import free_port, wait_for_port

FPS = 15.0


class _Stream(BaseHTTPRequestHandler):
    frame = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n%b\r\n"
                                 % (len(self.frame), self.frame))
                time.sleep(1 / FPS)
        except OSError:
            return  # the client went away

    def log_message(self, *_: object) -> None:
        return


def serve(port: int, width: int, height: int, noise: bool) -> None:
    """``noise``: a picture of noise, slow to encode again (evidence clips)."""
    if noise:
        image = np.random.default_rng(3).integers(0, 255, (height, width, 3), np.uint8)
    else:
        image = np.zeros((height, width, 3), np.uint8)
        cv2.rectangle(image, (width // 4, height // 4), (3 * width // 4, 3 * height // 4), (0, 160, 0), -1)
    _Stream.frame = cv2.imencode(".jpg", image)[1].tobytes()
    server = ThreadingHTTPServer(("127.0.0.1", port), _Stream)
    server.daemon_threads = True
    server.serve_forever()


class MjpegServer:
    def __init__(self, port: int | None = None, *, size: tuple[int, int] = (160, 120), noise: bool = False) -> None:
        self.port = port or free_port()
        self.size, self.noise = size, noise
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/stream.mjpg"

    def start(self) -> MjpegServer:
        self.process = subprocess.Popen([sys.executable, "-m", "tests.support.mjpeg_server", str(self.port),
                                         *map(str, self.size), "noise" if self.noise else "plain"],
                                        cwd=Path(__file__).resolve().parents[2])
        wait_for_port(self.port, timeout=30)
        return self

    def kill(self) -> None:
        """As a camera losing power: no goodbye, the connection just drops."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "noise")
