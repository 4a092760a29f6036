"""A private mosquitto for tests, benches and a one-machine demo: a free port, a temp config.

Never the system service: the broker runs as this user's child process, listens on 127.0.0.1
only, keeps nothing on disk, and :meth:`stop` / :meth:`start` again simulate a broker restart
on the same port.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class BrokerUnavailable(RuntimeError):
    """mosquitto is not installed (Debian package ``mosquitto``) or would not start."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mosquitto_path() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None
    )


class LocalBroker:
    def __init__(self, port: int | None = None) -> None:
        exe = mosquitto_path()
        if exe is None:
            raise BrokerUnavailable("mosquitto is not installed (apt-get install mosquitto)")
        self.exe = exe
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="mjref-broker-"))
        self.config = self.dir / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            "max_queued_messages 100000\nmax_inflight_messages 0\nlog_dest none\n",
            encoding="utf-8",
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> LocalBroker:
        self.proc = subprocess.Popen(
            [self.exe, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = (self.proc.stderr.read() if self.proc.stderr else b"").decode()
                raise BrokerUnavailable(f"mosquitto exited: {err.strip()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)  # waiting on a real process to listen
        self.stop()
        raise BrokerUnavailable(f"mosquitto did not listen on port {self.port}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
