"""The demo's dashboard port: two demos started at once on one machine never share one."""

from __future__ import annotations

from venue.demo import dashboard_socket


def test_two_demos_at_once_get_two_ports() -> None:
    first, second = dashboard_socket(None), dashboard_socket(None)
    try:
        assert first.getsockname()[1] != second.getsockname()[1]
    finally:
        first.close()
        second.close()
