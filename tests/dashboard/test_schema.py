"""Schemathesis against the OpenAPI schema, logged in as a head referee: no input gives a 500.
Bounded (a few examples per operation) to keep the suite short."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashkit import Dash, prepare

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from dashboard.simrig import game  # noqa: E402


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dash]:
    with Dash(prepare(None, Path(tmp_path_factory.mktemp("schema")) / "data")) as d:
        events = game("T1", "S1", seed=3, hands=1)
        rig = d.rig("T1", events)
        played = min(60, len(events))
        d.call(rig.play, played)
        d.wait(lambda: d.seq("T1") == played - 1)
        yield d


@pytest.mark.slow
def test_no_server_error(live: Dash) -> None:
    client, csrf = live.login("head_referee")
    schema = schemathesis.openapi.from_dict(live.app.openapi())
    ops = [r.ok() for r in schema.get_all_operations()]
    assert len(ops) > 15
    failures = []
    for op in ops:

        @settings(
            max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        @given(case=op.as_strategy())
        def check(case: object) -> None:
            c: Any = case
            body = None if type(c.body).__name__ == "NotSet" else c.body
            r = client.request(
                c.method,
                c.formatted_path,
                params=c.query or None,
                json=body,
                headers={"X-CSRF-Token": csrf},
            )
            if r.status_code >= 500:
                failures.append((c.method, c.formatted_path, r.status_code, r.text[:200]))

        check()
    assert not failures
