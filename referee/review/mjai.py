"""A session as mjai events (JSON lines), so that riichi tools can read and replay its hands.

mjai (the protocol of the Mortal / mjai.app family of riichi bots and reviewers) is riichi: 136
tiles, four fixed players (actors 0–3), and a game of kyoku. What maps:

- ``start_game`` ``names``: our players by venue place in the first hand (actor 0–3, venue
  E S W N; the same person all game, though a seat draw after a round moves him, WMC-8.2);
- each hand → ``start_kyoku``: ``bakaze`` = the prevalent wind (WMC has none: ``E``), ``kyoku``
  = the hand's number in its round (1–4), ``oya`` = the dealer, ``tehais`` = each
  actor's 13 dealt tiles (the dealer's 14th tile is his first ``tsumo``), ``scores`` = the
  running totals before the hand; ``honba`` / ``kyotaku`` are 0 (no counters or riichi sticks);
- ``tsumo`` (a draw or a kong's replacement), ``dahai`` (with ``tsumogiri`` when the tile just
  drawn is discarded), ``chi`` / ``pon`` / ``daiminkan`` (``target`` = the discarder, ``pai`` =
  the claimed tile, ``consumed`` = the hand's tiles), ``kakan``, ``ankan``;
- ``hora`` (``target`` = the discarder, or the winner when self-drawn) and ``ryukyoku`` with
  ``deltas`` (the WMC/MCR payments, not riichi points) and ``scores``; ``end_kyoku``,
  ``end_game``. Tiles keep our names, which are mjai's (``1m``…``9s``, ``E S W N``, ``P F C`` =
  white, green, red); there are no red fives.

What is dropped (listed as notes, so the exporter can say so): ``dora_marker`` (no dora in WMC or
MCR: the field is omitted, tools that insist on it will not load the file); calls nobody made
good and the calls a claim beat; false wins and the play that went on after them; penalty tiles
(an exposure from the hand is not an mjai action; their discards stay ordinary ``dahai``);
refused events; the clocks, the referees' decisions and the proposed penalties; the patterns
of a win (only its payments). A hand left unfinished (its end was lost) ends in ``ryukyoku``
with no deltas.

Flowers cannot be expressed at all: a profile with flowers (``mcr``, ``mcr-online``) is refused
unless ``drop_flowers`` is set, in which case each flower and its replacement draw become one
``tsumo`` of the replacement tile (the deal is given after the opening flower exchange).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from referee.events import Event, KongKind
from referee.game.profile import PROFILES
from referee.hands import Wind
from referee.records.walk import Act, HandLog, walk
from referee.tiles import Tile, tile_name

UNSEEN = "?"
"""mjai's name for a tile whose face is not known (another player's draw): a tile no sensor saw
(the deal and the draws at a real table, face down until shown)."""


def _pai(tile: Tile) -> str:
    return tile_name(tile) if tile >= 0 else UNSEEN


class MjaiError(ValueError):
    """The log cannot be written as mjai (a profile it cannot express)."""


def to_mjai(
    events: Sequence[Event], *, drop_flowers: bool = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """The mjai events of one session and the notes on what was dropped."""
    walked = walk(events)
    profile = PROFILES.get(walked.profile)
    if profile is None:
        raise MjaiError(f"profile {walked.profile!r} is unknown to the mjai export")
    if profile.flowers and not drop_flowers:
        raise MjaiError(
            f"profile {walked.profile!r} has flowers, which mjai (riichi, 136 tiles) cannot "
            "express; pass --drop-flowers to drop them (each flower and its replacement "
            "become one draw)"
        )
    notes = list(walked.notes)
    notes.append("dora_marker omitted: WMC and MCR have no dora")
    unseen = sum(t < 0 for h in walked.hands for tiles in h.hands.values() for t in tiles)
    unseen += sum(a.tile < 0 for h in walked.hands for a in h.acts if "draw" in a.kind)
    if unseen:
        notes.append(
            f"{unseen} tile(s) dealt or drawn face down are {UNSEEN!r}: no sensor saw them "
            "then (a tile is named once it is shown)"
        )
    names = _names(walked.hands)
    out: list[dict[str, Any]] = [{"type": "start_game", "names": names}]
    scores = [0, 0, 0, 0]
    flowers = 0
    for hand in walked.hands:
        body, deltas, dropped = _kyoku(hand, scores, names)
        flowers += dropped
        scores = [s + d for s, d in zip(scores, deltas, strict=True)]
        problem = _unplayable(body)
        if problem:  # what the record holds there is no riichi play: say so, keep the score
            notes.append(f"hand {hand.number + 1}: left out ({problem})")
            continue
        out += body
    if flowers:
        notes.append(f"{flowers} flower(s) dropped (each with its replacement merged)")
    out.append({"type": "end_game", "scores": scores})
    return out, notes


def _unplayable(kyoku: list[dict[str, Any]]) -> str:
    """Why an mjai client could not replay these events ('' if it could): every tile a
    player discards or melds must be in his hand (irregular hands break this: a chow undone by
    a pung's priority, a wrong meld, penalty tiles), and each is dealt 13 (not a wrong deal)."""
    hands: list[Counter[str]] = [Counter(t) for t in kyoku[0]["tehais"]]
    for n, dealt in enumerate(hands):
        if dealt.total() != 13:
            return f"actor {n} was dealt {dealt.total()} tiles, not 13"
    for e in kyoku[1:]:
        kind, actor = e["type"], e.get("actor")
        if actor is None or kind == "hora":
            continue
        if kind == "tsumo":
            hands[actor][e["pai"]] += 1
            continue
        given = [e["pai"]] if kind in ("dahai", "kakan") else list(e.get("consumed", []))
        for tile in given:
            if hands[actor][tile] <= 0 < hands[actor][UNSEEN]:
                tile = UNSEEN  # a tile that was face down until now
            if hands[actor][tile] <= 0:
                return f"{kind} of {tile} by actor {actor}, who does not hold it"
            hands[actor][tile] -= 1
    return ""


def _names(hands: list[HandLog]) -> list[str]:
    """The players by venue place in the first hand: actor 0–3 (the same person all game,
    though a new seat draw after a round moves him, WMC-8.2)."""
    if not hands:
        return []
    first = hands[0]
    names = [""] * 4
    for seat in Wind:
        names[(first.dealer_place + seat) % 4] = first.players[seat]
    return names


def _kyoku(
    hand: HandLog, scores: list[int], names: list[str]
) -> tuple[list[dict[str, Any]], list[int], int]:
    """One hand's events, its deltas by actor, and how many flowers were dropped."""
    actors = {seat: names.index(hand.players[seat]) for seat in Wind}
    tehais: list[list[str]] = [[] for _ in range(4)]
    first = tile_name(hand.first_draw) if hand.first_draw is not None else None
    if first is None and UNSEEN in map(_pai, hand.hands.get(Wind.E, [])):
        first = UNSEEN  # the dealer's 14th, dealt face down
    for seat in Wind:
        tiles = [_pai(t) for t in hand.hands.get(seat, [])]
        if seat is Wind.E and first is not None and first in tiles:
            tiles.remove(first)  # the dealer's 14th tile is his first draw
        tehais[actors[seat]] = tiles
    out: list[dict[str, Any]] = [
        {
            "type": "start_kyoku",
            "bakaze": hand.prevalent.name,
            "kyoku": hand.number % 4 + 1,
            "honba": 0,
            "kyotaku": 0,
            "oya": actors[Wind.E],
            "scores": list(scores),
            "tehais": tehais,
        }
    ]
    if first is not None:
        out.append({"type": "tsumo", "actor": actors[Wind.E], "pai": first})
    dropped = 0
    flower_pending = False
    for act in hand.acts:
        if act.kind == "flower":
            dropped += 1
            flower_pending = True
            continue
        if act.kind == "replacement_draw" and flower_pending:
            flower_pending = False
            last = out[-1]
            if last.get("type") == "tsumo" and last.get("actor") == actors[act.seat]:
                last["pai"] = tile_name(act.tile)  # the flower's draw becomes the replacement
                continue
        event = _act(act, actors, out)
        if event is not None:
            out.append(event)
    deltas = [0, 0, 0, 0]
    result = hand.result
    if result is not None:
        for seat, d in result.deltas.items():
            deltas[actors[seat]] += d
    after = [s + d for s, d in zip(scores, deltas, strict=True)]
    won = any(e["type"] == "hora" for e in out)
    if won:
        for e in out:
            if e["type"] == "hora":
                e["deltas"], e["scores"] = deltas, after
    else:
        out.append({"type": "ryukyoku", "deltas": deltas, "scores": after})
    out.append({"type": "end_kyoku"})
    return out, deltas, dropped


def _act(act: Act, actors: dict[Wind, int], before: list[dict[str, Any]]) -> dict[str, Any] | None:
    actor = actors[act.seat]
    pai = (
        _pai(act.tile)
        if act.kind in ("draw", "replacement_draw")
        else (tile_name(act.tile) if act.tile >= 0 else None)
    )
    target = actors[act.source] if act.source is not None else actor
    if act.kind in ("draw", "replacement_draw"):
        return {"type": "tsumo", "actor": actor, "pai": pai}
    if act.kind == "discard":
        last = before[-1]
        drawn = last.get("type") == "tsumo" and last.get("actor") == actor
        return {
            "type": "dahai",
            "actor": actor,
            "pai": pai,
            "tsumogiri": drawn and last.get("pai") == pai,
        }
    if act.kind == "chow":
        consumed = [tile_name(t) for t in act.tiles]
        consumed.remove(tile_name(act.tile))
        return {"type": "chi", "actor": actor, "target": target, "pai": pai, "consumed": consumed}
    if act.kind == "pung":
        return {"type": "pon", "actor": actor, "target": target, "pai": pai, "consumed": [pai] * 2}
    if act.kind == "kong":
        if act.kong is KongKind.EXPOSED:
            return {
                "type": "daiminkan",
                "actor": actor,
                "target": target,
                "pai": pai,
                "consumed": [pai] * 3,
            }
        if act.kong is KongKind.ADDED:
            return {"type": "kakan", "actor": actor, "pai": pai, "consumed": [pai] * 3}
        return {"type": "ankan", "actor": actor, "consumed": [pai] * 4}
    if act.kind == "win":
        return {"type": "hora", "actor": actor, "target": target, "pai": pai}
    return None
