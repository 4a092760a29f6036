"""Every scored hand of shared/testdata/wmc-hands.jsonl, under both pattern-table profiles."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from shared_data import shared_path

from referee.hands import WinningHand
from referee.scoring import score


def load_cases() -> list[dict[str, Any]]:
    path = shared_path("testdata", "wmc-hands.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


CASES = load_cases()


def test_the_file_has_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_zj33(case: dict[str, Any]) -> None:
    result = score(WinningHand.from_case(case), "zj33")
    assert result.valid
    assert result.total == case["expected_total_zj33"]
    got = Counter(p.id for p in result.patterns for _ in range(p.count))
    assert got == Counter(case["expected_patterns_zj33"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_wmc(case: dict[str, Any]) -> None:
    result = score(WinningHand.from_case(case), "wmc")
    expected = case["expected_total_wmc"]
    if expected == "invalid":
        assert not result.valid
        assert result.reason is not None and "WMC-12.3" in result.reason
    else:
        assert result.valid
        assert result.total == expected
