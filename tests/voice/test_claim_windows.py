"""The window each claim is checked in: from the tile it follows to its exposure."""

from __future__ import annotations

import pytest

from referee.events import Discard, Draw, Event, Source, WinDeclared, make_event
from referee.hands import Wind
from voice.verify import CAMERA_LAG_S, claims_from_events


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
    assert claim.t_exposed == 16.0


def test_a_draw_timed_by_whoever_saw_it_keeps_its_time() -> None:
    (claim,) = claims_from_events(_self_drawn_win(Source.SIMULATOR))
    assert claim.t_discard == 16.0
