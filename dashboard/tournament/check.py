"""Before the report: is every result in, signed, balanced and explained? (WMC-8.1)

Each problem names what fails and links to the page that shows it: a round not ended, a table
session never logged, a card not complete or not signed, a hand without a result that no
referee has settled or voided, a hand whose payments do not sum to zero with its corrections
(penalties are listed apart: they do not count), a player twice in a round (by the seating
after its changes, and by what the tables logged), the logged players differing from the
seating with no correction saying why, a correction without its reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from dashboard.live import LiveState
from dashboard.tournament.model import CORRECTIONS, SEATS, Day
from dashboard.tournament.sessions import played
from referee.scoresheet import HANDS_PER_CARD


@dataclass(frozen=True)
class Problem:
    what: str
    link: str

    def to_json(self) -> dict[str, str]:
        return {"what": self.what, "link": self.link}


def check(day: Day, live: LiveState) -> list[Problem]:
    out: list[Problem] = []
    sessions = played(day, live)
    for rnd in day.plan.rounds:
        r = rnd.number
        here = f"/tournament/rounds/{r}"
        status = day.rounds[r].status
        if status != "ended":
            out.append(Problem(f"round {r} is {status}, not ended", here))
        for t, seats in day.tables(r):
            rig = day.plan.tables[t]
            where = f"round {r} table {t} ({rig}, session {rnd.session_id})"
            lt = sessions.get((r, t))
            if lt is None:
                out.append(Problem(f"{where}: no session logged", here))
                continue
            logged = lt.line_up
            if logged != tuple(seats[s] for s in SEATS) and (r, t) not in day.touched:
                out.append(
                    Problem(
                        f"{where}: the table logged {', '.join(logged)}, the seating says "
                        f"{', '.join(seats[s] for s in SEATS)}, and no correction says why",
                        here,
                    )
                )
            cards = lt.duty.cards()
            if not cards:
                out.append(Problem(f"{where}: no score card", here))
            for card in cards:
                link = f"/sheets/{rig}/{rnd.session_id}/{card.half}"
                if len(card.rows) < HANDS_PER_CARD:
                    out.append(
                        Problem(
                            f"{where} card {card.half}: {len(card.rows)} of {HANDS_PER_CARD} hands",
                            link,
                        )
                    )
                unsigned = [p for p in card.players if p not in card.signatures]
                if unsigned:
                    out.append(
                        Problem(
                            f"{where} card {card.half}: not signed by {', '.join(unsigned)}", link
                        )
                    )
                for row in card.rows:
                    if row.status == "no_result":
                        out.append(
                            Problem(
                                f"{where} card {card.half} hand {row.number}: no result "
                                "(a referee settles or voids it from the alert queue, WMC-7.8)",
                                "/alerts",
                            )
                        )
                    fixed = sum(c.points for c in card.corrections if c.hand == row.hand)
                    total = sum(row.payments.values()) + fixed
                    if total:
                        out.append(
                            Problem(
                                f"{where} card {card.half} hand {row.number}: the hand's scores "
                                f"sum to {total:+d}, not 0",
                                link,
                            )
                        )
        out += _twice(
            day,
            r,
            here,
            [lt.line_up for (rr, _), lt in sessions.items() if rr == r],
        )
    for c in day.changes:
        if c.action in CORRECTIONS and not c.reason.strip():
            out.append(Problem(f"correction {c.id} ({c.action}) has no reason", "/audit"))
    return out


def _twice(day: Day, r: int, link: str, logged: list[tuple[str, ...]]) -> list[Problem]:
    out = []
    seated = Counter(p for _, s in day.tables(r) for p in s.values())
    recorded = Counter(p for players in logged for p in players)
    for what, counts in (("seated", seated), ("logged", recorded)):
        twice = sorted(p for p, n in counts.items() if n > 1)
        if twice:
            out.append(Problem(f"round {r}: {', '.join(twice)} {what} twice", link))
    return out
