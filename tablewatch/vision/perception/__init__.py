"""From pixels to events: the overhead camera's frames → ``tablewatch.events`` (``source="vision"``).

- ``plane``: ``TablePlane``, the frame rectified onto the table in mm, zone masks, high-resolution crops.
- ``scene``: ``SceneTracker``, the settled-table reference, foreground, arms (owner and hand) and settles.
- ``appearance``: ``Appearance``, felt / card back / card face / chip colour; card identity by template.
- ``settles``: ``SettleReader``, what a settle is: a card (face up, its identity read), chips, bare felt.
- ``gestures``: ``Gestures``, episodes of arms and settles → dealt, burned, board, muck, bets with their
  forward motions, taps, gathers, pushes, hands in zones, chips leaving the table, stacks obscured (one
  recogniser per family).
- ``perception``: ``Perception``, the whole path for one camera (``process(frame, ts) -> list[Event]``).
"""

from tablewatch.vision.perception.perception import Perception, PerceptionError

__all__ = ["Perception", "PerceptionError"]
