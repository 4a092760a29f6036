"""`mjref demo`: the main job on one machine — simulated tables seen, heard and linked through the
real pipelines, refereed by one rig each, on the referees' dashboard.

Each table plays simulated hands (venue/demo_media.py): its rig reads the hand's overhead video
through the camera pipeline (rig/camera_worker.py), hears its table audio through the voice
input, and is linked to a FakeTable over a pty that raises each hand's wall and rolls its dice.
As at a real table, nobody tells the rig the wall or a concealed tile: the referee enters the
players and the seat draw, the table link gives the wall raised and the dice, and the camera
sees the deal go face down into the racks, every draw leave the wall face down, and the tiles
only once they are shown (discards, melds, the winner's hand). Rigs and dashboard share the
in-process bus, or a local mosquitto with ``--mqtt``, as a venue would.

``--smoke``: the first hand of one table (``--hands N``: its session's first N), headless; one
JSON line ``{"hands", "actions", "alerts", "findings", "scores", "agree"}``; exit 0 only when the
pipelines' record of every hand agrees with the simulated truth:
the game actions in the rig's log (draws, discards, claims, kongs, the win: kind, seat and
the tiles that were shown) equal the simulator's, in order, the hand's score (winner,
value, payments) equals the one the core gives the simulated log, whose every tile is known,
and the findings a referee is shown (``findings``: each alert's rule and seat, warnings and
worse) are exactly those the demo planted — the core's own on the simulated log without the
calls the table audio leaves unspoken: none missing, none more.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.cli_support import float_in, int_in
from referee.duties import RefereeTable
from referee.events import Call, EngineEvent, Event, Source
from referee.records.walk import as_corrected
from rig.bus import Bus
from rig.bus.memory import MemoryBus
from rig.config import CameraSection, VoiceSection, parse
from rig.inputs import Draft, Input
from rig.runtime import Rig
from venue.demo_media import (
    ACTIONS,
    HANDS,
    LEAD_S,
    STOP,
    HandMedia,
    drop_frames,
    hand_media,
    prune_stale,
)

DEMO_USER = "demo"
HAND_LIMIT_S = 90.0  # past the hand's simulated end: the pipelines are stuck
REVEAL_WAIT_S = 5.0  # after a win, for the camera's reading of the hand laid down
VOICE_WAIT_S = 15.0  # after the hand, for the microphones' check of its last claims
EVIDENCE_TOKEN_ENV = "MJREF_DEMO_EVIDENCE_TOKEN"
SEED = 73  # the first hand (a chow, a win on a discard); the next hands count up from here
GIVE_UP_AFTER = 3  # failed sessions in a row after which a table stops (and says so)
REFEREE_ENTERS = ("session_started", "seat_draw")  # what a referee knows: players and seats


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="simulated tables through the real pipelines, on the dashboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tables", type=int_in(1, 16), default=4, help="tables, 1-16 (default 4)")
    p.add_argument(
        "--hands",
        type=int_in(1, HANDS),
        help=f"hands a table's session has, 1-{HANDS} (default {HANDS}: one round; --smoke: 1)",
    )
    p.add_argument(
        "--speed", type=float_in(0.5, 4.0), default=1.0, help="the games play X times faster"
    )
    p.add_argument("--mqtt", action="store_true", help="go through a local mosquitto")
    p.add_argument(
        "--smoke", action="store_true", help="T1's first hand(s), headless, checked, JSON line"
    )
    p.add_argument("--port", type=int_in(1, 65535), help="dashboard port (default 8080 if free)")
    p.add_argument("--seed", type=int_in(0, 2**31), default=SEED, help="the first hand's seed")
    p.add_argument("--cache", type=Path, default=Path("build/demo-cache"), help="media cache")
    p.add_argument("--out", type=Path, default=Path("build/demo"), help="logs, dashboard data")
    p.add_argument(
        "--drop-frames",
        metavar="START-END",
        help="(a check of the check) drop the video's frames in these seconds",
    )
    # one table's process under the demo with --mqtt (the demo supervises and restarts it)
    p.add_argument("--only-table", help=argparse.SUPPRESS)
    p.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--bus", help=argparse.SUPPRESS)
    p.add_argument("--session", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(handler=main)


def dashboard_socket(port: int | None) -> socket.socket:
    """The dashboard's listening socket, bound here and handed to uvicorn (no other program can
    take the port between a check and the bind): ``port``, else 8080 when free, else any. It
    listens at once: a socket only bound (SO_REUSEADDR) let a second demo bind 8080 too, print
    that address and lose it to the first."""
    for candidate in [port] if port else [8080, 0]:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", candidate))
            sock.listen()
            return sock
        except OSError:
            sock.close()
    raise OSError(f"--port {port}: the port is taken; expected a free port")


@dataclass
class HandRecord:
    """One hand as the rig logged it, beside its simulated truth."""

    media: HandMedia
    log: list[Event] = field(default_factory=list)  # the rig's log of this hand
    scored: dict[str, Any] | None = None
    finished: bool = False
    findings: list[Finding] = field(default_factory=list)  # what the rig raised this hand

    def actions(self) -> list[tuple[str, str, str | None]]:
        return [_key(e) for e in as_corrected(self.log) if e.type in ACTIONS]

    def truth(self) -> list[tuple[str, str, str | None]]:
        return [_key(e) for e in self.media.events if e.type in ACTIONS]

    @functools.cached_property
    def true_score(self) -> dict[str, Any] | None:
        """The score the core gives the simulated log (replayed once: the media do not change)."""
        duty = RefereeTable()
        scored = None
        for e in [*self.media.before, *self.media.events]:
            for o in duty.apply(e).outputs():
                if o.type == "hand_scored":
                    scored = _score(o.payload)
        return scored

    @functools.cached_property
    def planted(self) -> list[Finding]:
        """The findings this hand was made to raise: the core's own on the simulated log (whose
        every call is spoken) with the calls its audio leaves unspoken taken out."""
        silent = list(self.media.unspoken)  # "N chow"
        duty = RefereeTable()
        for e in self.media.before:
            duty.apply(e)
        out: list[Finding] = []
        seq = self.media.events[0].seq
        for e in self.media.events:
            p = e.payload
            if isinstance(p, Call) and f"{p.seat.name} {p.call}" in silent:
                silent.remove(f"{p.seat.name} {p.call}")
                continue
            out += findings(duty.apply(e.model_copy(update={"seq": seq})).outputs())
            seq += 1  # (numbered on without the calls taken out)
        return sorted(out)

    def agree(self) -> bool:
        same = self.actions() == self.truth() and self.scored == self.true_score
        return self.finished and same and self.findings == self.planted


Finding = tuple[str, str]  # (rule, seat or "-"): an alert a referee is shown (info aside)


def findings(outputs: Iterable[EngineEvent]) -> list[Finding]:
    """The alerts among engine outputs that a referee is shown (warnings and worse)."""
    return sorted(
        (str(o.payload["rule"]), str(o.payload.get("seat") or "-"))
        for o in outputs
        if o.type == "alert" and o.payload.get("severity") != "info"
    )


def _key(e: Event) -> tuple[str, str, str | None]:
    p = e.payload
    seat = getattr(p, "seat", None)
    tile = getattr(p, "tile", None) if e.type in ("discard", "kong") else None
    return e.type, seat.name if seat is not None else "-", None if tile is None else str(tile)


def _score(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: payload.get(k) for k in ("winner", "value", "payments")}


class DemoTable:
    """One table: one rig for its session, a FakeTable on a pty, each hand's video and audio
    given to the rig's camera and voice inputs in turn."""

    def __init__(self, table_id: str, bus_url: str | None, bus: Bus, out: Path, link: Path) -> None:
        self.table_id, self.bus_url, self.bus = table_id, bus_url, bus
        self.out, self.link = out, link
        self.rig: Rig | None = None
        self.records: list[HandRecord] = []
        self.announce = False  # say when the table is live (the demo's console)

    async def play(
        self, hands: AsyncIterator[HandMedia], session: str, video: Path | None = None
    ) -> list[HandRecord]:
        """Play the hands as they come (``video``: the first hand's camera recording instead)."""
        from table_io.sim.endpoints import PtyEndpoint
        from table_io.sim.fake_table import FakeTable

        fake = FakeTable(PtyEndpoint(str(self.link)), seed=len(self.table_id))
        await fake.start()
        log = self.out / f"{self.table_id}.sqlite"
        spec: dict[str, Any] = {
            "table": {"id": self.table_id, "session": session, "log": str(log)},
            "bus": {"mqtt": self.bus_url} if self.bus_url else {},
            "table_link": {"port": fake.path},
        }
        token = os.environ.get(EVIDENCE_TOKEN_ENV)
        if token:  # recorded, the clips served to the dashboard (not in --smoke: no dashboard)
            evidence = {"dir": str(self.out / "evidence" / self.table_id), "token": token}
            spec["evidence"] = {**evidence, "host": "127.0.0.1", "budget_gb": 2.0}
        cfg = parse(spec)
        bus = self.bus if self.bus_url is None else _mqtt_bus(cfg)
        rig = self.rig = Rig(cfg, bus)
        await rig.start()
        if self.announce:
            print(f"{self.table_id}: live", flush=True)
        try:
            done = sum(o.type == "hand_ended" for o in rig.outputs)  # a restarted rig's log
            async for media in hands:  # each hand's recordings, as the camera and microphones
                if media.hand < done:
                    continue
                camera = video if media.hand == 0 and video is not None else media.video
                rig.replace_input(self._voice(rig, media))
                await self._hand(rig, fake, media, camera)
        finally:
            await rig.stop()
            await fake.close()
        return self.records

    def _voice(self, rig: Rig, media: HandMedia) -> Input:
        """The hand's table audio; after a restart mid-hand, from where the hand is now."""
        audio = media.audio
        deals = [e for e in rig.store.events(rig.table_id, rig.session_id) if e.type == "deal"]
        if len(deals) > media.hand:
            from voice.audio_io import SR, read_audio, write_wav

            at = max(0.0, rig.clock.now() - deals[-1].ts + LEAD_S)
            audio = self.link / f"resumed-{media.hand}.wav"
            write_wav(audio, read_audio(media.audio)[int(at * SR) :])
        inp = rig.voice_input(VoiceSection(file=audio, channels=4, seats=["E", "S", "W", "N"]))
        inp.heard_until = -1.0  # a new recording: its own time line
        return inp

    async def _hand(self, rig: Rig, fake: Any, media: HandMedia, camera: Path) -> None:
        """Enter the players and seats as a referee, raise the wall and roll its dice on the
        table, switch the camera on when the audio is at the deal (the video starts there);
        then wait for the hand's end. What the log already holds is not entered again (a rig
        restarted mid-hand)."""
        from table_io.messages import DiceResult, SetComplete, WallRaised

        rec = HandRecord(media)
        self.records.append(rec)
        events, truth = media.events, [*media.before, *media.events[: media.deal]]
        names = tuple(f"{self.table_id}-{c}" for c in ("Ann", "Bo", "Chen", "Dai"))
        start = rig.sequencer.next

        def missing(kind: str, upto: int) -> bool:
            return _count(rig, kind) < sum(e.type == kind for e in truth[:upto])

        for i, e in enumerate(truth[len(media.before) :], len(media.before) + 1):
            if e.type in REFEREE_ENTERS and missing(e.type, i):
                payload = e.payload
                if e.type == "session_started":
                    payload = payload.model_copy(update={"players": names})
                rig.submit("referee", Draft(payload, Source.REFEREE))
        if _count(rig, "deal") <= media.hand:  # this hand's deal is not logged yet
            heard = await _until(lambda: _seen(rig, "voice"), 30)
            t_audio0 = rig.clock.now() - 0.25 if heard else rig.clock.now()
            if _count(rig, "wall_built") <= media.hand:
                now_ms = int(1000 * rig.clock.now())  # the machine's hand start, by its kind:
                fake.emit(SetComplete(now_ms))  # without a wall sensor
                fake.emit(WallRaised(now_ms))  # with one
                await _until(lambda: _count(rig, "wall_built") > media.hand, 20)
            dice = [e for e in truth if e.type == "dice_rolled"]
            for e in dice[_count(rig, "dice_rolled") :]:
                d1, d2 = e.payload.dice  # type: ignore[attr-defined]
                fake.emit(DiceResult(int(1000 * rig.clock.now()), d1, d2))
            await _until(lambda: _count(rig, "dice_rolled") >= len(dice), 20)
            while rig.clock.now() < t_audio0 + LEAD_S:
                await asyncio.sleep(0.02)
        seeing = rig.camera_input(CameraSection(source=str(camera)))
        rig.replace_input(seeing)
        length = events[-1].ts - events[media.deal].ts

        def ended() -> bool:
            return sum(o.type == "hand_ended" for o in rig.outputs) > media.hand

        # the hand ends, or the camera's file ends without it (a broken pipeline: no waiting on;
        # a file read whole has told all it saw, which is in the log once the rig is idle)
        await _until(lambda: ended() or _seen_all(rig, seeing.name), length + HAND_LIMIT_S)
        await rig.idle()
        rec.finished = ended()
        # the camera reveals a won hand once it has read it whole (a moment after the win,
        # which ends the hand): the record is taken when it is in, or when it is not coming
        await _until(lambda: _count(rig, "hand_revealed") >= _count(rig, "win"), REVEAL_WAIT_S)
        # every claim's check comes from the microphones once its window is heard: a finding
        # of theirs may come after the hand's end
        await _until(lambda: _checked(rig, start), VOICE_WAIT_S)
        await rig.idle()
        rec.log = list(rig.store.events(rig.table_id, rig.session_id, start))
        rec.findings = findings(o for o in rig.outputs if o.cause >= start)
        scored = [o for o in rig.outputs if o.type == "hand_scored"]
        rec.scored = _score(scored[-1].payload) if rec.finished and scored else None


def _mqtt_bus(cfg: Any) -> Bus:
    from rig.rig_cli import make_bus

    bus: Bus = make_bus(cfg)
    return bus


def _seen(rig: Rig, name: str) -> bool:
    h = rig.supervisor.health.get(name)
    return h is not None and h.last_seen is not None


def _seen_all(rig: Rig, name: str) -> bool:
    """The input read its whole file (a recording ends; a live camera never does)."""
    h = rig.supervisor.health.get(name)
    return h is not None and h.finished


def _checked(rig: Rig, start: int) -> bool:
    """Every claim, kong and win logged since ``start`` has its check by the microphones."""
    log = list(rig.store.events(rig.table_id, rig.session_id, start))
    claims = sum(e.type in ("chow", "pung", "kong", "win") for e in log)
    return sum(e.type == "claim_check" for e in log) >= claims


def _count(rig: Rig, kind: str) -> int:
    return sum(1 for e in rig.store.events(rig.table_id, rig.session_id) if e.type == kind)


async def _until(cond: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


# ---- the commands --------------------------------------------------------------------------


def main(args: argparse.Namespace) -> int:
    if args.hands is None:
        args.hands = 1 if args.smoke else HANDS
    drop = None
    if args.drop_frames:
        try:
            a, b = (float(v) for v in args.drop_frames.split("-"))
        except ValueError:
            print(
                f"mjref demo: --drop-frames {args.drop_frames!r}: expected START-END seconds",
                file=sys.stderr,
            )
            return 2
        drop = (a, b)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        args.cache.mkdir(parents=True, exist_ok=True)
        if not args.only_table:  # (the demo's own table processes share its cache)
            stale = prune_stale(args.cache)
            if stale:
                print(f"mjref demo: removed {len(stale)} hands of older media", file=sys.stderr)
    except OSError as exc:
        print(
            f"mjref demo: {exc.filename}: {exc.strerror}; expected a folder it can write",
            file=sys.stderr,
        )
        return 2
    if not (args.smoke or args.only_table):
        try:
            args.listen = dashboard_socket(args.port)
        except OSError as exc:
            print(f"mjref demo: {exc}", file=sys.stderr)
            return 2
    loop = asyncio.new_event_loop()
    stop: Callable[[], object]
    if args.smoke or args.only_table:
        task = loop.create_task((smoke if args.smoke else one_table)(args, drop))
        stop = task.cancel
    else:
        stopping = asyncio.Event()
        task = loop.create_task(serve(args, stopping))
        stop = stopping.set  # the tables end first, then the dashboard shuts down
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)
    try:
        code = loop.run_until_complete(task)
        if not args.smoke:
            print("demo stopped", file=sys.stderr)
        return code
    except asyncio.CancelledError:
        print("demo stopped", file=sys.stderr)
        return 0
    finally:
        STOP.set()  # a render still running in a thread gives up
        left = asyncio.all_tasks(loop)  # as asyncio.run does: what is left ends before the loop
        for t in left:
            t.cancel()
        loop.run_until_complete(_settle(left))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def _settle(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


def _fresh(out: Path, table: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        (out / f"{table}.sqlite{suffix}").unlink(missing_ok=True)
    shutil.rmtree(out / "evidence" / table, ignore_errors=True)


async def smoke(args: argparse.Namespace, drop: tuple[float, float] | None) -> int:
    video = None
    if drop is not None:
        first = await asyncio.to_thread(hand_media, args.cache, args.seed, 0, args.speed)
        video = drop_frames(first.video, args.out / "dropped.avi", *drop)
    _fresh(args.out, "T1")
    with tempfile.TemporaryDirectory() as tmp:
        table = DemoTable("T1", None, MemoryBus(), args.out, Path(tmp))
        recs = await table.play(_hands(args, args.seed), "S1", video)
        assert table.rig is not None
        outputs = table.rig.outputs
    alerts = sorted({str(o.payload.get("rule", "?")) for o in outputs if o.type == "alert"})
    agree = len(recs) == args.hands and all(r.agree() for r in recs)
    summary = {
        "hands": sum(r.finished for r in recs),
        "actions": sum(len(r.actions()) for r in recs),
        "alerts": alerts,
        "findings": {
            "raised": [[*f, r.media.hand + 1] for r in recs for f in r.findings],
            "planted": [[*f, r.media.hand + 1] for r in recs for f in r.planted],
        },
        "scores": [r.scored for r in recs],
        "agree": agree,
    }
    print(json.dumps(summary, sort_keys=True))
    for rec in recs:
        if not rec.agree():
            _explain(rec)
    return 0 if agree else 1


def _explain(rec: HandRecord) -> None:
    print(f"mjref demo: hand {rec.media.hand + 1} does not agree", file=sys.stderr)
    got, want = rec.actions(), rec.truth()
    first = next((i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w), None)
    if first is None and len(got) != len(want):
        first = min(len(got), len(want))
    if first is not None:
        print(
            f"mjref demo: action {first + 1} differs: the rig logged "
            f"{got[first] if first < len(got) else 'nothing'}, the simulator "
            f"{want[first] if first < len(want) else 'nothing'}",
            file=sys.stderr,
        )
    if rec.scored != rec.true_score:
        print(f"mjref demo: score {rec.scored} differs from {rec.true_score}", file=sys.stderr)
    raised, planted = Counter(rec.findings), Counter(rec.planted)
    for what, extra in (
        ("raised, not planted", raised - planted),
        ("planted, not raised", planted - raised),
    ):
        for rule, seat in sorted(extra.elements()):
            print(f"mjref demo: finding {rule} at {seat} {what}", file=sys.stderr)


async def serve(args: argparse.Namespace, stopping: asyncio.Event) -> int:
    import uvicorn

    from dashboard.app import create_app
    from dashboard.settings import Settings

    broker = None
    bus_url = None
    if args.mqtt:
        from rig.bus.broker import LocalBroker

        broker = LocalBroker().start()
        bus_url = broker.url
    sock: socket.socket = args.listen
    port = sock.getsockname()[1]
    data = args.out / "dashboard"
    password = _demo_user(data)
    # the tables' clip servers trust the dashboard with this token (their processes inherit it)
    os.environ[EVIDENCE_TOKEN_ENV] = token = secrets.token_urlsafe(18)
    given: dict[str, Any] = {"data": data, "port": port, "mqtt": bus_url, "evidence_token": token}
    settings = Settings(**given)
    bus: Bus = MemoryBus()
    app = create_app(settings, bus=None if args.mqtt else bus)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    web = asyncio.create_task(server.serve(sockets=[sock]), name="dashboard")
    tables = [f"T{i + 1}" for i in range(args.tables)]
    print(f"dashboard: http://127.0.0.1:{port}/   login: {DEMO_USER} / {password}", flush=True)
    print(
        f"{len(tables)} tables ({', '.join(tables)}), bus: {bus_url or 'in-process'}; Ctrl-C stops",
        flush=True,
    )
    tmp = tempfile.TemporaryDirectory()
    runs = [
        asyncio.create_task(
            _table_process(t, i, args, bus_url)
            if bus_url is not None
            else _table_loop(t, i, args, bus_url, bus, Path(tmp.name)),
            name=t,
        )
        for i, t in enumerate(tables)
    ]
    stop = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait([stop, web], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        for t in runs:
            t.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        server.should_exit = True  # uvicorn's own shutdown: the lifespan ends cleanly
        with contextlib.suppress(Exception):
            await asyncio.wait_for(web, 10)
        tmp.cleanup()
        if broker is not None:
            broker.close()
    return 0


async def _table_loop(
    table: str, index: int, args: argparse.Namespace, bus_url: str | None, bus: Bus, tmp: Path
) -> None:
    """Sessions of simulated hands, one after the other; a rig that fails starts again."""
    _fresh(args.out, table)
    link = tmp / table
    link.mkdir()
    session = failed = 0
    while failed < GIVE_UP_AFTER:
        seed = args.seed + 100 * index + session
        session += 1
        demo = DemoTable(table, bus_url, bus, args.out, link)
        demo.announce = session == 1
        try:
            for rec in await demo.play(_hands(args, seed), f"S{session}"):
                state = "agrees with" if rec.agree() else "differs from"
                print(f"{table}: hand {rec.media.hand + 1} {state} the simulation", flush=True)
            failed = 0
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a session that failed: the table goes on with the next
            failed += 1
            print(f"{table}: session {session} failed: {exc}", file=sys.stderr, flush=True)
            await asyncio.sleep(1.0)
    print(f"{table}: stopped after {failed} failed sessions in a row", file=sys.stderr, flush=True)


async def _table_process(table: str, index: int, args: argparse.Namespace, bus_url: str) -> None:
    """With ``--mqtt`` each table's rig is a process of its own, as on a venue's rig PC: one
    session each, started again when it dies (SIGKILL, a crash), resuming from its log."""
    session, resume = 1, False
    while True:
        argv = [sys.executable, "-m", "rig.cli", "demo", "--only-table", table]
        argv += ["--index", str(index), "--bus", bus_url, "--session", str(session)]
        argv += ["--out", str(args.out), "--cache", str(args.cache)]
        argv += ["--seed", str(args.seed), "--speed", str(args.speed), "--hands", str(args.hands)]
        proc = await asyncio.create_subprocess_exec(  # its own session: Ctrl-C is ours to pass
            *argv, *(["--resume"] if resume else []), start_new_session=True
        )
        try:
            code = await proc.wait()
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 30)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
            raise
        if code == 0:
            session, resume = session + 1, False
            continue
        print(f"{table}: its rig stopped ({code}); starting it again", file=sys.stderr, flush=True)
        resume = True
        await asyncio.sleep(0.5)


async def one_table(args: argparse.Namespace, drop: tuple[float, float] | None) -> int:
    """One table's session in this process (``--only-table``): 0 when it was played out."""
    table = args.only_table
    if not args.resume and args.session == 1:
        _fresh(args.out, table)
    seed = args.seed + 100 * args.index + args.session - 1
    with tempfile.TemporaryDirectory() as tmp:
        demo = DemoTable(table, args.bus, MemoryBus(), args.out, Path(tmp))
        demo.announce = True
        for rec in await demo.play(_hands(args, seed), f"S{args.session}"):
            state = "agrees with" if rec.agree() else "differs from"
            print(f"{table}: hand {rec.media.hand + 1} {state} the simulation", flush=True)
    return 0


async def _hands(args: argparse.Namespace, seed: int) -> AsyncIterator[HandMedia]:
    """The session's hands, each made (or found in the cache) while the one before plays."""
    nxt = asyncio.create_task(asyncio.to_thread(hand_media, args.cache, seed, 0, args.speed))
    for hand in range(args.hands):
        media = await nxt
        if hand + 1 < args.hands:
            nxt = asyncio.create_task(
                asyncio.to_thread(hand_media, args.cache, seed, hand + 1, args.speed)
            )
        yield media


def _demo_user(data: Path) -> str:
    """The dashboard's database, migrated, with the demo head referee (a new password each run)."""
    from sqlalchemy import select, update
    from sqlalchemy.exc import IntegrityError

    from dashboard.auth import add_user, hash_password
    from dashboard.db import make_engine, session_factory
    from dashboard.db.migrate import upgrade
    from dashboard.db.models import User

    data.mkdir(parents=True, exist_ok=True)
    engine = make_engine(f"sqlite:///{data / 'dashboard.sqlite'}")
    upgrade(engine)
    factory = session_factory(engine)
    password = secrets.token_urlsafe(9)
    with factory() as db:  # an earlier run's demo user gets the new password
        user = db.scalar(select(User).where(User.name == DEMO_USER))
        if user is not None:
            user.password_hash = hash_password(password)
            db.commit()
    if user is None:
        try:
            add_user(factory, DEMO_USER, "head_referee", password, time.time())
        except IntegrityError:  # another demo in this folder made it just now
            with factory() as db:
                db.execute(
                    update(User)
                    .where(User.name == DEMO_USER)
                    .values(password_hash=hash_password(password))
                )
                db.commit()
    engine.dispose()
    return password
