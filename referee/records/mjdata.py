"""The 2017 tab-separated records (Botzone's ``mjdata`` release of human MCR hands) to logs.

One hand per file: the source, a header (prevalent wind, the winner's points, the fans with
their points, the result), four deal lines (seat, hand after the opening flower exchange,
number of flowers), then one action per line (../shared/testdata/records/README.md §2). Each
hand becomes one session under ``mcr-online``: the dealer (the seat dealt 14) is East, the next
seats S W N; players are named ``P<seat>`` after the record's seats.

The record keeps only the NUMBER of flowers each seat set aside in the deal, with the hand as it
was after replacing them. The log writes that exchange as ``flower`` + ``replacement_draw``
pairs: the faces are the flowers the record never shows in play (lowest first), the replacements
the last tiles of the hand's list; both carry ``inferred:flower-exchange`` in their evidence.
MCR scores every flower alike (1 fan, never toward the minimum), so the result does not depend
on that choice. A ``和牌`` line that does not end a won hand (the platform let play go on) is
kept as an ``observation``: the server did not accept it as a win.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from referee.events import (
    Call,
    CallKind,
    Chow,
    Deal,
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    FlowerSetAside,
    Kong,
    KongKind,
    Observation,
    Payload,
    Pung,
    ReplacementDraw,
    SessionStarted,
    WallBuilt,
    WinDeclared,
)
from referee.game.profile import profile
from referee.hands import WinBy, Wind
from referee.records import (
    CODE_OF,
    Expected,
    LogBuilder,
    Record,
    RecordError,
    fan_name,
    fan_number,
    tile_of,
)
from referee.records.walk import Act, HandLog, Walked, walk
from referee.tiles import FIRST_FLOWER, NUM_FLOWERS, Tile, is_flower

WINDS_ZH = {"东": Wind.E, "南": Wind.S, "西": Wind.W, "北": Wind.N}
RESULTS = {"和牌": "win", "自摸": "win", "荒庄": "exhaustive_draw"}
_LIST = re.compile(r"^\[('[A-Z]\d'(,\s*'[A-Z]\d')*)?\]$")
_FAN = re.compile(r"^(.+)-(\d+)$")
_DRAWS = ("摸牌", "杠后摸牌", "补花后摸牌")
_KONGS = {"明杠": KongKind.EXPOSED, "暗杠": KongKind.CONCEALED, "补杠": KongKind.ADDED}
INFERRED = "inferred:flower-exchange"


def _codes(text: str, line: int) -> list[str]:
    if not _LIST.match(text.strip()):
        raise RecordError(line, f"expected a tile list such as ['W5','B3'], got {text!r}")
    return re.findall(r"'([A-Z]\d)'", text)


def _tiles(text: str, line: int) -> list[Tile]:
    return [tile_of(code, line, flowers=True) for code in _codes(text, line)]


def _record_seat(text: str, line: int) -> int:
    if text not in ("0", "1", "2", "3"):
        raise RecordError(line, f"seat {text!r}: expected 0, 1, 2 or 3")
    return int(text)


def parse(text: str, record_id: str) -> Record:
    """One file's hand; a malformed line raises RecordError with its line number."""
    lines = text.splitlines()
    if len(lines) < 7:
        raise RecordError(len(lines), "a hand needs a source line, a header, 4 deal lines, actions")
    header = lines[1].split("\t")
    if len(header) != 5 or header[0] not in WINDS_ZH or header[4] not in RESULTS:
        raise RecordError(
            2, "header: expected 'wind(东南西北) TAB points TAB [fans] TAB TAB 和牌|自摸|荒庄'"
        )
    if not header[1].lstrip("-").isdigit():
        raise RecordError(2, f"header: the winner's points {header[1]!r} are not a number")
    hands: dict[int, list[Tile]] = {}
    dealt_flowers: dict[int, int] = {}
    for k in range(4):
        number = k + 3
        fields = lines[k + 2].split("\t")
        if len(fields) != 3 or _record_seat(fields[0], number) != k or not fields[2].isdigit():
            raise RecordError(number, f"deal: expected '{k} TAB [hand] TAB flowers'")
        hands[k] = _tiles(fields[1], number)
        dealt_flowers[k] = int(fields[2])
        if any(is_flower(t) for t in hands[k]) or dealt_flowers[k] > len(hands[k]):
            raise RecordError(number, "deal: the hand is shown after its flowers were replaced")
    dealers = [k for k in range(4) if len(hands[k]) == 14]
    if len(dealers) != 1 or any(len(hands[k]) != 13 for k in range(4) if k != dealers[0]):
        raise RecordError(3, "deal: the dealer holds 14 tiles and the others 13")
    dealer = dealers[0]

    def wind(seat: int) -> Wind:
        return Wind((seat - dealer) % 4)

    actions = [(n, line.split("\t")) for n, line in enumerate(lines[6:], start=7) if line]
    result = RESULTS[header[4]]
    last_win = len(actions) - 1 if result == "win" else -1
    players = tuple(f"P{(dealer + k) % 4}" for k in range(4))
    log = LogBuilder("mjdata", record_id)
    log.add(
        SessionStarted(
            profile="mcr-online",
            players=(players[0], players[1], players[2], players[3]),
            prevalent=WINDS_ZH[header[0]],
        ),
        2,
    )
    log.add(WallBuilt(), 3)
    seen = {t for n, f in actions if len(f) > 2 for t in _tiles(f[2], n) if is_flower(t)}
    free = [t for t in range(FIRST_FLOWER, FIRST_FLOWER + NUM_FLOWERS) if t not in seen]
    exchange: list[tuple[Wind, Tile, Tile, int]] = []
    for k in sorted(hands, key=wind):
        n = dealt_flowers[k]
        if n > len(free):
            raise RecordError(k + 3, "deal: more flowers than the set has left")
        faces, free = free[:n], free[n:]
        kept = hands[k][: len(hands[k]) - n]
        exchange += [
            (wind(k), face, t, k + 3) for face, t in zip(faces, hands[k][len(kept) :], strict=True)
        ]
        hands[k] = kept + faces
    log.add(Deal(hands={wind(k): tuple(t) for k, t in hands.items()}), 3)
    for seat, face, replacement, number in exchange:
        log.add(FlowerSetAside(seat=seat, tile=face), number, INFERRED)
        log.add(ReplacementDraw(seat=seat, tile=replacement), number, INFERRED)
    winner: Wind | None = None
    for index, (number, fields) in enumerate(actions):
        for payload in _action(fields, number, wind, final_win=index == last_win):
            log.add(payload, number)
        if index == last_win and fields[1] == "和牌":
            winner = wind(_record_seat(fields[0], number))
    if result == "win" and winner is None:
        raise RecordError(len(lines), f"the header says {header[4]} but no 和牌 line ends the hand")
    if result == "exhaustive_draw":
        log.add(ExhaustiveDraw(), len(lines))
        return Record(record_id, log.events, Expected(result, payments=dict.fromkeys(Wind, 0)))
    return Record(record_id, log.events, _expected(header, winner))


def _action(
    fields: list[str], line: int, wind: Callable[[int], Wind], *, final_win: bool
) -> list[Payload]:
    """The events of one action line (a claim or kong is its call, then the act)."""
    if len(fields) < 3:
        raise RecordError(line, "expected 'seat TAB action TAB [tiles]'")
    seat: Wind = wind(_record_seat(fields[0], line))
    act = fields[1]
    tiles = _tiles(fields[2], line)
    claim = [f for f in fields[3:] if f]
    if act in _DRAWS or act in ("打牌", "补花"):
        if len(tiles) != 1:
            raise RecordError(line, f"{act}: expected one tile")
        tile = tiles[0]
        if act == "摸牌":
            return [Draw(seat=seat, tile=tile)]
        if act == "打牌":
            return [Discard(seat=seat, tile=tile)]
        if act == "补花":
            return [FlowerSetAside(seat=seat, tile=tile)]
        return [ReplacementDraw(seat=seat, tile=tile)]
    if act == "和牌":
        if not final_win:
            data = {"line": line, "seat": seat.name, "tiles": fields[2]}
            return [Observation(sensor="mjdata", kind="win_not_accepted", data=data)]
        return [Call(seat=seat, call=CallKind.WIN), WinDeclared(seat=seat)]
    if not tiles or (claim and len(claim) != 2):
        raise RecordError(line, f"{act}: expected the set, then the claimed tile and its seat")
    tile = tile_of(claim[0], line) if claim else tiles[0]
    if act == "吃":
        return [Call(seat=seat, call=CallKind.CHOW), Chow(seat=seat, tiles=tuple(tiles))]
    if act == "碰":
        return [Call(seat=seat, call=CallKind.PUNG), Pung(seat=seat)]
    if act in _KONGS:
        return [Call(seat=seat, call=CallKind.KONG), Kong(seat=seat, kind=_KONGS[act], tile=tile)]
    raise RecordError(
        line,
        f"unknown action {act!r}: expected 摸牌 打牌 吃 碰 明杠 暗杠 补杠 杠后摸牌 补花 "
        "补花后摸牌 和牌",
    )


def _expected(header: list[str], winner: Wind | None) -> Expected:
    fans: dict[int, int] = {}
    unknown: list[str] = []
    for code in re.findall(r"'([^']*)'", header[2]):
        found = _FAN.match(code)
        if found is None:
            raise RecordError(2, f"header fan {code!r}: expected <name>-<points>")
        fan = fan_number(found.group(1))
        if fan is None:
            unknown.append(found.group(1))
        else:
            fans[fan] = fans.get(fan, 0) + int(found.group(2))
    return Expected(
        "win",
        winner=winner,
        fans=fans,
        unknown_fans=tuple(unknown),
        total=sum(fans.values()),
        winner_points=int(header[1]),
    )


# ---- export ----------------------------------------------------------------------------------

_WIND_ZH = {w: zh for zh, w in WINDS_ZH.items()}
_KONG_ZH = {kind: zh for zh, kind in _KONGS.items()}


def export(events: Sequence[Event]) -> tuple[list[tuple[str, str]], list[str]]:
    """One 2017-format text per hand that ended, named ``<table>-<session>-<hand>``, and notes
    on what was left out (losing calls: the format lists none; a hand that did not end)."""
    walked = walk(events)
    if profile(walked.profile).scorer != "mcr":
        raise ValueError(f"the log's profile is {walked.profile}; the 2017 records are MCR")
    notes = list(walked.notes)
    out: list[tuple[str, str]] = []
    for hand in walked.hands:
        if hand.result is None or hand.result.outcome not in ("win", "exhaustive_draw"):
            notes.append(f"hand {hand.number + 1} did not end in a win or a draw; left out")
            continue
        if any(a.lost for a in hand.acts):
            notes.append(f"hand {hand.number + 1}: calls that lost on priority are left out")
        name = f"{walked.table_id}-{walked.session_id}-{hand.number + 1}"
        out.append((name, _hand_text(walked, hand)))
    return out, notes


def _hand_text(walked: Walked, hand: HandLog) -> str:
    result = hand.result
    assert result is not None

    numbers = [name[1:] for name in hand.players if name[:1] == "P"]
    if sorted(numbers) == ["0", "1", "2", "3"]:  # imported: the record's own seat numbers

        def place(seat: Wind) -> int:
            return int(numbers[seat])

    else:

        def place(seat: Wind) -> int:
            return (hand.dealer_place + seat) % 4

    if result.outcome == "win":
        assert result.winner is not None
        fans = ",".join(
            f"'{fan_name(int(p.id.removeprefix('MCR-')), platform='mjdata')}-{p.points * p.count}'"
            for p in result.patterns
        )
        how = "自摸" if result.win_by is WinBy.SELF else "和牌"
        header = [_WIND_ZH[hand.prevalent], str(result.deltas[result.winner]), f"[{fans}]", "", how]
    else:
        header = [_WIND_ZH[hand.prevalent], "0", "['荒庄-0']", "", "荒庄"]
    lines = [f"./{walked.table_id}/{walked.session_id}/{hand.number + 1}.xml", "\t".join(header)]
    by_place = {place(w): w for w in Wind}
    for k in range(4):
        seat = by_place[k]
        lines.append(f"{k}\t{_list(hand.hands[seat])}\t{hand.flowers[seat]}")
    for act in hand.acts:
        lines.append(_act_line(act, place))
    return "".join(line + "\n" for line in lines)


def _list(tiles: Sequence[Tile]) -> str:
    return "[" + ",".join(f"'{CODE_OF[t]}'" for t in tiles) + "]"


def _act_line(act: Act, place: Callable[[Wind], int]) -> str:
    me = place(act.seat)
    tile = act.tile
    if act.kind == "draw":
        return f"{me}\t摸牌\t{_list([tile])}\t"
    if act.kind == "replacement_draw":
        return f"{me}\t{'杠后摸牌' if act.after_kong else '补花后摸牌'}\t{_list([tile])}\t"
    if act.kind in ("discard", "flower"):
        return f"{me}\t{'打牌' if act.kind == 'discard' else '补花'}\t{_list([tile])}\t"
    source = place(act.source if act.source is not None else act.seat)
    claimed = f"{CODE_OF[tile]}\t{source}"
    if act.kind == "chow":
        return f"{me}\t吃\t{_list(act.tiles)}\t{claimed}"
    if act.kind == "pung":
        return f"{me}\t碰\t{_list([tile] * 3)}\t{claimed}"
    if act.kind == "kong":
        assert act.kong is not None
        return f"{me}\t{_KONG_ZH[act.kong]}\t{_list([tile] * 4)}\t{claimed}"
    return f"{me}\t和牌\t{_list([tile])}\t{claimed}"
