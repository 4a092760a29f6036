"""`mjref review export`: our log normalised (a round trip), the hand-by-hand text record, mjai
lines that a riichi client can replay, refusals with one clear line, and the score card PDF."""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from referee.duties import replay
from referee.events import Discard, DiscardCorrected, Event, Source, make_event
from referee.game.inject import IrregularSimulator
from referee.game.seen import as_seen
from referee.game.sim import Simulator
from referee.game.table import Table
from referee.logread import read_log_file
from referee.records.walk import as_corrected
from referee.review.mjai import UNSEEN, MjaiError, to_mjai
from referee.review.text import text_record
from referee.tiles import FIRST_FLOWER, tile_name
from rig.cli import main

FLOWERS = {tile_name(FIRST_FLOWER + i) for i in range(8)}


@cache
def simulated(
    profile: str = "wmc", hands: int = 4, seed: int = 5, rate: float = 0.0
) -> tuple[Event, ...]:
    sim = IrregularSimulator(profile, seed, rate=rate) if rate else Simulator(profile, seed)
    return tuple(sim.run(hands))


def _write(path: Path, events: tuple[Event, ...] | list[Event]) -> Path:
    path.write_text("".join(e.to_json() + "\n" for e in events))
    return path


def test_jsonl_export_is_the_log_normalised_and_a_fixed_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = list(simulated())
    other = [e.model_copy(update={"session_id": "S2"}) for e in simulated(seed=6, hands=1)]
    lines = [e.to_json() for e in events + other]
    messy = lines + lines[10:20]  # repeated lines
    random.Random(1).shuffle(messy)  # and out of order
    log = tmp_path / "messy.jsonl"
    log.write_text("\n".join(messy) + "\n")
    out = tmp_path / "clean.jsonl"
    assert main(["review", "export", str(log), "--format", "jsonl", "--out", str(out)]) == 0
    read = read_log_file(out)
    assert sorted(s.session_id for s in read.sessions) == ["S1", "S2"]
    by_session = {s.session_id: s.events for s in read.sessions}
    assert by_session["S1"] == events and by_session["S2"] == other
    assert read.issues == [] and read.errors == []  # nothing repeated or out of order now
    again = tmp_path / "again.jsonl"
    assert main(["review", "export", str(out), "--format", "jsonl", "--out", str(again)]) == 0
    assert again.read_text() == out.read_text()
    capsys.readouterr()
    assert main(["review", "export", str(log), "--format", "jsonl", "--session", "S2"]) == 0
    assert capsys.readouterr().out == "".join(e.to_json() + "\n" for e in other)


def test_the_text_record_holds_seats_actions_results_penalties_and_totals() -> None:
    events = simulated(rate=0.05, hands=3, seed=3)
    text = text_record(events)
    duty = replay(events)
    assert duty is not None
    st = duty.state
    assert f"Players (venue E S W N): {', '.join(st.players)}" in text
    assert text.count("== Hand ") == len(st.results)
    for result in st.results:
        r = result.to_dict()
        assert f"Result of hand {r['hand'] + 1}: {r['result'].replace('_', ' ')}" in text
        for pat in r.get("patterns", []):
            assert f"{pat['id']:<12} {pat['name']} {pat['name_zh']} {pat['points']}" in text
        if "by_player" in r:
            pays = "  ".join(f"{p} {d:+d}" for p, d in r["by_player"].items())
            assert f"Payments: {pays}" in text
    proposals = list(duty.ledger.entries)
    assert proposals, "the simulated irregularities proposed no penalty"
    for pid in proposals:
        assert f"({pid})" in text  # each proposal with its id RULE@SEQ:SEAT
    alerts = [a for a in st.alerts if not a.rejected]
    assert all(f"! {a.rule} {a.severity}" in text for a in alerts)
    totals = duty.totals()
    assert text.rstrip().endswith("  ".join(f"{p} {totals[p]:+d}" for p in st.players))
    discards = [e for e in events if e.type == "discard"]
    assert f"#{discards[0].seq:<4}" in text and "discards" in text


def _replay_mjai(events: list[dict[str, Any]]) -> list[list[int]]:
    """Play mjai events as a client would: every tile let go of is held; 13 after a discard;
    the scores follow the deltas. Returns the scores at each end of a kyoku."""
    hands: list[Counter[str]] = []
    scores: list[list[int]] = []
    running = [0, 0, 0, 0]
    for e in events:
        kind = e["type"]
        if kind == "start_kyoku":
            assert e["scores"] == running
            hands = [Counter(h) for h in e["tehais"]]
            assert [sum(h.values()) for h in hands] == [13] * 4
            continue
        if kind in ("hora", "ryukyoku"):
            running = [a + b for a, b in zip(running, e["deltas"], strict=True)]
            assert e["scores"] == running and sum(e["deltas"]) == 0
            scores.append(running)
        if kind in ("start_game", "end_game", "end_kyoku", "hora", "ryukyoku"):
            continue
        me = hands[e["actor"]]
        if kind == "tsumo":
            me[e["pai"]] += 1
            continue
        gone = [e["pai"]] if kind in ("dahai", "kakan") else e["consumed"]
        for tile in gone:
            if me[tile] == 0 and me[UNSEEN] > 0:
                tile = UNSEEN  # a tile dealt or drawn face down, shown now
            assert me[tile] > 0, e
            me[tile] -= 1
    assert events[-1] == {"type": "end_game", "scores": running}
    return scores


def test_mjai_lines_replay_as_a_riichi_client_would_and_keep_the_payments() -> None:
    events = simulated(hands=8)
    mjai, notes = to_mjai(events)
    duty = replay(events)
    assert duty is not None
    st = duty.state
    names = mjai[0]["names"]
    assert mjai[0]["type"] == "start_game" and sorted(names) == sorted(st.players)
    assert sum(e["type"] == "start_kyoku" for e in mjai) == 8
    ends = _replay_mjai(mjai)
    assert ends[-1] == [st.scores[p] for p in names]  # an actor is one player all game
    first = st.results[0]
    assert names[mjai[1]["oya"]] == first.dealer
    wins = [r for r in st.results if r.winner is not None]
    assert sum(e["type"] == "hora" for e in mjai) == len(wins)
    assert any("dora_marker" in n for n in notes)


def test_a_hidden_record_exports_its_unseen_tiles_marked_and_the_same_results() -> None:
    full = simulated(hands=8)
    seen = as_seen(full)
    hidden, notes = to_mjai(seen)
    known, _ = to_mjai(full)
    assert [e["type"] for e in hidden] == [e["type"] for e in known]
    assert _replay_mjai(hidden) == _replay_mjai(known)  # the same payments, hand by hand
    first = next(e for e in hidden if e["type"] == "start_kyoku")
    assert first["tehais"] == [[UNSEEN] * 13] * 4
    draws = [e for e in hidden if e["type"] == "tsumo"]
    assert draws and all(e["pai"] == UNSEEN for e in draws)
    shown = [e["pai"] for e in hidden if e["type"] == "dahai"]
    assert shown == [e["pai"] for e in known if e["type"] == "dahai"]  # a discard is seen
    assert any("face down" in n and repr(UNSEEN) in n for n in notes)
    text = text_record(seen)
    assert "tiles dealt face down (not seen)" in text and "draws (face down: not seen)" in text


def test_mjai_refuses_flowers_unless_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = simulated(profile="mcr", hands=4)
    with pytest.raises(MjaiError, match="flowers"):
        to_mjai(events)
    log = _write(tmp_path / "mcr.jsonl", events)
    assert main(["review", "export", str(log), "--format", "mjai"]) == 2
    err = capsys.readouterr().err.strip()
    assert "has flowers" in err and "--drop-flowers" in err and "\n" not in err
    assert main(["review", "export", str(log), "--format", "mjai", "--drop-flowers"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(x) for x in captured.out.splitlines()]
    _replay_mjai(lines)
    assert not FLOWERS & {t for e in lines for t in [e.get("pai"), *e.get("consumed", [])]}
    assert "flower(s) dropped" in captured.err


def test_an_irregular_hand_mjai_cannot_replay_is_left_out_with_a_note() -> None:
    events = simulated(rate=0.3, hands=4, seed=7)
    mjai, notes = to_mjai(events)
    _replay_mjai(mjai)  # what is written replays
    left = [n for n in notes if "left out" in n]
    assert left, "the irregular hands left nothing out: the test proves nothing"


def test_pdf_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path / "game.jsonl", simulated(hands=2))
    pdf = tmp_path / "card.pdf"
    assert main(["review", "export", str(log), "--format", "pdf", "--out", str(pdf)]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    assert main(["review", "export", str(log), "--format", "pdf"]) == 2
    assert "needs --out" in capsys.readouterr().err
    missing = tmp_path / "nope.jsonl"
    assert main(["review", "export", str(missing), "--format", "text"]) == 2
    err = capsys.readouterr().err
    assert "nope.jsonl: cannot read the log" in err and "Traceback" not in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("not json\n")
    assert main(["review", "export", str(empty), "--format", "text"]) == 2
    err = capsys.readouterr().err
    assert "line 1: not JSON" in err and "no events" in err


def _misread_first_discard(events: list[Event]) -> list[Event]:
    """The log as a camera that misread the first discard logs it: another tile the seat held,
    then ``discard_corrected`` with the true one (the seqs renumbered after it)."""
    at = next(i for i, e in enumerate(events) if e.type == "discard")
    table = Table()
    for e in events[:at]:
        table.apply(e)
    true = events[at].payload
    assert isinstance(true, Discard) and table.state.hand is not None
    held = table.state.hand.seats[true.seat].counts
    other = next(t for t in range(27) if held[t] and t != true.tile)
    wrong = events[at].model_copy(update={"payload": true.model_copy(update={"tile": other})})
    fix = make_event(
        DiscardCorrected(seat=true.seat, tile=true.tile),
        seq=wrong.seq + 1,
        ts=wrong.ts,
        source=Source.VISION,
    )
    later = [e.model_copy(update={"seq": e.seq + 1}) for e in events[at + 1 :]]
    return [*events[:at], wrong, fix, *later]


def test_a_corrected_discard_exports_as_the_tile_that_was_played() -> None:
    events = list(simulated(hands=1))
    misread = _misread_first_discard(events)
    assert to_mjai(misread) == to_mjai(events)
    assert [e.payload for e in as_corrected(misread)] == [e.payload for e in events]
    assert "discarded (the record corrected)" in text_record(misread)
