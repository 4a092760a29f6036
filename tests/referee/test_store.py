"""The SQLite event store: durability settings, idempotence, snapshots, crash recovery."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee.game.sim import simulate
from referee.store import EventStore, StoreConflict, record, replay


def test_wal_and_synchronous_full(tmp_path: Path) -> None:
    with EventStore(tmp_path / "log.db") as store:
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_append_is_idempotent_and_refuses_conflicts(tmp_path: Path) -> None:
    events = simulate("wmc", hands=1, seed=3)
    with EventStore(tmp_path / "log.db") as store:
        assert store.append_many(events) == len(events)
        assert store.append_many(events) == 0  # a resend duplicates nothing
        other = events[5].model_copy(update={"ts": events[5].ts + 1})
        with pytest.raises(StoreConflict):
            store.append(other)
        assert store.seqs("T1", "S1") == list(range(len(events)))


def test_snapshot_per_hand_and_replay_equals_live(tmp_path: Path) -> None:
    from referee.game.sim import Simulator

    sim = Simulator("wmc", 8)
    events = list(sim.run(3))
    with EventStore(tmp_path / "log.db") as store:
        record(store, events)
        snap = store.latest_snapshot("T1", "S1")
        assert snap is not None and snap[1]["hands_played"] == 3
        assert replay(store, "T1", "S1").state.to_dict() == sim.table.state.to_dict()


WRITER = textwrap.dedent(
    """
    import sys
    from referee.game.sim import simulate
    from referee.store import EventStore
    store = EventStore(sys.argv[1])
    start = store.last_seq("T1", "S1") + 1
    for ev in simulate("wmc", hands=2, seed=42)[start:]:
        store.append(ev)
        print(ev.seq, flush=True)  # the acknowledgement
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_crash_recovery_sigkill_loses_no_ack_and_duplicates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    full = simulate("wmc", hands=2, seed=42)
    rng = random.Random(7)
    for _ in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        acked = -1
        stop_after = rng.randrange(5, 60)
        for n, line in enumerate(proc.stdout):
            if line.strip() == "done":
                break
            acked = int(line)
            if n >= stop_after:
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait()
        with EventStore(path) as store:
            seqs = store.seqs("T1", "S1")
            assert seqs == list(range(len(seqs)))  # no gap, no duplicate
            assert seqs[-1] >= acked  # nothing acknowledged was lost
    subprocess.run([sys.executable, "-c", WRITER, str(path)], check=True, capture_output=True)
    with EventStore(path) as store:
        stored = list(store.events("T1", "S1"))
    assert [e.model_dump_json() for e in stored] == [e.model_dump_json() for e in full]
