"""The tournament in the dashboard's database: the plan written once, the day's changes as
audit entries (``dashboard.store.audit``), each checked against the day before it is written."""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from dashboard import store
from dashboard.auth import hash_password
from dashboard.db.models import (
    AuditEntry,
    EntrantRow,
    RoundRow,
    SeatRow,
    TableRow,
    TournamentRow,
)
from dashboard.seating import Seating
from dashboard.tournament.model import (
    ACTIONS,
    CORRECTIONS,
    SEATS,
    Change,
    Day,
    Entrant,
    Plan,
    RoundPlan,
    TournamentError,
    fold,
)

RULES = ("wmc", "mcr")
PIN_DIGITS = 4


@dataclass(frozen=True)
class NewTournament:
    name: str
    rules: str
    entrants: list[Entrant]
    seating: Seating
    minutes: int = 120
    rigs: tuple[str, ...] = ()  # the rig of table 1, 2 …; default T1, T2 …
    seed: int = 0
    starts: str = ""
    ends: str = ""
    venue: str = ""
    pins: bool = True


def create(factory: sessionmaker[Session], new: NewTournament, now: float) -> dict[str, str]:
    """Write the plan; the players' PINs come back (shown once, only their hashes kept)."""
    problems = []
    if new.rules not in RULES:
        problems.append(f"rules {new.rules!r} unknown; expected one of {', '.join(RULES)}")
    if not new.name.strip() or len(new.name) > 128:
        problems.append("a tournament's name needs 1-128 characters")
    tables = len(new.seating.rounds[0]) if new.seating.rounds else 0
    rigs = new.rigs or tuple(f"T{n}" for n in range(1, tables + 1))
    if len(rigs) != tables or len(set(rigs)) != len(rigs):
        problems.append(f"{len(rigs)} rigs named for {tables} tables; expected one each")
    if problems:
        raise TournamentError(problems)
    digits = PIN_DIGITS if new.pins else 0  # no PINs: a player opens their page by name
    pins = {
        e.name: "".join(secrets.choice("0123456789") for _ in range(digits)) for e in new.entrants
    }
    with factory() as db:
        if db.scalar(select(TournamentRow)) is not None:
            raise TournamentError(["this dashboard holds a tournament already"])
        db.add(
            TournamentRow(
                name=new.name,
                rules=new.rules,
                starts=new.starts,
                ends=new.ends,
                venue=new.venue,
                seed=new.seed,
                pins=new.pins,
                created=now,
            )
        )
        for e in new.entrants:
            pin = hash_password(pins[e.name]) if new.pins else ""
            db.add(EntrantRow(**asdict(e), pin_hash=pin))
        for n in range(1, len(new.seating.rounds) + 1):
            db.add(RoundRow(number=n, session_id=f"R{n}", minutes=new.minutes))
        for n, rig in enumerate(rigs, 1):
            db.add(TableRow(number=n, rig=rig))
        db.flush()
        for r, round_ in enumerate(new.seating.rounds, 1):
            for t, players in enumerate(round_, 1):
                for seat, name in zip(SEATS, players, strict=True):
                    db.add(SeatRow(round=r, table=t, seat=seat, entrant=name))
        db.commit()
    return pins if new.pins else {}


def plan(factory: sessionmaker[Session]) -> Plan | None:
    with factory() as db:
        row = db.scalar(select(TournamentRow))
        if row is None:
            return None
        entrants = tuple(
            Entrant(e.name, e.ema_id, e.country, e.team, e.substitute)
            for e in db.scalars(select(EntrantRow).order_by(EntrantRow.id))
        )
        rounds = tuple(
            RoundPlan(r.number, r.session_id, r.minutes)
            for r in db.scalars(select(RoundRow).order_by(RoundRow.number))
        )
        tables = {t.number: t.rig for t in db.scalars(select(TableRow))}
        seating: dict[tuple[int, int], dict[str, str]] = {}
        for s in db.scalars(select(SeatRow)):
            seating.setdefault((s.round, s.table), {})[s.seat] = s.entrant
    ordered = {k: {w: v[w] for w in SEATS if w in v} for k, v in sorted(seating.items())}
    return Plan(
        row.name,
        row.rules,
        entrants,
        rounds,
        dict(sorted(tables.items())),
        ordered,
        row.starts,
        row.ends,
        row.venue,
        row.pins,
    )


def changes(factory: sessionmaker[Session]) -> list[Change]:
    with factory() as db:
        rows = db.scalars(
            select(AuditEntry).where(AuditEntry.action.in_(ACTIONS)).order_by(AuditEntry.id)
        )
        out = []
        for e in rows:
            detail = json.loads(e.detail)
            out.append(
                Change(
                    e.id,
                    e.at,
                    e.actor,
                    e.action,
                    int(detail.pop("round")),
                    detail.pop("table", None),
                    detail,
                    e.reason,
                )
            )
        return out


def load(factory: sessionmaker[Session]) -> Day | None:
    p = plan(factory)
    return None if p is None else fold(p, changes(factory))


def record(
    factory: sessionmaker[Session],
    day: Day,
    now: float,
    actor: str,
    action: str,
    round_: int,
    *,
    table: int | None = None,
    detail: dict[str, object] | None = None,
    reason: str = "",
    address: str = "",
) -> Day:
    """Check one change against the day, write it to the audit; the day after it."""
    body = dict(detail or {})
    _check(day, action, round_, table, body, reason.strip())
    store.audit(
        factory,
        now,
        actor,
        action,
        table_id=None if table is None else day.plan.tables[table],
        target=f"round {round_}" + ("" if table is None else f" table {table}"),
        reason=reason.strip(),
        detail={"round": round_, **({} if table is None else {"table": table}), **body},
        address=address,
    )
    return load(factory) or day


def _check(
    day: Day, action: str, round_: int, table: int | None, detail: dict[str, object], reason: str
) -> None:
    if action not in ACTIONS:
        raise TournamentError([f"{action!r} is no tournament action"])
    rs = day.rounds.get(round_)
    if rs is None:
        raise TournamentError([f"round {round_} unknown; the rounds are 1 to {len(day.rounds)}"])
    if table is not None and table not in day.plan.tables:
        raise TournamentError(
            [f"table {table} unknown; the tables are 1 to {len(day.plan.tables)}"]
        )
    if action in CORRECTIONS and not reason:
        raise TournamentError([f"a correction ({action}) needs its reason"])
    problem = _problem(day, action, round_, table, detail)
    if problem:
        raise TournamentError([problem])


def _problem(
    day: Day, action: str, round_: int, table: int | None, d: dict[str, object]
) -> str | None:
    rs = day.rounds[round_]
    seated = {p for t, s in day.tables(round_) for p in s.values()}
    if action == "round_started":
        current = day.current
        if current is not None:
            return f"round {current.number} is still in play: end it first"
        if day.next_round() != round_:
            return f"round {round_} is {rs.status}; the next round to start is {day.next_round()}"
    elif action in ("round_paused", "round_extended", "table_confirmed", "round_ended"):
        if rs.status not in ("running", "paused"):
            return f"round {round_} is {rs.status}, not in play"
        if action == "round_paused" and rs.status == "paused":
            return f"round {round_} is paused already"
        if action == "round_extended" and not (d.get("minutes") or d.get("hands")):
            return "an extension gives minutes or hands (at least one)"
    elif action == "round_resumed" and rs.status != "paused":
        return f"round {round_} is {rs.status}, not paused"
    elif action == "players_swapped":
        missing = [str(d.get(k)) for k in ("a", "b") if d.get(k) not in seated]
        if missing:
            return f"a swap names two players seated in round {round_}; not {', '.join(missing)}"
        if d.get("a") == d.get("b"):
            return "a swap names two different players"
    elif action == "player_replaced":
        entrant = day.plan.entrant(str(d.get("in")))
        if d.get("out") not in seated:
            return f"{d.get('out')} does not sit in round {round_}"
        if entrant is None:
            return f"{d.get('in')} is not an entrant of the tournament"
        through = d.get("through") or len(day.rounds)
        assert isinstance(through, int)
        for r in range(round_, through + 1):
            if day.table_of(r, entrant.name) is not None:
                return f"{entrant.name} sits in round {r} already"
    elif action == "hand_corrected":
        if table is None or not isinstance(d.get("hand"), int) or not d.get("player"):
            return "a hand's correction names the table, the hand (0-based) and the player"
    elif action == "result_changed" and (
        d.get("player") not in seated or not isinstance(d.get("points"), int)
    ):
        return f"a result's change names a player of round {round_} and the points"
    return None
