"""Spoken calls: audio sources, VAD, call spotting in four languages."""
