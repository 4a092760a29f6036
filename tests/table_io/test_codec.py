"""CRC, COBS, frames and messages: round trips over a real pty, and a parser that never raises."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_io import cobs
from table_io.crc import CHECK, crc16
from table_io.frames import MAX_PAYLOAD, Flags, Frame, FrameDecoder, parse_block
from table_io.messages import (
    ALL_MESSAGES,
    Beep,
    Button,
    ButtonPressed,
    Capability,
    Dealer,
    DiceResult,
    ErrorCode,
    Hello,
    Message,
    Mode,
    Nack,
    NackReason,
    PayloadError,
    ResendFrom,
    Seat,
    SetDisplay,
    Status,
    TableError,
    TableState,
    decode_message,
)

u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFF_FFFF)
i32 = st.integers(-(2**31), 2**31 - 1)
die = st.integers(1, 6)
short_text = st.text(max_size=40).filter(lambda s: len(s.encode()) <= 100)

FIELDS: dict[type[Message], dict[str, Any]] = {
    Hello: {
        "protocol": u8,
        "boot_id": u32,
        "capabilities": u16.map(Capability),
        "log_first": u32,
        "last_seq": u32,
        "model": short_text,
        "firmware": short_text,
    },
    Status: {
        "t_ms": u32,
        "state": st.sampled_from(TableState),
        "held": st.booleans(),
        "boot_id": u32,
        "log_first": u32,
        "last_seq": u32,
        "rx_crc_errors": u32,
        "tx_retransmits": u32,
        "errors": u32,
    },
    ButtonPressed: {"t_ms": u32, "button": st.sampled_from(Button), "seat": st.sampled_from(Seat)},
    DiceResult: {"t_ms": u32, "d1": die, "d2": die},
    Dealer: {"t_ms": u32, "seat": st.sampled_from([s for s in Seat if s is not Seat.CONSOLE])},
    Mode: {"t_ms": u32, "players": st.sampled_from([3, 4])},
    TableError: {
        "t_ms": u32,
        "code": st.sampled_from(ErrorCode) | st.integers(0x80, 0xFF),
        "detail": u16,
    },
    ResendFrom: {"seq": u32, "count": u16},
    Beep: {"count": u8, "duration_ms": u16},
    SetDisplay: {"east": i32, "south": i32, "west": i32, "north": i32},
    Nack: {"reason": st.sampled_from(NackReason)},
}


def message_strategy(cls: type[Message]) -> st.SearchStrategy[Message]:
    fields = FIELDS.get(cls, {})
    if not fields:
        t_ms_only = {"t_ms": u32} if "t_ms" in getattr(cls, "__dataclass_fields__", {}) else {}
        return st.builds(cls, **t_ms_only)
    return st.builds(cls, **fields)


any_message = st.one_of([message_strategy(cls) for cls in ALL_MESSAGES])
frames = st.builds(
    Frame,
    type=u8,
    seq=u32,
    flags=st.sampled_from(
        [Flags.NONE, Flags.ACK_REQ, Flags.IS_ACK, Flags.ACK_REQ | Flags.RETRANSMIT]
    ),
    payload=st.binary(max_size=MAX_PAYLOAD),
)


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == CHECK == 0x29B1
    assert crc16(b"6789", crc16(b"12345")) == CHECK


@pytest.mark.parametrize(
    ("data", "encoded"),
    [
        (b"\x00", "0101"),
        (b"\x00\x00", "010101"),
        (b"\x11\x22\x00\x33", "0311220233"),
        (b"\x11\x22\x33\x44", "0511223344"),
        (b"\x11\x00\x00\x00", "0211010101"),
    ],
)
def test_cobs_reference_vectors(data: bytes, encoded: str) -> None:
    assert cobs.encode(data).hex() == encoded
    assert cobs.decode(bytes.fromhex(encoded)) == data


@given(st.binary(max_size=1200))
def test_cobs_round_trip(data: bytes) -> None:
    encoded = cobs.encode(data)
    assert 0 not in encoded
    assert cobs.decode(encoded) == data
    assert len(encoded) <= len(data) + len(data) // 254 + 1


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=lambda c: c.TYPE.name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_message_round_trips_over_a_pty(pty_pair: Any, cls: type[Message], data: Any) -> None:
    message = data.draw(message_strategy(cls))
    seq = data.draw(u32)
    wire = Frame(cls.TYPE, seq, Flags.ACK_REQ, message.encode_payload()).encode()
    received = pty_pair.pass_to_host(wire)
    [frame] = FrameDecoder().feed(received)
    assert frame.seq == seq
    assert decode_message(frame.type, frame.payload) == message


@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    assert FrameDecoder().feed(frame.encode()) == [frame]
    assert parse_block(frame.encode()[1:-1]) == frame


@settings(max_examples=300)
@given(st.binary(max_size=2000), st.lists(st.integers(1, 64), max_size=50))
def test_decoder_never_raises_and_counts_everything(data: bytes, cuts: list[int]) -> None:
    decoder = FrameDecoder()
    pos = 0
    for size in [*cuts, len(data)]:
        decoder.feed(data[pos : pos + size])
        pos += size
    s = decoder.stats
    assert s.bytes_in == len(data)
    assert s.resyncs == (
        s.crc_errors + s.cobs_errors + s.length_errors + s.version_errors + s.oversize
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(frames, min_size=1, max_size=20),
    st.lists(st.binary(max_size=80), min_size=21, max_size=21),
    st.randoms(use_true_random=False),
)
def test_frames_in_garbage_arrive_once_each_over_a_pty(
    pty_pair: Any, sent: list[Frame], garbage: list[bytes], rnd: random.Random
) -> None:
    stream = b"".join(g + f.encode() for g, f in zip(garbage, sent, strict=False)) + garbage[-1]
    received = pty_pair.pass_to_host(stream)
    decoder = FrameDecoder()
    got: list[Frame] = []
    pos = 0
    while pos < len(received):  # random chunking, down to byte by byte
        size = rnd.choice([1, 1, 2, 7, 64, 1000])
        got += decoder.feed(received[pos : pos + size])
        pos += size
    # Garbage may itself spell a valid frame (CRC-16 lets 1 in 65536 through); ours must all come
    # through exactly once and in order.
    it = iter(got)
    assert all(any(g == f for g in it) for f in sent)
    assert len(got) - len(sent) <= sum(g.count(0) for g in garbage)


def test_byte_by_byte_over_a_pty(pty_pair: Any) -> None:
    sent = [Frame(0x14, s, Flags.ACK_REQ, DiceResult(s, 3, 4).encode_payload()) for s in range(50)]
    decoder = FrameDecoder()
    got: list[Frame] = []
    for byte in b"".join(f.encode() for f in sent):
        pty_pair.table_write(bytes([byte]))
        got += decoder.feed(pty_pair.host_read(1))
    assert got == sent
    assert decoder.stats.resyncs == 0


def test_corrupt_frames_are_counted_and_neighbours_survive() -> None:
    good = [Frame(0x11, s, Flags.ACK_REQ, b"\x00\x00\x00\x01").encode() for s in range(1, 4)]
    bad = bytearray(good[1])
    bad[5] ^= 0x40
    decoder = FrameDecoder()
    got = decoder.feed(good[0] + bytes(bad) + good[2])
    assert [f.seq for f in got] == [1, 3]
    assert decoder.stats.resyncs == 1


def test_an_endless_line_without_delimiters_does_not_grow_memory() -> None:
    decoder = FrameDecoder()
    for _ in range(100):
        decoder.feed(b"\x55" * 1000)
    assert len(decoder._buf) < 1000
    good = Frame(0x12, 9, Flags.ACK_REQ, b"\x00\x00\x00\x02")
    assert decoder.feed(good.encode()) == [good]
    assert decoder.stats.oversize == 1


@pytest.mark.parametrize(
    ("type_", "payload"),
    [
        (0x14, bytes.fromhex("0000000a0705")),  # die of 7
        (0x14, bytes.fromhex("0000000a03")),  # short
        (0x10, bytes.fromhex("0000000a0900")),  # unknown button
        (0x16, bytes.fromhex("0000000a02")),  # two players
        (0x01, bytes.fromhex("01000000050001000000010000000004414d4f53")),  # truncated HELLO
        (0x01, bytes.fromhex("01000000050001000000010000000002ffff00")),  # bad UTF-8
        (0x3A, b""),  # unknown type
    ],
)
def test_bad_payloads_raise_payload_error(type_: int, payload: bytes) -> None:
    with pytest.raises(PayloadError):
        decode_message(type_, payload)


@given(u8, st.binary(max_size=MAX_PAYLOAD))
def test_decode_message_only_ever_raises_payload_error(type_: int, payload: bytes) -> None:
    with contextlib.suppress(PayloadError):
        decode_message(type_, payload)
