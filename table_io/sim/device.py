"""The adapter firmware's behaviour, sans-I/O: the reference for what a table maker implements.

It numbers and logs events, pushes them inside a sliding window, retransmits what the host has
not acknowledged, replays its log on RESEND_FROM, answers commands once even when they arrive
twice, and sends a STATUS heartbeat every second.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from table_io.frames import DecoderStats, Flags, Frame, FrameDecoder
from table_io.messages import (
    Ack,
    Beep,
    Button,
    ButtonPressed,
    Capability,
    GetStatus,
    Hello,
    Hold,
    Message,
    Nack,
    NackReason,
    PayloadError,
    Ping,
    Release,
    ResendFrom,
    SetComplete,
    SetDisplay,
    ShuffleStarted,
    Status,
    TableError,
    TableState,
    WallRaised,
    decode_message,
)

DEFAULT_CAPS = (
    Capability.WALL_SENSOR
    | Capability.DICE_SENSOR
    | Capability.SEAT_BUTTONS
    | Capability.HOLD
    | Capability.BEEPER
    | Capability.DISPLAY
    | Capability.THREE_PLAYER
)


@dataclass(slots=True)
class DeviceConfig:
    model: str = "FakeTable"
    firmware: str = "sim-1.0"
    capabilities: Capability = DEFAULT_CAPS
    log_size: int = 4096  # events the adapter keeps for RESEND_FROM
    window: int = 64  # events in flight without an ACK
    rto: float = 0.2  # retransmit unacknowledged events after this
    heartbeat: float = 1.0


@dataclass(slots=True)
class DeviceStats:
    decoder: DecoderStats = field(default_factory=DecoderStats)
    events: int = 0
    frames_out: int = 0
    retransmits: int = 0
    replays: int = 0
    commands: int = 0
    duplicate_commands: int = 0
    beeps: int = 0


class TableDevice:
    """One adapter. Feed host bytes to :meth:`receive`; collect wire frames from :meth:`take`."""

    def __init__(
        self, config: DeviceConfig | None = None, rng: random.Random | None = None
    ) -> None:
        self.config = config or DeviceConfig()
        self.rng = rng or random.Random()
        self.stats = DeviceStats()
        self._decoder = FrameDecoder(self.stats.decoder)
        self._out: list[bytes] = []
        self.boot_id = 0
        self.boot(0.0)

    # --- lifecycle -------------------------------------------------------------------------

    def boot(self, now: float) -> None:
        """Power-on: a new boot id, an empty log, seq restarting at 1, a HELLO pushed."""
        self.boot_id = (self.boot_id + 1 + self.rng.randrange(1 << 30)) & 0xFFFF_FFFF or 1
        self._boot_time = now
        self.seq = 0
        self.acked = 0
        self._next_send = 1
        self._high_sent = 0
        self._log: deque[Frame] = deque(maxlen=self.config.log_size)
        self._sent_at: dict[int, float] = {}
        self._last_heartbeat = now
        self._recent_commands: deque[tuple[tuple[int, int, bytes], Frame]] = deque(maxlen=32)
        self.state = TableState.IDLE
        self.held = False
        self.errors = 0
        self.display: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._decoder.reset()
        self._out.clear()
        self._push(Frame(Hello.TYPE, 0, Flags.NONE, self.hello().encode_payload()))

    def hello(self) -> Hello:
        cfg = self.config
        caps, first = cfg.capabilities, self.log_first
        return Hello(1, self.boot_id, caps, first, self.seq, cfg.model, cfg.firmware)

    def status(self, now: float) -> Status:
        return Status(
            self.t_ms(now),
            self.state,
            self.held,
            self.boot_id,
            self.log_first,
            self.seq,
            self.stats.decoder.crc_errors,
            self.stats.retransmits,
            self.errors,
        )

    @property
    def log_first(self) -> int:
        return self.seq - len(self._log) + 1

    def t_ms(self, now: float) -> int:
        return int((now - self._boot_time) * 1000) & 0xFFFF_FFFF

    @property
    def window_open(self) -> bool:
        """Whether a new event would go out at once (the simulator paces itself on this)."""
        return self._next_send - self.acked <= self.config.window

    # --- events ------------------------------------------------------------------------------

    def emit(self, message: Message, now: float) -> int:
        """Log a table event under the next seq and send it if the window allows."""
        self.seq += 1
        self.stats.events += 1
        self._log.append(Frame(message.TYPE, self.seq, Flags.ACK_REQ, message.encode_payload()))
        self._track_state(message)
        self._pump(now)
        return self.seq

    def _track_state(self, message: Message) -> None:
        if isinstance(message, ShuffleStarted):
            self.state = TableState.SHUFFLING
        elif isinstance(message, SetComplete):
            self.state = TableState.SET_READY
        elif isinstance(message, WallRaised):
            self.state = TableState.WALL_UP
        elif isinstance(message, TableError):
            self.state = TableState.ERROR
            self.errors += 1
        elif isinstance(message, ButtonPressed) and message.button is Button.STOP:
            self.state = TableState.HALTED

    # --- input -------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        for frame in self._decoder.feed(data):
            self._on_frame(frame, now)

    def _on_frame(self, frame: Frame, now: float) -> None:
        if frame.type == Ack.TYPE and frame.flags & Flags.IS_ACK:
            acked = min(frame.seq, self.seq)
            if acked > self.acked:
                for s in range(self.acked + 1, acked + 1):
                    self._sent_at.pop(s, None)
                self.acked = acked
                self._next_send = max(self._next_send, acked + 1)
                self._pump(now)
            return
        key = (frame.seq, frame.type, frame.payload)
        if frame.flags & Flags.ACK_REQ:
            for seen, reply in self._recent_commands:
                if seen == key:
                    self.stats.duplicate_commands += 1
                    self._push(reply)
                    return
        try:
            message = decode_message(frame.type, frame.payload)
        except PayloadError:
            reason = NackReason.UNKNOWN_TYPE if frame.type not in _KNOWN else NackReason.BAD_PAYLOAD
            self._answer(frame, key, Nack(reason))
            return
        self.stats.commands += 1
        self._answer(frame, key, self._execute(message, now))

    def _execute(self, message: Message, now: float) -> Message:
        if isinstance(message, ResendFrom):
            return self._replay(message, now)
        if isinstance(message, GetStatus):
            return self.status(now)
        if isinstance(message, Hold | Release):
            if not self.config.capabilities & Capability.HOLD:
                return Nack(NackReason.UNKNOWN_TYPE)
            self.held = isinstance(message, Hold)
        elif isinstance(message, Beep):
            self.stats.beeps += message.count
        elif isinstance(message, SetDisplay):
            self.display = (message.east, message.south, message.west, message.north)
        elif not isinstance(message, Ping):
            return Nack(NackReason.UNKNOWN_TYPE)
        return Ack()

    def _answer(self, frame: Frame, key: tuple[int, int, bytes], reply: Message) -> None:
        if not frame.flags & Flags.ACK_REQ:
            return
        out = Frame(reply.TYPE, frame.seq, Flags.IS_ACK, reply.encode_payload())
        self._recent_commands.append((key, out))
        self._push(out)

    def _replay(self, request: ResendFrom, now: float) -> Message:
        first = max(request.seq, self.log_first)
        if request.seq < self.log_first:
            # Tell the host what it has lost before replaying what remains.
            self._push(Frame(Status.TYPE, 0, Flags.NONE, self.status(now).encode_payload()))
        if request.count:
            last = min(self.seq, request.seq + request.count - 1)
            for s in range(first, last + 1):
                self._send_logged(s, now)
                self.stats.replays += 1
        else:
            self._next_send = min(self._next_send, first)
            self._pump(now)
        if request.seq < self.log_first:
            return Nack(NackReason.LOG_GONE)
        return Ack()

    # --- output ------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """Heartbeat and retransmission timers."""
        if now - self._last_heartbeat >= self.config.heartbeat:
            self._last_heartbeat = now
            self._push(Frame(Status.TYPE, 0, Flags.NONE, self.status(now).encode_payload()))
        oldest = self.acked + 1
        sent = self._sent_at.get(oldest)
        if sent is not None and now - sent >= self.config.rto:
            last = min(self._next_send - 1, self.acked + self.config.window)
            for s in range(oldest, last + 1):
                self._send_logged(s, now)
                self.stats.retransmits += 1

    def take(self) -> list[bytes]:
        """Wire frames to send, in order (each one separately, for per-frame fault injection)."""
        out = self._out
        self._out = []
        return out

    def _pump(self, now: float) -> None:
        while self._next_send <= self.seq and self.window_open:
            self._send_logged(self._next_send, now)
            self._next_send += 1

    def _send_logged(self, seq: int, now: float) -> None:
        index = seq - self.log_first
        if not 0 <= index < len(self._log):
            return
        frame = self._log[index]
        if seq <= self._high_sent:
            frame = Frame(frame.type, frame.seq, frame.flags | Flags.RETRANSMIT, frame.payload)
        else:
            self._high_sent = seq
        if seq > self.acked:
            self._sent_at[seq] = now
        self._push(frame)

    def _push(self, frame: Frame) -> None:
        self.stats.frames_out += 1
        self._out.append(frame.encode())


_KNOWN = {m.TYPE for m in (Ping, GetStatus, ResendFrom, Hold, Release, Beep, SetDisplay)}
