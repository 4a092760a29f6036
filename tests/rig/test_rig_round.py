"""``cmd/round``: the tournament's dashboard tells a table its session and players for a round.

A real rig with no devices on the in-process bus, in simulated time: the round's players start
the session (session_started, by place); the command sent again changes nothing; other players
are refused; another session is switched to between hands (state, status and log follow it),
never mid-hand; a restarted rig resumes the session it was switched to; bad payloads are
refused with an alert that says what is wrong and what is expected."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from referee.events import (
    PAYLOADS,
    DiceRolled,
    Payload,
    SeatDraw,
    SessionStarted,
    Source,
    WallBuilt,
)
from referee.game.state import Phase
from referee.hands import Wind
from rig.bus import Kind, Subscription, topic_filter
from rig.bus.memory import MemoryBus
from rig.config import parse
from rig.inputs import Draft, round_call
from rig.runtime import Rig
from table_io.clock import FakeClock

PLAYERS = {"E": "Ann", "S": "Bo", "W": "Chen", "N": "Dai"}
R1 = {"session_id": "R1", "round": 1, "players": PLAYERS, "tournament": "Spring Open"}
R2 = {
    "session_id": "R2",
    "round": 2,
    "players": {"E": "Eve", "S": "Fay", "W": "Gus", "N": "Hal"},
    "tournament": "Spring Open",
}


def make_rig(tmp: Path, session: str, more: dict[str, Any]) -> tuple[Rig, MemoryBus]:
    table = {"id": "T1", "session": session, "venue": "hall", "log": str(tmp / "t.sqlite")}
    data: dict[str, Any] = {"table": table, "bus": {"state_every": 0.01}, **more}
    bus = MemoryBus("hall")
    return Rig(parse(data), bus, clock=FakeClock(0.0)), bus


Scenario = Callable[[Rig, MemoryBus, Subscription], Awaitable[None]]


def run(tmp: Path, scenario: Scenario, session: str = "R1", **more: Any) -> None:
    """``scenario`` on a started rig of table T1 (config: ``session``, ``more`` sections)."""

    async def main() -> None:
        rig, bus = make_rig(tmp, session, more)
        alerts = await bus.subscribe(topic_filter("hall", "T1", "alerts"))
        await rig.start()
        assert await rig.idle()  # its tasks started: the commands are subscribed to
        try:
            await scenario(rig, bus, alerts)
        finally:
            await rig.stop()

    asyncio.run(asyncio.wait_for(main(), 20))


async def send(rig: Rig, bus: MemoryBus, name: str, payload: dict[str, Any]) -> None:
    await bus.send_command("T1", name, payload)
    assert await rig.idle()


async def enter(rig: Rig, *payloads: Payload) -> None:
    for p in payloads:
        rig.submit("referee", Draft(p, Source.REFEREE))
    assert await rig.idle()


def rig_alerts(alerts: Subscription) -> list[dict[str, Any]]:
    """The rig alerts received so far (the engine's alerts carry a seq)."""
    out = []
    while not alerts.queue.empty():
        m = alerts.queue.get_nowait()
        assert m is not None
        if m.payload["source"] == "rig":
            out.append(m.payload["payload"])
    return out


async def retained(bus: MemoryBus, kind: Kind) -> dict[str, Any]:
    """The table's retained ``kind`` (state, status), as a subscriber arriving now gets it."""
    sub = await bus.subscribe(topic_filter("hall", "T1", kind))
    m = await sub.get(1)
    await sub.close()
    assert m is not None and m.retained
    return m.payload


def types(rig: Rig, session: str) -> list[str]:
    return [e.type for e in rig.store.events("T1", session)]


HAND_START: tuple[Payload, ...] = (
    SeatDraw(roller=0, roll1=5, roll2=5, winds=(Wind.E, Wind.S, Wind.W, Wind.N)),
    WallBuilt(),
    DiceRolled(seat=Wind.E, dice=(3, 2)),
    DiceRolled(seat=Wind.E, dice=(1, 1)),
)


def hand_to_win() -> tuple[Payload, ...]:
    """The rest of referee/EVENTS.md's hand: South wins on East's 5p."""
    moves: list[tuple[str, dict[str, Any]]] = [
        ("deal", {"hands": {"E": "123m456m789mESWN5p", "S": "234m567m789p111p5p",
                            "W": "678p123s789s22sFF", "N": "55s66s77sCCC2p9pEE"}}),
        ("discard", {"seat": "E", "tile": "N"}),
        ("draw", {"seat": "S", "tile": "9s"}), ("discard", {"seat": "S", "tile": "9s"}),
        ("draw", {"seat": "W", "tile": "1s"}), ("discard", {"seat": "W", "tile": "F"}),
        ("draw", {"seat": "N", "tile": "3s"}), ("discard", {"seat": "N", "tile": "2p"}),
        ("draw", {"seat": "E", "tile": "4p"}), ("discard", {"seat": "E", "tile": "5p"}),
        ("call", {"seat": "S", "call": "win"}),
        ("win", {"seat": "S"}),
    ]  # fmt: skip
    return tuple(PAYLOADS[kind].model_validate(p) for kind, p in moves)


def test_the_round_starts_the_session_with_its_players_by_place(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R1)
        (ev,) = rig.store.events("T1", "R1")
        assert (ev.seq, ev.type, ev.source) == (0, "session_started", Source.REFEREE)
        assert isinstance(ev.payload, SessionStarted)
        assert ev.payload.players == ("Ann", "Bo", "Chen", "Dai")  # venue E, S, W, N
        assert ev.payload.profile == "wmc"
        assert rig.duty.state.players == ["Ann", "Bo", "Chen", "Dai"]
        assert rig_alerts(alerts) == []

    run(tmp_path, scenario)


def test_the_round_sent_again_changes_nothing(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R1)
        before = await retained(bus, "state")
        for _ in range(3):  # the dashboard sends it each time the rig comes online
            await send(rig, bus, "round", R1)
        after = await retained(bus, "state")
        assert (after["last_seq"], after["digest"]) == (before["last_seq"], before["digest"])
        await enter(rig, *HAND_START)
        await send(rig, bus, "round", R1)  # mid-hand too: the same session, the same players
        assert types(rig, "R1") == [
            "session_started",
            "seat_draw",
            "wall_built",
            *["dice_rolled"] * 2,
        ]
        assert rig_alerts(alerts) == []

    run(tmp_path, scenario)


def test_other_players_for_the_session_are_refused(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R1)
        other = {**R1, "players": {"E": "Ann", "S": "Chen", "W": "Bo", "N": "Dai"}}
        await send(rig, bus, "round", other)
        (alert,) = rig_alerts(alerts)
        assert (alert["rule"], alert["input"], alert["severity"]) == (
            "RIG-INPUT",
            "commands",
            "warning",
        )
        msg = alert["message"]
        assert msg.startswith("cmd/round refused: session R1 started with")
        assert "E Ann, S Bo, W Chen, N Dai" in msg and "E Ann, S Chen, W Bo, N Dai" in msg
        assert "dashboard" in msg
        assert types(rig, "R1") == ["session_started"]
        assert rig.players == ("Ann", "Bo", "Chen", "Dai")

    run(tmp_path, scenario)


def test_a_switch_after_the_hand_ended_starts_the_new_session(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R1)
        assert isinstance(rig.clock.base, FakeClock)
        await rig.clock.base.advance(30.0)
        await enter(rig, *HAND_START, *hand_to_win())
        assert rig.last_ts == 30.0
        hand = rig.duty.state.hand
        assert hand is not None and hand.phase is Phase.IDLE and rig.duty.state.hands_played == 1
        r1 = [e.model_dump_json() for e in rig.store.events("T1", "R1")]
        states = await bus.subscribe(topic_filter("hall", "T1", "state"))
        await send(rig, bus, "round", R2)

        assert rig_alerts(alerts) == []
        assert rig.session_id == "R2" and rig.store.current("T1") == ("R2", "R1")
        (ev,) = rig.store.events("T1", "R2")
        assert (ev.seq, ev.session_id, ev.type) == (0, "R2", "session_started")
        assert isinstance(ev.payload, SessionStarted)
        assert ev.payload.players == ("Eve", "Fay", "Gus", "Hal")
        assert [e.model_dump_json() for e in rig.store.events("T1", "R1")] == r1  # untouched
        state, status = (await retained(bus, "state")), (await retained(bus, "status"))
        assert (state["session_id"], status["session_id"]) == ("R2", "R2")
        assert state["hands_played"] == 0 and status["last_seq"] == 0
        assert state["totals"] == dict.fromkeys(("Eve", "Fay", "Gus", "Hal"), 0)
        assert rig.sequencer.next == 1 and rig.duty.state.session_id == "R2"
        assert rig.clock.now() == 0.0 and ev.ts == 0.0  # R2's time line starts at 0
        published = []
        while not states.queue.empty():
            m = states.queue.get_nowait()
            assert m is not None
            published.append((m.payload["session_id"], m.payload["last_seq"]))
        r2 = published.index(("R2", -1))  # published at once: the new session, nothing logged
        assert {s for s, _ in published[:r2]} <= {"R1"} and {s for s, _ in published[r2:]} == {"R2"}

        # back to R1 (a round played again: the same players): it resumes from its log
        await send(rig, bus, "round", R1)
        assert rig.session_id == "R1" and rig.sequencer.next == len(r1)
        assert rig.clock.now() == 30.0  # R1's time line goes on where it stopped
        assert rig.duty.state.hands_played == 1 and rig_alerts(alerts) == []
        assert [e.model_dump_json() for e in rig.store.events("T1", "R1")] == r1

    run(tmp_path, scenario)


def test_the_inputs_start_again_on_the_new_session(tmp_path: Path) -> None:
    camera = tmp_path / "camera.jsonl"
    seen = {"sensor": "camera", "kind": "zone", "data": {}}
    line = {"table_id": "X", "session_id": "X", "seq": 0, "ts": 0, "source": "vision",
            "type": "observation", "payload": seen}  # fmt: skip
    camera.write_text(f"{json.dumps(line)}\n" * 2, encoding="utf-8")

    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        assert types(rig, "R1") == ["observation"] * 2  # the camera's file, read at start
        await send(rig, bus, "round", R1)
        old = next(t for t in rig._tasks if t.get_name() == "camera")
        await send(rig, bus, "round", R2)
        new = [t for t in rig._tasks if t.get_name() == "camera" and t is not old]
        assert len(new) == 1
        assert await rig.idle()
        r2 = list(rig.store.events("T1", "R2"))
        assert [e.type for e in r2] == ["session_started", "observation", "observation"]
        assert [e.evidence for e in r2[1:]] == [("camera:1",), ("camera:2",)]  # from line 1
        assert types(rig, "R1") == ["observation", "observation", "session_started"]
        assert (await retained(bus, "status"))["inputs"]["camera"]["health"] == "ok"
        assert rig_alerts(alerts) == []

    run(tmp_path, scenario, camera={"file": str(camera)})  # a recorded stand-in: no process


def test_the_evidence_is_recorded_under_the_new_session(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        assert rig.evidence is not None
        rec = rig.evidence.recorder
        assert rec.session == "R1"
        await send(rig, bus, "round", R2)
        assert rec.session == rec.ring.session == "R2"
        assert rec.audio.dir == tmp_path / "evidence" / "R2" / "audio"
        assert rec.stills_dir == tmp_path / "evidence" / "R2" / "stills"
        assert "evidence" in (await retained(bus, "status"))

    run(tmp_path, scenario, evidence={"dir": str(tmp_path / "evidence")})


def test_no_switch_while_a_hand_is_in_play(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R1)
        await enter(rig, *HAND_START)
        before = await retained(bus, "state")
        await send(rig, bus, "round", R2)
        (alert,) = rig_alerts(alerts)
        assert alert["input"] == "commands"
        assert alert["message"] == (
            "cmd/round refused: hand 1 of session R1 is in play (deal); expected the switch "
            "to R2 once it has ended"
        )
        assert rig.session_id == "R1" and types(rig, "R2") == []
        assert rig.store.current("T1") == ("R1", "R1")
        assert (await retained(bus, "state"))["session_id"] == "R1"
        assert (await retained(bus, "state"))["last_seq"] == before["last_seq"]

    run(tmp_path, scenario)


def test_a_session_without_a_hand_switches(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R2)  # the config's R1 never started: R2 is played
        assert rig.session_id == "R2" and types(rig, "R2") == ["session_started"]
        assert types(rig, "R1") == [] and rig_alerts(alerts) == []

    run(tmp_path, scenario)


def test_a_restarted_rig_resumes_the_session_it_was_switched_to(tmp_path: Path) -> None:
    async def first(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        await send(rig, bus, "round", R1)
        await send(rig, bus, "round", R2)
        await enter(rig, HAND_START[0])
        assert rig.session_id == "R2"

    run(tmp_path, first)

    async def again(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        assert rig.session_id == "R2" and rig.recovered == 2  # the config still says R1
        assert rig.players == ("Eve", "Fay", "Gus", "Hal") and rig.sequencer.next == 2
        await send(rig, bus, "round", R2)  # sent again as the rig comes online: nothing
        await enter(rig, WallBuilt())
        assert [e.seq for e in rig.store.events("T1", "R2")] == [0, 1, 2]
        assert (await retained(bus, "status"))["session_id"] == "R2"
        assert rig_alerts(alerts) == []

    run(tmp_path, again)

    async def edited(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        # the config names another session since: that edit is newer than the switch
        assert rig.session_id == "S9" and rig.sequencer.next == 0
        assert rig.store.current("T1") == ("S9", "S9")

    run(tmp_path, edited, session="S9")

    async def back(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        assert rig.session_id == "R1"  # the config's again: the switch to R2 was undone by S9
        assert types(rig, "R1") == ["session_started"]

    run(tmp_path, back)


BAD: list[tuple[dict[str, Any], str]] = [
    ({"players": PLAYERS}, "session_id = None; expected a session name of letters, digits"),
    ({**R1, "session_id": "R 2"}, "session_id = 'R 2'; expected"),
    ({**R1, "session_id": "../R2"}, "session_id = '../R2'; expected"),
    ({**R1, "session_id": 2}, "session_id = 2; expected"),
    ({"session_id": "R2"}, "players = None; expected an object with exactly the places E, S, W, N"),
    ({**R1, "players": ["Ann", "Bo", "Chen", "Dai"]}, "players = ['Ann', 'Bo', 'Chen', 'Dai']; "),
    ({**R1, "players": {"E": "Ann", "S": "Bo", "W": "Chen"}}, "players = ['E', 'S', 'W']; "),
    ({**R1, "players": {**PLAYERS, "X": "Eve"}}, "players = ['E', 'N', 'S', 'W', 'X']; expected"),
    ({**R1, "players": {**PLAYERS, "S": ""}}, "players.S = ''; expected a name of 1 to 64"),
    ({**R1, "players": {**PLAYERS, "W": "x" * 65}}, "players.W = 'xxxx"),
    ({**R1, "players": {**PLAYERS, "N": 7}}, "players.N = 7; expected a name"),
    ({**R1, "players": {**PLAYERS, "N": "  "}}, "players.N = '  '; expected"),
    ({**R1, "players": {**PLAYERS, "N": "Ann"}}, "players: Ann named twice; expected four players"),
]  # fmt: skip


def test_bad_payloads_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async def scenario(rig: Rig, bus: MemoryBus, alerts: Subscription) -> None:
        for payload, _ in BAD:
            await send(rig, bus, "round", payload)
        got = rig_alerts(alerts)
        assert len(got) == len(BAD)
        for alert, (_, expected) in zip(got, BAD, strict=True):
            assert alert["input"] == "commands"
            assert alert["message"].startswith(f"cmd/round refused: {expected}"), alert
        assert rig.session_id == "R1" and rig.store.sessions() == []

    run(tmp_path, scenario)


@pytest.mark.parametrize(("payload", "expected"), BAD)
def test_round_call_names_the_fault(payload: dict[str, Any], expected: str) -> None:
    with pytest.raises(ValueError) as exc:
        round_call(payload)
    assert str(exc.value).startswith(expected) and "expected" in str(exc.value)


def test_round_call_reads_the_payload() -> None:
    call = round_call(R2)
    assert (call.session_id, call.players) == ("R2", ("Eve", "Fay", "Gus", "Hal"))
    assert (call.round, call.tournament) == (2, "Spring Open")
    assert round_call({"session_id": "R2", "players": PLAYERS}).round is None
