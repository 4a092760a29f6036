"""Run many `mjref` command lines, each in its own forked process, after one shared import.

``python forked_cli.py CASES RESULTS [JOBS]``: CASES is a pickled list of (argv, stdin bytes,
timeout seconds); RESULTS receives a list of (exit code or None when it ran past its timeout, stdout
bytes, stderr bytes) in the same order. Each child starts from a process that has imported every
command module but run none, so it behaves as `mjref ARGV` would — uncaught exceptions print
their traceback and exit 1 — without paying for Python and numpy start-up a few hundred times.
Children run in the current directory with the environment this process was started with.
"""

from __future__ import annotations

import importlib
import os
import pickle
import select
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import BinaryIO

from rig.cli import build_parser, main

Case = tuple[list[str], bytes, float]
Result = tuple[int | None, bytes, bytes]
JOBS = 4  # at once; more for commands that mostly wait


def _child(argv: list[str], stdin: int, stdout: int, stderr: int) -> None:
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    sys.argv = ["mjref", *argv]
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _start(case: Case, work: Path, i: int) -> tuple[int, int, BinaryIO, BinaryIO]:
    argv, stdin, _ = case
    (work / f"{i}.in").write_bytes(stdin)
    fin = (work / f"{i}.in").open("rb")
    out, err = (work / f"{i}.out").open("w+b"), (work / f"{i}.err").open("w+b")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(argv, fin.fileno(), out.fileno(), err.fileno())
    fin.close()
    return pid, os.pidfd_open(pid), out, err


def run_all(cases: list[Case], work: Path, jobs: int = JOBS) -> list[Result]:
    results: list[Result | None] = [None] * len(cases)
    waiting = list(range(len(cases)))
    running: dict[int, tuple[int, int, float, BinaryIO, BinaryIO]] = {}  # pidfd → case
    while waiting or running:
        while waiting and len(running) < jobs:
            i = waiting.pop(0)
            pid, pidfd, out, err = _start(cases[i], work, i)
            running[pidfd] = (i, pid, time.monotonic() + cases[i][2], out, err)
        timeout = max(0.0, min(r[2] for r in running.values()) - time.monotonic())
        ready, _, _ = select.select(list(running), [], [], timeout)
        now = time.monotonic()
        for pidfd in list(running):
            i, pid, deadline, out, err = running[pidfd]
            if pidfd not in ready and now < deadline:
                continue
            if pidfd not in ready:
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status) if pidfd in ready else None
            out.seek(0)
            err.seek(0)
            results[i] = (code, out.read(), err.read())
            out.close()
            err.close()
            os.close(pidfd)
            del running[pidfd]
    return [r for r in results if r is not None]


# What the handlers import lazily; not sounddevice, whose import starts PortAudio (no forking).
PRELOAD = (
    "voice.spot",
    "voice.enrol",
    "table_io.driver",
    "table_io.sim.fake_table",
    "vision.hand_reader",
    "vision.evaluate",
)

if __name__ == "__main__":
    build_parser()  # import every command module once, before the first fork
    for name in PRELOAD:
        importlib.import_module(name)
    cases = pickle.loads(Path(sys.argv[1]).read_bytes())
    with tempfile.TemporaryDirectory() as work:
        jobs = int(sys.argv[3]) if len(sys.argv) > 3 else JOBS
        Path(sys.argv[2]).write_bytes(pickle.dumps(run_all(cases, Path(work), jobs)))
