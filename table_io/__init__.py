"""Automatic-table link: protocol, codec, driver and simulator."""
