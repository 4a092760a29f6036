"""Exactly-once, in-order delivery through a lossy channel, proved by a hypothesis state machine.

Bytes really cross a pseudo-terminal; the channel in front of it drops, duplicates, corrupts and
splits frames in both directions, and time moves only when the machine says so.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from table_io.frames import FrameDecoder
from table_io.link import Delivered, HostLink, LinkConfig
from table_io.messages import DiceResult
from table_io.sim.device import DeviceConfig, TableDevice

from .conftest import PtyPair

faults = st.sampled_from(["ok", "ok", "ok", "drop", "dup", "corrupt", "split"])


class LossyLink(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.pty = PtyPair()
        self.t = 0.0
        self.device = TableDevice(DeviceConfig(window=8), random.Random(1))
        self.device.boot(self.t)
        self.host = HostLink(self.t, LinkConfig(first_seq=1))
        self.host.connection_made(self.t)
        self.decoder = FrameDecoder()
        self.in_flight: list[bytes] = []
        self.emitted = 0
        self.delivered: list[int] = []

    def _damage(self, wire: bytes, fault: str, rnd: random.Random) -> list[bytes]:
        if fault == "drop":
            return []
        if fault == "dup":
            return [wire, wire]
        if fault == "corrupt":
            bad = bytearray(wire)
            bad[rnd.randrange(len(bad))] ^= 1 << rnd.randrange(8)
            return [bytes(bad)]
        if fault == "split":
            return [bytes([b]) for b in wire]
        return [wire]

    def _to_host(self, chunks: list[bytes]) -> None:
        for chunk in chunks:
            received = self.pty.pass_to_host(chunk)
            self.host.receive(self.decoder.feed(received), self.t)
        for out in self.host.take_outputs():
            if isinstance(out, Delivered):
                self.delivered.append(out.seq)

    def _to_table(self, fault: str, rnd: random.Random) -> None:
        data = self.host.take_bytes()
        if data:
            for chunk in self._damage(data, fault, rnd):
                self.device.receive(self.pty.pass_to_table(chunk), self.t)

    @rule()
    def table_event(self) -> None:
        self.device.emit(DiceResult(self.device.t_ms(self.t), 2, 3), self.t)
        self.emitted += 1

    @precondition(lambda self: self.device._out or self.in_flight)
    @rule(fault=faults, back=faults, rnd=st.randoms(use_true_random=False))
    def carry(self, fault: str, back: str, rnd: random.Random) -> None:
        self.in_flight += self.device.take()
        wire, self.in_flight = self.in_flight[0], self.in_flight[1:]
        self._to_host(self._damage(wire, fault, rnd))
        self._to_table(back, rnd)

    @rule(seconds=st.sampled_from([0.01, 0.06, 0.3, 1.1]))
    def time_passes(self, seconds: float) -> None:
        self.t += seconds
        self.device.tick(self.t)
        self.host.tick(self.t)

    @invariant()
    def delivered_is_an_exact_prefix(self) -> None:
        assert self.delivered == list(range(1, len(self.delivered) + 1))
        assert len(self.delivered) <= self.emitted

    def teardown(self) -> None:
        try:
            rnd = random.Random(0)
            for _ in range(200):  # a clean line from now on: everything must arrive
                if len(self.delivered) == self.emitted:
                    break
                self.t += 0.3
                self.device.tick(self.t)
                self.host.tick(self.t)
                self._to_table("ok", rnd)
                self._to_host(self.in_flight + self.device.take())
                self.in_flight = []
                self._to_table("ok", rnd)
            assert self.delivered == list(range(1, self.emitted + 1))
        finally:
            self.pty.close()


TestLossyLink = LossyLink.TestCase
TestLossyLink.settings = settings(max_examples=60, stateful_step_count=60, deadline=None)
TestLossyLink = pytest.mark.slow(TestLossyLink)
