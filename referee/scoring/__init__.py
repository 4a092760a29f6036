"""Scoring profiles: wmc and zj33 (Zung Jung v3.3 patterns), mcr (Chinese Official)."""
