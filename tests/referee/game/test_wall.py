"""Wall geometry, break and deal (WMC-2.2, 3.3, 3.4, 6.1, 6.4; MCR 18 stacks)."""

from __future__ import annotations

from referee.game.profile import MCR, WMC
from referee.game.wall import Wall, clockwise_stacks, counted_seat


def test_wmc_2_2_dice_counting() -> None:
    roller = 2
    for total in (5, 9):
        assert counted_seat(roller, total) == roller
    for total in (2, 6, 10):
        assert counted_seat(roller, total) == 3  # the roller's right (下家)
    for total in (3, 7, 11):
        assert counted_seat(roller, total) == 0  # opposite
    for total in (4, 8, 12):
        assert counted_seat(roller, total) == 1  # left (上家)


def test_wmc_3_3_break_counts_from_the_right_end_and_continues_on_the_left_wall() -> None:
    stacks = clockwise_stacks(1, 17)
    assert stacks[0] == 17  # South's rightmost stack
    assert stacks[16] == 33  # South's leftmost
    assert stacks[17] == 0  # then East's (South's left neighbour) rightmost counts as 18
    wall = Wall(WMC)
    wall.break_at(1, 20)
    assert wall.order[0] // 2 == 3  # the live wall starts at East's 4th stack
    # the kong end (the counted 20 stacks) comes last in drawing order
    assert wall.order[-1] // 2 == 2
    assert len(set(wall.order)) == 136


def test_wmc_3_4_deal_gives_east_14_with_the_jump() -> None:
    wall = Wall(WMC)
    positions = wall.deal_positions()
    per_seat = [sum(1 for s, _ in positions if s == seat) for seat in range(4)]
    assert per_seat == [14, 13, 13, 13]
    assert positions[:4] == [(0, 0), (0, 1), (0, 2), (0, 3)]  # East takes 2 stacks first
    assert (0, 48) in positions and (0, 52) in positions  # the 1st and 5th tile
    assert sorted(i for _, i in positions) == list(range(53))


def test_wmc_6_1_fourteen_tiles_are_never_drawn() -> None:
    wall = Wall(WMC)
    wall.break_at(0, 7)
    wall.head = 53
    assert wall.live == 136 - 53 - 14
    wall.head = 136 - 14
    assert wall.live == 0 and wall.remaining == 14


def test_wmc_6_4_half_stack_lower_tile_to_dead_wall_upper_is_seabed() -> None:
    wall = Wall(WMC)
    wall.break_at(0, 7)
    assert wall.tail_index(0) == 134  # replacement: the last stack's top tile first
    assert wall.tail_index(1) == 135
    wall.tail = 1
    # 14 tiles stay dead: the 7th stack from the end is split; its top (index 120) is the
    # last live tile (the seabed) and its bottom (121) belongs to the dead wall.
    assert wall.size - wall.tail - wall.dead_size == 121
    wall.head = 120
    assert wall.is_last_live()


def test_mcr_18_stacks_144_tiles_and_no_dead_wall() -> None:
    wall = Wall(MCR)
    assert wall.size == 144
    wall.break_at(3, 12)
    wall.head = 53
    assert wall.live == 144 - 53
