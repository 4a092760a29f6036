"""One table's runtime: inputs → one sequencer → the referee core → the write-ahead log → the bus.

Everything that decides happens in the core task, one submission after the other: it numbers
the events (the session's one :class:`~referee.sources.Sequencer`), applies them to the
:class:`~referee.duties.RefereeTable` in that order, commits them to the SQLite log (a group
commit per batch, durable: WAL + synchronous=FULL) and only then hands them to the publisher.
On start the log is replayed: the state, the engine's outputs and the sequence resume where the
last acknowledged event left them, and each input skips what it had already delivered.

The session a rig plays is its config's (``[table] session``) until the dashboard's
``cmd/round`` switches it to another between hands (:meth:`Rig.obey_round`); the switch is kept
in the log's file (``EventStore.set_current``, beside the session the config named then), so a
rig restarted later resumes the session it was switched to — unless its config has named
another session since (that edit is the newer decision, and wins).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterable
from typing import Any

from referee.duties import RefereeTable
from referee.events import (
    Chow,
    EngineEvent,
    Event,
    Kong,
    Pung,
    SessionStarted,
    Source,
    VoiceSetup,
    WinDeclared,
    make_event,
)
from referee.game.state import Phase
from referee.hands import Wind
from referee.sources import Sequencer
from referee.store import EventStore
from rig.bus import COMMANDS, Bus, BusError, BusMessage, Kind, topic, topic_filter
from rig.bus.commands import cited, command_id, refusal_fields
from rig.chairs import Chairs
from rig.config import CameraSection, RigConfig, VoiceSection
from rig.evidence.wiring import RigEvidence
from rig.inputs import (
    AudioRecording,
    CameraFileInput,
    CameraInput,
    Draft,
    Health,
    Input,
    RoundCall,
    Submission,
    Supervisor,
    TableLinkInput,
    VideoRecording,
    VoiceInput,
    referee_draft,
    round_call,
    uncertain,
)
from rig.metrics import HEALTH, Metrics
from table_io.bridge import TableBridge, TableSource
from table_io.clock import Clock, MonotonicClock
from voice.verify import ClaimWindows

log = logging.getLogger(__name__)
BATCH = 512  # submissions per group commit
IN_FLIGHT = 64  # QoS 1 publishes awaiting their PUBACK at once
PUBLISHED_TOPIC_KINDS: dict[str, Kind] = {"alert": "alerts", "proposal": "alerts"}
EXPOSURES = (Chow, Pung, Kong, WinDeclared)  # what the microphones are asked about (WMC-5.2)


class SessionClock:
    """The table clock: seconds of the session, resumed after a restart at the log's last ts
    (the time the rig was down is not play time)."""

    def __init__(self, base: Clock, resume_at: float) -> None:
        self.base = base
        self._offset = resume_at - base.now()

    def resume(self, at: float) -> None:
        """Go on from ``at`` (another session's time line: cmd/round)."""
        self._offset = at - self.base.now()

    def now(self) -> float:
        return self.base.now() + self._offset

    async def sleep(self, seconds: float) -> None:
        await self.base.sleep(seconds)


def _evidence_marks(events: Iterable[Event]) -> tuple[int, float]:
    """The last camera line and the last heard call's start the log holds."""
    line, heard = 0, -1.0
    for ev in events:
        for ref in ev.evidence:
            kind, _, rest = ref.partition(":")
            with contextlib.suppress(ValueError):
                if kind == "camera":
                    line = max(line, int(rest))
                elif kind == "voice":
                    heard = max(heard, float(rest.partition("-")[0]))
    return line, heard


def _players(events: Iterable[Event]) -> tuple[str, str, str, str] | None:
    """The players (by place, venue E, S, W, N) of the log's last session_started; None if none."""
    out = None
    for ev in events:
        if isinstance(ev.payload, SessionStarted):
            out = ev.payload.players
    return out


def _line_up(players: tuple[str, str, str, str]) -> str:
    return ", ".join(f"{place} {name}" for place, name in zip("ESWN", players, strict=True))


def _named_id(message: BusMessage) -> str | None:
    """The well-formed id a ``cmd/event`` names, to answer its refusal with (None: none)."""
    if message.name != "event":
        return None
    try:
        return command_id(message.payload)
    except ValueError:
        return None


def state_digest(duty: RefereeTable) -> str:
    """A short fingerprint of the table state: equal states give equal digests."""
    text = json.dumps(duty.state.to_dict(), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Rig:
    # the session's state, built from its log by _open (at start, and again on cmd/round)
    session_id: str
    duty: RefereeTable
    outputs: list[EngineEvent]
    sequencer: Sequencer
    bridge: TableBridge
    table_source: TableSource
    chairs: Chairs  # which seat wind sits at which microphone, hand by hand
    claim_windows: ClaimWindows  # the claims the microphones are asked about
    recovered: int  # the logged events replayed when the session was opened
    last_ts: float
    players: tuple[str, str, str, str] | None  # the last session_started's, by place E S W N

    def __init__(self, cfg: RigConfig, bus: Bus, clock: Clock | None = None) -> None:
        self.cfg = cfg
        self.bus = bus
        self.table_id = cfg.table.id
        cfg.table.log.parent.mkdir(parents=True, exist_ok=True)
        self.store = EventStore(cfg.table.log)
        session = self.resumed_session()
        self.clock = SessionClock(clock or MonotonicClock(), 0.0)
        rec = cfg.evidence
        self.evidence = RigEvidence(rec, session) if rec and rec.enabled else None
        self._open(session)
        self._logged_commands = self.logged_commands()  # the referee's commands, logged once
        self.metrics = Metrics()
        sup = cfg.supervise
        self.supervisor = Supervisor(self.clock, (sup.backoff_min, sup.backoff_max), self._changed)
        self.voice: VoiceInput | None = None
        self._voice_cfg: VoiceSection | None = None
        self.inputs = self._inputs()
        self.started = time.time()
        self._queue: asyncio.Queue[tuple[str, Submission | RoundCall, float]] = asyncio.Queue()
        self._outbox: asyncio.Queue[tuple[Kind, str, float | None]] = asyncio.Queue()
        self._status_now = asyncio.Event()
        self._state_dirty = True
        self._tasks: list[asyncio.Task[None]] = []
        self._inflight: set[asyncio.Task[None]] = set()

    # ---- the session -------------------------------------------------------------------------

    def resumed_session(self) -> str:
        """The session to open at start: the one cmd/round last switched this table to while
        the config named the session it names now; else the config's."""
        configured = self.cfg.table.session
        current = self.store.current(self.table_id)
        if current is not None and current[1] == configured:
            return current[0]
        return configured

    def _open(self, session: str) -> None:
        """Make ``session`` the rig's, from its log: the state, the engine's outputs, the
        sequence, the table link's and the sensors' resume points and the table clock go on
        where its last logged event left them (nothing logged: a new session from seq 0, at 0 s).
        The evidence is recorded under it; the store keeps it as the table's current session."""
        self.session_id = session
        self.duty = RefereeTable(self.table_id, session, self.cfg.table.profile)
        self.outputs = []
        self.sequencer = Sequencer()
        self.bridge = TableBridge(self.table_id, session, self.sequencer)
        self.table_source = TableSource(self.bridge, self.duty.table)
        logged = list(self.store.events(self.table_id, session))
        self.chairs = Chairs()
        for ev in logged:
            self.outputs += self.duty.apply(ev).outputs()
            self.chairs.follow(ev.ts, self.duty.state)
        self.sequencer.next = logged[-1].seq + 1 if logged else 0
        self.bridge.resume(logged)
        self.recovered = len(logged)
        self.last_ts = logged[-1].ts if logged else 0.0
        self._camera_line, self._heard_until = _evidence_marks(logged)
        self.claim_windows = ClaimWindows()
        for ev in logged:
            self.claim_windows.feed(ev)
        setups = [e.payload for e in logged if isinstance(e.payload, VoiceSetup)]
        self._setup_logged = setups[-1] if setups else None
        self.players = _players(logged)
        recorded = None if self.evidence is None else self.evidence.recorder.recorded_until(session)
        self.clock.resume(max(self.last_ts, recorded or 0.0))  # never back over its recordings
        if self.evidence is not None and self.evidence.recorder.session != session:
            self.evidence.recorder.switch(session)
        self.store.set_current(self.table_id, session, self.cfg.table.session)

    def logged_commands(self) -> set[str]:
        """The ids of the referee's commands this table's log holds, in any session (a command
        sent again after a session switch is still logged once)."""
        out = set()
        for evidence in self.store.evidence(self.table_id, Source.REFEREE.value):
            cid = cited(evidence)
            if cid is not None:
                out.add(cid)
        return out

    def obey_round(self, call: RoundCall) -> list[tuple[Event, list[EngineEvent]]]:
        """``cmd/round`` (in the core, in order with the submissions): this table plays
        ``call.session_id`` with ``call.players``. Another session is switched to (not while a
        hand is in play); a session without players gets them (session_started, logged as the
        referee's); one already started with these players is left as it is (the dashboard sends
        the command again each time the rig comes online). Refused with a rig alert, nothing
        changed: another session mid-hand, or other players than the session already has."""
        try:
            switch = self._round_check(call)
        except ValueError as exc:
            self.alert("commands", "warning", f"cmd/round refused: {exc}"[:800])
            return []
        log.info(
            "cmd/round: session %s (round %s of %s): %s",
            call.session_id,
            call.round,
            call.tournament,
            _line_up(call.players),
        )
        if switch:
            self._switch(call.session_id)
        if self.players is not None:
            return []
        started = SessionStarted(players=call.players, profile=self.cfg.table.profile)
        return self._ingest(Draft(started, Source.REFEREE))

    def _round_check(self, call: RoundCall) -> bool:
        """Whether ``call`` switches sessions; ValueError: why it cannot apply."""
        switch = call.session_id != self.session_id
        if switch:
            hand = self.duty.state.hand
            if hand is not None and hand.phase is not Phase.IDLE:
                raise ValueError(
                    f"hand {self.duty.state.hands_played + 1} of session {self.session_id} is "
                    f"in play ({hand.phase.name.lower()}); expected the switch to "
                    f"{call.session_id} once it has ended"
                )
            players = _players(self.store.events(self.table_id, call.session_id))
        else:
            players = self.players
        if players is not None and players != call.players:
            raise ValueError(
                f"session {call.session_id} started with {_line_up(players)}, not "
                f"{_line_up(call.players)}; its players are corrected through the dashboard "
                "(cmd/event), not by cmd/round"
            )
        return switch

    def _switch(self, session: str) -> None:
        """Another session: its state from its log, the config's inputs restarted on its time
        line, state and status published at once (after what the old session still had out)."""
        old = self.session_id
        self._open(session)
        for inp in self._inputs():
            self.replace_input(inp)
        self._outbox.put_nowait(("state", json.dumps(self.state()), None))
        self._outbox.put_nowait(("status", json.dumps(self.status()), None))
        self._state_dirty = True
        self._status_now.set()
        log.info("session %s → %s (%d events replayed)", old, session, self.recovered)

    # ---- wiring ------------------------------------------------------------------------------

    def _inputs(self) -> list[Input]:
        cfg, out = self.cfg, list[Input]()
        if cfg.table_link is not None:
            link = cfg.table_link
            out.append(TableLinkInput(link.port, self.clock, link.silent_after))
        if cfg.voice is not None:
            out.append(self.voice_input(cfg.voice))
        if cfg.camera is not None:
            out.append(self.camera_input(cfg.camera))
        if self.evidence is not None and self.evidence.cfg.video_file is not None:
            from rig.evidence.taps import VideoFileTap

            recorder = self.evidence.recorder
            out.append(VideoFileTap(self.evidence.cfg.video_file, recorder, self.clock))
        return out

    def voice_input(self, v: VoiceSection) -> VoiceInput:
        """The microphones of ``v``, heard by the voice worker; the rig asks it about each claim
        (the newest one made is the one asked: a demo table's next recording replaces it)."""
        argv = ["--file", str(v.file)] if v.file is not None else ["--device", str(v.device)]
        argv += ["--channels", str(v.channels)]
        if v.realtime:
            argv.append("--realtime")
        if v.seats:
            argv += ["--seats", *v.seats]
        if v.threshold is not None:
            argv += ["--threshold", str(v.threshold)]
        argv += ["--calibrate-s", str(v.calibrate_s)]
        if v.acoustics.exists():
            argv += ["--acoustics", str(v.acoustics)]
        self.voice = VoiceInput(
            argv,
            v.silent_after,
            self._heard_until,
            clock=self.clock,
            verify=True,
            recording=self._recording(),
            chairs=self.chairs,
        )
        self._voice_cfg = v
        return self.voice

    def _recording(self) -> AudioRecording | None:
        if self.evidence is None:
            return None
        rec = self.evidence.recorder
        return AudioRecording(rec.incoming("audio"), rec.segment_s, rec.take_file)

    def _video_recording(self) -> VideoRecording | None:
        """The camera worker records its frames and stills into the ring (as the voice worker
        its audio)."""
        if self.evidence is None:
            return None
        rec = self.evidence.recorder
        return VideoRecording(
            rec.video.dir,
            rec.stills_dir,
            rec.segment_s,
            rec.take_file,
            lambda: rec.ring.last_end("video"),
        )

    def voice_setup(self) -> VoiceSetup:
        """How this session's claims are checked for the spoken call (WMC-5.2), for the log."""
        v = self._voice_cfg
        if v is None:
            reason = "no audio input configured: spoken claims (WMC-5.2, 5.5) are not checked"
            return VoiceSetup(checks="none", reason=reason)
        seats: list[str | None] = list(v.seats or ("ESWN" if v.channels == 4 else ""))
        seats += [None] * (v.channels - len(seats))
        return VoiceSetup(
            checks="voice",
            seats=tuple(Wind[s] if s else None for s in seats),
            reason=f"{v.channels} microphone channel(s) check each claim, kong and win",
        )

    def camera_input(self, c: CameraSection) -> Input:
        if c.source is not None:
            argv = ["--source", c.source]
            argv += ["--realtime"] if c.realtime else []
            argv += ["--calibration", str(c.calibration)] if c.calibration else []
            argv += ["--models", str(c.models)] if c.models else []
            return CameraInput(
                argv, self.clock, c.silent_after, self._history, self._video_recording()
            )
        assert c.file is not None
        return CameraFileInput(c.file, self.clock, c.silent_after, c.follow, self._camera_line)

    def replace_input(self, inp: Input) -> None:
        """A new device in place of the input of the same name (the next recording of a demo
        table, a camera swapped mid-session): the old one stops, the new one is supervised."""
        for i, old in enumerate(self.inputs):
            if old.name == inp.name:
                self.inputs[i] = inp
                for task in self._tasks:
                    if task.get_name() == inp.name and not task.done():
                        task.cancel()
                break
        else:
            self.inputs.append(inp)
        self.supervisor.health.pop(inp.name, None)  # not heard yet: the new device's own health
        task = asyncio.create_task(self.supervisor.supervise(inp, self), name=inp.name)
        self._tasks.append(task)

    def _history(self) -> list[Event]:
        return list(self.store.events(self.table_id, self.session_id))

    def status(self, state: str = "online") -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "session_id": self.session_id,
            "venue": self.bus.venue,
            "state": state,
            "since": round(self.started, 3),
            "pid": os.getpid(),
            "last_seq": self.sequencer.next - 1,
            "out_seq": self.duty.state.out_seq,
            "inputs": {n: h.to_json() for n, h in self.supervisor.health.items()},
            "spoken_claims": self.voice_setup().reason,
            "metrics": self.metrics.figures(),
            **(self.evidence.status() if self.evidence is not None else {}),
        }

    def state(self) -> dict[str, Any]:
        st = self.duty.state
        hand = st.hand
        return {
            "table_id": self.table_id,
            "session_id": self.session_id,
            "last_seq": st.last_seq,
            "out_seq": st.out_seq,
            "ts": round(self.last_ts, 3),
            "hands_played": st.hands_played,
            "phase": None if hand is None else str(hand.phase.name).lower(),
            "totals": self.duty.totals(),
            "clocks": [c.to_json() for c in self.duty.view(self.clock.now())],
            "digest": state_digest(self.duty),
        }

    # ---- what inputs call --------------------------------------------------------------------

    def submit(self, name: str, item: Submission) -> None:
        self._queue.put_nowait((name, item, time.perf_counter()))

    def alive(self, name: str) -> None:
        self.supervisor.seen(name)
        h = self.supervisor.health.get(name)
        if h is not None and h.silent:
            h.silent = False
            self.supervisor.set(name, "ok", "running")
            self.alert(name, "info", f"{name} is heard again")

    def alert(self, name: str, severity: str, message: str, *, command: str | None = None) -> None:
        """A rig alert (rule RIG-INPUT): about an input, not the game; not in the log. One that
        refuses a referee's command names its id (``command``: the dashboard marks it failed)."""
        env = {
            "v": 1,
            "table_id": self.table_id,
            "session_id": self.session_id,
            "ts": round(self.clock.now(), 3),
            "source": "rig",
            "type": "alert",
            "payload": {
                "rule": "RIG-INPUT",
                "severity": severity,
                "message": message,
                "input": name,
                **refusal_fields(command),
            },
        }
        self._outbox.put_nowait(("alerts", json.dumps(env, separators=(",", ":")), None))

    def _changed(self, name: str, health: Health) -> None:
        self.metrics.health.labels(name).set(HEALTH[health.state])
        if health.state != "ok" and not health.silent:  # the watchdog alerts silence itself
            self.alert(
                name,
                "warning" if health.state == "degraded" else "critical",
                f"{name} {health.state}: {health.detail}",
            )
        self._status_now.set()

    # ---- the core ----------------------------------------------------------------------------

    def _event(self, draft: Draft) -> Event:
        return make_event(
            draft.payload,
            seq=self.sequencer.take(),
            ts=self.clock.now(),
            table_id=self.table_id,
            session_id=self.session_id,
            source=draft.source,
            confidence=draft.confidence,
            evidence=self._cite(draft),
        )

    def _cite(self, draft: Draft) -> tuple[str, ...]:
        if self.evidence is None:
            return draft.evidence
        return (*draft.evidence, *self.evidence.cite(draft.source, self.clock.now()))

    def _ingest(self, item: Submission) -> list[tuple[Event, list[EngineEvent]]]:
        """Number and apply one submission's events, in order; table outputs go through
        table_io's bridge, one machine event at a time (each sees the state the last left)."""
        if isinstance(item, Draft):
            return self._apply([*self._setup_first(item), self._event(item)])
        out = []
        for machine in self.table_source.machine_events(item):
            out += self._apply(self.bridge.convert(machine, self.duty.state))
        return out

    def _setup_first(self, draft: Draft) -> list[Event]:
        """Before the session's first claim, kong or win (or the first since the microphones
        changed): how claims are checked (``voice_setup``), so that the core knows at the
        exposure whether the microphones will answer for it."""
        if not isinstance(draft.payload, EXPOSURES):
            return []
        setup = self.voice_setup()
        if setup == self._setup_logged:
            return []
        self._setup_logged = setup
        return [self._event(Draft(setup, Source.VOICE))]

    def _apply(self, events: list[Event]) -> list[tuple[Event, list[EngineEvent]]]:
        out = []
        for ev in events:
            if ev.ts < self.last_ts:  # one time line for all sources
                ev = ev.model_copy(update={"ts": self.last_ts})
            self.last_ts = ev.ts
            try:
                outputs = self.duty.apply(ev).outputs()
            except Exception as exc:  # an engine fault: the event still goes in the log (no gap)
                log.exception("seq %d: the core failed on it", ev.seq)
                self.alert("core", "critical", f"seq {ev.seq}: the core failed: {exc}"[:300])
                outputs = []
            self.outputs += outputs
            self.chairs.follow(ev.ts, self.duty.state)
            if isinstance(ev.payload, SessionStarted):
                self.players = ev.payload.players
            if ev.source is Source.REFEREE and (cid := cited(ev.evidence)) is not None:
                self._logged_commands.add(cid)
            if self.evidence is not None:
                self.evidence.note(ev, outputs)
            out.append((ev, outputs))
        return out

    async def _core(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            done: list[tuple[Event, list[EngineEvent], float]] = []
            for name, item, t_in in batch:
                if isinstance(item, RoundCall):  # the session's events so far go out first
                    self._commit(done)
                    done = [(ev, outs, t_in) for ev, outs in self.obey_round(item)]
                    continue
                cid = cited(item.evidence) if isinstance(item, Draft) else None
                if cid is not None and cid in self._logged_commands:
                    log.info("command %s is logged already: dropped", cid)  # sent again
                    continue
                try:
                    done += [(ev, outs, t_in) for ev, outs in self._ingest(item)]
                except Exception as exc:  # a submission the core cannot take: say so, go on
                    log.exception("%s: submission refused", name)
                    text = f"{name}: submission refused: {exc}"[:300]
                    self.alert(name, "warning", text, command=cid)
            self._commit(done)

    def _commit(self, done: list[tuple[Event, list[EngineEvent], float]]) -> None:
        """Log a batch (one durable transaction), then queue it for the bus."""
        if not done:
            return
        self.store.append_many(ev for ev, _, _ in done)  # write-ahead: durable first
        self.metrics.logged(len(done))
        for ev, outs, _ in done:
            self._ask_voice(ev, outs)
        for inp in self.inputs:
            if isinstance(inp, CameraInput):
                inp.logged(ev for ev, _, _ in done)
        for ev, outs, t_in in done:
            self._outbox.put_nowait(("events", ev.model_dump_json(), t_in))
            for out in outs:
                kind = PUBLISHED_TOPIC_KINDS.get(out.type, "events")
                self._outbox.put_nowait((kind, out.model_dump_json(), t_in))
        self._state_dirty = True

    def _ask_voice(self, ev: Event, outs: list[EngineEvent]) -> None:
        """A claim, kong or win the core accepted: the microphones check it was spoken (with
        none, a note that it was not checked)."""
        claim = self.claim_windows.feed(ev)
        if claim is None or claim.seat is None:
            return
        if any(o.type == "alert" and o.payload.get("rejected") for o in outs):
            return
        if self.voice is not None:
            self.voice.check(claim, self)
        else:
            reason = "no audio input configured: not checked"
            self.submit("rig", Draft(uncertain(claim, reason), Source.VOICE))

    async def _publisher(self) -> None:
        """Publish the outbox in order with up to ``IN_FLIGHT`` QoS 1 publishes awaiting their
        PUBACK (a sliding window: small, as the MQTT client's bookkeeping is linear in it). A
        message the broker did not take is sent again until it does; consumers drop duplicates
        and reorder by seq. A place in the window is taken before the message: a stop while the
        window is full leaves the message in the outbox, which the stop drains."""
        window = asyncio.Semaphore(IN_FLIGHT)
        while True:
            await window.acquire()
            item = await self._outbox.get()
            self._inflight.add(asyncio.create_task(self._publish_one(item, window)))

    async def _publish_one(
        self, item: tuple[Kind, str, float | None], window: asyncio.Semaphore
    ) -> None:
        kind, text, t_in = item
        delay = 0.05
        try:
            while True:
                try:
                    await self.bus.publish(topic(self.bus.venue, self.table_id, kind), text, kind)
                    break
                except BusError:
                    self.metrics.publish_errors.inc()
                    await asyncio.sleep(delay)  # the broker is away: again, later
                    delay = min(delay * 2, 2.0)
            self.metrics.published.inc()
            if t_in is not None:
                self.metrics.delivered(time.perf_counter() - t_in)
        finally:
            window.release()
            task = asyncio.current_task()
            if task is not None:
                self._inflight.discard(task)

    async def _publish_status(self, payload: dict[str, Any]) -> None:
        with contextlib.suppress(BusError):  # the next one goes out when the broker is back
            await self.bus.publish_status(self.table_id, payload)

    async def _reporter(self) -> None:
        """The retained state (when it changed, at most every ``state_every``; queued behind the
        events it covers, so it never announces one a subscriber cannot have yet) and status
        (every ``status_every``, and soon after an input's health changed)."""
        last_status = 0.0
        bus = self.cfg.bus
        while True:
            await asyncio.sleep(bus.state_every)  # not wait_for: it may swallow a cancel (3.11)
            if self._state_dirty:
                self._state_dirty = False
                self._outbox.put_nowait(("state", json.dumps(self.state()), None))
            now = time.monotonic()
            if self._status_now.is_set() or now - last_status >= bus.status_every:
                self._status_now.clear()
                last_status = now
                await self._publish_status(self.status())

    async def _watchdog(self) -> None:
        """An input silent past its limit → a RIG-INPUT alert citing it, health degraded."""
        while True:
            await self.clock.sleep(0.25)
            now = self.clock.now()
            for inp in self.inputs:
                h = self.supervisor.health.get(inp.name)
                if h is None or h.finished or h.silent or inp.silent_after is None:
                    continue
                heard = h.last_seen if h.last_seen is not None else h.since
                if now - heard > inp.silent_after:
                    h.silent = True
                    self.supervisor.set(inp.name, "degraded", f"silent for {now - heard:.0f} s")
                    self.alert(
                        inp.name,
                        "warning",
                        f"{inp.name} silent for {now - heard:.0f} s (limit {inp.silent_after:g} s)",
                    )

    # ---- commands ----------------------------------------------------------------------------

    async def _commands(self) -> None:
        sub = await self.bus.subscribe(topic_filter(self.bus.venue, self.table_id, "cmd"))
        async for message in sub:
            try:
                self._command(message)
            except Exception as exc:  # a bad command never stops the rig: it is answered
                text = f"cmd/{message.name} refused: {exc}"[:300]
                self.alert("commands", "warning", text, command=_named_id(message))

    def _command(self, message: BusMessage) -> None:
        p = message.payload
        if message.name == "resend_from":
            self.resend(p.get("seq"), p.get("stream", "log"), p.get("session_id"))
        elif message.name == "event":
            self.submit("commands", referee_draft(p))
        elif message.name == "ping":
            self._status_now.set()
        elif message.name == "round":  # checked here, obeyed in the core (in order)
            self._queue.put_nowait(("commands", round_call(p), time.perf_counter()))
        else:
            raise ValueError(f"unknown command; expected one of {', '.join(COMMANDS)}")

    def resend(self, seq: object, stream: object, session: object) -> None:
        """Serve ``cmd/resend_from``: the log from ``seq`` (read back from SQLite), or the
        engine's outputs from ``seq`` (re-derived from the log at start, kept since)."""
        if not isinstance(seq, int) or seq < 0:
            raise ValueError(f"seq = {seq!r}; expected a number ≥ 0")
        texts: list[tuple[Kind, str]]
        if session not in (None, self.session_id):
            if stream != "log":
                raise ValueError("the engine stream is served for the current session only")
            events = self.store.events(self.table_id, str(session), seq)
            texts = [("events", ev.model_dump_json()) for ev in events]
        elif stream == "log":
            events = self.store.events(self.table_id, self.session_id, seq)
            texts = [("events", ev.model_dump_json()) for ev in events]
        elif stream == "engine":
            texts = [
                (PUBLISHED_TOPIC_KINDS.get(o.type, "events"), o.model_dump_json())
                for o in self.outputs[seq:]
            ]
        else:
            raise ValueError(f"stream = {stream!r}; expected log or engine")
        for kind, text in texts:
            self._outbox.put_nowait((kind, text, None))

    # ---- running -----------------------------------------------------------------------------

    async def start(self) -> None:
        if self.cfg.metrics.port:
            self.metrics.serve(self.cfg.metrics.port)
        if self.evidence is not None:
            self.evidence.start()
        self.bus.on_connect = self.announce
        await self.bus.start()
        self._tasks = [
            asyncio.create_task(self._core(), name="core"),
            asyncio.create_task(self._publisher(), name="publisher"),
            asyncio.create_task(self._reporter(), name="reporter"),
            asyncio.create_task(self._watchdog(), name="watchdog"),
            asyncio.create_task(self._commands(), name="commands"),
        ]
        for inp in self.inputs:
            task = asyncio.create_task(self.supervisor.supervise(inp, self), name=inp.name)
            self._tasks.append(task)
        self._status_now.set()

    async def announce(self) -> None:
        """Status and state again (after a (re)connection to the broker)."""
        self._state_dirty = True
        self._status_now.set()

    async def stop(self) -> None:
        pending = {t for t in self._tasks if not t.done()}
        while pending:  # a library may swallow one cancel (wait_for in 3.11): cancel again
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=0.5)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._drain(), 5)
        for task in set(self._inflight):
            task.cancel()
        await self._publish_status({**self.status("offline"), "reason": "stopped"})
        await self.bus.close()
        self.store.close()
        if self.evidence is not None:
            self.evidence.close()

    async def _drain(self) -> None:
        """What was logged but not published yet goes out before a clean stop (what cannot is
        found again by consumers: resend_from)."""
        if self._inflight:
            await asyncio.wait(set(self._inflight))
        while not self._outbox.empty():
            kind, text, _ = self._outbox.get_nowait()
            await self.bus.publish(topic(self.bus.venue, self.table_id, kind), text, kind)

    def _quiet(self) -> bool:
        return self._queue.empty() and self._outbox.empty() and not self._inflight

    def failed(self) -> BaseException | None:
        """A core task that died (a disk error on the log): the rig must stop and restart."""
        for task in self._tasks[:5]:
            if task.done() and not task.cancelled() and task.exception() is not None:
                return task.exception()
        return None

    async def idle(self, timeout: float = 10.0) -> bool:
        """Wait until every submission is logged and published (tests, benches)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._quiet():
                await asyncio.sleep(0.02)
                if self._quiet():
                    return True
            await asyncio.sleep(0.01)
        return False
