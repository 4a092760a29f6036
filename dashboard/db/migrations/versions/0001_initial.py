"""The first migration: every table.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "login_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_login_sessions_user_id", "login_sessions", ["user_id"])
    op.create_table(
        "rig_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
    )
    op.create_index("ix_rig_tokens_table_id", "rig_tokens", ["table_id"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("ts", sa.Float, nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("received", sa.Float, nullable=False),
        sa.UniqueConstraint("table_id", "session_id", "seq", name="uq_event_key"),
    )
    op.create_table(
        "rig_alerts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("received", sa.Float, nullable=False),
    )
    op.create_index("ix_rig_alerts_table_id", "rig_alerts", ["table_id"])
    op.create_table(
        "presence",
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("changed", sa.Float, nullable=False),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("target", sa.String(128), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
    )
    op.create_index("ix_audit_at", "audit", ["at"])


def downgrade() -> None:
    for name in ("audit", "presence", "rig_alerts", "events", "rig_tokens", "login_sessions"):
        op.drop_table(name)
    op.drop_table("users")
