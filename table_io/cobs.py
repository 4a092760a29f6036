"""Consistent Overhead Byte Stuffing: removes every 0x00 so that 0x00 can delimit frames.

COBS costs at most one byte per 254 and lets a receiver that starts mid-stream, or that lost
bytes, realign at the very next 0x00 — the property the link's resync is built on.
"""

from __future__ import annotations


class CobsError(ValueError):
    """The bytes are not a valid COBS encoding."""


def encode(data: bytes | bytearray) -> bytes:
    """COBS-encode ``data``; the result contains no 0x00 (the delimiter is not appended)."""
    out = bytearray()
    out.append(0)  # placeholder for the first code byte
    code_pos = 0
    code = 1
    for byte in data:
        if byte == 0:
            out[code_pos] = code
            code_pos = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF:
            out[code_pos] = code
            code_pos = len(out)
            out.append(0)
            code = 1
    out[code_pos] = code
    return bytes(out)


def decode(data: bytes | bytearray | memoryview) -> bytes:
    """Decode one COBS block (without its delimiter); raises :class:`CobsError` if malformed."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise CobsError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise CobsError("COBS code runs past the end of the block")
        chunk = data[i + 1 : end]
        if 0 in chunk:
            raise CobsError("zero byte inside a COBS block")
        out += chunk
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
