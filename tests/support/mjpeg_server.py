"""A network camera for tests: an HTTP Motion-JPEG stream (``multipart/x-mixed-replace``, as IP cameras serve
it) in a process of its own, so a test can kill it as a camera dies and start it again on the same port.

    server = MjpegServer().start()      # server.url: http://127.0.0.1:<port>/stream.mjpg
    server.kill(); server.start()

Frames are sent on the server's schedule, ``fps`` a second, every client seeing the same frame at the same moment
as from a camera; with ``numbered=True`` each shows its number since the server started (``frame_number``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import numpy as np

from tests.support.camera_process import CameraProcess
from tests.support.mosquitto import free_port, wait_for_port

FPS = 15.0
NUMBER_BITS = 16  # a numbered frame: its number in binary, one cell of a 4 x 4 grid a bit, white for 1


def numbered_picture(number: int, width: int, height: int) -> np.ndarray:
    """A picture that shows ``number`` (``frame_number`` reads it back, through JPEG's losses)."""
    image = np.zeros((height, width, 3), np.uint8)
    for bit in range(NUMBER_BITS):
        if number >> bit & 1:
            row, col = divmod(bit, 4)
            image[row * height // 4:(row + 1) * height // 4, col * width // 4:(col + 1) * width // 4] = 255
    return image


def frame_number(image: np.ndarray) -> int:
    """The number a numbered frame shows."""
    height, width = image.shape[:2]
    cells = [image[row * height // 4:(row + 1) * height // 4, col * width // 4:(col + 1) * width // 4]
             for row in range(4) for col in range(4)]
    return sum(1 << bit for bit, cell in enumerate(cells) if cell.mean() > 128)


class _Stream(BaseHTTPRequestHandler):
    jpeg: Callable[[int], bytes] = staticmethod(lambda _number: b"")  # a frame's JPEG by its number
    fps = FPS
    started = 0.0  # the server's first frame, on time.monotonic()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        number = int((time.monotonic() - self.started) * self.fps)
        try:
            while True:
                frame = self.jpeg(number)
                self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n%b\r\n"
                                 % (len(frame), frame))
                number += 1
                time.sleep(max(0.0, self.started + number / self.fps - time.monotonic()))
        except OSError:
            return  # the client went away

    def log_message(self, *_: object) -> None:
        return


def jpegs(picture: str, width: int, height: int) -> Callable[[int], bytes]:
    """Each frame's JPEG by its number. ``picture``: "plain" (a green block), "noise" (slow to encode again:
    evidence clips) or "numbered"."""
    def encoded(image: np.ndarray) -> bytes:
        return cv2.imencode(".jpg", image)[1].tobytes()

    if picture == "numbered":
        return lambda number: encoded(numbered_picture(number, width, height))
    if picture == "noise":
        image = np.random.default_rng(3).integers(0, 255, (height, width, 3), np.uint8)
    else:
        image = np.zeros((height, width, 3), np.uint8)
        cv2.rectangle(image, (width // 4, height // 4), (3 * width // 4, 3 * height // 4), (0, 160, 0), -1)
    still = encoded(image)
    return lambda _number: still


def serve(port: int, width: int, height: int, picture: str, fps: float) -> None:
    _Stream.jpeg = staticmethod(jpegs(picture, width, height))
    _Stream.fps, _Stream.started = fps, time.monotonic()
    server = ThreadingHTTPServer(("127.0.0.1", port), _Stream)
    server.daemon_threads = True
    server.serve_forever()


class MjpegServer(CameraProcess):
    def __init__(self, port: int | None = None, *, size: tuple[int, int] = (160, 120), noise: bool = False,
                 numbered: bool = False, fps: float = FPS) -> None:
        self.port = port or free_port()
        self.size, self.fps = size, fps
        self.picture = "noise" if noise else "numbered" if numbered else "plain"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/stream.mjpg"

    def start(self) -> MjpegServer:
        self.process = subprocess.Popen([sys.executable, "-m", "tests.support.mjpeg_server", str(self.port),
                                         *map(str, self.size), self.picture, str(self.fps)],
                                        cwd=Path(__file__).resolve().parents[2])
        wait_for_port(self.port, timeout=30)
        return self


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5]))
