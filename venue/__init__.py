"""The top of the house (DESIGN.md, Layout): what uses the dashboard and the rigs together.

- ``venue.demo`` (``mjref demo``, the main job): a whole venue on one machine — the referees'
  dashboard (``dashboard``) and several rigs (``rig``, one table's runtime each) with their
  simulated tables (``venue.demo_media``: a simulated hand's overhead video and table audio).
- ``venue.review_cli`` (``mjref review``): a recorded game looked back on — a rig's log exported
  (text, mjai, the dashboard's score card as PDF) or re-derived through the camera from the rig's
  evidence ring.

Nothing below imports it: ``rig`` and ``dashboard`` never import ``venue`` (import-linter,
pyproject.toml).
"""
