"""Botzone's text format (the IJCAI Mahjong dataset's ``data.txt``) to our game logs.

One match per block (``Match``, ``Wind``, four ``Deal`` lines, the actions, ``Fan``/``Score`` or
``Huang``/``Score``), blocks separated by an empty line; the format and its quirks are in
../shared/testdata/records/README.md §1. Each match becomes one session under the
``mcr-botzone`` profile: players ``P0``–``P3`` at seats E S W N (player 0 is East and deals),
the prevalent wind from ``Wind``. Conversions:

* Player 0's first ``Draw`` is dealt with its hand (our deal gives East 14 tiles), last.
* ``Chi M`` names the run's MIDDLE tile; the claimed tile is the previous ``Play``.
* Every claim, kong and win is a ``call`` then the act (the platform's action is the call);
  the ``Ignore Player j Verb X`` clauses are the calls that lost on priority, in turn order
  from the discarder with the winning one (any case: ``Chi``, ``CHI``).
* A ``Draw`` right after the drawer's own kong is the kong's ``replacement_draw``.
* A ``Hu`` right after the winner's own ``Draw`` is self-drawn; its tile is taken from that
  draw (the file names the last discard there, a known quirk), so ``Hu``'s tile is not used.
* ``Huang`` is the exhaustive draw (the seat due to draw has an empty quarter).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from referee.events import (
    Call,
    CallKind,
    Chow,
    Deal,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    Kong,
    KongKind,
    Pung,
    ReplacementDraw,
    SessionStarted,
    WallBuilt,
    WinDeclared,
)
from referee.game.profile import profile
from referee.hands import Wind
from referee.records import (
    CODE_OF,
    Expected,
    Imported,
    LogBuilder,
    Record,
    RecordError,
    fan_name,
    fan_number,
    tile_of,
)
from referee.records.walk import Act, HandLog, Walked, walk
from referee.scoring.mcr_fans import FAN_BY_NUMBER
from referee.tiles import Tile

PLAYERS = ("P0", "P1", "P2", "P3")

_CLAIMS = {"chi": CallKind.CHOW, "peng": CallKind.PUNG, "gang": CallKind.KONG, "hu": CallKind.WIN}
_KONGS = {"Gang": KongKind.EXPOSED, "AnGang": KongKind.CONCEALED, "BuGang": KongKind.ADDED}
_FAN_ITEM = re.compile(r"(.+)\*(\d+)$")

Line = tuple[int, str]


def parse(text: str) -> Imported:
    """Every match of a file; a malformed one is reported by its line and skipped."""
    out = Imported()
    for block in _blocks(text):
        try:
            out.records.append(_match(block))
        except RecordError as exc:
            out.errors.append(exc)
    return out


def _blocks(text: str) -> Iterator[list[Line]]:
    """Matches: runs of non-empty lines; a ``Match`` line also starts a new one."""
    block: list[Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or (line.startswith("Match ") and block):
            if block:
                yield block
            block = []
        if line:
            block.append((number, line))
    if block:
        yield block


def _words(line: Line, first: str, count: int) -> list[str]:
    number, text = line
    words = text.split()
    if not words or words[0] != first or len(words) != count:
        raise RecordError(number, f"expected a {first!r} line with {count - 1} field(s): {text!r}")
    return words


def _seat(word: str, line: int) -> Wind:
    if word not in ("0", "1", "2", "3"):
        raise RecordError(line, f"player {word!r}: expected 0, 1, 2 or 3")
    return Wind(int(word))


class _Match:
    """The conversion state of one match."""

    def __init__(self, match_id: str) -> None:
        self.log = LogBuilder("botzone", match_id)
        self.last_discard: tuple[Wind, Tile] | None = None
        self.last: tuple[str, Wind] = ("Deal", Wind.E)  # previous action: verb, player
        self.kong_by: Wind | None = None  # a kong whose replacement draw is due

    def action(self, line: Line) -> None:
        number, text = line
        words = text.split()
        if len(words) < 4 or words[0] != "Player":
            raise RecordError(number, f"expected 'Player <i> <Verb> <tile>', got {text!r}")
        seat = _seat(words[1], number)
        verb = words[2]
        tile = tile_of(words[3], number)
        ignored = _ignores(words[4:], number)
        if ignored and verb not in ("Chi", "Peng", "Gang", "Hu"):
            raise RecordError(number, f"'Ignore' clauses follow a claim, not {verb!r}")
        add = self.log.add
        if verb == "Draw":
            if self.kong_by is seat:
                add(ReplacementDraw(seat=seat, tile=tile), number)
            else:
                add(Draw(seat=seat, tile=tile), number)
            self.kong_by = None
            self.last_discard = None
        elif verb == "Play":
            add(Discard(seat=seat, tile=tile), number)
            self.last_discard = (seat, tile)
        elif verb == "Hu":
            self._hu(seat, tile, ignored, number)
        elif verb in ("Chi", "Peng") or (verb == "Gang" and self.last[0] == "Play"):
            self._claim(seat, verb, tile, ignored, number)
        elif verb in _KONGS:
            add(Call(seat=seat, call=CallKind.KONG), number)
            add(Kong(seat=seat, kind=_KONGS[verb], tile=tile), number)
            self.kong_by = seat
            self.last_discard = None
        else:
            raise RecordError(
                number,
                f"unknown action {verb!r}: expected Draw, Play, Chi, Peng, Gang, AnGang, "
                "BuGang or Hu",
            )
        self.last = (verb, seat)

    def _claim(
        self, seat: Wind, verb: str, tile: Tile, ignored: list[tuple[Wind, CallKind]], line: int
    ) -> None:
        if self.last_discard is None or self.last[0] != "Play":
            raise RecordError(line, f"{verb} with no discard to claim (no Play just before)")
        discarder, discard = self.last_discard
        self._calls(discarder, [(seat, _CLAIMS[verb.lower()]), *ignored], line)
        if verb == "Chi":
            self.log.add(Chow(seat=seat, tiles=_run(tile, discard, line)), line)
        elif discard != tile:
            raise RecordError(line, f"{verb} names a tile other than the discard")
        elif verb == "Peng":
            self.log.add(Pung(seat=seat), line)
        else:
            self.log.add(Kong(seat=seat, kind=KongKind.EXPOSED, tile=tile), line)
            self.kong_by = seat
        self.last_discard = None

    def _hu(self, seat: Wind, tile: Tile, ignored: list[tuple[Wind, CallKind]], line: int) -> None:
        verb, by = self.last
        if verb == "Draw" and by is seat:  # self-drawn: the tile is the draw's (README quirk)
            self._calls(seat, [(seat, CallKind.WIN)], line)
        elif verb == "BuGang" and by is not seat:  # robbing the kong
            self._calls(by, [(seat, CallKind.WIN), *ignored], line)
        elif verb == "Play" and self.last_discard is not None:
            self._calls(self.last_discard[0], [(seat, CallKind.WIN), *ignored], line)
        else:
            raise RecordError(line, "Hu follows neither the winner's Draw, a Play nor a BuGang")
        self.log.add(WinDeclared(seat=seat), line)

    def _calls(self, discarder: Wind, calls: list[tuple[Wind, CallKind]], line: int) -> None:
        """The calls on one discard, in turn order from the discarder."""
        for seat, call in sorted(calls, key=lambda c: (c[0] - discarder) % 4):
            self.log.add(Call(seat=seat, call=call), line)


def _ignores(words: list[str], line: int) -> list[tuple[Wind, CallKind]]:
    """``Ignore Player j Verb X`` clauses: the claims that lost on priority."""
    out: list[tuple[Wind, CallKind]] = []
    if len(words) % 5:
        raise RecordError(line, "an 'Ignore' clause is 'Ignore Player <j> <Verb> <tile>'")
    for k in range(0, len(words), 5):
        ignore, player, j, verb, code = words[k : k + 5]
        call = _CLAIMS.get(verb.lower())
        if ignore != "Ignore" or player != "Player" or call is None:
            raise RecordError(line, f"bad Ignore clause {' '.join(words[k : k + 5])!r}")
        tile_of(code, line)
        out.append((_seat(j, line), call))
    return out


def _run(middle: Tile, discard: Tile, line: int) -> tuple[Tile, Tile, Tile]:
    """``Chi M``: the run around the middle tile M; it must hold the claimed discard."""
    if middle >= 27 or middle % 9 in (0, 8):
        raise RecordError(line, "Chi names the middle tile of a run: a suited 2–8")
    run = (middle - 1, middle, middle + 1)
    if discard not in run:
        raise RecordError(line, "Chi: the run around its middle tile does not hold the discard")
    return run


def _match(block: list[Line]) -> Record:
    first = block[0][0]
    match_id = _words(block[0], "Match", 2)[1]
    if len(block) < 8:
        raise RecordError(block[-1][0], f"match {match_id} ends before its deal and result")
    wind = _words(block[1], "Wind", 2)[1]
    if wind not in ("0", "1", "2", "3"):
        raise RecordError(block[1][0], f"Wind {wind!r}: expected 0–3 (E, S, W, N)")
    hands: dict[Wind, list[Tile]] = {}
    for k, line in enumerate(block[2:6]):
        words = _words(line, "Player", 16)
        if words[1] != str(k) or words[2] != "Deal":
            raise RecordError(line[0], f"expected 'Player {k} Deal' and 13 tiles")
        hands[Wind(k)] = [tile_of(code, line[0]) for code in words[3:]]
    state = _Match(match_id)
    log = state.log
    log.add(
        SessionStarted(profile="mcr-botzone", players=PLAYERS, prevalent=Wind(int(wind))),
        block[1][0],
    )
    log.add(WallBuilt(), first)
    draw = block[6]
    words = draw[1].split()
    if words[:3] != ["Player", "0", "Draw"] or len(words) != 4:
        raise RecordError(draw[0], "player 0 moves first with a Draw")
    hands[Wind.E].append(tile_of(words[3], draw[0]))  # East's 14th tile, drawn first
    log.add(Deal(hands={w: tuple(t) for w, t in hands.items()}), draw[0])
    state.last = ("Draw", Wind.E)
    ends = ("Fan", "Huang", "Score")
    end = next((i for i, (_n, t) in enumerate(block) if t.split()[0] in ends), None)
    if end is None or end < 7:
        raise RecordError(block[-1][0], f"match {match_id} has no Fan, Huang or Score line")
    for line in block[7:end]:
        state.action(line)
    expected = _result(block[end:], state)
    if expected.result == "exhaustive_draw":
        log.add(ExhaustiveDraw(), block[end][0])
    return Record(match_id, log.events, expected, first)


def _result(lines: list[Line], state: _Match) -> Expected:
    """``Fan F a*1+b*2`` (or ``Huang``), then ``Score s0 s1 s2 s3``; a false win (the
    platform's −30 / +10 settlement) may come with a Score line alone."""
    number, text = lines[0]
    if len(lines) != (1 if text.startswith("Score") else 2):
        raise RecordError(lines[-1][0], "expected a Fan (or Huang) line, then a Score line")
    words = _words(lines[-1], "Score", 5)
    try:
        scores = {Wind(i): int(w) for i, w in enumerate(words[1:])}
    except ValueError:
        raise RecordError(lines[-1][0], "Score: expected four whole numbers") from None
    if text == "Huang":
        return Expected("exhaustive_draw", payments=scores)
    verb, winner = state.last
    if verb != "Hu":
        raise RecordError(number, "a Fan or Score line follows the Hu that ended the match")
    if len(lines) == 1:
        return Expected("false_win", winner=winner, payments=scores)
    parts = text.split(maxsplit=2)
    if len(parts) != 3 or not parts[1].isdigit():
        raise RecordError(number, "expected 'Fan <total> <name>*<count>+…'")
    fans: dict[int, int] = {}
    unknown: list[str] = []
    for item in parts[2].split("+"):
        found = _FAN_ITEM.match(item)
        if found is None:
            raise RecordError(number, f"fan {item!r}: expected <name>*<count>")
        fan = fan_number(found.group(1))
        if fan is None:
            unknown.append(found.group(1))
        else:
            fans[fan] = fans.get(fan, 0) + FAN_BY_NUMBER[fan].points * int(found.group(2))
    false_win = sorted(scores.values()) == [-30, 10, 10, 10]
    return Expected(
        "false_win" if false_win else "win",
        winner=winner,
        fans=fans,
        unknown_fans=tuple(unknown),
        total=int(parts[1]),
        payments=scores,
    )


# ---- export ----------------------------------------------------------------------------------

_VERB = {CallKind.CHOW: "Chi", CallKind.PUNG: "Peng", CallKind.KONG: "Gang", CallKind.WIN: "Hu"}
_KONG_VERB = {v: k for k, v in _KONGS.items()}


class ExportError(ValueError):
    """A log Botzone's format cannot hold (flowers, a non-MCR profile)."""


def export(events: Sequence[Event]) -> tuple[str, list[str]]:
    """Botzone text for every hand of a log that ended (one match each), and notes on what was
    left out. Raises ExportError for what the format cannot hold at all."""
    walked = walk(events)
    if profile(walked.profile).scorer != "mcr":
        raise ExportError(f"the log's profile is {walked.profile}; Botzone plays MCR")
    notes = list(walked.notes)
    out: list[str] = []
    for hand in walked.hands:
        if hand.result is None or hand.result.outcome == "unfinished" or hand.first_draw is None:
            notes.append(f"hand {hand.number + 1} did not end; left out")
            continue
        if any(hand.flowers.values()) or any(a.kind == "flower" for a in hand.acts):
            raise ExportError(
                f"hand {hand.number + 1} has flowers; Botzone plays without them "
                "(export it as mjdata)"
            )
        out += _match_lines(walked, hand)
    return "".join(line + "\n" for line in out), notes


def _match_lines(walked: Walked, hand: HandLog) -> list[str]:
    assert hand.result is not None and hand.first_draw is not None
    east = list(hand.hands[Wind.E])
    east.reverse()  # East's first draw is its 14th tile: the last of the deal
    east.remove(hand.first_draw)
    east.reverse()
    dealt = {**hand.hands, Wind.E: east}
    match = walked.session_id  # an imported match keeps its id
    if walked.table_id != "botzone" or len(walked.hands) > 1:
        match = f"{walked.table_id}.{walked.session_id}.{hand.number + 1}"
    lines = [f"Match {match}"]
    lines.append(f"Wind {int(hand.prevalent)}")
    lines += [f"Player {int(w)} Deal {_codes(dealt[w])}" for w in Wind]
    lines.append(f"Player 0 Draw {CODE_OF[hand.first_draw]}")
    lines += [_act_line(act) for act in hand.acts]
    result = hand.result
    scores = " ".join(str(result.deltas.get(w, 0)) for w in Wind)
    if result.outcome == "win":
        fans = "+".join(
            f"{fan_name(int(p.id.removeprefix('MCR-')), platform='botzone')}*{p.count}"
            for p in result.patterns
        )
        lines.append(f"Fan {result.value} {fans}")
    elif result.outcome == "exhaustive_draw":
        lines.append("Huang")
    lines += [f"Score {scores}", ""]
    return lines


def _codes(tiles: Sequence[Tile]) -> str:
    return " ".join(CODE_OF[t] for t in tiles)


def _act_line(act: Act) -> str:
    who = f"Player {int(act.seat)}"
    tile = CODE_OF.get(act.tile, "?")
    if act.kind in ("draw", "replacement_draw"):
        return f"{who} Draw {tile}"
    if act.kind == "discard":
        return f"{who} Play {tile}"
    if act.kind == "kong" and act.kong is not KongKind.EXPOSED:
        assert act.kong is not None
        return f"{who} {_KONG_VERB[act.kong]} {tile}"
    if act.kind == "chow":
        line = f"{who} Chi {CODE_OF[act.tiles[1]]}"
    else:
        verb = {"pung": "Peng", "kong": "Gang", "win": "Hu"}[act.kind]
        line = f"{who} {verb} {tile}"
    for seat, call, named in sorted(act.lost, key=lambda c: (c[0] - (act.source or act.seat)) % 4):
        line += f" Ignore Player {int(seat)} {_VERB[call]} {CODE_OF[named]}"
    return line
