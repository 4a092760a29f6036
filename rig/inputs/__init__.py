"""The rig's inputs, each run in its own supervised task (a process where CPU-heavy: camera,
voice).

An input turns its device into submissions for the core — a :class:`Draft` (a payload from a
sensor) or a table_io link output — and calls :meth:`Sink.alive` when it hears from its device.
The :class:`Supervisor` restarts a failing input with back-off and keeps its :class:`Health`
(ok / degraded / down, since when, restarts); a failing input never stops the core.
"""

from rig.inputs.base import Draft, Health, HealthState, Input, Sink, Submission
from rig.inputs.camera import CameraFileInput, CameraInput, VideoRecording
from rig.inputs.commands import RoundCall, referee_draft, round_call
from rig.inputs.supervisor import Supervisor
from rig.inputs.table_link import TableLinkInput
from rig.inputs.voice import AudioRecording, VoiceInput, uncertain

__all__ = [
    "AudioRecording",
    "CameraFileInput",
    "CameraInput",
    "Draft",
    "Health",
    "HealthState",
    "Input",
    "RoundCall",
    "Sink",
    "Submission",
    "Supervisor",
    "TableLinkInput",
    "VideoRecording",
    "VoiceInput",
    "referee_draft",
    "round_call",
    "uncertain",
]
