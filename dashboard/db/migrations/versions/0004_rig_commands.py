"""Referees' commands kept until the rig has logged them (queued → delivered → applied | failed).

Revision ID: 0004_rig_commands
Revises: 0003_tournament
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_rig_commands"
down_revision = "0003_tournament"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rig_commands",
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("id", sa.String(64), nullable=False, unique=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("sent", sa.Float, nullable=True),
        sa.Column("done", sa.Float, nullable=True),
        sa.Column("logged_session", sa.String(64), nullable=True),
        sa.Column("logged_seq", sa.Integer, nullable=True),
    )
    op.create_index("ix_rig_commands_table_state", "rig_commands", ["table_id", "state"])


def downgrade() -> None:
    op.drop_index("ix_rig_commands_table_state", "rig_commands")
    op.drop_table("rig_commands")
