"""Runs the fuzz target's properties over its seed corpus, so CI exercises it without atheris."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_targets import load

fuzz_frames, SEEDS = load(Path(__file__).resolve().parent / "fuzz", "fuzz_frames")


def test_corpus_is_present() -> None:
    assert len(SEEDS) >= 30


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_seed(seed: Path) -> None:
    fuzz_frames.check(seed.read_bytes())


def test_valid_seeds_hold_one_frame() -> None:
    from table_io.frames import FrameDecoder

    for seed in SEEDS:
        if seed.name.startswith("valid-"):
            assert len(FrameDecoder().feed(seed.read_bytes())) == 1, seed.name
