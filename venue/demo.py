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
    FILM_AFTER_DEAL_S,
    HANDS,
    LEAD_S,
    HandMedia,
    drop_frames,
    made,
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
        "--soak",
        type=float_in(1.0, 24 * 60.0),
        metavar="MINUTES",
        help="play the tables this long, then print per table and hand whether the record, the "
        "score and the findings equal the simulation's and how long each alert took to show",
    )
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
    session: str = ""
    filmed_at: float | None = None  # the monotonic time of the video's first frame
    ended_at: float | None = None  # the monotonic time the record was taken

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
    def planted_at(self) -> list[tuple[Finding, float]]:
        """The findings this hand was made to raise, each with the simulated time of the event
        that raised it: the core's own on the simulated log (whose every call is spoken) with
        the calls its audio leaves unspoken taken out."""
        silent = list(self.media.unspoken)  # "N chow"
        duty = RefereeTable()
        for e in self.media.before:
            duty.apply(e)
        out: list[tuple[Finding, float]] = []
        seq = self.media.events[0].seq
        for e in self.media.events:
            p = e.payload
            if isinstance(p, Call) and f"{p.seat.name} {p.call}" in silent:
                silent.remove(f"{p.seat.name} {p.call}")
                continue
            out += [
                (f, e.ts) for f in findings(duty.apply(e.model_copy(update={"seq": seq})).outputs())
            ]
            seq += 1  # (numbered on without the calls taken out)
        return sorted(out)

    @property
    def planted(self) -> list[Finding]:
        return [f for f, _ in self.planted_at]

    def on_film(self, t: float) -> float | None:
        """The monotonic time at which the video showed what happened at simulated time ``t``."""
        if self.filmed_at is None:
            return None
        return self.filmed_at + t - (self.media.events[self.media.deal].ts + FILM_AFTER_DEAL_S)

    def differences(self) -> list[str]:
        """Where the record parts from the simulation, in words (none when they agree)."""
        out = [] if self.finished else ["the hand did not end in the record"]
        got, want = self.actions(), self.truth()
        first = next((i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w), None)
        if first is None and len(got) != len(want):
            first = min(len(got), len(want))
        if first is not None:
            out.append(
                f"action {first + 1} differs: the rig logged "
                f"{got[first] if first < len(got) else 'nothing'}, the simulator "
                f"{want[first] if first < len(want) else 'nothing'}"
            )
        if self.scored != self.true_score:
            out.append(f"score {self.scored} differs from {self.true_score}")
        raised, planted = Counter(self.findings), Counter(self.planted)
        for what, extra in (
            ("raised, not planted", raised - planted),
            ("planted, not raised", planted - raised),
        ):
            out += [f"finding {rule} at {seat} {what}" for rule, seat in sorted(extra.elements())]
        return out

    def agree(self) -> bool:
        return not self.differences()


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
        self.console = False  # say each hand's agreement with the simulation as it ends

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

        rec = HandRecord(media, session=rig.session_id)
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
        rec.filmed_at = time.monotonic()  # the worker's first frame is at its start (at once)
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
        rec.ended_at = time.monotonic()
        differs = rec.differences()
        if self.console:
            state = "differs from" if differs else "agrees with"
            print(f"{self.table_id}: hand {media.hand + 1} {state} the simulation", flush=True)
        if differs:  # the simulation knows what happened: the referees are told it differs
            what = f"hand {media.hand + 1} differs from the simulation: " + "; ".join(differs)
            rig.alert("simulation", "critical", what[:300])


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
    if args.soak is not None and (args.smoke or args.mqtt):
        print(
            "mjref demo: --soak plays the live venue in this process: not with --smoke or --mqtt",
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
        first = await made(args.cache, args.seed, 0, args.speed)
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
    for line in rec.differences():
        print(f"mjref demo: {line}", file=sys.stderr)


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
    until = None if args.soak is None else time.monotonic() + 60.0 * args.soak
    plays = [TablePlay(t) for t in tables]
    shown: list[Shown] = []
    watching = asyncio.create_task(_watch_alerts(bus, shown)) if args.soak else None
    runs = [
        asyncio.create_task(
            _table_process(t, i, args, bus_url)
            if bus_url is not None
            else _table_loop(t, i, args, bus_url, bus, Path(tmp.name), plays[i], until),
            name=t,
        )
        for i, t in enumerate(tables)
    ]
    stop = asyncio.create_task(stopping.wait())
    waiting: list[asyncio.Future[Any]] = [stop, web]
    if args.soak:  # the tables' last hands are played out, then the report
        waiting.append(asyncio.ensure_future(asyncio.gather(*runs, return_exceptions=True)))
    try:
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if watching is not None:
            watching.cancel()
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
    if args.soak:
        return soak_report(plays, shown, args.soak)
    return 0


Shown = tuple[str, str, str, float]  # (table, rule, seat or "-", monotonic time on the bus)


async def _watch_alerts(bus: Bus, shown: list[Shown]) -> None:
    """Every alert as it reaches the dashboard (the bus it ingests from), with the time."""
    from rig.bus import topic_filter

    sub = await bus.subscribe(topic_filter(bus.venue, None, "alerts"))
    async for msg in sub:
        p = msg.payload.get("payload")
        if msg.payload.get("type") == "alert" and isinstance(p, dict):
            shown.append(
                (msg.table, str(p.get("rule")), str(p.get("seat") or "-"), time.monotonic())
            )


def alert_delays(rec: HandRecord, table: str, shown: list[Shown]) -> list[float | None]:
    """How long after the moment it is about each planted finding reached the dashboard (None:
    never, in its hand): the moment is when the video showed the event that raises it."""
    out: list[float | None] = []
    used: set[int] = set()
    for (rule, seat), t in rec.planted_at:
        moment = rec.on_film(t)
        hit = next(
            (
                i
                for i, (tb, r, st, at) in enumerate(shown)
                if i not in used
                and (tb, r, st) == (table, rule, seat)
                and moment is not None
                and rec.filmed_at is not None
                and rec.filmed_at <= at <= (rec.ended_at or at) + VOICE_WAIT_S
            ),
            None,
        )
        if hit is None or moment is None:
            out.append(None)
        else:
            used.add(hit)
            out.append(round(shown[hit][3] - moment, 2))
    return out


def soak_report(plays: list[TablePlay], shown: list[Shown], minutes: float) -> int:
    """Per table and hand: the record, the score and the findings against the simulation's, and
    how long each planted finding took to reach the dashboard; then one JSON line. 0 when every
    table played every session it began, every hand agrees and the alerts' p95 is ≤ 2 s."""
    delays: list[float | None] = []
    hands = agree = 0
    for play in plays:
        for rec in play.records:
            d = alert_delays(rec, play.table, shown)
            delays += d
            hands += 1
            agree += rec.agree()
            same_actions = rec.actions() == rec.truth() and rec.finished
            marks = (
                f"record {'=' if same_actions else '≠'}",
                f"score {'=' if rec.scored == rec.true_score else '≠'}",
                f"findings {'=' if rec.findings == rec.planted else '≠'}",
                "alerts shown after "
                + ", ".join("never" if x is None else f"{x:.2f} s" for x in d),
            )
            print(f"{play.table} {rec.session} hand {rec.media.hand + 1}: " + "; ".join(marks))
            for line in rec.differences():
                print(f"    {line}")
        for why in play.failed:
            print(f"{play.table}: session {why}")
    seen = sorted(x for x in delays if x is not None)
    p95 = seen[min(len(seen) - 1, int(0.95 * len(seen)))] if seen else None
    summary = {
        "minutes": minutes,
        "tables": len(plays),
        "sessions": {p.table: len({r.session for r in p.records}) for p in plays},
        "failed_sessions": sum(len(p.failed) for p in plays),
        "hands": hands,
        "agree": agree,
        "alerts": len(delays),
        "alerts_never_shown": sum(x is None for x in delays),
        "alert_delay_s": {
            "p50": seen[len(seen) // 2] if seen else None,
            "p95": p95,
            "max": seen[-1] if seen else None,
        },
    }
    ok = (
        hands > 0
        and agree == hands
        and summary["failed_sessions"] == 0
        and summary["alerts_never_shown"] == 0
        and p95 is not None
        and p95 <= 2.0
    )
    print(json.dumps(summary | {"ok": ok}, sort_keys=True), flush=True)
    return 0 if ok else 1


@dataclass
class TablePlay:
    """What one table played: its hands' records and its sessions that failed."""

    table: str
    records: list[HandRecord] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "S2: why"


async def _table_loop(
    table: str,
    index: int,
    args: argparse.Namespace,
    bus_url: str | None,
    bus: Bus,
    tmp: Path,
    play: TablePlay | None = None,
    until: float | None = None,
) -> None:
    """Sessions of simulated hands, one after the other (none begun after the monotonic time
    ``until``); a rig that fails starts again."""
    _fresh(args.out, table)
    link = tmp / table
    link.mkdir()
    play = play or TablePlay(table)
    session = failed = 0
    while failed < GIVE_UP_AFTER and (until is None or time.monotonic() < until):
        seed = args.seed + 100 * index + session
        session += 1
        demo = DemoTable(table, bus_url, bus, args.out, link)
        demo.announce, demo.console = session == 1, True
        try:
            await demo.play(_hands(args, seed, until), f"S{session}")
            failed = 0
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a session that failed: the table goes on with the next
            failed += 1
            play.failed.append(f"S{session}: {exc}")
            print(f"{table}: session {session} failed: {exc}", file=sys.stderr, flush=True)
            await asyncio.sleep(1.0)
        finally:
            play.records += demo.records
    if failed >= GIVE_UP_AFTER:
        print(f"{table}: stopped after {failed} failed sessions in a row", file=sys.stderr)


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
        demo.announce = demo.console = True
        await demo.play(_hands(args, seed), f"S{args.session}")
    return 0


async def _hands(
    args: argparse.Namespace, seed: int, until: float | None = None
) -> AsyncIterator[HandMedia]:
    """The session's hands, each made (or found in the cache) while the one before plays; none
    begun after the monotonic time ``until``."""
    nxt = asyncio.create_task(made(args.cache, seed, 0, args.speed))
    for hand in range(args.hands):
        media = await nxt
        if until is not None and time.monotonic() >= until:
            return
        if hand + 1 < args.hands:
            nxt = asyncio.create_task(made(args.cache, seed, hand + 1, args.speed))
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
