"""Frame layout and the stream decoder that finds frames in a noisy byte stream.

On the wire a frame is ``0x00 ‖ COBS(header ‖ payload ‖ crc16_be) ‖ 0x00``: the leading
delimiter costs one byte and closes off any line noise before the frame, so garbage never takes a
good frame down with it. The decoder is sans-I/O:
feed it whatever bytes arrived, in any chunking, and it returns the frames that checked out. It
never raises on input; every discarded byte is accounted for in :class:`DecoderStats`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntFlag

from table_io import cobs
from table_io.crc import crc16

VERSION = 1
DELIMITER = 0x00
MAX_PAYLOAD = 255
HEADER = struct.Struct(">BBBIB")  # version, type, flags, seq, length
HEADER_SIZE = HEADER.size  # 8
CRC_SIZE = 2
MIN_RAW = HEADER_SIZE + CRC_SIZE
MAX_RAW = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_RAW + MAX_RAW // 254 + 1  # COBS worst case, delimiter excluded
MAX_SEQ = 0xFFFF_FFFF


class Flags(IntFlag):
    """Header flag bits; the other bits are reserved and must be sent as 0."""

    NONE = 0
    ACK_REQ = 0x01  # the receiver must acknowledge this frame's seq
    IS_ACK = 0x02  # this frame answers the peer's frame whose seq it carries
    RETRANSMIT = 0x04  # a repeat of a frame already sent (log replay or timeout)


KNOWN_FLAGS = Flags.ACK_REQ | Flags.IS_ACK | Flags.RETRANSMIT


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: the header fields and the raw payload."""

    type: int
    seq: int = 0
    flags: Flags = Flags.NONE
    payload: bytes = b""
    version: int = VERSION

    def raw(self) -> bytes:
        """Header, payload and CRC, before COBS (what the CRC protects)."""
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")
        head = HEADER.pack(self.version, self.type, int(self.flags), self.seq, len(self.payload))
        body = head + self.payload
        return body + crc16(body).to_bytes(2, "big")

    def encode(self) -> bytes:
        """The bytes to put on the wire, both delimiters included."""
        return b"\x00" + cobs.encode(self.raw()) + b"\x00"


@dataclass(slots=True)
class DecoderStats:
    """Why bytes were thrown away; the dashboard shows these per table."""

    frames: int = 0
    bytes_in: int = 0
    crc_errors: int = 0
    cobs_errors: int = 0
    length_errors: int = 0
    version_errors: int = 0
    oversize: int = 0
    resyncs: int = 0  # times the decoder dropped data and realigned on the next delimiter

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class FrameError(ValueError):
    """A delimited block that is not a valid frame."""


def parse_block(block: bytes | bytearray | memoryview) -> Frame:
    """Decode one delimited block (COBS, CRC, header); raises :class:`FrameError` subclasses."""
    try:
        raw = cobs.decode(block)
    except cobs.CobsError as exc:
        raise _CobsFailure(str(exc)) from None
    if len(raw) < MIN_RAW:
        raise _LengthFailure("frame shorter than header and CRC")
    body, check = raw[:-CRC_SIZE], int.from_bytes(raw[-CRC_SIZE:], "big")
    if crc16(body) != check:
        raise _CrcFailure("CRC mismatch")
    version, type_, flags, seq, length = HEADER.unpack_from(body)
    if version != VERSION:
        raise _VersionFailure(f"unsupported version {version}")
    if length != len(body) - HEADER_SIZE:
        raise _LengthFailure("length field does not match the frame")
    return Frame(type_, seq, Flags(flags & KNOWN_FLAGS), bytes(body[HEADER_SIZE:]), version)


class _CobsFailure(FrameError):
    pass


class _CrcFailure(FrameError):
    pass


class _LengthFailure(FrameError):
    pass


class _VersionFailure(FrameError):
    pass


@dataclass(slots=True)
class FrameDecoder:
    """Splits a byte stream on 0x00 and yields the valid frames, resynchronising on garbage.

    A block longer than any legal frame is dropped as soon as it is too long (so a stream with no
    delimiter cannot grow memory); decoding then restarts after the next 0x00.
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        """Consume ``data`` and return every frame completed by it, in stream order."""
        buf = data if isinstance(data, bytes | bytearray) else bytes(data)
        self.stats.bytes_in += len(buf)
        frames: list[Frame] = []
        start = 0
        n = len(buf)
        while start < n:
            end = buf.find(0, start)
            if end < 0:
                self._append(buf[start:])
                break
            self._append(buf[start:end])
            if self._skipping:
                self._skipping = False  # the oversize block ends here; it was already counted
            else:
                self._finish_block(frames)
            self._buf.clear()
            start = end + 1
        return frames

    def reset(self) -> None:
        """Forget a partial block (call when the underlying connection changes)."""
        self._buf.clear()
        self._skipping = False

    def _append(self, chunk: bytes | bytearray) -> None:
        if self._skipping:
            return
        if len(self._buf) + len(chunk) > MAX_ENCODED:
            self.stats.oversize += 1
            self.stats.resyncs += 1
            self._buf.clear()
            self._skipping = True
            return
        self._buf += chunk

    def _finish_block(self, frames: list[Frame]) -> None:
        if not self._buf:
            return  # back-to-back delimiters are legal padding
        try:
            frame = parse_block(self._buf)
        except _CrcFailure:
            self.stats.crc_errors += 1
        except _CobsFailure:
            self.stats.cobs_errors += 1
        except _LengthFailure:
            self.stats.length_errors += 1
        except _VersionFailure:
            self.stats.version_errors += 1
        else:
            self.stats.frames += 1
            frames.append(frame)
            return
        self.stats.resyncs += 1
