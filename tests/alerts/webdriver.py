"""A few W3C WebDriver calls to Debian's chromedriver over HTTP: enough to load a page, run JS, read its console,
screenshot.

No selenium: its current release wants newer packages than the project pins, and six endpoints do.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.mosquitto import free_port, wait_for_port

CHROME_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--window-size=1280,900", "--disable-dev-shm-usage"]


def chromium_missing() -> str | None:
    """Why the browser test can't run here, or None."""
    for tool in ("chromium", "chromedriver"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install chromium chromium-driver; .ci/run does it)"
    return None


class Browser:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.log = workdir / "chromedriver.log"
        self.driver = subprocess.Popen([str(shutil.which("chromedriver")), f"--port={self.port}",
                                        f"--log-path={self.log}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        wait_for_port(self.port)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
                                                 "goog:chromeOptions": {"binary": shutil.which("chromium"),
                                                                        "args": CHROME_ARGS}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"webdriver {method} {path}: {exc.read().decode(errors='replace')[:500]}") from exc

    def get(self, url: str) -> None:
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def js(self, script: str, *args: Any) -> Any:
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def wait_js(self, script: str, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(script)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for: {script}")
            time.sleep(0.1)

    def console(self) -> list[str]:
        """What the page wrote to its console (and its uncaught errors) since the last call."""
        entries = self._call("POST", f"/session/{self.session}/se/log", {"type": "browser"})
        return [f"{e['level']}: {e['message']}" for e in entries]

    def errors(self) -> list[str]:
        """The page's uncaught errors and console.error lines since the last call (warnings left out)."""
        return [line for line in self.console() if line.startswith("SEVERE")]

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self._call("GET", f"/session/{self.session}/screenshot")))

    def close(self) -> None:
        try:
            self._call("DELETE", f"/session/{self.session}")
        finally:
            self.driver.terminate()
            self.driver.wait(timeout=10)
