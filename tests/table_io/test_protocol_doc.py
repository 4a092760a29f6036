"""Every byte-level example in table_io/PROTOCOL.md is what the codec produces and accepts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_io import messages
from table_io.frames import Flags, Frame, FrameDecoder

DOC = Path(__file__).resolve().parents[2] / "table_io" / "PROTOCOL.md"
BLOCKS = re.findall(r"```frame\n(.*?)```", DOC.read_text(), re.S)


def _fields(block: str) -> dict[str, str]:
    return dict(line.split(":", 1) for line in block.strip().splitlines())


def test_the_document_has_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: _fields(b)["message"].split("(")[0].strip())
def test_example_bytes_match_the_codec(block: str) -> None:
    f = {k.strip(): v.strip() for k, v in _fields(block).items()}
    namespace = {name: getattr(messages, name) for name in messages.__all__}
    message = eval(f["message"], {"__builtins__": {}}, namespace)  # our own document
    flags = Flags.NONE
    for name in f["flags"].split("|"):
        flags |= Flags[name]
    frame = Frame(message.TYPE, int(f["seq"]), flags, message.encode_payload())
    assert frame.raw() == bytes.fromhex(f["raw"])
    assert frame.encode() == bytes.fromhex(f["wire"])
    [decoded] = FrameDecoder().feed(bytes.fromhex(f["wire"]))
    assert decoded == frame
    assert messages.decode_message(decoded.type, decoded.payload) == message
