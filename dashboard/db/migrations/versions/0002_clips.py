"""Evidence clips kept by the dashboard (fetched from the rig when an alert is decided).

Revision ID: 0002_clips
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_clips"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clips",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("start", sa.Float, nullable=False),
        sa.Column("end", sa.Float, nullable=False),
        sa.Column("covers_start", sa.Float, nullable=False),
        sa.Column("covers_end", sa.Float, nullable=False),
        sa.Column("media_type", sa.String(32), nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("alert_id", sa.String(128), nullable=False),
        sa.Column("fetched", sa.Float, nullable=False),
    )
    op.create_index("ix_clips_range", "clips", ["table_id", "session_id", "kind", "start"])


def downgrade() -> None:
    op.drop_index("ix_clips_range", "clips")
    op.drop_table("clips")
