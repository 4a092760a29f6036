"""Export then import gives the same game: simulated MCR games through the 2017 format (it keeps
flowers), simulated Botzone games through Botzone's (it keeps the calls that lost)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_logs import hands

from referee.game.sim import Simulator
from referee.records import botzone, mjdata
from referee.records.botzone import ExportError
from referee.records.check import check

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FEW = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(seed=SEEDS)
@pytest.mark.slow
def test_mcr_games_round_trip_through_the_2017_format(seed: int) -> None:
    sim = Simulator("mcr", seed)
    events = list(sim.run(3))
    files, _notes = mjdata.export(events)
    assert len(files) == 3  # one hand a file
    records = [mjdata.parse(text, name) for name, text in files]
    again = [hand for record in records for hand in hands(record.events, calls=False)]
    assert again == hands(events, calls=False)  # deals, flowers, every act, the results
    assert all(check(record).status == "ok" for record in records)


@FEW
@given(seed=SEEDS)
def test_botzone_games_round_trip_through_botzone_text(seed: int) -> None:
    events = list(Simulator("mcr-botzone", seed).run(3))
    text, notes = botzone.export(events)
    assert notes == []
    imported = botzone.parse(text)
    assert imported.errors == []
    again = [hand for record in imported.records for hand in hands(record.events)]
    assert again == hands(events)  # the losing calls too (Ignore clauses)
    assert all(check(record).status == "ok" for record in imported.records)


def test_exporting_botzone_text_again_gives_the_same_text() -> None:
    events = list(Simulator("mcr-botzone", 7).run(2))
    text, _ = botzone.export(events)
    records = botzone.parse(text).records
    assert [r.id for r in records] == ["T1.S1.1", "T1.S1.2"]  # an imported match keeps its id
    assert "".join(botzone.export(r.events)[0] for r in records) == text


def test_mcr_games_with_flowers_do_not_export_to_botzone() -> None:
    events = list(Simulator("mcr", 3).run(1))
    with pytest.raises(ExportError, match="has flowers; Botzone plays without them"):
        botzone.export(events)


def test_wmc_games_do_not_export_to_either_format() -> None:
    events = list(Simulator("wmc", 1).run(1))
    with pytest.raises(ExportError, match="Botzone plays MCR"):
        botzone.export(events)
    with pytest.raises(ValueError, match="the 2017 records are MCR"):
        mjdata.export(events)
