"""Platform profiles (mcr-botzone, mcr-online): what they drop or add, and that official MCR
keeps every check (records README §3; MCR.md)."""

from __future__ import annotations

from referee.events import (
    Call,
    CallKind,
    Deal,
    DiceRolled,
    Discard,
    Payload,
    SessionStarted,
    WallBuilt,
    WinDeclared,
    make_event,
)
from referee.game.profile import MCR, MCR_BOTZONE, MCR_ONLINE, WMC
from referee.game.state import Phase
from referee.game.table import Step, Table
from referee.game.wall import SeatWalls, make_wall
from referee.hands import Wind
from referee.tiles import parse_tiles

HANDS = {
    Wind.E: "123m456m789m123p4sE",  # East discards E
    Wind.S: "11m22m33m44m55m66p7p",  # no win on E: a false win
    Wind.W: "123s456s789s11pSS",
    Wind.N: "999p888p777p666s5s",
}


class Feed:
    def __init__(self) -> None:
        self.table = Table()
        self.seq = 0

    def __call__(self, payload: Payload) -> Step:
        step = self.table.apply(make_event(payload, seq=self.seq, ts=float(self.seq)))
        self.seq += 1
        return step


def _deal() -> Deal:
    return Deal(
        hands={w: tuple(parse_tiles(t))[: 14 if w is Wind.E else 13] for w, t in HANDS.items()}
    )


def _started(profile: str, **kw: object) -> Feed:
    feed = Feed()
    feed(SessionStarted(profile=profile, players=("P0", "P1", "P2", "P3"), **kw))  # type: ignore[arg-type]
    return feed


def test_official_profiles_keep_dice_one_wall_and_wmc_11_6() -> None:
    for official in (WMC, MCR):
        assert official.dice and not official.seat_walls and official.false_win_fine == 0
        assert official.scorer == official.name
    assert (MCR.total_tiles, MCR.flowers) == (144, True)
    assert (MCR_ONLINE.total_tiles, MCR_ONLINE.flowers, MCR_ONLINE.scorer) == (144, True, "mcr")
    assert (MCR_BOTZONE.total_tiles, MCR_BOTZONE.flowers, MCR_BOTZONE.scorer) == (136, False, "mcr")


def test_a_platform_deals_without_dice_or_seat_draw_official_mcr_does_not() -> None:
    for name in ("mcr-botzone", "mcr-online"):
        feed = _started(name)
        assert feed(WallBuilt()).alerts == []  # no WMC-2.1 warning: the platform seats them
        assert feed(_deal()).alerts == []
        hand = feed.table.state.hand
        assert hand is not None and hand.phase is Phase.DISCARD
    feed = _started("mcr")
    assert [a.rule for a in feed(WallBuilt()).alerts] == ["WMC-2.1"]
    refused = feed(_deal()).alerts
    assert [(a.rule, a.rejected) for a in refused] == [("WMC-3.4", True)]


def test_no_dice_on_a_platform() -> None:
    feed = _started("mcr-botzone")
    feed(WallBuilt())
    assert [(a.rule, a.rejected) for a in feed(DiceRolled(seat=Wind.E, dice=(3, 4))).alerts] == [
        ("WMC-3.3", True)
    ]


def test_the_session_can_start_in_any_prevalent_wind() -> None:
    feed = _started("mcr-online", prevalent=Wind.W)
    st = feed.table.state
    assert st.prevalent is Wind.W
    st.hands_played = 4  # the next round: the wind moves on from there
    assert st.prevalent is Wind.N
    assert _started("mcr").table.state.prevalent is Wind.E


def _false_win(profile: str) -> Step:
    feed = _started(profile)
    feed(WallBuilt())
    if feed.table.state.profile.dice:
        feed(DiceRolled(seat=Wind.E, dice=(3, 2)))  # 5: East breaks
        feed(DiceRolled(seat=Wind.E, dice=(1, 1)))
    feed(_deal())
    feed(Discard(seat=Wind.E, tile=parse_tiles("E")[0]))
    feed(Call(seat=Wind.S, call=CallKind.WIN))
    return feed(WinDeclared(seat=Wind.S))


def test_botzone_a_false_win_ends_the_hand_with_the_platforms_settlement() -> None:
    step = _false_win("mcr-botzone")
    st = step.state
    assert [(a.rule, a.rejected) for a in step.alerts] == [("WMC-11.6", False)]
    assert st.hand is not None and st.hand.phase is Phase.IDLE
    result = st.results[0]
    assert result.outcome == "false_win" and result.false_win is Wind.S
    assert result.deltas == {Wind.E: 10, Wind.S: -30, Wind.W: 10, Wind.N: 10}
    assert st.scores == {"P0": 10, "P1": -30, "P2": 10, "P3": 10}
    ended = [d.payload for d in step.derived if d.type == "hand_ended"]
    assert ended[0]["result"] == "false_win"


def test_official_mcr_a_false_win_lets_play_continue_wmc_11_6() -> None:
    for profile in ("mcr", "mcr-online"):
        step = _false_win(profile)
        assert [(a.rule, a.rejected) for a in step.alerts] == [("WMC-11.6", False)]
        hand = step.state.hand
        assert hand is not None and hand.phase is not Phase.IDLE
        assert step.state.results == []
        assert len(hand.seats[Wind.S].penalty_live) == 13


def test_botzone_each_seat_draws_from_its_own_quarter() -> None:
    wall = make_wall(MCR_BOTZONE)
    assert isinstance(wall, SeatWalls) and not isinstance(make_wall(MCR), SeatWalls)
    assert [wall.live_for(s) for s in range(4)] == [20, 21, 21, 21]  # East's 14th is dealt
    assert [pos for _seat, pos in wall.deal_positions()][:14] == list(range(14))
    for _ in range(21):
        wall.take(wall.position(0, 2))
    assert [wall.live_for(s) for s in range(4)] == [20, 21, 0, 21]
    assert wall.position(0, 1) == 34 + 13
