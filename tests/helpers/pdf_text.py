"""The text a PDF made by reportlab shows (dashboard/pdf.py): each string it draws, in order.

Enough to read back a score card without a PDF library: reportlab writes each page as an
ASCII85 + Flate stream and the CJK font's text as 2-byte (UCS-2) strings."""

from __future__ import annotations

import base64
import re
import zlib

_STREAM = re.compile(rb"/Filter \[ /ASCII85Decode /FlateDecode \] /Length (\d+)\s*>>\s*stream\r?\n")
_SHOWN = re.compile(rb"\(((?:\\.|[^\\)])*)\) Tj", re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def _unescape(raw: bytes) -> bytes:
    def one(m: re.Match[bytes]) -> bytes:
        code = m.group(1)
        if code[:1].isdigit():
            return bytes([int(code, 8)])
        return _ESCAPES.get(code, code)

    return re.sub(rb"\\([0-7]{1,3}|.)", one, raw, flags=re.S)


def texts(pdf: bytes) -> list[str]:
    """Every string the pages draw (``Tj``), decoded, in the order drawn."""
    out: list[str] = []
    for m in _STREAM.finditer(pdf):
        body = pdf[m.end() : m.end() + int(m.group(1))].strip().removesuffix(b"~>")
        page = zlib.decompress(base64.a85decode(body))
        for s in _SHOWN.finditer(page):
            raw = _unescape(s.group(1))
            out.append(raw.decode("utf-16-be"))  # the card draws all its text in the CJK font
    return out
