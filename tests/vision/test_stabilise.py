"""The stabiliser: a slot changes on agreeing readings; a slot the record named keeps its tile."""

from __future__ import annotations

from vision.stabilise import Stabiliser


def test_a_reading_is_committed_when_two_of_three_agree_with_its_runners_up() -> None:
    s = Stabiliser()
    assert not s.see("E/river/0", ("3p", False), 0.5, (("2p", 0.4),))
    assert s.see("E/river/0", ("3p", False), 0.7, (("2p", 0.2), ("7m", 0.1)))
    state = s.state("E/river/0")
    assert state.reading == ("3p", False)
    assert state.confidence == 0.6  # both readings agreed: their mean confidence
    assert state.alternatives == (("2p", 0.3), ("7m", 0.05))  # averaged over both


def test_an_unsure_face_is_read_again_and_is_the_tile_most_likely_over_its_readings() -> None:
    """A 2p of the venue's bench session (seed 90418), small and soft: its first two readings
    agreed on 3p, unsure, and the record took a 3p discard."""
    s = Stabiliser()
    readings = [
        ("3p", 0.43, (("2p", 0.415), ("C", 0.03))),
        ("3p", 0.46, (("2p", 0.355),)),
        ("2p", 0.48, (("3p", 0.378),)),
        ("2p", 0.55, (("3p", 0.3),)),
        ("2p", 0.5, (("3p", 0.35),)),
    ]
    for label, conf, alternatives in readings:
        assert not s.see("W/river/4", (label, False), conf, alternatives)
        assert s.state("W/river/4").pending
    assert s.see("W/river/4", ("3p", False), 0.45, (("2p", 0.4),))
    state = s.state("W/river/4")
    assert state.reading == ("2p", False)
    assert state.confidence == 0.45  # 2.7 over six readings
    assert state.alternatives == (("3p", 0.3947), ("C", 0.005))


def test_a_named_slot_keeps_the_record_s_tile_until_it_is_seen_empty() -> None:
    s = Stabiliser()
    s.see("S/meld/0", ("6s", False), 0.9)
    s.see("S/meld/0", ("6s", False), 0.9)
    s.name("S/meld/0", ("4s", True))  # the rules' reading of the claim
    for _ in range(3):  # the camera keeps misreading it
        assert not s.see("S/meld/0", ("6s", False), 0.9)
    assert s.state("S/meld/0").reading == ("4s", True)
    s.see("S/meld/0", ("empty", False), 1.0)
    assert s.see("S/meld/0", ("empty", False), 1.0)  # the tile is gone: the name with it
    s.see("S/meld/0", ("6s", False), 0.9)
    assert s.see("S/meld/0", ("6s", False), 0.9)


def test_a_named_slot_read_as_another_tile_is_read_again_until_sure() -> None:
    s = Stabiliser()
    s.see("E/river/1", ("9m", False), 0.9)
    s.see("E/river/1", ("9m", False), 0.9)
    s.name("E/river/1", ("9m", False))
    s.see("E/river/1", ("6s", False), 0.5)  # a shadow as the tile is taken
    assert s.state("E/river/1").pending  # so the camera looks again
    s.see("E/river/1", ("empty", False), 1.0)
    assert s.see("E/river/1", ("empty", False), 1.0)
    assert s.state("E/river/1").reading == ("empty", False)


def test_a_slot_emptied_before_the_record_named_it_stays_empty() -> None:
    s = Stabiliser()  # the discard is recorded after the claim took the tile
    s.name("E/river/1", ("9m", False))
    assert s.state("E/river/1").reading == ("empty", False)
    assert not s.state("E/river/1").named
