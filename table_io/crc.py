"""CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR.

Chosen because every microcontroller vendor ships it (STM32 CRC unit, AVR ``_crc_xmodem_update``
with a 0xFFFF seed) so a table maker can implement the adapter side without a table of its own.
"""

from __future__ import annotations

POLY = 0x1021
INIT = 0xFFFF
CHECK = 0x29B1  # crc16(b"123456789"), the catalogue check value


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ POLY) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _make_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = INIT) -> int:
    """CRC of ``data``; pass a previous result as ``crc`` to continue over several pieces."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc
