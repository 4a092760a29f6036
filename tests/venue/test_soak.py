"""The soak's report (`mjref demo --soak`): each planted finding's delay, from the moment the
video shows the event that raises it to its alert on the dashboard's bus; the exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from venue.demo import SEED, HandRecord, TablePlay, alert_delays, soak_report
from venue.demo_media import FILM_AFTER_DEAL_S, HandMedia, simulate, split_hands
from voice.verify import claims_from_events


def _record() -> HandRecord:
    """The demo's first hand as its media would be (no video made), its first claim unspoken,
    its video's first frame at monotonic time 1000."""
    hand = split_hands(simulate(SEED))[0]
    first = claims_from_events(hand)[0]
    media = HandMedia(SEED, 0, [], hand, Path("v"), Path("a"), (f"{first.seat} {first.kind}",))
    rec = HandRecord(media, session="S1", filmed_at=1000.0, ended_at=1200.0)
    rec.log, rec.finished = list(hand), True  # recorded as played
    rec.scored, rec.findings = rec.true_score, rec.planted
    return rec


def test_a_planted_finding_is_timed_from_the_moment_the_video_shows_it() -> None:
    rec = _record()
    [((rule, seat), t)] = rec.planted_at
    assert rule == "WMC-5.2"
    deal = rec.media.events[rec.media.deal].ts
    moment = 1000.0 + t - (deal + FILM_AFTER_DEAL_S)
    assert rec.on_film(t) == pytest.approx(moment)
    shown = [("T2", rule, seat, moment + 0.5), ("T1", rule, seat, moment + 1.4)]
    assert alert_delays(rec, "T1", shown) == [1.4]  # another table's alert is not this one
    assert alert_delays(rec, "T1", [("T1", rule, seat, 1300.0)]) == [None]  # after its hand


def test_the_soak_passes_only_when_every_hand_agrees_and_alerts_come_in_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rec = _record()
    (rule, seat), t = rec.planted_at[0]
    moment = rec.on_film(t)
    assert moment is not None
    play = TablePlay("T1", [rec])
    assert rec.agree()
    assert soak_report([play], [("T1", rule, seat, moment + 1.2)], 1.0) == 0
    assert soak_report([play], [("T1", rule, seat, moment + 2.5)], 1.0) == 1  # too late
    assert soak_report([play], [], 1.0) == 1  # never shown
    play.failed.append("S2: the link failed")
    assert soak_report([play], [("T1", rule, seat, moment + 1.2)], 1.0) == 1
    out = capsys.readouterr().out
    assert "T1 S1 hand 1: record" in out and '"failed_sessions": 1' in out
