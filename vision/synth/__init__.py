"""Synthetic overhead table scenes with exact labels, for training and end-to-end tests."""
