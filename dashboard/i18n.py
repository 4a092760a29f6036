"""Interface languages: English and simplified Chinese (``data/i18n.json``), per user."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources

LANGS = ("en", "zh")


@cache
def catalogue() -> dict[str, dict[str, str]]:
    text = resources.files("dashboard").joinpath("data/i18n.json").read_text(encoding="utf-8")
    data: dict[str, dict[str, str]] = json.loads(text)
    return data


def translator(lang: str) -> Callable[[str], str]:
    words = catalogue().get(lang, catalogue()["en"])
    english = catalogue()["en"]
    return lambda key: words.get(key) or english.get(key, key)
