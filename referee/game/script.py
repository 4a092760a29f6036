"""Hand-written games in one line per action — for tests, docs and referees' what-ifs.

``Script().start(E="…", S="…", W="…", N="…")`` opens a session with the given dealt hands (an
unseen wall, WMC-3.4) — ``Script().start()`` with none, a deal face down as at a real table
(``counts``: the racks counted); then ``s.do("S draw 5p")`` (``"S draw"``: face down),
``s.do("W call pung")``, ``s.do("W pung")``, ``s.do("N chow 345m")``,
``s.do("E kong concealed 7s")``, ``s.do("E win")``, ``s.do("S reveal 234m…")`` (the hand shown),
``s.do("N pung 556p")`` (tiles as exposed: a wrong meld), ``s.do("N correct 555p")``,
``s.do("W rack 14")`` (the camera counted a rack), ``s.do("exhaustive_draw")``. Each line
becomes one event (seq and ts counted up) applied to the engine; the
:class:`~referee.game.table.Step` comes back.
"""

from __future__ import annotations

from typing import Any

from referee.events import (
    Call,
    CallKind,
    Chow,
    Deal,
    DiceRolled,
    Discard,
    DiscardCorrected,
    Draw,
    Event,
    ExhaustiveDraw,
    FlowerSetAside,
    HandRevealed,
    Kong,
    KongKind,
    MeldCorrected,
    Payload,
    Pung,
    RackCounted,
    ReplacementDraw,
    SeatDraw,
    SessionStarted,
    Source,
    WallBuilt,
    WinDeclared,
    WinOn,
    make_event,
)
from referee.game.table import Scorer, Step, Table
from referee.hands import Wind
from referee.tiles import parse_tile, parse_tiles


class Script:
    def __init__(
        self,
        profile_name: str = "wmc",
        *,
        scorer: Scorer | None = None,
    ) -> None:
        self.profile_name = profile_name
        self.table = Table(profile_name=profile_name, scorer=scorer)
        self.events: list[Event] = []
        self.seq = 0

    def push(self, payload: Payload, *, at: float | None = None) -> Step:
        """Log and apply one event; its ``ts`` is its seq unless ``at`` gives the time."""
        ts = float(self.seq) if at is None else at
        ev = make_event(payload, seq=self.seq, ts=ts, source=Source.MANUAL)
        self.seq += 1
        self.events.append(ev)
        return self.table.apply(ev)

    def start(self, counts: dict[str, int] | None = None, **hands: str) -> Step:
        """Session, seat draw (players keep their places), unseen wall, break, deal."""
        self.push(
            SessionStarted(profile=self.profile_name, players=("Ann", "Bo", "Chen", "Dai"))  # type: ignore[arg-type]
        )
        self.push(SeatDraw(roller=0, roll1=5, roll2=5, winds=(Wind.E, Wind.S, Wind.W, Wind.N)))
        return self.next_hand(counts, **hands)

    def next_hand(self, counts: dict[str, int] | None = None, **hands: str) -> Step:
        self.push(WallBuilt())
        self.push(DiceRolled(seat=Wind.E, dice=(3, 2)))
        self.push(DiceRolled(seat=Wind.E, dice=(1, 1)))
        dealt = {Wind[k]: tuple(parse_tiles(v)) for k, v in hands.items()}
        racks = {Wind[k]: n for k, n in counts.items()} if counts else None
        return self.push(Deal(hands=dealt or None, counts=racks))

    def do(self, line: str, *, at: float | None = None) -> Step:
        return self.push(parse_action(line), at=at)


def parse_action(line: str) -> Payload:
    """``"<seat> <action> [args]"`` or ``"exhaustive_draw"`` → a payload."""
    words = line.split()
    if words == ["exhaustive_draw"]:
        return ExhaustiveDraw()
    seat = Wind[words[0]]
    action, args = words[1], words[2:]
    fields: dict[str, Any] = {"seat": seat}
    if action == "draw":
        return Draw(
            seat=seat,
            tile=parse_tile(args[0]) if args else None,
            merged="unmerged" not in args,
        )
    if action == "replacement":
        return ReplacementDraw(seat=seat, tile=parse_tile(args[0]) if args else None)
    if action == "discard":
        return Discard(seat=seat, tile=parse_tile(args[0]))
    if action == "misread":  # the record's last discard was this tile: "N misread 2s"
        return DiscardCorrected(seat=seat, tile=parse_tile(args[0]))
    if action == "flower":
        return FlowerSetAside(seat=seat, tile=parse_tile(args[0]))
    if action == "call":
        return Call(seat=seat, call=CallKind(args[0]))
    if action == "chow":
        return Chow(seat=seat, tiles=tuple(parse_tiles(args[0])))
    if action == "pung":  # "N pung" or, as exposed, "N pung 556p"
        return Pung(seat=seat, tiles=tuple(parse_tiles(args[0])) if args else None)
    if action == "kong":  # "E kong concealed 1m" or, as shown, "E kong concealed 1m 1112m"
        shown = tuple(parse_tiles(args[2])) if len(args) > 2 else None
        return Kong(seat=seat, kind=KongKind(args[0]), tile=parse_tile(args[1]), tiles=shown)
    if action == "correct":  # WMC-11.1: "N correct 555p" (to a legal set) or "N correct"
        return MeldCorrected(seat=seat, tiles=tuple(parse_tiles(args[0])) if args else None)
    if action == "win":  # "E win", "W win 2s", "W win on discard", "E win 3m on draw"
        if "on" in args:
            fields["on"] = WinOn(args[args.index("on") + 1])
            args = args[: args.index("on")]
        if args:
            fields["tile"] = parse_tile(args[0])
        return WinDeclared(**fields)
    if action == "rack":  # the camera counted a rack: "W rack 14"
        return RackCounted(seat=seat, count=int(args[0]))
    if action == "reveal":
        return HandRevealed(seat=seat, tiles=tuple(parse_tiles(args[0])))
    raise ValueError(f"unknown action {action!r} in {line!r}")
