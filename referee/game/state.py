"""The game state: session → hand → seats. Plain slotted classes with count arrays.

Only :class:`referee.game.table.Table` changes these objects, one event at a time (like
python-chess's Board.push); everyone else reads them. :meth:`TableState.to_dict` is the
canonical snapshot: replaying a log must give the same dict as the live table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from referee.events import CallKind, WinDeclared
from referee.game.alerts import Alert
from referee.game.claims import chow_options
from referee.game.profile import Profile
from referee.game.wall import UNKNOWN, Wall
from referee.hands import Meld, WinBy, Wind
from referee.penalties import PenaltyLedger
from referee.scoring.result import PatternScore
from referee.tiles import NUM_FLOWERS, NUM_KINDS, Tile, format_tiles, tile_name

COUNTS = NUM_KINDS + NUM_FLOWERS


class Phase(IntEnum):
    IDLE = 0  # between hands: waiting for the wall (or a seat draw between rounds)
    ROLL_DEALER = 1  # wall built: the dealer rolls for the breaker (WMC-3.3)
    ROLL_BREAKER = 2  # the breaker rolls; the sum is the break number
    DEAL = 3  # wall broken: waiting for the deal (WMC-3.4)
    DISCARD = 4  # ``turn`` holds 14 (kong counts 3) and must discard, kong or win
    WINDOW = 5  # a discard lies; claims are open until ``turn`` (the next player) draws
    REPLACE = 6  # ``turn`` declared a kong or flower and draws from the kong end


class TurnStart(IntEnum):
    """How the player on turn got his 14th tile: decides kong and win timing (WMC-5.5, 7.2)."""

    DEAL = 0
    DRAW = 1
    CLAIM = 2
    REPLACEMENT = 3


class SeatState:
    """One player's tiles in the current hand. The concealed part is ``counts`` (the tiles the
    record knows by face, by kind) plus ``hidden`` (tiles nobody has seen: at a real table the
    deal and every draw go face down into the rack, so a seat's concealed tiles are a count and
    what must be there until they are shown)."""

    __slots__ = (
        "bars",
        "counts",
        "dead",
        "flowers",
        "hidden",
        "melds",
        "penalty_dead",
        "penalty_live",
        "river",
        "wrong_melds",
    )

    def __init__(self) -> None:
        self.counts: list[int] = [0] * COUNTS
        self.hidden = 0
        self.melds: list[Meld] = []
        self.flowers: list[Tile] = []
        self.river: list[Tile] = []
        self.penalty_live: list[Tile] = []  # WMC-9.1: face up, still discardable (9.2)
        self.penalty_dead: list[Tile] = []  # WMC-9.2: never to be discarded
        self.dead = ""  # WMC-10.2: "long" (no win, claim, kong) or "short" (no win)
        # What made it dead: restriction id (= the proposal id, RULE@SEQ:SEAT) → "long"/"short";
        # ``dead`` is the heaviest of them, and a referee's dismissal lifts one (EVENTS.md).
        self.bars: dict[str, str] = {}
        # WMC-11.5: exposed sets that are no legal set (claim kind, tiles as shown), kept apart
        # from ``melds`` (which hold legal sets only); each counts 3 like a meld (WMC-10.1).
        self.wrong_melds: list[tuple[str, tuple[Tile, ...]]] = []

    def restrict(self, bar: str, level: str) -> None:
        self.bars[bar] = level
        self._recompute()

    def lift(self, bar: str) -> bool:
        if self.bars.pop(bar, None) is None:
            return False
        self._recompute()
        return True

    def _recompute(self) -> None:
        levels = set(self.bars.values())
        self.dead = "long" if "long" in levels else ("short" if levels else "")

    @property
    def penalty(self) -> list[Tile]:
        return self.penalty_live + self.penalty_dead

    # ---- the concealed part: known tiles and hidden ones --------------------------------------

    def unseen_in(self, tiles: Sequence[Tile]) -> list[Tile]:
        """Those of ``tiles`` the known concealed tiles cannot supply: shown now, they come
        from the hidden part (and become visible for the first time)."""
        out: list[Tile] = []
        for t in sorted(set(tiles)):
            out += [t] * max(0, tiles.count(t) - self.counts[t])
        return out

    def holds(self, tiles: Sequence[Tile]) -> bool:
        """The concealed part can hold ``tiles``: the known ones, the rest among the hidden."""
        return len(self.unseen_in(tiles)) <= self.hidden

    def take(self, tiles: Sequence[Tile]) -> None:
        """Remove ``tiles`` (which it :meth:`holds`): known copies first, then hidden ones."""
        for t in tiles:
            if self.counts[t] > 0:
                self.counts[t] -= 1
            else:
                self.hidden -= 1

    def add(self, tile: Tile) -> None:
        """A tile into the concealed part: ``UNKNOWN`` (a face-down draw) is a hidden one."""
        if tile == UNKNOWN:
            self.hidden += 1
        else:
            self.counts[tile] += 1

    def remove(self, tile: Tile) -> None:
        """The inverse of :meth:`add`: a drawn tile back to the wall."""
        if tile == UNKNOWN:
            self.hidden -= 1
        else:
            self.counts[tile] -= 1

    def might_hold(self) -> list[int]:
        """Per kind, the most copies the concealed part may hold: what claim options are
        searched on (:meth:`holds` then says whether the hidden count allows one)."""
        if not self.hidden:
            return self.counts
        return [min(4, n + self.hidden) for n in self.counts]

    def chows(self, tile: Tile) -> list[tuple[Tile, Tile, Tile]]:
        """The runs with ``tile`` this seat's concealed part can complete (WMC-5.4)."""
        return [
            run
            for run in chow_options(self.might_hold(), tile)
            if self.holds([t for t in run if t != tile])
        ]

    @property
    def concealed(self) -> list[Tile]:
        return [t for t, n in enumerate(self.counts) for _ in range(n)]

    @property
    def size(self) -> int:
        """WMC-10.1 count: concealed tiles + 3 per meld (a kong counts as 3), flowers aside."""
        return (
            sum(self.counts[:NUM_KINDS])
            + self.hidden
            + 3 * (len(self.melds) + len(self.wrong_melds))
            + len(self.penalty_live)
            + len(self.penalty_dead)
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "concealed": format_tiles(self.concealed),
            **({"hidden": self.hidden} if self.hidden else {}),
            "melds": [
                {
                    "kind": str(m.kind),
                    "tiles": format_tiles(m.tiles),
                    "concealed": m.concealed,
                    "from": m.claimed_from.name.lower() if m.claimed_from else None,
                }
                for m in self.melds
            ],
            "flowers": format_tiles(self.flowers),
            "river": format_tiles(self.river),
        }
        if self.penalty_live or self.penalty_dead:
            out["penalty_live"] = format_tiles(self.penalty_live)
            out["penalty_dead"] = format_tiles(self.penalty_dead)
        if self.wrong_melds:
            out["wrong_melds"] = [
                {"kind": kind, "tiles": format_tiles(tiles)} for kind, tiles in self.wrong_melds
            ]
        if self.dead:
            out["dead"] = self.dead
            out["bars"] = dict(sorted(self.bars.items()))
        return out


@dataclass(slots=True)
class HandResult:
    """How a hand ended: a win with its score and payments, or an exhaustive draw (WMC-6.3)."""

    hand: int
    dealer: str
    winner: Wind | None = None
    winner_name: str | None = None
    win_by: WinBy | None = None
    discarder: Wind | None = None
    win_tile: Tile | None = None
    value: int = 0
    patterns: tuple[PatternScore, ...] = ()  # each cites its pattern ID (SCORING x.y / MCR-n)
    deltas: dict[Wind, int] = field(default_factory=dict)
    liable: Wind | None = None
    rule: str = ""
    flags: tuple[str, ...] = ()
    players: tuple[str, str, str, str] = ("", "", "", "")  # by seat wind E, S, W, N
    # A hand the record could not finish (a new wall came first): no result, no payments.
    unfinished: bool = False
    # Why a referee must look at this hand: the alerts that marked it (``RULE@SEQ``), e.g. a
    # gap in the record (EVENTS.md, "A damaged record"); a ruling (``hand_ruled``) settles it.
    marks: tuple[str, ...] = ()
    false_win: Wind | None = None  # a platform ended the hand at this seat's false win

    @property
    def exhaustive(self) -> bool:
        return self.winner is None and not self.unfinished and self.false_win is None

    @property
    def outcome(self) -> str:
        """``win``, ``exhaustive_draw``, ``unfinished``, or ``false_win`` (a platform's rule)."""
        if self.unfinished:
            return "unfinished"
        if self.false_win is not None:
            return "false_win"
        return "exhaustive_draw" if self.winner is None else "win"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hand": self.hand, "dealer": self.dealer, "result": self.outcome}
        if self.marks:
            out["marks"] = list(self.marks)
        if self.false_win is not None:
            out.update(
                offender=self.false_win.name,
                payments={w.name: d for w, d in sorted(self.deltas.items())},
                by_player={self.players[w]: d for w, d in sorted(self.deltas.items())},
                rule=self.rule,
            )
            return out
        if self.winner is None:
            return out
        out.update(
            winner=self.winner.name,
            winner_name=self.winner_name,
            win_by=str(self.win_by),
            discarder=self.discarder.name if self.discarder is not None else None,
            win_tile=tile_name(self.win_tile) if self.win_tile is not None else None,
            value=self.value,
            patterns=[p.to_json() for p in self.patterns],
            payments={w.name: d for w, d in sorted(self.deltas.items())},
            by_player={self.players[w]: d for w, d in sorted(self.deltas.items())},
            liable=self.liable.name if self.liable is not None else None,
            rule=self.rule,
            flags=list(self.flags),
        )
        return out


@dataclass(frozen=True, slots=True)
class WrongMeld:
    """An exposed set that is no legal set, or a claim that was not legal (WMC-11.1, 11.5),
    until it is corrected at once or play moves on. ``claimed``: (discarder, tile) of a claim,
    None for a concealed kong; ``index`` into the seat's ``wrong_melds``; ``after``: how the
    turn had started, restored when a concealed kong is withdrawn."""

    seat: Wind
    seq: int
    kind: str  # "chow", "pung", "kong"
    index: int
    claimed: tuple[Wind, Tile] | None
    after: TurnStart
    rule: str  # the rule of the alert at exposure: WMC-11.1 (no set) or WMC-5.4 (not left)


@dataclass(frozen=True, slots=True)
class OpenChow:
    """A chow exposed without the call or too soon after it (WMC-5.2, 5.4): until the chower
    discards, another player may still pung or kong the tile by priority. ``rule``: WMC-5.2
    (unspoken) or WMC-5.4 (too fast); ``gap``: seconds from the call to the exposure."""

    seat: Wind
    seq: int
    discarder: Wind
    tile: Tile
    rule: str
    gap: float


@dataclass(frozen=True, slots=True)
class PendingWin:
    """A win declared by a seat with hidden tiles: nothing can be checked or scored until the
    hand is shown (WMC-7.4, ``hand_revealed``); ``seq``/``ts`` are the win's."""

    win: WinDeclared
    seq: int
    ts: float


class HandState:
    """One hand: the wall, four seats and whose turn it is."""

    __slots__ = (
        "after",
        "after_kong",
        "bar_ledger",
        "call_seq",
        "call_ts",
        "calls",
        "claims_made",
        "deal_off",
        "deal_seq",
        "dealer_place",
        "dice",
        "discards",
        "drawn",
        "early_replacement",
        "last_discard",
        "last_from_hidden",
        "marks",
        "number",
        "open_chow",
        "own_call",
        "penalty_discard",
        "pending_win",
        "phase",
        "players",
        "pre_play",
        "replacing",
        "resume",
        "riverbed",
        "robbable",
        "seabed_seat",
        "seats",
        "turn",
        "unmerged",
        "wall",
        "wrong_meld",
    )

    def __init__(
        self,
        number: int,
        dealer_place: int,
        wall: Wall,
        players: tuple[str, str, str, str] = ("", "", "", ""),
    ) -> None:
        self.number = number
        self.dealer_place = dealer_place
        # who sits at each seat wind E S W N this hand: they stay seated after it ends (the
        # winner's hand shown, the score card) until the next wall, whatever comes between
        self.players = players
        self.wall = wall
        self.seats = [SeatState() for _ in range(4)]
        self.phase = Phase.ROLL_DEALER
        self.turn = Wind.E
        self.after = TurnStart.DEAL
        self.dice: list[tuple[int, int]] = []
        self.last_discard: tuple[Wind, Tile] | None = None
        self.calls: dict[Wind, CallKind] = {}
        self.call_seq: dict[Wind, int] = {}  # seq of each seat's latest call (evidence)
        self.call_ts: dict[Wind, float] = {}  # and its time (WMC-5.4: chow, wait, expose)
        self.open_chow: OpenChow | None = None  # a chow others may still pung (WMC-5.2, 5.4)
        # WMC-3.5: seats dealt a wrong count (tiles over (+) or under (−) the due), until their
        # first discard; the deal's seq is the evidence of a dead hand found then (10.1).
        self.deal_off: dict[Wind, int] = {}
        self.deal_seq = -1
        self.own_call: tuple[Wind, CallKind, int] | None = None  # kong/win said on own turn
        self.early_replacement = False  # replacement drawn before the kong was shown (5.5)
        self.unmerged: Tile | None = None  # the next player's draw not yet merged (WMC-4.4)
        self.discards: list[tuple[Wind, Tile]] = []  # the hand's discard history (WMC-12.4)
        self.penalty_discard = False  # the last discard was a penalty tile (WMC-9.2)
        self.last_from_hidden = False  # the last discard came out of the hidden tiles
        self.pending_win: PendingWin | None = None  # a win waiting for its hand (WMC-7.4)
        self.claims_made = 0
        self.pre_play = True  # nothing discarded yet (heaven, earth, flower exchange)
        self.seabed_seat: Wind | None = None  # drew the seabed (WMC-6.2)
        self.riverbed = False  # the last discard is the riverbed tile (WMC-6.2)
        self.robbable: Tile | None = None  # tile of an added kong, open to robbing (WMC-5.6)
        self.replacing = ""  # "kong" or "flower" while in REPLACE
        self.resume: tuple[Wind, TurnStart] | None = None  # turn to resume after a flower
        self.drawn: Tile | None = None  # the tile that made 14 (self-drawn win tile)
        self.after_kong = False  # the 14th tile was a kong replacement (WMC-7.2)
        self.wrong_meld: WrongMeld | None = None  # exposed, not yet final (WMC-11.1 / 11.5)
        # The restrictions applied this hand as proposals, so that a referee's decision on one
        # is checked exactly as the duties' ledger checks it (referee.penalties).
        self.bar_ledger = PenaltyLedger()
        self.marks: list[str] = []  # alerts that mark the hand for a referee (HandResult.marks)

    def tiles_accounted(self) -> int:
        """Tiles standing + in hands, melds, flowers and rivers: always the whole set."""
        total = self.wall.remaining
        for s in self.seats:
            total += sum(len(tiles) for _kind, tiles in s.wrong_melds)
            total += sum(s.counts) + s.hidden + len(s.flowers) + len(s.river)
            total += len(s.penalty_live) + len(s.penalty_dead)
            total += sum(len(m.tiles) for m in s.melds)
        return total

    def to_dict(self) -> dict[str, Any]:
        w = self.wall
        return {
            "number": self.number,
            "dealer_place": self.dealer_place,
            "phase": self.phase.name,
            "turn": self.turn.name,
            "after": self.after.name,
            "dice": [list(d) for d in self.dice],
            "wall": {
                "breaker": w.breaker,
                "number": w.number,
                "head": w.head,
                "tail": w.tail,
                "live": w.live,
                "remaining": w.remaining,
            },
            "seats": {Wind(i).name: s.to_dict() for i, s in enumerate(self.seats)},
            "last_discard": (
                [self.last_discard[0].name, tile_name(self.last_discard[1])]
                if self.last_discard
                else None
            ),
            "calls": {k.name: str(v) for k, v in sorted(self.calls.items())},
            "discards": [[s.name, tile_name(t)] for s, t in self.discards],
            "seabed_seat": self.seabed_seat.name if self.seabed_seat is not None else None,
            "riverbed": self.riverbed,
            "marks": list(self.marks),
        }


class TableState:
    """The session at one table: players, places, scores, the hand in play, results, alerts."""

    __slots__ = (
        "alerts",
        "claim_changes",
        "dealer_place",
        "first_prevalent",
        "follow_suit",
        "hand",
        "hands_played",
        "last_refused",
        "last_seq",
        "last_ts",
        "last_win",
        "next_marks",
        "out_seq",
        "players",
        "profile",
        "results",
        "scores",
        "seated",
        "session_id",
        "spoken_by",
        "table_id",
        "to_check",
        "unspoken",
    )

    def __init__(self, table_id: str, session_id: str, profile: Profile) -> None:
        self.table_id = table_id
        self.session_id = session_id
        self.profile = profile
        self.players: list[str] = ["P1", "P2", "P3", "P4"]  # by place, venue E, S, W, N
        self.seated = False  # the seat draw happened (WMC-2.3)
        self.follow_suit = True
        self.scores: dict[str, int] = {}
        self.hands_played = 0
        self.dealer_place = 0
        self.hand: HandState | None = None
        self.results: list[HandResult] = []
        self.alerts: list[Alert] = []
        self.last_seq = -1
        self.last_refused = -1  # the seq of the last event refused (SYS-parted)
        self.last_ts: float | None = None  # the latest table clock reading (SYS-clock)
        self.next_marks: list[str] = []  # damage found between hands marks the next hand
        self.out_seq = 0  # the next engine output's seq (Step.outputs, EVENTS.md)
        self.claim_changes: dict[str, int] = {}  # WMC-11.2 count per player this session
        self.first_prevalent = Wind.E  # the prevalent wind of the session's first round
        # WMC-5.2: what decides whether a claim was spoken — "calls" (the call events before the
        # exposure), "voice" (a claim_check after it), "none" (no audio input: not checked)
        self.spoken_by = "calls"
        # exposure seq → (seat, kind, a call was logged before it, the player) awaiting a check
        self.to_check: dict[int, tuple[Wind, str, bool, str]] = {}
        self.unspoken: dict[str, int] = {}  # WMC-5.2 unspoken claims per player this session
        self.last_win: tuple[Wind, float, bool] | None = None  # seat, ts, its slam excused

    @property
    def seated_dealer_place(self) -> int:
        """The dealer's place of the seats at the table now: the hand in play's (its players
        stay where they sat until the next hand, though ``dealer_place`` names the next
        dealer once it ends), else the next hand's."""
        return self.hand.dealer_place if self.hand is not None else self.dealer_place

    def place_of(self, seat: Wind) -> int:
        """Venue place of a seat wind in the hand at the table (WMC-2.4)."""
        return (self.seated_dealer_place + seat) % 4

    def player_at(self, seat: Wind) -> str:
        """Who sits at a seat wind: in the hand at the table, also once it has ended (its
        players stay seated until the next wall, though ``dealer_place`` names the next dealer
        and a seat draw may have moved everyone), else in the next hand."""
        hand = self.hand
        if hand is not None and hand.players[seat]:
            return hand.players[seat]
        return self.players[(self.dealer_place + seat) % 4]

    @property
    def round(self) -> int:
        """0-based round (圈) of four hands (WMC-2.4); MCR's prevalent wind follows it."""
        return self.hands_played // 4

    @property
    def prevalent(self) -> Wind:
        if not self.profile.prevalent_wind:
            return Wind.E
        return Wind((self.first_prevalent + self.round) % 4)

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "session_id": self.session_id,
            "profile": self.profile.name,
            "players": list(self.players),
            "seated": self.seated,
            "scores": dict(self.scores),
            "hands_played": self.hands_played,
            "dealer_place": self.dealer_place,
            "hand": self.hand.to_dict() if self.hand is not None else None,
            "results": [r.to_dict() for r in self.results],
            "alerts": [a.to_json() for a in self.alerts],
            "last_seq": self.last_seq,
            "out_seq": self.out_seq,
            **({"claim_changes": dict(self.claim_changes)} if self.claim_changes else {}),
            **({"spoken_by": self.spoken_by} if self.spoken_by != "calls" else {}),
            **(
                {"to_check": {str(k): [v[0].name, *v[1:]] for k, v in self.to_check.items()}}
                if self.to_check
                else {}
            ),
            **({"unspoken": dict(self.unspoken)} if self.unspoken else {}),
        }
