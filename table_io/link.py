"""The host side of the link as a sans-I/O state machine: frames and time in, bytes and outputs out.

Everything that decides — in-order exactly-once delivery, duplicate suppression, gap repair with
RESEND_FROM, cumulative ACKs, command retransmission, reboot and offline detection — lives here
with no sockets and no clock of its own, so tests drive it step by step in simulated time. The
asyncio :mod:`table_io.driver` only moves bytes and calls :meth:`HostLink.tick`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from table_io.frames import MAX_SEQ, DecoderStats, Flags, Frame
from table_io.messages import (
    Ack,
    GetStatus,
    Hello,
    Message,
    PayloadError,
    ResendFrom,
    Status,
    decode_message,
)

_COUNT_ALL = 0
_MAX_COUNT = 0xFFFF


@dataclass(frozen=True, slots=True)
class LinkConfig:
    offline_after: float = 3.0  # silence that raises the offline alert
    command_rto: float = 0.25  # resend an unanswered command after this
    command_attempts: int = 8
    resend_retry: float = 0.05  # ask again for a still-open gap; adapts to 3 × measured repair time
    resend_min: float = 0.005
    resend_max: float = 0.5
    reorder_limit: int = 4096  # out-of-order events held while a gap is repaired
    start: Literal["log", "now"] = "log"  # on first contact: replay the device log, or only new
    first_seq: int | None = None  # host command numbering; random when None


# --- outputs ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Delivered:
    """A table event, delivered exactly once and in order; ``message`` is None if undecodable."""

    boot_id: int
    seq: int
    message: Message | None
    frame: Frame
    received_at: float


@dataclass(frozen=True, slots=True)
class Reply:
    """The table's answer (ACK, NACK or STATUS) to the host command numbered ``request_seq``."""

    request_seq: int
    message: Message


@dataclass(frozen=True, slots=True)
class CommandTimeout:
    request_seq: int


@dataclass(frozen=True, slots=True)
class LinkOnline:
    at: float


@dataclass(frozen=True, slots=True)
class LinkOffline:
    at: float
    last_heard: float | None  # None: never heard since the link started


@dataclass(frozen=True, slots=True)
class TableBooted:
    """First contact with a table stream (``previous_boot`` None) or a reboot (set)."""

    boot_id: int
    previous_boot: int | None
    hello: Hello | None
    at: float


@dataclass(frozen=True, slots=True)
class EventsLost:
    """Events the device log could no longer replay: the referee must know the record has a hole."""

    boot_id: int
    first_seq: int
    last_seq: int
    at: float


Output = Delivered | Reply | CommandTimeout | LinkOnline | LinkOffline | TableBooted | EventsLost


@dataclass(slots=True)
class LinkStats:
    """Counters for the dashboard; the decoder's own counters are merged in by :meth:`as_dict`."""

    decoder: DecoderStats = field(default_factory=DecoderStats)
    frames_in: int = 0
    frames_out: int = 0
    delivered: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    bad_payload: int = 0
    resend_requests: int = 0
    retransmits: int = 0  # host commands sent again
    retransmitted_in: int = 0  # frames the table flagged RETRANSMIT
    command_timeouts: int = 0
    lost: int = 0
    reboots: int = 0
    connects: int = 0
    disconnects: int = 0
    offline_alerts: int = 0

    def as_dict(self) -> dict[str, int]:
        out = self.decoder.as_dict()
        for name in self.__slots__:
            if name != "decoder":
                out[name] = getattr(self, name)
        return out


@dataclass(slots=True)
class _Pending:
    frame: Frame
    sent_at: float
    attempts: int
    internal: bool


class HostLink:
    """Host end of one table link. Call :meth:`receive` with frames, :meth:`tick` periodically."""

    def __init__(self, now: float, config: LinkConfig | None = None) -> None:
        self.config = config or LinkConfig()
        self.stats = LinkStats()
        self.boot_id: int | None = None
        self.expected: int | None = None  # next seq to deliver
        self.online: bool | None = None  # None until first heard
        self.connected = False
        self._last_rx = now
        self._known_last = 0  # highest seq the table has announced or sent
        self._reorder: dict[int, tuple[Frame, Message | None]] = {}
        self._resend_for: int | None = None
        self._resend_at = 0.0
        self._resend_tries = 0
        self._srtt: float | None = None  # smoothed gap-repair time (Karn: first tries only)
        self._pending: dict[int, _Pending] = {}
        first = self.config.first_seq
        self._next_seq = first if first is not None else random.randrange(1, 1 << 31)
        self._out = bytearray()
        self._outputs: list[Output] = []
        self._ack_due = False

    @property
    def last_heard(self) -> float:
        """When the last valid frame arrived (the link's creation time if none yet)."""
        return self._last_rx

    @property
    def resend_timeout(self) -> float:
        """How long a gap request may go unanswered before it is repeated."""
        cfg = self.config
        if self._srtt is None:
            return cfg.resend_retry
        return min(max(3 * self._srtt, cfg.resend_min), cfg.resend_max)

    # --- inputs ------------------------------------------------------------------------------

    def connection_made(self, now: float) -> None:
        """A (re)opened port: ask for the table's status and for everything since our position."""
        self.connected = True
        self.stats.connects += 1
        for pending in self._pending.values():
            self._write(pending.frame)
        self.send(GetStatus(), now, internal=True)
        if self.expected is not None:
            self._request_resend(now, force=True, count=_COUNT_ALL)

    def connection_lost(self, now: float) -> None:
        self.connected = False
        self.stats.disconnects += 1
        self._out.clear()

    def receive(self, frames: list[Frame], now: float) -> None:
        """Process frames decoded from the table (in stream order)."""
        for frame in frames:
            self._on_frame(frame, now)
        if self._ack_due and self.expected is not None:
            self._ack_due = False
            self._write(Frame(Ack.TYPE, self.expected - 1, Flags.IS_ACK))

    def tick(self, now: float) -> None:
        """Run the timers: offline detection, command retransmission, gap re-requests."""
        if self.online is not False and now - self._last_rx >= self.config.offline_after:
            self.online = False
            self.stats.offline_alerts += 1
            heard = self._last_rx if self.stats.frames_in else None
            self._outputs.append(LinkOffline(now, heard))
        for seq, pending in list(self._pending.items()):
            if now - pending.sent_at < self.config.command_rto:
                continue
            if pending.attempts >= self.config.command_attempts:
                del self._pending[seq]
                self.stats.command_timeouts += 1
                if not pending.internal:
                    self._outputs.append(CommandTimeout(seq))
                continue
            pending.attempts += 1
            pending.sent_at = now
            pending.frame = Frame(
                pending.frame.type,
                pending.frame.seq,
                pending.frame.flags | Flags.RETRANSMIT,
                pending.frame.payload,
            )
            self.stats.retransmits += 1
            self._write(pending.frame)
        if self._gap_open():
            self._request_resend(now)

    def send(self, message: Message, now: float, *, internal: bool = False) -> int:
        """Queue a host command with ACK_REQ; returns its seq (the key of its :class:`Reply`)."""
        seq = self._next_seq
        self._next_seq = seq + 1 if seq < MAX_SEQ else 1
        frame = Frame(message.TYPE, seq, Flags.ACK_REQ, message.encode_payload())
        self._pending[seq] = _Pending(frame, now, 1, internal)
        self._write(frame)
        return seq

    # --- outputs -----------------------------------------------------------------------------

    def take_bytes(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_outputs(self) -> list[Output]:
        out = self._outputs
        self._outputs = []
        return out

    # --- internals ---------------------------------------------------------------------------

    def _write(self, frame: Frame) -> None:
        if self.connected:
            self._out += frame.encode()
            self.stats.frames_out += 1

    def _on_frame(self, frame: Frame, now: float) -> None:
        self.stats.frames_in += 1
        self._last_rx = now
        if self.online is not True:
            self.online = True
            self._outputs.append(LinkOnline(now))
        try:
            message: Message | None = decode_message(frame.type, frame.payload)
        except PayloadError:
            self.stats.bad_payload += 1
            message = None
        if frame.flags & Flags.RETRANSMIT:
            self.stats.retransmitted_in += 1
        if frame.flags & Flags.IS_ACK:
            pending = self._pending.pop(frame.seq, None)
            if pending is not None and message is not None and not pending.internal:
                self._outputs.append(Reply(frame.seq, message))
        if isinstance(message, Hello):
            self._announce(message.boot_id, message.log_first, message.last_seq, now, message)
        elif isinstance(message, Status):
            self._announce(message.boot_id, message.log_first, message.last_seq, now, None)
        elif frame.flags & Flags.ACK_REQ:
            self._on_event(frame, message, now)

    def _announce(
        self, boot_id: int, log_first: int, last_seq: int, now: float, hello: Hello | None
    ) -> None:
        if self.boot_id != boot_id:
            previous = self.boot_id
            if previous is not None:
                self.stats.reboots += 1
                self._reorder.clear()
            self.boot_id = boot_id
            self._known_last = last_seq
            if previous is None and self.config.start == "now":
                self.expected = last_seq + 1
            else:
                self.expected = max(1, log_first)
            self._reorder = {s: v for s, v in self._reorder.items() if s >= self.expected}
            self._resend_for = None
            self._outputs.append(TableBooted(boot_id, previous, hello, now))
        else:
            assert self.expected is not None
            self._known_last = max(self._known_last, last_seq)
            if log_first > self.expected:
                self._lose(self.expected, log_first - 1, now)
        self._drain(now)
        if self._gap_open():
            self._request_resend(now)

    def _on_event(self, frame: Frame, message: Message | None, now: float) -> None:
        seq = frame.seq
        self._ack_due = True
        self._known_last = max(self._known_last, seq)
        expected = self.expected
        if expected is not None and seq < expected:
            self.stats.duplicates += 1
            return
        if seq in self._reorder:
            self.stats.duplicates += 1
            return
        if expected is not None and seq == expected:
            self._deliver(seq, frame, message, now)
            self._drain(now)
            return
        if len(self._reorder) < self.config.reorder_limit:
            self._reorder[seq] = (frame, message)
        if expected is not None:
            self.stats.out_of_order += 1
            self._request_resend(now)

    def _deliver(self, seq: int, frame: Frame, message: Message | None, now: float) -> None:
        assert self.boot_id is not None
        if seq == self._resend_for:
            if self._resend_tries == 1:
                sample = now - self._resend_at
                srtt = self._srtt
                self._srtt = sample if srtt is None else 0.875 * srtt + 0.125 * sample
            self._resend_for = None
        self._outputs.append(Delivered(self.boot_id, seq, message, frame, now))
        self.stats.delivered += 1
        self.expected = seq + 1

    def _drain(self, now: float) -> None:
        if self.expected is None:
            return
        while self._reorder:
            item = self._reorder.pop(self.expected, None)
            if item is None:
                break
            self._deliver(self.expected, item[0], item[1], now)
        if self._reorder and min(self._reorder) < self.expected:
            self._reorder = {s: v for s, v in self._reorder.items() if s >= self.expected}

    def _lose(self, first: int, last: int, now: float) -> None:
        assert self.boot_id is not None
        self.stats.lost += last - first + 1
        self._outputs.append(EventsLost(self.boot_id, first, last, now))
        self.expected = last + 1
        self._drain(now)

    def _gap_open(self) -> bool:
        return self.expected is not None and (
            bool(self._reorder) or self._known_last >= self.expected
        )

    def _request_resend(self, now: float, *, force: bool = False, count: int | None = None) -> None:
        expected = self.expected
        if expected is None or not self.connected:
            return
        repeat = self._resend_for == expected
        if repeat and now - self._resend_at < self.resend_timeout and not force:
            return
        if count is None:
            count = min(self._reorder) - expected if self._reorder else _COUNT_ALL
        self._resend_tries = self._resend_tries + 1 if repeat else 1
        self._resend_for = expected
        self._resend_at = now
        self.stats.resend_requests += 1
        request = ResendFrom(expected, min(count, _MAX_COUNT))
        self._write(Frame(request.TYPE, 0, Flags.NONE, request.encode_payload()))
