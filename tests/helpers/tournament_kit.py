"""A small tournament for the tests: its players' list, its creation through the CLI, and
simulated rigs that play whatever round the dashboard tells them (``cmd/round``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dashkit import Dash

from dashboard.simrig import SimRig, game
from referee.events import CardSigned, Event, Source, make_event
from rig.bus.mqtt import MqttBus
from rig.cli import main as mjref

NAME = "Spring Open"
COUNTRIES = ("CN", "JP", "NL", "DE")


def players_csv(path: Path, n: int = 16, substitutes: int = 1) -> Path:
    lines = ["name,ema_id,country,team,substitute"]
    for i in range(n + substitutes):
        sub = "yes" if i >= n else ""
        lines.append(f"P{i:02d},{4000 + i},{COUNTRIES[i % 4]},Team{i % 4},{sub}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def db_args(db: str | None, data: Path) -> list[str]:
    return ["--data", str(data)] + (["--db", db] if db else [])


def create(db: str | None, data: Path, rounds: int = 4, *extra: str) -> dict[str, str]:
    """The tournament made with `mjref tournament create`; the players' PINs."""
    csv = players_csv(data.parent / "players.csv")
    pins = data.parent / "pins.csv"
    argv = ["tournament", "create", *db_args(db, data), "--name", NAME, "--rules", "wmc"]
    argv += ["--players", str(csv), "--rounds", str(rounds), "--seed", "1"]
    assert mjref([*argv, "--pins-out", str(pins), *extra]) == 0
    if not pins.exists():  # --no-pins
        return {}
    rows = pins.read_text(encoding="utf-8").splitlines()[1:]
    return dict(line.split(",") for line in rows)


Damage = Callable[[list[Event]], list[Event]]


def session_for(
    table: str, unsigned: bool = False, hands: int = 8, damage: Damage | None = None
) -> Any:
    """A table's deal: a simulated session of ``hands`` (with irregularities, so with proposals)
    for the players named, which they sign at its end (unless ``unsigned`` or short);
    ``damage`` makes what the record keeps of it (duty_kit.first_end_lost)."""

    def deal(session: str, players: tuple[str, ...]) -> list[Event]:
        seed = sum(map(ord, table + session))
        events = game(table, session, seed=seed, hands=hands, players=players)  # type: ignore[arg-type]
        if damage is not None:
            events = damage(events)
        if not unsigned and hands == 8:
            last = events[-1].ts
            events += [
                make_event(CardSigned(player=p), seq=0, ts=last, source=Source.REFEREE)
                for p in players
            ]
        return events

    return deal


def rig(
    dash: Any, table: str, unsigned: bool = False, hands: int = 8, damage: Damage | None = None
) -> SimRig:
    """A simulated rig on the dashboard's bus (through a broker: its own connection)."""
    bus = dash.bus
    if getattr(dash, "mqtt", None):
        bus = MqttBus(dash.mqtt, dash.settings.venue)
        dash.call(bus.start)
        assert dash.call(bus.wait_connected, 10)
    r = SimRig(bus, table, "idle", [], deal=session_for(table, unsigned, hands, damage))
    dash.call(r.start)
    dash.rigs.append(r)
    return r


def control(dash: Dash, client: Any, csrf: str, round_: int, action: str, **kw: Any) -> Any:
    r = client.post(
        f"/api/tournament/rounds/{round_}/controls",
        json={"action": action, **kw},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code == 200, r.text
    return r.json()


def play_round(dash: Any, rigs: list[SimRig], session: str) -> None:
    """Each rig, told its round, plays it whole; the dashboard has stored all of it."""
    dash.wait(lambda: all(r.session_id == session and r.script for r in rigs))
    for r in rigs:
        dash.call(r.play, 100_000)
    dash.wait(
        lambda: all(
            (lt := dash.svc.live.sessions.get((r.table_id, session))) is not None
            and lt.last_seq == len(r.log) - 1
            for r in rigs
        )
    )
