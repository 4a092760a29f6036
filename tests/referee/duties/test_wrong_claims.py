"""Wrong melds (WMC-11.1, 11.5), changed claims (WMC-11.2) and a referee lifting a restriction
the engine applied (WMC-0.3), through the event stream."""

from __future__ import annotations

from collections.abc import Callable

from duty_kit import Duty

from referee.events import Discard, PenaltyDecision
from referee.game.state import Phase, SeatState
from referee.game.table import CLAIM_CHANGE_POINTS, CLAIM_CHANGE_REPEAT, Table
from referee.hands import Wind
from referee.penalties import Status
from referee.tiles import parse_tile, parse_tiles

Deal = Callable[..., Duty]


def _dismiss(d: Duty, proposal: str, reason: str = "the camera misread the tiles") -> list[str]:
    step = d.push(
        PenaltyDecision(proposal=proposal, verdict="dismiss", referee="R1", reason=reason)
    )
    return [str(x.payload["proposal"]) for x in step.derived if x.type == "restriction_lifted"]


# ---- WMC-11.5: a wrong meld found after play moved on ------------------------------------------


def test_wmc_11_5_wrong_pung_found_after_the_next_draw_cannot_win(deal: Deal) -> None:
    d = deal()
    d.do("E discard E")
    d.do("N call pung")
    step = d.do("N pung EE9p")  # N grabbed 9p instead of his second E: the record keeps it
    assert Duty.found(step) == [("WMC-11.1", "N")] and not step.alerts[0].rejected
    assert step.alerts[0].severity == "warning" and Duty.proposals(step) == []
    exposed = step.alerts[0].seq
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.N].wrong_melds == [
        ("pung", tuple(parse_tiles("9pEE")))
    ]
    assert hand.seats[Wind.N].size == 14 and hand.turn is Wind.N
    assert d.do("N discard 2p").alerts == []  # still correctable: his discard lies unclaimed
    step = d.do("E draw 1s")  # the next player drew: too late
    assert Duty.found(step) == [("WMC-11.5", "N")]
    alert = step.alerts[0]
    assert alert.severity == "critical" and alert.evidence == (exposed,)
    [prop] = Duty.proposals(step)
    assert (prop["id"], prop["kind"]) == (f"WMC-11.5@{alert.seq}:N", "no_win")
    assert hand.seats[Wind.N].dead == "short"
    d.do("E discard 1s")
    # no win this hand (WMC-10.2): the hand shown is a false win
    assert Duty.found(d.do("N win")) == [("WMC-11.6", "N")]


def test_wmc_11_5_wrong_pung_found_when_its_discard_was_claimed(deal: Deal) -> None:
    d = deal(N="55s66s77sCCC2s9pEE")
    d.do("E discard E")
    d.do("N call pung")
    exposed = d.do("N pung EE9p").alerts[0].seq
    d.do("N discard 2s")
    d.do("W call pung")
    step = d.do("W pung")  # W claims the wrong melder's discard: play moved on
    assert Duty.found(step) == [("WMC-11.5", "N")] and step.accepted
    assert step.alerts[0].evidence == (exposed,)


def test_wmc_11_5_wrong_exposed_kong_after_the_replacement_bars_claims_and_kongs(
    deal: Deal,
) -> None:
    d = deal(E="123m456m789mESWNC")
    d.do("E discard C")
    d.do("N call kong")
    step = d.do("N kong exposed C 9pCCC")
    assert Duty.found(step) == [("WMC-11.1", "N")]
    exposed = step.alerts[0].seq
    step = d.do("N replacement 3s")
    assert Duty.found(step) == [("WMC-11.5", "N")] and step.alerts[0].evidence == (exposed,)
    assert Duty.proposals(step)[0]["kind"] == "no_claims"
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.N].dead == "long"
    d.do("N discard 3s")
    d.do("E draw E")
    d.do("E discard E")
    d.do("N call pung")
    assert Duty.found(d.do("N pung")) == [("WMC-10.2", "N")]  # as a long hand: no claim


def test_wmc_11_5_wrong_concealed_kong_after_the_replacement(deal: Deal) -> None:
    d = deal(E="1111m456m789mESWN")
    d.do("E call kong")
    step = d.do("E kong concealed 1m 1114m")
    assert Duty.found(step) == [("WMC-11.1", "E")]
    step = d.do("E replacement 2m")
    assert Duty.found(step) == [("WMC-11.5", "E")]
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.E].dead == "long"
    assert hand.seats[Wind.E].size == 14


def test_wmc_11_5_chow_from_a_non_left_player_left_standing(deal: Deal) -> None:
    d = deal(N="55s66s77sCC4p6p9pEE")
    d.do("E discard P")
    d.do("S draw 9s")
    d.do("S discard 5p")
    d.do("N call chow")
    chow = d.do("N chow 456p").alerts[0].seq
    d.do("N discard E")
    step = d.do("E draw 1s")
    assert Duty.found(step) == [("WMC-11.5", "N")] and step.alerts[0].evidence == (chow,)


def test_wmc_11_5_a_correction_after_play_moved_on_is_refused(deal: Deal) -> None:
    d = deal()
    d.do("E discard E")
    d.do("N call pung")
    d.do("N pung EE9p")
    d.do("N discard 2p")
    d.do("E draw 1s")
    step = d.do("N correct EEE")
    assert Duty.found(step) == [("WMC-11.5", "N")] and step.alerts[0].rejected


# ---- WMC-11.1: corrected at once -----------------------------------------------------------


def test_wmc_11_1_wrong_chow_corrected_at_once_the_wrong_tile_is_a_penalty_tile(
    deal: Deal,
) -> None:
    d = deal()
    d.do("E discard P")
    d.do("S draw 9s")
    d.do("S discard 5p")
    d.do("W call chow")
    step = d.do("W chow 568p")
    assert Duty.found(step) == [("WMC-11.1", "W")]
    exposed = step.alerts[0].seq
    step = d.do("W correct 567p")
    assert Duty.found(step) == [("WMC-11.1", "W")] and step.alerts[0].evidence == (exposed,)
    assert step.alerts[0].severity == "violation"
    assert Duty.proposals(step)[0]["kind"] == "penalty_tiles"
    hand = d.ref.state.hand
    assert hand is not None
    w = hand.seats[Wind.W]
    assert w.penalty_live == [parse_tile("8p")] and not w.wrong_melds
    assert [m.tiles for m in w.melds] == [tuple(parse_tiles("567p"))]
    assert d.push(Discard(seat=Wind.W, tile=parse_tile("8p"), penalty=True)).accepted
    assert d.do("N draw 1s").alerts == []  # corrected: nothing stands


def test_wmc_11_1_wrong_pung_withdrawn_the_discard_is_claimable_again(deal: Deal) -> None:
    d = deal()
    d.do("E discard E")
    d.do("N call pung")
    d.do("N pung EE9p")
    step = d.do("N correct")
    assert Duty.found(step) == [("WMC-11.1", "N")]
    hand = d.ref.state.hand
    assert hand is not None
    assert hand.phase is Phase.WINDOW and hand.turn is Wind.S
    assert hand.last_discard == (Wind.E, parse_tile("E"))
    assert sorted(hand.seats[Wind.N].penalty_live) == sorted(parse_tiles("9pE"))
    assert d.do("S draw 9s").alerts == []


def test_wmc_11_1_corrected_after_his_discard_but_before_play_moved_on(deal: Deal) -> None:
    d = deal()
    d.do("E discard E")
    d.do("N call pung")
    d.do("N pung EE9p")
    d.do("N discard 2p")
    assert Duty.found(d.do("N correct")) == [("WMC-11.1", "N")]  # too late to withdraw
    step = d.do("N correct EEE")  # … but not to put right
    assert Duty.found(step) == [("WMC-11.1", "N")] and step.accepted
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.N].penalty_live == [parse_tile("9p")]
    assert hand.seats[Wind.N].size == 13


def test_wmc_11_1_concealed_kong_corrected_before_the_replacement(deal: Deal) -> None:
    d = deal(E="1111m456m789mESWN")
    d.do("E call kong")
    d.do("E kong concealed 1m 1114m")
    step = d.do("E correct 1111m")
    assert Duty.found(step) == [("WMC-11.1", "E")]
    assert d.do("E replacement 2m").alerts == []
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.E].penalty_live == [parse_tile("4m")]


# ---- WMC-11.2: a changed claim -------------------------------------------------------------


def test_wmc_11_2_changed_claims_info_then_a_warning_with_points_when_too_frequent(
    deal: Deal,
) -> None:
    d = deal()
    d.do("E discard E")
    first = d.do("N call kong").alerts
    assert first == []
    steps = [d.do(f"N call {word}") for word in ("pung", "kong", "pung")]
    found = [(s.alerts[0].rule, str(s.alerts[0].severity)) for s in steps]
    assert found == [("WMC-11.2", "info")] * (CLAIM_CHANGE_REPEAT - 1) + [("WMC-11.2", "warning")]
    assert [Duty.proposals(s) for s in steps[:-1]] == [[], []]
    [prop] = Duty.proposals(steps[-1])
    assert (prop["kind"], prop["points"]) == ("points", CLAIM_CHANGE_POINTS)
    assert steps[0].alerts[0].evidence == (steps[0].alerts[0].seq - 1,)  # the call it changed
    assert d.ref.state.claim_changes == {"Dai": 3}
    assert d.do("N pung").accepted and d.do("N pung").alerts[0].rule != "WMC-5.2"


def test_wmc_11_2_switching_to_a_win_when_outranked_is_not_counted(deal: Deal) -> None:
    d = deal(S="234m567m789p11p45p", E="123m456m789mESWN6p")
    d.do("E discard 6p")
    d.do("S call chow")
    d.do("N call pung")  # hypothetically: outranks S's chow (WMC-5.7)
    step = d.do("S call win")
    assert Duty.found(step) == [("WMC-11.2", "S")] and step.alerts[0].severity == "info"
    assert "outranked" in step.alerts[0].message
    assert d.ref.state.claim_changes == {}


def test_wmc_11_2_own_turn_kong_changed_to_a_win(deal: Deal) -> None:
    d = deal()
    d.do("E call kong")
    step = d.do("E call win")
    assert Duty.found(step) == [("WMC-11.2", "E")] and step.alerts[0].severity == "info"


# ---- WMC-0.3: a referee's dismissal lifts the restriction ----------------------------------


def test_wmc_0_3_dismissing_a_long_hand_lifts_it_and_replays(deal: Deal) -> None:
    d = deal(W="678p123s33s22sFFP")
    d.do("E discard P")
    step = d.do("W draw 1s")  # out of turn: a long hand (WMC-4.2, 10.1)
    pid = Duty.proposals(step)[0]["id"]
    assert pid == f"WMC-10.1@{step.alerts[0].seq}:W"
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.W].dead == "long"
    assert _dismiss(d, str(pid)) == [pid]
    assert hand.seats[Wind.W].dead == "" and hand.seats[Wind.W].bars == {}
    assert d.ref.ledger.entries[str(pid)].status is Status.DISMISSED
    d.do("S draw 3s")  # the fourth 3s (WMC-1.1: a fifth copy would be refused)
    d.do("S discard 3s")
    d.do("W call pung")
    assert d.do("W pung").accepted  # the restriction is gone
    engine = Table()  # the engine alone replays the same record (the store's snapshots)
    for ev in d.events:
        engine.apply(ev)
    assert engine.state.to_dict()["hand"] == d.ref.state.to_dict()["hand"]


def test_wmc_0_3_a_dismissal_the_ledger_refuses_lifts_nothing(deal: Deal) -> None:
    d = deal()
    d.do("E discard E")
    d.do("N call pung")
    d.do("N pung EE9p")
    d.do("N discard 2p")
    pid = str(Duty.proposals(d.do("E draw 1s"))[0]["id"])
    assert _dismiss(d, pid, reason=" ") == []  # a dismissal needs a reason
    assert d.ref.state.alerts[-1].rule == "WMC-0.3"
    hand = d.ref.state.hand
    assert hand is not None and hand.seats[Wind.N].dead == "short"
    step = d.push(PenaltyDecision(proposal=pid, verdict="confirm", referee="R1"))
    assert not [x for x in step.derived if x.type == "restriction_lifted"]
    step = d.push(
        PenaltyDecision(proposal=pid, verdict="revoke", referee="R2", reason="appeal upheld")
    )
    assert [x.payload["seat"] for x in step.derived if x.type == "restriction_lifted"] == ["N"]
    assert hand.seats[Wind.N].dead == ""


def test_wmc_0_3_lifting_one_restriction_keeps_the_others() -> None:
    seat = SeatState()
    seat.restrict("WMC-11.5@9:N", "short")
    seat.restrict("WMC-10.1@12:N", "long")
    assert seat.dead == "long"
    assert seat.lift("WMC-10.1@12:N") and seat.dead == "short"
    assert not seat.lift("WMC-10.1@12:N")
    assert seat.lift("WMC-11.5@9:N") and seat.dead == ""
