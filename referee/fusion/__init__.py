"""Fusion: camera zone observations → game actions, resolved with the rules (pure, no I/O).

The camera reports what a zone at one table edge now shows (``ZoneSeen``: every slot's tile,
whether it lies sideways or face down); fusion names the zone by the seat wind sitting at that
edge this hand (the dealer at his place's, WMC-2.4), compares it with what that zone showed
before and turns the change into the action that explains it:

- a new river tile of seat S → ``discard``; before it the draw the rules say S made
  (``draw``, or ``replacement_draw`` after a kong), timed by the wall it comes from (the live
  end, or the kong end) shrinking when it was seen. An arm brushing another wall times no draw;
  a discard whose draw was not seen, or whose seat's meld is still being laid (the laying arm
  may brush the live end), waits ``DRAW_UNSEEN_S`` for the claim that would explain it;
- a new meld of 3 → ``chow`` / ``pung`` (the sideways tile is the claimed discard, its cell names
  the source: left, middle, right = left, opposite, right player; a meld whose sideways tile
  the camera missed claimed the last discard, the only tile a claim can take); 4 face up →
  exposed ``kong``, 2 face down → concealed ``kong``; a 4th tile on a pung → added ``kong``. A
  claim seen within ``PENDING_S`` of the discard it took may show that discard misread (its
  sideways tile is another tile the discarder held): ``discard_corrected`` comes before it;
- a hand zone face up (8 tiles, or all the seat holds when fewer: four after three melds) →
  ``win``; then ``hand_revealed`` from the first reading of that hand with as many tiles as the
  winner holds (a hand still being laid down, or a tile still being read, is no reveal: it would
  differ from the record, WMC-7.4). A winner whose tiles nobody saw (a real table: the deal and
  the draws face down) is one reading, ``win`` with ``hand_revealed``, once the hand shows as
  many tiles as the win needs (with the tile won on a discard): the rules rule the win on the
  hand, and the hand may show the last discard misread (the tile he won on is among them), or
  have been won on a tile drawn from a wall the camera did not see give it (``UNSEEN_DRAW``), or,
  where the hand as read is no regular win, one of its own tiles misread (each runner-up at
  least ``IRREGULAR`` as likely as what was read is a reading of the hand too: a hand that is
  a win with a runner-up is far likelier misread than a false win);
- the wall broken and no deal logged: ``deal`` (face down, no hands) once a rack is seen filled,
  tiles come into play, or the walls are short of the stacks a deal takes; the riverbed tile
  lying ``RIVERBED_S`` unwon: ``exhaustive_draw``;
- new face-up tiles right of a hand → ``tiles_exposed`` (live penalty tiles, WMC-9.1), and a
  river tile that only the penalty tiles hold → a ``discard`` of a penalty tile (WMC-9.2).

A tile the camera named may be read wrongly: each slot carries its runners-up (what else the
recognizer thought it might be, and how likely), and a change names one action per reading, most
likely first. The rules decide between them: a reading they refuse (a discard of a tile the seat
does not hold, a claim of another tile than the last discard) is not what lies there, and a
reading that raises an irregularity (a violation: a chow that is no run, a false win; not a
warning such as a claim no microphone heard) weighs ``IRREGULAR`` times less (players err more
rarely than the camera; a sure reading of a wrong meld stays a wrong meld).
The likeliest reading left is recorded when it holds ``min_confidence`` of the likelihood of all
the readings the rules allow (its confidence is that share). A reading less sure is a
``FUSION-ambiguous`` alert naming the readings for a referee; it is recorded all the same when it
is likelier than all the others together (``MIN_SHARE``): the game goes on from it (a discard
left out would leave every later action out of turn), and a referee puts it right if need be.
Readings that differ only in the tile of the discard before (``discard_corrected``) say the same
happened and are weighed together for this: a hand laid down shows the win, not which of its
tiles was won on, and no later play would settle that tile. For the same reason a win none of
whose readings is sure (its hand's faces read unsurely) is recorded at ``PENDING_S`` as its
likeliest regular reading, and told, rather than lost with the hand's result.
One less sure still waits, read again, like a change not yet legal; at ``PENDING_S`` it is told
and kept aside (``doubts``). Either way, once a later change needs it to be allowed (the next
seat discards), play went on past it: its likeliest reading is recorded, and told.

Every reading is tried on a copy of the engine. A change the rules refuse in every reading (or
that names no action: a sideways tile on another side than the last discarder's) waits up to
``PENDING_S`` for an earlier action, then becomes an alert for a referee (``FUSION-illegal``,
citing the rule that refused it); a discard the camera saw face down is ``FUSION-ambiguous``.
A reading the rules take but rule out of turn (a discard before its draw or on another's turn,
WMC-4.2 / 4.3: ``OUT_OF_ORDER``) waits the same way, since the camera may have seen it before the
action it follows; when none comes it happened, and it is recorded with the engine's ruling
(WMC-0.4: what happened at the table stands).
Each event cites the observation behind it.

Modules: :mod:`~referee.fusion.seen` (what the camera reports), :mod:`~referee.fusion.changes`
(each zone's change → its readings: discards, claims, kongs, wins), :mod:`~referee.fusion.melds`
(the melds a claim can make), :mod:`~referee.fusion.record` (the waiting changes, the weighing,
the doubts).
"""

from referee.fusion.changes import Fusion
from referee.fusion.seen import FusionAlert, Option, SlotSeen, ZoneSeen

__all__ = ["Fusion", "FusionAlert", "Option", "SlotSeen", "ZoneSeen"]
