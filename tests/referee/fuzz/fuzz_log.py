"""Atheris fuzz target for reading and replaying a game log (``pip install atheris``).

    mkdir -p /tmp/fuzz-log
    python tests/referee/fuzz/fuzz_log.py /tmp/fuzz-log tests/referee/fuzz/corpus \
        -max_total_time=300

(new inputs go to the first directory; the seed corpus is regenerated with ``--make-corpus DIR``)

Properties: reading and replaying never raises; every non-blank line is accounted for (an event
of some session, a repeat or conflict named, or a malformed line); each session's engine outputs
are numbered 0, 1, 2 … without a gap; replaying the same bytes again gives the same outputs.
"""

from __future__ import annotations

import json
import sys

from referee.events import EngineEvent
from referee.sim_cli import replay_lines


def check(data: bytes) -> None:
    lines = data.split(b"\n")
    outputs: list[EngineEvent] = []
    replayed = replay_lines(lines, outputs)
    events = sum(len(log.events) for log, _duty in replayed.sessions)
    repeats = sum(1 for log, _ in replayed.sessions for i in log.issues if i.rule == "SYS-seq")
    blank = sum(1 for line in lines if not line.strip())
    assert events + repeats + len(replayed.errors) + blank == len(lines), "a line went missing"
    by_session: dict[tuple[str, str], list[int]] = {}
    for out in outputs:
        by_session.setdefault((out.table_id, out.session_id), []).append(out.seq)
    for seqs in by_session.values():
        assert seqs == list(range(len(seqs))), "engine outputs are not numbered without a gap"
    again: list[EngineEvent] = []
    replay_lines(data.split(b"\n"), again)
    assert [o.to_json() for o in again] == [o.to_json() for o in outputs], "not deterministic"


def make_corpus(directory: str) -> None:
    """Write the seed corpus: clean logs and damaged copies (every kind of damage we know)."""
    from pathlib import Path

    from referee.game.inject import IrregularSimulator
    from referee.game.sim import Simulator

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)

    def lines_of(profile: str, seed: int, hands: int, session: str = "S1") -> list[str]:
        sim = Simulator(profile, seed, session_id=session)
        return [ev.model_dump_json() for ev in sim.run(hands)]

    clean = lines_of("wmc", 1, 2)
    irregular = IrregularSimulator("wmc", 4, rate=0.1)
    seeds: dict[str, list[str]] = {
        "valid-wmc": clean,
        "valid-mcr": lines_of("mcr", 2, 1),
        "valid-zj33": lines_of("zj33", 3, 1),
        "valid-irregular": [ev.model_dump_json() for ev in irregular.run(2)],
        "dropped-draw": [line for i, line in enumerate(clean) if i != 12],
        "dropped-wall": [line for line in clean if '"wall_built"' not in line][:80],
        "repeated": [*clean[:30], clean[29], *clean[30:]],
        "swapped": [*clean[:40], clean[41], clean[40], *clean[42:]],
        "cut-mid-hand": clean[: len(clean) // 3],
        "two-sessions": clean[:30] + lines_of("wmc", 5, 1, "S2"),
    }
    conflict = json.loads(clean[25])
    conflict["ts"] = conflict["ts"] + 5.0
    seeds["conflict"] = [*clean, json.dumps(conflict)]
    back = [json.loads(line) for line in clean[:60]]
    for row in back[30:]:
        row["ts"] -= 5000.0
    seeds["clock-backwards"] = [json.dumps(r) for r in back]
    nan = json.loads(clean[20])
    nan["ts"] = float("nan")
    seeds["nan-ts"] = [*clean[:20], json.dumps(nan), *clean[21:40]]
    for name, rows in seeds.items():
        (out / name).write_bytes("\n".join(rows).encode() + b"\n")
    (out / "garbage").write_bytes(bytes(range(256)) * 4)
    (out / "half-line").write_bytes("\n".join(clean[:10]).encode()[:-17])
    (out / "empty").write_bytes(b"")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--make-corpus":
        make_corpus(sys.argv[2])
        sys.exit(0)
    import atheris  # type: ignore[import-not-found]

    atheris.instrument_all()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()
