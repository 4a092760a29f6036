"""Atheris fuzz target for the frame decoder (``pip install atheris``).

    mkdir -p /tmp/fuzz-out
    python tests/table_io/fuzz/fuzz_frames.py /tmp/fuzz-out tests/table_io/fuzz/corpus \
        -max_total_time=300

(new inputs go to the first directory; the seed corpus is regenerated with ``--make-corpus DIR``)

Properties: the decoder never raises; every byte is accounted for; the frames found do not depend
on how the stream was chunked; each frame re-encodes to a block the decoder accepts again.
"""

from __future__ import annotations

import contextlib
import sys

from table_io.frames import FrameDecoder
from table_io.messages import PayloadError, decode_message


def check(data: bytes) -> None:
    whole = FrameDecoder()
    frames = whole.feed(data)
    cut = FrameDecoder()
    step = 1 + (data[0] % 7 if data else 0)
    pieces = []
    for i in range(0, len(data), step):
        pieces += cut.feed(data[i : i + step])
    assert pieces == frames, "chunking changed the result"
    s = whole.stats
    assert s.bytes_in == len(data)
    assert (
        s.resyncs == s.crc_errors + s.cobs_errors + s.length_errors + s.version_errors + s.oversize
    )
    for frame in frames:
        assert FrameDecoder().feed(frame.encode()) == [frame]
        with contextlib.suppress(PayloadError):
            decode_message(frame.type, frame.payload)


def make_corpus(directory: str) -> None:
    """Write the seed corpus: valid frames of every type, garbage around them, damaged copies."""
    import random
    from pathlib import Path

    from table_io.frames import Flags, Frame
    from table_io.messages import ALL_MESSAGES

    samples = {
        "Hello": ("1, 7, 0x7F, 1, 0, 'AM-4', '1.0'"),
        "Status": ("5, 1, 0, 7, 1, 3, 0, 0, 0"),
        "ButtonPressed": ("1, 1, 0"),
        "DiceResult": ("1, 3, 5"),
        "Dealer": ("1, 2"),
        "Mode": ("1, 4"),
        "TableError": ("1, 1, 0"),
        "ResendFrom": ("3, 0"),
        "Beep": ("1, 100"),
        "SetDisplay": ("1, -2, 3, 4"),
        "Nack": ("1",),
    }
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(0)
    for i, cls in enumerate(ALL_MESSAGES):
        args = samples.get(cls.__name__, ())
        text = args[0] if isinstance(args, tuple) and args else args
        fields = eval(f"[{text}]") if text else []
        if cls.__name__ in {"ShuffleStarted", "SetComplete", "WallRaised"}:
            fields = [1]
        wire = Frame(cls.TYPE, i + 1, Flags.ACK_REQ, cls(*fields).encode_payload()).encode()
        (out / f"valid-{cls.TYPE.name.lower()}").write_bytes(wire)
        bad = bytearray(wire)
        bad[rnd.randrange(1, len(bad) - 1)] ^= 0x20
        (out / f"corrupt-{cls.TYPE.name.lower()}").write_bytes(rnd.randbytes(9) + bytes(bad) + wire)
    (out / "no-delimiter").write_bytes(b"\x55" * 700)
    (out / "zeros").write_bytes(bytes(40))
    (out / "noise").write_bytes(rnd.randbytes(512))


def main() -> None:
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make-corpus"]:
        make_corpus(sys.argv[2])
    else:
        main()
