"""Call vocabulary as per-language data (voice/vocab/*.json); a venue adds phrases in its own dir.

A venue file has the same shape as a shipped one and is merged phrase by phrase, so a venue can
accept a local variant ("碰碰") without a code change. The spotter only knows what it was trained
on; the vosk engine takes any phrase its model's lexicon holds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from voice.events import LANGS, WORDS, Lang, Word

VOCAB_DIR = Path(__file__).parent / "vocab"


class VocabError(ValueError):
    """A vocabulary file is malformed."""


@dataclass(frozen=True)
class Phrase:
    """A way to say a call: ``text`` for recognisers, ``say`` for espeak-ng, ``ipa`` for Kokoro."""

    text: str
    say: str
    ipa: str | None = None


@dataclass
class LangVocab:
    lang: Lang
    name: str
    espeak_voice: str
    calls: dict[Word, list[Phrase]] = field(default_factory=dict)
    hard_negatives: list[Phrase] = field(default_factory=list)

    def phrases(self) -> list[tuple[Word, Phrase]]:
        return [(w, p) for w in WORDS for p in self.calls.get(w, [])]

    def word_of(self, text: str) -> Word | None:
        """Which call a recognised phrase stands for (None: not a call)."""
        for w, p in self.phrases():
            if p.text == text:
                return w
        return None


def _phrase(raw: object, where: str) -> Phrase:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise VocabError(f"{where}: each phrase needs a 'text' string, got {raw!r}")
    text = raw["text"]
    say = raw.get("say", text)
    ipa = raw.get("ipa")
    if not isinstance(say, str) or not (ipa is None or isinstance(ipa, str)):
        raise VocabError(f"{where}: 'say' and 'ipa' must be strings")
    return Phrase(text=text, say=say, ipa=ipa)


def _merge(vocab: LangVocab, data: dict[str, object], where: str) -> None:
    calls = data.get("calls", {})
    if not isinstance(calls, dict):
        raise VocabError(f"{where}: 'calls' must map a word to a list of phrases")
    for word, phrases in calls.items():
        if word not in WORDS:
            raise VocabError(f"{where}: unknown call {word!r}; calls are {', '.join(WORDS)}")
        if not isinstance(phrases, list):
            raise VocabError(f"{where}: calls.{word} must be a list")
        known = vocab.calls.setdefault(word, [])
        for raw in phrases:
            p = _phrase(raw, f"{where} calls.{word}")
            if p not in known:
                known.append(p)
    negs = data.get("hard_negatives", [])
    if not isinstance(negs, list):
        raise VocabError(f"{where}: 'hard_negatives' must be a list")
    vocab.hard_negatives.extend(_phrase(r, f"{where} hard_negatives") for r in negs)


def load_vocab(extra_dir: Path | None = None) -> dict[Lang, LangVocab]:
    """The shipped vocabulary, plus ``extra_dir/<lang>.json`` files from a venue."""
    out: dict[Lang, LangVocab] = {}
    for lang in LANGS:
        path = VOCAB_DIR / f"{lang}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        vocab = LangVocab(lang=lang, name=str(data["name"]), espeak_voice=str(data["espeak_voice"]))
        _merge(vocab, data, str(path))
        if extra_dir is not None and (extra_dir / f"{lang}.json").exists():
            extra = extra_dir / f"{lang}.json"
            try:
                venue = json.loads(extra.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise VocabError(f"{extra}: not JSON ({exc})") from exc
            _merge(vocab, venue, str(extra))
        out[lang] = vocab
    return out
