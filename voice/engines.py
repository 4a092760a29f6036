"""Build the per-channel detectors the configuration asks for."""

from __future__ import annotations

from voice.config import VoiceConfig
from voice.detect import Detector, SpotterDetector
from voice.encoder import SpeechEncoder
from voice.enrol import Profile, ProfileAdapter
from voice.events import Word
from voice.head import OnnxHead
from voice.vocab import load_vocab
from voice.vosk_engine import VoskDetector, VoskLanguage, VoskModel, VoskSetupError


def build_detectors(cfg: VoiceConfig, channels: int) -> list[Detector]:
    """One detector per channel; models are loaded once and shared."""
    if cfg.engine == "vosk":
        if not cfg.vosk_models:
            raise VoskSetupError("engine vosk: no vosk_models configured (lang = model directory)")
        vocab = load_vocab(cfg.vocab_dir)
        models = []
        for lang, path in cfg.vosk_models.items():
            phrases: dict[str, Word] = {p.text: w for w, p in vocab[lang].phrases()}
            models.append(VoskModel(VoskLanguage(lang, path, phrases)))
        return [VoskDetector(models, threshold=cfg.vosk_threshold) for _ in range(channels)]
    head = OnnxHead(cfg.spotter_model)
    enc = SpeechEncoder()
    adapter = None
    if cfg.players:
        adapter = ProfileAdapter([Profile.load(cfg.profiles_dir, p) for p in cfg.players])
    return [
        SpotterDetector(head, enc, threshold=cfg.threshold, adapter=adapter)
        for _ in range(channels)
    ]
