"""Venue service: API, web UI, alerts and score sheets."""
