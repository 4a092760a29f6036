"""Evidence on the rig: camera and microphone segments in a ring on disk, stills of the table,
and the HTTP server the dashboard fetches clips from (the evidence contract)."""

from rig.evidence.recorder import Clip, NotKept, Recorder
from rig.evidence.ring import Budget, Ring, Segment

__all__ = ["Budget", "Clip", "NotKept", "Recorder", "Ring", "Segment"]
