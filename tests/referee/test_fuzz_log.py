"""Runs the log fuzz target's properties over its seed corpus and over random damage to it, so
CI exercises the reader and the replay without atheris (tests/referee/fuzz/fuzz_log.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_targets import load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

fuzz_log, SEEDS = load(Path(__file__).resolve().parent / "fuzz", "fuzz_log")


def test_corpus_is_present() -> None:
    assert len(SEEDS) >= 15


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_seed(seed: Path) -> None:
    fuzz_log.check(seed.read_bytes())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(SEEDS),
    edits=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.binary(max_size=12)), max_size=6
    ),
)
@pytest.mark.slow
def test_damaged_seeds(seed: Path, edits: list[tuple[float, bytes]]) -> None:
    """Bytes cut out or put in anywhere (inside a line, across lines): the properties hold."""
    data = seed.read_bytes()[:20000]
    for where, blob in edits:
        i = int(where * len(data))
        data = data[:i] + blob + data[i + len(blob) // 2 :]
    fuzz_log.check(data)
