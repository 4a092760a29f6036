"""A damaged record costs at most the hand it falls in (referee/EVENTS.md, "A damaged record").

Sensors drop, repeat and reorder events; files are cut and concatenated. Deleting one ``draw``
line from an 8-hand log used to cost every later hand (their walls refused, totals off by
hundreds, exit 0). These tests damage simulated logs and check that every hand the damage did
not touch scores exactly as in the clean log, the damaged one is marked citing the hole, and
nothing escapes as an exception.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee.duties import RefereeTable
from referee.events import Event, HandRuled, Source, make_event
from referee.game.sim import Simulator
from referee.game.state import HandResult
from referee.game.table import Table
from referee.sim_cli import Replayed, replay_lines
from rig.cli import main

SCORE_KEYS = (
    "result",
    "winner",
    "win_by",
    "discarder",
    "win_tile",
    "value",
    "patterns",
    "payments",
    "liable",
    "rule",
    "flags",
)


def _game(seed: int, hands: int, profile: str = "wmc") -> list[Event]:
    return list(Simulator(profile, seed).run(hands))


def _hand_of(events: list[Event]) -> dict[int, int]:
    """seq → the hand it belongs to (events between hands belong to the next one)."""
    table = Table()
    out = {}
    for ev in events:
        out[ev.seq] = table.state.hands_played
        table.apply(ev)
    return out


def _score(result: HandResult) -> dict[str, Any]:
    d = result.to_dict()
    return {k: d.get(k) for k in SCORE_KEYS}


def _only(replayed: Replayed) -> RefereeTable:
    (duty,) = replayed.duties
    return duty


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    hands=st.integers(2, 6),
    damage=st.lists(
        st.tuples(
            st.sampled_from(["delete", "duplicate", "swap"]),
            st.floats(0, 1, exclude_max=True),
            st.floats(0, 1, exclude_max=True),
        ),
        min_size=1,
        max_size=3,
    ),
)
# a hole before a new hand's wall, while a hand damaged earlier is still in play: the lost
# seat_draw was the next hand's, so the next hand is marked too
@example(seed=751, hands=5, damage=[("delete", 0.76953125, 0.0), ("delete", 0.75, 0.0)])
@pytest.mark.slow
def test_damage_costs_at_most_the_hands_it_falls_in(
    seed: int, hands: int, damage: list[tuple[str, float, float]]
) -> None:
    events = _game(seed, hands)
    hand_of = _hand_of(events)
    clean = _only(replay_lines([e.model_dump_json() for e in events])).state
    rows: list[Event] = list(events)
    for kind, where, there in damage:
        i = int(where * len(rows))
        if kind == "delete" and len(rows) > 1:
            rows.pop(i)
        elif kind == "duplicate":
            rows.insert(int(there * len(rows)), rows[i])
        elif kind == "swap" and i + 1 < len(rows):
            rows[i], rows[i + 1] = rows[i + 1], rows[i]
    state = _only(replay_lines([e.model_dump_json() for e in rows])).state
    deleted = sorted({e.seq for e in events} - {e.seq for e in rows})  # no copy of them left
    touched = {hand_of[s] for s in deleted}
    last = hands - 1
    assert len(state.results) in (hands, hands - 1)
    if len(state.results) < hands:  # only when the record ends inside the last hand
        assert last in touched
        assert any(a.rule == "SYS-end" for a in state.alerts)
    for number, result in enumerate(state.results):
        assert result.hand == number
        if number in touched:
            continue
        assert _score(result) == _score(clean.results[number]), number
    holes = []  # (first, last) missing seq named by each gap alert
    for a in state.alerts:
        found = re.search(r"\(seq (\d+)(?:–(\d+))? not received\)", a.message)
        if a.rule == "SYS-seq" and found:
            holes.append((int(found[1]), int(found[2] or found[1])))
    for seq in deleted:
        if seq > max(e.seq for e in rows):
            continue  # nothing follows the hole: the record just ends (SYS-end above)
        assert any(first <= seq <= last for first, last in holes), (seq, holes)
        number = hand_of[seq]
        if number < len(state.results):
            assert any(m.startswith(("SYS-seq@", "SYS-hand@")) for m in state.results[number].marks)


@pytest.mark.slow
def test_one_lost_draw_costs_one_hand_and_the_exit_code_says_so(tmp_path: Path) -> None:
    """The issue's case: one ``draw`` line deleted from a valid 8-hand log."""
    events = _game(11, 8)
    draws = [e for e in events if e.type == "draw"]
    lost = draws[len(draws) // 3]
    hand = _hand_of(events)[lost.seq]
    lines = [e.model_dump_json() for e in events if e.seq != lost.seq]
    clean = _only(replay_lines([e.model_dump_json() for e in events])).state
    duty = _only(replay_lines(lines))
    state = duty.state
    assert state.hands_played == 8
    for number in range(8):
        if number != hand:
            assert _score(state.results[number]) == _score(clean.results[number])
    assert f"SYS-seq@{lost.seq + 1}" in state.results[hand].marks
    (gap,) = [a for a in state.alerts if a.rule == "SYS-seq"]
    assert f"seq {lost.seq + 1} follows {lost.seq - 1}" in gap.message
    # what the hole makes players seem to do is flagged, and nobody is proposed a penalty for it
    after = [a for a in state.alerts if a.seq > lost.seq and not a.rule.startswith("SYS-")]
    in_hand = [a for a in after if _hand_of(events).get(a.seq) == hand]
    assert in_hand and all(a.damaged == f"SYS-seq@{lost.seq + 1}" for a in in_hand)
    assert not [e for e in duty.ledger.entries.values() if e.proposal.hand == hand]
    log = tmp_path / "lost.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    (tmp_path / "clean.jsonl").write_text(
        "".join(e.model_dump_json() + "\n" for e in events), encoding="utf-8"
    )
    assert main(["replay", str(tmp_path / "clean.jsonl")]) == 0


def _first_end_lost() -> list[Event]:
    """A 3-hand log whose first hand's end (and what followed it) never reached the record;
    numbered without a gap, as a live sequencer would."""
    events = _game(5, 3)
    ended = next(i for i, e in enumerate(events) if e.type in ("win", "exhaustive_draw"))
    second_wall = [e for e in events if e.type == "wall_built"][1]
    keep = [e for i, e in enumerate(events) if i < ended or e.seq >= second_wall.seq]
    return [e.model_copy(update={"seq": n}) for n, e in enumerate(keep)]


def test_a_new_wall_while_a_hand_is_in_play_closes_it_unfinished() -> None:
    state = _only(replay_lines([e.model_dump_json() for e in _first_end_lost()])).state
    first = state.results[0]
    assert first.unfinished and first.deltas == {} and first.marks[0].startswith("SYS-hand@")
    (alert,) = [a for a in state.alerts if a.rule == "SYS-hand"]
    assert alert.severity == "critical" and not alert.rejected
    assert state.hands_played == 3 and state.results[1].dealer == state.players[1]


def test_dice_with_no_wall_in_the_record_start_the_hand() -> None:
    t = Table()
    t.apply(_ev(0, "session_started", players=["A", "B", "C", "D"]))
    step = t.apply(_ev(1, "dice_rolled", seat="E", dice=[1, 1]))  # 2 names South the breaker
    assert [a.rule for a in step.alerts] == ["SYS-hand"]
    assert t.state.hand is not None and t.state.hand.marks == ["SYS-hand@1"]
    step = t.apply(_ev(2, "dice_rolled", seat="S", dice=[3, 2]))
    assert step.accepted and [d.type for d in step.derived] == ["wall_broken"]


def test_a_clock_that_runs_back_is_a_finding(tmp_path: Path) -> None:
    events = _game(2, 2)
    at = len(events) // 2
    back = [e if e.seq < at else e.model_copy(update={"ts": e.ts - 5000.0}) for e in events]
    state = _only(replay_lines([e.model_dump_json() for e in back])).state
    (alert,) = [a for a in state.alerts if a.rule == "SYS-clock"]
    went = 5000.0 - (events[at].ts - events[at - 1].ts)
    assert alert.seq == at and f"went back {went:.1f} s" in alert.message
    log = tmp_path / "back.jsonl"
    log.write_text("".join(e.model_dump_json() + "\n" for e in back), encoding="utf-8")
    assert main(["replay", str(log)]) == 1


def test_a_log_cut_mid_hand_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = _game(3, 2)
    cut = events[: len(events) * 3 // 4]
    log = tmp_path / "cut.jsonl"
    log.write_text("".join(e.model_dump_json() + "\n" for e in cut), encoding="utf-8")
    assert main(["replay", str(log), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (end,) = [a for a in data["alerts"] if a["rule"] == "SYS-end"]
    assert end["seq"] == cut[-1].seq and "inside hand 2" in end["message"]
    outputs: list[Any] = []
    replay_lines([e.model_dump_json() for e in cut], outputs)
    assert outputs[-1].payload["rule"] == "SYS-end"
    assert [o.seq for o in outputs] == list(range(len(outputs)))


def test_two_sessions_in_one_file_are_each_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = list(Simulator("wmc", 1, session_id="S1").run(2))
    second = list(Simulator("wmc", 2, session_id="S2").run(3))
    log = tmp_path / "two.jsonl"
    log.write_text("".join(e.model_dump_json() + "\n" for e in first + second), encoding="utf-8")
    assert main(["replay", str(log), "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert [(s["session_id"], s["hands_played"]) for s in data["sessions"]] == [
        ("S1", 2),
        ("S2", 3),
    ]
    assert "2 sessions, each replayed on its own: T1/S1, T1/S2" in out.err
    assert main(["sheet", str(log), "--json"]) == 0
    sheets = json.loads(capsys.readouterr().out)["sessions"]
    assert [s["session_id"] for s in sheets] == ["S1", "S2"]


def test_repeats_and_swaps_exit_0_a_conflict_exits_1(tmp_path: Path) -> None:
    lines = [e.model_dump_json() for e in _game(4, 1)]
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([*lines[:9], lines[10], lines[9], lines[9], *lines[11:]]))
    assert main(["replay", str(log)]) == 0
    other = json.loads(lines[9])
    other["ts"] += 100
    log.write_text("\n".join([*lines, json.dumps(other)]))
    assert main(["replay", str(log)]) == 1


def _ev(seq: int, type_: str, **payload: Any) -> Event:
    from referee.events import PAYLOADS

    return make_event(
        PAYLOADS[type_].model_validate(payload), seq=seq, ts=float(seq), source=Source.MANUAL
    )


def _ruled(duty: RefereeTable, seq: int, **payload: Any) -> list[str]:
    step = duty.apply(_ev(seq, "hand_ruled", **payload))
    return [a.rule for a in step.alerts if a.rejected]


def test_a_referee_settles_or_voids_a_marked_hand() -> None:
    keep = _first_end_lost()
    duty = RefereeTable()
    for e in keep:
        duty.apply(e)
    seq = len(keep)
    players = duty.state.results[0].players
    before = duty.totals()
    settled = {players[0]: 48, players[1]: -16, players[2]: -16, players[3]: -16}
    assert (
        _ruled(duty, seq, hand=0, ruling="settle", payments=settled, reason="clip", referee="R1")
        == []
    )
    after = duty.totals()
    assert {p: after[p] - before[p] for p in players} == settled
    (card,) = duty.cards()
    assert card.rows[0].payments == settled and card.rows[0].status == "settled"  # in its row
    assert not card.corrections
    # a later ruling replaces the earlier one; void puts the hand back to no payments
    assert _ruled(duty, seq + 1, hand=0, ruling="void", reason="replayed", referee="R2") == []
    assert duty.totals() == before
    # refused, each with the reason (WMC-8.1)
    bad: list[dict[str, Any]] = [
        {"hand": 9, "ruling": "void", "reason": "x", "referee": "R1"},
        {"hand": 0, "ruling": "void", "payments": {players[0]: 1}, "reason": "x", "referee": "R1"},
        {"hand": 0, "ruling": "settle", "payments": {"Nobody": 0}, "reason": "x", "referee": "R1"},
        {
            "hand": 0,
            "ruling": "settle",
            "payments": {players[0]: 8},
            "reason": "x",
            "referee": "R1",
        },
        {"hand": 0, "ruling": "void", "reason": " ", "referee": "R1"},
    ]
    for n, payload in enumerate(bad, start=seq + 2):
        assert _ruled(duty, n, **payload) == ["WMC-8.1"], payload
    assert duty.totals() == before


def test_hand_ruled_is_a_referee_event_the_engine_ignores() -> None:
    t = Table()
    t.apply(_ev(0, "session_started", players=["A", "B", "C", "D"]))
    ruling = HandRuled(hand=0, ruling="void", reason="r", referee="R")
    step = t.apply(make_event(ruling, seq=1, ts=1.0, source=Source.REFEREE))
    assert step.accepted and not step.derived


def test_a_damaged_hand_whose_end_and_next_wall_were_lost_closes_at_the_dealers_roll() -> None:
    """Found by the property test: a lost discard made a long hand whose win was false (play
    went on), then the next wall_built was lost too; the dealer's roll must end that hand."""
    events = list(Simulator("wmc", 4294967295).run(3))
    rows = list(events)
    for where in (0.5, 0.6875):
        rows.pop(int(where * len(rows)))
    state = _only(replay_lines([e.model_dump_json() for e in rows])).state
    assert [r.outcome for r in state.results] == ["win", "unfinished"]
    (closed,) = [a for a in state.alerts if "the dealer rolled for a new hand" in a.message]
    assert closed.rule == "SYS-hand" and closed.seq == 267


def test_a_stray_roll_in_a_sound_hand_is_still_refused() -> None:
    events = _game(6, 1)
    at = next(i for i, e in enumerate(events) if e.type == "draw")
    roll = _ev(events[at].seq, "dice_rolled", seat="E", dice=[2, 3])
    later = [e.model_copy(update={"seq": e.seq + 1}) for e in events[at:]]
    state = _only(replay_lines([e.model_dump_json() for e in [*events[:at], roll, *later]])).state
    at_roll = [a for a in state.alerts if a.seq == roll.seq]
    assert any(a.rule == "WMC-3.3" and a.rejected for a in at_roll), at_roll
    assert not [a for a in state.alerts if a.rule == "SYS-hand"]
    assert state.results[0].outcome != "unfinished"
