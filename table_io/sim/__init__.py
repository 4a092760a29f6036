"""FakeTable: a simulated automatic table speaking the link protocol over a pty or TCP."""
