"""One router per resource; each has its own request and response schemas."""
