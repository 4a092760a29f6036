"""The window each claim is checked in: from the tile it follows to its exposure."""

from __future__ import annotations

import pytest

from referee.events import Chow, Discard, Draw, Event, Pung, Source, WinDeclared, make_event
from referee.hands import Wind
from voice.verify import CAMERA_LAG_S, POST_S, claims_from_events


def _self_drawn_win(source: Source) -> list[Event]:
    """E discards at 10 s; S's draw is logged with his win at 16 s (the camera sees the draw
    only when the win shows it)."""
    return [
        make_event(Discard(seat=Wind.E, tile=5), seq=0, ts=10.0, source=source),
        make_event(Draw(seat=Wind.S), seq=1, ts=16.0, source=source),
        make_event(WinDeclared(seat=Wind.S), seq=2, ts=16.0, source=source),
    ]


def test_a_draw_the_camera_logged_with_the_win_opens_the_window_when_the_turn_began() -> None:
    """On a busy machine the camera logged S's draw and win seconds after S called: the call
    came between E's discard and the log, and was checked in a window that had closed on it
    (a false WMC-5.2 under load in the demo's third hand)."""
    (claim,) = claims_from_events(_self_drawn_win(Source.VISION))
    assert (claim.kind, claim.seat) == ("selfdraw", "S")
    assert claim.t_discard == pytest.approx(10.0 - CAMERA_LAG_S)
    assert claim.t_exposed == pytest.approx(16.0 - POST_S)  # shown before the camera saw it


def test_a_draw_timed_by_whoever_saw_it_keeps_its_time() -> None:
    (claim,) = claims_from_events(_self_drawn_win(Source.SIMULATOR))
    assert claim.t_discard == 16.0


def _pung_with_its_discard(gap: float) -> list[Event]:
    """N discards at 20 s; E draws; the camera logs E's draw and discard at 26 s and, ``gap``
    s later, S's pung of it."""
    return [
        make_event(Discard(seat=Wind.N, tile=3), seq=0, ts=20.0, source=Source.VISION),
        make_event(Draw(seat=Wind.E), seq=1, ts=26.0, source=Source.VISION),
        make_event(Discard(seat=Wind.E, tile=5), seq=2, ts=26.0, source=Source.VISION),
        make_event(Pung(seat=Wind.S), seq=3, ts=26.0 + gap, source=Source.VISION),
    ]


def test_a_discard_logged_with_its_claim_opens_the_window_when_the_tile_before_moved() -> None:
    """The camera logged the discard and the pung in one frame (the tile taken before it
    settled): the window was [25.0 - PRE_S, 26.4] while S had called at 24.5, as soon as E let
    go of it: a false WMC-5.2, its clip starting after the call."""
    (claim,) = claims_from_events(_pung_with_its_discard(0.0))
    assert (claim.kind, claim.seat, claim.discarder) == ("pung", "S", "E")
    assert claim.t_discard == pytest.approx(20.0 - CAMERA_LAG_S)
    assert claim.t_exposed == pytest.approx(26.0 - POST_S)


def test_a_discard_that_settled_before_its_claim_keeps_its_time() -> None:
    (claim,) = claims_from_events(_pung_with_its_discard(3.0))
    assert claim.t_discard == pytest.approx(26.0 - CAMERA_LAG_S)


def test_a_discard_logged_with_the_pung_before_it_opens_the_window_at_that_pungs_time() -> None:
    """The camera logged N's pung and N's discard in one frame (N's arm over both), and E's chow
    of that discard 2.6 s later: E had called 1.8 s before the camera's log, as soon as N let
    go of the tile, and a window opening a second before the log missed it (a false WMC-5.2 in
    the soak). The discard may have landed as soon as the pung: the window opens there."""
    events = [
        make_event(Discard(seat=Wind.W, tile=3), seq=0, ts=493.2, source=Source.VISION),
        make_event(Pung(seat=Wind.N), seq=1, ts=498.57, source=Source.VISION),
        make_event(Discard(seat=Wind.N, tile=5), seq=2, ts=498.59, source=Source.VISION),
        make_event(Chow(seat=Wind.E, tiles=(4, 5, 6)), seq=3, ts=501.17, source=Source.VISION),
    ]
    pung, chow = claims_from_events(events)
    assert (chow.kind, chow.seat, chow.discarder) == ("chow", "E", "N")
    assert chow.t_discard == pytest.approx(493.2 - CAMERA_LAG_S)  # not 498.59 - CAMERA_LAG_S
    assert pung.t_discard == pytest.approx(493.2 - CAMERA_LAG_S)


def test_a_move_is_timed_when_the_camera_saw_it_not_when_the_rig_logged_it() -> None:
    """On a loaded machine the camera's worker hands the rig a move seconds after it saw it:
    S's discard seen at 772.2 was logged at 774.21, and E's kong call just after the discard
    fell before a window opened from the log (a false WMC-5.5 in the 60-minute soak)."""
    seen = ("frame:1480", "seen:772.20")
    events = [
        make_event(
            Discard(seat=Wind.E, tile=3),
            seq=0,
            ts=771.26,
            source=Source.VISION,
            evidence=("seen:769.50",),
        ),
        make_event(
            Discard(seat=Wind.S, tile=5), seq=1, ts=774.21, source=Source.VISION, evidence=seen
        ),
        make_event(
            Pung(seat=Wind.E), seq=2, ts=775.88, source=Source.VISION, evidence=("seen:775.60",)
        ),
    ]
    (claim,) = claims_from_events(events)
    assert claim.t_discard == pytest.approx(772.20 - CAMERA_LAG_S)
    assert claim.t_exposed == pytest.approx(775.60 - POST_S)
