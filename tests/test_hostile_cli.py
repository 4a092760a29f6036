"""Every `mjref` subcommand, given hostile arguments in a real subprocess, ends in bounded time
with an exit code and at most a one-line error: never a traceback, never the last-resort
"internal error".

The subcommands are read from the parser itself, so one registered tomorrow is covered at
once: its file arguments get missing files, folders, random bytes, empty files and a name that
is not UTF-8; its output paths a folder that cannot exist; its numbers negative, huge and
non-finite values; its strings empty and non-UTF-8 ones. Stdin is random bytes throughout.
Cases known to need a particular answer (a busy TCP port, a pty where nothing answers, a
microphone that does not exist) are listed in ``specific``.

Each case runs in a process forked from one that imported the commands (tests/helpers/
forked_cli.py), with MJREF_DEBUG=1: `mjref`'s last-resort handler then re-raises, so a case that
only the safety net catches fails here until its command says what is wrong itself. Exit 2 (an
unusable input) must come with one line; exit 1 may list one line per finding.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import socket
import subprocess
import sys
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PIL import Image

import rig.cli as cli
from referee.game.sim import Simulator
from voice.events import WORDS

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "helpers" / "forked_cli.py"
Result = tuple[int | None, bytes, bytes]  # exit code (None: still running at the deadline)
Arg = str | bytes
Leaf = tuple[str, ...]

# Commands that serve until stopped: running past the deadline is their job, not a hang.
SERVING: set[Leaf] = {("table", "simulate"), ("voice", "listen"), ("rig",), ("bus", "tail")}
SERVE_DEADLINE = 8.0
DEADLINE = 120.0  # generous for a loaded 2-core box; real answers take a few seconds
OUTPUT_DESTS = {"out", "html", "profiles"}  # Path options written to, not read


Chain = tuple[argparse.ArgumentParser, ...]  # the parsers from `mjref` down to the subcommand


def leaves(chain: Chain, prefix: Leaf = ()) -> Iterator[tuple[Leaf, Chain]]:
    subs = [a for a in chain[-1]._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, chain
        return
    for name, sub in subs[0].choices.items():
        yield from leaves((*chain, sub), (*prefix, name))


NOT_HERE: dict[Leaf, str] = {
    ("demo",): "starts the dashboard and renders four tables (minutes of CPU a case); its "
    "arguments are checked in tests/venue/test_demo.py",
}
LEAVES = {leaf: c for leaf, c in leaves((cli.build_parser(),)) if leaf not in NOT_HERE}


@dataclass(frozen=True)
class Case:
    argv: tuple[Arg, ...]
    must_fail: bool  # the input is plainly wrong: exit 0 would be silent acceptance
    what: str


@dataclass(frozen=True)
class Files:
    """Good inputs (so a hostile option is reached) and bad ones, made once per module."""

    log: Path
    wav: Path
    png: Path
    image_set: Path
    takes: Path
    rand: Path
    empty: Path
    folder: Path
    missing: Path
    not_utf8: bytes
    under_a_file: Path
    truncated_wav: Path
    quiet_pty: str  # a serial port where nothing answers
    busy_port: int


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Files]:
    d = tmp_path_factory.mktemp("hostile")
    log = d / "game.jsonl"
    log.write_text("".join(e.model_dump_json() + "\n" for e in Simulator("wmc", 1).run(2)))
    rng = np.random.default_rng(5)
    noise = (rng.normal(0, 0.01, 16000)).astype(np.float32)
    wav = d / "quiet.wav"
    sf.write(wav, noise, 16000, subtype="PCM_16")
    truncated = d / "truncated.wav"
    truncated.write_bytes(wav.read_bytes()[:20000])
    png = d / "blank.png"
    Image.new("RGB", (96, 64), (40, 120, 60)).save(png)
    image_set = d / "set"
    (image_set / "images").mkdir(parents=True)
    (image_set / "labels").mkdir()
    Image.new("RGB", (96, 64)).save(image_set / "images" / "a.png")
    (image_set / "labels" / "a.txt").write_text("")
    takes = d / "takes"
    takes.mkdir()
    sf.write(takes / f"{WORDS[0]}_1.wav", noise, 16000, subtype="PCM_16")
    rand = d / "random.bin"
    rand.write_bytes(random.Random(3).randbytes(4096))
    empty = d / "empty"
    empty.write_bytes(b"")
    folder = d / "folder"
    folder.mkdir()
    master, slave = os.openpty()
    tty.setraw(slave)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        yield Files(
            log=log,
            wav=wav,
            png=png,
            image_set=image_set,
            takes=takes,
            rand=rand,
            empty=empty,
            folder=folder,
            missing=d / "missing",
            not_utf8=os.fsencode(d) + b"/\xff\xfe.jsonl",
            under_a_file=rand / "out",
            truncated_wav=truncated,
            quiet_pty=os.ttyname(slave),
            busy_port=busy.getsockname()[1],
        )
    finally:
        busy.close()
        os.close(master)
        os.close(slave)


def good_positionals(leaf: Leaf, f: Files) -> dict[str, Arg]:
    """A valid value for each positional, by command; Path positionals default to a game log."""
    return {
        ("score",): {"tiles": "234m234m666p88s34s"},
        ("voice", "spot"): {"files": str(f.wav)},
        ("tiles", "detect"): {"images": str(f.png)},
        ("tiles", "score"): {"photo": str(f.png)},
        ("tiles", "eval"): {"set_dir": str(f.image_set)},
        ("table", "monitor"): {"port": f.quiet_pty},
    }.get(leaf, {})


def good_options(leaf: Leaf, f: Files) -> tuple[Arg, ...]:
    return {
        ("voice", "enrol"): ("--player", "p1", "--from-dir", str(f.takes)),
    }.get(leaf, ())


def specific(leaf: Leaf, f: Files) -> list[Case]:
    """Hostile cases a generator cannot guess, each plainly wrong."""
    port = ("table", "monitor")
    cases: dict[Leaf, list[tuple[Arg, ...]]] = {
        ("score",): [("--json",), ("",), ("9z",), ("234m", "--meld", "12")],
        ("table", "simulate"): [("--tcp", str(f.busy_port)), ("--tcp", "70000")],
        port: [
            (str(f.missing),),
            (str(f.folder),),
            (str(f.rand),),
            ("/dev/null",),
            (f.quiet_pty,),
            (f"tcp://127.0.0.1:{_closed_port()}",),
            ("tcp://127.0.0.1:99999",),
            ("tcp://host:port",),
        ],
        ("voice", "listen"): [
            ("--device", "99", "--seconds", "1"),
            ("--device", "no such microphone", "--seconds", "1"),
            ("--threshold", "2"),
        ],
        ("voice", "spot"): [(str(f.truncated_wav),), ("--threshold", "-0.5", str(f.wav))],
        ("voice", "enrol"): [
            ("--player", "../../escape", "--from-dir", str(f.takes)),
            ("--player", "p1", "--from-dir", str(f.rand)),
            ("--player", "p1", "--from-dir", str(f.folder)),
        ],
    }
    return [Case(argv, True, "specific") for argv in cases.get(leaf, [])]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cases_for(leaf: Leaf, chain: Chain, f: Files) -> list[Case]:
    positionals = [a for a in chain[-1]._actions if not a.option_strings]
    good = good_positionals(leaf, f)
    base = {a.dest: good.get(a.dest, str(f.log) if _is_path(a) else "x") for a in positionals}

    def argv(
        replace: dict[str, Arg] | None = None, level: int = 0, extra: tuple[Arg, ...] = ()
    ) -> tuple[Arg, ...]:
        """The command with ``extra`` options given to the parser at ``level`` (its own)."""
        values = {**base, **(replace or {})}
        words: list[Arg] = []
        for i, name in enumerate(leaf, start=1):
            words += [name, *(extra if i == level < len(leaf) else ())]
        words += [values[a.dest] for a in positionals]
        return (*words, *good_options(leaf, f), *(extra if level == len(leaf) else ()))

    out = [Case(argv(), False, "good arguments")]
    bad_files: dict[str, Arg] = {
        "missing": str(f.missing),
        "folder": str(f.folder),
        "random": str(f.rand),
        "empty": str(f.empty),
        "not-utf8-name": f.not_utf8,
    }
    for action in positionals:
        if _is_path(action):
            out += [
                Case(argv({action.dest: v}), True, f"{action.dest}={kind}")
                for kind, v in bad_files.items()
            ]
        else:
            out += [
                Case(argv({action.dest: v}), False, f"{action.dest}={v!r}") for v in ("", b"\xff")
            ]
    for level, parser in enumerate(chain):
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0 or action.choices is not None:
                continue
            flag = action.option_strings[-1]
            out += [
                Case(argv(level=level, extra=(flag, v)), must_fail, f"{flag} {v!r}")
                for v, must_fail in _hostile_values(action, f)
            ]
    return out + specific(leaf, f)


def _hostile_values(action: argparse.Action, f: Files) -> list[tuple[Arg, bool]]:
    """(value, whether the command must refuse it) for one option."""
    if _is_path(action) and action.dest in OUTPUT_DESTS:
        return [(str(f.under_a_file), True), (str(f.rand / "deeper" / "x"), True)]
    if _is_path(action):  # an empty file may be a valid input (a config of defaults)
        return [
            (str(f.missing), True),
            (str(f.rand), True),
            (f.not_utf8, True),
            (str(f.empty), False),
        ]
    kind = _number_kind(action)
    if kind is not None:
        values = ["-1", "0", "1" + "0" * 20] + (["nan", "inf"] if kind is float else [])
        return [(v, False) for v in values]
    return [("", False), (b"\xff", False)]


def _is_path(action: argparse.Action) -> bool:
    return action.type is Path


def _number_kind(action: argparse.Action) -> type | None:
    """int or float when the option parses numbers (plain or range-checked types)."""
    if not callable(action.type):
        return None
    for probe in ("1", "0.5"):
        try:
            value = action.type(probe)
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            continue
        if type(value) in (int, float):
            return type(value)
    return None


def _start_runner(
    cases: list[Case], f: Files, deadline: float, jobs: int, home: Path
) -> subprocess.Popen[bytes]:
    """Each case in its own process forked from one that imported the commands (forked_cli)."""
    stdin = f.rand.read_bytes()
    request = [([os.fsdecode(a) for a in c.argv], stdin, deadline) for c in cases]
    (home / "cases.pkl").write_bytes(pickle.dumps(request))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MJREF_")}
    env.update(
        MJREF_DEBUG="1",
        HOME=str(home),
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
    )
    command = [sys.executable, str(RUNNER), "cases.pkl", "results.pkl", str(jobs)]
    return subprocess.Popen(command, cwd=home, env=env, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def outcomes(
    files: Files, tmp_path_factory: pytest.TempPathFactory
) -> dict[Leaf, list[tuple[Case, Result]]]:
    """Every case of every subcommand, run once: the commands that serve all at once (they
    mostly wait), the others four at a time."""
    groups: dict[bool, list[tuple[Leaf, Case]]] = {True: [], False: []}
    for leaf, chain in LEAVES.items():
        groups[leaf in SERVING] += [(leaf, c) for c in cases_for(leaf, chain, files)]
    runs = {}
    for serving, pairs in groups.items():
        home = tmp_path_factory.mktemp("serving" if serving else "home")
        cases = [c for _, c in pairs]
        deadline, jobs = (SERVE_DEADLINE, len(cases)) if serving else (DEADLINE, 4)
        runs[serving] = (home, _start_runner(cases, files, deadline, jobs, home))
    out: dict[Leaf, list[tuple[Case, Result]]] = {leaf: [] for leaf in LEAVES}
    for serving, (home, proc) in runs.items():
        assert proc.wait(timeout=30 * 60) == 0
        results: list[Result] = pickle.loads((home / "results.pkl").read_bytes())
        for (leaf, case), result in zip(groups[serving], results, strict=True):
            out[leaf].append((case, result))
    return out


def judge(leaf: Leaf, case: Case, result: Result) -> str | None:
    """None when the command behaved; else what went wrong, with its output."""
    code, out, err = result
    text = (out + err).decode("utf-8", "replace")
    shown = f"{case.what}: {' '.join(map(repr, case.argv))}\n{text[-1500:]}"
    serving = leaf in SERVING
    if "Traceback" in text or "internal error" in text:
        return f"crashed — {shown}"
    if code is None:
        return None if serving and not case.must_fail else f"did not end — {shown}"
    if code not in (0, 1, 2):
        return f"exit {code} — {shown}"
    if code == 0 and case.must_fail:
        return f"accepted a bad input (exit 0) — {shown}"
    if code != 0 and not text.strip():
        return f"exit {code} without a word — {shown}"
    said = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    if code == 2 and len([line for line in said if not _usage(line)]) > 1:
        return f"more than one line for one unusable input — {shown}"
    return None


def _usage(line: str) -> bool:
    """argparse's usage block, printed above its one error line."""
    return line.startswith(("usage:", " "))


def test_the_subcommands_are_read_from_the_parser() -> None:
    assert {("replay",), ("sheet",), ("score",), ("table", "monitor"), ("voice", "spot")} <= set(
        LEAVES
    )
    for leaf in SERVING:
        assert leaf in LEAVES, f"{leaf} is no longer a subcommand"


@pytest.mark.parametrize("leaf", sorted(LEAVES), ids=lambda leaf: "-".join(leaf))
@pytest.mark.slow
def test_hostile_arguments(leaf: Leaf, outcomes: dict[Leaf, list[tuple[Case, Result]]]) -> None:
    ran = outcomes[leaf]
    problems = [p for case, result in ran if (p := judge(leaf, case, result))]
    assert not problems, f"{len(problems)} of {len(ran)} cases:\n\n" + "\n\n".join(problems)
