"""Hearing the table: seat attribution, claim verification against the core's claim events,
conduct detectors on made signals (a slam, a ring, speech at one seat, silence), the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from referee.events import Call, Observation, make_event
from referee.game.sim import simulate
from referee.game.table import Table
from rig.cli import main as mjref
from voice.audio_io import SR, Audio, write_wav
from voice.conduct import ConductDetectors, calibrate_venue
from voice.scene import Scene, ring_tone, tile_clack
from voice.seats import (
    ChannelMapError,
    SeatActivity,
    band_levels,
    channel_map,
    gcc_phat,
    seat_from_tdoa,
)
from voice.verify import Claim, ClaimVerifier, claims_from_events, legal_words, to_events

SEATS: list[str | None] = ["E", "S", "W", "N"]


def clacks(scene: Scene, rng: np.random.Generator, seconds: float) -> None:
    for t in np.arange(0.7, seconds - 0.5, 1.9):
        scene.add(int(rng.integers(4)), tile_clack(rng), float(t), -24 + float(rng.uniform(-2, 2)))


def detectors(x: Audio, **kw: object) -> ConductDetectors:
    return ConductDetectors(calibrate_venue(x, 20.0), SEATS, **kw)  # type: ignore[arg-type]


def test_silence_gives_nothing() -> None:
    rng = np.random.default_rng(1)
    scene = Scene(30, rng)
    clacks(scene, rng, 30)
    x = scene.render()
    det = detectors(x)
    assert det.run(x) == []
    act = SeatActivity(band_levels(x), det.calibration.floors, SEATS)  # type: ignore[arg-type]
    assert act.utterances(audio=x) == []


@pytest.mark.slow
def test_slam_over_the_clack_level_and_the_winning_tile_once(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(2)
    scene = Scene(40, rng)
    clacks(scene, rng, 40)
    scene.add(3, tile_clack(rng), 26.3, -5)  # N slams
    scene.add(1, tile_clack(rng), 34.0, -5)  # S slams the winning tile
    x = scene.render()
    slams = [e for e in detectors(x).run(x) if e.kind == "slam"]
    assert [(e.seat, round(e.t_start)) for e in slams] == [("N", 26), ("S", 34)]
    assert all(e.rule == "WMC-13.6" and e.clip.startswith("audio#t=") for e in slams)
    excused = detectors(x, win_times=[(34.5, "S")]).run(x)
    assert [(e.kind, e.seat) for e in excused] == [("slam", "N")]


def test_ring_is_a_phone_not_talking() -> None:
    rng = np.random.default_rng(3)
    scene = Scene(40, rng)
    clacks(scene, rng, 40)
    scene.add(2, ring_tone(rng, rings=3), 24.0, -22)
    x = scene.render()
    events = detectors(x).run(x)
    assert [(e.kind, e.seat) for e in events] == [("phone", "W")]
    assert 23.5 < events[0].t_start < 25.0


@pytest.mark.slow
def test_speech_at_one_seat_is_talking_there_though_another_mic_is_louder(
    chatter: Audio,
) -> None:
    rng = np.random.default_rng(4)
    scene = Scene(40, rng, gain_spread_db=0.0)
    scene.gain = np.array([1.0, 10 ** (-6 / 20), 10 ** (6 / 20), 1.0])  # S's mic is 12 dB softer
    clacks(scene, rng, 40)
    scene.add(1, chatter, 25.0, -14)
    x = scene.render()
    seg = x[int(25.2 * SR) : int(26.5 * SR)]
    assert int(np.argmax(np.sqrt(np.mean(seg**2, axis=0)))) != 1  # the raw loudest is not S
    events = detectors(x).run(x)
    assert [(e.kind, e.seat) for e in events] == [("talking", "S")]
    assert events[0].t_start == pytest.approx(25.0, abs=0.2)
    # the same speech inside a claim window is a call's business, not talking
    assert detectors(x, allowed_windows=[(24.8, 29.0)]).run(x) == []


def test_gcc_phat_and_array_direction() -> None:
    rng = np.random.default_rng(5)
    s = rng.standard_normal(8000).astype(np.float32)
    assert gcc_phat(np.roll(s, 7), s, 40) == 7
    # a square array, 10 cm sides, at the table centre; a voice from the west (90°)
    mics = [(0.05, 0.05), (-0.05, 0.05), (-0.05, -0.05), (0.05, -0.05)]
    src = np.array([0.0, 1.0])
    x = np.stack([np.roll(s, -round(np.dot(m, src) / 343 * SR * 4)) for m in mics], axis=1)
    # (delays scaled ×4 to whole samples at 16 kHz: the geometry, not the size, is tested)
    mics4 = [(4 * a, 4 * b) for a, b in mics]
    assert seat_from_tdoa(x.astype(np.float32), mics4) == "W"


def test_channel_map() -> None:
    assert channel_map("S,-,N,E", 4) == ["S", None, "N", "E"]
    assert channel_map(None, 1, "W") == ["W"]
    for bad, n in (("E,S", 4), ("E,E,W,N", 4), ("E,S,X,N", 4)):
        with pytest.raises(ChannelMapError):
            channel_map(bad, n)


def test_legal_words() -> None:
    after = Claim("1", "S", "pung", 1.0, 2.0, discarder="E")
    assert legal_words(after) == ("chow", "pung", "kong", "win")
    assert legal_words(replace(after, discarder="N")) == ("pung", "kong", "win")
    own = Claim("2", "S", "kong", 1.0, 2.0, own_turn=True)
    assert legal_words(own) == ("kong", "selfdraw")


def _verifier(x: Audio, spotter: object = None) -> ClaimVerifier:
    cal = calibrate_venue(x, 20.0)
    act = SeatActivity(band_levels(x), cal.floors, SEATS)  # type: ignore[arg-type]
    return ClaimVerifier(x, act, SEATS, spotter=spotter)  # type: ignore[arg-type]


@pytest.mark.slow
def test_claims_against_the_core(say: Callable[..., Audio]) -> None:
    """The core's own claims (a simulated hand): calls placed for some, none for the others;
    the voice events go back into the core, which alerts WMC-5.2 exactly for the unspoken."""
    events = [e for e in simulate(hands=1, seed=3) if e.type != "call"]
    claims = claims_from_events(events)
    assert len(claims) >= 4
    end = events[-1].ts + 3
    rng = np.random.default_rng(6)
    scene = Scene(end, rng)
    for e in events:
        if e.type in ("discard", "draw"):
            scene.add(int(e.payload.seat), tile_clack(rng), e.ts, -26)  # type: ignore[attr-defined]
    word = {"chow": "chi1", "pung": "peng4", "kong": "gang4", "win": "hu2", "selfdraw": "zi4 mo1"}
    unspoken = {c.id for i, c in enumerate(claims) if i % 3 == 1}
    for c in claims:
        if c.id not in unspoken:
            clip = say(word[c.kind], "cmn-latn-pinyin")
            scene.add("ESWN".index(c.seat), clip, c.t_discard + 0.4, -14)
    x = scene.render()
    verifier = _verifier(x)
    verdicts = {c.id: verifier.verify(c) for c in claims}
    assert {i for i, v in verdicts.items() if v.spoken is False} == unspoken
    for i, v in verdicts.items():
        if i not in unspoken:
            c = next(c for c in claims if c.id == i)
            assert v.onset == pytest.approx(c.t_discard + 0.4, abs=0.1)
            assert v.seat_heard == c.seat
        else:
            assert v.rule in ("WMC-5.2", "WMC-5.5") and v.clip
    # replay: each exposure preceded by the voice's events for it
    table = Table("T1", "S1", "wmc")
    seq, alerts, seq_of = 0, [], {}
    for e in events:
        extra = to_events(verdicts[str(e.seq)]) if str(e.seq) in verdicts else []
        for p in [*extra, e.payload]:
            ev = make_event(p, seq=seq, ts=e.ts, table_id="T1", session_id="S1", source="voice")
            alerts += table.apply(ev).alerts
            seq += 1
        seq_of[str(e.seq)] = seq - 1  # the exposure's seq in the replayed log
    spoken_rules = [a for a in alerts if a.rule in ("WMC-5.2", "WMC-5.5")]
    # (from calls alone the core leaves a self-drawn win unchecked: the rig's claim_check
    # checks it, tests/referee/game/test_voice_checks.py)
    selfdraw = {c.id for c in claims if c.kind == "selfdraw"}
    assert sorted(str(a.seq) for a in spoken_rules) == sorted(
        str(seq_of[i]) for i in unspoken - selfdraw
    )
    assert not [a for a in alerts if a.rule not in ("WMC-5.2", "WMC-5.5")]


@pytest.mark.slow
def test_kong_said_after_showing_is_wmc_5_5(say: Callable[..., Audio]) -> None:
    rng = np.random.default_rng(7)
    scene = Scene(40, rng)
    clacks(scene, rng, 40)
    scene.add(2, say("gang4", "cmn-latn-pinyin"), 30.1, -14)
    x = scene.render()
    v = _verifier(x).verify(Claim("k", "W", "kong", 28.0, 30.0, discarder="S"))
    assert (v.spoken, v.rule, v.seat_heard) == (False, "WMC-5.5", "W")
    # another seat speaking is not the claimer's call
    v = _verifier(x).verify(Claim("p", "N", "pung", 29.0, 30.3, discarder="S"))
    assert v.spoken is False and v.others and v.others[0][0] == "W"


def test_no_audio_input_gives_no_alert_and_says_why() -> None:
    v = ClaimVerifier(None, None, SEATS).verify(Claim("1", "E", "pung", 1.0, 2.0))  # type: ignore[arg-type]
    assert v.spoken is None and "no audio input" in v.reason
    out = to_events(v)
    assert isinstance(out[0], Observation) and out[0].data["reason"] == v.reason
    assert isinstance(out[1], Call)  # benefit of the doubt: the core raises no WMC-5.2


def test_dead_microphone_is_uncertain() -> None:
    rng = np.random.default_rng(8)
    x = Scene(30, rng).render()
    x[:, 1] = 0.0
    v = _verifier(x).verify(Claim("1", "S", "pung", 20.0, 22.0))
    assert v.spoken is None and "silent" in v.reason


@pytest.mark.slow
def test_cli_verify_and_conduct(
    tmp_path: Path, say: Callable[..., Audio], capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(9)
    scene = Scene(40, rng)
    clacks(scene, rng, 40)
    scene.add(1, say("peng4", "cmn-latn-pinyin"), 30.4, -14)
    scene.add(3, tile_clack(rng), 36.03, -5)
    audio = tmp_path / "table.wav"
    sf.write(str(audio), scene.render(), SR, subtype="PCM_16")
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        '{"id": "a", "seat": "S", "t_discard": 30.0, "t_exposed": 31.5, "kind": "pung"}\n'
        '{"id": "b", "seat": "E", "t_discard": 20.0, "t_exposed": 21.5, "kind": "chow"}\n'
    )
    args = ["voice", "verify", str(audio), "--claims", str(claims), "--json", "--no-words"]
    assert mjref(args) == 0
    a, b = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (a["id"], a["spoken"], a["seat_heard"]) == ("a", True, "S")
    assert a["onset"] == pytest.approx(30.4, abs=0.1)
    assert (b["spoken"], b["rule"]) == (False, "WMC-5.2")
    assert mjref(["voice", "conduct", str(audio), "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["kind"], e["seat"]) for e in events] == [("slam", "N")]
    assert events[0]["clip"].startswith("table.wav#t=")


def test_cli_bad_audio_and_claims(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"id": "a", "seat": "S", "t_discard": 1, "t_exposed": 2, "kind": "pung"}\n')
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF....not audio")
    narrow = tmp_path / "phone.wav"
    write_wav(narrow, np.zeros((8000, 4), np.float32), sr=8000)
    mono = tmp_path / "mono.wav"
    write_wav(mono, np.zeros(16000, np.float32))
    cases = [
        (broken, "cannot read audio"),
        (narrow, "sample rate 8000 Hz; expected at least 16000"),
        (mono, "needs --seat"),
    ]
    for path, msg in cases:
        code = mjref(["voice", "verify", str(path), "--claims", str(claims), "--no-words"])
        err = capsys.readouterr().err
        assert code == 2 and msg in err and "Traceback" not in err
    claims.write_text('{"id": "a", "seat": "Q", "t_discard": 1, "t_exposed": 2, "kind": "pung"}\n')
    assert mjref(["voice", "conduct", str(mono), "--seat", "E", "--claims", str(claims)]) == 2
    assert "claims.jsonl:1" in capsys.readouterr().err


def test_two_seats_calling_on_one_discard(
    say: Callable[..., Audio], spotter_head: object, encoder: object
) -> None:
    """WMC-5.7: both callers' onsets (and the spotter's words) come with the verdict."""
    from voice.verify import Spotter

    rng = np.random.default_rng(10)
    scene = Scene(40, rng)
    clacks(scene, rng, 40)
    scene.add(0, say("peng4", "cmn-latn-pinyin"), 30.3, -14)  # E: pung
    scene.add(2, say("hu2", "cmn-latn-pinyin"), 30.9, -14)  # W: win, later
    x = scene.render()
    ver = _verifier(x, Spotter(spotter_head, encoder))  # type: ignore[arg-type]
    v = ver.verify(Claim("1", "E", "pung", 30.0, 32.0, discarder="S"))
    assert v.spoken is True and v.onset == pytest.approx(30.3, abs=0.1)
    assert v.word in ("pung", "kong", "win")  # no chow: E is not S's next player
    assert [(s, round(t, 1)) for s, t, _w in v.others] == [("W", 30.9)]
    assert v.others[0][2] in ("chow", "pung", "kong", "win")
    assert set(v.scores) == {"pung", "kong", "win"}


def _leaky_scene(rng: np.random.Generator, leak_db: float, seconds: float = 40) -> Scene:
    """Four close microphones, every seat's voice ``leak_db`` down at every other mic."""
    scene = Scene(seconds, rng, leak_db=(leak_db, leak_db), delay_ms=(1.0, 1.0))
    clacks(scene, rng, seconds)
    return scene


@pytest.mark.parametrize("leak_db", [6.0, 12.0, 20.0])
def test_another_seat_talking_over_the_window_is_heard_as_that_seat(
    say: Callable[..., Audio], chatter: Audio, leak_db: float
) -> None:
    """S talks through N's claim window as loud as N speaks, 6 to 20 dB down at N's mic: a
    silent N is an unspoken claim with S named as the voice heard, and a call from N under S's
    talk, 6 dB softer than N spoke before, is heard as N's."""
    rng = np.random.default_rng(11)
    scene = _leaky_scene(rng, leak_db)
    peng = say("peng4", "cmn-latn-pinyin")
    scene.add(3, peng, 12.0, -14)  # N heard once before (how loud N speaks)
    scene.add(1, np.concatenate([chatter, chatter]), 29.6, -14)  # S talks from 29.6 s on
    scene.add(3, peng, 36.0, -20)  # N calls, softly, under the end of S's talk
    x = scene.render()
    assert len(chatter) / SR > 3.0  # (S's talk covers both windows)
    verifier = _verifier(x)
    silent = verifier.verify(Claim("a", "N", "pung", 30.0, 31.5, discarder="E"))
    assert (silent.spoken, silent.rule, silent.seat_heard) == (False, "WMC-5.2", "S")
    spoken = verifier.verify(Claim("b", "N", "pung", 35.8, 37.2, discarder="E"))
    assert (spoken.spoken, spoken.seat_heard) == (True, "N")
    assert spoken.onset == pytest.approx(36.0, abs=0.15)


def test_a_voice_as_loud_at_the_claimers_mic_as_the_claimer_is_unsure_and_says_whose(
    say: Callable[..., Audio], chatter: Audio
) -> None:
    """A neighbour talking loudly into a poorly separated table (3 dB of cross-talk) beside a
    claimer who speaks at an ordinary level: the neighbour reaches the claimer's mic louder
    than a call of his would, so silence proves nothing — unsure, saying why and whose voice."""
    rng = np.random.default_rng(12)
    scene = _leaky_scene(rng, 3.0)
    peng = say("peng4", "cmn-latn-pinyin")
    for t in (12.0, 15.0, 18.0):  # N heard alone: how loud N speaks
        scene.add(3, peng, t, -26)
    scene.add(1, np.concatenate([chatter, chatter]), 29.6, -4)  # S talks loudly
    x = scene.render()
    v = _verifier(x).verify(Claim("c", "N", "pung", 30.0, 31.5, discarder="E"))
    assert v.spoken is None and v.rule is None
    assert v.reason.startswith("S's voice reaches the claimer's microphone as loud as")


@pytest.mark.parametrize(("level_db", "slam"), [(-10.0, False), (-2.0, True)])
def test_a_tile_knocked_while_its_player_talks_is_a_slam_only_when_far_louder(
    chatter: Audio, level_db: float, slam: bool
) -> None:
    """A click inside a seat's speech is as sharp as a plosive: a slam there must be
    SPEECH_SLAM_DB louder than one in silence (the same click alone is a slam)."""
    rng = np.random.default_rng(14)
    scene = Scene(40, rng)
    clacks(scene, rng, 40)
    scene.add(1, np.concatenate([chatter, chatter]), 25.0, -14)  # S talks from 25 s on
    scene.add(1, tile_clack(rng), 26.5, level_db)  # S's tile, knocked while talking
    scene.add(3, tile_clack(rng), 34.5, -8.0)  # N's, in silence: a slam
    x = scene.render()
    slams = [(e.seat, round(e.t_start)) for e in detectors(x).run(x) if e.kind == "slam"]
    assert slams == ([("S", 26)] if slam else []) + [("N", 34)]


@pytest.mark.parametrize(
    "word,text,voice,level", [("win", "hu2", "cmn-latn-pinyin", -14), ("pung", "pung3", "yue", -8)]
)
def test_the_word_of_a_call_is_read_without_the_talk_leaking_in_before_it(
    say: Callable[..., Audio],
    chatter: Audio,
    spotter_head: object,
    encoder: object,
    word: str,
    text: str,
    voice: str,
    level: float,
) -> None:
    """S chats up to just before N's call, 9 dB down at N's microphone: the spotter hears N's
    call, not S's talk as the start of it (two cases that read S's talk into the word before:
    another seat chatting took word accuracy to 62-70 % on the bench)."""
    from voice.verify import Spotter

    rng = np.random.default_rng(102)
    scene = Scene(40, rng, leak_db=(9.0, 9.0), delay_ms=(1.0, 1.0))
    for t in np.arange(0.7, 39.5, 1.9):
        scene.add(int(rng.integers(4)), tile_clack(rng), float(t), -24)
    talk = np.concatenate([chatter, chatter])
    scene.add(1, talk, 30.1 - len(talk) / SR, level)  # S talks up to 30.1 s
    scene.add(3, say(text, voice), 30.3, -14)  # N calls
    x = scene.render()
    ver = _verifier(x, Spotter(spotter_head, encoder))  # type: ignore[arg-type]
    v = ver.verify(Claim("1", "N", word, 30.0, 31.5, discarder="W"))
    assert v.spoken is True and v.onset == pytest.approx(30.3, abs=0.1)
    assert v.word == word
