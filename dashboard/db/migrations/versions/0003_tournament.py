"""The tournament: its players, rounds, tables, seating, and the players' logins (#35).

Revision ID: 0003_tournament
Revises: 0002_clips
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_tournament"
down_revision = "0002_clips"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("rules", sa.String(8), nullable=False),
        sa.Column("starts", sa.String(10), nullable=False),
        sa.Column("ends", sa.String(10), nullable=False),
        sa.Column("venue", sa.String(128), nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("pins", sa.Boolean, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "entrants",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("ema_id", sa.String(32), nullable=False),
        sa.Column("country", sa.String(64), nullable=False),
        sa.Column("team", sa.String(64), nullable=False),
        sa.Column("substitute", sa.Boolean, nullable=False),
        sa.Column("pin_hash", sa.String(255), nullable=False),
    )
    op.create_table(
        "rounds",
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("minutes", sa.Integer, nullable=False),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("rig", sa.String(64), nullable=False, unique=True),
    )
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "round", sa.Integer, sa.ForeignKey("rounds.number", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "table",
            sa.Integer,
            sa.ForeignKey("tournament_tables.number", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.String(1), nullable=False),
        sa.Column(
            "entrant",
            sa.String(64),
            sa.ForeignKey("entrants.name", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.UniqueConstraint("round", "table", "seat", name="uq_seat"),
    )
    op.create_table(
        "player_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "entrant",
            sa.String(64),
            sa.ForeignKey("entrants.name", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("player_sessions", "seats", "tournament_tables", "rounds", "entrants"):
        op.drop_table(name)
    op.drop_table("tournament")
