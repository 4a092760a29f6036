"""The other seats' voices taken out of the claimer's microphone before the spotter hears it:
made tables whose cross-talk is known, the same table rendered with and without the other
seat's talk (the noise is the same draw), so what is left of that talk can be measured."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from voice.audio_io import SR, Audio
from voice.conduct import calibrate_venue
from voice.crosstalk import leak_gains, without_others
from voice.scene import Scene
from voice.seats import SeatActivity, band_levels

SEATS: list[str | None] = ["E", "S", "W", "N"]
S, N = 1, 3
CALL_AT, TALK_AT = 16.0, 14.5


def _table(say: Callable[..., Audio], chatter: Audio, leak_db: float, talk: bool) -> Audio:
    """N says a call alone at 3 s and S talks alone at 6 s (how the table's cross-talk is
    learnt); then N calls at 16 s, with S talking through it when ``talk``."""
    scene = Scene(24, np.random.default_rng(31), leak_db=(leak_db, leak_db), delay_ms=(1.0, 2.0))
    peng = say("peng4", "cmn-latn-pinyin")
    scene.add(N, peng, 3.0, -14)
    scene.add(S, chatter, 6.0, -14)
    scene.add(N, peng, CALL_AT, -20)  # softer than N spoke before
    if talk:
        scene.add(S, np.concatenate([chatter, chatter]), TALK_AT, -14)
    return scene.render()


def _activity(x: Audio) -> SeatActivity:
    return SeatActivity(band_levels(x), calibrate_venue(x, 20.0).floors, SEATS)


def _db(x: Audio) -> float:
    return float(10 * np.log10(np.mean(x.astype(np.float64) ** 2) + 1e-20))


@pytest.mark.parametrize("leak_db", [6.0, 12.0, 20.0])
def test_the_other_seats_talk_is_taken_out_and_the_claimers_call_kept(
    say: Callable[..., Audio], chatter: Audio, leak_db: float
) -> None:
    with_talk = _table(say, chatter, leak_db, talk=True)
    alone = _table(say, chatter, leak_db, talk=False)
    window = slice(int(TALK_AT * SR), int((CALL_AT + 1.5) * SR))
    gains = leak_gains(_activity(with_talk), N)
    assert S in gains  # learnt from S talking alone
    cleaned = without_others(with_talk, N, gains)
    before = _db(with_talk[window, N] - alone[window, N])  # S's talk at N's microphone
    after = _db(cleaned[window] - alone[window, N])
    assert after <= before - 6.0, (before, after)
    call = slice(int(CALL_AT * SR), int((CALL_AT + 0.6) * SR))
    assert _db(cleaned[call]) >= _db(alone[call, N]) - 3.0  # the call itself is kept


def test_a_call_alone_passes_as_it_was(say: Callable[..., Audio], chatter: Audio) -> None:
    x = _table(say, chatter, 12.0, talk=False)
    cleaned = without_others(x, N, leak_gains(_activity(x), N))
    call = slice(int(CALL_AT * SR), int((CALL_AT + 0.6) * SR))
    assert _db(cleaned[call] - x[call, N]) <= _db(x[call, N]) - 20.0


def test_the_learnt_gain_is_the_tables_cross_talk(
    say: Callable[..., Audio], chatter: Audio
) -> None:
    """S's voice reaches N's microphone 12 dB down (and duller): the gain learnt for the speech
    bands is within a few dB of it, the microphones' own gains accounted for."""
    scene = Scene(24, np.random.default_rng(31), leak_db=(12.0, 12.0), delay_ms=(1.0, 2.0))
    scene.add(S, chatter, 6.0, -14)
    x = scene.render()
    gain = leak_gains(_activity(x), N)[S]
    mics = 20 * np.log10(scene.gain[N] / scene.gain[S])
    assert np.all(np.abs(20 * np.log10(gain[:2]) - (scene.leak_db[S, N] + mics)) <= 4.0)


def test_no_cross_talk_known_leaves_the_microphone_as_it_is() -> None:
    x = np.random.default_rng(1).standard_normal((SR, 4)).astype(np.float32) * 0.01
    assert np.array_equal(without_others(x, 0, {}), x[:, 0])
