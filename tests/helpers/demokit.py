"""Running `mjref demo` in a subprocess for the tests: its URL and login, a clean stop."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

MJREF = [sys.executable, "-c", "from rig.cli import main; raise SystemExit(main())"]


class Demo:
    def __init__(self, cache: Path, out: Path, *args: str) -> None:
        self.out = out
        self.proc = subprocess.Popen(
            [*MJREF, "demo", "--cache", str(cache), "--out", str(out), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # waiting on the demo's first line
        m = re.search(r"(http://127\.0\.0\.1:\d+)/\s+login: demo / (\S+)", line)
        assert m, line + self.proc.stderr.read() if self.proc.stderr else line
        self.url, self.password = m.group(1), m.group(2)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/login", timeout=5) as r:
                    assert r.status == 200
                return
            except OSError:
                assert time.monotonic() < deadline, "the dashboard did not answer"
                time.sleep(0.2)  # waiting on the server's start

    def stop(self) -> tuple[int, str]:
        """SIGINT, as Ctrl-C; (exit status, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return self.proc.returncode, err
