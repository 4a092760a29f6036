from __future__ import annotations

import json
from pathlib import Path

import pytest

from voice.events import LANGS, WORDS
from voice.vocab import VocabError, load_vocab


def test_every_language_has_every_call() -> None:
    vocab = load_vocab()
    assert set(vocab) == set(LANGS)
    for v in vocab.values():
        assert {w for w, _ in v.phrases()} == set(WORDS)
    assert vocab["yue"].word_of("食糊") == "win"
    assert vocab["ja"].word_of("リーチ") is None


def test_venue_extends_a_language(tmp_path: Path) -> None:
    (tmp_path / "cmn.json").write_text(
        json.dumps({"calls": {"pung": [{"text": "碰碰", "say": "peng4 peng4"}]}}), encoding="utf-8"
    )
    vocab = load_vocab(tmp_path)
    assert vocab["cmn"].word_of("碰碰") == "pung"
    assert vocab["cmn"].word_of("碰") == "pung"


def test_venue_file_with_unknown_call_is_refused(tmp_path: Path) -> None:
    (tmp_path / "en.json").write_text(json.dumps({"calls": {"riichi": [{"text": "x"}]}}))
    with pytest.raises(VocabError, match="unknown call 'riichi'"):
        load_vocab(tmp_path)
