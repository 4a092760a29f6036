"""Spoken claims checked by the microphones (WMC-5.2, 5.5) and conduct sounds (WMC-13.6): the
voice input's typed events, turned into alerts by the engine (referee/EVENTS.md)."""

from __future__ import annotations

from typing import Any

from script_kit import HANDS

from referee.events import ClaimCheck, ConductHeard, VoiceSetup
from referee.game.script import Script
from referee.game.table import Step
from referee.hands import Wind


def started(checks: str | None = "voice", **hands: str) -> Script:
    s = Script()
    assert s.start(**{**HANDS, **hands}).accepted
    if checks is not None:
        s.push(VoiceSetup(checks=checks, seats=(Wind.E, Wind.S, Wind.W, Wind.N)))  # type: ignore[arg-type]
    return s


def check(s: Script, exposure: Step, seat: str, kind: str, spoken: bool | None, **kw: Any) -> Step:
    assert exposure.cause is not None
    p = ClaimCheck(claim_seq=exposure.cause.seq, seat=Wind[seat], kind=kind, spoken=spoken, **kw)  # type: ignore[arg-type]
    return s.push(p)


def test_wmc_5_2_claim_checked_after_the_exposure() -> None:
    """With the microphones checking, the exposure raises nothing; their answer decides."""
    s = started()
    s.do("E discard E")
    pung = s.do("N pung")
    assert pung.accepted and not pung.alerts  # no call logged: the check is still to come
    step = check(s, pung, "N", "pung", False, reason="no speech at the claimer's seat")
    [alert] = step.alerts
    assert (alert.rule, alert.seat, alert.rejected) == ("WMC-5.2", Wind.N, False)
    # the evidence is every event the ruling read: the exposure and the check (its clip)
    assert alert.penalty == "warning"
    assert alert.evidence == (pung.cause.seq, step.cause.seq)  # type: ignore[union-attr]
    assert "no speech at the claimer's seat" in alert.message
    assert not check(s, pung, "N", "pung", False).alerts  # answered once only


def test_wmc_5_2_spoken_or_uncertain_gives_no_alert() -> None:
    s = started()
    s.do("E discard E")
    pung = s.do("N pung")
    assert not check(s, pung, "N", "pung", True, word="pung", conf=0.9, onset=4.2).alerts
    s = started()
    s.do("E discard E")
    pung = s.do("N pung")
    assert not check(s, pung, "N", "pung", None, reason="the claimer's microphone clipped").alerts


def test_wmc_5_2_a_heard_call_outweighs_silence_at_the_seat() -> None:
    s = started()
    s.do("E discard E")
    s.do("N call pung")
    pung = s.do("N pung")
    assert not check(s, pung, "N", "pung", False).alerts


def test_wmc_5_2_unspoken_self_drawn_win_and_own_kong_repeated_is_a_point_penalty() -> None:
    """An own-turn concealed kong and a self-drawn win, neither said: the kong's check is
    S's first unspoken claim (a warning, WMC-5.5 as the microphones heard it after the
    showing), the self-drawn win's the second — a point-penalty proposal (WMC-5.2)."""
    s = started(E="123m456m789mESWNC", S="PPP567m789p111p5p")
    for line in ("E discard C", "S draw P"):
        s.do(line)
    kong = s.do("S kong concealed P")
    s.do("S replacement 5p")
    win = s.do("S win")
    assert win.accepted and not [a for a in kong.alerts + win.alerts if a.rule.startswith("WMC-5")]
    first = check(s, kong, "S", "kong", False, rule="WMC-5.5", reason="kong said after")
    assert [(a.rule, a.penalty) for a in first.alerts] == [("WMC-5.5", "warning")]
    second = check(s, win, "S", "selfdraw", False)
    [alert] = second.alerts
    assert (alert.rule, alert.penalty, alert.points) == ("WMC-5.2", "points", 10)
    assert "self-drawn win" in alert.message and "no. 2 of Bo" in alert.message


def test_wmc_5_2_self_drawn_win_is_not_checked_from_calls_alone() -> None:
    """A log of calls (hand-written, simulated) never said a self-drawn win: no finding."""
    s = started(checks=None, E="123m456m789mESWNC", S="PPP567m789p111p5p")
    for line in ("E discard C", "S draw P", "S call kong", "S kong concealed P"):
        assert not s.do(line).alerts
    s.do("S replacement 5p")
    assert not s.do("S win").alerts


def test_wmc_5_2_no_audio_input_no_alert() -> None:
    """No microphones: nothing decides whether a claim was spoken, so no alert (the
    voice_setup event in the record says why) — where calls alone would have raised one."""
    s = started(checks="none")
    s.do("E discard E")
    assert not s.do("N pung").alerts
    calls_only = started(checks=None)
    calls_only.do("E discard E")
    assert [a.rule for a in calls_only.do("N pung").alerts] == ["WMC-5.2"]


def test_wmc_13_6_conduct_sounds_and_the_winning_tile_slammed_once() -> None:
    s = started(E="123m456m789mESWNC", S="PPP567m789p111p5p")
    talk = s.push(ConductHeard(kind="talking", seat=Wind.W, t_start=3.0, t_end=7.5, detail="x"))
    assert [(a.rule, a.seat, a.penalty) for a in talk.alerts] == [("WMC-13.6", Wind.W, "warning")]
    phone = s.push(ConductHeard(kind="phone", seat=Wind.N, t_start=8.0, t_end=12.0))
    assert [(a.penalty, a.points) for a in phone.alerts] == [("points", 10)]
    for line in ("E discard C", "S draw P", "S kong concealed P", "S replacement 5p"):
        s.do(line)
    win = s.do("S win", at=30.0)
    assert win.accepted
    slam = ConductHeard(kind="slam", seat=Wind.S, t_start=29.4, t_end=29.45)
    assert not s.push(slam, at=32.0).alerts  # the winning tile, once
    assert [a.rule for a in s.push(slam, at=32.0).alerts] == ["WMC-13.6"]  # not twice
    other = ConductHeard(kind="slam", seat=Wind.E, t_start=29.8, t_end=29.85)
    assert [a.seat for a in s.push(other, at=32.0).alerts] == [Wind.E]  # not the winner's


def test_wmc_5_7_a_stronger_call_heard_from_another_seat_is_a_note() -> None:
    s = started()
    s.do("E discard E")
    pung = s.do("N pung")
    others = (
        {"seat": "W", "onset": 4.1, "word": "win"},
        {"seat": "S", "onset": 4.0, "word": "chow"},
    )
    step = check(s, pung, "N", "pung", True, others=others)
    [note] = step.alerts
    assert (note.rule, note.seat, note.severity, note.penalty) == ("WMC-5.7", Wind.W, "info", "")
    assert "W was heard calling win at 4.1 s" in note.message
    s = started()
    s.do("E discard E")
    pung = s.do("N pung")
    assert not check(s, pung, "N", "pung", True, others=others[1:]).alerts  # a chow is weaker
