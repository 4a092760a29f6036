"""Scoring profiles: ``wmc`` (default) and ``zj33`` (the 44 patterns); ``mcr`` (Chinese)."""

from __future__ import annotations

from referee.hands import WinningHand
from referee.scoring.result import PatternScore, ScoreResult
from referee.scoring.wmc import PROFILES, score_zj

PROFILE_NAMES: tuple[str, ...] = ("wmc", "zj33", "mcr")


def score(hand: WinningHand, profile: str = "wmc") -> ScoreResult:
    """The value of a declared win under a profile; ``valid`` is False for a false win."""
    zj = PROFILES.get(profile)
    if zj is not None:
        return score_zj(hand, zj)
    if profile == "mcr":
        from referee.scoring.mcr import score_mcr

        return score_mcr(hand)
    raise ValueError(f"unknown profile {profile!r}: expected one of {', '.join(PROFILE_NAMES)}")


__all__ = ["PROFILE_NAMES", "PatternScore", "ScoreResult", "score"]
