"""The host link state machine in simulated time: delivery, repair, reboots, alerts, commands."""

from __future__ import annotations

import random

from table_io.frames import Flags, Frame, FrameDecoder
from table_io.link import (
    CommandTimeout,
    Delivered,
    EventsLost,
    HostLink,
    LinkConfig,
    LinkOffline,
    LinkOnline,
    Output,
    Reply,
    TableBooted,
)
from table_io.messages import Ack, Beep, DiceResult, Hold, Nack, ResendFrom, ShuffleStarted, Status
from table_io.sim.device import DeviceConfig, TableDevice


class Bench:
    """A device and a host wired back to back; ``lose`` decides per wire frame what is dropped."""

    def __init__(self, *, log_size: int = 4096, start: str = "log") -> None:
        self.t = 100.0
        self.device = TableDevice(DeviceConfig(log_size=log_size), random.Random(7))
        self.device.boot(self.t)
        self.host = HostLink(self.t, LinkConfig(first_seq=1, start=start))  # type: ignore[arg-type]
        self.decoder = FrameDecoder()
        self.outputs: list[Output] = []
        self.host.connection_made(self.t)

    def pump(self, drop_to_host: set[int] | None = None, rounds: int = 4) -> None:
        for _ in range(rounds):
            for i, wire in enumerate(self.device.take()):
                if drop_to_host and i in drop_to_host:
                    continue
                self.host.receive(self.decoder.feed(wire), self.t)
            data = self.host.take_bytes()
            if data:
                self.device.receive(data, self.t)
            self.outputs += self.host.take_outputs()
            drop_to_host = None

    def advance(self, seconds: float, step: float = 0.01) -> None:
        end = self.t + seconds
        while self.t < end - 1e-9:
            self.t = min(end, self.t + step)
            self.device.tick(self.t)
            self.host.tick(self.t)
            self.pump()

    def delivered(self) -> list[int]:
        return [o.seq for o in self.outputs if isinstance(o, Delivered)]


def test_first_contact_replays_the_log() -> None:
    b = Bench()
    for _ in range(5):
        b.device.emit(ShuffleStarted(b.device.t_ms(b.t)), b.t)
    b.device.take()  # nobody was listening
    b.pump()
    assert b.delivered() == [1, 2, 3, 4, 5]
    assert isinstance(b.outputs[0], LinkOnline)
    assert any(isinstance(o, TableBooted) and o.previous_boot is None for o in b.outputs)


def test_start_now_skips_the_backlog() -> None:
    b = Bench(start="now")
    for _ in range(3):
        b.device.emit(ShuffleStarted(0), b.t)
    b.device.take()
    b.pump()
    b.device.emit(DiceResult(0, 2, 5), b.t)
    b.pump()
    assert b.delivered() == [4]


def test_a_lost_frame_is_repaired_at_once_by_resend_from() -> None:
    b = Bench()
    b.pump()
    for _ in range(3):
        b.device.emit(ShuffleStarted(0), b.t)
    b.pump(drop_to_host={1})  # frame 2 of 3 lost
    assert b.delivered() == [1, 2, 3]
    assert b.host.stats.resend_requests >= 1
    assert b.host.stats.out_of_order == 1


def test_a_lost_last_frame_is_repaired_by_the_table_timer() -> None:
    b = Bench()
    b.pump()
    b.device.emit(ShuffleStarted(0), b.t)
    b.pump(drop_to_host={0})
    assert b.delivered() == []
    b.advance(0.25)
    assert b.delivered() == [1]


def test_duplicates_are_suppressed_and_still_acknowledged() -> None:
    b = Bench()
    b.pump()
    b.device.emit(DiceResult(0, 1, 1), b.t)
    wire = b.device.take()
    for _ in range(3):
        b.host.receive(b.decoder.feed(wire[0]), b.t)
    b.outputs += b.host.take_outputs()
    assert b.delivered() == [1]
    assert b.host.stats.duplicates == 2
    b.device.receive(b.host.take_bytes(), b.t)
    assert b.device.acked == 1


def test_offline_alert_after_exactly_three_seconds_of_silence() -> None:
    host = HostLink(0.0, LinkConfig(first_seq=1))
    host.connection_made(0.0)
    status = Status(0, 0, False, 1, 1, 0, 0, 0, 0)  # type: ignore[arg-type]
    frame = Frame(Status.TYPE, 0, Flags.NONE, status.encode_payload())
    host.receive([frame], 10.0)
    assert isinstance(host.take_outputs()[0], LinkOnline)
    host.tick(12.99)
    assert not any(isinstance(o, LinkOffline) for o in host.take_outputs())
    host.tick(13.0)
    [offline] = [o for o in host.take_outputs() if isinstance(o, LinkOffline)]
    assert offline.at == 13.0 and offline.last_heard == 10.0
    host.tick(20.0)
    assert not host.take_outputs()  # one alert per outage
    host.receive([frame], 21.0)
    assert [type(o) for o in host.take_outputs()] == [LinkOnline]
    assert host.stats.offline_alerts == 1


def test_a_table_that_never_speaks_is_reported_offline() -> None:
    host = HostLink(0.0)
    host.tick(2.9)
    assert host.take_outputs() == []
    host.tick(3.0)
    assert host.take_outputs() == [LinkOffline(3.0, None)]


def test_heartbeats_keep_the_link_online() -> None:
    b = Bench()
    b.advance(10.0, step=0.1)
    assert not any(isinstance(o, LinkOffline) for o in b.outputs)
    b.device.config.heartbeat = 1e9  # the table goes quiet
    b.advance(2.9, step=0.1)
    assert not any(isinstance(o, LinkOffline) for o in b.outputs)
    b.advance(0.2, step=0.1)
    assert sum(isinstance(o, LinkOffline) for o in b.outputs) == 1


def test_reboot_mid_hand_is_reported_and_the_new_stream_delivered() -> None:
    b = Bench()
    b.pump()
    b.device.emit(ShuffleStarted(0), b.t)
    b.pump()
    old = b.device.boot_id
    b.device.boot(b.t)
    b.device.emit(DiceResult(0, 6, 6), b.t)
    b.pump()
    [reboot] = [o for o in b.outputs if isinstance(o, TableBooted) and o.previous_boot]
    assert reboot.previous_boot == old and reboot.boot_id == b.device.boot_id
    assert b.delivered() == [1, 1]
    assert b.host.stats.reboots == 1


def test_events_beyond_the_device_log_are_reported_lost() -> None:
    b = Bench(log_size=4)
    b.pump()
    b.device.emit(ShuffleStarted(0), b.t)
    b.pump()
    for _ in range(10):
        b.device.emit(ShuffleStarted(0), b.t)
    b.device.take()  # the line was down: seqs 2..11 never arrived; the log keeps 8..11
    b.advance(1.1)
    [lost] = [o for o in b.outputs if isinstance(o, EventsLost)]
    assert (lost.first_seq, lost.last_seq) == (2, 7)
    assert b.delivered() == [1, 8, 9, 10, 11]
    assert b.host.stats.lost == 6


def test_commands_are_answered_once_even_when_retransmitted() -> None:
    b = Bench()
    b.pump()
    seq = b.host.send(Hold(), b.t)
    b.host.take_bytes()  # the first copy is lost
    b.advance(0.3)
    assert [o for o in b.outputs if isinstance(o, Reply)] == [Reply(seq, Ack())]
    assert b.device.held
    assert b.host.stats.retransmits == 1
    # A late duplicate of the command is answered again but not executed again.
    beep = b.host.send(Beep(2, 50), b.t)
    wire = b.host.take_bytes()
    b.device.receive(wire, b.t)
    b.device.receive(wire, b.t)
    assert b.device.stats.beeps == 2 and b.device.stats.duplicate_commands == 1
    assert beep == seq + 1


def test_a_command_with_no_answer_times_out() -> None:
    host = HostLink(0.0, LinkConfig(first_seq=5, command_attempts=3))
    host.connection_made(0.0)
    seq = host.send(Hold(), 0.0)
    for t in (0.25, 0.5, 0.75):
        host.tick(t)
    assert CommandTimeout(seq) in host.take_outputs()


def test_unknown_commands_are_refused() -> None:
    b = Bench()
    b.pump()
    b.device.receive(Frame(0x5A, 77, Flags.ACK_REQ, b"").encode(), b.t)
    replies = b.device.take()
    [frame] = FrameDecoder().feed(b"".join(replies))
    assert frame.type == Nack.TYPE and frame.seq == 77 and frame.flags & Flags.IS_ACK


def test_resend_from_with_a_count_replays_just_that_range() -> None:
    b = Bench()
    b.pump()
    for _ in range(6):
        b.device.emit(ShuffleStarted(0), b.t)
    b.device.take()
    b.device.receive(
        Frame(ResendFrom.TYPE, 0, Flags.NONE, ResendFrom(2, 3).encode_payload()).encode(), b.t
    )
    seqs = [f.seq for f in FrameDecoder().feed(b"".join(b.device.take()))]
    assert seqs == [2, 3, 4]
