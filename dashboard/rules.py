"""The rules' short bilingual summaries, shipped as package data (``data/rules.json``)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def summaries() -> dict[str, dict[str, str]]:
    text = resources.files("dashboard").joinpath("data/rules.json").read_text(encoding="utf-8")
    data: dict[str, dict[str, str]] = {k: v for k, v in json.loads(text).items() if k[0] != "_"}
    return data


def summary(rule: str, lang: str = "en") -> str:
    """The rule's summary in ``lang`` (English when there is none in it); '' if unknown."""
    entry = summaries().get(rule) or summaries().get(rule.split(":")[0], {})
    return entry.get(lang) or entry.get("en", "")
